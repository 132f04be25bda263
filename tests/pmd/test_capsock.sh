#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The launcher's capture socket under bad clients: garbage and unknown
# requests get one ERR line; a client that never reads is cut off once it
# is 4 MiB behind while a client that reads keeps its stream, and the
# fabric keeps moving; clients that vanish are forgotten. The clients are
# small python3 programs (the socket is plain UNIX stream).
# Usage: test_capsock.sh <madpmd> <madpmd-pktgen>
set -u
madpmd=$1
pktgen=$2
. "$(dirname "$0")/../common/tap.sh"

tmp=$(mktemp -d /tmp/madpmd-capsock.XXXXXX)
prefix=madpmd-capsock-$$
eal_prefixes=("$prefix")
sock=$tmp/run/capture

"$pktgen" --kind perf-get --link roce --count 50 -o "$tmp/req.pcapng" 2>/dev/null
# requests replayed into hca2 with the file's own gaps, for ever: some
# 50 000 frames (20 MB) a second to capture
"$madpmd" --no-huge --no-pci -m 256 -l 0,1 --file-prefix=$prefix -- \
	--run-dir "$tmp/run" --link roce \
	--replay "hca2:1=$tmp/req.pcapng,speed=timed,loop=0" > "$tmp/madpmd.log" 2>&1 &
daemon=$!
pids+=($daemon)
for i in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ]
ok $? "madpmd serves captures at $sock"

ask() {	# request line -> the first line (or the first 4 bytes, in hex) of the answer
	python3 - "$sock" "$1" <<'PY'
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(os.fsencode(sys.argv[2]))
s.settimeout(5)
data = s.recv(4096)
print(data[:4].hex() if data[:4] == b'\x0a\x0d\x0d\x0a' else data.decode('latin-1').splitlines()[0] if data else 'EOF')
PY
}
a=$(ask $'\x01\x02garbage\xff\n')
[[ $a == "ERR unknown request"* ]]
ok $? "garbage gets one ERR line: $a"
a=$(ask $'CAPTURE ports=hca9:1\n')
[[ $a == "ERR no HCA port \"hca9:1\""* ]]
ok $? "an unknown port: $a"
a=$(ask $'CAPTURE kinds=wire,telepathy\n')
[[ $a == "ERR kinds=wire,telepathy"* ]]
ok $? "an unknown kind: $a"
a=$(ask $'CAPTURE ports=hca2:1 kinds=wire\n')
[ "$a" = 0a0d0d0a ]
ok $? "a good request gets a pcapng stream (then the client vanishes)"

# a client that trickles its request, a byte every 1.5 s, holds up nobody:
# another gets its stream at once, and the trickler is told off in time
python3 - "$sock" > "$tmp/trickle.out" 2>&1 <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
try:
    for b in b"CAPTURE kinds=wire\n":
        s.send(bytes([b]))
        time.sleep(1.5)
    print("trickler: no answer")
except OSError:
    pass
s.settimeout(5)
try:
    print("trickler:", s.recv(200).decode("latin-1").splitlines()[0])
except Exception as e:
    print("trickler:", e)
PY
trickler=$!
pids+=($trickler)
sleep 0.5
read -r a ms < <(python3 - "$sock" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
t = time.monotonic()
s.connect(sys.argv[1])
s.sendall(b"CAPTURE ports=hca2:1 kinds=wire\n")
s.settimeout(5)
data = s.recv(4)
print(data.hex() or "EOF", int((time.monotonic() - t) * 1000))
PY
)
[ "$a" = 0a0d0d0a ] && [ "${ms:-9999}" -lt 1000 ]
ok $? "beside a client trickling its request, another gets its stream in ${ms:-?} ms"
wait $trickler
grep -q "trickler: ERR the request line took too long" "$tmp/trickle.out"
ok $? "and the trickler is cut off after its 2 s: $(cat "$tmp/trickle.out")"

# one client that never reads, one that reads for 6 s
python3 - "$sock" > "$tmp/stuck.out" 2>&1 <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(b'CAPTURE ports=hca2:1 kinds=wire\n')
time.sleep(8)
# what is left for us: the headers and up to the socket's buffers, then EOF
n = 0
s.settimeout(2)
try:
    while True:
        d = s.recv(1 << 20)
        if not d:
            break
        n += len(d)
except socket.timeout:
    print('no EOF')
print('stuck client read', n, 'bytes')
PY
stuck=$!
pids+=($stuck)
python3 - "$sock" > "$tmp/reader.out" 2>&1 <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(b'CAPTURE ports=hca2:1 kinds=wire\n')
end = time.time() + 6
n = 0
while time.time() < end:
    d = s.recv(1 << 20)
    if not d:
        print('EOF early')
        break
    n += len(d)
print('reader read', n, 'bytes')
PY
reader=$!
pids+=($reader)
wait $reader
wait $stuck
grep -q "capture client pid $stuck ended: the reader did not keep up" "$tmp/madpmd.log"
ok $? "the client that does not read is cut off ($(grep -h 'stuck client' "$tmp/stuck.out"))"
r=$(awk '/reader read/ {print $3}' "$tmp/reader.out")
[ "${r:-0}" -gt $((16 << 20)) ] && ! grep -q "EOF early" "$tmp/reader.out"
ok $? "the client that reads keeps its stream: ${r:-0} bytes in 6 s"
kill -0 $daemon 2>/dev/null
ok $? "the fabric is still running"
stop $daemon
grep -q "replay of .*frames sent" "$tmp/madpmd.log" &&
	! grep -qi "error\|assert\|sanitizer" "$tmp/madpmd.log"
ok $? "and stops cleanly: $(grep -o 'replay of .*' "$tmp/madpmd.log" | tail -1 | sed 's|/tmp/[^:]*|FILE|')"
tap_done
