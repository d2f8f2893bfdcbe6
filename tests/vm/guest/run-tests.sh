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
group=$1
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
dmesg -c >/dev/null
while read -r name limit; do
	[ -n "$name" ] || continue
	[ -z "$only" ] || echo "$name" | grep -Eq "$only" || continue
	[ -e /dev/accel/accel0 ] || insmod "$TERN_KO" 2>/dev/null
	echo "TERN-TEST-BEGIN $name"
	cd /tmp && timeout -s KILL "$limit" "/tern/tests/$name"
	rc=$?
	echo "TERN-TEST-END $name rc=$rc"
	echo "TERN-DMESG-BEGIN $name"
	dmesg -c
	echo "TERN-DMESG-END $name"
done <"/tern/groups/$group"
echo "TERN-GROUP-DONE $group"
