"""The program's edge (``xoff.cli.run``, ``xoff.cli.edge``): the console script and ``python -m xoff`` end the process
without freeing what the command built, and a user sees no difference: the same status, every byte of output
through a pipe, the ``atexit`` handlers run, a live thread waited for; ``main()`` in process still ends in
``SystemExit`` and keeps nothing. Each case runs in a fresh interpreter, as a user's command does."""

from __future__ import annotations

import gc
import os
import pstats
import subprocess
import sys
import weakref
from pathlib import Path

import pytest

from tests.support.paths import INVENTORY, ROOT
from xoff.cli import main
from xoff.cli.edge import FLUSH_FAILED, keep
from xoff.exitcodes import status_of_exit as exit_status

# buffered streams, as a user's are (a flush left to the exit is the case under test)
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}, "PYTHONPATH": str(ROOT / "src")}
LAB_MINI = str(INVENTORY / "lab-mini")
# a fake command through the edge: its body, then `leave_after(command)`
EDGE = "import sys\nfrom xoff.cli.edge import keep, leave_after\ndef command():\n{body}\nleave_after(command)\n"
# the real CLI, by either door: the edge (what `xoff` and `python -m xoff` run) or main() alone
BY_EDGE = "import sys\nfrom xoff.cli import run\nsys.argv[1:] = {argv!r}\n{before}\nrun()\n"
BY_MAIN = "import sys\nfrom xoff.cli import main\nsys.argv[1:] = {argv!r}\n{before}\nmain()\n"


def _python(code: str, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=120, check=False, **kw
    )


def _fake(body: str) -> subprocess.CompletedProcess[str]:
    return _python(EDGE.format(body="\n".join("    " + line for line in body.splitlines())))


@pytest.mark.parametrize(
    ("ending", "status", "said"),
    [
        ("return", 0, ""),
        ("sys.exit(0)", 0, ""),
        ("sys.exit(3)", 3, ""),
        ("sys.exit(258)", 2, ""),
        ("sys.exit('no')", 1, "no\n"),
    ],
)
def test_the_status_is_the_one_systemexit_gives(ending: str, status: int, said: str) -> None:
    done = _fake(ending)
    assert (done.returncode, done.stderr) == (status, said)
    plain = _python(f"import sys\n{ending.replace('return', 'pass')}")  # what Python's own exit makes of it
    assert (plain.returncode, plain.stderr) == (status, said)


def test_the_real_commands_statuses_match_main() -> None:
    """ok (0), bad input (2) and usage (2) through the edge as through main(), the same output."""
    for argv, status in ((["check", LAB_MINI, "-f", "json"], 0), (["check", "/nonexistent-intent"], 2), (["frob"], 2)):
        edge, plain = _python(BY_EDGE.format(argv=argv, before="")), _python(BY_MAIN.format(argv=argv, before=""))
        assert (edge.returncode, edge.stdout, edge.stderr) == (plain.returncode, plain.stdout, plain.stderr), argv
        assert edge.returncode == status, edge.stderr


def test_every_byte_reaches_a_pipe() -> None:
    """Far more than a pipe holds, buffered and unflushed on both streams when the command returns."""
    done = _fake("print('x' * 1_000_000, end='')\nsys.stderr.write('e' * 300_000)\nsys.exit(5)")
    assert (done.returncode, len(done.stdout), len(done.stderr)) == (5, 1_000_000, 300_000)
    edge = _python(BY_EDGE.format(argv=["schema"], before=""))
    plain = _python(BY_MAIN.format(argv=["schema"], before=""))
    assert edge.returncode == 0 and len(edge.stdout) > 65_536  # more than a pipe's buffer
    assert edge.stdout == plain.stdout


def test_a_closed_pipe_ends_as_python_ends_it() -> None:
    """stdout's reader gone before the command writes: the same status and message as main() under Python's exit."""

    def closed_pipe(code: str) -> tuple[int, str]:
        read, write = os.pipe()
        os.close(read)
        try:
            done = subprocess.run(
                [sys.executable, "-c", code],
                stdout=write,
                stderr=subprocess.PIPE,
                text=True,
                env=ENV,
                timeout=120,
                check=False,
            )
        finally:
            os.close(write)
        return done.returncode, done.stderr

    assert closed_pipe(BY_EDGE.format(argv=["schema"], before="")) == closed_pipe(
        BY_MAIN.format(argv=["schema"], before="")
    )
    # a write that only fails at the final flush: Python's own status and words for it
    edge = closed_pipe(EDGE.format(body="    print('x', end='')"))
    assert edge == closed_pipe("print('x', end='')")
    assert edge[0] == FLUSH_FAILED and "BrokenPipeError" in edge[1]


