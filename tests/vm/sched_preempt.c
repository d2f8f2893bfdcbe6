// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sched_preempt: a HIGH job arriving while LOW work runs preempts it at
 * once and completes first; the LOW job resumes where it stopped and gives
 * the result of an uninterrupted run.
 *
 * A LOW context queues three jobs per round: a 200 ms SPIN, a 64x64x128
 * GEMM (105 ms) and a REDUCE of 2^20 floats (210 ms), each stamped with the
 * device clock at its start and end.  While one of them runs (a different
 * one, at a different point, each round) a HIGH context submits a short
 * FILL + SAXPY job.  Each round checks, from the device's own stamps and
 * the fences' signal times, that the HIGH job ran inside the LOW job's run
 * and signalled first, that the LOW context's preemption count grew, that
 * the LOW jobs still completed in submission order, that GEMM and REDUCE
 * are bit-exact with the CPU, and that busy_ns counted each run once (the
 * contexts' busy_ns add up to the engine's).  The preemptions are in debugfs
 * (preempt_latency, engines) and in the tern_job_preempt tracepoint.
 * Last, a LOW job waiting on memory (WAIT_MEM) is preempted and resumes
 * its wait.
 *
 * tern-vm: device=compute-engines=1,time-scale=200 timeout=120
 */
#include "sched_test.h"

#define VA_STAMP	0x100000ull	/* 4 KiB: stamps, then REDUCE results */
#define VA_MAT		0x200000ull	/* 128 KiB: A, B, C of the GEMM */
#define VA_VEC		0x400000ull	/* 4 MiB: the REDUCE vector */
#define VA_HIGH		0x1000000ull	/* 128 KiB: the HIGH job's data */
#define GM		64
#define GN		64
#define GK		128
#define NVEC		(1u << 20)
#define NSAXPY		4096
#define ROUNDS		4
#define TRACING		"/sys/kernel/debug/tracing"
/* modelled device time of the LOW jobs of a round: SPIN, GEMM, REDUCE */
#define PKT_NS(cost)	((uint64_t)(100 + (cost)) * SCHED_TIME_SCALE)
#define LOW_COST_NS	(PKT_NS(1000000ull) + PKT_NS(GM * GN * GK) + \
			 PKT_NS(NVEC) + 6 * PKT_NS(0))

/* where each round's HIGH job arrives: during which LOW job, how late */
static const struct {
	unsigned int target;	/* 0 SPIN, 1 GEMM, 2 REDUCE */
	unsigned int delay_ms;	/* after the target's start stamp */
	const char *what;
} arrival[ROUNDS] = {
	{ 0, 0, "as the SPIN starts" },
	{ 0, 80, "in the middle of the SPIN" },
	{ 1, 20, "during the GEMM" },
	{ 2, 50, "during the REDUCE" },
};

/* lines "<engine> <latency_ns>" of preempt_latency for engine 0 */
static int latency_lines(unsigned int *zero)
{
	static char buf[1 << 16];
	unsigned long long lat;
	unsigned int e;
	int n = 0;
	char *p = buf;

	*zero = 0;
	if (sched_dbg_read("preempt_latency", buf, sizeof(buf)) < 0)
		return -1;
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (sscanf(p, "%u %llu", &e, &lat) != 2 || e != SCHED_ENGINE)
			continue;
		n++;
		*zero += !lat;
	}
	return n;
}

