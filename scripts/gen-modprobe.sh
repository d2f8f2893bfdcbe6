#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# gen-modprobe.sh TERN_KO: a modprobe.d example for tern on stdout, made
# from the module's own parameter descriptions (modinfo), so every
# parameter is documented and none twice.  Every option is commented out:
# installed as is, the file changes nothing.
set -euo pipefail
ko=$1
cat <<'EOT'
# /etc/modprobe.d/tern.conf: options of the tern accelerator driver.
#
# Generated from `modinfo tern`; every option is commented out, so the
# defaults apply.  Remove the '#' in front of "options" and change the
# value to use one.  They can also be given at load time
# (`modprobe tern quantum_us=5000`); the scheduler's current values are in
# /sys/class/accel/accel<N>/device/tern_sched_* (docs/abi/sysfs-driver-tern).
EOT
modinfo -F parm "$ko" | while IFS= read -r line; do
	name=${line%%:*}
	desc=${line#*:}
	type=$(echo "$desc" | sed -n 's/.*(\([a-z]*\))$/\1/p')
	desc=$(echo "$desc" | sed 's/ *([a-z]*)$//')
	# the default: "(default N)", or "NAME (...; default)"
	def=$(echo "$desc" | sed -n 's/.*(default \([^)]*\)).*/\1/p')
	[ -n "$def" ] || def=$(echo "$desc" | sed -n 's/.*[ :]\([a-z0-9]*\) ([^)]*; default).*/\1/p')
	[ -n "$def" ] || { echo "gen-modprobe.sh: no default in the description of $name" >&2; exit 1; }
	echo
	echo "$desc" | fold -s -w 72 | sed 's/^/# /; s/ *$//'
	[ -n "$type" ] && echo "# Type: $type."
	echo "#options tern $name=$def"
done
