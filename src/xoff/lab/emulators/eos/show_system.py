"""``show version``, ``show hostname``, ``show configuration sessions``, the ``show running-config``
JSON tree, and the output filters (``| include``, ``| exclude``, ``| begin``, ``| section``).

``show version`` describes a containerised EOS (``cEOSLab``, as cEOS prints it), with a serial
number and MAC address derived from the device name, so they are stable across lab restarts.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import time
import uuid
from typing import Any

from xoff.lab.emulators.eos.store import MODEL, VERSION, Session

Json = dict[str, Any]
Shown = tuple[str, Json]


def _mac(device: str) -> str:
    tail = hashlib.sha256(device.encode()).hexdigest()[:6]
    return f"001c.73{tail[:2]}.{tail[2:]}"


def _colons(mac: str) -> str:
    digits = mac.replace(".", "")
    return ":".join(digits[i : i + 2] for i in range(0, 12, 2))


def _meminfo() -> tuple[int, int]:
    try:
        text = open("/proc/meminfo", encoding="ascii").read()  # noqa: PTH123, SIM115 - one small read
    except OSError:
        return 0, 0
    values = {m[1]: int(m[2]) for m in re.finditer(r"^(\w+):\s+(\d+)", text, re.M)}
    return values.get("MemTotal", 0), values.get("MemAvailable", 0)


def _uptime(seconds: float) -> str:
    """EOS's form: ``1 minute``, ``4 hours and 58 minutes``, ``1 week, 0 days, 20 hours and 15 minutes``."""
    m = int(seconds) // 60
    units = [(m // 10080, "week"), ((m // 1440) % 7, "day"), ((m // 60) % 24, "hour"), (m % 60, "minute")]
    while len(units) > 1 and units[0][0] == 0:
        units.pop(0)
    words = [f"{n} {unit}{'' if n == 1 else 's'}" for n, unit in units]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def version(device: str, booted: float) -> Shown:
    mac = _mac(device)
    serial = hashlib.sha256(f"serial/{device}".encode()).hexdigest()[:32].upper()
    build = str(uuid.uuid5(uuid.NAMESPACE_DNS, f"{device}.xoff-lab"))
    total, free = _meminfo()
    kernel = platform.release()
    internal = f"{VERSION}-xoff.lab"
    up = max(0.0, time.time() - booted)
    text = (
        f"Arista {MODEL}\n"
        "Hardware version: \n"
        f"Serial number: {serial}\n"
        f"Hardware MAC address: {mac}\n"
        f"System MAC address: {mac}\n"
        "\n"
        f"Software image version: {VERSION}\n"
        f"Architecture: {os.uname().machine}\n"
        f"Internal build version: {internal}\n"
        f"Internal build ID: {build}\n"
        "Image format version: 1.0\n"
        "Image optimization: None\n"
        "\n"
        f"Kernel version: {kernel}\n"
        "\n"
        f"Uptime: {_uptime(up)}\n"
        f"Total memory: {total} kB\n"
        f"Free memory: {free} kB\n"
    )
    data: Json = {
        "mfgName": "Arista",
        "modelName": MODEL,
        "hardwareRevision": "",
        "serialNumber": serial,
        "systemMacAddress": _colons(mac),
        "hwMacAddress": _colons(mac),
        "configMacAddress": "00:00:00:00:00:00",
        "version": VERSION,
        "architecture": os.uname().machine,
        "internalVersion": internal,
        "internalBuildId": build,
        "imageFormatVersion": "1.0",
        "imageOptimization": "None",
        "kernelVersion": kernel,
        "bootupTimestamp": booted,
        "uptime": up,
        "memTotal": total,
        "memFree": free,
        "isIntlVersion": False,
    }
    return text, data


def hostname(name: str) -> Shown:
    return f"Hostname: {name}\nFQDN:     {name}\n", {"hostname": name, "fqdn": name}


def _left(deadline: float | None, now: float) -> str:
    if deadline is None:
        return ""
    s = max(0, int(deadline - now))
    return f"{s // 3600}:{(s % 3600) // 60:02d}:{s % 60:02d}"


def configuration_sessions(sessions: dict[str, Session], current: str | None, now: float, detail: bool) -> Shown:
    out = ["Maximum number of completed sessions: 1\n", "Maximum number of pending sessions: 5\n", "\n"]
    timer = [n for n, s in sessions.items() if s.state == "pendingCommitTimer"]
    if detail and timer:
        out.append(f"Session with pending commit timer: {timer[0]}\n")
        out.append(f"Time left until commit timer expiry: in {_left(sessions[timer[0]].deadline, now)}\n\n")
    names = sorted(sessions)
    nw = max([22] + [len(n) for n in names])
    head = f"  {'Name':<{nw}} {'State':<18} {'User':<10} Terminal"
    rule = f"  {'-' * nw} {'-' * 18} {'-' * 10} --------"
    if detail:
        head += "   Commit Time Left"
        rule += " " + "-" * 18
    out += [head + "\n", rule + "\n"]
    data: Json = {"maxSavedSessions": 1, "maxOpenSessions": 5, "sessions": {}}
    for name in names:
        s = sessions[name]
        mark = "*" if name == current else " "
        line = f"{mark} {name:<{nw}} {s.state:<18} {'':<10} {'':<8}"
        if detail:
            line += f"   {_left(s.deadline, now)}"
        out.append(line.rstrip() + "\n")
        data["sessions"][name] = {
            "state": s.state,
            "completedTime": s.completed,
            "commitTimerExpireTime": s.deadline,
            "description": "",
            "instances": {},
        }
    return "".join(out), data


def running_config_tree(body: str, head: list[str]) -> Json:
    """``show running-config | json``: ``{"cmds": {line: null | {"cmds": ..., "comments": []}}, "header": [...]}``."""
    root: Json = {"cmds": {}, "comments": [], "header": head}
    stack: list[tuple[int, Json]] = [(-1, root)]
    for raw in body.splitlines():
        text = raw.strip()
        if not text or text.startswith("!") or text == "end":
            continue
        depth = len(raw) - len(raw.lstrip(" "))
        while stack[-1][0] >= depth:
            stack.pop()
        parent = stack[-1][1]
        if parent["cmds"] is None:
            parent["cmds"] = {}
        node: Json = {"cmds": None, "comments": []}
        parent["cmds"][text] = node
        stack.append((depth, node))
    _collapse(root)
    return root


def _collapse(node: Json) -> None:
    for key, child in list(node["cmds"].items()):
        if child["cmds"] is None:
            node["cmds"][key] = None
        else:
            _collapse(child)


def section(text: str, pattern: str) -> str:
    """``| section RE``: every block (a line and the lines indented under it) that contains a match,
    with the lines that open the blocks around it."""
    rx = re.compile(pattern)
    lines = text.splitlines()
    keep: set[int] = set()
    for i, line in enumerate(lines):
        if not rx.search(line):
            continue
        depth = len(line) - len(line.lstrip(" "))
        j = i + 1
        while j < len(lines) and len(lines[j]) - len(lines[j].lstrip(" ")) > depth and lines[j].strip() != "!":
            j += 1
        keep.update(range(i, j))
        need = depth
        for k in range(i - 1, -1, -1):  # the parents
            d = len(lines[k]) - len(lines[k].lstrip(" "))
            if d < need and lines[k].strip() and not lines[k].strip().startswith("!"):
                keep.add(k)
                need = d
    return "".join(lines[i] + "\n" for i in sorted(keep))


def filter_output(text: str, how: str, pattern: str) -> str:
    rx = re.compile(pattern)
    lines = text.splitlines()
    if how == "include":
        kept = [ln for ln in lines if rx.search(ln)]
    elif how == "exclude":
        kept = [ln for ln in lines if not rx.search(ln)]
    elif how == "begin":
        start = next((i for i, ln in enumerate(lines) if rx.search(ln)), len(lines))
        kept = lines[start:]
    else:
        return section(text, pattern)
    return "".join(ln + "\n" for ln in kept)
