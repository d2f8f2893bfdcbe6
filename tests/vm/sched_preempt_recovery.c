// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sched_preempt_recovery: preemption when the device misbehaves.
 *
 * 1. Lost interrupt.  While a LOW job runs, the engine's next interrupt
 *    is dropped (injected) and a HIGH job arrives: the PREEMPT_DONE
 *    message is lost.  The driver still sees the request served (its
 *    watchdog polls), the HIGH job runs inside the LOW one and both
 *    complete.  Afterwards the engine still interrupts: its status bits
 *    were cleared, so later completions are edges again and do not all
 *    wait for the watchdog (debugfs "irqs" of the engine grows).
 * 2. Hung engine.  A LOW job hangs (injected; timeout 300 ms) and only
 *    then a HIGH job arrives: the driver asks for a preemption that a hung
 *    engine never serves.  The hang is still detected, the LOW context is
 *    BANNED, and the HIGH job runs and completes, its context untouched.
 * 3. Slow is not hung.  Contexts with a 100 ms timeout: a LOW job of
 *    200 ms is preempted by a HIGH job of 400 ms and waits for it four
 *    times its timeout; each job runs longer than its timeout, making
 *    progress.  Neither is taken for hung: both complete, no reset.
 *
 * tern-vm: device=compute-engines=1,time-scale=200 timeout=120
 */
#include "sched_test.h"

#define VA_STAMP	0x100000ull

/* The progress counter stands still for 20 ms (the hang is in effect). */
static bool engine_stuck(int ms)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;
	long long a, b;

	do {
		a = sched_engine_stat(SCHED_ENGINE, " progress ");
		usleep(20000);
		b = sched_engine_stat(SCHED_ENGINE, " progress ");
		if (a >= 0 && a == b)
			return true;
	} while (now_ns() < end);
	return false;
}

