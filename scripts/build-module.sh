#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make module: build drivers/accel/tern out of tree against the 6.12 headers
# make setup unpacked into the cache (KDIR= for others, e.g. the host's own
# /lib/modules/$(uname -r)/build), warnings as errors.  Kbuild of 6.12 writes its
# objects beside the sources, so the driver and the uAPI header are mirrored
# into build/module first (only changed files are copied: rebuilds stay
# incremental) and the work tree stays clean.
#
# usage: build-module.sh [extra kbuild arguments, e.g. C=2]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KREL=${KREL:-$(kernel_release)}
if [ -z "${KDIR:-}" ]; then
	KDIR=$(kernel_headers "$KREL")
	[ -d "$KDIR" ] || die "no kernel headers in $KDIR: run 'make setup' or set KDIR"
	point_headers_at_cache "$KREL" || die "cannot point $KDIR/Makefile at the cache"
fi
[ -d "$KDIR" ] || die "no kernel headers in $KDIR"
OUT=$TERN_TOP/build/module

# mirror SRC_DIR DST_DIR: make DST hold SRC's files, copying changed ones only.
mirror() {
	local f
	mkdir -p "$2"
	(cd "$1" && find . -type f \( -name '*.[ch]' -o -name Makefile -o -name Kconfig \
		-o -name Kbuild -o -name .kunitconfig \)) | while read -r f; do
		mkdir -p "$2/$(dirname "$f")"
		cmp -s "$1/$f" "$2/$f" || cp "$1/$f" "$2/$f"
	done
	# sources deleted from the tree go from the mirror too
	(cd "$2" && find . -type f -name '*.[ch]' ! -name '*.mod.c') | while read -r f; do
		[ -e "$1/$f" ] || rm -f "$2/$f" "$2/${f%.c}.o"
	done
}
mirror "$TERN_TOP/drivers/accel/tern" "$OUT/drivers/accel/tern"
mirror "$TERN_TOP/include/uapi" "$OUT/include/uapi"

log "building tern.ko against $KDIR"
make -C "$KDIR" M="$OUT/drivers/accel/tern" W=1 KCFLAGS="-Werror" \
	-j"$(nproc)" modules "$@"
cp "$OUT/drivers/accel/tern/tern.ko" "$TERN_TOP/build/tern.ko"
log "module ready: build/tern.ko"
