#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The drop-in libibverbs.so.1 as stock ibverbs-utils see it: ibv_devices
# and ibv_devinfo -v under madpmd-run, checked against what the SMA of the
# same port answers over the wire (smpquery from the other node, after
# OpenSM brought the fabric up), on IB and on RoCE. Every node's HCA is
# madpmd0, as hosts name theirs alike (--device '' names it after the
# node), with its device nodes in /dev/infiniband as sysfs says.
# Usage: test_verbs_devinfo.sh <madpmd> <madpmd-run>
set -u
madpmd=$1
run=$2
. "$(dirname "$0")/../common/tap.sh"

tmp=$(mktemp -d /tmp/madpmd-verbs.XXXXXX)
# OpenSM keeps its cache and dumps in the test's directory, not /var
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
eal_prefixes=(madpmd-verbs-$$ madpmd-verbs-roce-$$)
export MADPMD_RUN_DIR=$tmp/run

# "name: value" of ibv_devinfo -v, first match: "port_lid: 3" -> 3
dv() { awk -F'\t+' -v k="$2:" '{sub(/^[ \t]+/, "")} $1 == k {print $2; exit}' "$1"; }
# a smpquery dump's "Field:....value" (values may hold dots: "10.0 Gbps")
sq() { sed -n "s/^$2:\.*//p" "$1" | head -1; }

# no fabric: no device, as on a machine without an HCA
mkdir -p "$tmp/none"
: > "$tmp/none/nodes"
LD_LIBRARY_PATH=$(dirname "$run")/../verbs MADPMD_RUN_DIR=$tmp/none \
	ibv_devinfo > "$tmp/none.out" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q "No IB devices found" "$tmp/none.out"
ok $? "no fabric: ibv_devinfo says \"$(head -1 "$tmp/none.out")\" (exit $rc)"

"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-verbs-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" > "$tmp/madpmd.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/hca2/umad" ] && break; sleep 0.1; done
timeout 60 "$run" opensm -o -f "$tmp/opensm.log" > /dev/null 2>&1
grep -q "SUBNET UP" "$tmp/opensm.log"
ok $? "opensm -o reaches SUBNET UP"

for node in hca1 hca2; do
	other=hca1
	[ $node = hca1 ] && other=hca2
	guid=$(awk -v n=$node '$1 == n {print $2}' "$MADPMD_RUN_DIR/nodes")
	"$run" --node $node ibv_devices > "$tmp/dev.$node" 2>&1
	got=$(awk 'NR > 2 {print $1, $2}' "$tmp/dev.$node")
	[ "$got" = "madpmd0 $(printf %016x $((guid)))" ]
	ok $? "$node: ibv_devices lists \"$got\" only: the name every node's HCA has"

	"$run" --node $node ibv_devinfo -v > "$tmp/info.$node" 2>&1
	rc=$?
	# the oracle: its SMA, asked over the wire from the other node
	"$run" --node $other smpquery -D nodeinfo 0,1 > "$tmp/ni.$node" 2>&1
	"$run" --node $other smpquery -D portinfo 0,1 > "$tmp/pi.$node" 2>&1
	lid=$(( $(sq "$tmp/pi.$node" Lid) ))
	smlid=$(( $(sq "$tmp/pi.$node" SMLid) ))
	pguid=$(sq "$tmp/ni.$node" PortGuid)
	prefix=$(sq "$tmp/pi.$node" GidPrefix)
	ng=$(sq "$tmp/ni.$node" Guid)
	echo "# $node: LID $lid, SM LID $smlid, NodeGuid $ng, PortGuid $pguid, prefix $prefix"
	[ $rc = 0 ] && [ "$(dv "$tmp/info.$node" hca_id)" = madpmd0 ] &&
		[ "$(dv "$tmp/info.$node" node_guid | tr -d :)" = "${ng#0x}" ] &&
		[ "$(dv "$tmp/info.$node" phys_port_cnt)" = 1 ]
	ok $? "$node: ibv_devinfo -v names it, its node GUID as NodeInfo says"
	[ "$(dv "$tmp/info.$node" state)" = "PORT_ACTIVE (4)" ] &&
		[ "$(dv "$tmp/info.$node" port_lid)" = "$lid" ] &&
		[ "$(dv "$tmp/info.$node" sm_lid)" = "$smlid" ] && [ "$lid" != 0 ]
	ok $? "$node: port 1 PORT_ACTIVE, LID $(dv "$tmp/info.$node" port_lid), SM LID $(dv "$tmp/info.$node" sm_lid), as PortInfo says"
	w=$(sq "$tmp/pi.$node" LinkWidthActive)
	s=$(sq "$tmp/pi.$node" LinkSpeedActive)
	m=$(sq "$tmp/pi.$node" MtuCap)
	echo "# PortInfo: width $w, speed $s, MtuCap $m; ibv_devinfo: $(dv "$tmp/info.$node" active_width), $(dv "$tmp/info.$node" active_speed), $(dv "$tmp/info.$node" max_mtu)"
	[ "$(dv "$tmp/info.$node" active_width | sed 's/ (.*//')" = "$w" ] &&
		[ "$(dv "$tmp/info.$node" active_speed | sed 's/ (.*//')" = "$s" ] &&
		[ "$(dv "$tmp/info.$node" max_mtu | sed 's/ (.*//')" = "$m" ] &&
		[ "$(dv "$tmp/info.$node" link_layer)" = InfiniBand ]
	ok $? "$node: width, speed, MTU and link layer as PortInfo says"
	gid=$(printf '%016x%016x' $((prefix)) $((pguid)) | sed 's/..../&:/g; s/:$//')
	[ "$(dv "$tmp/info.$node" 'GID[  0]' | awk -F, '{print $1}')" = "$gid" ] &&
		[ "$(dv "$tmp/info.$node" gid_tbl_len)" = 1 ] &&
		[ "$(dv "$tmp/info.$node" pkey_tbl_len)" = 32 ]
	ok $? "$node: GID[0] $gid (GidPrefix:PortGuid), one GID, 32 P_Keys"
