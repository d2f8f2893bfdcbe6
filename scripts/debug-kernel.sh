#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the debug kernel of the "make test-debug" lane: linux-source-6.12
# (the unpacked $TERN_CACHE/linux-source/current, left untouched: the build
# goes to O=$TERN_CACHE/debug-kernel/<version>) from x86_64_defconfig, trimmed
# of what the VM never uses, with lockdep (PROVE_LOCKING, PROVE_RCU),
# DEBUG_ATOMIC_SLEEP, KASAN, KMEMLEAK, DEBUG_OBJECTS, failslab and the DRM
# core tern needs (DRM, DRM_ACCEL, DRM_GEM_SHMEM_HELPER, DRM_SCHED, DRM_GPUVM,
# DRM_EXEC) built in.
#
# DRM_GEM_SHMEM_HELPER, DRM_SCHED, DRM_GPUVM and DRM_EXEC have no prompt: the
# small vgem, etnaviv and panthor drivers (panthor through COMPILE_TEST) are
# built in to select them without touching the source tree.
#
# The result is installed like the Debian image, in
# $TERN_CACHE/kernel/<release>/root/{boot,lib/modules}, so that the usual
# scripts take it with KREL=<release>.  A finished build is cached: re-running
# only rebuilds what changed.  Prints the release on stdout.
#
# usage: debug-kernel.sh            build (if needed) and print the release
#        debug-kernel.sh --release  print the release without building
set -euo pipefail
. "$(dirname "$0")/lib.sh"

LSRC=$(readlink -f "$TERN_CACHE/linux-source/current")
[ -f "$LSRC/Makefile" ] || die "no kernel source: run 'make setup'"
ver=$(make -s -C "$LSRC" kernelversion 2>/dev/null)
O=$TERN_CACHE/debug-kernel/$ver
REL=$ver-tern-debug
if [ "${1:-}" = --release ]; then
	echo "$REL"
	exit 0
fi
DEST=$TERN_CACHE/kernel/$REL/root
mkdir -p "$O"

# Options on top of x86_64_defconfig.  Keep in step with docs/reliability.md.
frag=$O/tern-debug.config
cat >"$frag" <<EOF
CONFIG_LOCALVERSION="-tern-debug"
# CONFIG_LOCALVERSION_AUTO is not set
CONFIG_DEBUG_INFO_NONE=y
CONFIG_DRM=y
CONFIG_DRM_ACCEL=y
CONFIG_DRM_VGEM=y
CONFIG_DRM_ETNAVIV=y
CONFIG_COMPILE_TEST=y
# COMPILE_TEST would make WERROR the default, for the kernel and tern.ko
# CONFIG_WERROR is not set
CONFIG_DRM_PANTHOR=y
# a selector of TTM and its GEM helpers (the VM runs without a VGA device)
CONFIG_DRM_BOCHS=y
# CONFIG_DRM_I915 is not set
CONFIG_DEBUG_FS=y
CONFIG_DEBUG_KERNEL=y
CONFIG_PROVE_LOCKING=y
CONFIG_PROVE_RCU=y
CONFIG_DEBUG_ATOMIC_SLEEP=y
CONFIG_KASAN=y
CONFIG_KASAN_GENERIC=y
CONFIG_KASAN_INLINE=y
CONFIG_DEBUG_KMEMLEAK=y
CONFIG_DEBUG_KMEMLEAK_MEM_POOL_SIZE=65536
# CONFIG_DEBUG_KMEMLEAK_AUTO_SCAN is not set
CONFIG_DEBUG_OBJECTS=y
CONFIG_DEBUG_OBJECTS_FREE=y
CONFIG_DEBUG_OBJECTS_TIMERS=y
CONFIG_DEBUG_OBJECTS_WORK=y
CONFIG_DEBUG_OBJECTS_RCU_HEAD=y
CONFIG_DEBUG_OBJECTS_PERCPU_COUNTER=y
CONFIG_DETECT_HUNG_TASK=y
CONFIG_FAULT_INJECTION=y
CONFIG_FAILSLAB=y
CONFIG_FAIL_PAGE_ALLOC=y
CONFIG_FAULT_INJECTION_DEBUG_FS=y
CONFIG_FAULT_INJECTION_STACKTRACE_FILTER=y
# CONFIG_MODULE_SIG is not set
# CONFIG_SOUND is not set
# CONFIG_WIRELESS is not set
# CONFIG_WLAN is not set
# CONFIG_CFG80211 is not set
# CONFIG_MAC80211 is not set
# CONFIG_NETFILTER is not set
# CONFIG_ETHERNET is not set
# CONFIG_USB_SUPPORT is not set
# CONFIG_AGP is not set
# CONFIG_HIBERNATION is not set
EOF

# (Re)configure only when the fragment changed: a reconfigure is cheap but
# touches auto.conf, which would force a relink.
if ! cmp -s "$frag" "$O/.tern-debug.config.done" 2>/dev/null || [ ! -f "$O/.config" ]; then
	log "configuring the debug kernel in $O"
	make -s -C "$LSRC" O="$O" x86_64_defconfig >&2
	"$LSRC/scripts/kconfig/merge_config.sh" -m -O "$O" "$O/.config" "$frag" >&2
	make -s -C "$LSRC" O="$O" olddefconfig >&2
	# Fail early when an option did not stick (dependency missing).
	for opt in DRM DRM_ACCEL DRM_TTM DRM_TTM_HELPER DRM_SCHED DRM_GPUVM DRM_EXEC PROVE_LOCKING PROVE_RCU DEBUG_KMEMLEAK \
		DEBUG_ATOMIC_SLEEP KASAN DEBUG_OBJECTS FAILSLAB PCI_MSI DEBUG_FS; do
		grep -q "^CONFIG_$opt=y" "$O/.config" || die "CONFIG_$opt did not stick in $O/.config"
	done
	cp "$frag" "$O/.tern-debug.config.done"
fi

log "building the debug kernel $REL (this takes long the first time)"
nice -n 19 make -s -C "$LSRC" O="$O" -j"${TERN_JOBS:-2}" bzImage modules >&2
[ "$(make -s -C "$LSRC" O="$O" kernelrelease)" = "$REL" ] || die "unexpected kernel release"

rm -rf "$DEST.new" && mkdir -p "$DEST.new/boot"
cp "$O/arch/x86/boot/bzImage" "$DEST.new/boot/vmlinuz-$REL"
make -s -C "$LSRC" O="$O" INSTALL_MOD_PATH="$DEST.new" INSTALL_MOD_STRIP=1 \
	modules_install >&2
mkdir -p "$DEST.new/lib/modules/$REL/kernel"
rm -rf "$DEST" && mv "$DEST.new" "$DEST"
log "debug kernel ready: $DEST/boot/vmlinuz-$REL (KDIR=$O)"
echo "$REL"