def test_atexit_handlers_run_and_temporary_directories_go(tmp_path: Path) -> None:
    marker = tmp_path / "atexit-ran"
    done = _fake(
        "import atexit, tempfile, pathlib\n"
        f"atexit.register(pathlib.Path({str(marker)!r}).write_text, 'yes')\n"
        "work = tempfile.TemporaryDirectory()\n"
        "keep(work)\n"
        "print(work.name)\n"
        "sys.exit(1)"
    )
    assert done.returncode == 1, done.stderr
    assert marker.read_text() == "yes"
    assert not Path(done.stdout.strip()).exists()  # removed by its finalizer, which atexit runs


def test_threadings_exit_hooks_run_before_the_atexit_handlers(tmp_path: Path) -> None:
    """The interpreter's order: ``threading``'s exit hooks (where ``concurrent.futures`` registers its executors'
    shutdown), then ``atexit``'s."""

    def hooks(log: Path) -> str:  # each kind of exit hook notes its name in ``log``
        return (
            "import atexit, threading\n"
            f"note = lambda what: open({str(log)!r}, 'a').write(what + '\\n')\n"
            "atexit.register(note, 'atexit')\n"
            "threading._register_atexit(note, 'threading')\n"
        )

    log = tmp_path / "order"
    done = _fake(hooks(log) + "sys.exit(0)")
    assert done.returncode == 0, done.stderr
    plain = tmp_path / "plain"
    assert log.read_text().split() == ["threading", "atexit"]
    python = _python(hooks(plain))
    assert python.returncode == 0 and plain.read_text().split() == ["threading", "atexit"]  # Python's own order


def test_what_the_command_kept_is_not_freed_but_without_the_edge_it_is() -> None:
    """The real ``xoff check``: its report is never freed through the edge (its finalizer would say so on stderr),
    and is freed when main() runs alone."""
    spy = (
        "from xoff.api.intent import CheckReport\n"
        "CheckReport.__del__ = lambda self: sys.stderr.write('report freed\\n')"
    )
    edge = _python(BY_EDGE.format(argv=["check", LAB_MINI], before=spy))
    plain = _python(BY_MAIN.format(argv=["check", LAB_MINI], before=spy))
    assert edge.returncode == plain.returncode == 0, edge.stderr + plain.stderr
    assert "intent OK" in edge.stdout
    assert "report freed" not in edge.stderr
    assert "report freed" in plain.stderr


def test_with_a_live_thread_python_exits_as_usual(tmp_path: Path) -> None:
    """A thread still running when the command returns is waited for (its work done), the status kept."""
    marker = tmp_path / "thread-done"
    done = _fake(
        "import threading, time, pathlib\n"
        "def late():\n"
        "    time.sleep(0.5)\n"
        f"    pathlib.Path({str(marker)!r}).write_text('done')\n"
        "threading.Thread(target=late).start()\n"
        "class Spy:\n"
        "    def __del__(self):\n"
        "        sys.stderr.write('freed\\n')\n"
        "keep(Spy())\n"
        "sys.exit(4)"
    )
    assert done.returncode == 4, done.stderr
    assert marker.read_text() == "done"
    assert "freed" in done.stderr  # the edge stepped aside: Python's own exit, which frees


def test_under_a_profiler_the_profile_is_written(tmp_path: Path) -> None:
    """``python -m cProfile -o FILE -m xoff ...`` writes FILE after the program returns: the edge steps aside."""
    out = tmp_path / "check.prof"
    argv = [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "xoff", "check", LAB_MINI]
    done = subprocess.run(argv, capture_output=True, text=True, env=ENV, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "intent OK" in done.stdout
    assert any("check" in name for _, _, name in pstats.Stats(str(out)).stats)  # type: ignore[attr-defined]


def test_main_in_process_still_ends_in_systemexit_and_keeps_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["xoff", "--version"])
    # main() turns the cyclic GC off for the rest of its process (xoff.gcpause, at the program's edge): this process
    # is the test run's, and other tests in it need the collector on
    monkeypatch.setattr(gc, "disable", lambda: None)
    with pytest.raises(SystemExit) as ended:
        main()
    assert ended.value.code in (0, None)

    class Built:
        pass

    built = Built()
    gone = weakref.ref(built)
    keep(built)  # no edge armed: not held
    del built
    gc.collect()
    assert gone() is None


def test_exit_status_reads_codes_as_python_does(capsys: pytest.CaptureFixture[str]) -> None:
    assert [exit_status(c) for c in (None, 0, 2, 256, -1, True)] == [0, 0, 2, 0, 255, 1]
    assert exit_status("bad input") == 1
    assert capsys.readouterr().err == "bad input\n"
