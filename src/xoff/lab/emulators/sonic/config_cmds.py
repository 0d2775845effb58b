"""``config ...``: the sonic-utilities 202411 commands the emulator implements.

Every change goes through ``Session.commit``, which validates the whole target CONFIG_DB against
SONiC's YANG models first and refuses it whole (nothing written, nothing applied) when invalid.
Messages follow config/main.py, generic_config_updater and scripts/portconfig of 202411.
"""

from __future__ import annotations

import copy
import ipaddress
import json
from typing import TYPE_CHECKING, Any

import jsonpointer

from xoff.lab.emulators.base import Reply
from xoff.lab.emulators.sonic import gcu
from xoff.lab.emulators.sonic.clish import Argument, Command, Option, usage_error_text
from xoff.lab.emulators.sonic.confirm import Confirm
from xoff.lab.emulators.sonic.store import CHECKPOINTS_PATH, SAVED_PATH, ConfigDb, dumps_sorted

if TYPE_CHECKING:
    from xoff.lab.emulators.sonic.services import SonicSession

CFGGEN = "/usr/local/bin/sonic-cfggen"
RELOAD_LOCK = "/etc/sonic/reload.lock"
VERBOSE = Option(("-v", "--verbose"), "verbose", help="print additional details of what the operation is doing")
DRY_RUN = Option(("-d", "--dry-run"), "dry_run", help="test out the command without affecting config state")
IGNORE_NON_YANG = Option(("-n", "--ignore-non-yang-tables"), "ignore_non_yang_tables", hidden=True)
IGNORE_PATH = Option(("-i", "--ignore-path"), "ignore_path", flag=False, multiple=True, hidden=True)
FORMAT = Option(
    ("-f", "--format"), "format", flag=False, choices=("CONFIGDB", "SONICYANG"), metavar="[CONFIGDB|SONICYANG]"
)
YES = Option(("-y", "--yes"), "yes")