int main(void)
{
	static char trace[1 << 20];
	uint32_t lo = 0, hi = 0, bo_stamp = 0, bo_mat = 0, bo_vec = 0, bo_hi = 0;
	uint32_t so_lo[3], so_hi, bos[4], r, i, attempt = 0;
	volatile struct sched_stamp *stamp = NULL;
	float *mat, *vec, *hdat, *cref, *yref;
	volatile float *result;
	struct sched_job j;
	uint64_t pre0, pre_total = 0, served = 0, requested = 0;
	unsigned int zero;
	int lines;
	float sum;
	int fd, ret;

	fd = tern_test_open();
	if (!tap_ok(fd >= 0 && !sched_ctx(fd, DRM_TERN_PRIORITY_LOW, 0, 0, &lo) &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_HIGH, 0, 0, &hi) &&
		    !core_bo(fd, 4096, VA_STAMP, &bo_stamp, (void **)&stamp) &&
		    !core_bo(fd, 128 << 10, VA_MAT, &bo_mat, (void **)&mat) &&
		    !core_bo(fd, 4 * NVEC, VA_VEC, &bo_vec, (void **)&vec) &&
		    !core_bo(fd, 128 << 10, VA_HIGH, &bo_hi, (void **)&hdat),
		    "a LOW and a HIGH context on engine 0, buffers mapped"))
		return tap_exit_status();
	bos[0] = bo_stamp;
	bos[1] = bo_mat;
	bos[2] = bo_vec;
	bos[3] = bo_hi;
	for (i = 0; i < 3; i++)
		so_lo[i] = syncobj_new(fd);
	so_hi = syncobj_new(fd);

	/* GEMM inputs, the CPU's C, the REDUCE vector and its CPU sum */
	cref = malloc(GM * GN * sizeof(float));
	yref = malloc(NSAXPY * sizeof(float));
	sched_fill_floats(mat, GM * GK, 1);
	sched_fill_floats(mat + 8192, GK * GN, 2);
	sched_gemm_ref(mat, mat + 8192, cref, GM, GN, GK);
	sched_fill_floats(vec, NVEC, 3);
	sum = sched_sum_ref(vec, NVEC);
	sched_fill_floats(hdat + 16384, NSAXPY, 4);	/* x */
	sched_fill_floats(hdat + 20480, NSAXPY, 5);	/* y */
	memcpy(yref, hdat + 20480, NSAXPY * sizeof(float));
	result = (volatile float *)stamp + 512;

	tap_ok(!sched_dbg_write("preempt_latency", "0") &&
	       latency_lines(&zero) == 0, "clear debugfs preempt_latency");
	if (sched_write_file(TRACING "/trace", "") ||
	    sched_write_file(TRACING "/events/tern/tern_job_preempt/enable", "1") ||
	    sched_write_file(TRACING "/tracing_on", "1"))
		tap_diag("cannot enable the tern_job_preempt tracepoint");
	pre0 = sched_preemptions(fd, lo);

	for (r = 0; r < ROUNDS; r++) {
		volatile struct sched_stamp *s = stamp + 4 * r;
		volatile struct sched_stamp *target = s + arrival[r].target;
		volatile struct sched_stamp *h = s + 3;
		uint64_t before = sched_preemptions(fd, lo), t_arrive, t_lo, t_hi;
		uint64_t busy0 = sched_busy_ns(fd, lo), busy, pre;
		uint64_t hbusy0 = sched_busy_ns(fd, hi), hbusy;
		long long ebusy0 = sched_engine_stat(SCHED_ENGINE, " busy_ns "), ebusy;
		int st_lo, st_hi, bad = 0;

		memset((void *)s, 0, 4 * sizeof(*s));
		memset(mat + 16384, 0, GM * GN * sizeof(float));
		result[r] = 0.0f;
		drmSyncobjReset(fd, so_lo, 3);
		drmSyncobjReset(fd, &so_hi, 1);

		sched_job_begin(&j, VA_STAMP + 64 * r);
		pkt_spin(j.dw, &j.n, SCHED_SPIN_MS(200));
		ret = sched_job_submit(fd, lo, &j, bos, 4, 0, so_lo[0]);
		sched_job_begin(&j, VA_STAMP + 64 * r + 16);
		pkt_gemm(j.dw, &j.n, VA_MAT, VA_MAT + 32768, VA_MAT + 65536,
			 GM, GN, GK);
		ret = ret ?: sched_job_submit(fd, lo, &j, bos, 4, 0, so_lo[1]);
		sched_job_begin(&j, VA_STAMP + 64 * r + 32);
		pkt_reduce_sum(j.dw, &j.n, VA_VEC, VA_STAMP + 2048 + 4 * r, NVEC);
		ret = ret ?: sched_job_submit(fd, lo, &j, bos, 4, 0, so_lo[2]);
		if (!tap_ok(!ret, "round %u: LOW queues SPIN, GEMM, REDUCE", r))
			break;

		/* the HIGH job: FILL 64 KiB, then y = 0.5 x + y */
		if (!sched_wait_u64(&target->start, 5000)) {
			tap_ok(false, "round %u: the LOW job started", r);
			break;
		}
		usleep(arrival[r].delay_ms * 1000);
		t_arrive = sched_clock(fd);
		sched_job_begin(&j, VA_STAMP + 64 * r + 48);
		pkt_fill(j.dw, &j.n, VA_HIGH, 65536, 0x1000 + r);
		pkt_saxpy(j.dw, &j.n, VA_HIGH + 65536, VA_HIGH + 81920, NSAXPY,
			  0.5f);
		ret = sched_job_submit(fd, hi, &j, bos, 4, 0, so_hi);
		for (i = 0; i < NSAXPY; i++)
			yref[i] = 0.5f * hdat[16384 + i] + yref[i];

		ret = ret ?: syncobj_wait(fd, so_lo[2], 10000);
		ret = ret ?: syncobj_wait(fd, so_hi, 10000);
		if (!tap_ok(!ret, "round %u: all jobs done", r))
			break;

		if (target->end <= t_arrive && attempt < 2) {
			/* the guest slept past the LOW job's end: try again */
			tap_diag("round %u: the HIGH job arrived after its target ended, again",
				 r);
			attempt++;
			r--;
			continue;
		}
		tap_ok(sched_stamp_inside(target, h),
		       "round %u: HIGH arriving %s ran inside it (LOW %llu..%llu, HIGH %llu..%llu)",
		       r, arrival[r].what,
		       (unsigned long long)target->start,
		       (unsigned long long)target->end,
		       (unsigned long long)h->start,
		       (unsigned long long)h->end);
		tap_ok(core_fence_info(fd, so_hi, &st_hi, &t_hi) &&
		       core_fence_info(fd, so_lo[arrival[r].target], &st_lo,
					&t_lo) &&
		       st_hi == 1 && st_lo == 1 && t_hi < t_lo,
		       "round %u: the HIGH job's fence signalled first", r);
		tap_ok(sched_preemptions(fd, lo) >= before + 1,
		       "round %u: the LOW context's preemptions grew (%llu -> %llu)",
		       r, (unsigned long long)before,
		       (unsigned long long)sched_preemptions(fd, lo));
		/*
		 * busy_ns counts every run, preempted ones included, once.
		 * The engine was idle before and after the round, so the two
		 * contexts' busy_ns add up to the engine's busy time, exactly
		 * (both are sums of the same RUN_NS).  And LOW's is no less
		 * than the modelled cost of its jobs, less one chunk plus
		 * 1 ms (3 ms) that a preemption may cut from the run it
		 * stops (docs/hardware.md 12).
		 */
		pre = sched_preemptions(fd, lo) - before;
		busy = sched_busy_ns(fd, lo) - busy0;
		hbusy = sched_busy_ns(fd, hi) - hbusy0;
		ebusy = sched_engine_stat(SCHED_ENGINE, " busy_ns ") - ebusy0;
		tap_ok(ebusy0 >= 0 && busy + hbusy == (uint64_t)ebusy,
		       "round %u: busy_ns LOW %llu + HIGH %llu = engine %lld",
		       r, (unsigned long long)busy, (unsigned long long)hbusy,
		       ebusy);
		tap_ok(busy + pre * 3000000 >= LOW_COST_NS,
		       "round %u: LOW busy %llu ms, no less than its cost, %llu ms",
		       r, (unsigned long long)(busy / 1000000),
		       (unsigned long long)(LOW_COST_NS / 1000000));
		tap_ok(s[0].end && s[0].end < s[1].end && s[1].end < s[2].end &&
		       s[0].end <= s[1].start && s[1].end <= s[2].start,
		       "round %u: the LOW jobs ran one after another, in submission order",
		       r);

		for (i = 0; i < GM * GN; i++)
			if (memcmp(&mat[16384 + i], &cref[i], 4) && !bad++)
				tap_diag("C[%u] = %a, CPU %a", i, mat[16384 + i],
					 cref[i]);
		tap_ok(!bad, "round %u: GEMM bit-exact with the CPU (%d differ)",
		       r, bad);
		tap_ok(!memcmp((const void *)&result[r], &sum, 4),
		       "round %u: REDUCE bit-exact with the CPU (%a, CPU %a)", r,
		       result[r], sum);
		for (i = 0; i < 16384; i++)
			bad += ((uint32_t *)hdat)[i] != 0x1000 + r;
		for (i = 0; i < NSAXPY; i++)
			bad += memcmp(&hdat[20480 + i], &yref[i], 4) != 0;
		tap_ok(!bad, "round %u: the HIGH job's FILL and SAXPY are right (%d wrong)",
		       r, bad);
	}

	/*
	 * A LOW job waiting on memory (WAIT_MEM, stamp 20) is preempted by a
	 * HIGH job (21) and resumes its wait: the CPU's write then releases
	 * it, and it completes without a WAIT_TIMEOUT fault.
	 */
	{
		volatile uint32_t *word = (volatile uint32_t *)stamp + 768;
		uint64_t before = sched_preemptions(fd, lo);
		struct drm_tern_context_get_state st;

		word[0] = 0;
		word[1] = 0;
		drmSyncobjReset(fd, so_lo, 1);
		drmSyncobjReset(fd, &so_hi, 1);
		sched_job_begin(&j, VA_STAMP + 320);
		pkt_wait_mem(j.dw, &j.n, VA_STAMP + 3072, 1, 5000000);
		pkt_write_imm(j.dw, &j.n, VA_STAMP + 3076, 0x77);
		ret = sched_job_submit(fd, lo, &j, bos, 4, 0, so_lo[0]);
		ret = ret ?: !sched_wait_u64(&stamp[20].start, 5000);
		sched_job_begin(&j, VA_STAMP + 336);
		pkt_spin(j.dw, &j.n, SCHED_SPIN_MS(10));
		ret = ret ?: sched_job_submit(fd, hi, &j, bos, 4, 0, so_hi);
		ret = ret ?: syncobj_wait(fd, so_hi, 5000);
		tap_ok(!ret && stamp[21].end && !stamp[20].end &&
		       sched_preemptions(fd, lo) == before + 1,
		       "a LOW job waiting on memory was preempted by HIGH");
		word[0] = 1;
		ret = syncobj_wait(fd, so_lo[0], 5000) || ctx_state(fd, lo, &st);
		tap_ok(!ret && word[1] == 0x77 && stamp[20].end &&
		       st.state == DRM_TERN_CONTEXT_ACTIVE,
		       "it resumed its wait and completed when the memory was written");
	}

	pre_total = sched_preemptions(fd, lo) - pre0;
	tap_ok(pre_total >= ROUNDS, "%llu preemptions of the LOW context",
	       (unsigned long long)pre_total);
	lines = latency_lines(&zero);
	tap_ok(lines >= (int)pre_total && !zero,
	       "preempt_latency has a non-zero line per preemption (%d lines, %u zero)",
	       lines, zero);
	{
		static char buf[1 << 16];
		char *p = NULL;
		bool found;

		if (sched_dbg_read("engines", buf, sizeof(buf)) > 0)
			p = strstr(buf, "preempt requested ");
		found = p && sscanf(p, "preempt requested %llu served %llu",
				    (unsigned long long *)&requested,
				    (unsigned long long *)&served) == 2;
		tap_ok(found && served >= pre_total && requested >= served,
		       "debugfs engines counts the preemptions (requested %llu served %llu)",
		       (unsigned long long)requested,
		       (unsigned long long)served);
	}
	sched_write_file(TRACING "/tracing_on", "0");
	sched_write_file(TRACING "/events/tern/tern_job_preempt/enable", "0");
	{
		FILE *f = fopen(TRACING "/trace", "r");
		size_t n = f ? fread(trace, 1, sizeof(trace) - 1, f) : 0;

		if (f)
			fclose(f);
		trace[n] = '\0';
	}
	tap_ok(strstr(trace, "tern_job_preempt:") &&
	       strstr(trace, "latency_ns="),
	       "the tern_job_preempt tracepoint reports latency_ns");

	free(cref);
	free(yref);
	close(fd);
	tap_done();
	return tap_exit_status();
}
