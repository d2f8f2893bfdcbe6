#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench: one VM boot that runs the benchmark suite (tern-benchsuite,
# userspace/bench/) on two tern devices, then the report: results.json,
# report.md and SVG plots in a folder outside the work tree, and the table
# on stdout.  See docs/performance.md.
#
# Environment:
#   TERN_BENCH_OUT      results folder (default $TERN_CACHE/bench/<UTC date-time>)
#   TERN_BENCH_DEVICES  the two -device tern option sets, "+" between them
#                       (default: a plain device for figures 1, 2, 5, 6 and one
#                       with time-scale=200 for the scheduling figures 3, 4, 7)
#   TERN_BENCH_ARGS     more tern-benchsuite options, e.g. "--reps=3 --figures=1+3-4"
#                       (they reach the guest separated by commas: no comma in them)
#   TERN_BENCH_LIMIT    time limit of the boot in seconds (default 900)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

VM=$TERN_TOP/build/vm
out=${TERN_BENCH_OUT:-$TERN_CACHE/bench/$(date -u +%Y-%m-%d-%H%M%S)}
case "$out" in
"$TERN_TOP"/*) die "TERN_BENCH_OUT must be outside the work tree ($out)" ;;
esac
mkdir -p "$out"

t0=$(date +%s)
rc=0
# the console goes to the log; progress lines to the terminal
TERN_DEVICE_OPTS=${TERN_BENCH_DEVICES:-compute-engines=2+compute-engines=2,time-scale=200} \
	"$TERN_TOP/scripts/vm-run.sh" bench \
	> >(grep --line-buffered -E '^(\[bench\]|tern-benchsuite|TERN-BENCH-(OK|FAILED))' >&2) ||
	rc=$?
log "benchmark boot: $(($(date +%s) - t0)) s"
cp "$VM/console-bench.log" "$out/console.log"
python3 "$TERN_TOP/scripts/bench-report.py" "$out/console.log" "$out" || rc=1
[ "$rc" = 0 ] || die "the benchmark run failed: see $out/console.log"
log "report: $out/report.md"
