#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The guest side of `make trace-pictures`: record the scheduler with
# tern-trace in the three situations docs/scheduler.md shows, on one device
# with one compute engine and time-scale=200 (a SPIN of N us lasts N * 200 us
# of device time): a high-priority job preempting a GEMM (the demo),
# weighted sharing between two contexts of one class, and the starvation
# bound giving a low-priority context its turn under high-priority load.
# Each SVG and JSON goes to the console in base64 between TERN-FILE-BEGIN/END
# lines.  Prints TERN-PICTURES-OK when every recording succeeded.
export PATH=/tern/bin:$PATH
dbg=$(ls -d /sys/kernel/debug/accel/*/ | head -n 1)
ok=1

# trace NAME COMMAND...: record COMMAND into NAME.svg and NAME.json
trace() {
	name=$1
	shift
	echo "==== $name: $* ===="
	if ! tern-trace -o "/tmp/$name.json" --svg "/tmp/$name.svg" -- "$@"; then
		echo "TERN-PICTURES-FAILED: $name"
		ok=0
	fi
	for f in "$name.json" "$name.svg"; do
		[ -s "/tmp/$f" ] || continue
		echo "TERN-FILE-BEGIN $f"
		base64 "/tmp/$f"
		echo "TERN-FILE-END"
	done
}

trace sched-preemption tern-demo -s 128 -w 50
# two NORMAL contexts of weights 1 and 3, both kept 6 jobs deep (2 ms jobs,
# deep enough that the slow guest's resubmissions never leave one idle)
trace sched-weights tern-load -t 120 normal:1:10:6 normal:3:10:6
# HIGH load of 4 ms jobs, 6 deep: the engine never lacks HIGH work; a LOW
# context runs only when the starvation bound (20 ms) gives it a turn
echo 20 >"$dbg/starve_ms"
trace sched-starvation tern-load -t 150 high:1:20:6 low:1:5:1
echo 50 >"$dbg/starve_ms"
[ "$ok" = 1 ] && echo "TERN-PICTURES-OK"
