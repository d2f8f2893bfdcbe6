// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * test_fdinfo: tern-top's parsers of the DRM fdinfo keys and of the
 * preemption counters of the debugfs engines file.
 */
#include <string.h>

#include "fdinfo.h"
#include "tap.h"

static const char sample[] =
	"pos:\t0\n"
	"flags:\t02100002\n"
	"mnt_id:\t25\n"
	"ino:\t123\n"
	"drm-driver:\ttern\n"
	"drm-client-id:\t42\n"
	"drm-pdev:\t0000:00:03.0\n"
	"drm-engine-compute0:\t123456789 ns\n"
	"drm-engine-compute1:\t0 ns\n"
	"drm-engine-copy:\t1000 ns\n"
	"drm-engine-capacity-compute0:\t2\n"
	"drm-total-system:\t8 MiB\n"
	"drm-resident-system:\t512 KiB\n"
	"drm-resident-local:\t4096\n";

/* The debugfs engines file as the scheduler prints it. */
static const char engines_text[] =
	"engine 0: compute, preempting, 2 in slots, 3 queued, contexts 2\n"
	"  policy fair quantum_us 2000 starve_ms 50\n"
	"  run 10 completed 8 faults 0 resets 0 irqs 12 hw_seqno 10\n"
	"  preempt requested 4 served 3 jobs 2 latency_ns last 81234 max 190000\n"
	"  status 0x00000001 progress 5 busy_ns 123 writeback 9\n"
	"  slot 0: running outcome 0 ctx 1 job 3 hw_seqno 9 size 64\n"
	"engine 2: copy, 0 in slots, 0 queued, contexts 0\n"
	"  policy fair quantum_us 2000 starve_ms 50\n"
	"  preempt requested 0 served 0 jobs 0 latency_ns last 0 max 0\n";

static void test_engines(void)
{
	struct tern_engine_preempt e[4];
	unsigned int n;

	n = tern_engines_parse(engines_text, e, 4);
	ok(n == 2, "two engines with preemption counters (%u)", n);
	ok(e[0].id == 0 && !strcmp(e[0].class_name, "compute") && e[0].requested == 4 &&
	   e[0].served == 3 && e[0].jobs == 2 && e[0].max_latency_ns == 190000,
	   "engine 0: class, requested, served, jobs, max latency");
	ok(n == 2 && e[1].id == 2 && !strcmp(e[1].class_name, "copy") && e[1].jobs == 0,
	   "engine 2, the copy engine, with none");
	ok(tern_engines_parse(engines_text, e, 1) == 1 && e[0].id == 0,
	   "no more engines than there is room for");
	ok(tern_engines_parse("engine 0: compute, 2 in slots, 0 queued, contexts 1\n"
			      "  run 1 completed 1 faults 0 resets 0 irqs 1 hw_seqno 1\n",
			      e, 4) == 0, "a driver without preemption counters: none");
	n = tern_engines_parse("engine 1: compute\n  preempt requested 7 served 7\n", e, 4);
	ok(n == 1 && e[0].id == 1 && e[0].jobs == 7 && e[0].max_latency_ns == 0,
	   "without jobs and latency fields, jobs are the served requests");
	ok(tern_engines_parse("  preempt requested 1 served 1 jobs 1\n", e, 4) == 0,
	   "a preemption line outside an engine is ignored");
}

int main(void)
{
	struct drm_fdinfo fi;
	const struct fdinfo_engine *e;
	char many[4096] = "drm-driver: tern\n";
	int i;

	ok(drm_fdinfo_parse(sample, &fi) == 0, "a DRM fdinfo parses");
	ok(!strcmp(fi.driver, "tern") && !strcmp(fi.pdev, "0000:00:03.0"),
	   "driver and PCI device");
	ok(fi.has_client_id && fi.client_id == 42, "client id");
	ok(fi.engine_count == 3, "three engines (%u)", fi.engine_count);
	e = drm_fdinfo_engine(&fi, "compute0");
	ok(e && e->busy_ns == 123456789 && e->capacity == 2,
	   "compute0: busy time and capacity (capacity key after the engine key)");
	e = drm_fdinfo_engine(&fi, "copy");
	ok(e && e->busy_ns == 1000 && e->capacity == 1, "copy: capacity defaults to 1");
	ok(!drm_fdinfo_engine(&fi, "compute"), "no engine matched by prefix");
	ok(fi.total_bytes == 8u << 20, "drm-total in MiB");
	ok(fi.resident_bytes == (512u << 10) + 4096, "drm-resident summed over regions, "
	   "KiB and plain bytes");
	ok(drm_fdinfo_parse("pos:\t0\nflags:\t02\n", &fi) == -1, "a non-DRM fdinfo is not a client");
	ok(drm_fdinfo_parse("", &fi) == -1, "nor is an empty one");
	ok(drm_fdinfo_parse("drm-driver:\ttern", &fi) == 0 && !strcmp(fi.driver, "tern") &&
	   !fi.has_client_id, "a last line without newline is read");
	for (i = 0; i < 20; i++) {
		char line[64];

		snprintf(line, sizeof(line), "drm-engine-e%d: %d ns\n", i, i);
		strcat(many, line);
	}
	ok(drm_fdinfo_parse(many, &fi) == 0 && fi.engine_count == FDINFO_MAX_ENGINES,
	   "engines beyond %d are dropped, not overflowed", FDINFO_MAX_ENGINES);
	test_engines();
	return tap_end();
}
