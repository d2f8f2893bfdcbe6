// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bo_residency_preempt: a preempted job keeps its BOs resident (interface
 * 1.7).  A LOW job that lists the LOCAL BO X is preempted by a HIGH job
 * that waits on a gate, so X's job is neither finished nor running.  A job
 * of another context that needs room in local memory then gets it from
 * an idle BO, never from X: X's job resumes where it stopped, in local
 * memory, and its result is bit-exact.  Once everything is idle, X is the
 * least recently used and goes first.
 *
 * Three LOCAL BOs of different sizes, any two of which fit local memory
 * and three do not, so that local_bytes says which two are resident.
 *
 * tern-vm: device=compute-engines=1,time-scale=200,local-mem-size=4M timeout=120
 */
#include "residency_test.h"

#define VA_STEP		0x100000000ull
#define VA_X		(1 * VA_STEP)	/* X, Y, Z at VA_X + i * VA_STEP */
#define VA_W		(4 * VA_STEP)	/* the gate's word */
#define SLOT_LOW	3		/* slots the jobs fill */
#define SLOT_COPY	5
#define SLOT_LAST	7
#define LOW_SPIN_US	5000		/* 1 s of the device at time-scale 200 */

static int fd;

static long long kib(long long bytes)
{
	return bytes / (long long)KIB;
}

static uint64_t preemptions(uint32_t ctx)
{
	struct drm_tern_context_get_state st;

	return ctx_state(fd, ctx, &st) ? ~0ull : st.preemptions;
}

