#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Run libtern's host tests: each test program under valgrind (a memory error
# or leak fails it), then checks of the built library and tools.  Prints TAP
# and ends with "libtern host tests: N passed, N failed"; exits non-zero if
# anything failed.
#
#   run.sh BUILD_DIR TEST...
B=$1
shift
passed=0
failed=0
n=0

result() {	# result 0|1 description
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		passed=$((passed + 1))
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
	fi
}

for t in "$@"; do
	name=$(basename "$t")
	out=$(mktemp)
	valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all \
		--errors-for-leak-kinds=all "$t" >"$out" 2>&1
	rc=$?
	echo "# $name"
	while IFS= read -r line; do
		case "$line" in
		"ok "*) result 0 "$name: ${line#ok * - }" ;;
		"not ok "*) result 1 "$name: ${line#not ok * - }" ;;
		1..*) ;;
		*) echo "# $line" ;;
		esac
	done <"$out"
	rm -f "$out"
	[ "$rc" = 0 ] || result 1 "$name exits cleanly under valgrind (status $rc)"
	[ "$rc" != 0 ] || result 0 "$name exits cleanly under valgrind"
done

# Only the public API leaves libtern.so, under its versioned soname.
so=$B/libtern.so.$(sed -n 's/^VERSION *:= *//p' "$(dirname "$0")/../Makefile")
bad=$(nm -D --defined-only "$so" | awk '{ print $3 }' | grep -v '^tern_')
result $([ -z "$bad" ] && echo 0 || echo 1) "libtern.so exports only tern_* symbols${bad:+ (also: $bad)}"
api=$(sed -n 's/^TERN_API [^(]*[ *]\(tern_[a-z0-9_]*\)(.*/\1/p' "$(dirname "$0")/../include/tern/tern.h" | sort)
exported=$(nm -D --defined-only "$so" | awk '{ print $3 }' | sort)
missing=$(echo "$api" | grep -vxF "$exported")
result $([ -n "$api" ] && [ -z "$missing" ] && echo 0 || echo 1) \
	"every TERN_API function of tern.h is exported ($(echo "$api" | wc -l))${missing:+ (missing: $missing)}"
# TERN_LIB_VERSION of tern.h is the Makefile's VERSION, major and minor
ver=$(sed -n 's/^VERSION *:= *//p' "$(dirname "$0")/../Makefile")
hver=$(sed -n 's/^#define TERN_LIB_VERSION.*((\([0-9]*\)u << 16) | \([0-9]*\)u).*/\1.\2/p' \
	"$(dirname "$0")/../include/tern/tern.h")
result $([ -n "$hver" ] && [ "${ver%.*}" = "$hver" ] && echo 0 || echo 1) \
	"TERN_LIB_VERSION of tern.h ($hver) is the library's version (${ver%.*})"
soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
result $([ "$soname" = libtern.so.1 ] && echo 0 || echo 1) "soname is libtern.so.1 ($soname)"

# The tools are static, answer --help with 0 and bad usage with 2, and, on a
# host without the tern module, say so and exit 3.
for tool in "$B"/bin/*; do
	name=$(basename "$tool")
	file "$tool" | grep -q 'statically linked'
	result $? "$name is statically linked"
	"$tool" --help >/dev/null 2>&1
	result $? "$name --help exits 0"
	"$tool" --no-such-option >/dev/null 2>&1
	rc=$?
	result $([ $rc = 2 ] && echo 0 || echo 1) "$name with a bad option exits 2 ($rc)"
	if [ ! -e /sys/module/tern ]; then
		msg=$("$tool" 2>&1 >/dev/null)
		rc=$?
		result $([ $rc = 3 ] && echo "$msg" | grep -q "module is not loaded" &&
			 echo 0 || echo 1) "$name without the module exits 3 and says why ($rc)"
	fi
done

# The tools' own paths (help, bad usage, no device) are valgrind-clean:
# dynamically linked copies run under valgrind.
for tool in "$B"/host-bin/*; do
	[ -x "$tool" ] || continue
	name=$(basename "$tool")
	# without arguments a tool runs its workload: only where there is no device
	noargs='""'
	[ -e /sys/module/tern ] && noargs=
	for args in --help --no-such-option $noargs; do
		[ "$args" = '""' ] && args=
		valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all \
			--errors-for-leak-kinds=all "$tool" $args >/dev/null 2>&1
		rc=$?
		result $([ $rc != 99 ] && echo 0 || echo 1) \
			"$name ${args:-(no arguments)} is valgrind-clean (status $rc)"
	done
done

echo "1..$n"
echo "libtern host tests: $passed passed, $failed failed"
[ "$failed" = 0 ]
