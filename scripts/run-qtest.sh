#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make qtest: run the tern device's qtest suite (built by build-qemu.sh qtest)
# against the QEMU built with the device.  Writes "passed failed skipped" to
# build/results/qtest.txt.  QTEST_ARGS adds arguments, e.g. -p /x86_64/tern/reset.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

BUILD=$TERN_CACHE/qemu-build/current
T=$BUILD/tests/qtest/tern-test
[ -x "$T" ] || die "no $T: run 'make qtest' (it builds it)"
mkdir -p "$TERN_TOP/build/results"
out=$TERN_TOP/build/results/qtest.log
# qtest derives the target from the binary's name, so the firmware paths and
# "-nic none" (no NIC option ROM is installed) go through a wrapper that keeps
# the name qemu-system-x86_64.
wrap=$BUILD/tern-qtest-wrapper
mkdir -p "$wrap"
cat >"$wrap/qemu-system-x86_64" <<EOT
#!/bin/sh
exec "$BUILD/qemu-system-x86_64" -L /usr/share/seabios -L /usr/share/qemu -nic none "\$@"
EOT
chmod +x "$wrap/qemu-system-x86_64"
rc=0
(cd "$BUILD" &&
	QTEST_QEMU_BINARY="$wrap/qemu-system-x86_64" \
	QTEST_QEMU_STORAGE_DAEMON_BINARY=/bin/false \
	timeout -k 10 600 "$T" --tap ${QTEST_ARGS:-}) 2>&1 | tee "$out" || rc=$?
passed=$(grep -Ec '^ok [0-9]+' "$out" || true)
skipped=$(grep -Eic '^ok [0-9]+ .*# skip' "$out" || true)
failed=$(grep -Ec '^not ok [0-9]+' "$out" || true)
passed=$((passed - skipped))
if [ "$rc" != 0 ] && [ "$failed" = 0 ]; then
	log "tern-test exited with status $rc"
	failed=1
fi
echo "$passed $failed $skipped" >"$TERN_TOP/build/results/qtest.txt"
echo "qtest: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