int main(void)
{
	struct drm_tern_submit low_sub, high_sub, copy_sub;
	uint32_t low, high, copy, dw[96], n, bos[2], w_bo = 0;
	struct drm_tern_get_info info;
	struct rt_counts c0, c1;
	volatile uint32_t *wp = NULL;
	struct rt_bo bo[3] = {};
	struct rt_gate gate;
	uint64_t sz[3], lsize, p;
	int i, ret, err = 0, err2 = 0;
	int64_t end;
	bool ok;

	tap_plan(10);
	fd = tern_test_open();
	ok = fd >= 0 && !core_get_info(fd, &info);
	if (!tap_ok(ok && info.driver_version >= RT_INTERFACE_1_7 &&
		    info.local_mem_size >= 2 * MIB &&
		    !ctx_create(fd, DRM_TERN_PRIORITY_LOW, DRM_TERN_ENGINE_CLASS_COMPUTE, 0,
				&low) &&
		    !ctx_create(fd, DRM_TERN_PRIORITY_HIGH, DRM_TERN_ENGINE_CLASS_COMPUTE, 0,
				&high) &&
		    !ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COPY, 0,
				&copy),
		    "interface 1.7, %llu KiB of local memory; LOW and HIGH compute contexts, a copy context",
		    ok ? (unsigned long long)(info.local_mem_size / KIB) : 0))
		return tap_exit_status();
	lsize = info.local_mem_size;
	/* two fit, three do not; sizes in whole slots */
	sz[0] = (lsize * 3 / 8) / RT_SLOT * RT_SLOT;
	sz[1] = sz[0] + RT_SLOT;
	sz[2] = sz[0] + 2 * RT_SLOT;

	ok = !core_bo(fd, PAGE4K, VA_W, &w_bo, (void **)&wp);
	for (i = 0; ok && i < 3; i++)
		ok = !rt_bo_new(fd, (const char *[]){ "X", "Y", "Z" }[i],
				DRM_TERN_BO_PLACEMENT_LOCAL, sz[i], 0x70 + i, true, &bo[i]) &&
		     !rt_bo_map(fd, &bo[i], VA_X + i * VA_STEP);
	rt_counts(&c0);
	/* the map of Z evicted X, the least recently used */
	if (!tap_ok(ok && c0.local == (long long)(sz[1] + sz[2]),
		    "LOCAL BOs X, Y, Z of %llu, %llu, %llu KiB mapped: Y and Z in local memory (local %lld KiB)",
		    (unsigned long long)kib(sz[0]), (unsigned long long)kib(sz[1]),
		    (unsigned long long)kib(sz[2]), kib(c0.local)))
		return tap_exit_status();

	/* the LOW job lists X: paged in, evicting Y (the least recently used) */
	n = 0;
	pkt_spin(dw, &n, LOW_SPIN_US);
	rt_pkt_fill_slot(dw, &n, &bo[0], SLOT_LOW, 0x10f10f01u);
	ret = submit(fd, low, dw, n, &bo[0].handle, 1, 0, 0, &low_sub);
	rt_counts(&c1);
	tap_ok(!ret && c1.local == (long long)(sz[0] + sz[2]) &&
	       c1.evictions == c0.evictions + 1,
	       "a LOW job (a 1 s SPIN, then a FILL of X) lists X: X paged in, Y evicted (%s, local %lld KiB)",
	       strerror(-ret), kib(c1.local));

	/* a HIGH job that waits on the gate preempts it, and holds the engine */
	usleep(200000);		/* the LOW job runs: its SPIN lasts 1 s */
	rt_gate_init(&gate, wp, VA_W);
	n = 0;
	rt_pkt_gate(dw, &n, &gate);
	ret = ret ?: submit(fd, high, dw, n, &w_bo, 1, 0, 0, &high_sub);
	end = now_ns() + 5000000000ll;
	while (!ret && ((p = preemptions(low)) == ~0ull || p < 1) && now_ns() < end)
		usleep(1000);
	tap_ok(!ret && preemptions(low) >= 1 &&
	       job_wait(fd, low, low_sub.seqno, 0, &err) == -ETIME,
	       "a HIGH job waiting on a gate preempts it: X's job is unfinished and not running (%s, %llu preemptions)",
	       strerror(-ret), (unsigned long long)preemptions(low));

	/* another job needs room for Y: it must come from idle Z, not from X */
	n = 0;
	rt_pkt_fill_slot(dw, &n, &bo[1], SLOT_COPY, 0x20f20f02u);
	rt_counts(&c0);
	ret = submit(fd, copy, dw, n, &bo[1].handle, 1, 0, 0, &copy_sub);
	rt_counts(&c1);
	rt_gate_hold(&gate);
	tap_ok(!ret && c1.local == (long long)(sz[0] + sz[1]) &&
	       c1.evictions == c0.evictions + 1 && c1.in == c0.in + 1 &&
	       job_wait(fd, high, high_sub.seqno, 0, &err) == -ETIME &&
	       job_wait(fd, low, low_sub.seqno, 0, &err) == -ETIME,
	       "while X's job is preempted, a job listing Y pages Y in by evicting idle Z, not X (%s, local %lld KiB, %lld evicted)",
	       strerror(-ret), kib(c1.local), c1.evictions - c0.evictions);
	ret = ret ?: job_wait(fd, copy, copy_sub.seqno, 20000, &err2);
	tap_ok(!ret && !err2, "the job listing Y completes while the LOW job is still preempted (%s, %d)",
	       strerror(-ret), err2);
	if (!ret && !err2)
		rt_model_fill(&bo[1], SLOT_COPY, 0x20f20f02u);

	/* the gate opens: HIGH ends, LOW resumes in local memory and ends */
	rt_gate_open(&gate);
	err = 0;
	ret = job_wait(fd, high, high_sub.seqno, 20000, &err) ?: err;
	ret = ret ?: job_wait(fd, low, low_sub.seqno, 20000, &err) ?: err;
	if (!ret)
		rt_model_fill(&bo[0], SLOT_LOW, 0x10f10f01u);
	rt_counts(&c1);
	tap_ok(!ret && c1.local == (long long)(sz[0] + sz[1]) && rt_check(&bo[0]) &&
	       rt_check(&bo[1]) && rt_check(&bo[2]),
	       "the gate opens: the LOW job resumes and completes; X, Y and Z are bit-exact (%s)",
	       strerror(-ret));

	/* all idle: X, listed least recently, is the victim for Z */
	n = 0;
	rt_pkt_fill_slot(dw, &n, &bo[2], SLOT_LAST, 0x30f30f03u);
	bos[0] = bo[2].handle;
	rt_counts(&c0);
	ret = rt_run(fd, low, dw, n, bos, 1);
	rt_counts(&c1);
	if (!ret)
		rt_model_fill(&bo[2], SLOT_LAST, 0x30f30f03u);
	tap_ok(!ret && c1.local == (long long)(sz[1] + sz[2]) &&
	       c1.evictions == c0.evictions + 1 && rt_check(&bo[0]) && rt_check(&bo[2]),
	       "idle again, a job listing Z evicts X, the least recently listed; all bit-exact (%s, local %lld KiB)",
	       strerror(-ret), kib(c1.local));

	tap_ok(c1.failures == 0 && c1.retarget_cpu == 0,
	       "no paging buffer failed, no retarget was left to the CPU (%lld retargets)",
	       c1.retargets);
	for (i = 0; i < 3; i++)
		rt_bo_free(fd, &bo[i]);
	munmap((void *)wp, PAGE4K);
	close(fd);
	tap_ok(rt_local_settled(0, 10000) == 0, "closing the file gives local memory back");
	return tap_exit_status();
}
