"""The SA key of the running OpenSM, and PKey tables read with it: the key comes from the config file OpenSM
was started with (its ``sa_key``: the one OpenSM's SA checks), is passed to ``saquery --smkey`` and never
shows in a capture or an error; when the SA does not trust it, the tables come from ``smpquery pkeys``
with a note. The collector runs over a replay of real captures of the ib-ring lab (ibsim + OpenSM)."""

from __future__ import annotations

import subprocess

import pytest

from tests.support.paths import ROOT
from xoff.platforms.infiniband import sakey
from xoff.platforms.infiniband.collect import CollectError, Runner, collect_infiniband
from xoff.platforms.infiniband.observe import load_captures, observation_from_dump
from xoff.platforms.infiniband.sakey import SaKey, SaKeyError

DUMPS = ROOT / "tests" / "fixtures" / "parse" / "infiniband" / "dumps"
SECRET = 0x5EC2E7C0FFEE4242
CONF = f"# opensm.conf\nsm_key 0x0000000000000007\nsa_key 0x{SECRET:016X}\npart_enforce both\n"
# OpenSM's own log of a query with a wrong key names both keys (sa_mad_ctrl_rcv_callback, ERR 1A04)
LOG = f"ERR 1A04: Non-Zero MAD SM_Key: 0x7 != SM_Key: 0x{SECRET:x}; SA MAD ignored\nSUBNET UP\n"


def replay(trusted: int, conf: str | None = CONF) -> tuple[Runner, list[list[str]]]:
    """A runner answering from the lab's captures as the SM host would; the SA answers only ``trusted``."""
    captures = {**load_captures(DUMPS / "ring_saquery")[0], **load_captures(DUMPS / "ring_smpquery")[0]}
    calls: list[list[str]] = []

    def run(argv: list[str]) -> str:
        calls.append(argv)
        if argv[0] == "cat":
            if conf is None or argv[-1] != "/etc/opensm/opensm.conf":
                raise CollectError(f"sm01: {' '.join(argv)} exited 1: No such file or directory")
            return conf
        if argv[0] == "saquery":
            if int(argv[2], 16) != trusted:
                raise CollectError(
                    f"sm01: {' '.join(argv)} exited 110: ibwarn: sa_query: umad_recv failed: attr 0x33: "
                    "Connection timed out Query SA failed: Connection timed out"
                )
            lid, port = argv[4].split("/")
            return captures[f"saquery_pkeys/{lid}_{port}.txt"]
        if argv[0] == "smpquery":
            return captures[f"{argv[1]}/{argv[2]}_{argv[3]}.txt"]
        return captures[f"{argv[0]}.txt"]

    return run, calls


def spellings_absent(text: str) -> bool:
    return not any(s.lower() in text.lower() for s in (f"{SECRET:x}", str(SECRET)))


def test_config_file_of_the_opensm_command_line() -> None:
    assert sakey.config_file(["opensm", "-F", "/x/o.conf", "-f", "/x/log"]) == "/x/o.conf"
    assert sakey.config_file(["opensm", "--config=/y.conf"]) == "/y.conf"
    assert sakey.config_file(["opensm", "-F/z.conf"]) == "/z.conf"
    assert sakey.config_file(["opensm", "-B"]) == "/etc/opensm/opensm.conf"


def test_the_sa_key_is_sa_key_not_sm_key() -> None:
    """OpenSM's SA trusts a query whose SM_Key equals its ``sa_key``; ``sm_key`` is SM-to-SM authentication."""
    got = sakey.from_config("sm_key 0x0000000000000007\n", "/etc/opensm/opensm.conf")
    assert (got.sa_key.value, got.sa_key.origin) == (1, "OpenSM's default (no sa_key in /etc/opensm/opensm.conf)")
    got = sakey.from_config(CONF, "/c")
    assert (got.sa_key.value, got.sa_key.origin, got.partition_enforcement) == (SECRET, "sa_key in /c", "both")
    assert sakey.from_config("sa_key 0x1\nsa_key 0x2 # last wins\n", "/c").sa_key.value == 2
    assert sakey.from_config("sa_key 010\n", "/c").sa_key.value == 8  # strtoull base 0: octal
    assert sakey.from_config("sa_key 12345678\n", "/c").sa_key.value == 12345678
    assert sakey.from_config(None, "/c").sa_key.origin == "OpenSM's default (/c could not be read)"


def test_a_bad_sa_key_is_an_error_that_does_not_show_it() -> None:
    with pytest.raises(SaKeyError) as err:
        sakey.from_config("sa_key 0xnotakey99\n", "/c")
    assert "notakey" not in str(err.value) and str(err.value).startswith("/c: sa_key is not a number")


