// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sched_drmfair: with debugfs sched_policy set to "drmfair" (the model of
 * drm_sched's FAIR policy, docs/scheduler.md 1.3) the engine never
 * preempts, orders contexts by a virtual time that lower classes
 * accumulate faster, and places a context that becomes ready just before
 * a lower-class one at the head of the queue:
 *
 * 1. The name: debugfs sched_policy and the sysfs attribute
 *    tern_sched_mode read "drmfair" after the write.
 * 2. Jobs arrive one at a time: LOW 300 ms (runs), NORMAL 20 ms (waits in
 *    the PENDING slot), LOW 20 ms, then HIGH 10 ms (both queued).  The
 *    HIGH job does not preempt (fair would) and runs after the NORMAL job
 *    already in the PENDING slot, but before the LOW job that arrived
 *    earlier (fifo would run that one first).
 * 3. A NORMAL and a LOW context, both backlogged behind a gate with 10 ms
 *    jobs, share the engine's device time 8 : 1 (LOW 1/9 = 0.111, within
 *    0.05) over a window of 1.5 s, with no preemption.  fifo would give
 *    0.5; fair, with the starvation bound raised out of the way as here,
 *    about 0.
 *
 * The knobs are restored on every exit path.
 *
 * tern-vm: device=compute-engines=1,time-scale=200 timeout=60
 */
#include <math.h>

#include "sched_test.h"

#define VA_STAMP	0x100000ull
#define VA_GATE		0x200000ull
#define LIMIT_S		60
#define WARMUP_MS	200
#define WINDOW_MS	1500
#define TOLERANCE	0.05

/* Read the sysfs attribute @name of the device, without its newline. */
static bool attr(const char *name, char *buf, size_t len)
{
	char dev[512], path[1024];

	if (!core_pci_dev(dev, sizeof(dev)))
		return false;
	snprintf(path, sizeof(path), "%s/%s", dev, name);
	return core_read_line(path, buf, len);
}

/* Part 2: no preemption, HIGH placed before the earlier LOW job. */
static void order(int fd, uint32_t *ctx, uint32_t bo,
		  volatile struct sched_stamp *stamp)
{
	/* arrival order */
	static const struct {
		uint32_t prio;
		unsigned int ms;
	} job[] = {
		{ DRM_TERN_PRIORITY_LOW, 300 },
		{ DRM_TERN_PRIORITY_NORMAL, 20 },
		{ DRM_TERN_PRIORITY_LOW, 20 },
		{ DRM_TERN_PRIORITY_HIGH, 10 },
	};
	/* the order they run in: LOW, NORMAL, HIGH, LOW */
	static const unsigned int run[] = { 0, 1, 3, 2 };
	const unsigned int njobs = sizeof(job) / sizeof(job[0]);
	uint32_t so = syncobj_new(fd), i, job_ctx[4];
	bool arrived, in_order = true;
	unsigned int job_ms[4];
	uint64_t pre = 0;
	int ret;

	for (i = 0; i < njobs; i++) {
		job_ctx[i] = ctx[job[i].prio];
		job_ms[i] = job[i].ms;
	}
	ret = sched_submit_arrivals(fd, job_ctx, job_ms, njobs, bo, VA_STAMP,
				    stamp, so, &arrived);
	tap_errno(ret, 0, "submit LOW 300 ms, NORMAL, LOW, then HIGH");
	tap_ok(arrived, "each job arrived before the next was submitted");
	ret = syncobj_wait(fd, so, 10000);
	for (i = 0; i < 3 && !ret; i++)
		ret = !ctx_idle(fd, ctx[i], 5000);
	tap_ok(!ret, "every job completed");

	for (i = 0; i < njobs; i++) {
		tap_diag("job %u (class %u): %llu..%llu", i, job[i].prio,
			 (unsigned long long)stamp[i].start,
			 (unsigned long long)stamp[i].end);
		if (!stamp[i].end)
			in_order = false;
	}
	for (i = 1; i < njobs; i++)
		if (stamp[run[i]].start < stamp[run[i - 1]].end)
			in_order = false;
	tap_ok(in_order,
	       "drmfair: LOW ran to its end, then NORMAL, then HIGH before the earlier LOW");
	for (i = 0; i < 3; i++)
		pre += sched_preemptions(fd, ctx[i]);
	tap_ok(pre == 0, "drmfair: nothing was preempted (%llu preemptions)",
	       (unsigned long long)pre);
	drmSyncobjDestroy(fd, so);
}

