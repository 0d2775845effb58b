"""The ``nv`` command: ``set``/``unset`` into the user's pending revision, ``show``, and ``config``
(``apply [-y] [<rev>] [--confirm [<time>] | --confirm-yes | --confirm-no | --confirm-status]`` (the
commit-confirm: ``confirm.py``), ``diff [-o commands] [A [B]]``, ``revision [-o json]``, ``history``,
``detach``, ``save``, ``show [-o commands|yaml|json]``, ``patch``/``replace <file>``).

Revision names: an integer id, ``applied``, ``startup``, ``empty``, ``pending`` (the user's). Output:
``applied [rev_id: N]`` and ``saved [rev_id: applied]`` as NVUE prints them; a refused apply prints
``Invalid config [rev_id: N]`` and one indented line per problem, and leaves the revision pending.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from pathlib import Path

import yaml

from xoff.lab.emulators.base import EmulatorContext, Reply
from xoff.lab.emulators.cumulus import confirm, show_buffers, show_counters, show_optics
from xoff.lab.emulators.cumulus import show as shows
from xoff.lab.emulators.cumulus.apply import apply_to_system, check
from xoff.lab.emulators.cumulus.schema import CommandError, check_set, check_unset
from xoff.lab.emulators.cumulus.store import Nvue, Revision, Store, stamp
from xoff.lab.emulators.cumulus.tree import Tree, diff_commands, diff_yaml, set_commands, set_path, unset_path

OUTPUTS = {"json", "yaml", "auto", "commands"}
APPLY_ERRORS = "apply-errors.log"
CONFIRM_FLAGS = ("--confirm-yes", "--confirm-no", "--confirm-status")


def _err(text: str) -> Reply:
    return Reply(text if text.endswith("\n") else text + "\n", 1)


class Nv:
    """One session's ``nv``; ``reject`` is the fault hook asked before every configuration change."""

    def __init__(
        self,
        ctx: EmulatorContext,
        user: str,
        reject: Callable[[], bool],
        read_file: Callable[[str], Path],
        clock: Callable[[], float] = time.time,
    ):
        self.ctx = ctx
        self.clock = clock
        self.user = user
        self.store = Store(ctx.state_dir, ctx)
        self.reject = reject
        self.read_file = read_file

    def run(self, args: list[str]) -> Reply:
        if not args or args[0] in {"-h", "--help"}:
            return Reply("Usage:\n  nv [options] <command> [<args> ...]\n\nCommands:\n  set  unset  show  config\n")
        verb, rest = args[0], args[1:]
        self.log(self.expire())  # a lapsed trial is rolled back before anything else is read or changed
        return self._verb(verb, rest)

    def log(self, warnings: list[str]) -> None:
        """What failed in carrying a rollback nobody typed into the system: kept for whoever looks."""
        if warnings:
            with (self.ctx.state_dir / APPLY_ERRORS).open("a", encoding="utf-8") as fh:
                fh.write("".join(f"{time.time():.3f} {w}\n" for w in warnings))

    def _verb(self, verb: str, rest: list[str]) -> Reply:
        if verb in {"set", "unset"}:
            return self._edit(verb, rest)
        if verb == "show":
            return self._show(rest)
        if verb == "config":
            return self._config(rest)
        return _err(f"Error: Invalid Command: {verb}")

    # --- set / unset -------------------------------------------------------------------------------

    def _edit(self, verb: str, words: list[str]) -> Reply:
        try:
            if verb == "set":
                path, value = check_set(words)
            else:
                path, value = check_unset(words), None
        except CommandError as exc:
            return _err(str(exc))
        if self.reject():
            return _err(f"Error: rejected by the lab's fault hook ({verb} {' '.join(words)})")
        with self.store.locked() as state:
            rev = self._pending(state)
            if verb == "set":
                set_path(rev.tree, path, value)
            else:
                unset_path(rev.tree, path)
        return Reply()

    def _pending(self, state: Nvue) -> Revision:
        rev_id = state.pending.get(self.user)
        if rev_id is not None and rev_id in state.revisions:
            return state.revisions[rev_id]
        rev = state.new_revision(self.user, state.applied_tree())
        state.pending[self.user] = rev.rev_id
        return rev

    # --- show --------------------------------------------------------------------------------------

    def _show(self, args: list[str]) -> Reply:
        try:
            opts, path = _options(
                args, {"-o", "--output", "--rev", "-r"}, {"--applied", "--pending", "--startup", "--operational"}
            )
        except CommandError as exc:
            return _err(str(exc))
        output = opts.get("-o", opts.get("--output", "auto"))
        state = self.store.read()
        tree = state.applied_tree()
        if "--pending" in opts:
            tree = self._tree(state, "pending")
        elif "--startup" in opts:
            tree = state.startup
        try:
            if tuple(path) == ("platform", "transceiver", "detail"):  # every port's module at once
                return Reply(show_optics.platform_detail(self.ctx, tree, output))
            phy = show_optics.lookup(self.ctx, tree, tuple(path))  # a port's PHY health and module (text)
            phy = phy if phy is not None else show_buffers.lookup(self.ctx, tree, tuple(path))  # its PGs' buffer
            if phy is not None:
                return Reply(phy)
            counted = show_counters.lookup(self.ctx, tree, tuple(path))  # a port's counters and watchdog
            if counted is not None:
                return Reply(show_counters.render(*counted, output))
            value = shows.show(self.ctx, tree, tuple(path))
        except shows.ShowError as exc:
            return _err(str(exc))
        return Reply(shows.render(value, output))

    # --- config ------------------------------------------------------------------------------------

    def _config(self, args: list[str]) -> Reply:
        if not args:
            return _err("Error: Incomplete Command: config")
        sub, rest = args[0], args[1:]
        handler = {
            "apply": self._apply,
            "diff": self._diff,
            "revision": self._revisions,
            "history": self._history,
            "detach": self._detach,
            "save": self._save,
            "show": self._config_show,
            "patch": self._patch,
            "replace": self._patch,
        }.get(sub)
        if handler is None:
            return _err(f"Error: Invalid Command: config {sub}")
        if sub == "replace":
            return self._patch(rest, replace=True)
        return handler(rest)

    def _tree(self, state: Nvue, name: str) -> Tree:
        if name == "applied":
            return state.applied_tree()
        if name == "startup":
            return state.startup
        if name == "empty":
            return {}
        if name == "pending":
            rev_id = state.pending.get(self.user)
            return state.revisions[rev_id].tree if rev_id is not None else state.applied_tree()
        if name.isdigit() and int(name) in state.revisions:
            return state.revisions[int(name)].tree
        raise CommandError(f"Error: Invalid revision: {name}")

    def _apply(self, args: list[str]) -> Reply:  # noqa: C901, PLR0911, PLR0912 -- `nv config apply`: one early refusal per option conflict, confirm answer and busy state, in NVUE's order
        try:
            args, confirm_time = _confirm_option(args)
            flags = {"-y", "--assume-yes", "--assume-no", *CONFIRM_FLAGS}
            opts, rest = _options(args, {"-m", "--message"}, flags)
            modes = [f for f in CONFIRM_FLAGS if f in opts] + (["--confirm"] if confirm_time is not None else [])
            if len(modes) > 1:
                raise CommandError(f"Error: {modes[0]} and {modes[1]} cannot be used together")
            trial_s = confirm.seconds(confirm_time or None) if confirm_time is not None else None
        except (CommandError, confirm.ConfirmError) as exc:
            return _err(str(exc))
        if len(rest) > 1:
            return _err(f"Error: Invalid Command: config apply {' '.join(rest)}")
        if "--confirm-status" in opts:
            return Reply(confirm.status(self.store.peek(), self.clock()))
        if "--confirm-yes" in opts or "--confirm-no" in opts:
            return self._confirm_answer(rest[0] if rest else None, yes="--confirm-yes" in opts)
        if self.reject():
            return _err("Error: rejected by the lab's fault hook (config apply)")
        with self.store.locked() as state:
            if state.confirm is not None:
                return _err(confirm.busy(state))
            if rest and rest[0] in {"startup", "empty"}:
                rev = state.new_revision(self.user, self._tree(state, rest[0]))
            elif rest:
                if not rest[0].isdigit() or int(rest[0]) not in state.revisions:
                    return _err(f"Error: Invalid revision: {rest[0]}")
                rev = state.revisions[int(rest[0])]
            else:
                rev = self._pending(state)
            problems = check(rev.tree)
            if problems:
                return _err(f"Invalid config [rev_id: {rev.rev_id}]\n" + "".join(f"  {p}\n" for p in problems))
            old = copy.deepcopy(state.applied_tree())
            previous = state.applied
            state.revisions[previous].state = "superseded"
            rev.state, rev.date = "applied", stamp()
            rev.message = opts.get("-m", opts.get("--message", rev.message))
            state.applied = rev.rev_id
            if trial_s is None:
                state.startup = copy.deepcopy(rev.tree)  # auto-save is on, as shipped
            else:
                confirm.start(state, rev.rev_id, previous, self.clock() + trial_s, self.user)
            state.pending = {u: r for u, r in state.pending.items() if r != rev.rev_id}
            count = sum(1 for h in state.history if h["rev_id"] == rev.rev_id) + 1
            state.history.append(
                {"apply_id": f"rev_{rev.rev_id}_apply_{count}", "rev_id": rev.rev_id, "date": rev.date,
                 "type": "CLI", "user": self.user, "message": rev.message}
            )  # fmt: skip
            new = copy.deepcopy(rev.tree)
        warnings = apply_to_system(self.ctx, old, new)
        return Reply("".join(f"Warning: {w}\n" for w in warnings) + f"applied [rev_id: {rev.rev_id}]\n")

    def _confirm_answer(self, rev: str | None, yes: bool) -> Reply:
        with self.store.locked() as state:
            try:
                if yes:
                    return Reply(confirm.accept(state, rev))
                trial = confirm.refuse(state, rev, self.user, "Rollback: nv config apply --confirm-no")
            except confirm.ConfirmError as exc:
                return _err(str(exc))
            old, new = copy.deepcopy(state.revisions[trial.rev_id].tree), copy.deepcopy(state.applied_tree())
        warnings = apply_to_system(self.ctx, old, new)
        return Reply("".join(f"Warning: {w}\n" for w in warnings) + f"applied [rev_id: {trial.previous}]\n")

    def expire(self) -> list[str]:
        """Roll back a trial whose deadline passed (before every command, and from the timer); the
        warnings of carrying it into the system."""
        if not confirm.lapsed(self.store.peek(), self.clock()):
            return []
        with self.store.locked() as state:
            if not confirm.lapsed(state, self.clock()):
                return []  # another session got there first
            trial = confirm.refuse(state, None, "root", "Rollback: confirm time expired")
            old, new = copy.deepcopy(state.revisions[trial.rev_id].tree), copy.deepcopy(state.applied_tree())
        return apply_to_system(self.ctx, old, new)

    def deadline(self) -> float | None:
        trial = self.store.peek().confirm
        return trial.deadline if trial is not None else None

    def _diff(self, args: list[str]) -> Reply:
        try:
            opts, names = _options(args, {"-o", "--output"}, {"--verbose"})
            if len(names) > 2:
                raise CommandError(f"Error: Invalid Command: config diff {' '.join(names)}")
            state = self.store.read()
            a, b = ["applied", "pending"] if not names else [names[0], "pending"] if len(names) == 1 else names
            old, new = self._tree(state, a), self._tree(state, b)
        except CommandError as exc:
            return _err(str(exc))
        if opts.get("-o", opts.get("--output")) == "commands":
            return Reply("".join(f"{c}\n" for c in diff_commands(old, new)))
        return Reply(diff_yaml(old, new))

    def _revisions(self, args: list[str]) -> Reply:
        try:
            opts, rest = _options(args, {"-o", "--output"}, set())
        except CommandError as exc:
            return _err(str(exc))
        if rest:
            return _err(f"Error: Invalid Command: config revision {' '.join(rest)}")
        state = self.store.read()
        labels = {rev.rev_id: _label(state, rev) for rev in state.revisions.values()}
        if opts.get("-o", opts.get("--output")) == "json":
            data = {
                str(rev.rev_id): {
                    "state": labels[rev.rev_id],
                    "date": rev.date,
                    "user": rev.user,
                    "message": rev.message,
                }
                for rev in state.revisions.values()
            }
            return Reply(shows.render(data, "json"))
        rows: list[tuple[str, ...]] = [("Rev ID", "State", "Apply Date", "User", "Message")]
        for rev in state.revisions.values():
            rows.append((str(rev.rev_id), labels[rev.rev_id], rev.date, rev.user, rev.message))
        return Reply(_table(rows))

    def _history(self, args: list[str]) -> Reply:
        state = self.store.read()
        wanted = {int(a) for a in args if a.isdigit()}
        if len(wanted) != len(args):
            return _err(f"Error: Invalid revision: {' '.join(args)}")
        rows: list[tuple[str, ...]] = [("Apply ID", "Rev ID", "Apply Date", "Type", "User", "Message")]
        for h in state.history:
            if not wanted or h["rev_id"] in wanted:
                rows.append((h["apply_id"], str(h["rev_id"]), h["date"], h["type"], h["user"], h.get("message", "")))
        return Reply(_table(rows))

    def _detach(self, args: list[str]) -> Reply:
        if args:
            return _err(f"Error: Invalid Command: config detach {' '.join(args)}")
        with self.store.locked() as state:
            rev_id = state.pending.pop(self.user, None)
            if rev_id is not None:
                state.revisions[rev_id].state = "detached"
        return Reply()

    def _save(self, args: list[str]) -> Reply:
        if args:
            return _err(f"Error: Invalid Command: config save {' '.join(args)}")
        with self.store.locked() as state:
            state.startup = copy.deepcopy(state.applied_tree())
        return Reply("saved [rev_id: applied]\n")

    def _config_show(self, args: list[str]) -> Reply:
        try:
            opts, rest = _options(args, {"-o", "--output", "-r", "--rev"}, set())
            if rest:
                raise CommandError(f"Error: Invalid Command: config show {' '.join(rest)}")
            state = self.store.read()
            name = opts.get("-r", opts.get("--rev", "applied"))
            tree = self._tree(state, name)
        except CommandError as exc:
            return _err(str(exc))
        output = opts.get("-o", opts.get("--output", "yaml"))
        rev = f"{state.applied}.0" if name == "applied" else name
        if output == "commands":
            return Reply("".join(f"{c}\n" for c in set_commands(tree)))
        if output == "json":
            return Reply(shows.render(shows.config_document(tree, rev), "json"))
        return Reply(shows.config_yaml(tree, rev))

    def _patch(self, args: list[str], replace: bool = False) -> Reply:
        if len(args) != 1:
            return _err("Error: Incomplete Command: config patch <nvue-file>")
        file = self.read_file(args[0])
        if not file.is_file():
            return _err(f"Error: {args[0]}: No such file or directory")
        text = file.read_text(encoding="utf-8")
        lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        edits: list[tuple[str, list[str]]] = []
        if all(ln.startswith(("nv set ", "nv unset ")) for ln in lines):
            for n, ln in enumerate(text.splitlines(), 1):
                words = ln.split()
                if len(words) > 2 and words[0] == "nv":
                    edits.append((f"{n}: {ln.strip()}", words[1:]))
        else:
            try:
                doc = yaml.safe_load(text)
                tree = next(item["set"] for item in doc if isinstance(item, dict) and "set" in item)
            except (yaml.YAMLError, TypeError, StopIteration, KeyError):
                return _err(f"Error: {args[0]}: not an NVUE YAML document or command file")
            edits = [(" ".join(c), ["set", *c.split()[2:]]) for c in set_commands(tree)]
        with self.store.locked() as state:
            rev = self._pending(state)
            work = {} if replace else copy.deepcopy(rev.tree)
            for where, words in edits:
                try:
                    if words[0] == "set":
                        path, value = check_set(words[1:])
                        set_path(work, path, value)
                    else:
                        unset_path(work, check_unset(words[1:]))
                except CommandError as exc:
                    return _err(f"{exc}\n  line {where}")
            rev.tree = work
        return Reply()


