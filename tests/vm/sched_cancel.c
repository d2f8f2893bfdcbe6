// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sched_cancel: contexts destroyed, and files closed, while their work is
 * preempted or queued behind a preemption.
 *
 * 1. A LOW context has a job preempted by a HIGH job and a second job
 *    queued; the LOW context is destroyed while HIGH runs.  Both LOW
 *    fences signal, in submission order; the queued job is cancelled
 *    (-ECANCELED, its write not done); the preempted one either completes
 *    or is cancelled, and its end stamp says which.  The HIGH job
 *    completes.
 * 2. A file is closed while its job is preempted: the preempting job
 *    completes, the file's context goes away.
 * 3. The HIGH context is destroyed while its job runs and a LOW job is
 *    preempted: the HIGH job, on the engine, finishes; the LOW job resumes
 *    and completes.
 * Then a new job runs on the engine.
 *
 * tern-vm: device=compute-engines=1,time-scale=200 timeout=120
 */
#include "sched_test.h"

#define VA_STAMP	0x100000ull

/* Submit a SPIN of @ms between the stamps at @idx on @ctx. */
static int spin_job(int fd, uint32_t ctx, uint32_t bo, unsigned int idx,
		    unsigned int ms, uint32_t so)
{
	struct sched_job j;

	sched_job_begin(&j, VA_STAMP + 16 * idx);
	pkt_spin(j.dw, &j.n, SCHED_SPIN_MS(ms));
	return sched_job_submit(fd, ctx, &j, &bo, 1, 0, so);
}

