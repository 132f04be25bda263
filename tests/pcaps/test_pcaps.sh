#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The sample captures of pcaps/ (made by scripts/make-pcaps), read by stock
# tshark as an unprivileged user with the built madpmd plugin: every sample
# decodes with no malformed packet and no error from the plugin, and what
# each one is there to show is asserted by value, with the plugin's fields
# and with the stock InfiniBand dissector's (--disable-protocol madpmd).
# Only reads the files: no fabric is started.
# Usage: test_pcaps.sh [PCAPS_DIR] [PLUGIN]  (defaults: the source tree's
# pcaps/, $MADPMD_PLUGIN); $MADPMD_SAN_PRELOAD: sanitizer runtimes for a
# sanitized plugin.
set -u
here=$(cd "$(dirname "$0")" && pwd)
pcaps=${1:-$here/../../pcaps}
plugin=${2:-${MADPMD_PLUGIN:-}}
n=0
fail=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}
# is WHAT GOT WANT
is() {
	[ "$2" = "$3" ]
	ok $? "$1: $2${4:+ ($4)}"
	[ "$2" = "$3" ] || echo "#   wanted: $3"
}

if [ -z "$plugin" ] || [ ! -r "$plugin" ]; then
	echo "1..0 # SKIP no plugin (give its path, or run through meson test)"
	exit 0
fi
command -v tshark > /dev/null || { echo "1..0 # SKIP tshark is not installed"; exit 0; }

