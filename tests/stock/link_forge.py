#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A stranger on the segment of an IB link between daemons.

Usage: link_forge.py IFACE SECONDS KIND...
Sends, every 20 ms for SECONDS, from MAC 02:00:00:00:00:66, one frame of
each KIND on IFACE (AF_PACKET):
  peer  heartbeats in the name of Switch2[5] (GUID 0x200001) that hear
        Switch1[5] (0x200000), with an interval of 65535 ms
  deaf  heartbeats of another port, hearing nobody
  ib    an SMP in the IB envelope (EtherType 0x88b5), CRCs zero
The heartbeat layout is madpmd/wire.h's mpd_link_hello, version 1.
"""
import socket
import struct
import sys
import time

ME = bytes.fromhex('020000000066')
BCAST = b'\xff' * 6


def hello(flags, interval, guid, port, hguid, hport):
    p = b'MPDL' + struct.pack('>BBHQB3xQB3x', 1, flags, interval, guid, port,
                              hguid, hport)
    return (BCAST + ME + b'\x88\xb6' + p).ljust(60, b'\0')


FRAMES = {
    'peer': hello(1, 65535, 0x200001, 5, 0x200000, 5),
    'deaf': hello(0, 65535, 0xdead0000beef, 1, 0, 0),
    'ib': BCAST + ME + b'\x88\xb5' + bytes.fromhex('f002ffff0048ffff') +
    bytes.fromhex('6400ffff0000000000000000') + bytes(8) +
    bytes.fromhex('01810101') + bytes(252) + bytes(6),
}


def main():
    iface, secs, kinds = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    frames = [FRAMES[k] for k in kinds]
    end = time.monotonic() + secs
    while time.monotonic() < end:
        for f in frames:
            s.send(f)
        time.sleep(0.02)


if __name__ == '__main__':
    main()
