#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# meson install script: meson 1.0 runs no ldconfig, and libmadpmd.so.0 in
# a directory of ld.so.conf (/usr/local/lib/<triplet>) is found only once
# the cache knows it. Only as root, only when LIBDIR is one of the cache's
# directories (never for a user prefix: nothing outside the prefix is
# written, /etc/ld.so.cache included); meson skips it under DESTDIR.
# Usage: install-ldconfig.sh LIBDIR
[ "$(id -u)" = 0 ] || exit 0
PATH=$PATH:/usr/sbin:/sbin
command -v ldconfig >/dev/null || exit 0
want=$(realpath "$1" 2>/dev/null) || exit 0
# ldconfig -v -N: the directories it would cache, without writing
ldconfig -v -N 2>/dev/null | sed -n 's|^\(/[^:]*\):.*|\1|p' | {
	while read -r d; do
		[ "$(realpath "$d" 2>/dev/null)" = "$want" ] && exit 0
	done
	exit 1
} || exit 0
exec ldconfig
