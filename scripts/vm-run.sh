#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Boot the Debian 6.12 kernel in the QEMU built with the tern device.
#
#   vm-run.sh test    run every VM test group (one boot per group), stream the
#                     console, then judge the results with vm-results.py
#   vm-run.sh shell   interactive shell in the guest, tern.ko loaded
#   vm-run.sh demo    run the demo under tern-trace; its timeline lands in
#                     build/vm/demo-timeline.svg (and demo-trace.json)
#   vm-run.sh pictures record the timelines of docs/scheduler.md into
#                     docs/pictures (TERN_PICTURES_OUT)
#   vm-run.sh bench   run the benchmark suite (scripts/bench.sh reads the log;
#                     TERN_BENCH_ARGS: tern-benchsuite's options, TERN_BENCH_LIMIT)
#
# Environment: TERN_QEMU (another qemu-system-x86_64 to run, e.g. to compare
# builds), TERN_ACCEL (tcg, or kvm where it works), TERN_VM_SMP (2),
# TERN_VM_MEM (1G), TERN_DEVICE_OPTS (extra -device tern options for shell
# and demo; several devices are separated by "+"; the demo's default is
# time-scale=200, which makes its GEMM last about 420 ms of device time
# without costing the host more), TERN_DEMO_ARGS (tern-demo's options, e.g.
# "-s 256 -w 100"),
# TERN_VM_TESTS (only run tests whose name matches this regex),
# TERN_VM_CMDLINE (more kernel parameters; NAME=value ones without a dot
# reach the tests as environment variables, e.g. TERN_FUZZ_ITERATIONS=N),
# TERN_VM_IOMMU (test mode: 1 also runs the iommu-<n> groups, the default;
# 0 skips them; only runs nothing but them).
#
# Test groups boot with page_poison=1, so that the kernel reports a write
# into a freed page ("pagealloc: memory corruption") when the page is next
# allocated.  Groups named iommu-<n> boot behind a virtual Intel IOMMU
# (intel_iommu=on, strict invalidation): a DMA the driver did not map, or
# made after the unmap, is refused and logged as a DMAR fault.  vm-results.py
# fails the test during which either shows.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=${1:-test}
KREL=${KREL:-$(kernel_release)}
VMLINUZ=$TERN_CACHE/kernel/$KREL/root/boot/vmlinuz-$KREL
QEMU=${TERN_QEMU:-$TERN_CACHE/qemu-build/current/qemu-system-x86_64}
VM=$TERN_TOP/build/vm
for f in "$VMLINUZ" "$QEMU" "$VM/initramfs.cpio.gz"; do
	[ -e "$f" ] || die "missing $f: run 'make setup qemu initramfs'"
done
accel=${TERN_ACCEL:-tcg}
cpu=max
[ "$accel" = kvm ] && cpu=host

# take_files LOG DIR: write the files the guest printed between
# "TERN-FILE-BEGIN <name>" and "TERN-FILE-END" (base64) into DIR.
take_files() {
	local name
	for name in $(sed -n 's/^TERN-FILE-BEGIN \([A-Za-z0-9._-]*\)\r*$/\1/p' "$1"); do
		sed -n "/^TERN-FILE-BEGIN $name\r*\$/,/^TERN-FILE-END/p" "$1" |
			sed '1d;$d' | tr -d '\r' | base64 -d >"$2/$name" ||
			log "could not decode $name from the console"
	done
}