done

# the name is the process's: --device '' names the HCA after the node,
# --device another name
"$run" --node hca2 --device '' ibv_devices > "$tmp/dev.own" 2>&1
"$run" --node hca2 --device mlx5_0 ibv_devices > "$tmp/dev.mlx" 2>&1
"$run" --node hca2 --device mlx5_0 ibstat mlx5_0 > "$tmp/stat.mlx" 2>&1
[ "$(awk 'NR > 2 {print $1}' "$tmp/dev.own")" = hca2 ] &&
	[ "$(awk 'NR > 2 {print $1}' "$tmp/dev.mlx")" = mlx5_0 ] &&
	grep -q "^CA 'mlx5_0'" "$tmp/stat.mlx"
ok $? "--device '': hca2; --device mlx5_0: ibv_devices and ibstat mlx5_0 name it so"

# /dev/infiniband as on a host, in the command's mount namespace only
had_ib=no
[ -e /dev/infiniband ] && had_ib=yes
"$run" --node hca1 sh -c 'for f in uverbs0 umad0 issm0 rdma_cm; do
		stat -c "%n %F %t:%T" /dev/infiniband/$f
		[ -r /dev/infiniband/$f ] && [ -w /dev/infiniband/$f ] && echo "$f rw"
	done
	for f in infiniband_verbs/uverbs0 infiniband_mad/umad0 infiniband_mad/issm0; do
		echo "$f $(cat /sys/class/$f/dev)"
	done
	[ -c /dev/null ] && [ -d /dev/shm ] && echo "dev kept"' > "$tmp/devnodes" 2>&1
cat "$tmp/devnodes" | sed 's/^/# /'
good=0
for f in uverbs0:infiniband_verbs/uverbs0 umad0:infiniband_mad/umad0 issm0:infiniband_mad/issm0; do
	d=${f%%:*} s=${f#*:}
	mm=$(awk -v n="/dev/infiniband/$d" '$1 == n && $2 == "character" {print $NF}' "$tmp/devnodes")
	sys=$(awk -v n="$s" '$1 == n {print $2}' "$tmp/devnodes")
	[ -n "$mm" ] && [ "$((16#${mm%%:*})):$((16#${mm##*:}))" = "$sys" ] &&
		grep -q "^$d rw" "$tmp/devnodes" && good=$((good + 1))
done
[ $good = 3 ] && grep -q "^/dev/infiniband/rdma_cm character" "$tmp/devnodes" &&
	grep -q "^dev kept" "$tmp/devnodes"
ok $? "/dev/infiniband: uverbs0, umad0, issm0, rdma_cm character devices the user may open, numbered as sysfs says ($good of 3), the rest of /dev kept"
now_ib=no
[ -e /dev/infiniband ] && now_ib=yes
[ $had_ib = $now_ib ]
ok $? "the machine's /dev untouched (/dev/infiniband there before: $had_ib, after: $now_ib)"

daemon_stop_check $daemon "$tmp/madpmd.log"
ok $? "the daemon stops cleanly"

# RoCE: link layer Ethernet, GID 1 the port's IPv4 address, RoCE v2
"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-verbs-roce-$$ \
	-- --run-dir "$tmp/roce" --link roce > "$tmp/roce.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 100); do [ -S "$tmp/roce/hca2/umad" ] && break; sleep 0.1; done
"$run" --run-dir "$tmp/roce" --node hca2 ibv_devinfo -v > "$tmp/info.roce" 2>&1
g0=$(dv "$tmp/info.roce" 'GID[  0]')
g1=$(dv "$tmp/info.roce" 'GID[  1]')
echo "# GID[0] $g0; GID[1] $g1"
[ "$(dv "$tmp/info.roce" link_layer)" = Ethernet ] &&
	[ "$(dv "$tmp/info.roce" gid_tbl_len)" = 2 ] &&
	[[ $g1 == *"RoCE v2" ]] && [[ $g1 =~ ^::ffff:[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+ ]]
ok $? "RoCE: link layer Ethernet, GID[1] ${g1%%,*} (IPv4-mapped, RoCE v2)"
# as a RoCE NIC on a 1500-byte Ethernet: IB MTU 1024 active, 4096 the most
[ "$(dv "$tmp/info.roce" active_mtu)" = "1024 (3)" ] && [ "$(dv "$tmp/info.roce" max_mtu)" = "4096 (5)" ]
ok $? "RoCE: active_mtu $(dv "$tmp/info.roce" active_mtu) (Ethernet MTU 1500), max_mtu $(dv "$tmp/info.roce" max_mtu)"
daemon_stop_check $daemon "$tmp/roce.log"
ok $? "the RoCE daemon stops cleanly"

tap_done
