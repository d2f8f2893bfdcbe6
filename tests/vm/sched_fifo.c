// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sched_fifo: with debugfs sched_policy set to "fifo" the engine runs jobs
 * in arrival order whatever their class, and never preempts: a HIGH job
 * arriving behind LOW and NORMAL work waits for all of it.  Writing "fair"
 * back makes a HIGH arrival preempt again.  Switching to fifo while a
 * preempted LOW job and a later NORMAL job wait applies to them at once:
 * the LOW job, which arrived first, runs first.  The policy is restored
 * on every exit path, so that later tests of the boot run with "fair".
 *
 * The jobs arrive one at a time: each submission waits until debugfs
 * shows the job in a slot or in the queue, so that the arrival order is the
 * submission order and not drm_sched's choice among ready contexts.
 *
 * tern-vm: device=compute-engines=1,time-scale=200 timeout=120
 */
#include "sched_test.h"

#define VA_STAMP	0x100000ull
#define LIMIT_S		120

/*
 * Two HIGH SPINs of 200 ms on @ctx (stamps 3 and 4) in one
 * DRM_IOCTL_TERN_SUBMIT_MANY.  0 or -errno.
 */
static int submit_high_pair(int fd, uint32_t ctx, uint32_t bo)
{
	struct drm_tern_submit sub[2];
	struct drm_tern_submit_many m = {
		.submits = (uintptr_t)sub,
		.count = 2,
		.stride = sizeof(sub[0]),
	};
	struct sched_job j[2];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		sched_job_begin(&j[i], VA_STAMP + 16 * (3 + i));
		pkt_spin(j[i].dw, &j[i].n, SCHED_SPIN_MS(200));
		pkt_timestamp(j[i].dw, &j[i].n, j[i].stamp_va + 8);
		sub[i] = (struct drm_tern_submit){
			.context = ctx,
			.cmdbuf = (uintptr_t)j[i].dw,
			.cmdbuf_size = j[i].n * 4,
			.bo_count = 1,
			.bo_handles = (uintptr_t)&bo,
		};
	}
	if (ioctl(fd, DRM_IOCTL_TERN_SUBMIT_MANY, &m))
		return -errno;
	return m.submitted == 2 ? 0 : m.error;
}

