// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sched_recovery: a hang or a fault in one context, while other contexts
 * have work preempted, in the slots and queued, is recovered without a
 * module reload; the guilty context alone is marked and refuses work; the
 * innocent jobs all complete with correct results.
 *
 * 1. Hang.  A LOW GEMM job runs; a NORMAL REDUCE job preempts it; a HIGH
 *    job of another file preempts that: the HIGH job runs, the preempted
 *    REDUCE waits in the PENDING slot, the preempted GEMM in its queue.  A
 *    hang is injected into the HIGH job (timeout 300 ms).  Its fence
 *    signals -ETIMEDOUT, its context is BANNED for a hang; the REDUCE job,
 *    caught in a slot by the engine reset, runs again (its context says
 *    RESET, INNOCENT_RESET); the GEMM resumes; both are bit-exact.
 * 2. Fault.  A NORMAL job of the other file preempts a LOW REDUCE job and
 *    faults (injected): -EIO, its context FAULTED with kind INJECTED; the
 *    REDUCE resumes and is bit-exact, its context untouched.
 * 3. A new context's job runs on the engine afterwards.
 *
 * starve_ms is raised for the test so that the lower classes' starvation
 * bound cannot take the engine from the job the injection is aimed at.
 *
 * tern-vm: device=compute-engines=1,time-scale=200 timeout=120
 */
#include "sched_test.h"

#define VA_STAMP	0x100000ull	/* 4 KiB: stamps, REDUCE results */
#define VA_MAT		0x200000ull	/* 128 KiB: A, B, C of the GEMM */
#define VA_VEC		0x400000ull	/* 4 MiB: the REDUCE vector */
#define VA_MARK		0x100000ull	/* the other file's 4 KiB */
#define GM		64
#define GN		64
#define GK		128
#define NVEC		(1u << 20)
#define LIMIT_S		120
#define FAULT_INJECTED	11	/* TERN_FAULT_INJECTED, docs/hardware.md 10 */

/* Wait until the u32 at @p is @v, at most @ms. */
static bool wait_word(volatile uint32_t *p, uint32_t v, int ms)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;

	while (*p != v) {
		if (now_ns() > end)
			return false;
		usleep(500);
	}
	return true;
}

/* A job of the other file: mark @v, SPIN 500 ms, write @v + 1. */
static int guilty_job(int fd, uint32_t ctx, uint32_t bo, uint32_t v,
		      uint32_t so)
{
	uint32_t dw[16], n = 0;

	pkt_write_imm(dw, &n, VA_MARK, v);
	pkt_spin(dw, &n, SCHED_SPIN_MS(500));
	pkt_write_imm(dw, &n, VA_MARK + 4, v + 1);
	return submit(fd, ctx, dw, n, &bo, 1, 0, so, NULL);
}

