"""BASE and HEAD: an intent path, or a git revision of an intent directory in a repository.

A revision's tree is read with ``git archive`` into a temporary directory; the work tree is never touched.
``A...B`` is the merge base of A and B against B (what a pull request from B into A changes), ``A..B`` is A
against B. A bad path or revision is one line (``usage_error``): the command exits 2 and nothing runs.
"""

from __future__ import annotations

import io
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from xoff.errors import InputError, Location, Problem, usage_error


@dataclass(frozen=True)
class Side:
    """Where one side's intent was read: ``path`` to load, ``label`` to show (``main@1a2b3c4:inventory/x``),
    ``tmp_root`` the extracted tree's root (to rewrite file names in problems)."""

    path: Path
    label: str
    tmp_root: Path | None = None


def _git(repo: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=False)
    except OSError as exc:
        raise usage_error(f"git: cannot run it: {exc.strerror}") from None
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["failed"])[-1]
        raise usage_error(f"git {' '.join(args)}: {why}")
    return done.stdout.strip()


def _commit(repo: Path, rev: str, role: str) -> str:
    try:
        return _git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    except InputError:
        raise usage_error(
            f"{role}: {rev!r} is neither an intent path nor a git revision of {repo} (allowed: a file or directory, "
            "a branch, tag or commit, A...B)"
        ) from None


def split_range(base: str, head: str | None) -> tuple[str, str, bool]:
    """(base, head, merge_base): ``A...B`` -> (A, B, True); ``A..B`` -> (A, B, False); else as given."""
    if head is not None:
        return base, head, False
    for sep, merge in (("...", True), ("..", False)):
        if sep in base:
            left, right = base.split(sep, 1)
            return left or "HEAD", right or "HEAD", merge
    raise usage_error(f"HEAD: missing (give BASE HEAD, or one range BASE...HEAD); got only {base!r}")


def _extract(repo: Path, commit: str, inside: str, into: Path) -> None:
    raw = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", commit, "--", inside],
        capture_output=True,
        check=False,
    )
    if raw.returncode != 0:
        why = (raw.stderr.decode(errors="replace").strip().splitlines() or ["failed"])[-1]
        raise usage_error(f"--intent: {inside!r} is not in {commit[:12]} ({why})")
    with tarfile.open(fileobj=io.BytesIO(raw.stdout)) as tar:
        tar.extractall(into, filter="data")


def resolve(spec: str, role: str, *, repo: Path, intent: str | None, tmp: Path, merge_base_with: str | None) -> Side:
    """One side. An existing path is a path (unless --intent names the intent inside the repository);
    else ``spec`` is a revision, merged-based with ``merge_base_with`` when given."""
    if intent is None and merge_base_with is None and Path(spec).exists():
        return Side(Path(spec), spec)
    commit = _commit(repo, spec, role)
    if merge_base_with is not None:
        other = _commit(repo, merge_base_with, "HEAD")
        commit = _git(repo, "merge-base", commit, other)
    top = Path(_git(repo, "rev-parse", "--show-toplevel"))
    inside = intent if intent is not None else (_git(repo, "rev-parse", "--show-prefix") or ".")
    inside = str(PurePosixPath(inside))
    if PurePosixPath(inside).is_absolute() or inside.startswith(".."):
        raise usage_error(f"--intent: {inside!r} must be a path inside the repository {top} (relative to its root)")
    root = tmp / role.lower()
    root.mkdir(parents=True, exist_ok=True)
    _extract(top, commit, inside, root)
    shown = spec if merge_base_with is None else f"merge-base({spec}, {merge_base_with})"
    return Side(root / inside, f"{shown}@{commit[:12]}:{inside}", root)


def relabel(exc: InputError, side: Side) -> InputError:
    """The side's problems with file names as ``REV:path`` instead of the temporary directory."""
    if side.tmp_root is None:
        return exc
    prefix = str(side.tmp_root) + "/"
    tag = side.label.split(":", 1)[0]
    out: list[Problem] = []
    for p in exc.problems:
        loc = p.location
        if loc is not None and loc.file.startswith(prefix):
            loc = Location(f"{tag}:{loc.file[len(prefix) :]}", loc.line, loc.column)
        out.append(type(p)(loc, p.path, p.message))
    return InputError(out)
