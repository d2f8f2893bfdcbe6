// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sched_knobs: the scheduler's controls and what they refuse.
 *
 * - debugfs sched_policy, quantum_us and starve_ms start from the module
 *   parameters of the same names (policy fair by default), accept values
 *   at the ends of their ranges, refuse others with EINVAL and keep the
 *   old value; "engines" shows every engine's policy line, which follows
 *   a switch to fifo, to drmfair and back;
 * - CONTEXT_CREATE refuses weight 65 and a non-zero pad with EINVAL,
 *   accepts weights 0 (the default, 1) and 64, and debugfs "queues" shows
 *   each context with its class and weight;
 * - preempt_latency is cleared by a write;
 * - raw_nop runs NOP buffers straight from the driver, serial (a time per
 *   run) or pipelined, and refuses bad requests; on a busy engine it waits
 *   for the slots to drain and the queued work runs afterwards.
 *
 * tern-vm: device=compute-engines=1,time-scale=200 timeout=120
 */
#include "sched_test.h"

#define VA	0x100000ull
#define LIMIT_S	120

static char buf[1 << 16];

/* Every bad value is refused with EINVAL and @name still reads @keep. */
static void refuse(const char *name, const char *const *bad, const char *keep)
{
	unsigned int i, wrong = 0;

	for (i = 0; bad[i]; i++) {
		int ret = sched_dbg_write(name, bad[i]);

		if (ret != -EINVAL) {
			tap_diag("%s: writing \"%s\" gave %s", name, bad[i],
				 ret ? strerror(-ret) : "success");
			wrong++;
		}
	}
	tap_ok(!wrong && sched_dbg_read(name, buf, sizeof(buf)) > 0 &&
	       !strcmp(buf, keep), "%s refuses %u bad values with EINVAL, keeps %.*s",
	       name, i, (int)strcspn(keep, "\n"), keep);
}

/* The value written reads back. */
static bool takes(const char *name, const char *value)
{
	char want[32];

	snprintf(want, sizeof(want), "%s\n", value);
	return !sched_dbg_write(name, value) &&
	       sched_dbg_read(name, buf, sizeof(buf)) > 0 && !strcmp(buf, want);
}

/* Lines of debugfs "engines" that start with @prefix. */
static unsigned int engines_lines(const char *prefix)
{
	unsigned int n = 0;
	char *p = buf;

	if (sched_dbg_read("engines", buf, sizeof(buf)) <= 0)
		return 0;
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += !strncmp(p, prefix, strlen(prefix));
	return n;
}

