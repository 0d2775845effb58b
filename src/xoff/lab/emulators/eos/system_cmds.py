"""Global statements around what xoff pushes, which the lab keeps (in ``RunningConfig.stanzas``) but does
not act on: ``aaa root``, ``username``, ``transceiver qsfp default-mode``, ``service routing protocols
model``, ``logging``, ``ip name-server``/``dns domain``, ``spanning-tree mode``, ``system l1``, ``clock
timezone``, ``management api http-commands|gnmi|netconf``, ``ntp server`` and ``ip load-sharing`` (ECMP hash
fields).

The syntax is EOS's documented CLI (Arista's EOS User Manual, and the lines AVD's ``eos_cli_config_gen``
templates write for the same features); what ``show running-config`` prints for each is what real switches
print (public captures named in ``tests/lab_offline/emulators/eos/README.md``). A secret typed in clear is
kept as a ``sha512`` crypt-style hash, as EOS keeps it; the clear text is never stored or shown.
"""

from __future__ import annotations

import base64
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass

from xoff.lab.emulators.eos.grammar import Args, CommandError
from xoff.lab.emulators.eos.model import RANKS, RunningConfig, Stanza

SEVERITY = "emergencies|alerts|critical|errors|warnings|notifications|informational|debugging"


@dataclass(frozen=True)
class Block:
    """A global configuration mode whose lines are kept as the block's body."""

    header: str  # "management api http-commands"; "vrf instance" for "vrf instance NAME"
    prompt: str  # what follows "config" in the prompt: "-mgmt-api-http-cmds", "-vrf-{name}"
    rank: int
    default_body: tuple[tuple[str, str], ...] = ()


def block_of(key: str) -> Block:
    """The block a stanza key belongs to: ``management api gnmi`` -> itself, ``vrf instance MGMT`` -> ``vrf instance``."""
    if key in BLOCKS:
        return BLOCKS[key]
    (found,) = [b for h, b in BLOCKS.items() if key.startswith(h + " ")]
    return found


def prompt_of(key: str) -> str:
    block = block_of(key)
    return block.prompt.format(name=key.removeprefix(block.header).strip())


BLOCKS: dict[str, Block] = {
    b.header: b
    for b in (
        Block("management api http-commands", "-mgmt-api-http-cmds", RANKS["management api http-commands"]),
        Block("management api gnmi", "-mgmt-api-gnmi", RANKS["management api gnmi"]),
        Block("management api netconf", "-mgmt-api-netconf", RANKS["management api netconf"]),
        Block("system l1", "-system-l1", RANKS["system l1"]),
        Block("vrf instance", "-vrf-{name}", RANKS["vrf instance"]),
        Block("management ssh", "-mgmt-ssh", RANKS["management ssh"]),
    )
}

Handler = Callable[[RunningConfig, Args], str | None]  # the block entered, if any


def _put(cfg: RunningConfig, key: str, kind: str, line: str) -> None:
    cfg.stanzas[key] = Stanza(RANKS[kind], line)


def _drop(cfg: RunningConfig, key: str) -> None:
    cfg.stanzas.pop(key, None)


def _crypt_sha512(secret: str) -> str:
    """A ``$6$salt$hash`` string in the shape of sha512-crypt (EOS shows ``secret sha512 $6$...``)."""
    salt = base64.b64encode(os.urandom(12), b"./").decode()[:16]
    digest = hashlib.sha512((salt + secret).encode()).digest() * 2
    return f"$6${salt}${base64.b64encode(digest, b'./').decode()[:86]}"


def _secret(a: Args) -> str:
    if "nopassword" in a:
        return "nopassword"
    if a.get("enc") == "sha512":
        return f"secret sha512 {a['secret']}"
    return f"secret sha512 {_crypt_sha512(a['secret'])}"


# --- handlers -------------------------------------------------------------------------------------


def _aaa_root(cfg: RunningConfig, a: Args) -> None:
    _put(cfg, "aaa root", "aaa root", "no aaa root" if "no" in a else f"aaa root {_secret(a)}")


def _username(cfg: RunningConfig, a: Args) -> None:
    words = [f"username {a['name']}"]
    if a.get("priv", 1) != 1:
        words.append(f"privilege {a['priv']}")
    if "role" in a:
        words.append(f"role {a['role']}")
    words.append(_secret(a))
    _put(cfg, f"username {a['name']}", "username", " ".join(words))