def build_tree(s: SonicSession) -> Command:
    c = ConfigCommands(s)
    root = Command("config", "SONiC command line - 'config' command")
    root.add(
        Command(
            "apply-patch",
            "Apply given patch of updates to Config. A patch is a JsonPatch which follows rfc6902.",
            (FORMAT, DRY_RUN, Option(("-p", "--parallel"), "parallel"), IGNORE_NON_YANG, IGNORE_PATH, VERBOSE),
            (Argument("patch_file_path", "PATCH_FILE_PATH"),),
            c.apply_patch,
        )
    )
    root.add(
        Command(
            "replace",
            "Replace the whole config with the specified config.",
            (FORMAT, DRY_RUN, IGNORE_NON_YANG, IGNORE_PATH, VERBOSE),
            (Argument("target_file_path", "TARGET_FILE_PATH"),),
            c.replace,
        )
    )
    root.add(
        Command(
            "rollback",
            "Rollback the whole config to the specified checkpoint.",
            (DRY_RUN, IGNORE_NON_YANG, IGNORE_PATH, VERBOSE),
            (Argument("name", "CHECKPOINT_NAME"),),
            c.rollback,
        )
    )
    root.add(
        Command(
            "checkpoint",
            "Take a checkpoint of the whole current config with the specified checkpoint name.",
            (VERBOSE,),
            (Argument("name", "CHECKPOINT_NAME"),),
            c.checkpoint,
        )
    )
    root.add(
        Command(
            "delete-checkpoint",
            "Delete a checkpoint with the specified checkpoint name.",
            (VERBOSE,),
            (Argument("name", "CHECKPOINT_NAME"),),
            c.delete_checkpoint,
        )
    )
    root.add(Command("list-checkpoints", "List the config checkpoints available.", (VERBOSE,), (), c.list_checkpoints))
    root.add(
        Command(
            "save",
            "Export current config DB to a file on disk.",
            (YES,),
            (Argument("filename", "FILENAME", required=False),),
            c.save,
        )
    )
    root.add(
        Command(
            "load",
            "Import a previous saved config DB dump file.",
            (YES,),
            (Argument("filename", "FILENAME", required=False),),
            c.load,
        )
    )
    reload_options = (
        YES,
        Option(("-l", "--load-sysinfo"), "load_sysinfo"),
        Option(("-n", "--no_service_restart"), "no_service_restart"),
        Option(("-f", "--force"), "force"),
        Option(("-t", "--file_format"), "file_format", flag=False, choices=("config_yang", "config_db")),
        Option(("-b", "--bypass-lock"), "bypass_lock"),
    )
    root.add(
        Command(
            "reload",
            "Clear current configuration and import a previous saved config DB dump file.",
            reload_options,
            (Argument("filename", "FILENAME", required=False),),
            c.reload,
        )
    )
    interface = root.add(
        Command(
            "interface",
            "Interface-related configuration tasks",
            (Option(("-n", "--namespace"), "namespace", flag=False),),
        )
    )
    name = Argument("interface_name", "<interface_name>")
    interface.add(
        Command(
            "mtu",
            "Set interface mtu",
            (VERBOSE,),
            (name, Argument("mtu", "<interface_mtu>", int_range=(68, 9216))),
            c.mtu,
        )
    )
    interface.add(Command("startup", "Start up interface", (), (name,), c.startup))
    interface.add(Command("shutdown", "Shut down interface", (), (name,), c.shutdown))
    ip = interface.add(Command("ip", "Set IP interface attributes"))
    ip.add(
        Command(
            "add",
            "Add an IP address towards the interface",
            (Option(("--secondary", "-s"), "secondary"),),
            (name, Argument("ip_addr", "<ip_addr>"), Argument("gw", "<default gateway IP address>", required=False)),
            c.ip_add,
        )
    )
    ip.add(
        Command(
            "remove",
            "Remove an IP address from the interface",
            (),
            (name, Argument("ip_addr", "<ip_addr>")),
            c.ip_remove,
        )
    )
    return root


def interface_table(name: str) -> str:
    """config/main.py get_interface_table_name."""
    if name.startswith("Ethernet"):
        return "VLAN_SUB_INTERFACE" if "." in name else "INTERFACE"
    for prefix, table in (
        ("PortChannel", "PORTCHANNEL_INTERFACE"),
        ("Vlan", "VLAN_INTERFACE"),
        ("Loopback", "LOOPBACK_INTERFACE"),
    ):
        if name.startswith(prefix):
            return table
    return ""


