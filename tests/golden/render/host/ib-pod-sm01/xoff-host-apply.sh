#!/usr/bin/env bash
# xoff-host-apply.sh for sm01 (fabric ib-pod, profile opensm): rendered by xoff, do not edit.
# This host has no RoCE NIC, so no Ethernet QoS: the script installs the NCCL environment
# (reference/lossless.md §4.4) and verifies the RDMA link layers and, on GPU hosts, the GPUDirect
# prerequisites (§4.5).
# Every step reads the current value first and changes only what differs. Run with --help for usage.
set -euo pipefail

# ---------------------------------------------------------------------------------------------------
# Library (static text, the same in every rendered host script)
# ---------------------------------------------------------------------------------------------------
# A failing command stops the script with exit status 3. set -E makes the ERR trap fire inside
# functions and command substitutions too; only the main shell reports, a subshell just exits.
set -E
XOFF_PID=$BASHPID
xoff_failed() {
	if [[ $BASHPID == "$XOFF_PID" ]]; then
		printf 'xoff-host-apply: failed (line %s): %s\n' "$1" "$2" >&2
	fi
	exit 3
}
trap 'xoff_failed "$LINENO" "$BASH_COMMAND"' ERR

XOFF_ROOT=${XOFF_HOST_ROOT:-}
XOFF_MODE=apply
XOFF_CHANGES=0
XOFF_PROBLEMS=0
XOFF_ERRORS=0

xoff_usage() {
	cat <<'EOF'
usage: xoff-host-apply.sh [--check]
  (no option)  bring this host to the rendered state; prints "changed: <what>" for each change
               and "xoff-host-apply: N changes" at the end
  --check      change nothing; prints "would change: <what>" for each difference
  Verified-only prerequisites (GPUDirect, RDMA link layer) print "<area>: <problem>" in both modes.
environment: XOFF_HOST_ROOT is put before every /sys, /proc and /etc path (default: empty)
exit status: 0 in sync (or applied), 1 differences or failed verifications,
             2 bad usage or a missing tool or device (nothing changed), 3 a command failed
EOF
}

while (($# > 0)); do
	case $1 in
	--check) XOFF_MODE=check ;;
	-h | --help)
		xoff_usage
		exit 0
		;;
	*)
		printf "xoff-host-apply: unknown argument '%s' (allowed: --check)\n" "$1" >&2
		exit 2
		;;
	esac
	shift
done

# xoff_diff WHAT CMD...: a value differs from the rendered one. Apply mode runs CMD (its stdout
# dropped) and prints "changed: WHAT"; check mode only prints "would change: WHAT".
xoff_diff() {
	local what=$1
	shift
	XOFF_CHANGES=$((XOFF_CHANGES + 1))
	if [[ $XOFF_MODE == check ]]; then
		printf 'would change: %s\n' "$what"
		return 0
	fi
	if ! "$@" >/dev/null; then
		printf 'xoff-host-apply: could not change %s (%s)\n' "$what" "$*" >&2
		exit 3
	fi
	printf 'changed: %s\n' "$what"
}

# xoff_problem TEXT: something verified only (never changed) is not as rendered.
xoff_problem() {
	XOFF_PROBLEMS=$((XOFF_PROBLEMS + 1))
	printf '%s\n' "$1"
}

# xoff_error TEXT: the script cannot run here; counted, and xoff_preflight_done stops before any change.
xoff_error() {
	XOFF_ERRORS=$((XOFF_ERRORS + 1))
	printf 'xoff-host-apply: %s\n' "$1" >&2
}

xoff_need_tool() {
	if ! command -v "$1" >/dev/null 2>&1; then
		xoff_error "$1 not found in PATH"
	fi
}

xoff_need_rdma() {
	if [[ ! -d $XOFF_ROOT/sys/class/infiniband/$1 ]]; then
		xoff_error "no RDMA device $1 (/sys/class/infiniband/$1)"
	fi
}

xoff_preflight_done() {
	if ((XOFF_ERRORS > 0)); then
		printf 'xoff-host-apply: %d missing, nothing changed\n' "$XOFF_ERRORS" >&2
		exit 2
	fi
}

# xoff_in WORD LIST...: is WORD one of LIST?
xoff_in() {
	local word=$1 item
	shift
	for item in "$@"; do
		if [[ $item == "$word" ]]; then
			return 0
		fi
	done
	return 1
}

# xoff_read PATH: the first line of a sysfs/procfs file under XOFF_HOST_ROOT ("" if it cannot be read).
xoff_read() {
	local line=""
	if [[ -r $XOFF_ROOT$1 ]]; then
		IFS= read -r line <"$XOFF_ROOT$1" || true
	fi
	printf '%s' "$line"
}

# xoff_write PATH VALUE: write VALUE to a sysfs file under XOFF_HOST_ROOT.
xoff_write() {
	printf '%s\n' "$2" >"$XOFF_ROOT$1"
}

# xoff_put PATH TEXT: replace a file under XOFF_HOST_ROOT atomically (mode 0644).
xoff_put() {
	local target=$XOFF_ROOT$1
	mkdir -p "${target%/*}" &&
		printf '%s' "$2" >"$target.xoff-new" &&
		chmod 0644 "$target.xoff-new" &&
		mv -f "$target.xoff-new" "$target"
}