int main(void)
{
	/* arrival order; LOW runs first and long, HIGH arrives last */
	static const struct {
		uint32_t prio;
		unsigned int ms;
	} job[] = {
		{ DRM_TERN_PRIORITY_LOW, 300 },
		{ DRM_TERN_PRIORITY_NORMAL, 20 },
		{ DRM_TERN_PRIORITY_LOW, 20 },
		{ DRM_TERN_PRIORITY_NORMAL, 20 },
		{ DRM_TERN_PRIORITY_HIGH, 10 },
	};
	const unsigned int njobs = sizeof(job) / sizeof(job[0]);
	uint32_t ctx[3] = { 0, 0, 0 }, bo = 0, so, i, job_ctx[5];
	unsigned int job_ms[5];
	volatile struct sched_stamp *stamp = NULL;
	struct sched_job j;
	char buf[32];
	bool in_order = true, arrived = true, ok;
	unsigned int prio = 0, weight = 0, queued = 0;
	uint64_t pre = 0;
	int fd, ret = 0;

	fd = tern_test_open();
	if (!tap_ok(fd >= 0 && sched_knobs_save(LIMIT_S) &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_LOW, 0, 0, &ctx[0]) &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_NORMAL, 0, 0, &ctx[1]) &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_HIGH, 0, 0, &ctx[2]) &&
		    !core_bo(fd, 4096, VA_STAMP, &bo, (void **)&stamp),
		    "LOW, NORMAL and HIGH contexts on engine 0; knobs saved"))
		return tap_exit_status();
	so = syncobj_new(fd);
	memset((void *)stamp, 0, 4096);

	tap_errno(sched_dbg_write("sched_policy", "fifo"), 0,
		  "write fifo to sched_policy");
	tap_ok(sched_dbg_read("sched_policy", buf, sizeof(buf)) > 0 &&
	       !strcmp(buf, "fifo\n"), "sched_policy reads fifo");

	for (i = 0; i < njobs; i++) {
		job_ctx[i] = ctx[job[i].prio];
		job_ms[i] = job[i].ms;
	}
	ret = sched_submit_arrivals(fd, job_ctx, job_ms, njobs, bo, VA_STAMP,
				    stamp, so, &arrived);
	tap_errno(ret, 0, "submit LOW 300 ms, NORMAL, LOW, NORMAL, then HIGH");
	tap_ok(arrived, "each job arrived before the next was submitted");
	tap_errno(syncobj_wait(fd, so, 10000), 0, "the HIGH job completed");
	for (i = 0; i < 3 && !ret; i++)
		ret = !ctx_idle(fd, ctx[i], 5000);
	tap_ok(!ret, "every job completed");

	for (i = 1; i < njobs; i++) {
		if (stamp[i].start < stamp[i - 1].end)
			in_order = false;
		tap_diag("job %u (class %u): %llu..%llu", i, job[i].prio,
			 (unsigned long long)stamp[i].start,
			 (unsigned long long)stamp[i].end);
	}
	tap_ok(in_order && stamp[0].start,
	       "fifo: each job ran after the one that arrived before it, HIGH last");
	for (i = 0; i < 3; i++)
		pre += sched_preemptions(fd, ctx[i]);
	tap_ok(pre == 0, "fifo: nothing was preempted (%llu preemptions)",
	       (unsigned long long)pre);

	/* back to fair: a HIGH arrival preempts the running LOW job again */
	tap_errno(sched_dbg_write("sched_policy", "fair"), 0,
		  "write fair to sched_policy");
	tap_ok(sched_dbg_read("sched_policy", buf, sizeof(buf)) > 0 &&
	       !strcmp(buf, "fair\n"), "sched_policy reads fair");
	memset((void *)stamp, 0, 4096);
	drmSyncobjReset(fd, &so, 1);
	sched_job_begin(&j, VA_STAMP);
	pkt_spin(j.dw, &j.n, SCHED_SPIN_MS(300));
	ret = sched_job_submit(fd, ctx[0], &j, &bo, 1, 0, 0);
	ret = ret ?: !sched_wait_u64(&stamp[0].start, 5000);
	sched_job_begin(&j, VA_STAMP + 16);
	pkt_spin(j.dw, &j.n, SCHED_SPIN_MS(10));
	ret = ret ?: sched_job_submit(fd, ctx[2], &j, &bo, 1, 0, so);
	ret = ret ?: syncobj_wait(fd, so, 10000);
	ret = ret ?: !ctx_idle(fd, ctx[0], 5000);
	tap_ok(!ret && sched_stamp_inside(&stamp[0], &stamp[1]) &&
	       sched_preemptions(fd, ctx[0]) == 1,
	       "fair again: HIGH ran inside the LOW job, which was preempted once");

	/*
	 * Switch to fifo with work waiting: LOW (stamp 2) is preempted by
	 * two HIGH jobs (3, 4), then a NORMAL job (5) arrives; fair would run
	 * NORMAL before the preempted LOW job, fifo runs them in arrival
	 * order: LOW first.  For the LOW job to wait in its queue rather than
	 * in the PENDING slot, the scheduler must have both HIGH jobs when
	 * the preemption is served, which the engine does within one SPIN
	 * chunk of the request: they come in one DRM_IOCTL_TERN_SUBMIT_MANY,
	 * whose jobs of one context are all queued before the scheduler
	 * picks.  The starvation bound is raised out of the way: it would let
	 * the waiting classes take the engine from HIGH, in an order of its
	 * own, before the switch.
	 */
	tap_errno(sched_dbg_write("starve_ms", "100000"), 0, "starve_ms 100000");
	pre = sched_preemptions(fd, ctx[0]);
	memset((void *)&stamp[2], 0, 4 * sizeof(*stamp));
	drmSyncobjReset(fd, &so, 1);
	sched_job_begin(&j, VA_STAMP + 32);
	pkt_spin(j.dw, &j.n, SCHED_SPIN_MS(300));
	ret = sched_job_submit(fd, ctx[0], &j, &bo, 1, 0, 0);
	ret = ret ?: !sched_wait_u64(&stamp[2].start, 5000);
	ret = ret ?: submit_high_pair(fd, ctx[2], bo);
	/* served: both HIGH jobs in the slots, the LOW one queued */
	ret = ret ?: !sched_wait_preemptions(fd, ctx[0], pre + 1, 5000);
	ret = ret ?: !sched_wait_jobs(SCHED_ENGINE, 2, 1, 5000);
	sched_job_begin(&j, VA_STAMP + 80);
	pkt_spin(j.dw, &j.n, SCHED_SPIN_MS(20));
	ret = ret ?: sched_job_submit(fd, ctx[1], &j, &bo, 1, 0, so);
	ret = ret ?: !sched_wait_jobs(SCHED_ENGINE, 2, 2, 5000);
	ok = sched_queue_entry(sched_ctx_tag(ctx[0]), &prio, &weight, &queued);
	tap_ok(!ret && ok && !stamp[3].end && queued == 1,
	       "LOW preempted by two HIGH jobs, NORMAL waiting (ret %d, LOW queued %u)",
	       ret, queued);
	tap_errno(sched_dbg_write("sched_policy", "fifo"), 0,
		  "switch to fifo while they wait");
	ret = syncobj_wait(fd, so, 10000);
	ret = ret || !ctx_idle(fd, ctx[0], 5000) || !ctx_idle(fd, ctx[2], 5000);
	tap_ok(!ret && stamp[4].end && stamp[2].end && stamp[2].end <= stamp[5].start &&
	       sched_preemptions(fd, ctx[0]) == pre + 1,
	       "fifo: the preempted LOW job resumed before the later NORMAL one");

	close(fd);
	tap_done();
	return tap_exit_status();
}
