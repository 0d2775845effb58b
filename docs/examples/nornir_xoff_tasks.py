"""Calling xoff.api from your own Nornir tasks (docs/api.md, "From a Nornir task").

Load and plan the intent once, outside the tasks; each task then asks xoff for its host's share of the
result. Nothing here opens a connection: connect with your own tasks (napalm, netmiko, scrapli) and
send what xoff rendered, or run ``xoff push`` for xoff's backup/diff/verify/rollback flow.

    from nornir import InitNornir
    nr = InitNornir(config_file="config.yaml")          # your inventory: host names = intent device names
    loaded = api.load("inventory/lab-mini")
    rendered = nr.run(task=xoff_render, loaded=loaded)
    gate = nr.run(task=xoff_pre_change, loaded=loaded)   # failed hosts: the plan has blocking findings
"""

from __future__ import annotations

from nornir.core.task import Result, Task

from xoff import api


def xoff_render(task: Task, loaded: api.Loaded) -> Result:
    """This host's rendered files, name -> text (nothing written to disk)."""
    rendered = api.render(loaded, api.RenderOptions(output=None, devices=(task.host.name,)))
    return Result(host=task.host, result={f.name: f.content for f in rendered.files})


def xoff_pre_change(task: Task, loaded: api.Loaded) -> Result:
    """The pre-change catalog's blocking findings on this host (the task fails when there are any)."""
    report = api.check(loaded)
    mine = [
        f"{r.id}: {finding}"
        for r in report.results
        if r.blocking
        for finding in r.findings
        if task.host.name in str(finding)
    ]
    return Result(host=task.host, result=mine, failed=bool(mine))