def _label(state: Nvue, rev: Revision) -> str:
    if state.confirm is not None and rev.rev_id == state.confirm.rev_id:
        return confirm.CONFIRM_STATE
    return "applied" if rev.rev_id == state.applied else rev.state


def _confirm_option(args: list[str]) -> tuple[list[str], str | None]:
    """``--confirm`` and its optional time (the next word when it is one): (the other words, the time
    or "" for the default, or None without ``--confirm``)."""
    if "--confirm" not in args:
        return args, None
    i = args.index("--confirm")
    if i + 1 < len(args) and confirm.is_time(args[i + 1]):
        return args[:i] + args[i + 2 :], args[i + 1]
    return args[:i] + args[i + 1 :], ""


def _options(args: list[str], valued: set[str], flags: set[str]) -> tuple[dict[str, str], list[str]]:
    opts: dict[str, str] = {}
    rest: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word in valued:
            if i + 1 >= len(args):
                raise CommandError(f"Error: option {word} needs a value")
            opts[word] = args[i + 1]
            if word in {"-o", "--output"} and args[i + 1] not in OUTPUTS:
                raise CommandError(f"Error: Invalid output format: {args[i + 1]} (allowed: auto, json, yaml, commands)")
            i += 2
        elif word in flags:
            opts[word] = ""
            i += 1
        elif word.startswith("-"):
            raise CommandError(f"Error: no such option: {word}")
        else:
            rest.append(word)
            i += 1
    return opts, rest


def _table(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "".join(f"{line}\n" for line in lines)
