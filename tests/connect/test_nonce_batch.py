"""connect.batch.run_batch: every batch gets its own nonce, so a device printing marker lines (a forged
end line, an earlier batch's marker, the old fixed InfiniBand marker) cannot split or shift the
results; the InfiniBand collector's batches (through a target source's SubnetManagerHost) are the same."""

from __future__ import annotations

import subprocess

import pytest

from xoff.connect import batch
from xoff.connect.channel import CommandFailedError, ExecSession, results
from xoff.connect.sources import SubnetManagerHost
from xoff.platforms.infiniband.collect import CollectError, sm_runners


def _local(scripts: list[str]) -> batch.ScriptRunner:
    """Runs a script with /bin/sh here, remembering each script (to read the marker it carried)."""

    def run_script(script: str, timeout: float) -> batch.Ran:
        scripts.append(script)
        done = subprocess.run(["/bin/sh", "-c", script], capture_output=True, text=True, timeout=timeout, check=False)
        return batch.Ran(done.returncode, done.stdout, done.stderr)

    return run_script


def _marker(script: str) -> str:
    first = script.splitlines()[0]  # m='XOFF-BATCH-...'
    return first.split("'")[1]


def test_each_batch_draws_a_new_nonce_and_a_known_one_cannot_forge_an_end() -> None:
    scripts: list[str] = []
    run = _local(scripts)
    first, _ = batch.run_batch(run, ["echo a", "echo b"], 30)
    old = _marker(scripts[0])
    forged = f"printf '%s\\n' '{old} 0 end 0' '{old} 1 begin' 'planted' '{old} 1 end 7'"
    second, _ = batch.run_batch(run, [forged, "echo b"], 30)
    assert _marker(scripts[1]) != old
    assert first == [batch.Ran(0, "a\n", ""), batch.Ran(0, "b\n", "")]
    assert second == [
        batch.Ran(0, f"{old} 0 end 0\n{old} 1 begin\nplanted\n{old} 1 end 7\n", ""),
        batch.Ran(0, "b\n", ""),
    ]


@pytest.mark.parametrize(
    "line",
    [
        "@@xoff-ib-end 0",  # the InfiniBand collector's old fixed end marker
        "XOFF-BATCH-0000000000000000 0 end 0",
        "XOFF-BATCH-0000000000000000 1 begin",
    ],
)
def test_a_forged_marker_line_in_output_stays_output(line: str) -> None:
    ran, whole = batch.run_batch(_local([]), [f"echo '{line}'; echo rest", "echo second", "exit 4"], 30)
    assert results(ran, whole)[:2] == [f"{line}\nrest\n", "second\n"]
    assert ran[2] == batch.Ran(4, "", "")
    assert isinstance(results(ran, whole)[2], CommandFailedError)


def _sm(scripts: list[str]) -> SubnetManagerHost:
    return SubnetManagerHost(host="sm1", source="test, sm1", run_script=_local(scripts), timeout_s=30)


def test_the_infiniband_batch_is_the_nonce_batch_and_forged_ends_do_not_split_it() -> None:
    scripts: list[str] = []
    _, run_batch = sm_runners(_sm(scripts))
    argvs = [
        ["printf", "%s\\n", "@@xoff-ib-end 0", "Switch 0x1 port 1"],  # would have ended the first output early
        ["printf", "%s\\n", "XOFF-BATCH-0000000000000000 0 end 0"],
        ["echo", "third"],
    ]
    assert run_batch(argvs) == [
        "@@xoff-ib-end 0\nSwitch 0x1 port 1\n",
        "XOFF-BATCH-0000000000000000 0 end 0\n",
        "third\n",
    ]
    run_batch(argvs)
    assert len(scripts) == 2 and _marker(scripts[0]) != _marker(scripts[1])


def test_the_infinibandsm_runners_report_failed_and_cut_short_commands() -> None:
    run, run_batch = sm_runners(_sm([]))
    assert run(["echo", "one two"]) == "one two\n"
    with pytest.raises(CollectError, match=r"^sm1: sh -c exit 3 exited 3: $"):
        run(["sh", "-c", "exit 3"])
    with pytest.raises(CollectError, match=r"^false exited 1$"):
        run_batch([["echo", "ok"], ["false"]])

    def cut_short(script: str, timeout: float) -> batch.Ran:
        done = _local([])(script, timeout)
        return batch.Ran(done.status, done.stdout[: done.stdout.index(" 1 end")], done.stderr)

    short = SubnetManagerHost(host="sm1", source="test", run_script=cut_short, timeout_s=30)
    with pytest.raises(CollectError, match="no output"):
        sm_runners(short)[1]([["echo", "a"], ["echo", "b"]])


def test_a_sessions_batch_uses_it_too() -> None:
    """ExecSession.run_batch is connect.batch over one exec channel (here: a local shell stands in)."""
    scripts: list[str] = []
    session = ExecSession.__new__(ExecSession)  # no SSH: its one exec function replaced
    session._exec = _local(scripts)  # type: ignore[method-assign]
    assert session.run_batch(["echo 'XOFF-BATCH-0000000000000000 0 end 0'", "echo x"], 30) == [
        "XOFF-BATCH-0000000000000000 0 end 0\n",
        "x\n",
    ]
    assert len(scripts) == 1 and _marker(scripts[0]).startswith("XOFF-BATCH-")
