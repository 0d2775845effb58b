"""``router bgp`` statements around the ones the lab acts on (``commands.py``: router-id, maximum-paths,
``neighbor X remote-as|description``, ``network``): peer groups (``neighbor G peer group``, and the
older ``peer-group`` that EOS prints in the newer form), a member's ``peer group G``, ``password 7``,
``send-community``, ``maximum-routes``, ``update-source``, ``ebgp-multihop``, ``bfd``,
``remove-private-as``, and ``neighbor X activate`` under ``address-family ipv4``. Kept and printed as EOS
prints them (AVD's ``router-bgp.j2`` order); FRR gets only what ``apply.py`` knows (remote-as, description).
"""

from __future__ import annotations

from collections.abc import Callable

from xoff.lab.emulators.eos.grammar import Args, CommandError
from xoff.lab.emulators.eos.model import Bgp, Neighbor, RunningConfig

Handler = Callable[[RunningConfig, object, Args], None]


def _bgp(cfg: RunningConfig) -> Bgp:
    assert cfg.bgp is not None  # the bgp and af modes exist only while router bgp does
    return cfg.bgp


def _peer(cfg: RunningConfig, name: str, create: bool) -> Neighbor | None:
    bgp = _bgp(cfg)
    if name not in bgp.neighbors and create:
        bgp.neighbors[name] = Neighbor()
    return bgp.neighbors.get(name)


def _extra(key: str, text: Callable[[Args], str] | None, create: bool = False) -> Handler:
    """``neighbor P <key> ...``: set (``text`` gives the line's tail) or, with ``text`` None, remove."""

    def run(cfg: RunningConfig, _m: object, a: Args) -> None:
        n = _peer(cfg, a["peer"], create and text is not None)
        if n is None:
            if text is not None:
                raise CommandError(f"% Neighbor {a['peer']} does not exist; configure its remote-as first")
            return
        if text is None:
            n.extra.pop(key, None)
        else:
            n.extra[key] = text(a)

    return run


def _activate(on: bool) -> Handler:
    def run(cfg: RunningConfig, _m: object, a: Args) -> None:
        n = _peer(cfg, a["peer"], on)
        if n is not None:
            n.activate = on

    return run


PEER = "neighbor <peer:peer>"
GROUP_LINE = "peer group"
BGP: list[tuple[str, Handler]] = [
    (f"{PEER} peer group", _extra(GROUP_LINE, lambda _a: "peer group", create=True)),
    (f"{PEER} peer-group", _extra(GROUP_LINE, lambda _a: "peer group", create=True)),
    (f"{PEER} peer group <group:word>", _extra(GROUP_LINE, lambda a: f"peer group {a['group']}", create=True)),
    (f"{PEER} peer-group <group:word>", _extra(GROUP_LINE, lambda a: f"peer group {a['group']}", create=True)),
    (f"no {PEER} peer group [<group:word>]", _extra(GROUP_LINE, None)),
    (f"{PEER} password 7 <secret:word>", _extra("password", lambda a: f"password 7 {a['secret']}")),
    (f"no {PEER} password", _extra("password", None)),
    (
        f"{PEER} send-community [<kind:standard|extended|large>]",
        _extra("send-community", lambda a: "send-community" + (f" {a['kind']}" if "kind" in a else "")),
    ),
    (f"no {PEER} send-community", _extra("send-community", None)),
    (f"{PEER} maximum-routes <n:0-4294967294>", _extra("maximum-routes", lambda a: f"maximum-routes {a['n']}")),
    (f"no {PEER} maximum-routes", _extra("maximum-routes", None)),
    (f"{PEER} update-source <intf:intf>", _extra("update-source", lambda a: f"update-source {a['intf']}")),
    (f"no {PEER} update-source", _extra("update-source", None)),
    (f"{PEER} ebgp-multihop [<hops:1-255>]", _extra("ebgp-multihop", lambda a: f"ebgp-multihop {a.get('hops', 255)}")),
    (f"no {PEER} ebgp-multihop", _extra("ebgp-multihop", None)),
    (f"{PEER} bfd", _extra("bfd", lambda _a: "bfd")),
    (f"no {PEER} bfd", _extra("bfd", None)),
    (f"{PEER} remove-private-as", _extra("remove-private-as", lambda _a: "remove-private-as")),
    (f"no {PEER} remove-private-as", _extra("remove-private-as", None)),
]


def _setting(key: str, line: Callable[[Args], str | None]) -> Handler:
    def run(cfg: RunningConfig, _m: object, a: Args) -> None:
        text = line(a)
        if text is None:
            _bgp(cfg).settings.pop(key, None)
        else:
            _bgp(cfg).settings[key] = text

    return run


def _distance(a: Args) -> str:
    if "internal" in a:
        return f"distance bgp {a['external']} {a['internal']} {a['local']}"
    return f"distance bgp {a['external']}"


BGP += [
    ("no bgp default ipv4-unicast", _setting("bgp default", lambda _a: "no bgp default ipv4-unicast")),
    ("bgp default ipv4-unicast", _setting("bgp default", lambda _a: None)),  # the default
    ("distance bgp <external:1-255> [<internal:1-255> <local:1-255>]", _setting("distance", _distance)),
    ("no distance bgp", _setting("distance", lambda _a: None)),
]
AF: list[tuple[str, Handler]] = [
    (f"{PEER} activate", _activate(True)),
    (f"no {PEER} activate", _activate(False)),
]
