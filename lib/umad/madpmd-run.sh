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
alone.

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
                  else @RUN_DIR_DEFAULT@
  --print-addr    print the IPv4 address of the node's port 1 (one dotted
                  quad, as the daemon has it) and exit
  -h, --help      this text
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
run_dir=${MADPMD_RUN_DIR:-@RUN_DIR_DEFAULT@}

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
	-h|--help)
		usage; exit 0 ;;
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
if [ -z "$print_addr" ] && [ $# -eq 0 ]; then
	echo "$prog: no command given (try --help)" >&2
	exit 2
fi
if [ -z "$print_addr" ] && ! command -v -- "$1" >/dev/null 2>&1; then
	echo "$prog: $1: command not found (install it, or give its path)" >&2
	exit 127
fi
if [ ! -e "$libdir/libibumad.so.3" ]; then
	die "no drop-in libibumad.so.3 in $libdir (build or install madpmd first)"
fi

nodes=$run_dir/nodes
if [ ! -r "$nodes" ] || [ ! -s "$nodes" ]; then
	die "no fabric running: no node listed in $nodes (start madpmd, or give --run-dir)"
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

if [ -n "$print_addr" ]; then
	[ -x "$libdir/madpmd-addr" ] ||
		die "no madpmd-addr in $libdir (build or install madpmd first)"
	MADPMD_RUN_DIR=$run_dir exec "$libdir/madpmd-addr" "$node"
fi

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
