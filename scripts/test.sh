#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make test: run every test layer, go on past a failing one, and end with one
# line "N passed, N failed" (", N skipped" if any).  Exit status 0 only if
# nothing failed.  Each layer writes "passed failed skipped" to
# build/results/<layer>.txt; a layer that dies before that counts as one
# failure.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

cd "$TERN_TOP"
R=$TERN_TOP/build/results
mkdir -p "$R"
start=$(date +%s)
declare -a summary=()

layer() {	# layer NAME COMMAND...
	local name=$1 t0 rc
	shift
	rm -f "$R/$name.txt"
	log "=== $name ==="
	t0=$(date +%s)
	"$@"
	rc=$?
	if [ ! -s "$R/$name.txt" ]; then
		echo "0 1 0" >"$R/$name.txt"
		log "$name: failed before reporting results (status $rc)"
	fi
	summary+=("$(printf '%-8s %s  (%ds)' "$name" "$(cat "$R/$name.txt")" $(($(date +%s) - t0)))")
}

vm_layer() {
	make -s qemu initramfs || return 1
	"$TERN_TOP/scripts/vm-run.sh" test
}
host_layer() {
	local out=$R/host.log rc=0 line
	make -s host-test 2>&1 | tee "$out" || rc=$?
	line=$(grep -E 'libtern host tests: [0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
	if [ -n "$line" ]; then
		echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2 0/' >"$R/host.txt"
		[ "$rc" = 0 ] || [ "$(cut -d' ' -f2 "$R/host.txt")" != 0 ] || echo "0 1 0" >"$R/host.txt"
	fi
}
qtest_layer() {
	"$TERN_TOP/scripts/build-qemu.sh" qtest && "$TERN_TOP/scripts/run-qtest.sh"
}

layer check "$TERN_TOP/scripts/check.sh"
layer host host_layer
layer qtest qtest_layer
layer kunit "$TERN_TOP/scripts/run-kunit.sh"
layer install "$TERN_TOP/scripts/install-test.sh"
layer vm vm_layer

passed=0 failed=0 skipped=0
for n in check host qtest kunit install vm; do
	read -r p f s <"$R/$n.txt"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
done
echo
echo "layer    passed failed skipped"
printf '%s\n' "${summary[@]}"
echo "total time: $(($(date +%s) - start)) s"
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