def _no_username(cfg: RunningConfig, a: Args) -> None:
    _drop(cfg, f"username {a['name']}")


def _transceiver(cfg: RunningConfig, a: Args) -> None:
    if "mode" in a:
        _put(cfg, "transceiver qsfp default-mode", "transceiver", f"transceiver qsfp default-mode {a['mode']}")
    else:
        _drop(cfg, "transceiver qsfp default-mode")


def _routing_model(cfg: RunningConfig, a: Args) -> None:
    model = a.get("model", "multi-agent")  # the default model of current releases
    _put(cfg, "service routing protocols model", "service routing", f"service routing protocols model {model}")


def _logging_host(cfg: RunningConfig, a: Args) -> None:
    vrf = f"vrf {a['vrf']} " if "vrf" in a else ""
    line = f"logging {vrf}host {a['host']}"
    if "port" in a:
        line += f" {a['port']}"
    if a.get("proto", "udp") != "udp":
        line += f" protocol {a['proto']}"
    _put(cfg, f"logging {vrf}host {a['host']}", "logging", line)


def _no_logging_host(cfg: RunningConfig, a: Args) -> None:
    vrf = f"vrf {a['vrf']} " if "vrf" in a else ""
    _drop(cfg, f"logging {vrf}host {a['host']}")


def _logging_source(cfg: RunningConfig, a: Args) -> None:
    vrf = f"vrf {a['vrf']} " if "vrf" in a else ""
    key = f"logging {vrf}source-interface"
    if "no" in a:
        _drop(cfg, key)
    else:
        _put(cfg, key, "logging", f"{key} {a['intf']}")


def _logging_level(cfg: RunningConfig, a: Args) -> None:
    what = a["what"]
    if "no" in a:
        _drop(cfg, f"logging {what}")
        return
    words = [f"logging {what}", str(a.get("size", "")), a.get("sev", "")]
    _put(cfg, f"logging {what}", "logging", " ".join(w for w in words if w))


def _name_server(cfg: RunningConfig, a: Args) -> None:
    vrf = f"vrf {a['vrf']} " if "vrf" in a else ""
    key = f"ip name-server {vrf}{a['addr']}"
    if "no" in a:
        _drop(cfg, key)
    else:
        _put(cfg, key, "dns", key)


def _dns_domain(cfg: RunningConfig, a: Args) -> None:
    if "no" in a:
        _drop(cfg, "dns domain")
    else:
        _put(cfg, "dns domain", "dns", f"dns domain {a['domain']}")


def _spanning_tree(cfg: RunningConfig, a: Args) -> None:
    # EOS always shows the mode, the default (mstp) too; "no spanning-tree mode" returns to it
    _put(cfg, "spanning-tree mode", "spanning-tree", f"spanning-tree mode {a.get('mode', 'mstp')}")


def _clock(cfg: RunningConfig, a: Args) -> None:
    if "tz" in a:
        _put(cfg, "clock timezone", "clock", f"clock timezone {a['tz']}")
    else:
        _drop(cfg, "clock timezone")


def _ntp_server(cfg: RunningConfig, a: Args) -> None:
    vrf = f"vrf {a['vrf']} " if "vrf" in a else ""
    key = f"ntp server {vrf}{a['host']}"
    if "no" in a:
        _drop(cfg, key)
        return
    words = [key, *(w for w in ("prefer", "iburst") if w in a)]
    if "src" in a:
        words.append(f"source {a['src']}")
    _put(cfg, key, "ntp", " ".join(words))


def _enter(header: str) -> Handler:
    def run(cfg: RunningConfig, a: Args) -> str:
        key = f"{header} {a['name']}" if "name" in a else header
        if key not in cfg.stanzas:
            cfg.stanzas[key] = Stanza(BLOCKS[header].rank, key, dict(BLOCKS[header].default_body))
        return key

    return run


def _no_block(header: str) -> Handler:
    def run(cfg: RunningConfig, a: Args) -> None:
        _drop(cfg, f"{header} {a['name']}" if "name" in a else header)

    return run