class ConfigCommands:
    def __init__(self, session: SonicSession) -> None:
        self.s = session

    # --- helpers ---------------------------------------------------------------------------------

    def _fail(self, p: dict[str, Any], message: str, prefix: str = "") -> Reply:
        return Reply(prefix + usage_error_text(p["_command"], p["_path"], message), 2)

    def _read_json(self, path: str) -> Any:
        file = self.s.store.host_path(path, self.s.cwd)
        try:
            text = file.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise OSError(f"[Errno 2] No such file or directory: '{path}'") from None
        return json.loads(text)

    # --- generic config updater ------------------------------------------------------------------

    def apply_patch(self, p: dict[str, Any]) -> Reply:
        out = "** DRY RUN EXECUTION **\n" if p["dry_run"] else ""

        def failed(message: str) -> Reply:
            return self._fail(p, message, out + f"Failed to apply patch due to: {message}\n")

        try:
            ops = self._read_json(p["patch_file_path"])
        except (OSError, ValueError) as exc:
            return failed(str(exc))
        current = self.s.running()
        if not isinstance(ops, list):
            return failed(f"Invalid patch format in file: {p['patch_file_path']}")
        try:
            gcu.simulate({**current, "bgpraw": {}}, ops)  # 202411's validate_patch: structure only
        except gcu.GcuError as exc:
            return failed(f"Validate json patch: {json.dumps(ops)} failed due to:{exc}")
        ops = [self._unscoped(op) for op in ops]
        updater = self.s.updater()
        try:
            target = updater.apply(current, ops)
        except gcu.GcuError as exc:
            out += "".join(f"{line}\n" for line in updater.log)
            return failed(f"Failed to apply patch on the following scopes:\n- {gcu.SCOPE}: {exc}")
        out += "".join(f"{line}\n" for line in updater.log)
        if not p["dry_run"]:
            self.s.commit(current, target)
        return Reply(out + "Patch applied successfully.\n")

    @staticmethod
    def _unscoped(op: dict[str, Any]) -> dict[str, Any]:
        parts = jsonpointer.JsonPointer(op.get("path", "")).parts if op.get("path") else []
        if parts and parts[0] == gcu.SCOPE:
            op = {**op, "path": jsonpointer.JsonPointer.from_parts(parts[1:]).path}
        return op

    def replace(self, p: dict[str, Any]) -> Reply:
        out = "** DRY RUN EXECUTION **\n" if p["dry_run"] else ""
        try:
            target = self._read_json(p["target_file_path"])
        except (OSError, ValueError) as exc:
            return self._fail(p, str(exc), out + "Failed to replace config\n")
        return self._replace_with(
            p, target, out, "Config replaced successfully.", "Failed to replace config", rollback=None
        )

    def rollback(self, p: dict[str, Any]) -> Reply:
        out = "** DRY RUN EXECUTION **\n" if p["dry_run"] else ""
        file = self.s.store.checkpoint_file(p["name"])
        target = json.loads(file.read_text(encoding="utf-8")) if file.is_file() else None
        return self._replace_with(
            p, target, out, "Config rolled back successfully.", "Failed to rollback config", rollback=p["name"]
        )

    def _replace_with(self, p: dict[str, Any], target: Any, out: str, ok: str, ko: str, rollback: str | None) -> Reply:
        current = self.s.running()
        updater = self.s.updater()
        try:
            if rollback is not None:
                new = updater.rollback(current, rollback, target)
            else:
                new = updater.replace(current, target)
        except gcu.GcuError as exc:
            out += "".join(f"{line}\n" for line in updater.log)
            return self._fail(p, str(exc), out + f"{ko}\n")
        out += "".join(f"{line}\n" for line in updater.log)
        if not p["dry_run"]:
            self.s.commit(current, new)
        return Reply(out + f"{ok}\n")

    def checkpoint(self, p: dict[str, Any]) -> Reply:
        updater = self.s.updater()
        path = f"{CHECKPOINTS_PATH}/{p['name']}.cp.json"
        updater.checkpoint(p["name"], path)
        file = self.s.store.checkpoint_file(p["name"])
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(json.dumps(json.loads(dumps_sorted(self.s.running()))), encoding="utf-8")
        return Reply("".join(f"{line}\n" for line in updater.log) + "Checkpoint created successfully.\n")

    def delete_checkpoint(self, p: dict[str, Any]) -> Reply:
        updater = self.s.updater()
        file = self.s.store.checkpoint_file(p["name"])
        try:
            updater.delete_checkpoint(p["name"], file.is_file())
        except gcu.GcuError as exc:
            log = "".join(f"{line}\n" for line in updater.log)
            return self._fail(p, str(exc), log + "Failed to delete config checkpoint\n")
        file.unlink()
        return Reply("".join(f"{line}\n" for line in updater.log) + "Checkpoint deleted successfully.\n")

    def list_checkpoints(self, _p: dict[str, Any]) -> Reply:
        return Reply(json.dumps(self.s.store.checkpoint_names(), indent=4) + "\n")

    # --- files -----------------------------------------------------------------------------------

    def save(self, p: dict[str, Any]) -> Reply:
        def run() -> Reply:
            target = p["filename"] or SAVED_PATH
            file = self.s.store.host_path(target, self.s.cwd)
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(dumps_sorted(self.s.running()), encoding="utf-8")
            return Reply(f"Running command: {CFGGEN} -d --print-data > {target}\n")

        if p["yes"]:
            return run()
        return Confirm("Existing files will be overwritten, continue?", run)

    def load(self, p: dict[str, Any]) -> Reply:
        target = p["filename"] or SAVED_PATH

        def run() -> Reply:
            file = self.s.store.host_path(target, self.s.cwd)
            if not file.is_file():
                return Reply(f"The config_db file {target} doesn't exist\n")
            loaded = json.loads(file.read_text(encoding="utf-8"))
            current = self.s.running()
            new = copy.deepcopy(current)
            for table, entries in loaded.items():  # sonic-cfggen --write-to-db: mod_config
                if entries is None:
                    new.pop(table, None)
                    continue
                for key, fields in entries.items():
                    if fields is None:
                        new.get(table, {}).pop(key, None)
                    else:
                        new.setdefault(table, {}).setdefault(key, {}).update(fields)
            problems = self.s.validate(new)
            if problems:
                return Reply(f"{target} fails YANG validation! Error: {gcu.yang_error(problems)}\nAborted!\n", 1)
            self.s.commit(current, new)
            return Reply(f"Running command: {CFGGEN} -j {target} --write-to-db\n")

        if p["yes"]:
            return run()
        message = (
            "Load config from the default config file(s) ?"
            if p["filename"] is None
            else f"Load config from the file(s) {target} ?"
        )
        return Confirm(message, run)

    def reload(self, p: dict[str, Any]) -> Reply:
        target = p["filename"] or SAVED_PATH
        fmt = p["file_format"] or "config_db"
        lock = "" if p["bypass_lock"] else f"Acquired lock on {RELOAD_LOCK}\n"
        release = "" if p["bypass_lock"] else f"Released lock on {RELOAD_LOCK}\n"
        if p["bypass_lock"]:
            lock = f"Bypass lock on {RELOAD_LOCK}\n"

        def run() -> Reply:
            file = self.s.store.host_path(target, self.s.cwd)
            if not file.is_file():
                return Reply(f"The config file {target} doesn't exist\n{release}")
            new = json.loads(file.read_text(encoding="utf-8"))
            problems = self.s.validate(new)
            if problems:
                return Reply(
                    f"{target} fails YANG validation! Error: {gcu.yang_error(problems)}\n{release}Aborted!\n", 1
                )
            restart = not p["no_service_restart"]
            out = "Disabling container monitoring ...\nStopping SONiC target ...\n" if restart else ""
            out += f"Running command: {CFGGEN} -j /etc/sonic/init_cfg.json -j {target} --write-to-db\n"
            out += "Running command: /usr/local/bin/db_migrator.py -o migrate\n"
            out += f"Running command: {CFGGEN} -d -y /etc/sonic/sonic_version.yml -t /usr/share/sonic/templates/sonic-environment.j2,/etc/sonic/sonic-environment\n"
            if restart:
                out += "Restarting SONiC target ...\nEnabling container monitoring ...\n"
                out += "Reloading Monit configuration ...\nReinitializing monit daemon\n"
            self.s.commit(self.s.running(), new)
            return Reply(out + release)

        if p["yes"]:
            result = run()
            return Reply(lock + result.output, result.status)
        if p["filename"] is None:
            message = f"Clear current config and reload config in {fmt} format from the default config file(s) ?"
        else:
            message = f"Clear current config and reload config in {fmt} from the file(s) {target} ?"
        return Confirm(message, run, before=lock, on_abort=release)

    # --- interfaces ------------------------------------------------------------------------------

    def _change(self, p: dict[str, Any], new: ConfigDb, current: ConfigDb) -> Reply:
        problems = self.s.validate(new)
        if problems:
            return self._fail(p, f"Given patch will produce invalid config. Error: {gcu.yang_error(problems)}")
        self.s.commit(current, new)
        return Reply("")

    def mtu(self, p: dict[str, Any]) -> Reply:
        current = self.s.running()
        name = p["interface_name"]
        if name not in current.get("PORT", {}):
            return Reply(f"Invalid port {name}\n", 1)
        new = copy.deepcopy(current)
        new["PORT"][name]["mtu"] = str(p["mtu"])
        out = (
            f"Running command: portconfig -p {name} -m {p['mtu']} -vv\nSetting mtu {p['mtu']} on port {name}\n"
            if p["verbose"]
            else ""
        )
        result = self._change(p, new, current)
        return Reply(out + result.output, result.status)

    def startup(self, p: dict[str, Any]) -> Reply:
        return self._admin(p, "up")

    def shutdown(self, p: dict[str, Any]) -> Reply:
        return self._admin(p, "down")

    def _admin(self, p: dict[str, Any], state: str) -> Reply:
        current = self.s.running()
        names = [n.strip() for n in p["interface_name"].split(",") if n.strip()]
        known = set(current.get("PORT", {})) | set(current.get("PORTCHANNEL", {}))
        if len(names) == 1 and names[0] not in known:
            return self._fail(p, "Interface name is invalid. Please enter a valid interface name!!")
        new = copy.deepcopy(current)
        for table in ("PORT", "PORTCHANNEL"):
            for name in names:
                if name in new.get(table, {}):
                    new[table][name]["admin_status"] = state
        return self._change(p, new, current)

    def ip_add(self, p: dict[str, Any]) -> Reply:
        current = self.s.running()
        name = p["interface_name"]
        try:
            address = ipaddress.ip_interface(p["ip_addr"])
        except ValueError as exc:
            return self._fail(p, f"IP address is not valid: {exc}")
        new = copy.deepcopy(current)
        if name == "eth0":
            table = new.setdefault("MGMT_INTERFACE", {})
            for key in [k for k in table if k.startswith("eth0|")]:
                if ipaddress.ip_interface(key.split("|", 1)[1]).version == address.version:
                    del table[key]
            table[f"eth0|{address}"] = {"gwaddr": p["gw"]} if p["gw"] else {}
            return self._change(p, new, current)
        table_name = interface_table(name)
        if not table_name:
            return self._fail(p, "'interface_name' is not valid. Valid names [Ethernet/PortChannel/Vlan/Loopback]")
        if table_name == "VLAN_INTERFACE" and name not in current.get("VLAN", {}):
            return self._fail(p, f"Error: {name} does not exist. Vlan must be created before adding an IP address")
        table = new.setdefault(table_name, {})
        table.setdefault(name, {})
        table[f"{name}|{address}"] = {}
        return self._change(p, new, current)

    def ip_remove(self, p: dict[str, Any]) -> Reply:
        current = self.s.running()
        name = p["interface_name"]
        try:
            address = ipaddress.ip_interface(p["ip_addr"])
        except ValueError as exc:
            return self._fail(p, f"IP address is not valid: {exc}")
        new = copy.deepcopy(current)
        if name == "eth0":
            new.get("MGMT_INTERFACE", {}).pop(f"eth0|{address}", None)
        else:
            table_name = interface_table(name)
            if not table_name:
                return self._fail(p, "'interface_name' is not valid. Valid names [Ethernet/PortChannel/Vlan/Loopback]")
            table = new.get(table_name, {})
            for key in [k for k in table if k.startswith(f"{name}|")]:
                if ipaddress.ip_interface(key.split("|", 1)[1]) == address:
                    del table[key]
            if not any(k.startswith(f"{name}|") for k in table) and not table.get(name, {}).get("vrf_name"):
                table.pop(name, None)
        for table_name in [t for t, entries in new.items() if not entries]:
            del new[table_name]  # ConfigDB holds no empty table
        return self._change(p, new, current)