# boot LOG DEVICE_OPTS CMDLINE TIMEOUT [iommu]: one boot; console to LOG and
# stdout (without the files the guest sends in base64).  With "iommu", the
# devices sit behind an emulated Intel IOMMU.
boot() {
	local log=$1 dev=$2 cmdline=$3 limit=$4 iommu=${5:-} rc=0
	local machine="q35,accel=$accel"
	local -a args
	# intremap=on wants the split irqchip under KVM; TCG ignores the option.
	[ -n "$iommu" ] && machine+=",kernel-irqchip=split"
	args=(-L /usr/share/qemu -bios /usr/share/qemu/qboot.rom
		-machine "$machine" -cpu "$cpu" -smp "${TERN_VM_SMP:-2}"
		-m "${TERN_VM_MEM:-1G}" -vga none -nic none -no-reboot
		-kernel "$VMLINUZ" -initrd "$VM/initramfs.cpio.gz")
	# The IOMMU comes before the devices it translates for.
	if [ -n "$iommu" ]; then
		args+=(-device intel-iommu,intremap=on)
		cmdline="intel_iommu=on iommu.strict=1 $cmdline"
	fi
	# DEVICE_OPTS may describe several tern devices, separated by "+".
	local one
	local -a devs
	IFS=+ read -ra devs <<<"${dev:-}"
	[ ${#devs[@]} -gt 0 ] || devs=("")
	for one in "${devs[@]}"; do
		args+=(-device "tern${one:+,$one}")
	done
	if [ "$mode" = shell ]; then
		"$QEMU" "${args[@]}" -nographic \
			-append "console=ttyS0 quiet panic=-1 tern.mode=shell $cmdline"
		return
	fi
	# A hung guest is killed: TERM at the limit, KILL 10 s later.
	timeout -k 10 "$limit" "$QEMU" "${args[@]}" -display none -serial stdio \
		-monitor none -append "console=ttyS0 quiet panic=-1 oops=panic $cmdline${TERN_VM_CMDLINE:+ $TERN_VM_CMDLINE}" \
		</dev/null 2>&1 | tee "$log" |
		sed -u '/^TERN-FILE-BEGIN/,/^TERN-FILE-END/d' || rc=$?
	[ "$rc" = 124 ] && log "VM timed out after $limit s: killed"
	return 0
}

case "$mode" in
shell)
	boot "" "${TERN_DEVICE_OPTS:-}" "" 0 ;;
demo)
	boot "$VM/console-demo.log" "${TERN_DEVICE_OPTS:-time-scale=200}" \
		"tern.mode=demo${TERN_DEMO_ARGS:+ TERN_DEMO_ARGS=${TERN_DEMO_ARGS// /,}}" 600
	rm -f "$VM/demo-trace.json" "$VM/demo-timeline.svg"
	take_files "$VM/console-demo.log" "$VM"
	grep -q '^TERN-DEMO-OK' "$VM/console-demo.log" || die "the demo failed"
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$VM/demo-trace.json" ||
		die "the demo's trace is not valid JSON"
	grep -q '</svg>' "$VM/demo-timeline.svg" || die "the demo's timeline is incomplete"
	log "the scheduler's timeline of the demo (open it in a browser): $VM/demo-timeline.svg"
	log "the same as a trace for ui.perfetto.dev or chrome://tracing: $VM/demo-trace.json"
	;;
pictures)
	boot "$VM/console-pictures.log" "${TERN_DEVICE_OPTS:-compute-engines=1,time-scale=200}" \
		"tern.mode=pictures" 300
	out=${TERN_PICTURES_OUT:-$TERN_TOP/docs/pictures}
	mkdir -p "$out"
	take_files "$VM/console-pictures.log" "$out"
	grep -q '^TERN-PICTURES-OK' "$VM/console-pictures.log" || die "a recording failed"
	log "timelines written to $out"
	;;
bench)
	boot "$VM/console-bench.log" "${TERN_DEVICE_OPTS:-}" \
		"tern.mode=bench${TERN_BENCH_ARGS:+ TERN_BENCH_ARGS=${TERN_BENCH_ARGS// /,}}" \
		"${TERN_BENCH_LIMIT:-900}"
	grep -q '^TERN-BENCH-OK' "$VM/console-bench.log" || die "the benchmark suite failed"
	;;
test)
	rm -f "$VM"/console-*.log
	while read -r group dev; do
		iommu=
		case "$group" in iommu-*) iommu=iommu ;; esac
		case "${TERN_VM_IOMMU:-1}:$iommu" in
		0:iommu | only:) continue ;;
		esac
		names=$(awk '{ print $1 }' "$VM/root/tern/groups/$group")
		if [ -n "${TERN_VM_TESTS:-}" ]; then
			names=$(echo "$names" | grep -E "$TERN_VM_TESTS" || true)
			[ -n "$names" ] || continue
		fi
		limit=$(awk '{ s += $2 } END { print s + 90 }' "$VM/root/tern/groups/$group")
		log "VM boot for test group $group (device options: ${dev:-defaults}${iommu:+, behind the IOMMU}): $(echo $names)"
		boot "$VM/console-$group.log" "$dev" \
			"page_poison=1 tern.group=$group${TERN_VM_TESTS:+ tern.only=$TERN_VM_TESTS}" \
			"$limit" "$iommu"
	done <"$VM/groups.txt"
	python3 "$TERN_TOP/scripts/vm-results.py" "$VM" "${TERN_VM_TESTS:-}"
	;;
*) die "unknown mode $mode" ;;
esac