/* Part 3: NORMAL and LOW share 8 : 1. */
static void aging(int fd, uint32_t copy, uint32_t bo,
		  volatile uint32_t *gate_word)
{
	static const uint32_t prio[2] = { DRM_TERN_PRIORITY_NORMAL,
					  DRM_TERN_PRIORITY_LOW };
	/* 2 s and 0.6 s of work; they get about 1.5 s and 0.19 s */
	static const unsigned int njobs[2] = { 200, 60 }, ms = 10;
	uint32_t ctx[2] = { 0, 0 }, gate;
	uint64_t b0[2], b1[2], total = 0, pre = 0;
	bool backlog = true;
	double low = 0;
	unsigned int i;
	int ret;

	*gate_word = 0;
	gate = sched_gate(fd, copy, bo, VA_GATE);
	ret = !gate;
	for (i = 0; i < 2 && !ret; i++)
		ret = sched_ctx(fd, prio[i], 0, 0, &ctx[i]);
	for (i = 0; i < 2 && !ret; i++)
		ret = sched_queue_spins(fd, ctx[i], &ms, 1, njobs[i], gate, 0, 0);
	if (!tap_ok(!ret, "NORMAL and LOW: 260 jobs of 10 ms queued behind a gate"))
		return;
	*gate_word = 1;
	usleep(WARMUP_MS * 1000);
	for (i = 0; i < 2; i++)
		b0[i] = sched_busy_ns(fd, ctx[i]);
	usleep(WINDOW_MS * 1000);
	for (i = 0; i < 2; i++) {
		b1[i] = sched_busy_ns(fd, ctx[i]);
		backlog &= sched_backlogged(fd, ctx[i]);
		total += b1[i] - b0[i];
	}
	tap_ok(backlog && total, "both stayed backlogged (%llu ms of device time)",
	       (unsigned long long)(total / 1000000));
	if (total)
		low = (double)(b1[1] - b0[1]) / (double)total;
	tap_ok(total && fabs(low - 1.0 / 9) <= TOLERANCE,
	       "drmfair: LOW got %.3f of the device time, 1/9 expected (within %.2f)",
	       low, TOLERANCE);
	for (i = 0; i < 2; i++) {
		pre += sched_preemptions(fd, ctx[i]);
		ctx_destroy(fd, ctx[i]);
	}
	tap_ok(pre == 0, "drmfair: nothing was preempted (%llu preemptions)",
	       (unsigned long long)pre);
	tap_ok(sched_wait_jobs(SCHED_ENGINE, 0, 0, 5000),
	       "the rest is cancelled: the engine goes idle");
}

int main(void)
{
	uint32_t ctx[3] = { 0, 0, 0 }, bo = 0, copy = 0;
	volatile struct sched_stamp *stamp = NULL;
	char buf[32], mode[32];
	int fd;

	fd = tern_test_open();
	if (!tap_ok(fd >= 0 && sched_knobs_save(LIMIT_S) &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_LOW, 0, 0, &ctx[0]) &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_NORMAL, 0, 0, &ctx[1]) &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_HIGH, 0, 0, &ctx[2]) &&
		    !ctx_create(fd, DRM_TERN_PRIORITY_NORMAL,
				DRM_TERN_ENGINE_CLASS_COPY, 0, &copy) &&
		    !core_bo(fd, 2 << 20, VA_STAMP, &bo, (void **)&stamp),
		    "LOW, NORMAL and HIGH contexts on engine 0; knobs saved"))
		return tap_exit_status();
	memset((void *)stamp, 0, 2 << 20);

	tap_errno(sched_dbg_write("sched_policy", "drmfair"), 0,
		  "write drmfair to sched_policy");
	tap_ok(sched_dbg_read("sched_policy", buf, sizeof(buf)) > 0 &&
	       !strcmp(buf, "drmfair\n") && attr("tern_sched_mode", mode, sizeof(mode)) &&
	       !strcmp(mode, "drmfair"),
	       "sched_policy and tern_sched_mode read drmfair (%s)", mode);
	/* fair would let LOW run every 50 ms: keep its bound out of the way */
	tap_errno(sched_dbg_write("starve_ms", "100000"), 0, "starve_ms 100000");

	order(fd, ctx, bo, stamp);
	aging(fd, copy, bo,
	      (volatile uint32_t *)((volatile char *)stamp + (VA_GATE - VA_STAMP)));

	close(fd);
	tap_done();
	return tap_exit_status();
}
