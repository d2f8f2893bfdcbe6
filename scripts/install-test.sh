#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The install layer of make test: install everything into a scratch root the
# way a user would (make install, make dkms-install with DESTDIR), check what
# landed there, DKMS-build the module against the kernel headers of the
# cache, build a program from outside the tree with
# `pkg-config --cflags --libs tern` against the installed copy and run it,
# remove the module again with make dkms-remove; and check that make setup
# installs no kernel image on the host.  Writes "passed failed skipped" to
# build/results/install.txt.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

cd "$TERN_TOP"
R=$TERN_TOP/build/results
ROOT=$TERN_TOP/build/install-root
mkdir -p "$R"
rm -rf "$ROOT"
passed=0 failed=0 n=0
result() {	# result 0|1 what
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		passed=$((passed + 1)); echo "ok $n - $2"
	else
		failed=$((failed + 1)); echo "not ok $n - $2"
	fi
}
check() {	# check what command...
	local what=$1
	shift
	"$@" >/dev/null 2>&1
	result $? "$what"
}

KREL=$(kernel_release)
KDIR=$(kernel_headers "$KREL")
log=$TERN_TOP/build/install.log

# 1. make install into the scratch root
make -s install DESTDIR="$ROOT" PREFIX=/usr >"$log" 2>&1
result $? "make install DESTDIR=... PREFIX=/usr (log: build/install.log)"
L=$ROOT/usr/lib
LIBVER=$(sed -n 's/^VERSION *:= *//p' "$TERN_TOP/userspace/Makefile")
check "libtern.so.$LIBVER, its soname and dev links" \
	test -f "$L/libtern.so.$LIBVER" -a -L "$L/libtern.so.1" -a -L "$L/libtern.so"
check "libtern.a" test -f "$L/libtern.a"
check "the header tern/tern.h" test -f "$ROOT/usr/include/tern/tern.h"
check "tern.pc names /usr" grep -qx 'prefix=/usr' "$L/pkgconfig/tern.pc"
# every program userspace/Makefile builds: its tools, examples and the bench suite
progs=$(sed -n 's/^\(TOOLS\|EXAMPLES\) *:= *//p' userspace/Makefile)
for t in $progs tern-benchsuite; do
	check "program $t, and its man page (help2man)" \
		test -x "$ROOT/usr/bin/$t" -a -s "$ROOT/usr/share/man/man1/$t.1"
done
api=$(sed -n 's/^TERN_API [^(]*[ *]\(tern_[a-z0-9_]*\)(.*/\1/p' userspace/include/tern/tern.h)
missing=$(for f in $api; do [ -s "$ROOT/usr/share/man/man3/$f.3" ] || echo "$f"; done)
result $([ -n "$api" ] && [ -z "$missing" ] && echo 0 || echo 1) \
	"a man page per library call ($(echo "$api" | wc -w))${missing:+, missing: $missing}"
bad=$(for f in "$ROOT"/usr/share/man/man[13]/*; do
	MANWIDTH=80 man -l "$f" 2>&1 >/dev/null | grep -q . && echo "${f##*/}"
done)
result $([ -z "$bad" ] && echo 0 || echo 1) "every man page renders without a warning${bad:+ ($bad)}"
check "tern_device_open(3) documents its arguments" \
	sh -c "MANWIDTH=80 man -l '$ROOT/usr/share/man/man3/tern_device_open.3' | grep -q '^ARGUMENTS'"
rule=$ROOT/etc/udev/rules.d/70-tern.rules
check "udev rule: group render may use the accel nodes of tern devices" \
	grep -q '^SUBSYSTEM=="accel", KERNEL=="accel\[0-9\]\*", DRIVERS=="tern", GROUP="render", MODE="0660"$' "$rule"
