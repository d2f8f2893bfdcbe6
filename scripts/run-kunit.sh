#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make kunit: run the driver's KUnit tests with kunit.py under UML.  The driver
# is placed in the cached linux-source-6.12 tree as drivers/accel/tern (with
# its uAPI header in include/uapi/drm) and built with the kunitconfig in
# drivers/accel/tern/.kunitconfig; the build folder is cached, so re-runs only
# rebuild what changed.  Writes "passed failed skipped" to build/results/kunit.txt.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

LSRC=$(readlink -f "$TERN_CACHE/linux-source/current")
[ -d "$LSRC" ] || die "no kernel source: run 'make setup'"
KB=$TERN_CACHE/kunit-build/$(basename "$LSRC")
[ -f "$TERN_TOP/drivers/accel/tern/.kunitconfig" ] || die "no drivers/accel/tern/.kunitconfig"

# Place the driver in the tree (changed files only) and hook it into Kbuild.
dst=$LSRC/drivers/accel/tern
mkdir -p "$dst"
(cd "$TERN_TOP/drivers/accel/tern" && find . -type f) | while read -r f; do
	mkdir -p "$dst/$(dirname "$f")"
	cmp -s "$TERN_TOP/drivers/accel/tern/$f" "$dst/$f" || cp "$TERN_TOP/drivers/accel/tern/$f" "$dst/$f"
done
(cd "$dst" && find . -type f -name '*.[ch]') | while read -r f; do
	[ -e "$TERN_TOP/drivers/accel/tern/$f" ] || rm -f "$dst/$f"
done
cmp -s "$TERN_TOP/include/uapi/drm/tern_accel.h" "$LSRC/include/uapi/drm/tern_accel.h" ||
	cp "$TERN_TOP/include/uapi/drm/tern_accel.h" "$LSRC/include/uapi/drm/tern_accel.h"
grep -q 'drivers/accel/tern/Kconfig' "$LSRC/drivers/accel/Kconfig" ||
	sed -i 's|^source "drivers/accel/qaic/Kconfig"|&\nsource "drivers/accel/tern/Kconfig"|' \
		"$LSRC/drivers/accel/Kconfig"
grep -q 'drivers/accel/tern/Kconfig' "$LSRC/drivers/accel/Kconfig" ||
	die "could not hook tern into drivers/accel/Kconfig"
grep -q 'tern/' "$LSRC/drivers/accel/Makefile" ||
	echo 'obj-y				+= tern/' >>"$LSRC/drivers/accel/Makefile"

mkdir -p "$TERN_TOP/build/results" "$KB"
out=$TERN_TOP/build/results/kunit.log
rc=0
(cd "$LSRC" && timeout -k 10 1800 python3 tools/testing/kunit/kunit.py run \
	--kunitconfig=drivers/accel/tern --build_dir="$KB" --jobs="$(nproc)" \
	--timeout=300) 2>&1 | tee "$out" || rc=$?
line=$(grep -E 'Ran [0-9]+ tests' "$out" | tail -n 1 || true)
passed=$(echo "$line" | grep -oE 'passed: [0-9]+' | grep -oE '[0-9]+' || echo 0)
failed=$(echo "$line" | grep -oE 'failed: [0-9]+' | grep -oE '[0-9]+' || echo 0)
skipped=$(echo "$line" | grep -oE 'skipped: [0-9]+' | grep -oE '[0-9]+' || echo 0)
crashed=$(echo "$line" | grep -oE 'crashed: [0-9]+' | grep -oE '[0-9]+' || echo 0)
failed=$((failed + crashed))
if [ "$rc" != 0 ] && [ "$failed" = 0 ]; then
	log "kunit.py failed (status $rc) before reporting results"
	failed=1
fi
echo "$passed $failed $skipped" >"$TERN_TOP/build/results/kunit.txt"
echo "kunit: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
