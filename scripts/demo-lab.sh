#!/usr/bin/env bash
# The lab half of `make demo` (root): lab-mini from factory state to intent and back to a verdict.
#   up -> push (factory -> intent) -> push again (0 changes) -> validate live (all pass)
#   -> seed one fault -> validate (caught, in the text report) -> HTML audit report -> down
# The demo's lab has a name of its own (demo-<pid>), so it never meets a lab someone else brought up; it is
# always taken down, also when a step fails, and only once this script brought it up.
set -euo pipefail

XOFF=${XOFF:-.venv/bin/xoff}
INTENT=${INTENT:-inventory/lab-mini}
OUT=${OUT:-out/demo}
LAB=${LAB:-demo-$$}

# XOFF may be a command with arguments (e.g. "env PYTHONPATH=$PWD/src .venv/bin/xoff")
read -r -a XOFF_CMD <<<"$XOFF"
xoff() { "${XOFF_CMD[@]}" "$@"; }

step() { printf '\n== %s\n' "$*"; }

mkdir -p "$OUT"
started=0
trap '[ "$started" = 1 ] && xoff lab down --name "$LAB" >/dev/null 2>&1 || true' EXIT

step "lab up: namespaces, veths, real FRR + lldpd + OpenSSH, NOS emulators at factory QoS state"
started=1  # from here on the lab (or part of it) may exist: the trap takes it down
xoff lab up "$INTENT" --remap --name "$LAB"
xoff lab status --name "$LAB" --wait 30

step "push: every device from factory state to the intent (backup, diff, apply, verify)"
xoff push "$INTENT" --lab "$LAB" --backup-dir "$OUT/backups"

step "push again: nothing to change"
xoff push "$INTENT" --lab "$LAB" --backup-dir "$OUT/backups"

step "validate the running lab against the intent and the lossless rules"
xoff validate "$INTENT" --lab "$LAB" --save-snapshot "$OUT/snapshot.json"

step "seed a fault: PFC off for priority 3 on one end of a link (spine2 Ethernet1/1, by EOS's own CLI)"
xoff lab fault pfc-off-one-end spine2 Ethernet1/1 --priority 3 --name "$LAB"

step "validate again: the fault is caught"
rc=0
xoff validate "$INTENT" --lab "$LAB" --catalog default || rc=$?
if [ "$rc" -ne 1 ]; then
  echo "demo: expected validate to exit 1 (failures found), got $rc" >&2
  exit 1
fi
xoff validate "$INTENT" --lab "$LAB" --format html -o "$OUT/report.html" || true
echo "HTML audit report: $OUT/report.html"
