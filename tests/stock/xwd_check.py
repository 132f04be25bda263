#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""What a screenshot shows, without an image library: reads an X window
dump (xwd -root, TrueColor, 24 or 32 bits a pixel), prints
"WIDTHxHEIGHT colors=N" for the whole screen or for the rectangle
X,Y,W,H (xwininfo's geometry of a window), N being the distinct colours
there: a blank or single-colour area has 1. --png FILE also writes that
area as a PNG (for a human to look at).

usage: xwd_check.py DUMP [X,Y,W,H] [--png FILE]
"""
import struct
import sys
import zlib


def read_xwd(path):
    with open(path, 'rb') as f:
        data = f.read()
    header_size, version = struct.unpack('>II', data[:8])
    if version != 7:
        sys.exit('%s: not an X11 window dump (version %d)' % (path, version))
    fields = struct.unpack('>25I', data[:100])
    width, height = fields[4], fields[5]
    byte_order = fields[7]
    bits_per_pixel = fields[11]
    bytes_per_line = fields[12]
    ncolors = fields[19]
    if bits_per_pixel not in (24, 32):
        sys.exit('%s: %d bits a pixel, only 24 and 32 are read'
                 % (path, bits_per_pixel))
    offset = header_size + 12 * ncolors
    return data[offset:], width, height, bytes_per_line, \
        bits_per_pixel // 8, byte_order


def main(argv):
    png = None
    if '--png' in argv:
        i = argv.index('--png')
        png = argv[i + 1]
        del argv[i:i + 2]
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    pixels, width, height, stride, bpp, msb = read_xwd(argv[1])
    x, y, w, h = 0, 0, width, height
    if len(argv) == 3:
        x, y, w, h = (int(v) for v in argv[2].split(','))
        # a window partly off the screen: what is on it
        w = max(0, min(w, width - x))
        h = max(0, min(h, height - y))
    colors = set()
    rows = []
    for row in range(y, y + h):
        start = row * stride + x * bpp
        line = pixels[start:start + w * bpp]
        for i in range(0, len(line), bpp):
            colors.add(line[i:i + bpp])
        if png:
            rgb = bytearray()
            for i in range(0, len(line), bpp):
                p = line[i:i + bpp]
                # LSBFirst: B G R (x); MSBFirst: (x) R G B
                rgb += bytes((p[2], p[1], p[0])) if not msb else p[-3:]
            rows.append(b'\0' + bytes(rgb))
    print('%dx%d colors=%d' % (w, h, len(colors)))
    if png:
        def chunk(kind, body):
            return struct.pack('>I', len(body)) + kind + body + \
                struct.pack('>I', zlib.crc32(kind + body) & 0xffffffff)
        with open(png, 'wb') as f:
            f.write(b'\x89PNG\r\n\x1a\n')
            f.write(chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)))
            f.write(chunk(b'IDAT', zlib.compress(b''.join(rows), 6)))
            f.write(chunk(b'IEND', b''))


if __name__ == '__main__':
    main(sys.argv)