# xoff_file PATH <<TEXT: make PATH hold exactly TEXT (trailing newlines included).
xoff_file() {
	local path=$1 want have=""
	want=$(
		cat
		printf x
	)
	want=${want%x}
	if [[ -f $XOFF_ROOT$path ]]; then
		have=$(
			cat "$XOFF_ROOT$path"
			printf x
		)
		have=${have%x}
		if [[ $have != "$want" ]]; then
			xoff_diff "$path content" xoff_put "$path" "$want"
		fi
	else
		xoff_diff "$path (new)" xoff_put "$path" "$want"
	fi
}

xoff_summary() {
	if [[ $XOFF_MODE == check ]]; then
		printf 'xoff-host-apply --check: %d differences (%d to change, %d problems)\n' \
			"$((XOFF_CHANGES + XOFF_PROBLEMS))" "$XOFF_CHANGES" "$XOFF_PROBLEMS"
		if ((XOFF_CHANGES + XOFF_PROBLEMS > 0)); then
			exit 1
		fi
		return 0
	fi
	if ((XOFF_PROBLEMS > 0)); then
		printf 'xoff-host-apply: %d problems (verified only, not changed)\n' "$XOFF_PROBLEMS"
	fi
	printf 'xoff-host-apply: %d changes\n' "$XOFF_CHANGES"
	if ((XOFF_PROBLEMS > 0)); then
		exit 1
	fi
}

# --- verified only: reported as "<area>: <problem>" and counted, never changed ----------------------

# xoff_link_layer RDMA PORT WANT: Ethernet for RoCE, InfiniBand for an IB HCA (set by mlxconfig LINK_TYPE).
xoff_link_layer() {
	local have
	have=$(xoff_read "/sys/class/infiniband/$1/ports/$2/link_layer")
	if [[ $have != "$3" ]]; then
		xoff_problem "rdma: $1 port $2 link_layer ${have:-missing}, want $3"
	fi
}

# GPUDirect RDMA needs the nvidia-peermem module, loaded at every boot (modprobe nvidia-peermem).
xoff_peermem() {
	if [[ ! -d $XOFF_ROOT/sys/module/nvidia_peermem ]]; then
		xoff_problem "gpudirect: nvidia-peermem not loaded (no /sys/module/nvidia_peermem; modprobe nvidia-peermem)"
	fi
}

# ACS on a PCIe bridge sends GPU<->NIC peer traffic through the root complex: "ACSCtl: SrcValid+"
# in lspci -vvv means it is on (disable it in the BIOS, or per bridge with setpci ECAP_ACS+0x6.w=0000).
xoff_acs() {
	local out bdf
	if ! command -v lspci >/dev/null 2>&1; then
		xoff_problem "gpudirect: cannot check ACS: lspci not found"
		return 0
	fi
	out=$(lspci -vvv 2>/dev/null || true)
	if grep -q 'Capabilities: <access denied>' <<<"$out"; then
		xoff_problem "gpudirect: cannot check ACS: lspci -vvv shows no capabilities without root"
		return 0
	fi
	while IFS= read -r bdf; do
		if [[ -n $bdf ]]; then
			xoff_problem "gpudirect: ACS enabled on PCI bridge $bdf (ACSCtl SrcValid+)"
		fi
	done < <(awk '/^[0-9a-fA-F]/ {dev = $1} /ACSCtl:/ && /SrcValid\+/ {print dev}' <<<"$out")
}

# xoff_iommu passthrough|off: the IOMMU must not translate GPU/NIC DMA: iommu=pt (or
# iommu.passthrough=1) on the kernel command line, or no IOMMU active at all (/sys/class/iommu empty).
xoff_iommu() {
	local cmdline active=no
	cmdline=" $(xoff_read /proc/cmdline) "
	if compgen -G "$XOFF_ROOT/sys/class/iommu/*" >/dev/null; then
		active=yes
	fi
	if [[ $active == no ]]; then
		return 0
	fi
	case $1 in
	passthrough)
		if [[ $cmdline != *" iommu=pt "* && $cmdline != *" iommu.passthrough=1 "* ]]; then
			xoff_problem "gpudirect: IOMMU translates DMA: no iommu=pt in /proc/cmdline"
		fi
		;;
	off)
		xoff_problem "gpudirect: IOMMU is on, want it off (/sys/class/iommu is not empty)"
		;;
	esac
}

# ---------------------------------------------------------------------------------------------------
# sm01
# ---------------------------------------------------------------------------------------------------

# --- preflight: what the steps below need; if anything is missing, exit 2 before any change
xoff_preflight_done

# --- nccl: the NCCL environment file (§4.4), the same text as the rendered nccl.env
xoff_file /etc/xoff/nccl.env <<'XOFF_NCCL_ENV'
# NCCL environment for sm01 (fabric ib-pod): rendered by xoff, do not edit.
# reference/lossless.md §4.4. Installed as /etc/xoff/nccl.env by xoff-host-apply.sh; load it with
# "set -a; . /etc/xoff/nccl.env; set +a" or as a systemd EnvironmentFile / docker --env-file.
NCCL_IB_HCA==mlx5_0:1
NCCL_IB_SL=0
NCCL_NET_GDR_LEVEL=PXB
NCCL_SOCKET_IFNAME==eno1
XOFF_NCCL_ENV

# --- verify: RDMA link layers
xoff_link_layer mlx5_0 1 InfiniBand

xoff_summary
