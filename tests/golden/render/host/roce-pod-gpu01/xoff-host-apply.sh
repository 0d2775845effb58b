#!/usr/bin/env bash
# xoff-host-apply.sh for gpu01 (fabric roce-pod, profile hgx-h100): rendered by xoff, do not edit.
# Follows reference/lossless.md §4.1 (mlnx_qos trust/PFC/DSCP map, RoCE mode and ToS, traffic_class),
# §4.2 (ECN notification/reaction points, CNP), §4.3 (netdev MTU), §4.4 (NCCL environment) and §4.5
# (GPUDirect prerequisites: verified, never changed).
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

# --- RoCE NIC steps: each reads the current value first and changes only what differs -------------
# iproute2 is read in its one-line text forms (ip -o ..., ip route/rule show): they are stable, and
# parsing them needs only awk, where the JSON forms (ip -j) would need jq or python on every host.

xoff_need_netdev() {
	if ! ip -o link show dev "$1" >/dev/null 2>&1; then
		xoff_error "no network device $1"
	fi
}

# xoff_link DEV MTU up|down: netdev MTU (§4.3: >= 4192 for RoCE MTU 4096) and admin state.
xoff_link() {
	local dev=$1 want=$2 admin=$3 line mtu flags have
	line=$(ip -o link show dev "$dev")
	mtu=$(sed -n 's/.* mtu \([0-9][0-9]*\) .*/\1/p' <<<"$line")
	if [[ $mtu != "$want" ]]; then
		xoff_diff "$dev mtu ${mtu:-unknown} -> $want" ip link set dev "$dev" mtu "$want"
	fi
	flags=${line#*<}
	flags=${flags%%>*}
	have=down
	if [[ ",$flags," == *,UP,* ]]; then
		have=up
	fi
	if [[ $have != "$admin" ]]; then
		xoff_diff "$dev admin $have -> $admin" ip link set dev "$dev" "$admin"
	fi
}

# xoff_addrs DEV ADDR/LEN...: DEV carries exactly these global IPv4 addresses.
xoff_addrs() {
	local dev=$1 have a
	shift
	have=$(ip -o -4 addr show dev "$dev" scope global | awk '{print $4}')
	for a in "$@"; do
		if ! grep -qxF -- "$a" <<<"$have"; then
			xoff_diff "$dev address + $a" ip addr replace "$a" dev "$dev"
		fi
	done
	while IFS= read -r a; do
		if [[ -n $a ]] && ! xoff_in "$a" "$@"; then
			xoff_diff "$dev address - $a" ip addr del "$a" dev "$dev"
		fi
	done <<<"$have"
}

# xoff_route TABLE DEST VIA DEV: one route of a rail's policy-routing table.
xoff_route() {
	local table=$1 dest=$2 via=$3 dev=$4 have
	# an empty table does not exist yet: "ip route show table N" then fails, which reads as no routes
	have=$(ip -4 route show table "$table" 2>/dev/null | awk -v d="$dest" '$1 == d {print $1, $2, $3, $4, $5}' || true)
	if [[ $have != "$dest via $via dev $dev" ]]; then
		xoff_diff "table $table route $dest via $via dev $dev${have:+ (was: ${have//$'\n'/; })}" \
			ip route replace "$dest" via "$via" dev "$dev" table "$table"
	fi
}

# xoff_table_only TABLE DEST...: remove the routes of TABLE that are not rendered.
xoff_table_only() {
	local table=$1 have line
	local -a f
	shift
	have=$(ip -4 route show table "$table" 2>/dev/null || true)
	while IFS= read -r line; do
		read -r -a f <<<"$line"
		if ((${#f[@]} == 0)); then
			continue
		fi
		case ${f[0]} in
		unicast | local | broadcast | multicast | throw | unreachable | prohibit | blackhole | nat)
			if ! xoff_in "${f[1]}" "$@"; then
				xoff_diff "table $table route - ${f[0]} ${f[1]}" ip route del "${f[0]}" "${f[1]}" table "$table"
			fi
			;;
		*)
			if ! xoff_in "${f[0]}" "$@"; then
				xoff_diff "table $table route - ${f[0]}" ip route del "${f[0]}" table "$table"
			fi
			;;
		esac
	done <<<"$have"
}

# xoff_rule_set PRIO SOURCE TABLE: replace whatever rules sit at PRIO with "from SOURCE lookup TABLE".
xoff_rule_set() {
	while ip rule del priority "$1" 2>/dev/null; do :; done
	ip rule add from "$2" table "$3" priority "$1"
}

# xoff_rule PRIO SOURCE TABLE: traffic from a rail's address uses the rail's table.
xoff_rule() {
	local prio=$1 src=$2 table=$3 have
	have=$(ip -4 rule show | awk -v p="$prio:" '$1 == p {print $2, $3, $4, $5}')
	# ip prints a /32 source without its length
	if [[ $have != "from ${src%/32} lookup $table" ]]; then
		xoff_diff "rule $prio from $src lookup $table${have:+ (was: ${have//$'\n'/; })}" xoff_rule_set "$prio" "$src" "$table"
	fi
}

# xoff_rules_only "TABLE..." "PRIO...": remove rules into the rendered tables at other priorities.
xoff_rules_only() {
	local tables=" $1 " prios=" $2 " have prio rest table
	have=$(ip -4 rule show)
	while read -r prio rest; do
		prio=${prio%:}
		if [[ $rest != *" lookup "* ]]; then
			continue
		fi
		table=${rest##* lookup }
		table=${table%% *}
		if [[ $tables == *" $table "* && $prios != *" $prio "* ]]; then
			xoff_diff "rule - $prio $rest" ip rule del priority "$prio" table "$table"
		fi
	done <<<"$have"
}

# xoff_qos_prio OUTPUT DSCP: the priority "mlnx_qos -i" shows for DSCP (lines "prio:P dscp:NN,NN,...,";
# a priority with more than 8 DSCPs continues on further lines with the same prefix).
xoff_qos_prio() {
	awk -v d="$2" '
		$1 ~ /^prio:[0-7]$/ && $2 ~ /^dscp:/ {
			n = split(substr($2, 6), list, ",")
			for (i = 1; i <= n; i++) {
				if (list[i] != "" && list[i] + 0 == d) { print substr($1, 6); exit }
			}
		}' <<<"$1"
}

# xoff_qos DEV TRUST PFC [DSCP:PRIO...]: mlnx_qos trust state, PFC vector and DSCP -> priority (§4.1).
# "--trust dscp" resets the DSCP map to the default (prio = DSCP >> 3), so the map is checked after it;
# mlnx_qos takes --trust and --dscp2prio only in separate calls.
xoff_qos() {
	local dev=$1 trust=$2 pfc=$3 out have pair dscp prio
	shift 3
	out=$(mlnx_qos -i "$dev")
	have=$(sed -n 's/^Priority trust state: *//p' <<<"$out")
	if [[ $have != "$trust" ]]; then
		xoff_diff "$dev trust ${have:-unknown} -> $trust" mlnx_qos -i "$dev" --trust "$trust"
		if [[ $XOFF_MODE == apply ]]; then
			out=$(mlnx_qos -i "$dev")
		fi
	fi
	have=$(awk '/^PFC configuration:/ {p = 1; next}
		p && $1 == "enabled" {s = $2; for (i = 3; i <= 9; i++) s = s "," $i; print s; exit}' <<<"$out")
	if [[ $have != "$pfc" ]]; then
		xoff_diff "$dev pfc ${have:-unknown} -> $pfc" mlnx_qos -i "$dev" --pfc "$pfc"
	fi
	for pair in "$@"; do
		dscp=${pair%%:*}
		prio=${pair#*:}
		have=$(xoff_qos_prio "$out" "$dscp")
		if [[ $have != "$prio" ]]; then
			xoff_diff "$dev dscp $dscp priority ${have:-unknown} -> $prio" mlnx_qos -i "$dev" --dscp2prio "set,$dscp,$prio"
		fi
	done
}

# xoff_qos_cable DEV METRES: the cable length the NIC sizes its lossless buffers' headroom for
# ("Cable len: N" in mlnx_qos -i; --cable_len sets it, the firmware default is 7).
xoff_qos_cable() {
	local dev=$1 want=$2 have
	have=$(mlnx_qos -i "$dev" | sed -n 's/^Cable len: *//p')
	if [[ $have != "$want" ]]; then
		xoff_diff "$dev cable_len ${have:-unknown} -> $want" mlnx_qos -i "$dev" --cable_len "$want"
	fi
}

# xoff_roce_mode RDMA PORT FLAG: default RoCE mode of RDMA-CM (cma_roce_mode prints it; -m 1|2 sets it).
xoff_roce_mode() {
	local dev=$1 port=$2 flag=$3 want have
	case $flag in
	1) want="IB/RoCE v1" ;;
	2) want="RoCE v2" ;;
	esac
	have=$(cma_roce_mode -d "$dev" -p "$port" | tail -n 1)
	if [[ $have != "$want" ]]; then
		xoff_diff "$dev port $port roce_mode ${have:-unknown} -> $want" cma_roce_mode -d "$dev" -p "$port" -m "$flag"
	fi
}

# xoff_roce_tos RDMA PORT TOS: default ToS of RDMA-CM (cma_roce_tos prints it; -t sets it).
xoff_roce_tos() {
	local dev=$1 port=$2 want=$3 have
	have=$(cma_roce_tos -d "$dev" -p "$port" | tail -n 1)
	if [[ $have != "$want" ]]; then
		xoff_diff "$dev port $port roce_tos ${have:-unknown} -> $want" cma_roce_tos -d "$dev" -p "$port" -t "$want"
	fi
}

# xoff_traffic_class RDMA PORT TCLASS: the MLNX_OFED global traffic class; reads "Global tclass=N"
# (empty while unset), takes a plain number.
xoff_traffic_class() {
	local dev=$1 port=$2 want=$3 file have
	file=/sys/class/infiniband/$dev/tc/$port/traffic_class
	if [[ ! -e $XOFF_ROOT$file ]]; then
		xoff_problem "roce: $file missing (MLNX_OFED driver sysfs)"
		return 0
	fi
	have=$(awk -F= '/^Global tclass=[0-9]+$/ {print $2; exit}' "$XOFF_ROOT$file")
	if [[ $have != "$want" ]]; then
		xoff_diff "$dev tc/$port traffic_class ${have:-unset} -> $want" xoff_write "$file" "$want"
	fi
}

# xoff_ecn DEV np|rp PRIO...: DCQCN notification point (CNP generation) or reaction point (rate
# limiter) enabled for each priority (§4.2).
xoff_ecn() {
	local dev=$1 point=roce_$2 prio file have
	shift 2
	for prio in "$@"; do
		file=/sys/class/net/$dev/ecn/$point/enable/$prio
		if [[ ! -e $XOFF_ROOT$file ]]; then
			xoff_problem "ecn: $file missing (MLNX_OFED driver sysfs)"
			continue
		fi
		have=$(xoff_read "$file")
		if [[ $have != 1 ]]; then
			xoff_diff "$dev ecn $point priority $prio ${have:-unset} -> 1" xoff_write "$file" 1
		fi
	done
}

# xoff_cnp DEV NAME VALUE: cnp_dscp / cnp_802p_prio of the notification point, where the driver has them.
xoff_cnp() {
	local dev=$1 name=$2 want=$3 file have
	file=/sys/class/net/$dev/ecn/roce_np/$name
	if [[ ! -e $XOFF_ROOT$file ]]; then
		return 0
	fi
	have=$(xoff_read "$file")
	if [[ $have != "$want" ]]; then
		xoff_diff "$dev ecn roce_np $name ${have:-unset} -> $want" xoff_write "$file" "$want"
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
# gpu01
# ---------------------------------------------------------------------------------------------------

# --- preflight: what the steps below need; if anything is missing, exit 2 before any change
xoff_need_tool ip
xoff_need_tool mlnx_qos
xoff_need_tool cma_roce_mode
xoff_need_tool cma_roce_tos
xoff_need_netdev rail0
xoff_need_netdev rail1
xoff_need_netdev rail2
xoff_need_netdev rail3
xoff_need_netdev rail4
xoff_need_netdev rail5
xoff_need_netdev rail6
xoff_need_netdev rail7
xoff_need_netdev stor0
xoff_need_netdev stor1
xoff_need_rdma mlx5_0
xoff_need_rdma mlx5_1
xoff_need_rdma mlx5_2
xoff_need_rdma mlx5_3
xoff_need_rdma mlx5_4
xoff_need_rdma mlx5_5
xoff_need_rdma mlx5_6
xoff_need_rdma mlx5_7
xoff_need_rdma mlx5_8
xoff_need_rdma mlx5_9
xoff_preflight_done

# --- links: netdev MTU and admin state, IPv4 addresses (§4.3)
xoff_link rail0 9000 up
xoff_addrs rail0 198.18.0.1/31
xoff_link rail1 9000 up
xoff_addrs rail1 198.18.0.3/31
xoff_link rail2 9000 up
xoff_addrs rail2 198.18.0.5/31
xoff_link rail3 9000 up
xoff_addrs rail3 198.18.0.7/31
xoff_link rail4 9000 up
xoff_addrs rail4 198.18.0.9/31
xoff_link rail5 9000 up
xoff_addrs rail5 198.18.0.11/31
xoff_link rail6 9000 up
xoff_addrs rail6 198.18.0.13/31
xoff_link rail7 9000 up
xoff_addrs rail7 198.18.0.15/31
xoff_link stor0 9000 up
xoff_addrs stor0 198.19.0.1/31
xoff_link stor1 9000 up
xoff_addrs stor1 198.19.0.3/31

# --- routing: one table per rail, and a rule from the rail's address into it
xoff_route 100 198.18.0.0/21 198.18.0.0 rail0
xoff_route 100 198.18.255.0/24 198.18.0.0 rail0
xoff_table_only 100 198.18.0.0/21 198.18.255.0/24
xoff_route 101 198.18.0.0/21 198.18.0.2 rail1
xoff_route 101 198.18.255.0/24 198.18.0.2 rail1
xoff_table_only 101 198.18.0.0/21 198.18.255.0/24
xoff_route 102 198.18.0.0/21 198.18.0.4 rail2
xoff_route 102 198.18.255.0/24 198.18.0.4 rail2
xoff_table_only 102 198.18.0.0/21 198.18.255.0/24
xoff_route 103 198.18.0.0/21 198.18.0.6 rail3
xoff_route 103 198.18.255.0/24 198.18.0.6 rail3
xoff_table_only 103 198.18.0.0/21 198.18.255.0/24
xoff_route 104 198.18.0.0/21 198.18.0.8 rail4
xoff_route 104 198.18.255.0/24 198.18.0.8 rail4
xoff_table_only 104 198.18.0.0/21 198.18.255.0/24
xoff_route 105 198.18.0.0/21 198.18.0.10 rail5
xoff_route 105 198.18.255.0/24 198.18.0.10 rail5
xoff_table_only 105 198.18.0.0/21 198.18.255.0/24
xoff_route 106 198.18.0.0/21 198.18.0.12 rail6
xoff_route 106 198.18.255.0/24 198.18.0.12 rail6
xoff_table_only 106 198.18.0.0/21 198.18.255.0/24
xoff_route 107 198.18.0.0/21 198.18.0.14 rail7
xoff_route 107 198.18.255.0/24 198.18.0.14 rail7
xoff_table_only 107 198.18.0.0/21 198.18.255.0/24
xoff_route 108 198.19.0.0/23 198.19.0.0 stor0
xoff_route 108 198.19.255.0/24 198.19.0.0 stor0
xoff_table_only 108 198.19.0.0/23 198.19.255.0/24
xoff_route 109 198.19.0.0/23 198.19.0.2 stor1
xoff_route 109 198.19.255.0/24 198.19.0.2 stor1
xoff_table_only 109 198.19.0.0/23 198.19.255.0/24
xoff_rule 1000 198.18.0.1/32 100
xoff_rule 1001 198.18.0.3/32 101
xoff_rule 1002 198.18.0.5/32 102
xoff_rule 1003 198.18.0.7/32 103
xoff_rule 1004 198.18.0.9/32 104
xoff_rule 1005 198.18.0.11/32 105
xoff_rule 1006 198.18.0.13/32 106
xoff_rule 1007 198.18.0.15/32 107
xoff_rule 1008 198.19.0.1/32 108
xoff_rule 1009 198.19.0.3/32 109
xoff_rules_only "100 101 102 103 104 105 106 107 108 109" "1000 1001 1002 1003 1004 1005 1006 1007 1008 1009"

# --- qos: mlnx_qos trust, PFC on the lossless priorities, DSCP -> priority, cable length (§4.1)
xoff_qos rail0 dscp 0,0,0,1,0,0,0,0 0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0 9:0 10:0 11:0 12:0 13:0 14:0 15:0 16:0 17:0 18:0 19:0 20:0 21:0 22:0 23:0 24:0 25:0 26:3 27:0 28:0 29:0 30:0 31:0 32:0 33:0 34:0 35:0 36:0 37:0 38:0 39:0 40:0 41:0 42:0 43:0 44:0 45:0 46:0 47:0 48:6 49:0 50:0 51:0 52:0 53:0 54:0 55:0 56:0 57:0 58:0 59:0 60:0 61:0 62:0 63:0
xoff_qos_cable rail0 30
xoff_qos rail1 dscp 0,0,0,1,0,0,0,0 0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0 9:0 10:0 11:0 12:0 13:0 14:0 15:0 16:0 17:0 18:0 19:0 20:0 21:0 22:0 23:0 24:0 25:0 26:3 27:0 28:0 29:0 30:0 31:0 32:0 33:0 34:0 35:0 36:0 37:0 38:0 39:0 40:0 41:0 42:0 43:0 44:0 45:0 46:0 47:0 48:6 49:0 50:0 51:0 52:0 53:0 54:0 55:0 56:0 57:0 58:0 59:0 60:0 61:0 62:0 63:0
xoff_qos_cable rail1 30
xoff_qos rail2 dscp 0,0,0,1,0,0,0,0 0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0 9:0 10:0 11:0 12:0 13:0 14:0 15:0 16:0 17:0 18:0 19:0 20:0 21:0 22:0 23:0 24:0 25:0 26:3 27:0 28:0 29:0 30:0 31:0 32:0 33:0 34:0 35:0 36:0 37:0 38:0 39:0 40:0 41:0 42:0 43:0 44:0 45:0 46:0 47:0 48:6 49:0 50:0 51:0 52:0 53:0 54:0 55:0 56:0 57:0 58:0 59:0 60:0 61:0 62:0 63:0
xoff_qos_cable rail2 30
xoff_qos rail3 dscp 0,0,0,1,0,0,0,0 0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0 9:0 10:0 11:0 12:0 13:0 14:0 15:0 16:0 17:0 18:0 19:0 20:0 21:0 22:0 23:0 24:0 25:0 26:3 27:0 28:0 29:0 30:0 31:0 32:0 33:0 34:0 35:0 36:0 37:0 38:0 39:0 40:0 41:0 42:0 43:0 44:0 45:0 46:0 47:0 48:6 49:0 50:0 51:0 52:0 53:0 54:0 55:0 56:0 57:0 58:0 59:0 60:0 61:0 62:0 63:0
xoff_qos_cable rail3 30
xoff_qos rail4 dscp 0,0,0,1,0,0,0,0 0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0 9:0 10:0 11:0 12:0 13:0 14:0 15:0 16:0 17:0 18:0 19:0 20:0 21:0 22:0 23:0 24:0 25:0 26:3 27:0 28:0 29:0 30:0 31:0 32:0 33:0 34:0 35:0 36:0 37:0 38:0 39:0 40:0 41:0 42:0 43:0 44:0 45:0 46:0 47:0 48:6 49:0 50:0 51:0 52:0 53:0 54:0 55:0 56:0 57:0 58:0 59:0 60:0 61:0 62:0 63:0
xoff_qos_cable rail4 30
xoff_qos rail5 dscp 0,0,0,1,0,0,0,0 0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0 9:0 10:0 11:0 12:0 13:0 14:0 15:0 16:0 17:0 18:0 19:0 20:0 21:0 22:0 23:0 24:0 25:0 26:3 27:0 28:0 29:0 30:0 31:0 32:0 33:0 34:0 35:0 36:0 37:0 38:0 39:0 40:0 41:0 42:0 43:0 44:0 45:0 46:0 47:0 48:6 49:0 50:0 51:0 52:0 53:0 54:0 55:0 56:0 57:0 58:0 59:0 60:0 61:0 62:0 63:0
xoff_qos_cable rail5 30
xoff_qos rail6 dscp 0,0,0,1,0,0,0,0 0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0 9:0 10:0 11:0 12:0 13:0 14:0 15:0 16:0 17:0 18:0 19:0 20:0 21:0 22:0 23:0 24:0 25:0 26:3 27:0 28:0 29:0 30:0 31:0 32:0 33:0 34:0 35:0 36:0 37:0 38:0 39:0 40:0 41:0 42:0 43:0 44:0 45:0 46:0 47:0 48:6 49:0 50:0 51:0 52:0 53:0 54:0 55:0 56:0 57:0 58:0 59:0 60:0 61:0 62:0 63:0
xoff_qos_cable rail6 30
xoff_qos rail7 dscp 0,0,0,1,0,0,0,0 0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0 9:0 10:0 11:0 12:0 13:0 14:0 15:0 16:0 17:0 18:0 19:0 20:0 21:0 22:0 23:0 24:0 25:0 26:3 27:0 28:0 29:0 30:0 31:0 32:0 33:0 34:0 35:0 36:0 37:0 38:0 39:0 40:0 41:0 42:0 43:0 44:0 45:0 46:0 47:0 48:6 49:0 50:0 51:0 52:0 53:0 54:0 55:0 56:0 57:0 58:0 59:0 60:0 61:0 62:0 63:0
xoff_qos_cable rail7 30
xoff_qos stor0 dscp 0,0,0,0,1,0,0,0 0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0 9:0 10:0 11:0 12:0 13:0 14:0 15:0 16:0 17:0 18:0 19:0 20:0 21:0 22:0 23:0 24:0 25:0 26:0 27:0 28:0 29:0 30:0 31:0 32:0 33:0 34:4 35:0 36:0 37:0 38:0 39:0 40:0 41:0 42:0 43:0 44:0 45:0 46:0 47:0 48:6 49:0 50:0 51:0 52:0 53:0 54:0 55:0 56:0 57:0 58:0 59:0 60:0 61:0 62:0 63:0
xoff_qos_cable stor0 30
xoff_qos stor1 dscp 0,0,0,0,1,0,0,0 0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0 9:0 10:0 11:0 12:0 13:0 14:0 15:0 16:0 17:0 18:0 19:0 20:0 21:0 22:0 23:0 24:0 25:0 26:0 27:0 28:0 29:0 30:0 31:0 32:0 33:0 34:4 35:0 36:0 37:0 38:0 39:0 40:0 41:0 42:0 43:0 44:0 45:0 46:0 47:0 48:6 49:0 50:0 51:0 52:0 53:0 54:0 55:0 56:0 57:0 58:0 59:0 60:0 61:0 62:0 63:0
xoff_qos_cable stor1 30

# --- roce: RDMA-CM default RoCE mode and ToS, global traffic class (§4.1: ToS = DSCP << 2 | ECT(0))
xoff_roce_mode mlx5_0 1 2
xoff_roce_tos mlx5_0 1 106
xoff_traffic_class mlx5_0 1 106
xoff_roce_mode mlx5_1 1 2
xoff_roce_tos mlx5_1 1 106
xoff_traffic_class mlx5_1 1 106
xoff_roce_mode mlx5_2 1 2
xoff_roce_tos mlx5_2 1 106
xoff_traffic_class mlx5_2 1 106
xoff_roce_mode mlx5_3 1 2
xoff_roce_tos mlx5_3 1 106
xoff_traffic_class mlx5_3 1 106
xoff_roce_mode mlx5_4 1 2
xoff_roce_tos mlx5_4 1 106
xoff_traffic_class mlx5_4 1 106
xoff_roce_mode mlx5_5 1 2
xoff_roce_tos mlx5_5 1 106
xoff_traffic_class mlx5_5 1 106
xoff_roce_mode mlx5_6 1 2
xoff_roce_tos mlx5_6 1 106
xoff_traffic_class mlx5_6 1 106
xoff_roce_mode mlx5_7 1 2
xoff_roce_tos mlx5_7 1 106
xoff_traffic_class mlx5_7 1 106
xoff_roce_mode mlx5_8 1 2
xoff_roce_tos mlx5_8 1 138
xoff_traffic_class mlx5_8 1 138
xoff_roce_mode mlx5_9 1 2
xoff_roce_tos mlx5_9 1 138
xoff_traffic_class mlx5_9 1 138

# --- ecn: DCQCN notification and reaction points per lossless priority, CNP marking (§4.2)
xoff_ecn rail0 np 3
xoff_ecn rail0 rp 3
xoff_cnp rail0 cnp_dscp 48
xoff_cnp rail0 cnp_802p_prio 6
xoff_ecn rail1 np 3
xoff_ecn rail1 rp 3
xoff_cnp rail1 cnp_dscp 48
xoff_cnp rail1 cnp_802p_prio 6
xoff_ecn rail2 np 3
xoff_ecn rail2 rp 3
xoff_cnp rail2 cnp_dscp 48
xoff_cnp rail2 cnp_802p_prio 6
xoff_ecn rail3 np 3
xoff_ecn rail3 rp 3
xoff_cnp rail3 cnp_dscp 48
xoff_cnp rail3 cnp_802p_prio 6
xoff_ecn rail4 np 3
xoff_ecn rail4 rp 3
xoff_cnp rail4 cnp_dscp 48
xoff_cnp rail4 cnp_802p_prio 6
xoff_ecn rail5 np 3
xoff_ecn rail5 rp 3
xoff_cnp rail5 cnp_dscp 48
xoff_cnp rail5 cnp_802p_prio 6
xoff_ecn rail6 np 3
xoff_ecn rail6 rp 3
xoff_cnp rail6 cnp_dscp 48
xoff_cnp rail6 cnp_802p_prio 6
xoff_ecn rail7 np 3
xoff_ecn rail7 rp 3
xoff_cnp rail7 cnp_dscp 48
xoff_cnp rail7 cnp_802p_prio 6
xoff_ecn stor0 np 4
xoff_ecn stor0 rp 4
xoff_cnp stor0 cnp_dscp 48
xoff_cnp stor0 cnp_802p_prio 6
xoff_ecn stor1 np 4
xoff_ecn stor1 rp 4
xoff_cnp stor1 cnp_dscp 48
xoff_cnp stor1 cnp_802p_prio 6

# --- nccl: the NCCL environment file (§4.4), the same text as the rendered nccl.env
xoff_file /etc/xoff/nccl.env <<'XOFF_NCCL_ENV'
# NCCL environment for gpu01 (fabric roce-pod): rendered by xoff, do not edit.
# reference/lossless.md §4.4. Installed as /etc/xoff/nccl.env by xoff-host-apply.sh; load it with
# "set -a; . /etc/xoff/nccl.env; set +a" or as a systemd EnvironmentFile / docker --env-file.
NCCL_IB_ADDR_FAMILY=AF_INET
NCCL_IB_GID_INDEX=-1
NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1
NCCL_IB_ROCE_VERSION_NUM=2
NCCL_IB_TC=106
NCCL_NET_GDR_LEVEL=PXB
NCCL_SOCKET_IFNAME==eno1
XOFF_NCCL_ENV

# --- verify: RDMA link layers and GPUDirect prerequisites (§4.5)
xoff_link_layer mlx5_0 1 Ethernet
xoff_link_layer mlx5_1 1 Ethernet
xoff_link_layer mlx5_2 1 Ethernet
xoff_link_layer mlx5_3 1 Ethernet
xoff_link_layer mlx5_4 1 Ethernet
xoff_link_layer mlx5_5 1 Ethernet
xoff_link_layer mlx5_6 1 Ethernet
xoff_link_layer mlx5_7 1 Ethernet
xoff_link_layer mlx5_8 1 Ethernet
xoff_link_layer mlx5_9 1 Ethernet
xoff_peermem
xoff_acs
xoff_iommu passthrough

xoff_summary
