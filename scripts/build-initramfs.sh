#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the test VM's initramfs (build/vm/initramfs.cpio.gz): busybox-static,
# the Debian kernel's modules tern.ko depends on (found through modinfo,
# decompressed, listed in load order), tern.ko, the guest scripts in
# tests/vm/guest/, the VM test binaries and the userspace tools.
#
# VM tests are grouped by the device options they ask for with a line
#   tern-vm: device=<-device options> timeout=<seconds>
# in their source; each group is one boot.  build/vm/groups.txt lists
# "<group> <device options>" for the host runner.  TERN_VM_TIMEOUT_SCALE
# (default 1) multiplies every test's time limit: make test-debug sets it
# for its kernel, on which everything runs several times slower.
#
# The tests whose names match TERN_VM_IOMMU_TESTS (a regex; empty: none)
# run a second time behind a virtual IOMMU, in groups named iommu-<n> that
# vm-run.sh boots with intel-iommu (docs/development.md, "The VM").  A test
# whose tern-vm line says iommu=no stays out of them.
#
# The tests whose names match TERN_VM_HW10_TESTS (a regex; empty: none) run
# once more on a version 1.0 device (done-records=off, docs/hardware.md),
# in groups named hw10-<n>: the driver's path without done records.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KREL=${KREL:-$(kernel_release)}
KROOT=$TERN_CACHE/kernel/$KREL/root
KMODS=$KROOT/lib/modules/$KREL
[ -d "$KMODS" ] || die "no kernel image in $KROOT: run 'make setup'"
B=$TERN_TOP/build
VM=$B/vm
ROOT=$VM/root
rm -rf "$ROOT" && mkdir -p "$ROOT"/{bin,sbin,proc,sys,dev,tmp,lib/modules,tern/tests,tern/groups,tern/bin}

cp /bin/busybox "$ROOT/bin/busybox"
for applet in $(/bin/busybox --list); do
	[ -e "$ROOT/bin/$applet" ] || ln -s busybox "$ROOT/bin/$applet"
done
cp "$TERN_TOP"/tests/vm/guest/init "$ROOT/init"
cp "$TERN_TOP"/tests/vm/guest/run-*.sh "$ROOT/tern/"
cp "$B/tern.ko" "$ROOT/tern/tern.ko"

# Modules tern.ko needs, dependencies first.
declare -A seen=()
order=()
find_module() {
	find "$KMODS/kernel" -name "$1.ko.xz" -o -name "$(echo "$1" | tr _ -).ko.xz" |
		head -n 1
}
add_deps() {
	local dep path
	for dep in $(modinfo -F depends "$1" | tr , ' '); do
		[ -n "${seen[$dep]:-}" ] && continue
		seen[$dep]=1
		path=$(find_module "$dep")
		[ -n "$path" ] || die "module $dep (needed by $1) not in the kernel image"
		xz -dc "$path" >"$ROOT/lib/modules/$dep.ko"
		add_deps "$ROOT/lib/modules/$dep.ko"
		order+=("$dep.ko")
	done
}
add_deps "$B/tern.ko"
printf '%s\n' "${order[@]}" >"$ROOT/tern/modules.load"

# VM tests and their groups.
: >"$VM/groups.txt.new"
declare -A group_of=() iommu_group_of=() hw10_group_of=()
declare -a iommu_lines=() hw10_lines=()
ngroups=0 niommu=0 nhw10=0
hw10_re=${TERN_VM_HW10_TESTS-^(core_(submit|fault|hang|progress|job_release|job_fence|submit_many)|sched_(preempt|batch|preempt_recovery)|lib_fence)$}
# "a+b" -> "a,done-records=off+b,done-records=off"
hw10_opts() {
	local one out= sep=
	local -a devs
	IFS=+ read -ra devs <<<"${1:-}"
	[ ${#devs[@]} -gt 0 ] || devs=("")
	for one in "${devs[@]}"; do
		out+="$sep${one:+$one,}done-records=off"
		sep=+
	done
	echo "$out"
}
iommu_re=${TERN_VM_IOMMU_TESTS-^((core|lib|sched)_|bo_(local|residency|oversubscribe)|vm_(bind_async|bind_queue|bind_split|unmap_race|unmap_unplug|retarget_race)$)}
for src in "$TERN_TOP"/tests/vm/*.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .c)
	meta=$(grep -o 'tern-vm:.*' "$src" | head -n 1 || true)
	dev=$(echo "$meta" | grep -o 'device=[^ ]*' | cut -d= -f2- || true)
	limit=$(echo "$meta" | grep -o 'timeout=[0-9]*' | cut -d= -f2 || true)
	limit=$((${limit:-120} * ${TERN_VM_TIMEOUT_SCALE:-1}))
	key=${dev:-default}
	if [ -z "${group_of[$key]:-}" ]; then
		group_of[$key]=$ngroups
		echo "$ngroups ${dev}" >>"$VM/groups.txt.new"
		ngroups=$((ngroups + 1))
	fi
	cp "$B/tests/vm/$name" "$ROOT/tern/tests/$name"
	echo "$name $limit" >>"$ROOT/tern/groups/${group_of[$key]}"
	# The same test behind the IOMMU, in a group of its own per device options.
	if [ -n "$iommu_re" ] && echo "$name" | grep -Eq "$iommu_re" &&
		! echo "$meta" | grep -q 'iommu=no'; then
		if [ -z "${iommu_group_of[$key]:-}" ]; then
			iommu_group_of[$key]=iommu-$niommu
			iommu_lines+=("iommu-$niommu ${dev}")
			niommu=$((niommu + 1))
		fi
		echo "$name $limit" >>"$ROOT/tern/groups/${iommu_group_of[$key]}"
	fi
	# The same test on a version 1.0 device.
	if [ -n "$hw10_re" ] && echo "$name" | grep -Eq "$hw10_re"; then
		if [ -z "${hw10_group_of[$key]:-}" ]; then
			hw10_group_of[$key]=hw10-$nhw10
			hw10_lines+=("hw10-$nhw10 $(hw10_opts "$dev")")
			nhw10=$((nhw10 + 1))
		fi
		echo "$name $limit" >>"$ROOT/tern/groups/${hw10_group_of[$key]}"
	fi
done
for line in "${iommu_lines[@]}" "${hw10_lines[@]}"; do
	echo "$line" >>"$VM/groups.txt.new"
done
mv "$VM/groups.txt.new" "$VM/groups.txt"
# Tools and demo programs, if built.
if [ -d "$B/userspace/bin" ]; then
	cp "$B"/userspace/bin/* "$ROOT/tern/bin/"
fi

(cd "$ROOT" && find . | sort | cpio -o -H newc --quiet | gzip -1) >"$VM/initramfs.cpio.gz"
log "initramfs ready: $(du -h "$VM/initramfs.cpio.gz" | cut -f1), modules: ${order[*]}, $ngroups test group(s), $niommu behind the IOMMU and $nhw10 on a 1.0 device"
