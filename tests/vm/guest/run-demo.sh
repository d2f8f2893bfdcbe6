#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The guest side of `make demo`: describe the device with tern-info, then run
# tern-demo (a long low-priority GEMM preempted by a high-priority job on the
# same engine, timed on the device clock) under tern-trace, which records the
# scheduler's events and draws them.  Prints TERN-DEMO-OK only when tern-demo
# succeeded: the high-priority job finished before the GEMM and both results
# were right.  The trace and its SVG timeline go to the console between
# TERN-FILE-BEGIN/END lines (base64), from which the host takes them.
# TERN_DEMO_ARGS (from the kernel command line, options separated by commas)
# are passed on.
export PATH=/tern/bin:$PATH
echo "==== tern-info ===="
tern-info || { echo "TERN-DEMO-FAILED: tern-info exited $?"; exit 1; }
echo
echo "==== tern-demo $(echo "${TERN_DEMO_ARGS:-}" | tr , ' ') ===="
# shellcheck disable=SC2046 # the options are meant to be split
tern-trace -o /tmp/demo-trace.json --svg /tmp/demo-timeline.svg -- \
	tern-demo $(echo "${TERN_DEMO_ARGS:-}" | tr , ' ')
rc=$?
for f in demo-trace.json demo-timeline.svg; do
	[ -s "/tmp/$f" ] || continue
	echo "TERN-FILE-BEGIN $f"
	base64 "/tmp/$f"
	echo "TERN-FILE-END"
done
if [ "$rc" != 0 ]; then
	echo "TERN-DEMO-FAILED: tern-demo exited $rc"
	dmesg | tail -n 30
	exit 1
fi
echo "TERN-DEMO-OK"
