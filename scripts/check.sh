#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check: static checks.
#   - checkpatch.pl --strict on every driver source and the uAPI header
#     (one result per file)
#   - sparse (C=2) over the whole driver: no warnings
#   - the driver builds with W=1 and -Werror (build-module.sh)
#   - userspace (VM tests, library, tools) builds with -Wall -Wextra -Werror
#   - every repository file the documentation cites exists
#     (check-doc-refs.py)
# Writes "passed failed skipped" to build/results/check.txt.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

LSRC=$TERN_CACHE/linux-source/current
CHECKPATCH=$LSRC/scripts/checkpatch.pl
[ -x "$CHECKPATCH" ] || die "no checkpatch.pl: run 'make setup'"
mkdir -p "$TERN_TOP/build/results"
passed=0 failed=0
result() {	# result OK|FAIL what
	if [ "$1" = OK ]; then
		passed=$((passed + 1)); echo "ok - $2"
	else
		failed=$((failed + 1)); echo "not ok - $2"
	fi
}

cd "$TERN_TOP"
for f in $(git ls-files 'drivers/accel/tern/*.[ch]' 'drivers/accel/tern/**/*.[ch]' \
		'include/uapi/drm/*.h' | sort -u); do
	out=$("$CHECKPATCH" --strict --no-tree --quiet --show-types \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f "$f" 2>&1)
	if [ -z "$out" ]; then
		result OK "checkpatch --strict $f"
	else
		echo "$out" | head -40
		result FAIL "checkpatch --strict $f"
	fi
done

log=$(mktemp)
if "$TERN_TOP/scripts/build-module.sh" >"$log" 2>&1; then
	result OK "driver builds with W=1 -Werror"
	# Force sparse over every file, not only the ones rebuilt.
	if "$TERN_TOP/scripts/build-module.sh" C=2 >"$log" 2>&1; then
		if grep -E '(warning|error):' "$log" | grep -v '^make' >/dev/null; then
			grep -E '(warning|error):' "$log" | head -40
			result FAIL "sparse (C=2) on the driver"
		else
			result OK "sparse (C=2) on the driver"
		fi
	else
		tail -40 "$log"
		result FAIL "sparse (C=2) on the driver"
	fi
else
	tail -40 "$log"
	result FAIL "driver builds with W=1 -Werror"
	result FAIL "sparse (C=2) on the driver"
fi

if make -s -C "$TERN_TOP" userspace >"$log" 2>&1; then
	result OK "userspace builds with -Wall -Wextra -Werror"
else
	tail -40 "$log"
	result FAIL "userspace builds with -Wall -Wextra -Werror"
fi

if "$TERN_TOP/scripts/check-doc-refs.py" "$TERN_TOP" >"$log" 2>&1; then
	result OK "the docs cite only files of the repository"
else
	cat "$log"
	result FAIL "the docs cite only files of the repository"
fi
rm -f "$log"

echo "$passed $failed 0" >"$TERN_TOP/build/results/check.txt"
echo "check: $passed passed, $failed failed"
[ "$failed" = 0 ]