static void policy_knobs(unsigned int engines)
{
	static const char *const bad_policy[] = { "lifo", "FIFO", "fair2",
						  "fifo fair", "drmFAIR",
						  "drm_fair", NULL };
	static const char *const bad_quantum[] = { "0", "1000001", "abc", "-5",
						   "12x", NULL };
	static const char *const bad_starve[] = { "0", "100001", "x", "-1",
						  NULL };
	char policy[16], quantum[16], starve[16], line[128], keep[24];

	/* debugfs starts from the module parameters: fair by default */
	sched_module_param("sched_policy", policy, sizeof(policy));
	sched_module_param("quantum_us", quantum, sizeof(quantum));
	sched_module_param("starve_ms", starve, sizeof(starve));
	tap_ok(!strcmp(policy, "fair") && atol(quantum) > 0 && atol(starve) > 0,
	       "module parameters: sched_policy %s, quantum_us %s, starve_ms %s",
	       policy, quantum, starve);
	tap_ok(sched_dbg_read("sched_policy", buf, sizeof(buf)) > 0 &&
	       !strncmp(buf, policy, strlen(policy)) &&
	       sched_dbg_long("quantum_us") == atol(quantum) &&
	       sched_dbg_long("starve_ms") == atol(starve),
	       "debugfs sched_policy, quantum_us and starve_ms start from them");
	snprintf(line, sizeof(line), "  policy fair quantum_us %s starve_ms %s\n",
		 quantum, starve);
	tap_ok(engines_lines(line) == engines,
	       "debugfs engines shows the policy of each of the %u engines",
	       engines);

	refuse("sched_policy", bad_policy, "fair\n");
	snprintf(keep, sizeof(keep), "%s\n", quantum);
	refuse("quantum_us", bad_quantum, keep);
	snprintf(keep, sizeof(keep), "%s\n", starve);
	refuse("starve_ms", bad_starve, keep);
	tap_ok(takes("quantum_us", "1") && takes("quantum_us", "1000000") &&
	       takes("quantum_us", quantum), "quantum_us takes 1 and 1000000");
	tap_ok(sched_dbg_long("starve_ms") == atol(starve),
	       "a quantum above starve_ms and back leaves starve_ms alone (%ld)",
	       sched_dbg_long("starve_ms"));
	sched_dbg_write("starve_ms", starve);
	/* the bound is at least the quantum (docs/scheduler.md): 1 may read so */
	tap_ok(!sched_dbg_write("starve_ms", "1") &&
	       (sched_dbg_long("starve_ms") == 1 ||
		sched_dbg_long("starve_ms") == (atol(quantum) + 999) / 1000) &&
	       takes("starve_ms", "100000") && takes("starve_ms", starve),
	       "starve_ms takes 1 and 100000");
	tap_ok(takes("sched_policy", "fifo") &&
	       engines_lines("  policy fifo ") == engines,
	       "sched_policy fifo switches every engine");
	tap_ok(takes("sched_policy", "drmfair") &&
	       engines_lines("  policy drmfair ") == engines,
	       "sched_policy drmfair switches every engine");
	tap_ok(takes("sched_policy", "fair") &&
	       engines_lines("  policy fair ") == engines,
	       "and fair switches them back");
}

static void weights(int fd)
{
	static const uint32_t w[3] = { 0, 3, 64 }, p[3] = { 0, 1, 2 };
	struct drm_tern_context_create c = {
		.engine_class = DRM_TERN_ENGINE_CLASS_COMPUTE,
	};
	uint32_t h[3] = { 0, 0, 0 };
	unsigned int i, prio = 0, weight = 0, queued = 0, ok = 0;

	c.weight = DRM_TERN_WEIGHT_MAX + 1;
	tap_errno(mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &c), -EINVAL,
		  "CONTEXT_CREATE with weight 65");
	c.weight = 0;
	c.pad = 1;
	tap_errno(mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &c), -EINVAL,
		  "CONTEXT_CREATE with pad 1");
	for (i = 0; i < 3; i++)
		if (sched_ctx(fd, p[i], w[i], 0, &h[i]))
			break;
	tap_ok(i == 3, "CONTEXT_CREATE with weights 0, 3 and 64");
	for (i = 0; i < 3; i++) {
		bool found = sched_queue_entry(sched_ctx_tag(h[i]), &prio,
					       &weight, &queued);

		tap_diag("weight %u: %s prio %u weight %u", w[i],
			 found ? "found" : "not found", prio, weight);
		ok += found && prio == p[i] &&
		      weight == (w[i] ? w[i] : DRM_TERN_WEIGHT_DEFAULT);
	}
	tap_ok(ok == 3, "debugfs queues shows their classes and weights (0 as %u)",
	       DRM_TERN_WEIGHT_DEFAULT);
	for (i = 0; i < 3; i++)
		ctx_destroy(fd, h[i]);
}

/* Parse the head line of raw_nop: engine, mode, count, total_ns. */
static bool raw_result(unsigned int *e, char *mode, unsigned int *count,
		       unsigned long long *total)
{
	return sched_dbg_read("raw_nop", buf, sizeof(buf)) > 0 &&
	       sscanf(buf, "engine %u mode %15s count %u total_ns %llu", e,
		      mode, count, total) == 4;
}

