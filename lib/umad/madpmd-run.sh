#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# madpmd-run: run a stock rdma-core tool (opensm, ibstat, smpquery,
# saquery, ibv_devinfo, rping, ...) against a madpmd fabric. It puts
# madpmd's drop-in libibumad.so.3, libibverbs.so.1 and librdmacm.so.1
# first on the library path, selects the node (the tool's one CA) and the
# run directory, and execs the command unchanged. --print-addr prints the
# node's port-1 IPv4 address instead (what rdma_cm resolves to that port).
set -u

prog=madpmd-run
# the build tree keeps the drop-in next to this script; installed, it is
# in the private library directory, found relative to this script (a
# staged or moved install) before the path configured at build time
# (shell built-ins only: this runs before every tool, so no forks)
case $0 in
*/*) here=${0%/*} ;;
*) here=. ;;
esac
case $here in
/*) ;;
*) here=$PWD/$here ;;
esac
if [ -e "$here/libibumad.so.3" ]; then
	libdir=$here
elif [ -n '@UMAD_LIBDIR_REL@' ] && [ -e "$here/@UMAD_LIBDIR_REL@/libibumad.so.3" ]; then
	libdir=$here/@UMAD_LIBDIR_REL@
else
	libdir='@UMAD_LIBDIR@'
fi

usage() {
	cat <<USAGE
usage: $prog [--node NAME] [--device NAME] [--net] [--run-dir DIR] COMMAND [ARGS...]
       $prog [--node NAME] [--run-dir DIR] --print-addr
       $prog [--node NAME] [--run-dir DIR] --wait-active [COMMAND [ARGS...]]
       $prog --help | --version

Runs COMMAND with madpmd's libibumad.so.3, libibverbs.so.1 and
librdmacm.so.1 first on the library path (from $libdir),
so that stock OpenSM, infiniband-diags, ibverbs-utils, perftest and
rdmacm-utils talk to the madpmd fabric instead of the kernel. The
node's HCA has the same name on every node, as on the hosts of a
cluster (madpmd0; the node's own name is its node description). Where it
may make a private mount namespace (root, or user namespaces), the
command sees the HCA in /sys/class/infiniband (ibstatus does), its ports'
files kept in step with the fabric, and its device nodes in
/dev/infiniband (UCX looks there); MADPMD_SYSFS=0 leaves /sys and /dev
alone. A daemon still starting is waited for (MADPMD_WAIT seconds,
default 10). opensm run by a user who cannot write /var/log logs to the
run directory (one line says where).

  --node NAME     the node (HCA) the command runs on; default \$MADPMD_NODE,
                  else the first node the daemon lists
  --device NAME   the name of the node's HCA for the command; default
                  \$MADPMD_DEVICE if set, else madpmd0; an empty NAME
                  names it after the node (hca1), as madpmd did before
  --net           run the command in the node's own network namespace,
                  where eth0 (RoCE) or ib0 (IB) holds the node's address
                  and reaches the other nodes' over the fabric (Ethernet
                  beside RoCE, IPoIB); made on first use, shared by the
                  node's commands
  --run-dir DIR   the daemon's run directory; default \$MADPMD_RUN_DIR,
                  else the first where a fabric runs of your own
                  (\$XDG_RUNTIME_DIR/madpmd, else /tmp/madpmd-UID: where
                  madpmd started by you puts it) and /run/madpmd (root's)
  --print-addr    print the IPv4 address of the node's port 1 (one dotted
                  quad, as the daemon has it) and exit
  --wait-active   wait until the node's ports are Active (an SM brought
                  them up; RoCE ports are with their link), at most
                  MADPMD_WAIT seconds, then run COMMAND (none: exit 0)
  -h, --help      this text
  --version       madpmd-run's version
USAGE
}

die() {
	echo "$prog: $*" >&2
	exit 1
}

node=${MADPMD_NODE:-}
device=${MADPMD_DEVICE-madpmd0}
net=
print_addr=
wait_active=
run_dir=${MADPMD_RUN_DIR:-}

while [ $# -gt 0 ]; do
	case $1 in
	--node)
		[ $# -ge 2 ] || { echo "$prog: --node needs a node name" >&2; exit 2; }
		node=$2; shift 2 ;;
	--node=*)
		node=${1#--node=}; shift ;;
	--device)
		[ $# -ge 2 ] || { echo "$prog: --device needs a name (or '' for the node's)" >&2; exit 2; }
		device=$2; shift 2 ;;
	--device=*)
		device=${1#--device=}; shift ;;
	--net)
		net=1; shift ;;
	--run-dir)
		[ $# -ge 2 ] || { echo "$prog: --run-dir needs a directory" >&2; exit 2; }
		run_dir=$2; shift 2 ;;
	--run-dir=*)
		run_dir=${1#--run-dir=}; shift ;;
	--print-addr)
		print_addr=1; shift ;;
	--wait-active)
		wait_active=1; shift ;;
	-h|--help)
		usage; exit 0 ;;
	--version)
		echo "$prog @VERSION@"; exit 0 ;;
	--)
		shift; break ;;
	-*)
		echo "$prog: unknown option $1 (try --help)" >&2; exit 2 ;;
	*)
		break ;;
	esac
done

case $device in
*/*|.*) echo "$prog: --device $device: not a device name (one path component)" >&2; exit 2 ;;
esac
if [ -n "$print_addr" ] && [ $# -gt 0 ]; then
	echo "$prog: --print-addr takes no command (try --help)" >&2
	exit 2
fi
if [ -z "$print_addr" ] && [ -z "$wait_active" ] && [ $# -eq 0 ]; then
	echo "$prog: no command given (try --help)" >&2
	exit 2
fi
# infiniband-diags (ibstat, saquery, perfquery, ...) and OpenSM install
# into /usr/sbin, which a normal user's PATH on Debian lacks: here they are
# for everyone, so the command (and what it runs) finds them
case :$PATH: in
*:/usr/sbin:*) ;;
*) PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin; export PATH ;;
esac
if [ $# -gt 0 ] && ! command -v -- "$1" >/dev/null 2>&1; then
	echo "$prog: $1: command not found (install it, or give its path)" >&2
	exit 127
fi
if [ ! -e "$libdir/libibumad.so.3" ]; then
	die "no drop-in libibumad.so.3 in $libdir (build or install madpmd first)"
fi

# madpmd/run_dir.h's rule (lib/chan/run_dir.c): the user's own run
# directory, else root's, whichever lists nodes (root's own is /run/madpmd:
# nothing lists nodes in its $XDG_RUNTIME_DIR/madpmd)
has_fabric() {
	[ -s "$1/nodes" ] || [ -e "$1/madpmd.pid" ]
}
either_has_fabric() {
	has_fabric "$1" || has_fabric "$2"
}
looked=
wait=${MADPMD_WAIT:-10}
case $wait in
''|*[!0-9]*) die "MADPMD_WAIT=$wait: not a number of seconds" ;;
esac
# wait_until TENTHS COMMAND...: until COMMAND succeeds, looking every tenth
# of a second, at most TENTHS times; its status at the end
wait_until() {
	left=$1
	shift
	while ! "$@"; do
		[ "$left" -gt 0 ] || return 1
		sleep 0.1
		left=$((left - 1))
	done
}
# a madpmd of yours started this second (/proc, with shell built-ins:
# its start in /proc/PID/stat, in the kernel's USER_HZ of 100)
young_madpmd() {
	read -r up rest < /proc/uptime || return 1
	up=${up%.*}
	for d in /proc/[0-9]*; do
		[ -O "$d" ] || continue
		read -r c < "$d/comm" 2>/dev/null || continue
		[ "$c" = madpmd ] || continue
		read -r st < "$d/stat" 2>/dev/null || continue
		set -- ${st##*) }
		# field 22, the 20th after "pid (comm)"
		[ $# -ge 20 ] && eval "t=\${20}" &&
			[ $((up - t / 100)) -le 1 ] && return 0
	done
	return 1
}
# such a madpmd may not have made its run directory yet (it does before
# EAL starts): wait for that, at most 2 s. One started a moment ago may
# not even be madpmd yet (`setpriv ... madpmd &` still in its exec, on a
# busy machine): looked for during 0.5 s
wait_made() {
	wait_until 5 young_madpmd || return 0
	wait_until 20 either_has_fabric "$1" "$2"
}
if [ -n "$run_dir" ]; then
	has_fabric "$run_dir" || wait_made "$run_dir" "$run_dir"
else
	case ${XDG_RUNTIME_DIR:-} in
	/*) own=$XDG_RUNTIME_DIR/madpmd ;;
	*) own=/tmp/madpmd-$(id -u) ;;
	esac
	run_dir=$own
	either_has_fabric "$own" /run/madpmd || wait_made "$own" /run/madpmd
	if ! has_fabric "$own" && has_fabric /run/madpmd; then
		run_dir=/run/madpmd
	elif ! has_fabric "$own"; then
		looked=" or /run/madpmd"
	fi
fi
# a daemon still starting (madpmd.pid names a live process, "ready" is not
# there yet): wait for it, at most $MADPMD_WAIT seconds (default 10)
# (one that died meanwhile is no fabric: said below)
ready_or_gone() {
	[ -e "$run_dir/ready" ] || [ ! -d "/proc/$dpid" ]
}
if [ ! -e "$run_dir/ready" ] && [ -r "$run_dir/madpmd.pid" ]; then
	read -r dpid < "$run_dir/madpmd.pid" 2>/dev/null || dpid=
	[ -z "$dpid" ] || wait_until $((wait * 10)) ready_or_gone ||
		die "the daemon in $run_dir (pid $dpid) is not ready after $wait s (MADPMD_WAIT sets how long to wait)"
fi
nodes=$run_dir/nodes
if [ ! -r "$nodes" ] || [ ! -s "$nodes" ]; then
	die "no fabric running: no node listed in $nodes$looked (start madpmd, or give --run-dir)"
fi
# the nodes file: one "name guid ports ..." line per node
first= known= found=
while read -r name guid ports rest; do
	[ -n "$ports" ] || continue
	[ -n "$first" ] || first=$name
	known=${known:+$known }$name
	[ "$name" = "$node" ] && found=1
done < "$nodes"
if [ -z "$node" ]; then
	node=$first
	[ -n "$node" ] || die "no fabric running: no node listed in $nodes (start madpmd, or give --run-dir)"
elif [ -z "$found" ]; then
	# a CA past --client-ports is in the ports table, served by the
	# daemon alone
	if [ -r "$run_dir/ports" ] &&
	   awk -v n="$node" '$3 == "served" { p = $2; sub(/:[0-9]+$/, "", p)
					       if (p == n) f = 1 }
			     END { exit !f }' "$run_dir/ports"; then
		die "node \"$node\" is served by madpmd alone (SMA and PMA, no clients): clients open the topology's first --client-ports CA ports ($known)"
	fi
	# a switch whose port 0 serves no clients
	if [ -r "$run_dir/ports" ] &&
	   awk -v n="$node" '$3 == "switch" { p = $2; sub(/:[0-9]+$/, "", p)
					       if (p == n) f = 1 }
			     END { exit !f }' "$run_dir/ports"; then
		die "switch \"$node\" serves no clients on its port 0: only the SM port's switch does, and those madpmd's --switch-clients names ($known)"
	fi
	die "no node \"$node\" in $nodes (known: $known)"
fi
sock=$run_dir/$node/umad
if [ ! -S "$sock" ]; then
	die "no fabric running: nothing listens at $sock (start madpmd, or give --run-dir)"
fi
if [ ! -w "$sock" ]; then
	# the socket's mode is madpmd's --umad-mode, its group the daemon's
	perm=$(stat -c '%a %U %G' -- "$sock" 2>/dev/null) || perm=
	mode=${perm%% *} owner=${perm#* } group=${perm##* }
	owner=${owner%% *}
	mine=" $(id -Gn 2>/dev/null) "
	case $mode in
	?6?)
		case $mine in
		*" $group "*)
			die "you may not open $sock (mode 0$mode, owner $owner, group $group; run as $owner, e.g. with sudo)" ;;
		*)
			die "you may not open $sock (mode 0$mode, owner $owner, group $group): join the group $group (e.g. sudo usermod -aG $group \$USER, then log in again), or restart madpmd with --umad-mode 0666" ;;
		esac ;;
	*)
		case $mine in
		*" $group "*)
			die "you may not open $sock (mode 0${mode:-600}, owner $owner): restart madpmd with --umad-mode 0660 (its group $group, which you are in) or 0666, or run as $owner (e.g. with sudo)" ;;
		*)
			# joining root's group is no fix
			[ "$group" = root ] &&
				die "you may not open $sock (mode 0${mode:-600}, owner $owner): restart madpmd with --umad-mode 0666 (any user), or run as $owner (e.g. with sudo)"
			die "you may not open $sock (mode 0${mode:-600}, owner $owner): restart madpmd with --umad-mode 0666 (any user) or 0660 (then join its group $group), or run as $owner (e.g. with sudo)" ;;
		esac ;;
	esac
fi

# --wait-active: every port of the node Active in the daemon's ports
# table ("idx node:port ethdev link state ..."), the states kept for the
# message ("hca1:1 Init")
node_active() {
	states=$(awk -v n="$node" '{ p = $2; sub(/:[0-9]+$/, "", p) }
		 p == n && NR > 1 { printf "%s%s %s", s, $2, $5; s = ", "
				    t++; a += $5 == "Active" }
		 END { exit !(t && a == t) }' "$run_dir/ports" 2>/dev/null)
}
if [ -n "$wait_active" ]; then
	wait_until $((wait * 10)) node_active ||
		die "--wait-active: not Active after $wait s ($states): no SM has brought the fabric up (run madpmd-run opensm); MADPMD_WAIT sets how long to wait"
	[ $# -gt 0 ] || exit 0
fi

if [ -n "$print_addr" ]; then
	[ -x "$libdir/madpmd-addr" ] ||
		die "no madpmd-addr in $libdir (build or install madpmd first)"
	MADPMD_RUN_DIR=$run_dir exec "$libdir/madpmd-addr" "$node"
fi

# OpenSM logs to /var/log/opensm.log and caches in /var/cache/opensm,
# which a normal user cannot write: unless the command names a log file or
# a configuration (which may), the node's go to the run directory
case $1 in
opensm|*/opensm)
	osm_log=yes
	for a in "$@"; do
		case $a in
		-f|--log_file|--log_file=*|-F|--config|--config=*) osm_log= ;;
		esac
	done
	# where opensm would write: the log if it is there, else /var/log
	if [ -e /var/log/opensm.log ]; then
		[ -w /var/log/opensm.log ] && osm_log=
	else
		[ -w /var/log ] && osm_log=
	fi
	if [ -n "$osm_log" ]; then
		osm_dir=$run_dir/opensm-$node
		mkdir -p -- "$osm_dir" ||
			die "cannot make $osm_dir for opensm's log"
		[ -n "${OSM_CACHE_DIR:-}" ] || [ -w /var/cache/opensm ] || {
			OSM_CACHE_DIR=$osm_dir
			export OSM_CACHE_DIR
		}
		echo "$prog: opensm logs to $osm_dir/opensm.log (/var/log is not yours to write; -f FILE names another)" >&2
		cmd=$1
		shift
		set -- "$cmd" -f "$osm_dir/opensm.log" "$@"
	fi ;;
