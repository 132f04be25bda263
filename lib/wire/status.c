/* SPDX-License-Identifier: BSD-3-Clause */
#include "madpmd/wire.h"

const char *
mpd_strerror(int status)
{
	switch (status) {
	case MPD_OK:
		return "success";
	case MPD_ETRUNC:
		return "input is shorter than the header or attribute needs";
	case MPD_ELEN:
		return "a length field disagrees with the input length";
	case MPD_EVERSION:
		return "unsupported protocol version";
	case MPD_ENEXTHDR:
		return "unsupported next header, ethertype or UDP port";
	case MPD_EICRC:
		return "invariant CRC (ICRC) mismatch";
	case MPD_EVCRC:
		return "variant CRC (VCRC) mismatch";
	case MPD_ERANGE:
		return "a value does not fit its field";
	case MPD_ENOSPC:
		return "output buffer too small";
	case MPD_EINVAL:
		return "inconsistent fields or invalid argument";
	case MPD_ECSUM:
		return "IPv4 header checksum mismatch";
	case MPD_EOPCODE:
		return "BTH opcode is not a UD SEND (the codec carries MADs on UD)";
	default:
		return "unknown status";
	}
}
