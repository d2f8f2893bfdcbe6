#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The guest side of `make demo`: describe the device with tern-info, then run
# tern-demo (a long low-priority GEMM and a high-priority job on the same
# engine, timed on the device clock).  Prints TERN-DEMO-OK when both ran and
# their results were right; the host looks for that line.
export PATH=/tern/bin:$PATH
echo "==== tern-info ===="
tern-info || { echo "TERN-DEMO-FAILED: tern-info exited $?"; exit 1; }
echo
echo "==== tern-demo ===="
tern-demo ${TERN_DEMO_ARGS:-}
rc=$?
if [ "$rc" != 0 ]; then
	echo "TERN-DEMO-FAILED: tern-demo exited $rc"
	dmesg | tail -n 30
	exit 1
fi
echo "TERN-DEMO-OK"
