#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check the CRCs of every native IB frame in a pcapng file.

    ib_crc.py FILE

Frames come as dpdk-dumpcap writes them (link type Ethernet, the bytes as
the port sent them) or as madpmd captures them (exported PDUs, link type
252, whose payload follows the tags). A frame is native IB when its LRH
says LVer 0 and LNH 2 (IBA local) or 3 (GRH); others are not counted. For
each, the ICRC (IBA 7.8.1: CRC-32 over the LRH with its VL ones, the GRH
with TClass, FlowLabel and HopLimit ones, the BTH with byte 4 ones, and the
rest up to the ICRC) and the VCRC (7.8.2: CRC-16, polynomial 0x100B, over
everything before it) are computed here, independently of madpmd's code.
Prints "FRAMES BAD": IB frames seen, and how many carry a wrong ICRC or
VCRC.
"""
import struct
import sys
import zlib

LINKTYPE_ETHERNET = 1
LINKTYPE_UPPER_PDU = 252


def vcrc(b):
    c = 0xFFFF
    for x in b:
        c ^= x
        for _ in range(8):
            c = (c >> 1) ^ 0xD008 if c & 1 else c >> 1
    return c ^ 0xFFFF


def icrc(f, grh):
    m = bytearray(f[:8])
    m[0] |= 0xF0
    off = 8
    if grh:
        g = bytearray(f[8:48])
        g[0] |= 0x0F
        g[1:4] = b"\xff\xff\xff"
        g[7] = 0xFF
        m += g
        off = 48
    bth = bytearray(f[off:off + 12])
    bth[4] = 0xFF
    m += bth
    return zlib.crc32(bytes(m) + f[off + 12:-6]) & 0xFFFFFFFF


def upper_pdu_payload(d):
    """The frame after the exported PDU tags (tag, length, value padded to
    4 bytes, up to tag 0)."""
    off = 0
    while off + 4 <= len(d):
        tag, n = struct.unpack_from(">HH", d, off)
        off += 4
        if tag == 0:
            return d[off:]
        off += (n + 3) & ~3
    return b""


def main():
    d = open(sys.argv[1], "rb").read()
    links = []
    frames = bad = off = 0
    while off + 12 <= len(d):
        t, n = struct.unpack_from("<II", d, off)
        if n < 12:
            break
        if t == 0x0A0D0D0A:     # a section: its interfaces start again
            links = []
        elif t == 1:
            links.append(struct.unpack_from("<H", d, off + 8)[0])
        elif t == 6:
            ifc, cap = struct.unpack_from("<I", d, off + 8)[0], \
                struct.unpack_from("<I", d, off + 20)[0]
            f = d[off + 28:off + 28 + cap]
            link = links[ifc] if ifc < len(links) else None
            if link == LINKTYPE_UPPER_PDU:
                f = upper_pdu_payload(f)
            elif link != LINKTYPE_ETHERNET:
                f = b""
            lnh = f[1] & 3 if len(f) >= 8 else 0
            if len(f) >= 8 + 12 + 6 and f[0] & 0x0F == 0 and lnh in (2, 3) \
                    and (f[4] & 7) << 8 | f[5] == (len(f) - 2) // 4:
                frames += 1
                if struct.unpack_from("<I", f, len(f) - 6)[0] != \
                        icrc(f, lnh == 3) or \
                        struct.unpack_from("<H", f, len(f) - 2)[0] != \
                        vcrc(f[:-2]):
                    bad += 1
        off += n
    print(frames, bad)


if __name__ == "__main__":
    main()
