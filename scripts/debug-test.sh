#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make test-debug: the VM test suite and a short soak on the debug kernel
# (scripts/debug-kernel.sh: lockdep, KASAN, kmemleak, DEBUG_OBJECTS,
# DEBUG_ATOMIC_SLEEP, failslab).  tern.ko is built against that kernel's
# build folder, the initramfs and the VM take it through KREL, and any
# kernel report fails the run (vm-results.py).  kmemleak is scanned by the
# VM test soak_kmemleak; pressure_* use failslab, which only this kernel has.
#
# Not part of make test: the first kernel build takes hours on 2 cores and
# every test runs several times slower under KASAN.  The normal build
# folder (build/) is reused: run make module (or make test) afterwards to
# get the module for the Debian kernel back.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

rel=$("$TERN_TOP/scripts/debug-kernel.sh")
LSRC=$(readlink -f "$TERN_CACHE/linux-source/current")
kdir=$TERN_CACHE/debug-kernel/$(make -s -C "$LSRC" kernelversion)
export KREL=$rel
export TERN_VM_MEM=${TERN_VM_MEM:-2G}

KDIR=$kdir "$TERN_TOP/scripts/build-module.sh"
make -s -C "$TERN_TOP" userspace
# Tests scale their work with what they measure of the guest; their time
# limits (tern-vm: timeout=) are set for the usual kernel: triple them.
TERN_VM_TIMEOUT_SCALE=${TERN_VM_TIMEOUT_SCALE:-3} "$TERN_TOP/scripts/build-initramfs.sh"
log "the VM suite on $rel"
TERN_VM_CMDLINE="${TERN_VM_CMDLINE:+$TERN_VM_CMDLINE }TERN_FUZZ_ITERATIONS=5000 TERN_SOAK_ROUNDS=1 TERN_CHAOS_CYCLES=2" \
	"$TERN_TOP/scripts/vm-run.sh" test
log "a short soak on $rel"
TERN_SOAK_RUNS=${TERN_SOAK_RUNS:-1} TERN_FUZZ_ITERATIONS=${TERN_FUZZ_ITERATIONS:-20000} \
	TERN_SOAK_ROUNDS=${TERN_SOAK_ROUNDS:-2} TERN_CHAOS_CYCLES=${TERN_CHAOS_CYCLES:-4} \
	"$TERN_TOP/scripts/soak.sh"
log "test-debug passed on $rel"
