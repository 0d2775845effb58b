"""connect.sources: ``--lab NAME`` resolves through the ``xoff.sources`` entry points, so a provider
that imports nothing of xoff.lab serves targets, credentials and known_hosts to push, collect and
validate; the lab itself is registered the same way."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

import pytest
import yaml

from tests.support.paths import ROOT
from xoff.api.collect import infiniband_reader
from xoff.connect import sources
from xoff.connect.batch import Ran
from xoff.connect.sources import SourceError, SubnetManagerHost, TargetSource, open_source
from xoff.desired import build_fabric_state
from xoff.errors import InputError
from xoff.intent import load_intent

INVENTORY = ROOT / "inventory"

# A site's provider, as a separate package would ship it: no import of xoff.lab anywhere.
FAKE_PROVIDER = textwrap.dedent(
    """
    from dataclasses import dataclass
    from pathlib import Path

    from xoff.connect.sources import SourceError
    from xoff.desired import build_fabric_state
    from xoff.desired.models import FabricState
    from xoff.intent import load_intent

    HERE = Path(__file__).parent


    @dataclass(frozen=True)
    class SiteSource:
        name: str
        fabric: FabricState
        secrets_file: Path | None
        known_hosts: Path | None
        lock_dir: Path | None

        def subnet_manager(self):
            raise SourceError(f"site {self.name} has no InfiniBand fabric")


    def open_site(name: str) -> SiteSource:
        fabric = build_fabric_state(load_intent(Path(INTENT)))
        devices = {
            n: d.model_copy(update={"mgmt_address": f"198.51.100.{i}/24"})
            for i, (n, d) in enumerate(sorted(fabric.devices.items()), 10)
        }
        fabric = fabric.model_copy(update={"devices": devices})
        return SiteSource(name, fabric, None, HERE / "site_known_hosts", HERE)
    """
)


def _provider(tmp_path: Path) -> Path:
    pkg = tmp_path / "site_provider.py"
    pkg.write_text(f"INTENT = {str(INVENTORY / 'lab-mini')!r}\n" + FAKE_PROVIDER, encoding="utf-8")
    (tmp_path / "site_known_hosts").write_text("", encoding="utf-8")
    return pkg


def _register(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, kind: str = "lab") -> None:
    _provider(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    ep = EntryPoint(name=kind, value="site_provider:open_site", group=sources.ENTRY_POINT_GROUP)
    monkeypatch.setattr(sources, "entry_points", lambda group: [ep] if group == sources.ENTRY_POINT_GROUP else [])


def test_the_lab_is_an_installed_provider() -> None:
    (lab,) = [ep for ep in entry_points(group=sources.ENTRY_POINT_GROUP) if ep.name == "lab"]
    assert lab.value == "xoff.lab.provider:from_lab"


def test_a_provider_without_the_lab_serves_targets(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _register(monkeypatch, tmp_path, kind="site")
    source: TargetSource = open_source("site", "dc1")
    assert source.name == "dc1" and source.lock_dir == tmp_path
    assert source.fabric.devices["gpu1"].mgmt_address.startswith("198.51.100.")
    with pytest.raises(SourceError, match="no InfiniBand"):
        source.subnet_manager()
    with pytest.raises(InputError, match="no lab provider is installed"):
        open_source("lab", "dc1")


def test_an_unknown_lab_is_bad_input_located_at_the_option() -> None:
    with pytest.raises(InputError, match="no lab of that name is up") as caught:
        open_source("lab", "no-such-lab-here")
    assert caught.value.problems[0].location is not None and caught.value.problems[0].location.file == "--lab"


def test_the_infiniband_reader_runs_on_the_sources_subnet_manager() -> None:
    """collect reads InfiniBand on the SM host the source gives: here one that answers nothing."""
    fabric = build_fabric_state(load_intent(INVENTORY / "ib-pod"))

    class Source:
        def subnet_manager(self) -> SubnetManagerHost:
            return SubnetManagerHost("sm", "test", lambda _script, _timeout: Ran(1, "", "no fabric"), 1.0)

    reader = infiniband_reader(fabric, Source())  # type: ignore[arg-type]
    with pytest.raises(Exception, match="exited 1: no fabric"):
        reader()
    with pytest.raises(RuntimeError, match="no runner on the subnet manager host"):
        infiniband_reader(fabric, None)()


def test_lab_option_of_the_cli_reaches_a_provider_and_never_imports_the_lab(tmp_path: Path) -> None:
    """``xoff inventory export --lab dc1`` (push's CLI module) with a site provider registered as
    ``lab``, in a fresh interpreter: the inventory carries the provider's addresses and known_hosts,
    and xoff.lab stays unimported."""
    _provider(tmp_path)
    out = tmp_path / "inv"
    script = textwrap.dedent(
        f"""
        import sys
        from importlib.metadata import EntryPoint
        sys.path.insert(0, {str(tmp_path)!r})
        from xoff.connect import sources
        ep = EntryPoint(name="lab", value="site_provider:open_site", group=sources.ENTRY_POINT_GROUP)
        sources.entry_points = lambda group: [ep]
        from typer.testing import CliRunner
        from xoff.cli.push import inventory_app
        r = CliRunner().invoke(inventory_app, [ {str(INVENTORY / "lab-mini")!r}, "--lab", "dc1",
                                     "-o", {str(out)!r}])
        print(r.exit_code, r.output)
        assert r.exit_code == 0, r.output
        print("LAB-IMPORTED" if any(m == "xoff.lab" or m.startswith("xoff.lab.") for m in sys.modules) else "NO-LAB")
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().endswith("NO-LAB"), done.stdout
    hosts = yaml.safe_load((out / "hosts.yaml").read_text(encoding="utf-8"))
    assert hosts["gpu1"]["hostname"].startswith("198.51.100.")
    extras = hosts["gpu1"]["connection_options"]["netmiko"]["extras"]
    assert extras["alt_key_file"] == str(tmp_path / "site_known_hosts")