int main(void)
{
	struct drm_tern_context_get_state st;
	volatile struct sched_stamp *s = NULL;
	uint32_t lo = 0, hi = 0, hung = 0, bo = 0, so, so_h;
	struct sched_job j;
	long long irqs0, irqs1;
	int fd, ret, status = 0;
	uint64_t t = 0;

	fd = tern_test_open();
	if (!tap_ok(fd >= 0 && !sched_ctx(fd, DRM_TERN_PRIORITY_LOW, 0, 0, &lo) &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_HIGH, 0, 0, &hi) &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_LOW, 0, 300, &hung) &&
		    !core_bo(fd, 4096, VA_STAMP, &bo, (void **)&s),
		    "LOW, HIGH and a LOW context with a 300 ms timeout"))
		return tap_exit_status();
	memset((void *)s, 0, 4096);
	so = syncobj_new(fd);
	so_h = syncobj_new(fd);

	/* a completion interrupts (the control for what follows) */
	irqs0 = sched_engine_stat(SCHED_ENGINE, " irqs ");
	sched_job_begin(&j, VA_STAMP + 80);
	ret = sched_job_submit(fd, lo, &j, &bo, 1, 0, so) ?:
	      syncobj_wait(fd, so, 5000);
	irqs1 = sched_engine_stat(SCHED_ENGINE, " irqs ");
	tap_ok(!ret && irqs0 >= 0 && irqs1 > irqs0,
	       "a job's completion interrupts (irqs %lld -> %lld)", irqs0, irqs1);
	drmSyncobjReset(fd, &so, 1);

	/* 1: LOW 300 ms (stamp 0), drop the next interrupt, HIGH (stamp 1) */
	sched_job_begin(&j, VA_STAMP);
	pkt_spin(j.dw, &j.n, SCHED_SPIN_MS(300));
	ret = sched_job_submit(fd, lo, &j, &bo, 1, 0, so);
	ret = ret ?: !sched_wait_u64(&s[0].start, 5000);
	irqs0 = sched_engine_stat(SCHED_ENGINE, " irqs ");
	ret = ret ?: !core_inject(SCHED_ENGINE, 2);
	sched_job_begin(&j, VA_STAMP + 16);
	pkt_spin(j.dw, &j.n, SCHED_SPIN_MS(10));
	ret = ret ?: sched_job_submit(fd, hi, &j, &bo, 1, 0, so_h);
	tap_ok(!ret, "a HIGH job arrives while LOW runs and the next interrupt is dropped");
	ret = syncobj_wait(fd, so_h, 5000) ?: syncobj_wait(fd, so, 5000);
	tap_ok(!ret && sched_stamp_inside(&s[0], &s[1]) &&
	       sched_preemptions(fd, lo) == 1,
	       "without PREEMPT_DONE's interrupt HIGH still ran inside LOW, which resumed");

	/* later completions interrupt again */
	irqs1 = sched_engine_stat(SCHED_ENGINE, " irqs ");
	tap_diag("engine 0 interrupts: %lld before the drop, %lld after", irqs0,
		 irqs1);
	irqs0 = irqs1;
	drmSyncobjReset(fd, &so, 1);
	sched_job_begin(&j, VA_STAMP + 32);
	pkt_spin(j.dw, &j.n, SCHED_SPIN_MS(10));
	ret = sched_job_submit(fd, lo, &j, &bo, 1, 0, so) ?:
	      syncobj_wait(fd, so, 5000);
	irqs1 = sched_engine_stat(SCHED_ENGINE, " irqs ");
	tap_ok(!ret && irqs0 >= 0 && irqs1 > irqs0,
	       "the next job's completion interrupts (irqs %lld -> %lld)",
	       irqs0, irqs1);

	/* 2: a LOW job hangs (stamp 3), then HIGH arrives (stamp 4) */
	drmSyncobjReset(fd, &so, 1);
	drmSyncobjReset(fd, &so_h, 1);
	sched_job_begin(&j, VA_STAMP + 48);
	pkt_spin(j.dw, &j.n, SCHED_SPIN_MS(500));
	ret = sched_job_submit(fd, hung, &j, &bo, 1, 0, so);
	ret = ret ?: !sched_wait_u64(&s[3].start, 5000);
	ret = ret ?: !core_inject(SCHED_ENGINE, 1);
	tap_ok(!ret && engine_stuck(2000), "a LOW job hangs");
	sched_job_begin(&j, VA_STAMP + 64);
	pkt_write_imm(j.dw, &j.n, VA_STAMP + 1024, 0x600d);
	ret = sched_job_submit(fd, hi, &j, &bo, 1, 0, so_h);
	tap_ok(!ret && !syncobj_wait(fd, so_h, 10000) &&
	       ((volatile uint32_t *)s)[256] == 0x600d && s[4].start > s[3].start,
	       "a HIGH job arriving at the hung engine completes after the reset");
	ret = syncobj_wait(fd, so, 5000) ||
	      !core_fence_info(fd, so, &status, &t);
	tap_ok(!ret && status == -ETIMEDOUT && !s[3].end,
	       "the hung job's fence signals -ETIMEDOUT (status %d)", status);
	ret = ctx_state(fd, hung, &st);
	tap_ok(!ret && st.state == DRM_TERN_CONTEXT_BANNED &&
	       st.reason == DRM_TERN_REASON_HANG,
	       "its context is BANNED for a hang (state %u reason %u)", st.state,
	       st.reason);
	/* it may have waited in the PENDING slot: then it is an innocent */
	ret = ctx_state(fd, hi, &st);
	tap_ok(!ret && st.jobs_completed == 2 &&
	       ((st.state == DRM_TERN_CONTEXT_ACTIVE && !st.reset_count) ||
		(st.state == DRM_TERN_CONTEXT_RESET &&
		 st.reason == DRM_TERN_REASON_INNOCENT_RESET)),
	       "the HIGH context is usable, at most an innocent (state %u reason %u)",
	       st.state, st.reason);
	tap_ok(core_find_coredump("tern devcoredump: hang"),
	       "a devcoredump describes the hang");

	/* 3: LOW 200 ms (stamp 6) preempted by HIGH 400 ms (stamp 7) */
	ret = sched_ctx(fd, DRM_TERN_PRIORITY_LOW, 0, 100, &lo) ||
	      sched_ctx(fd, DRM_TERN_PRIORITY_HIGH, 0, 100, &hi);
	drmSyncobjReset(fd, &so, 1);
	drmSyncobjReset(fd, &so_h, 1);
	sched_job_begin(&j, VA_STAMP + 96);
	pkt_spin(j.dw, &j.n, SCHED_SPIN_MS(200));
	ret = ret ?: sched_job_submit(fd, lo, &j, &bo, 1, 0, so);
	ret = ret ?: !sched_wait_u64(&s[6].start, 5000);
	sched_job_begin(&j, VA_STAMP + 112);
	pkt_spin(j.dw, &j.n, SCHED_SPIN_MS(400));
	ret = ret ?: sched_job_submit(fd, hi, &j, &bo, 1, 0, so_h);
	ret = ret ?: syncobj_wait(fd, so_h, 10000) ?: syncobj_wait(fd, so, 10000);
	tap_ok(!ret && sched_stamp_inside(&s[6], &s[7]),
	       "timeout 100 ms: a LOW job waited 400 ms preempted, then completed");
	tap_ok(!ctx_state(fd, lo, &st) && st.state == DRM_TERN_CONTEXT_ACTIVE &&
	       !st.reset_count && st.preemptions == 1 &&
	       !ctx_state(fd, hi, &st) && st.state == DRM_TERN_CONTEXT_ACTIVE &&
	       !st.reset_count, "neither job was taken for hung");

	close(fd);
	tap_done();
	return tap_exit_status();
}
