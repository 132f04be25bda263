#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The PMA (IBA 16.1) as stock perfquery sees it, checked by value. Six
# frames of madpmd-pktgen, damaged on purpose (three with a bad ICRC, two
# with a bad VCRC, one with a bad LVer), are replayed into hca2 beside its
# cable once OpenSM has brought it up; perfquery -E must then count 5
# local physical and 1 malformed packet errors, PortRcvErrors their sum.
# Usage: test_perfquery.sh <madpmd> <madpmd-run> <madpmd-pktgen>
set -u
madpmd=$1
run=$2
pktgen=$3
. "$(dirname "$0")/../common/tap.sh"

tmp=$(mktemp -d /tmp/madpmd-perfquery.XXXXXX)
# OpenSM keeps its cache and dumps in the test's directory, not /var
export OSM_CACHE_DIR=$tmp/osm-cache OSM_TMP_DIR=$tmp/osm-tmp
mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
eal_prefixes=(madpmd-perfquery-$$)
export MADPMD_RUN_DIR=$tmp/run

# field value of a perfquery dump: "PortRcvErrors:.........6" -> 6
field() { awk -F. -v f="$2:" '$1 == f {print $NF; exit}' "$1"; }

"$pktgen" -o "$tmp/good.pcapng" --link ib --kind perf-get --count 3 \
	> /dev/null 2>&1
# i: a MAD byte flipped (ICRC), v: the VCRC flipped, l: LRH LVer 1
python3 - "$tmp/good.pcapng" "$tmp/bad.pcapng" iiivvl <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
off, n, e = 0, 0, '<'
while off + 12 <= len(data):
    if data[off:off + 4] == b'\x0a\x0d\x0d\x0a':
        e = '<' if data[off + 8:off + 12] == b'\x4d\x3c\x2b\x1a' else '>'
    btype, blen = struct.unpack_from(e + 'II', data, off)
    if btype == 6:      # enhanced packet block: exported PDU TLVs, frame
        caplen = struct.unpack_from(e + 'I', data, off + 20)[0]
        end, p = off + 28 + caplen, off + 28
        while True:
            tag, tlen = struct.unpack_from('>HH', data, p)
            p += 4 + tlen
            if tag == 0:
                break
        kind = sys.argv[3][n % len(sys.argv[3])]
        if kind == 'i':
            data[p + 60] ^= 0x10
        elif kind == 'v':
            data[end - 1] ^= 0x01
        elif kind == 'l':
            data[p] ^= 0x01
        n += 1
    off += blen
open(sys.argv[2], 'wb').write(data)
PY
[ -s "$tmp/bad.pcapng" ]
ok $? "six damaged frames made with madpmd-pktgen"

"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=madpmd-perfquery-$$ \
	-- --run-dir "$MADPMD_RUN_DIR" \
	--replay "hca2:1=$tmp/bad.pcapng,after=active,cable=keep" \
	> "$tmp/madpmd.log" 2>&1 &
pids+=($!)
for i in $(seq 100); do [ -S "$MADPMD_RUN_DIR/hca2/umad" ] && break; sleep 0.1; done
timeout 60 "$run" opensm -o -f "$tmp/opensm.log" > "$tmp/opensm.out" 2>&1
grep -q "SUBNET UP" "$tmp/opensm.log"
ok $? "opensm -o reaches SUBNET UP"
"$run" --node hca2 ibstat > "$tmp/ibstat.hca2" 2>&1
lid2=$(awk '/Base lid/ {print $3}' "$tmp/ibstat.hca2")

# the replay goes in once hca2 is Active
for i in $(seq 50); do
	"$run" perfquery -E "$lid2" > "$tmp/pq.E" 2>&1
	[ "$(field "$tmp/pq.E" PortLocalPhysicalErrors)" = 5 ] && break
	sleep 0.1
