#!/usr/bin/env bash
# The lab half of `make demo` (root): lab-mini from factory state to intent and back to a verdict.
#   up -> push (factory -> intent) -> push again (0 changes) -> validate live (all pass)
#   -> seed one fault -> validate (caught, in the text report) -> HTML audit report -> down
# The lab is always taken down, also when a step fails.
set -euo pipefail

XOFF=${XOFF:-.venv/bin/xoff}
INTENT=${INTENT:-inventory/lab-mini}
OUT=${OUT:-out/demo}
LAB=${LAB:-lab-mini}

step() { printf '\n== %s\n' "$*"; }

mkdir -p "$OUT"
trap '"$XOFF" lab down --name "$LAB" >/dev/null 2>&1 || true' EXIT

step "lab up: namespaces, veths, real FRR + lldpd + OpenSSH, NOS emulators at factory QoS state"
"$XOFF" lab up "$INTENT" --remap --name "$LAB"
"$XOFF" lab status --name "$LAB" --wait 30

step "push: every device from factory state to the intent (backup, diff, apply, verify)"
"$XOFF" push "$INTENT" --lab "$LAB" --backup-dir "$OUT/backups"

step "push again: nothing to change"
"$XOFF" push "$INTENT" --lab "$LAB" --backup-dir "$OUT/backups"

step "validate the running lab against the intent and the lossless rules"
"$XOFF" validate "$INTENT" --lab "$LAB" --save-snapshot "$OUT/snapshot.json"

step "seed a fault: PFC off for priority 3 on one end of a link (spine2 Ethernet1/1, by EOS's own CLI)"
"$XOFF" lab fault pfc-off-one-end spine2 Ethernet1/1 --priority 3 --name "$LAB"

step "validate again: the fault is caught"
rc=0
"$XOFF" validate "$INTENT" --lab "$LAB" --catalog default || rc=$?
if [ "$rc" -ne 1 ]; then
  echo "demo: expected validate to exit 1 (failures found), got $rc" >&2
  exit 1
fi
"$XOFF" validate "$INTENT" --lab "$LAB" --format html -o "$OUT/report.html" || true
echo "HTML audit report: $OUT/report.html"