conf=$ROOT/etc/modprobe.d/tern.conf
params=$(modinfo -F parm build/tern.ko | cut -d: -f1)
missing=$(for p in $params; do grep -q "^#options tern $p=[^ ]" "$conf" || echo "$p"; done)
result $([ -n "$params" ] && [ -z "$missing" ] && echo 0 || echo 1) \
	"modprobe.d example: every module parameter with its default ($(echo $params))${missing:+, missing: $missing}"
check "modprobe.d example changes nothing as installed" \
	sh -c "! grep -q '^options' '$conf'"

# 2. an outside program against the installed copy, through pkg-config
OUT=$TERN_TOP/build/install-outside
rm -rf "$OUT" && mkdir -p "$OUT"
cp tests/install/outside.c "$OUT/"
pc() { PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR=$L/pkgconfig:/usr/lib/x86_64-linux-gnu/pkgconfig:/usr/share/pkgconfig \
	PKG_CONFIG_SYSROOT_DIR=$ROOT pkg-config "$@"; }
flags=$(pc --cflags --libs tern)
check "pkg-config --cflags --libs tern: $flags" test -n "$flags"
(cd "$OUT" && cc -std=c11 -Wall -Wextra -Werror -o outside outside.c $flags) >>"$log" 2>&1
result $? "cc outside.c \$(pkg-config --cflags --libs tern) builds"
out=$(LD_LIBRARY_PATH=$L "$OUT/outside" 2>&1)
result $? "it runs against the installed libtern.so: $(echo "$out" | head -n 1)"
check "it uses the installed library" \
	sh -c "LD_LIBRARY_PATH='$L' ldd '$OUT/outside' | grep -q '$L/libtern.so.1'"
(cd "$OUT" && cc -std=c11 -o outside-static outside.c $(pc --cflags tern) \
	-static $(pc --static --libs tern)) >>"$log" 2>&1
result $? "and links statically with pkg-config --static"

# 3. the module through DKMS, into the scratch root, against the cache's headers
if command -v dkms >/dev/null && [ -d "$KDIR" ]; then
	mkdir -p "$ROOT/lib/modules/$KREL"
	# sign_file: no signing key is made on this host for a test
	sign_file=/nonexistent make -s dkms-install DESTDIR="$ROOT" \
		DKMS_ARGS="-k $KREL --kernelsourcedir $KDIR" >>"$log" 2>&1
	result $? "make dkms-install: dkms add, build and install for $KREL"
	ko=$(ls "$ROOT/lib/modules/$KREL/updates/dkms/"tern.ko* 2>/dev/null | head -n 1)
	check "tern.ko in lib/modules/$KREL/updates/dkms" test -n "$ko"
	check "built for $KREL" sh -c "modinfo -F vermagic '$ko' | grep -q '^$KREL '"
	check "with the module parameters" sh -c "modinfo -F parm '$ko' | grep -q '^quantum_us:'"
	sign_file=/nonexistent make -s dkms-remove DESTDIR="$ROOT" \
		DKMS_ARGS="-k $KREL --kernelsourcedir $KDIR" >>"$log" 2>&1
	result $? "make dkms-remove"
	check "removes the module and its sources" \
		sh -c "! ls '$ROOT/lib/modules/$KREL/updates/dkms/'tern.ko* && ! test -e '$ROOT/usr/src/tern-1.0.0'"
else
	result 1 "dkms and the headers in $KDIR (make setup installs and fetches them)"
fi

# 4. make setup installs no kernel: no package it installs pulls an image in
pkgs=$("$TERN_TOP/scripts/setup.sh" --print-packages)
images=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
	--no-breaks --no-replaces --no-enhances $pkgs 2>/dev/null |
	grep -E '^linux-image-[0-9]' | sort -u)
result $([ -n "$pkgs" ] && [ -z "$images" ] && echo 0 || echo 1) \
	"make setup's packages pull in no kernel image${images:+ (they do: $images)}"

echo "1..$n"
echo "install: $passed passed, $failed failed"
echo "$passed $failed 0" >"$R/install.txt"
[ "$failed" = 0 ]