done
sed 's/^/# /' "$tmp/pq.E"
[ "$(field "$tmp/pq.E" PortLocalPhysicalErrors)" = 5 ]
ok $? "perfquery -E: PortLocalPhysicalErrors 5 (3 bad ICRC, 2 bad VCRC)"
[ "$(field "$tmp/pq.E" PortMalformedPktErrors)" = 1 ]
ok $? "perfquery -E: PortMalformedPktErrors 1 (bad LVer)"
[ "$(field "$tmp/pq.E" PortBufferOverrunErrors)" = 0 ] &&
	[ "$(field "$tmp/pq.E" PortDLIDMappingErrors)" = 0 ] &&
	[ "$(field "$tmp/pq.E" PortVLMappingErrors)" = 0 ] &&
	[ "$(field "$tmp/pq.E" PortLoopingErrors)" = 0 ]
ok $? "perfquery -E: no buffer overruns; a CA relays nothing (DLID, VL, looping 0)"

"$run" perfquery "$lid2" > "$tmp/pq" 2>&1
grep -q "^# Port counters: Lid $lid2 port 0 (CapMask: 0x1300)" "$tmp/pq"
ok $? "ClassPortInfo CapMask 0x1300: AllPortSelect, PortCountersExtended, PortXmitWait"
[ "$(field "$tmp/pq" PortRcvErrors)" = 6 ]
ok $? "perfquery: PortRcvErrors $(field "$tmp/pq" PortRcvErrors), the sum of the details"

"$run" perfquery -a "$lid2" > "$tmp/pq.a" 2>&1
grep -q "^# Port counters: Lid $lid2 port 255 " "$tmp/pq.a" &&
	! grep -q "Emulating AllPortSelect" "$tmp/pq.a" &&
	[ "$(field "$tmp/pq.a" PortRcvErrors)" = 6 ]
ok $? "perfquery -a: PortSelect 0xFF answered (no emulation), PortRcvErrors 6"

"$run" perfquery -x "$lid2" > "$tmp/pq.x" 2>&1
xd=$(field "$tmp/pq.x" PortXmitData)
xp=$(field "$tmp/pq.x" PortXmitPkts)
rd=$(field "$tmp/pq.x" PortRcvData)
rp=$(field "$tmp/pq.x" PortRcvPkts)
[ "${xp:-0}" -gt 0 ] && [ "$xd" -eq $((72 * xp)) ] &&
	[ "${rp:-0}" -gt 0 ] && [ "$rd" -eq $((72 * rp)) ]
ok $? "perfquery -x: 72 words a MAD, LRH to ICRC (xmit $xd/$xp, rcv $rd/$rp)"

"$run" perfquery -D "$lid2" > "$tmp/pq.D" 2>&1
grep -q "^# PortXmitDiscardDetails counters" "$tmp/pq.D" &&
	[ "$(field "$tmp/pq.D" PortInactiveDiscards)" = 0 ] &&
	[ "$(field "$tmp/pq.D" PortNeighborMTUDiscards)" = 0 ] &&
	[ "$(field "$tmp/pq.D" PortSwLifetimeLimitDiscards)" = 0 ] &&
	[ "$(field "$tmp/pq.D" PortSwHOQLifetimeLimitDiscards)" = 0 ]
ok $? "perfquery -D: PortXmitDiscardDetails answered, four zeros"

"$run" perfquery -E -r "$lid2" > /dev/null 2>&1
"$run" perfquery -E "$lid2" > "$tmp/pq.E2" 2>&1
[ "$(field "$tmp/pq.E2" PortLocalPhysicalErrors)" = 0 ] &&
	[ "$(field "$tmp/pq.E2" PortMalformedPktErrors)" = 0 ]
ok $? "perfquery -E -r resets the details"
"$run" perfquery -r "$lid2" > /dev/null 2>&1
"$run" perfquery "$lid2" > "$tmp/pq2" 2>&1
[ "$(field "$tmp/pq2" PortRcvErrors)" = 0 ]
ok $? "perfquery -r resets PortRcvErrors"

# what the PMA does not serve is refused with a status, not left to time out
for opt in -c -X; do
	start=$(date +%s%N)
	timeout 10 "$run" perfquery -d "$opt" "$lid2" > "$tmp/pq$opt" 2>&1
	rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	[ $rc -ne 0 ] && [ $rc -ne 124 ] &&
		grep -q "error status 0xc;" "$tmp/pq$opt"
	ok $? "perfquery $opt: status 0x000C (unsupported attribute) in $ms ms"
done

tap_done