int main(void)
{
	volatile struct sched_stamp *s = NULL, *s2 = NULL;
	volatile uint32_t *word = NULL;
	uint32_t lo = 0, hi = 0, lo2 = 0, bo = 0, bo2 = 0, so1, so2, so_h;
	uint64_t t1 = 0, t2 = 0, t;
	int fd, fd2, ret, st1 = 0, st2 = 0, st, contexts;
	struct sched_job j;

	fd = tern_test_open();
	fd2 = tern_test_open();
	if (!tap_ok(fd >= 0 && fd2 >= 0 &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_LOW, 0, 0, &lo) &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_HIGH, 0, 0, &hi) &&
		    !sched_ctx(fd2, DRM_TERN_PRIORITY_LOW, 0, 0, &lo2) &&
		    !core_bo(fd, 4096, VA_STAMP, &bo, (void **)&s) &&
		    !core_bo(fd2, 4096, VA_STAMP, &bo2, (void **)&s2),
		    "LOW and HIGH contexts in one file, LOW in another"))
		return tap_exit_status();
	memset((void *)s, 0, 4096);
	word = (volatile uint32_t *)s + 512;
	so1 = syncobj_new(fd);
	so2 = syncobj_new(fd);
	so_h = syncobj_new(fd);

	/* 1: LOW 300 ms (stamp 0) and a write (1), HIGH 200 ms (2) */
	ret = spin_job(fd, lo, bo, 0, 300, so1);
	sched_job_begin(&j, VA_STAMP + 16);
	pkt_write_imm(j.dw, &j.n, VA_STAMP + 2048, 0xbad);
	ret = ret ?: sched_job_submit(fd, lo, &j, &bo, 1, 0, so2);
	ret = ret ?: !sched_wait_u64(&s[0].start, 5000);
	ret = ret ?: spin_job(fd, hi, bo, 2, 200, so_h);
	ret = ret ?: !sched_wait_preemptions(fd, lo, 1, 5000);
	tap_ok(!ret && !s[2].end, "the LOW job is preempted, HIGH runs");
	tap_errno(ctx_destroy(fd, lo), 0, "destroy the LOW context");
	ret = syncobj_wait(fd, so1, 5000) ?: syncobj_wait(fd, so2, 5000);
	ret = ret || !core_fence_info(fd, so1, &st1, &t1) ||
	      !core_fence_info(fd, so2, &st2, &t2);
	tap_ok(!ret && t1 <= t2,
	       "both LOW fences signal, in order (status %d then %d)", st1, st2);
	tap_ok(st2 == -ECANCELED && *word == 0 && !s[1].start,
	       "the queued job was cancelled, its write not done");
	tap_ok((st1 == 1 && s[0].end) || (st1 == -ECANCELED && !s[0].end),
	       "the preempted job %s", st1 == 1 ? "completed" : "was cancelled");
	tap_ok(!syncobj_wait(fd, so_h, 5000) && core_fence_info(fd, so_h, &st, &t) &&
	       st == 1 && s[2].end, "the HIGH job completed");

	/* 2: the other file's LOW job (its stamp 0) preempted, file closed */
	contexts = core_context_count();
	drmSyncobjReset(fd, &so_h, 1);
	memset((void *)s, 0, 4096);
	memset((void *)s2, 0, 4096);
	sched_job_begin(&j, VA_STAMP);
	pkt_spin(j.dw, &j.n, SCHED_SPIN_MS(300));
	ret = sched_job_submit(fd2, lo2, &j, &bo2, 1, 0, 0);
	ret = ret ?: !sched_wait_u64(&s2[0].start, 5000);
	ret = ret ?: spin_job(fd, hi, bo, 2, 100, so_h);
	ret = ret ?: !sched_wait_preemptions(fd2, lo2, 1, 5000);
	tap_ok(!ret, "another file's LOW job is preempted");
	/* the mapping holds the file open: drop it too */
	munmap((void *)s2, 4096);
	close(fd2);
	tap_ok(!syncobj_wait(fd, so_h, 5000) && s[2].end,
	       "closing that file: the HIGH job completes");
	if (!tap_ok(contexts > 0 && core_context_count_is(contexts - 1, 5000),
		    "and the closed file's context goes away (%d before)",
		    contexts)) {
		static char dump[1 << 14];

		if (sched_dbg_read("contexts", dump, sizeof(dump)) > 0)
			tap_diag("contexts:\n%s", dump);
		if (sched_dbg_read("queues", dump, sizeof(dump)) > 0)
			tap_diag("queues:\n%s", dump);
		if (sched_dbg_read("engines", dump, sizeof(dump)) > 0)
			tap_diag("engines:\n%s", dump);
	}

	/* 3: LOW (stamp 3) preempted by HIGH (4), HIGH destroyed */
	drmSyncobjReset(fd, &so1, 1);
	drmSyncobjReset(fd, &so_h, 1);
	ret = sched_ctx(fd, DRM_TERN_PRIORITY_LOW, 0, 0, &lo);
	ret = ret ?: spin_job(fd, lo, bo, 3, 200, so1);
	ret = ret ?: !sched_wait_u64(&s[3].start, 5000);
	ret = ret ?: spin_job(fd, hi, bo, 4, 200, so_h);
	ret = ret ?: !sched_wait_u64(&s[4].start, 5000);
	tap_ok(!ret && !ctx_destroy(fd, hi),
	       "destroy the HIGH context while its job runs");
	ret = syncobj_wait(fd, so_h, 5000) ?: syncobj_wait(fd, so1, 5000);
	tap_ok(!ret && core_fence_info(fd, so_h, &st, &t) && st == 1 &&
	       sched_stamp_inside(&s[3], &s[4]),
	       "the HIGH job on the engine finished, inside the LOW one");
	tap_ok(core_fence_info(fd, so1, &st, &t) && st == 1 &&
	       sched_preemptions(fd, lo) == 1,
	       "the LOW job resumed and completed");

	/* the engine still works */
	drmSyncobjReset(fd, &so1, 1);
	sched_job_begin(&j, VA_STAMP + 80);
	pkt_write_imm(j.dw, &j.n, VA_STAMP + 2052, 0x600d);
	ret = sched_job_submit(fd, lo, &j, &bo, 1, 0, so1) ?:
	      syncobj_wait(fd, so1, 5000);
	tap_ok(!ret && word[1] == 0x600d, "a new job runs on the engine");

	close(fd);
	tap_done();
	return tap_exit_status();
}