tmp=$(mktemp -d /tmp/madpmd-pcaps-test.XXXXXX)
# OpenSM keeps its cache and dumps in the test's directory, not /var
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir -p "$tmp/plugins/4.0/epan" "$tmp/home" "$tmp/no-extcap" "$tmp/pcaps"
cp "$plugin" "$tmp/plugins/4.0/epan/madpmd.so"
chmod 644 "$tmp/plugins/4.0/epan/madpmd.so"
chmod -R a+rX "$tmp/plugins" "$tmp/no-extcap"
chmod 777 "$tmp/home"
# tshark runs as nobody: the samples are copied where it may read them
cp "$pcaps"/*.pcapng "$tmp/pcaps/" 2>/dev/null
chmod -R a+rX "$tmp/pcaps"

env_=(env HOME="$tmp/home" WIRESHARK_PLUGIN_DIR="$tmp/plugins"
      WIRESHARK_EXTCAP_DIR="$tmp/no-extcap")
if [ -n "${MADPMD_SAN_PRELOAD:-}" ]; then
	# a sanitized plugin needs its runtimes first in (uninstrumented) tshark
	env_+=(LD_PRELOAD="$MADPMD_SAN_PRELOAD" ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
	       UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1)
	echo "# sanitized plugin: tshark runs with LD_PRELOAD=$MADPMD_SAN_PRELOAD"
fi
as_user=()
# tshark as root ignores WIRESHARK_PLUGIN_DIR
[ "$(id -u)" = 0 ] && as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
ts() { "${as_user[@]}" "${env_[@]}" tshark "$@" 2> "$tmp/tshark.err"; }

ts -G plugins | grep -q "madpmd.so"
ok $? "tshark (as $([ "$(id -u)" = 0 ] && echo nobody || id -un)) loads the built plugin from WIRESHARK_PLUGIN_DIR"

# One pass per sample and dissector set: fields in columns, read by name.
PF=(frame.number frame.interface_name frame.p2p_dir _ws.malformed _ws.expert.severity
    madpmd.rec.kind madpmd.wc.opcode madpmd.wc.status madpmd.wc.qpnum
    madpmd.wc.psn madpmd.wc.frame madpmd.qp.newstate madpmd.qp.cause madpmd.umad.direction madpmd.umad.status madpmd.umad.length
    madpmd.umad.timeout madpmd.umad.retries madpmd.umad.pid madpmd.mad.method
    madpmd.mad.attributeid madpmd.mad.tid madpmd.port.newstate madpmd.port.newlid
    madpmd.port.changes madpmd.port.issm madpmd.smp.portinfo.portstate
    madpmd.sa.pathrecord.slid madpmd.sa.pathrecord.dlid madpmd.sa.noderecord.lid
    madpmd.sa.mcmemberrecord.mgid madpmd.perf.portcounters.portselect
    madpmd.perf.portcounters.counterselect madpmd.perf.portcounters.portrcvpkts
    madpmd.perf.portcounters.portxmitpkts madpmd.perf.portcountersext.portselect
    madpmd.perf.portcountersext.portrcvpkts madpmd.icrc.status madpmd.response_to
    madpmd.time udp.dstport frame.time_delta madpmd.response_in
    madpmd.cm.conn madpmd.cm.state madpmd.cm.repeat_of madpmd.cm.sidr_req_in
    madpmd.cmevent.event madpmd.cmevent.status madpmd.cmevent.frame _ws.col.Info)
SF=(frame.number frame.interface_name frame.p2p_dir _ws.malformed _ws.expert.severity
    frame.protocols infiniband.lrh.dlid infiniband.mad.method infiniband.mad.attributeid
    infiniband.mad.transactionid infiniband.rmpp.rmpptype infiniband.rmpp.rmppflags
    infiniband.rmpp.segmentnumber infiniband.rmpp.payloadlength infiniband.portinfo.portstate
    infiniband.portcounters.portselect infiniband.portcounters.counterselect
    infiniband.portcounters.portrcvpkts udp.dstport infiniband.bth.opcode
    infiniband.bth.destqp infiniband.mad.mgmtclass)
dump() {	# dump FILE OUT plugin|stock
	local f=() x
	if [ "$3" = plugin ]; then
		for x in "${PF[@]}"; do f+=(-e "$x"); done
		ts -n -r "$tmp/pcaps/$1" -T fields -E header=y -E occurrence=a "${f[@]}" > "$2"
	else
		for x in "${SF[@]}"; do f+=(-e "$x"); done
		ts -n -r "$tmp/pcaps/$1" --disable-protocol madpmd -T fields -E header=y \
			-E occurrence=a "${f[@]}" > "$2"
	fi
}
# q FILE CONDITION PRINT: awk over a dump; v("field") is a column, num()
# makes 0x.. and decimal numbers comparable
q() {
	awk -F'\t' -v OFS=' ' '
	function num(s,   i, r, d) {
		if (s !~ /^0x/) return s + 0
		r = 0
		for (i = 3; i <= length(s); i++) {
			d = index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
			r = r * 16 + d
		}
		return r
	}
	function v(name) { return $(c[name]) }
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	'"$2"' { '"$3"' }' "$1"
}

samples=(opensm-sweep saquery-rmpp perfquery timeout lossy-rmpp roce-v2 verbs-rc
	 cm-rping cm-udaddy-sidr cm-lost-rtu)
for s in "${samples[@]}"; do
	[ -f "$tmp/pcaps/$s.pcapng" ]
	ok $? "pcaps/$s.pcapng is there"
done

# -- every sample -------------------------------------------------------
for path in "$tmp"/pcaps/*.pcapng; do
	fn=$(basename "$path")
	dump "$fn" "$tmp/$fn.p" plugin
	rc=$?
	dump "$fn" "$tmp/$fn.s" stock
	rc2=$?
	frames=$(q "$tmp/$fn.p" 1 'print' | wc -l)
	[ $rc = 0 ] && [ $rc2 = 0 ] && [ "$frames" -gt 0 ] &&
		[ "$frames" = "$(q "$tmp/$fn.s" 1 'print' | wc -l)" ]
	ok $? "$fn: tshark reads all $frames frames, with the plugin and without"
	[ $rc = 0 ] || sed 's/^/# tshark: /' "$tmp/tshark.err" | head -5
	mal=$(q "$tmp/$fn.p" 'v("_ws.malformed") != ""' 'print' | wc -l)
	smal=$(q "$tmp/$fn.s" 'v("_ws.malformed") != ""' 'print' | wc -l)
	# errors: severity PI_ERROR (0x00800000) and up
	err=$(q "$tmp/$fn.p" 'v("_ws.expert.severity") != ""' 'n = split(v("_ws.expert.severity"), a, ","); for (i = 1; i <= n; i++) if (a[i] + 0 >= 8388608) { print v("frame.number"); break }' | wc -l)
	[ "$mal" = 0 ] && [ "$smal" = 0 ] && [ "$err" = 0 ]
	ok $? "$fn: $mal malformed with the plugin, $smal with the stock dissector only, $err expert errors"
	back=$(q "$tmp/$fn.p" 'v("frame.time_delta") ~ /^-/' 'print v("frame.number")' | head -3 | tr '\n' ' ')
	[ -z "$back" ]
	ok $? "$fn: frames in time order (none before its predecessor${back:+: $back})"
	mine=$(q "$tmp/$fn.p" 'v("madpmd.rec.kind") != "" || v("madpmd.mad.method") != ""' 'print' | wc -l)
	[ "$mine" -gt 0 ]
	ok $? "$fn: the plugin decodes $mine frames (records or RoCE MADs)"
done

P=$tmp/opensm-sweep.pcapng.p
S=$tmp/opensm-sweep.pcapng.s
if [ -f "$P" ]; then
	# OpenSM on hca1 sweeps hca1 and hca2: its umad sends and receives
	snd=$(q "$P" 'v("madpmd.rec.kind") == 1 && v("madpmd.umad.direction") == 0' 'print' | wc -l)
	rcv=$(q "$P" 'v("madpmd.rec.kind") == 1 && v("madpmd.umad.direction") == 1 && v("madpmd.umad.status") == 0' 'print' | wc -l)
	pids=$(q "$P" 'v("madpmd.rec.kind") == 1' 'print v("frame.interface_name"), v("madpmd.umad.pid")' | sort -u | wc -l)
	[ "$snd" -gt 10 ] && [ "$snd" = "$rcv" ] && [ "$pids" = 1 ]
	ok $? "opensm-sweep: OpenSM's umad sends ($snd) each answered by a receive ($rcv), one process on hca1/1"
	sets=$(q "$P" 'v("madpmd.umad.direction") == 0 && num(v("madpmd.mad.method")) == 2 && num(v("madpmd.mad.attributeid")) == 21' 'print' | wc -l)
	wsets=$(q "$S" 'v("frame.interface_name") == "hca1/1" && v("frame.p2p_dir") == 0 && num(v("infiniband.mad.method")) == 2 && num(v("infiniband.mad.attributeid")) == 21' 'print' | wc -l)
	[ "$sets" -gt 0 ] && [ "$wsets" -gt 0 ]
	ok $? "opensm-sweep: SubnSet(PortInfo): $sets umad sends (plugin), $wsets on hca1's wire (stock dissector)"
	is "opensm-sweep: port events to Active (interface, new LID)" \
		"$(q "$P" 'v("madpmd.rec.kind") == 4 && v("madpmd.port.newstate") == 4 && num(v("madpmd.port.changes")) % 2 == 1' 'print v("frame.interface_name"), v("madpmd.port.newlid")' | sort | tr '\n' ' ')" \
		"hca1/1 1 hca2/1 2 "
	is "opensm-sweep: IsSM set on hca1 when OpenSM starts, cleared when it exits (first/last port event's changes, IsSM)" \
		"$(q "$P" 'v("madpmd.rec.kind") == 4 && v("frame.interface_name") == "hca1/1"' 'print num(v("madpmd.port.changes")), v("madpmd.port.issm")' | sed -n '1p;$p' | tr '\n' ' ')" \
		"8 1 16 0 "
	is "opensm-sweep: the last PortInfo OpenSM received (umad record) shows PortState" \
		"$(q "$P" 'v("madpmd.umad.direction") == 1 && v("madpmd.smp.portinfo.portstate") != ""' 'print v("madpmd.smp.portinfo.portstate")' | tail -1)" 4 "4: Active"
	is "opensm-sweep: the last PortInfo on the wire (stock infiniband.portinfo.portstate)" \
		"$(q "$S" 'v("infiniband.portinfo.portstate") != ""' 'print num(v("infiniband.portinfo.portstate"))' | tail -1)" 4
fi

P=$tmp/saquery-rmpp.pcapng.p
S=$tmp/saquery-rmpp.pcapng.s
if [ -f "$P" ]; then
	# what saquery on hca2 received: whole (reassembled) GetTableResp
	resp() { q "$P" 'v("frame.interface_name") == "hca2/1" && v("madpmd.umad.direction") == 1 && num(v("madpmd.mad.method")) == 146 && num(v("madpmd.mad.attributeid")) == '"$1" "$2"; }
	is "saquery-rmpp: PathRecords in saquery's GetTableResp (SLID>DLID)" \
		"$(resp 53 'n = split(v("madpmd.sa.pathrecord.slid"), s, ","); split(v("madpmd.sa.pathrecord.dlid"), d, ","); for (i = 1; i <= n; i++) print s[i] ">" d[i]' | sort | tr '\n' ' ')" \
		"1>1 1>2 2>1 2>2 " "4: 2 nodes, every source/destination pair"
	is "saquery-rmpp: its umad length (64 + 56 + 4 x 64)" "$(resp 53 'print v("madpmd.umad.length")')" 376
	is "saquery-rmpp: NodeRecords in saquery's GetTableResp (LIDs)" \
		"$(resp 17 'print v("madpmd.sa.noderecord.lid")')" "1,2"
	is "saquery-rmpp: MCMemberRecord (saquery -g): the IPoIB broadcast group" \
		"$(resp 56 'print v("madpmd.sa.mcmemberrecord.mgid")')" "ff12:401b:ffff::ffff:ffff"
	# the same answer on the wire: RMPP DATA segments from the SA on hca1
	tid=$(q "$S" 'v("frame.interface_name") == "hca1/1" && v("frame.p2p_dir") == 0 && num(v("infiniband.mad.attributeid")) == 53 && num(v("infiniband.rmpp.rmpptype")) == 1' 'print v("infiniband.mad.transactionid")' | head -1)
	is "saquery-rmpp: PathRecord DATA segments on hca1's wire (segment:flags:PayloadLength)" \
		"$(q "$S" 'v("frame.interface_name") == "hca1/1" && v("frame.p2p_dir") == 0 && v("infiniband.mad.transactionid") == "'"$tid"'" && num(v("infiniband.rmpp.rmpptype")) == 1' 'printf "%d:%d:%d ", num(v("infiniband.rmpp.segmentnumber")), num(v("infiniband.rmpp.rmppflags")), num(v("infiniband.rmpp.payloadlength"))')" \
		"1:3:296 2:5:76 " "first: Active|First, total 4 x 64 + 2 x 20; last: Active|Last"
	is "saquery-rmpp: hca2's ACKs of them (stock: RMPP type ACK, segment)" \
		"$(q "$S" 'v("frame.interface_name") == "hca2/1" && v("frame.p2p_dir") == 0 && v("infiniband.mad.transactionid") == "'"$tid"'" && num(v("infiniband.rmpp.rmpptype")) == 2' 'printf "%d ", num(v("infiniband.rmpp.segmentnumber"))')" \
		"1 2 "
	is "saquery-rmpp: NodeRecord DATA segments on the wire" \
		"$(q "$S" 'v("frame.interface_name") == "hca1/1" && v("frame.p2p_dir") == 0 && num(v("infiniband.mad.attributeid")) == 17 && num(v("infiniband.rmpp.rmpptype")) == 1' 'printf "%d ", num(v("infiniband.rmpp.segmentnumber"))')" \
		"1 2 "
fi

P=$tmp/perfquery.pcapng.p
S=$tmp/perfquery.pcapng.s
if [ -f "$P" ]; then
	resp() { q "$P" 'v("madpmd.umad.direction") == 1 && num(v("madpmd.mad.method")) == 129 && num(v("madpmd.mad.attributeid")) == '"$1" "$2"; }
	is "perfquery: GetResp(PortCounters) PortSelect, per answer" \
		"$(resp 18 'printf "%s ", v("madpmd.perf.portcounters.portselect")')" "1 1 1 "
	c=$(resp 18 'print v("madpmd.perf.portcounters.portrcvpkts")' | head -1)
	[ "${c:-0}" -gt 0 ]
	ok $? "perfquery: the first answer counts PortRcvPkts ($c)"
	is "perfquery -x: GetResp(PortCountersExtended) PortSelect" \
		"$(resp 29 'print v("madpmd.perf.portcountersext.portselect")')" 1
	c=$(resp 29 'print v("madpmd.perf.portcountersext.portrcvpkts")')
	[ "${c:-0}" -gt 0 ]
	ok $? "perfquery -x: PortRcvPkts (64-bit) $c"
	is "perfquery -r: Set(PortCounters) CounterSelect" \
		"$(q "$P" 'v("madpmd.umad.direction") == 0 && num(v("madpmd.mad.method")) == 2 && num(v("madpmd.mad.attributeid")) == 18' 'print num(v("madpmd.perf.portcounters.counterselect"))')" \
		65535 "every counter"
	is "perfquery -r: the Set's answer (PortRcvPkts, PortXmitPkts)" \
		"$(resp 18 'print v("madpmd.perf.portcounters.portrcvpkts"), v("madpmd.perf.portcounters.portxmitpkts")' | tail -1)" "0 0" "cleared"
	is "perfquery: GetResp(PortCounters) from hca2's PMA on the wire (stock infiniband.portcounters.portselect)" \
		"$(q "$S" 'v("frame.interface_name") == "hca2/1" && v("frame.p2p_dir") == 0 && num(v("infiniband.mad.method")) == 129 && num(v("infiniband.mad.attributeid")) == 18' 'printf "%d ", num(v("infiniband.portcounters.portselect"))')" \
		"1 1 1 "
fi

P=$tmp/timeout.pcapng.p
S=$tmp/timeout.pcapng.s
if [ -f "$P" ]; then
	t=$(q "$P" 'v("madpmd.rec.kind") == 1 && v("madpmd.umad.direction") == 1 && v("madpmd.umad.status") == 110' 'print v("madpmd.mad.tid"), v("madpmd.umad.length"), v("madpmd.umad.timeout"), v("madpmd.umad.retries"), v("frame.interface_name")')
	tid=${t%% *}
	is "timeout: the umad receive with status 110 (TID length timeout_ms retries interface)" \
		"$(echo "$t" | cut -d' ' -f2-)" "24 2000 3 hca1/1" "ETIMEDOUT, the request's MAD header"
	is "timeout: that TID on the wire (stock: interface:direction:method, per frame)" \
		"$(q "$S" 'v("infiniband.mad.transactionid") == "'"$tid"'"' 'printf "%s:%s:%d ", v("frame.interface_name"), v("frame.p2p_dir"), num(v("infiniband.mad.method"))')" \
		"hca1/1:0:1 hca2/1:1:1 hca1/1:0:1 hca2/1:1:1 hca1/1:0:1 hca2/1:1:1 hca1/1:0:1 hca2/1:1:1 " \
		"the Get sent 4 times (1 + 3 retries), no answer"
	is "timeout: smpquery's SubnGet(NodeInfo) to LID 77 (stock: DLID, method) and answers to it" \
		"$(q "$S" 'num(v("infiniband.mad.attributeid")) == 17 && v("frame.p2p_dir") == 0' 'printf "%s:%d ", v("infiniband.lrh.dlid"), num(v("infiniband.mad.method"))')" \
		"77:1 "
fi

P=$tmp/lossy-rmpp.pcapng.p
S=$tmp/lossy-rmpp.pcapng.s
if [ -f "$P" ]; then
	dup=$(q "$S" 'v("frame.interface_name") == "hca1/1" && v("frame.p2p_dir") == 0 && num(v("infiniband.rmpp.rmpptype")) == 1' 'print v("infiniband.mad.transactionid"), num(v("infiniband.rmpp.segmentnumber"))' | sort | uniq -d | head -1)
	[ -n "$dup" ]
	ok $? "lossy-rmpp: a DATA segment hca1's SA sent twice (TID segment): ${dup:-none}"
	tid=${dup%% *}
	is "lossy-rmpp: segments of that TID hca2 received" \
		"$(q "$S" 'v("frame.interface_name") == "hca2/1" && v("frame.p2p_dir") == 1 && v("infiniband.mad.transactionid") == "'"$tid"'" && num(v("infiniband.rmpp.rmpptype")) == 1' 'print num(v("infiniband.rmpp.segmentnumber"))' | sort -u | tr '\n' ' ')" \
		"1 2 "
	is "lossy-rmpp: saquery's umad receive of that TID (status length PathRecords)" \
		"$(q "$P" 'v("frame.interface_name") == "hca2/1" && v("madpmd.umad.direction") == 1 && v("madpmd.mad.tid") == "'"$tid"'"' 'print v("madpmd.umad.status"), v("madpmd.umad.length"), split(v("madpmd.sa.pathrecord.dlid"), a, ",")')" \
		"0 376 4" "whole despite the lost segment"
fi

P=$tmp/verbs-rc.pcapng.p
S=$tmp/verbs-rc.pcapng.s
if [ -f "$P" ]; then
	# RC SEND First/Last, WRITE Only, READ Request/Response First/Last,
	# ACK, Atomic ACK, FetchAdd, as the stock dissector names them
	is "verbs-rc: the RC opcodes on the wire (stock dissector)" \
		"$(q "$S" 'v("infiniband.bth.opcode") != ""' 'print num(v("infiniband.bth.opcode"))' | sort -n -u | tr '\n' ' ')" \
		"0 2 10 12 13 15 17 18 20 "
	is "verbs-rc: CQ completions as records, all SUCCESS, by opcode (SEND, RDMA_WRITE, RDMA_READ, FETCH_ADD, RECV)" \
		"$(q "$P" 'num(v("madpmd.rec.kind")) == 2 && v("madpmd.wc.status") == 0' 'print num(v("madpmd.wc.opcode"))' | sort -n -u | tr '\n' ' ')" \
		"0 1 2 4 128 "
	wpsn=$(q "$P" 'num(v("madpmd.rec.kind")) == 2 && v("madpmd.wc.psn") != ""' 'print' | wc -l)
	wlink=$(q "$P" 'num(v("madpmd.rec.kind")) == 2 && v("madpmd.wc.psn") != "" && v("madpmd.wc.frame") != ""' 'print' | wc -l)
	[ "$wpsn" -gt 0 ] && [ "$wpsn" = "$wlink" ]
	ok $? "verbs-rc: completions with a PSN linked to the frame that completed it (madpmd.wc.frame): $wlink of $wpsn"
	is "verbs-rc: QP state changes as records: to INIT, RTR, RTS by modify, to RESET by destroy (count by new state)" \
		"$(q "$P" 'num(v("madpmd.rec.kind")) == 5' 'print v("madpmd.qp.newstate")' | sort | uniq -c | awk '{printf "%s:%s ", $2, $1}')" \
		"0:8 1:8 2:8 3:8 "
	is "verbs-rc: every completion's QP has packets on the wire" \
		"$(q "$P" 'num(v("madpmd.rec.kind")) == 2' 'print num(v("madpmd.wc.qpnum"))' | sort -u | while read -r qpn; do q "$S" "num(v(\"infiniband.bth.destqp\")) == $qpn" 'print' | head -1 | grep -q . || echo "$qpn"; done)" ""
fi

P=$tmp/cm-rping.pcapng.p
S=$tmp/cm-rping.pcapng.s
if [ -f "$P" ]; then
	is "cm-rping: the CM messages on the wire, as the stock dissector names them (REQ REP RTU DREQ DREP, each seen on both ports)" \
		"$(q "$S" 'num(v("infiniband.mad.mgmtclass")) == 7' 'print num(v("infiniband.mad.attributeid"))' | sort -n | uniq -c | awk '{printf "%s:%s ", $2, $1}')" \
		"16:2 19:2 20:2 21:2 22:2 "
	is "cm-rping: one connection, its state after each message (madpmd.cm.state: REQ sent, REP sent, Established, Disconnecting, Closed)" \
		"$(q "$P" 'v("madpmd.cm.conn") != ""' 'print v("madpmd.cm.conn") ":" v("madpmd.cm.state")' | uniq | tr '\n' ' ')" \
		"1:1 1:3 1:5 1:7 1:8 "
	is "cm-rping: the rdma_cm events as records (ADDR_RESOLVED, ROUTE_RESOLVED, CONNECT_REQUEST, CONNECT_RESPONSE, ESTABLISHED, DISCONNECTED), all status 0" \
		"$(q "$P" 'num(v("madpmd.rec.kind")) == 3 && v("madpmd.cmevent.status") == 0' 'print v("madpmd.cmevent.event")' | sort -n -u | tr '\n' ' ')" \
		"0 2 4 5 9 10 "
	is "cm-rping: every event a CM MAD raised points at a CM MAD (madpmd.cmevent.frame)" \
		"$(q "$P" 'num(v("madpmd.rec.kind")) == 3 && v("madpmd.cmevent.event") >= 4' 'print v("madpmd.cmevent.frame")' | while read -r f; do q "$S" "v(\"frame.number\") == \"$f\" && num(v(\"infiniband.mad.mgmtclass\")) == 7" 'print "cm"' | head -1 | grep -q cm && echo 1 || echo "0:$f"; done | sort -u | tr '\n' ' ')" "1 "
	# each copy says which end captured it, and that end's state
	is "cm-rping: Info of each CM message's copies: the capturing port, and the REQ and REP as each end has them (sent / received)" \
		"$(q "$P" 'v("madpmd.cm.conn") != "" && num(v("madpmd.cm.state")) <= 3' 'i = v("_ws.col.Info"); sub(/^.*\[conn /, "[conn ", i); print i' | tr '\n' ' ')" \
		"[conn 1: REQ sent] [hca2/1 out] [conn 1: REQ received] [hca1/1 in] [conn 1: REP sent] [hca1/1 out] [conn 1: REP received] [hca2/1 in] "
	is "cm-rping: the route is a PathRecord answer from OpenSM's SA" \
		"$(q "$S" 'num(v("infiniband.mad.mgmtclass")) == 3 && num(v("infiniband.mad.method")) == 129 && num(v("infiniband.mad.attributeid")) == 53' 'print' | wc -l | awk '{print ($1 > 0)}')" 1
fi

P=$tmp/cm-udaddy-sidr.pcapng.p
S=$tmp/cm-udaddy-sidr.pcapng.s
if [ -f "$P" ]; then
	sreq=$(q "$S" 'num(v("infiniband.mad.mgmtclass")) == 7 && num(v("infiniband.mad.attributeid")) == 23' 'print v("frame.number")' | head -1)
	srep=$(q "$S" 'num(v("infiniband.mad.mgmtclass")) == 7 && num(v("infiniband.mad.attributeid")) == 24' 'print v("frame.number")' | head -1)
	[ -n "$sreq" ] && [ -n "$srep" ]
	ok $? "cm-udaddy-sidr: a SIDR_REQ (frame $sreq) and a SIDR_REP (frame $srep) on the wire"
	is "cm-udaddy-sidr: the SIDR_REP points at its SIDR_REQ (madpmd.cm.sidr_req_in)" \
		"$(q "$P" "v(\"frame.number\") == \"$srep\"" 'print v("madpmd.cm.sidr_req_in")')" "$sreq"
	is "cm-udaddy-sidr: the passive side's CONNECT_REQUEST as a record" \
		"$(q "$P" 'num(v("madpmd.rec.kind")) == 3 && v("madpmd.cmevent.event") == 4' 'print' | wc -l)" 1
fi

P=$tmp/cm-lost-rtu.pcapng.p
S=$tmp/cm-lost-rtu.pcapng.s
if [ -f "$P" ]; then
	is "cm-lost-rtu: every RTU went out of hca2's port and none came in on hca1's" \
		"$(q "$S" 'num(v("infiniband.mad.mgmtclass")) == 7 && num(v("infiniband.mad.attributeid")) == 20' 'print v("frame.interface_name")' | sort | uniq -c | awk '{printf "%s:%s ", $2, $1}')" "hca2/1:2 " \
		"the REP and its resend each answered, each RTU lost"
	reps=$(q "$S" 'num(v("infiniband.mad.mgmtclass")) == 7 && num(v("infiniband.mad.attributeid")) == 19 && v("frame.interface_name") == "hca1/1"' 'print v("frame.number")' | tr '\n' ' ')
	is "cm-lost-rtu: the passive side's second REP is a repeat of its first (madpmd.cm.repeat_of)" \
		"$(for f in $reps; do q "$P" "v(\"frame.number\") == \"$f\"" 'print (v("madpmd.cm.repeat_of") != "")'; done | tr '\n' ' ')" "0 1 "
	is "cm-lost-rtu: the passive side's ESTABLISHED (after rdma_notify) and the active side's CONNECT_RESPONSE, once each" \
		"$(q "$P" 'num(v("madpmd.rec.kind")) == 3 && (v("madpmd.cmevent.event") == 9 || v("madpmd.cmevent.event") == 5)' 'print v("frame.interface_name") ":" v("madpmd.cmevent.event")' | sort | tr '\n' ' ')" \
		"hca1/1:9 hca2/1:5 "
fi

P=$tmp/roce-v2.pcapng.p
S=$tmp/roce-v2.pcapng.s
if [ -f "$P" ]; then
	all=$(q "$P" 1 'print' | wc -l)
	is "roce-v2: frames on UDP port 4791 with a good ICRC (madpmd.icrc.status 1), of $all" \
		"$(q "$P" 'v("udp.dstport") == 4791 && v("madpmd.icrc.status") == 1' 'print' | wc -l)" "$all"
	is "roce-v2: GetResp(PortCounters) from hca2's PMA (PortSelect:PortRcvPkts)" \
		"$(q "$P" 'v("frame.p2p_dir") == 0 && num(v("madpmd.mad.method")) == 129 && num(v("madpmd.mad.attributeid")) == 18' 'printf "%s:%s ", v("madpmd.perf.portcounters.portselect"), v("madpmd.perf.portcounters.portrcvpkts")')" \
		"1:2 1:4 1:6 1:8 " "each answer counts the requests received so far"
	is "roce-v2: answers matched to their requests by TID (madpmd.response_to)" \
		"$(q "$P" 'v("frame.p2p_dir") == 0 && v("madpmd.response_to") != ""' 'print' | wc -l)" 8
	is "roce-v2: the stock dissector reads the same (infiniband.portcounters.portrcvpkts)" \
		"$(q "$S" 'v("udp.dstport") == 4791 && num(v("infiniband.mad.method")) == 129 && num(v("infiniband.mad.attributeid")) == 18' 'printf "%s ", v("infiniband.portcounters.portrcvpkts")')" \
		"2 4 6 8 "
fi

# -- response times on the client's side (umad records: the receive's TID
# has the MAD layer's agent bits) and in the service response time tables
for s in perfquery opensm-sweep saquery-rmpp lossy-rmpp roce-v2; do
	P=$tmp/$s.pcapng.p
	[ -f "$P" ] || continue
	if [ $s = roce-v2 ]; then
		# the PMA's answers, timed from the replayed requests
		rsp=$(q "$P" 'num(v("madpmd.mad.method")) >= 128' 'print' | wc -l)
	else
		# umad: every response a client received, and every one the
		# SA (OpenSM) sent, each timed at its own end
		rsp=$(q "$P" 'v("madpmd.rec.kind") == 1 && num(v("madpmd.mad.method")) >= 128 && v("madpmd.umad.status") == 0' 'print' | wc -l)
	fi
	# what the clients' APIs saw (on IB the wire's responses are matched
	# too, by default: madpmd.decode_ib, below)
	rec='v("madpmd.rec.kind") == 1 && '
	[ $s = roce-v2 ] && rec=
	m=$(q "$P" "$rec"'v("madpmd.response_to") != ""' 'print' | wc -l)
	nz=$(q "$P" "$rec"'v("madpmd.time") != "" && v("madpmd.time") + 0 > 0' 'print' | wc -l)
	[ "$rsp" -gt 0 ] && [ "$m" = "$rsp" ] && [ "$nz" = "$rsp" ]
	ok $? "$s: $m of $rsp responses matched to their request (madpmd.response_to), $nz with a response time above 0"
	srt=$(ts -n -r "$tmp/pcaps/$s.pcapng" -o madpmd.decode_ib:FALSE -q -z madpmd,srt |
		awk '/^ *[0-9]+ / { c += $(NF - 4) } END { print c + 0 }')
	is "$s: calls in the service response time tables (-z madpmd,srt, the IB wire left to the stock dissector)" "$srt" "$rsp"
done

# madpmd.time in an I/O graph: its average and maximum per interval
if [ -f "$tmp/pcaps/roce-v2.pcapng" ]; then
	io=$(ts -n -r "$tmp/pcaps/roce-v2.pcapng" -q \
		-z 'io,stat,0,AVG(madpmd.time)madpmd.time,MAX(madpmd.time)madpmd.time' |
		awk -F'|' '/<>/ { gsub(/ /, "", $3); gsub(/ /, "", $4); print $3, $4 }')
	want=$(q "$tmp/roce-v2.pcapng.p" 'v("madpmd.time") != ""' 's += v("madpmd.time"); if (v("madpmd.time") + 0 > m) m = v("madpmd.time") + 0; k++ } END { printf "%.6f %.6f\n", s / k, m')
	# within a microsecond (io,stat prints microseconds, cut or rounded)
	echo "$io $want" | awk '{ exit !(NF == 4 && $1 > 0 && $1 - $3 < 2e-6 && $3 - $1 < 2e-6 && $2 - $4 < 2e-6 && $4 - $2 < 2e-6) }'
	ok $? "roce-v2: -z io,stat AVG/MAX(madpmd.time), the I/O graph's latency: $io (from the fields: $want)"
fi

# -- readable fields: enumerations by name, the node and port of a record
S=$tmp/saquery-rmpp.pcapng
if [ -f "$tmp/pcaps/saquery-rmpp.pcapng" ]; then
	ts -n -r "$tmp/pcaps/saquery-rmpp.pcapng" -O madpmd -Y 'madpmd.umad.direction == 1 && madpmd.sa.pathrecord.dlid' > "$tmp/sa.txt"
	is "saquery-rmpp: PathRecord MTU and Rate shown by name (saquery's 4 PathRecords)" \
		"$(grep -cE '^ +MTU: 4096 \(5\)$' "$tmp/sa.txt") $(grep -cE '^ +Rate: 40 Gb/s \(7\)$' "$tmp/sa.txt") $(grep -cE '^ +MTU Selector: Exactly \(2\)$' "$tmp/sa.txt")" "4 4 4"
	grep -q "^madpmd InfiniBand/RoCE management, UMAD, hca2 port 1 (node " "$tmp/sa.txt"
	ok $? "saquery-rmpp: the record's tree names the node and port as the interface does (hca2 port 1)"
fi
if [ -f "$tmp/pcaps/opensm-sweep.pcapng" ]; then
	ts -n -r "$tmp/pcaps/opensm-sweep.pcapng" -O madpmd -Y 'madpmd.umad.direction == 1 && madpmd.smp.portinfo.portstate == 4' > "$tmp/pi.txt"
	for l in 'Port State: Active (4)' 'Link Width Active: 4X (2)' 'Neighbor MTU: 4096 (5)' \
		 'Port Phys State: LinkUp (5)' 'Link Speed Supported: 2.5, 5.0 or 10.0 Gb/s (7)'; do
		grep -qF "$l" "$tmp/pi.txt"
		ok $? "opensm-sweep: PortInfo shows \"$l\""
	done
	grep -qE '^ +Q Key Violations: [0-9]+$' "$tmp/pi.txt"
	ok $? "opensm-sweep: PortInfo counters in decimal (Q Key Violations)"
fi

# -- madpmd.decode_ib: the plugin on native IB packets exported for the
# stock dissector, beside it; RMPP reassembled per interface and direction
# (each segment shows at its sender, outbound, and its receiver, inbound)
IF=(frame.number frame.interface_name frame.p2p_dir madpmd.rmpp.type madpmd.rmpp.flags
    madpmd.rmpp.segment madpmd.sa.records madpmd.sa.pathrecord.dlid madpmd.vcrc.status
    madpmd.icrc.status madpmd.time infiniband.rmpp.rmpptype _ws.expert.message)
ibdump() {	# ibdump FILE OUT [tshark options]
	local f=() x in=$1 out=$2
	shift 2
	for x in "${IF[@]}"; do f+=(-e "$x"); done
	ts -n -r "$tmp/pcaps/$in" "$@" -T fields -E header=y -E occurrence=a "${f[@]}" > "$out"
}
for s in saquery-rmpp lossy-rmpp; do
	[ -f "$tmp/pcaps/$s.pcapng" ] || continue
	ibdump $s.pcapng "$tmp/$s.ib0" -o madpmd.decode_ib:FALSE
	is "$s, madpmd.decode_ib off: IB packets for the stock dissector left to it (frames with madpmd.rmpp.type)" \
		"$(q "$tmp/$s.ib0" 'v("madpmd.rmpp.type") != "" && v("frame.interface_name") != "" && v("infiniband.rmpp.rmpptype") != ""' 'print' | wc -l)" 0
	# the default: decode_ib on
	ibdump $s.pcapng "$tmp/$s.ib"
	w=$(q "$tmp/$s.ib" 'v("infiniband.rmpp.rmpptype") != ""' 'print' | wc -l)
	m=$(q "$tmp/$s.ib" 'v("infiniband.rmpp.rmpptype") != "" && v("madpmd.rmpp.type") == v("infiniband.rmpp.rmpptype") && v("madpmd.vcrc.status") == 1 && v("madpmd.icrc.status") == 1' 'print' | wc -l)
	[ "$w" -gt 0 ] && [ "$m" = "$w" ]
	ok $? "$s, madpmd.decode_ib: the plugin decodes $m of the $w RMPP packets on the wire (DATA/ACK, good ICRC and VCRC)"
	# every copy of a last DATA segment: whole table, at each end
	lasts=$(q "$tmp/$s.ib" 'v("madpmd.vcrc.status") != "" && v("madpmd.rmpp.type") == 1 && num(v("madpmd.rmpp.flags")) >= 4' 'print v("frame.interface_name") ":" v("frame.p2p_dir") ":" (v("madpmd.sa.records") != "" ? v("madpmd.sa.records") : "-")' | sort | uniq -c | awk '{ printf "%s x%d ", $2, $1 }')
	inc=$(q "$tmp/$s.ib" 'v("_ws.expert.message") ~ /incomplete/' 'print' | wc -l)
	case $s in
	saquery-rmpp) want="hca1/1:0:1 x1 hca1/1:0:2 x1 hca1/1:0:4 x1 hca2/1:1:1 x1 hca2/1:1:2 x1 hca2/1:1:4 x1 " ;;
	lossy-rmpp) want="hca1/1:0:- x1 hca1/1:0:4 x1 hca2/1:1:4 x1 " ;;
	esac
	is "$s, madpmd.decode_ib: last DATA segments (interface:direction:records), reassembled at both ends" \
		"$lasts" "$want" "the sender's repeat of a whole message adds nothing"
	is "$s, madpmd.decode_ib: \"message incomplete\" expert infos" "$inc" 0
	n2=$(q "$tmp/$s.ib" 'v("madpmd.time") != "" && v("frame.interface_name") == "hca2/1" && v("frame.p2p_dir") == 1' 'print' | wc -l)
	[ "$n2" -gt 0 ]
	ok $? "$s, madpmd.decode_ib: $n2 responses timed at the requester's end of the wire (hca2/1 inbound)"
done

# pcaps/README.md's table says how many frames each file has: as capinfos
# counts them (a regenerated capture with a stale table fails here)
bad=
for f in "$pcaps"/*.pcapng; do
	b=${f##*/}
	have=$(capinfos -c -M "$f" 2>/dev/null | awk '/Number of packets/ {print $NF}')
	said=$(awk -F'|' -v b="\`$b\`" '$2 ~ b { gsub(/ /, "", $3); print $3 }' "$pcaps/README.md")
	[ -n "$have" ] && [ "$have" = "$said" ] || bad+=" $b: $said in the table, $have in the file;"
done
[ -z "$bad" ]
ok $? "pcaps/README.md gives each file's frame count as capinfos reads it${bad:+:$bad}"

echo "1..$n"
exit $fail
