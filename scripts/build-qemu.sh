#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make qemu: overlay qemu-device/ onto the QEMU source fetched by setup.sh,
# apply the fixes to QEMU itself that qemu-device/patches/ carries, and build
# qemu-system-x86_64 with the tern device (plus, with "qtest", the tern
# qtest binaries).  The overlay copies only files whose content changed, so
# ninja rebuilds only what a change in qemu-device/ touches.
#
# usage: build-qemu.sh [qemu|qtest]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

what=${1:-qemu}
SRC=$TERN_CACHE/qemu-src/current/src
[ -d "$SRC" ] || die "no QEMU source in $TERN_CACHE: run 'make setup' first"
QVER=$(basename "$(readlink -f "$TERN_CACHE/qemu-src/current")")
BUILD=$TERN_CACHE/qemu-build/${QVER#*:}
OVL=$TERN_TOP/qemu-device

# install_if_changed SRC DST: copy keeping DST's mtime when the bytes agree.
install_if_changed() {
	mkdir -p "$(dirname "$2")"
	cmp -s "$1" "$2" || cp "$1" "$2"
}

# 1. Overlay the device sources, remembering what we put there.
manifest=$SRC/.tern-overlay
new_manifest=$(mktemp)
(cd "$OVL" && find . -type f ! -name '*~' ! -path './patches/*' | sort) | while read -r f; do
	install_if_changed "$OVL/$f" "$SRC/$f"
	echo "$f" >>"$new_manifest"
done
# The hardware headers shared with the driver: the register map unchanged,
# the uAPI (packet format) with its DRM include replaced by <linux/types.h>.
install_if_changed "$TERN_TOP/drivers/accel/tern/tern_regs.h" "$SRC/hw/misc/tern/tern_regs.h"
tmp=$(mktemp)
sed 's|#include "drm.h"|#include <linux/types.h>|' \
	"$TERN_TOP/include/uapi/drm/tern_accel.h" >"$tmp"
install_if_changed "$tmp" "$SRC/hw/misc/tern/tern_accel.h"
rm -f "$tmp"
printf '%s\n' ./hw/misc/tern/tern_regs.h ./hw/misc/tern/tern_accel.h >>"$new_manifest"
# Files we overlaid before but that are gone from qemu-device/ now.
if [ -f "$manifest" ]; then
	comm -23 <(sort "$manifest") <(sort "$new_manifest") | while read -r f; do
		rm -f "$SRC/$f"
	done
fi
sort "$new_manifest" >"$manifest"
rm -f "$new_manifest"

# 2. Fixes to QEMU itself (each patch's header says why).  The applied set
# is kept in $SRC/.tern-patches: when the set in qemu-device/patches/ changes,
# the old one is reverted (newest first) and the new one applied in order, so
# a patch is applied once and ninja rebuilds only what it touches.
applied=$SRC/.tern-patches
mkdir -p "$applied"
patches=$(ls "$OVL"/patches/*.patch 2>/dev/null | sort || true)
want=$(for p in $patches; do basename "$p"; cat "$p"; done | sha256sum)
have=$(cat "$applied/sum" 2>/dev/null || true)
if [ "$want" != "$have" ]; then
	for p in $(ls "$applied"/*.patch 2>/dev/null | sort -r || true); do
		log "reverting $(basename "$p") from the QEMU source"
		patch -d "$SRC" -p1 -R -s -f <"$p" >/dev/null ||
			die "could not revert $(basename "$p") from $SRC: run 'make setup' on a fresh cache"
		rm -f "$p"
	done
	rm -f "$applied/sum"
	for p in $patches; do
		log "applying $(basename "$p") to the QEMU source"
		patch -d "$SRC" -p1 -s -f --no-backup-if-mismatch <"$p" >/dev/null ||
			die "$(basename "$p") does not apply to QEMU $QVER: see its header"
		cp "$p" "$applied/"
	done
	echo "$want" >"$applied/sum"
fi

# 3. Hook the device and its qtest into QEMU's build (once).
grep -q "subdir('tern')" "$SRC/hw/misc/meson.build" ||
	echo "subdir('tern')" >>"$SRC/hw/misc/meson.build"
grep -q "source tern/Kconfig" "$SRC/hw/misc/Kconfig" ||
	echo "source tern/Kconfig" >>"$SRC/hw/misc/Kconfig"
if ! grep -q "tern-test" "$SRC/tests/qtest/meson.build"; then
	sed -i "s|^qtests_pci = \\\\|qtests_pci = \\\\\n  (config_all_devices.has_key('CONFIG_TERN') ? ['tern-test'] : []) + \\\\|" \
		"$SRC/tests/qtest/meson.build"
	grep -q "tern-test" "$SRC/tests/qtest/meson.build" ||
		die "could not add tern-test to QEMU's tests/qtest/meson.build"
fi

# 4. Configure once, then build incrementally.
if [ ! -f "$BUILD/build.ninja" ]; then
	log "configuring QEMU $QVER in $BUILD"
	mkdir -p "$BUILD"
	(cd "$BUILD" && "$SRC/configure" --target-list=x86_64-softmmu \
		--without-default-features --enable-kvm --disable-docs \
		--disable-werror --disable-install-blobs \
		--python=/usr/bin/python3 >configure.log 2>&1) ||
		{ tail -30 "$BUILD/configure.log"; die "QEMU configure failed"; }
fi
ln -sfn "$BUILD" "$TERN_CACHE/qemu-build/current"

targets=(qemu-system-x86_64)
[ "$what" = qtest ] && targets+=(tests/qtest/tern-test)
log "building ${targets[*]}"
out=$(mktemp)
if ! ninja -C "$BUILD" -j"$(nproc)" "${targets[@]}" >"$out" 2>&1; then
	grep -E 'error|Error' "$out" | head -40
	tail -20 "$out"
	rm -f "$out"
	die "QEMU build failed"
fi
# The device must build without warnings (QEMU itself is configured
# --disable-werror because its own tree is not warning-free on gcc 12).
if grep -A3 -E '(hw/misc/tern|tests/qtest/tern)[^ ]*: warning' "$out"; then
	rm -f "$out"
	die "warnings in the tern device or its qtest"
fi
rm -f "$out"
log "QEMU ready: $BUILD/qemu-system-x86_64"