static void raw_nop(int fd)
{
	static const char *const bad[] = { "0 0 serial", "0 100001 serial",
					   "0 10 parallel", "9 10 serial",
					   "0 serial", NULL };
	unsigned long long total = 0, rt;
	unsigned int e = ~0u, count = 0, lines = 0, zero = 0, i, wrong = 0;
	char mode[16] = "";
	uint32_t ctx = 0, bo = 0, so;
	volatile struct sched_stamp *s = NULL;
	struct sched_job j;
	bool ok;
	char *p;

	tap_errno(sched_dbg_write("raw_nop", "0 10 serial"), 0,
		  "raw_nop: 10 serial NOPs on engine 0");
	ok = raw_result(&e, mode, &count, &total);
	tap_ok(ok && e == 0 && !strcmp(mode, "serial") && count == 10 &&
	       total > 0,
	       "raw_nop reads engine %u mode %s count %u total_ns %llu", e,
	       mode, count, total);
	p = strchr(buf, '\n');
	for (p = p ? p + 1 : NULL; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (sscanf(p, "%llu", &rt) == 1) {
			lines++;
			zero += !rt;
		}
	tap_ok(lines == 10 && !zero, "and one non-zero round trip per run (%u)",
	       lines);
	tap_errno(sched_dbg_write("raw_nop", "0 50 pipelined"), 0,
		  "raw_nop: 50 pipelined NOPs");
	ok = raw_result(&e, mode, &count, &total);
	tap_ok(ok && !strcmp(mode, "pipelined") && count == 50 && total > 0 &&
	       strchr(buf, '\n') && !strchr(buf, '\n')[1],
	       "raw_nop reads mode %s count %u, one line", mode, count);
	for (i = 0; bad[i]; i++)
		wrong += sched_dbg_write("raw_nop", bad[i]) != -EINVAL;
	tap_ok(!wrong, "raw_nop refuses %u bad requests with EINVAL", i);

	/*
	 * On a busy engine: a 200 ms job runs, a second waits in the PENDING
	 * slot, a third is queued.  raw_nop waits for both slots, runs, and
	 * hands the engine back: the third job runs after it.
	 */
	so = syncobj_new(fd);
	ok = !sched_ctx(fd, DRM_TERN_PRIORITY_NORMAL, 0, 0, &ctx) &&
	     !core_bo(fd, 4096, VA, &bo, (void **)&s);
	for (i = 0; i < 3 && ok; i++) {
		sched_job_begin(&j, VA + 16 * i);
		pkt_spin(j.dw, &j.n, SCHED_SPIN_MS(i ? 20 : 200));
		ok = !sched_job_submit(fd, ctx, &j, &bo, 1, 0, i == 2 ? so : 0);
		if (!i)
			ok = ok && sched_wait_u64(&s[0].start, 5000);
	}
	ok = ok && sched_wait_jobs(SCHED_ENGINE, 2, 1, 5000);
	tap_ok(ok && !sched_dbg_write("raw_nop", "0 20 serial") &&
	       raw_result(&e, mode, &count, &total) && count == 20,
	       "raw_nop on a busy engine: 20 NOPs ran");
	tap_ok(!syncobj_wait(fd, so, 5000) && s[0].end && s[1].end <= s[2].start &&
	       s[0].end <= s[1].start && s[2].end,
	       "the jobs in the slots and the queued one all ran, in order");
}

int main(void)
{
	struct drm_tern_get_info info;
	int fd;

	fd = tern_test_open();
	if (!tap_ok(fd >= 0 && !core_get_info(fd, &info) &&
		    sched_knobs_save(LIMIT_S), "open the device, save the knobs"))
		return tap_exit_status();
	policy_knobs(info.engine_count);
	weights(fd);
	tap_ok(!sched_dbg_write("preempt_latency", "0") &&
	       sched_dbg_read("preempt_latency", buf, sizeof(buf)) == 0,
	       "writing preempt_latency clears it");
	raw_nop(fd);
	close(fd);
	tap_done();
	return tap_exit_status();
}
