#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make soak: the reliability tests (fuzz_*, soak_*, chaos_*, pressure_*) run
# long: TERN_SOAK_RUNS boots (default 5), each with another fuzzer seed and
# many more calls, injections and chaos cycles than in make test.  Every
# boot is judged like make vm-test (TAP, exit status, kernel reports); the
# script stops at the first failing boot.  Counts per boot stay within the
# tests' own time limits (tern-vm: timeout=), so a soak is many boots, not
# one endless one.
#
# Environment: TERN_SOAK_RUNS (5), TERN_FUZZ_ITERATIONS (120000 calls per
# fuzzer thread), TERN_SOAK_ROUNDS (10 injections of each kind per engine),
# TERN_CHAOS_CYCLES (16), TERN_SOAK_TESTS (regex of the tests to run),
# and everything vm-run.sh reads (KREL for another kernel, TERN_VM_MEM...).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

runs=${TERN_SOAK_RUNS:-5}
tests=${TERN_SOAK_TESTS:-^(fuzz|soak|chaos|pressure)_}
mkdir -p "$TERN_TOP/build/results"
summary=$TERN_TOP/build/results/soak.txt
: >"$summary"
for run in $(seq 1 "$runs"); do
	seed=$((0x7e70 + run))
	log "soak run $run of $runs (fuzzer seed $seed)"
	TERN_VM_TESTS=$tests \
	TERN_VM_CMDLINE="${TERN_VM_CMDLINE:+$TERN_VM_CMDLINE }TERN_FUZZ_SEED=$seed TERN_FUZZ_ITERATIONS=${TERN_FUZZ_ITERATIONS:-120000} TERN_SOAK_ROUNDS=${TERN_SOAK_ROUNDS:-10} TERN_CHAOS_CYCLES=${TERN_CHAOS_CYCLES:-16}" \
		"$TERN_TOP/scripts/vm-run.sh" test || {
		echo "run $run: FAILED" >>"$summary"
		die "soak run $run failed; consoles in build/vm/"
	}
	# keep each run's figures (the tests' TAP diagnostics)
	mkdir -p "$TERN_TOP/build/vm/soak-$run"
	cp "$TERN_TOP"/build/vm/console-*.log "$TERN_TOP/build/vm/soak-$run/"
	{
		echo "run $run: passed"
		grep -h '^# ' "$TERN_TOP"/build/vm/console-*.log | tr -d '\r'
	} >>"$summary"
done
log "soak: $runs runs passed; figures in $summary"