def _aaa(cfg: RunningConfig, a: Args) -> None:
    line = f"aaa {a['what']} {a['rest']}"
    if "no" in a:
        _drop(cfg, line)
    else:
        _put(cfg, line, "aaa", line)


def _username_key(cfg: RunningConfig, a: Args) -> None:
    key = f"username {a['name']} ssh-key"
    if "no" in a:
        _drop(cfg, key)
    else:
        _put(cfg, key, "username", f"{key} {a['key']}")


def _service_interface(cfg: RunningConfig, a: Args) -> None:
    line = "service interface inactive port-id allocation disabled"
    _put(cfg, line, "service interface", ("no " if "no" in a else "") + line)


def _ip_routing_vrf(cfg: RunningConfig, a: Args) -> None:
    key = f"ip routing vrf {a['vrf']}"
    _put(cfg, key, "ip routing", ("no " if "no" in a else "") + key)


def _ipv6_routing(cfg: RunningConfig, a: Args) -> None:
    if "no" in a:  # the default: not shown
        _drop(cfg, "ipv6 unicast-routing")
    else:
        _put(cfg, "ipv6 unicast-routing", "ip routing", "ipv6 unicast-routing")


# Selectable hashing fields (Arista TOI "selectable hashing fields", EOS 4.20.1F), the keywords published
# EOS configurations use; IPv6 adds the flow label. A word outside them is refused as EOS refuses it.
LOAD_SHARING_FIELDS = {
    "ip": ("source-ip", "destination-ip", "source-port", "destination-port", "ingress-interface"),
    "ipv6": ("source-ip", "destination-ip", "source-port", "destination-port", "ingress-interface", "flow-label"),
}


def _load_sharing(cfg: RunningConfig, a: Args) -> None:
    key = f"ip load-sharing {a['hw']} fields {a['af']}"
    if "no" in a:
        _drop(cfg, key)
        return
    words = str(a["fields"]).split()
    bad = [w for w in words if w not in LOAD_SHARING_FIELDS[str(a["af"])]]
    if bad or len(set(words)) != len(words):
        raise CommandError("% Invalid input")
    _put(cfg, key, "ip load-sharing", f"{key} {' '.join(words)}")


def _ip_route_vrf(cfg: RunningConfig, a: Args) -> None:
    key = f"ip route vrf {a['vrf']} {a['prefix']} {a['hop']}"
    if "no" in a:
        _drop(cfg, key)
    else:
        _put(cfg, key, "ip route", key + (f" {a['distance']}" if a.get("distance", 1) != 1 else ""))


SECRET = "<enc:0|sha512> <secret:word>"
GLOBAL: list[tuple[str, Handler]] = [
    ("<no:=no> aaa root", _aaa_root),
    ("aaa root secret <secret:word>", _aaa_root),
    (f"aaa root secret {SECRET}", _aaa_root),
    ("username <name:word> [privilege <priv:0-15>] [role <role:word>] <nopassword:=nopassword>", _username),
    ("username <name:word> [privilege <priv:0-15>] [role <role:word>] secret <secret:word>", _username),
    (f"username <name:word> [privilege <priv:0-15>] [role <role:word>] secret {SECRET}", _username),
    ("no username <name:word>", _no_username),
    ("transceiver qsfp default-mode <mode:=4x10G>", _transceiver),
    ("no transceiver qsfp default-mode", _transceiver),
    ("service routing protocols model <model:ribd|multi-agent>", _routing_model),
    ("no service routing protocols model", _routing_model),
    ("logging [vrf <vrf:word>] host <host:word> [<port:1-65535>] [protocol <proto:tcp|udp>]", _logging_host),
    ("no logging [vrf <vrf:word>] host <host:word>", _no_logging_host),
    ("logging [vrf <vrf:word>] source-interface <intf:intf>", _logging_source),
    ("<no:=no> logging [vrf <vrf:word>] source-interface", _logging_source),
    (f"logging <what:=buffered> [<size:10-2147483647>] [<sev:{SEVERITY}>]", _logging_level),
    (f"logging <what:trap|console|monitor> <sev:{SEVERITY}>", _logging_level),
    ("<no:=no> logging <what:buffered|trap|console|monitor>", _logging_level),
    ("[<no:=no>] ip name-server [vrf <vrf:word>] <addr:ipv4>", _name_server),
    ("dns domain <domain:word>", _dns_domain),
    ("<no:=no> dns domain", _dns_domain),
    ("spanning-tree mode <mode:mstp|rstp|rapid-pvst|none>", _spanning_tree),
    ("no spanning-tree mode", _spanning_tree),
    ("clock timezone <tz:word>", _clock),
    ("no clock timezone", _clock),
    (
        "[<no:=no>] ntp server [vrf <vrf:word>] <host:word> [<prefer:=prefer>] [<iburst:=iburst>] [source <src:intf>]",
        _ntp_server,
    ),
    ("[<no:=no>] aaa <what:authentication|authorization|accounting> <rest:line>", _aaa),
    ("username <name:word> ssh-key <key:line>", _username_key),
    ("<no:=no> username <name:word> ssh-key", _username_key),
    ("[<no:=no>] service interface inactive port-id allocation disabled", _service_interface),
    ("[<no:=no>] ip routing vrf <vrf:word>", _ip_routing_vrf),
    ("[<no:=no>] ipv6 unicast-routing", _ipv6_routing),
    ("[<no:=no>] ip route vrf <vrf:word> <prefix:prefix> <hop:ipv4> [<distance:1-255>]", _ip_route_vrf),
    ("ip load-sharing <hw:=trident> fields <af:ip|ipv6> <fields:line>", _load_sharing),
    ("<no:=no> ip load-sharing <hw:=trident> fields <af:ip|ipv6>", _load_sharing),
    *((header + (" <name:word>" if "{name}" in b.prompt else ""), _enter(header)) for header, b in BLOCKS.items()),
    *(
        (f"no {header}" + (" <name:word>" if "{name}" in b.prompt else ""), _no_block(header))
        for header, b in BLOCKS.items()
    ),
]