esac

# the build tree keeps the drop-in libibverbs.so.1 and librdmacm.so.1
# beside, in lib/verbs and lib/rdmacm; installed, all three are in the one
# private directory
verbsdir= rdmacmdir=
if [ -e "$libdir/../verbs/libibverbs.so.1" ]; then
	verbsdir=$libdir/../verbs:
fi
if [ -e "$libdir/../rdmacm/librdmacm.so.1" ]; then
	rdmacmdir=$libdir/../rdmacm:
fi
LD_LIBRARY_PATH=$rdmacmdir$verbsdir$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
MADPMD_NODE=$node
MADPMD_RUN_DIR=$run_dir
MADPMD_DEVICE=$device
export LD_LIBRARY_PATH MADPMD_NODE MADPMD_RUN_DIR MADPMD_DEVICE
# tools that read sysfs themselves (ibstatus) see the node's HCA in
# /sys/class/infiniband: madpmd-sysfs makes it in a private mount
# namespace, keeps its ports in step and execs the command (same PID)
# --net: madpmd-sysfs enters the node's network namespace first
if [ -n "$net" ]; then
	[ -x "$libdir/madpmd-sysfs" ] ||
		die "--net: no madpmd-sysfs in $libdir (build or install madpmd first)"
	MADPMD_NET=1
	export MADPMD_NET
	exec "$libdir/madpmd-sysfs" "$@"
fi
if [ "${MADPMD_SYSFS:-1}" != 0 ] && [ -x "$libdir/madpmd-sysfs" ]; then
	exec "$libdir/madpmd-sysfs" "$@"
fi
exec "$@"