int main(void)
{
	struct drm_tern_context_get_state st;
	volatile struct sched_stamp *s = NULL;
	volatile uint32_t *mark = NULL;
	volatile float *res;
	uint32_t gemm = 0, red = 0, red2 = 0, g = 0, f = 0, fresh = 0;
	uint32_t bos[3], mbo = 0, so_g, so_f, so, i;
	struct sched_job j;
	float *mat = NULL, *vec = NULL, *cref, sum;
	uint64_t sig_ns = 0;
	int fd, fd2, ret, status = 0, bad = 0;

	fd = tern_test_open();
	fd2 = tern_test_open();
	if (!tap_ok(fd >= 0 && fd2 >= 0 && sched_knobs_save(LIMIT_S) &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_LOW, 0, 0, &gemm) &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_NORMAL, 0, 0, &red) &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_LOW, 0, 0, &red2) &&
		    !sched_ctx(fd2, DRM_TERN_PRIORITY_HIGH, 0, 300, &g) &&
		    !sched_ctx(fd2, DRM_TERN_PRIORITY_NORMAL, 0, 300, &f) &&
		    !core_bo(fd, 4096, VA_STAMP, &bos[0], (void **)&s) &&
		    !core_bo(fd, 128 << 10, VA_MAT, &bos[1], (void **)&mat) &&
		    !core_bo(fd, 4 * NVEC, VA_VEC, &bos[2], (void **)&vec) &&
		    !core_bo(fd2, 4096, VA_MARK, &mbo, (void **)&mark) &&
		    !sched_dbg_write("starve_ms", "10000"),
		    "contexts in two files, buffers, starve_ms 10000"))
		return tap_exit_status();
	memset((void *)s, 0, 4096);
	memset((void *)mark, 0, 4096);
	res = (volatile float *)s + 512;
	so_g = syncobj_new(fd2);
	so_f = syncobj_new(fd2);
	so = syncobj_new(fd);
	cref = malloc(GM * GN * sizeof(float));
	sched_fill_floats(mat, GM * GK, 11);
	sched_fill_floats(mat + 8192, GK * GN, 12);
	memset(mat + 16384, 0, GM * GN * sizeof(float));
	sched_gemm_ref(mat, mat + 8192, cref, GM, GN, GK);
	sched_fill_floats(vec, NVEC, 13);
	sum = sched_sum_ref(vec, NVEC);

	/* 1: LOW GEMM (stamp 0) <- NORMAL REDUCE (stamp 1) <- HIGH, hung */
	sched_job_begin(&j, VA_STAMP);
	pkt_gemm(j.dw, &j.n, VA_MAT, VA_MAT + 32768, VA_MAT + 65536, GM, GN, GK);
	pkt_spin(j.dw, &j.n, SCHED_SPIN_MS(100));
	ret = sched_job_submit(fd, gemm, &j, bos, 3, 0, 0);
	ret = ret ?: !sched_wait_u64(&s[0].start, 5000);
	sched_job_begin(&j, VA_STAMP + 16);
	pkt_reduce_sum(j.dw, &j.n, VA_VEC, VA_STAMP + 2048, NVEC);
	ret = ret ?: sched_job_submit(fd, red, &j, bos, 3, 0, 0);
	ret = ret ?: !sched_wait_u64(&s[1].start, 5000);
	ret = ret ?: guilty_job(fd2, g, mbo, 1, so_g);
	ret = ret ?: !wait_word(&mark[0], 1, 5000);
	tap_ok(!ret && s[0].end == 0 && s[1].end == 0,
	       "a HIGH job preempted a NORMAL job that preempted a LOW one");
	tap_ok(sched_wait_jobs(SCHED_ENGINE, 2, 1, 2000),
	       "HIGH and the preempted NORMAL job in the slots, the LOW one queued");
	tap_ok(core_inject(SCHED_ENGINE, 1), "inject a hang into the HIGH job");

	ret = syncobj_wait(fd2, so_g, 10000) ||
	      !core_fence_info(fd2, so_g, &status, &sig_ns);
	tap_ok(!ret && status == -ETIMEDOUT && mark[1] == 0,
	       "the hung job's fence signals -ETIMEDOUT (status %d)", status);
	ret = ctx_state(fd2, g, &st);
	tap_ok(!ret && st.state == DRM_TERN_CONTEXT_BANNED &&
	       st.reason == DRM_TERN_REASON_HANG && st.fault_seqno == 1 &&
	       st.reset_count == 1,
	       "its context is BANNED for a hang (state %u reason %u job %u resets %u)",
	       st.state, st.reason, st.fault_seqno, st.reset_count);
	tap_errno(submit(fd2, g, (const uint32_t[]){ TERN_PKT_HEADER(TERN_OP_NOP, 1) },
			 1, NULL, 0, 0, 0, NULL), -EIO, "and refuses work");

	ret = !ctx_idle(fd, gemm, 10000) || !ctx_idle(fd, red, 10000);
	tap_ok(!ret && s[1].end && s[0].end && s[1].end < s[0].end,
	       "the innocent jobs completed, NORMAL before LOW");
	for (i = 0; i < GM * GN; i++)
		if (memcmp(&mat[16384 + i], &cref[i], 4) && !bad++)
			tap_diag("C[%u] = %a, CPU %a", i, mat[16384 + i], cref[i]);
	tap_ok(!bad, "the resumed GEMM is bit-exact (%d differ)", bad);
	tap_ok(!memcmp((const void *)&res[0], &sum, 4),
	       "the REDUCE run again after the reset is bit-exact (%a, CPU %a)",
	       res[0], sum);
	ret = ctx_state(fd, red, &st);
	tap_ok(!ret && st.state == DRM_TERN_CONTEXT_RESET &&
	       st.reason == DRM_TERN_REASON_INNOCENT_RESET &&
	       st.reset_count == 1 && st.preemptions >= 1 &&
	       st.jobs_completed == 1,
	       "REDUCE context: RESET, innocent (state %u reason %u resets %u preemptions %llu)",
	       st.state, st.reason, st.reset_count,
	       (unsigned long long)st.preemptions);
	ret = ctx_state(fd, gemm, &st);
	tap_ok(!ret && (st.state == DRM_TERN_CONTEXT_ACTIVE ||
			st.state == DRM_TERN_CONTEXT_RESET) &&
	       st.preemptions >= 1 && st.jobs_completed == 1,
	       "GEMM context: usable, its job preempted and completed (state %u preemptions %llu)",
	       st.state, (unsigned long long)st.preemptions);
	tap_ok(core_find_coredump("tern devcoredump: hang"),
	       "a devcoredump describes the hang");

	/* 2: LOW REDUCE (stamp 2) <- NORMAL of the other file, faulted */
	res[1] = 0.0f;
	sched_job_begin(&j, VA_STAMP + 32);
	pkt_reduce_sum(j.dw, &j.n, VA_VEC, VA_STAMP + 2052, NVEC);
	ret = sched_job_submit(fd, red2, &j, bos, 3, 0, 0);
	ret = ret ?: !sched_wait_u64(&s[2].start, 5000);
	ret = ret ?: guilty_job(fd2, f, mbo, 3, so_f);
	ret = ret ?: !wait_word(&mark[0], 3, 5000);
	tap_ok(!ret && !s[2].end && core_inject(SCHED_ENGINE, 3),
	       "inject a fault into a NORMAL job that preempted a LOW one");
	ret = syncobj_wait(fd2, so_f, 10000) ||
	      !core_fence_info(fd2, so_f, &status, &sig_ns);
	tap_ok(!ret && status == -EIO && mark[1] != 4,
	       "the faulted job's fence signals -EIO (status %d)", status);
	ret = ctx_state(fd2, f, &st);
	tap_ok(!ret && st.state == DRM_TERN_CONTEXT_FAULTED &&
	       st.reason == DRM_TERN_REASON_FAULT &&
	       st.fault_kind == FAULT_INJECTED && st.fault_seqno == 1,
	       "its context is FAULTED, kind INJECTED (state %u reason %u kind %u)",
	       st.state, st.reason, st.fault_kind);
	ret = !ctx_idle(fd, red2, 10000) || ctx_state(fd, red2, &st);
	tap_ok(!ret && !memcmp((const void *)&res[1], &sum, 4),
	       "the preempted REDUCE resumed and is bit-exact (%a, CPU %a)",
	       res[1], sum);
	tap_ok(st.state == DRM_TERN_CONTEXT_ACTIVE && !st.reset_count &&
	       st.preemptions >= 1,
	       "its context is untouched by the fault (state %u resets %u preemptions %llu)",
	       st.state, st.reset_count, (unsigned long long)st.preemptions);
	tap_ok(core_find_coredump("tern devcoredump: fault"),
	       "a devcoredump describes the fault");

	/* 3: the engine works, with no reload */
	sched_job_begin(&j, VA_STAMP + 48);
	pkt_write_imm(j.dw, &j.n, VA_STAMP + 2056, 0x600d);
	ret = sched_ctx(fd, DRM_TERN_PRIORITY_NORMAL, 0, 0, &fresh);
	ret = ret ?: sched_job_submit(fd, fresh, &j, bos, 3, 0, so);
	ret = ret ?: syncobj_wait(fd, so, 5000);
	tap_ok(!ret && ((volatile uint32_t *)s)[514] == 0x600d,
	       "a new context's job runs on the engine");

	free(cref);
	close(fd2);
	close(fd);
	tap_done();
	return tap_exit_status();
}