def _body(key: str, line: str | None) -> Callable[[RunningConfig, str, Args], None]:
    """A body line under ``key`` (None: remove the key)."""

    def run(cfg: RunningConfig, header: str, a: Args) -> None:
        body = cfg.stanzas[header].body
        assert body is not None
        text = line.format(**a) if line is not None else None
        if text is None:
            body.pop(key.format(**a), None)
        else:
            body[key.format(**a)] = text

    return run


L1 = "unsupported <what:speed|error-correction> action"
BODIES: dict[str, list[tuple[str, Callable[[RunningConfig, str, Args], None]]]] = {
    "management api http-commands": [
        ("shutdown", _body("shutdown", "shutdown")),
        ("no shutdown", _body("shutdown", "no shutdown")),
        ("protocol <proto:https|http> [port <port:1-65535>]", _body("protocol {proto}", "protocol {proto}")),
        ("no protocol <proto:https|http>", _body("protocol {proto}", None)),
    ],
    "management api gnmi": [
        ("transport grpc <name:word>", _body("transport grpc {name}", "transport grpc {name}")),
        ("no transport grpc <name:word>", _body("transport grpc {name}", None)),
    ],
    "management api netconf": [
        ("transport ssh <name:word>", _body("transport ssh {name}", "transport ssh {name}")),
        ("no transport ssh <name:word>", _body("transport ssh {name}", None)),
    ],
    "system l1": [
        (f"{L1} <act:error|warn>", _body("{what}", "unsupported {what} action {act}")),
        (f"no {L1}", _body("{what}", None)),
    ],
    "vrf instance": [
        ("description <text:line>", _body("description", "description {text}")),
        ("no description", _body("description", None)),
    ],
    "management ssh": [
        ("idle-timeout <n:0-86400>", _body("idle-timeout", "idle-timeout {n}")),
        ("no idle-timeout", _body("idle-timeout", None)),
    ],
}


def http_vrf(cfg: RunningConfig, header: str, vrf: str, enabled: bool | None) -> None:
    """``vrf NAME`` under ``management api http-commands``, a nested block printed as ``!``, ``vrf NAME`` and,
    when enabled, ``   no shutdown``: created (``enabled`` None keeps its state) or switched on/off."""
    body = cfg.stanzas[header].body
    assert body is not None
    key = f"vrf {vrf}"
    was = body.get(key, "").endswith("no shutdown")
    on = was if enabled is None else enabled
    body[key] = f"!\nvrf {vrf}" + ("\n   no shutdown" if on else "")
