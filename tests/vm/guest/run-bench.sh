#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The guest side of `make bench`: describe the devices with tern-info, run
# tern-benchsuite (options from TERN_BENCH_ARGS on the kernel command line,
# separated by commas), then print its JSON results between TERN-BENCH-JSON-BEGIN and
# TERN-BENCH-JSON-END for scripts/bench-report.py.  Ends with TERN-BENCH-OK
# when the suite exited 0; the host looks for that line.
export PATH=/tern/bin:$PATH
echo "==== tern-info ===="
tern-info || { echo "TERN-BENCH-FAILED: tern-info exited $?"; exit 1; }
echo
echo "==== tern-benchsuite ===="
# shellcheck disable=SC2046 # the options are meant to be split
tern-benchsuite --verbose $(echo "${TERN_BENCH_ARGS:-}" | tr , ' ') --json=/tmp/bench.json
rc=$?
if [ -s /tmp/bench.json ]; then
	echo "TERN-BENCH-JSON-BEGIN"
	cat /tmp/bench.json
	echo "TERN-BENCH-JSON-END"
fi
if [ "$rc" != 0 ]; then
	echo "TERN-BENCH-FAILED: tern-benchsuite exited $rc"
	dmesg | tail -n 30
	exit 1
fi
echo "TERN-BENCH-OK"