def test_partition_enforcement_from_config_and_command_line() -> None:
    def enforce(conf: str, argv: list[str]) -> str:
        return sakey.read_config(lambda _p: conf, argv).partition_enforcement

    assert enforce("", ["opensm"]) == "both"  # OpenSM's default
    assert enforce("part_enforce in\n", ["opensm"]) == "in"
    assert enforce("part_enforce both\nno_partition_enforcement TRUE\n", ["opensm"]) == "off"
    assert enforce("part_enforce both\n", ["opensm", "-Z", "out"]) == "out"  # the command line overrides
    assert enforce("part_enforce both\n", ["opensm", "--no_part_enforce"]) == "off"
    assert enforce("part_enforce sideways\n", ["opensm"]) == "both"


def test_mask_every_spelling_of_the_key_and_nothing_else() -> None:
    key = SaKey(SECRET, "x", written=f"0x{SECRET:016X}")
    text = f"{key.argument} 0x{SECRET:x} 0X{SECRET:X} {SECRET} {key.written} LID 1 port 5"
    assert key.mask(text) == " ".join(["********"] * 5) + " LID 1 port 5"
    default = SaKey(1, "default")
    assert default.mask("--smkey 0x0000000000000001 LID 1 port 1") == "--smkey ******** LID 1 port 1"


def test_pkeys_read_from_the_sa_with_the_config_key_switch_ports_included() -> None:
    run, calls = replay(trusted=SECRET)
    got = collect_infiniband(run, "replay", opensm_log=LOG, opensm_argv=["opensm", "-B"])
    obs = got.observation
    assert (obs.pkey_source, obs.partition_enforcement, obs.notes) == ("saquery", "both", [])
    sa = [c for c in calls if c[0] == "saquery"]
    assert sa and all(c[1:4] == ["--smkey", f"0x{SECRET:016x}", "PKeyTableRecord"] for c in sa)
    assert not any(c[:2] == ["smpquery", "pkeys"] for c in calls)
    tables = {
        obs.nodes[g].description: {p: [f"{k:#06x}" for k in t] for p, t in ports.items()}
        for g, ports in obs.pkeys.items()
    }
    assert tables["ibsw2"] == {1: ["0x7fff", "0x8001"], 5: ["0xffff"], 6: ["0xffff"]}  # port 1 faces gpu2
    assert tables["gpu2 mlx5_0"] == {1: ["0x7fff", "0x8001"]}
    assert tables["sm01 mlx5_0"] == {1: ["0xffff", "0x8001"]}  # the SM: full member of Default
    assert sum(len(p) for p in obs.pkeys.values()) == len(sa)  # one query per cabled port, each mapped
    assert all(spellings_absent(text) for text in got.captures.values())
    assert "SM_Key: ********;" in got.captures["opensm.log"]


def test_untrusted_key_falls_back_to_smpquery_with_a_note() -> None:
    run, calls = replay(trusted=1)  # the SA's sa_key is 1, the config OpenSM was started with says otherwise
    obs = collect_infiniband(run, "replay", opensm_argv=["opensm"]).observation
    assert obs.pkey_source == "smpquery"
    assert obs.notes == [
        "PKey tables read per port with smpquery pkeys: the SA did not answer saquery PKeyTableRecord (OpenSM "
        "ignores a query whose key is not its sa_key) with the key of the running OpenSM (sa_key in "
        "/etc/opensm/opensm.conf)"
    ]
    assert len([c for c in calls if c[0] == "saquery"]) == 1  # one probe, then the SMP
    trusted = collect_infiniband(replay(trusted=SECRET)[0], "replay").observation
    assert obs.pkeys == trusted.pkeys  # the SMP reads what the SA has


def test_collect_errors_never_show_the_key() -> None:
    run, _ = replay(trusted=SECRET)

    def broken(argv: list[str]) -> str:
        if argv[0] == "saquery":
            raise subprocess.TimeoutExpired(argv, 15.0)
        return run(argv)

    with pytest.raises(CollectError) as err:
        collect_infiniband(broken, "replay")
    assert "TimeoutExpired" in str(err.value) and "********" in str(err.value) and spellings_absent(str(err.value))

    def failing_batch(argvs: list[list[str]]) -> list[str]:
        raise CollectError(f"{' '.join(argvs[-1])} exited 1")

    with pytest.raises(CollectError) as err:
        collect_infiniband(run, "replay", run_batch=failing_batch, workers=1)  # one batch: a saquery last
    assert "saquery --smkey ********" in str(err.value) and spellings_absent(str(err.value))


def test_saved_dumps_read_back_the_same() -> None:
    for name, source in (("ring_saquery", "saquery"), ("ring_smpquery", "smpquery")):
        obs = observation_from_dump(DUMPS / name)
        assert (obs.pkey_source, obs.partition_enforcement) == (source, "both")
    assert observation_from_dump(DUMPS / "ring_saquery").pkeys == observation_from_dump(DUMPS / "ring_smpquery").pkeys
