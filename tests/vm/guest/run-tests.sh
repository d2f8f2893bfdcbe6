#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs the VM tests of one group, one after another, each under a time limit.
# Before each test tern.ko is (re)loaded if a previous test left it unloaded.
# Prints, for the host to parse:
#   TERN-TEST-BEGIN <name>
#   <the test's TAP output>
#   TERN-TEST-END <name> rc=<exit status>
#   TERN-DMESG-BEGIN <name> / kernel messages logged during the test / TERN-DMESG-END <name>
#   TERN-LEAK <name> <what>, if contexts outlived the test's processes
group=$1

# Contexts of processes that exited are freed within moments; one that
# stays holds a job that never finished.  Name the test that left it, with
# the scheduler's state, once per device (later tests are not blamed for
# what was already there).
leak_check() {
	for d in /sys/kernel/debug/accel/*; do
		[ -r "$d/contexts" ] || continue
		key=/tmp/tern-leak-${d##*/}
		before=$(cat "$key" 2>/dev/null || echo 0)
		i=0
		while n=$(grep -c '^ctx ' "$d/contexts" 2>/dev/null) &&
		      [ "$n" -gt "$before" ] && [ $i -lt 10 ]; do
			sleep 1
			i=$((i + 1))
		done
		[ "$n" -gt "$before" ] || continue
		echo "$n" >"$key"
		echo "TERN-LEAK $1 $n contexts of exited processes still on ${d##*/} after ${i} s"
		for f in contexts queues engines; do
			sed "s/^/# $f: /" "$d/$f"
		done
	done
}

only=
for arg in $(cat /proc/cmdline); do
	case "$arg" in tern.only=*) only=${arg#tern.only=} ;; esac
done
# Which IOMMU domain each tern function is in ("DMA": every DMA translated),
# for vm-results.py to check the iommu-<n> groups.
for d in /sys/bus/pci/drivers/tern/0000:*; do
	[ -e "$d/iommu_group/type" ] &&
		echo "TERN-IOMMU ${d##*/} $(cat "$d/iommu_group/type")"
done
# The hardware version of each device, as the driver reported it at probe,
# for vm-results.py to check the hw10-<n> groups.
dmesg | grep -o 'tern [0-9]*\.[0-9]*: [0-9]* engines' | sed 's/^/TERN-HW /'
dmesg -c >/dev/null
while read -r name limit; do
	[ -n "$name" ] || continue
	[ -z "$only" ] || echo "$name" | grep -Eq "$only" || continue
	[ -e /dev/accel/accel0 ] || insmod "$TERN_KO" 2>/dev/null
	echo "TERN-TEST-BEGIN $name"
	cd /tmp && timeout -s KILL "$limit" "/tern/tests/$name"
	rc=$?
	echo "TERN-TEST-END $name rc=$rc"
	# killed at its time limit: show where the kernel holds its tasks
	if [ "$rc" -eq 137 ]; then
		echo w >/proc/sysrq-trigger 2>/dev/null
		for t in /proc/[0-9]*/task/[0-9]*; do
			[ "$(cat "$t/comm" 2>/dev/null)" = "$(echo "$name" | cut -c1-15)" ] ||
				continue
			echo "TERN-STUCK ${t#/proc/} $(cat "$t/wchan" 2>/dev/null)"
			sed 's/^/TERN-STUCK   /' "$t/stack" 2>/dev/null
		done
	fi
	leak_check "$name"
	echo "TERN-DMESG-BEGIN $name"
	dmesg -c
	echo "TERN-DMESG-END $name"
done <"/tern/groups/$group"
echo "TERN-GROUP-DONE $group"
