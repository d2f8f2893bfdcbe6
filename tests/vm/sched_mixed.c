// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sched_mixed: all classes at once, results checked.  Two LOW and two
 * NORMAL contexts each queue GEMM and REDUCE jobs (105 ms and 52 ms of
 * device time) while a HIGH context keeps arriving with short FILL jobs.
 * Priority, quantum and starvation preemptions interleave; every job of
 * every context must still give the result of an uninterrupted run (CPU
 * reference, bit for bit), each context's jobs must end in submission
 * order, and no context may be reset or faulted.
 *
 * tern-vm: device=compute-engines=1,time-scale=200 timeout=120
 */
#include "sched_test.h"

#define VA_IN		0x100000ull	/* 64 KiB: A and B */
#define VA_VEC		0x200000ull	/* 1 MiB: the REDUCE vector */
#define VA_OUT		0x400000ull	/* 512 KiB: C per job, then results */
#define GM		64
#define GN		64
#define GK		128
#define NVEC		(1u << 18)
#define CTXS		4	/* LOW, LOW, NORMAL, NORMAL */
#define JOBS		4	/* per context: GEMM, REDUCE, GEMM, REDUCE */
#define HIGH_JOBS	40
#define HIGH_FILL	4096

/* output layout, in bytes from VA_OUT */
#define OUT_C(c, k)	((uint64_t)((c) * JOBS + (k)) * GM * GN * 4)
#define OUT_RES(c, k)	(0x40000ull + 4 * ((c) * JOBS + (k)))
#define OUT_END(c, k)	(0x41000ull + 8 * ((c) * JOBS + (k)))
#define OUT_FILL(h)	(0x42000ull + (uint64_t)(h) * HIGH_FILL)

int main(void)
{
	static const uint32_t prio[CTXS] = {
		DRM_TERN_PRIORITY_LOW, DRM_TERN_PRIORITY_LOW,
		DRM_TERN_PRIORITY_NORMAL, DRM_TERN_PRIORITY_NORMAL,
	};
	uint32_t ctx[CTXS], hi = 0, bos[3], c, k, h, i, n;
	uint32_t dw[32];
	float *in = NULL, *vec = NULL, *cref, sum;
	uint8_t *out = NULL;
	struct drm_tern_context_get_state st;
	unsigned int bad_c = 0, bad_r = 0, bad_f = 0, bad_order = 0, bad_state = 0;
	unsigned long long pre[CTXS];
	bool all = true;
	int fd, ret = 0;

	fd = tern_test_open();
	for (c = 0; c < CTXS && fd >= 0 && !ret; c++)
		ret = sched_ctx(fd, prio[c], 0, 0, &ctx[c]);
	if (!tap_ok(fd >= 0 && !ret &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_HIGH, 0, 0, &hi) &&
		    !core_bo(fd, 64 << 10, VA_IN, &bos[0], (void **)&in) &&
		    !core_bo(fd, 4 * NVEC, VA_VEC, &bos[1], (void **)&vec) &&
		    !core_bo(fd, 512 << 10, VA_OUT, &bos[2], (void **)&out),
		    "two LOW, two NORMAL and a HIGH context; buffers"))
		return tap_exit_status();
	cref = malloc(GM * GN * sizeof(float));
	sched_fill_floats(in, GM * GK, 21);
	sched_fill_floats(in + GM * GK, GK * GN, 22);
	sched_gemm_ref(in, in + GM * GK, cref, GM, GN, GK);
	sched_fill_floats(vec, NVEC, 23);
	sum = sched_sum_ref(vec, NVEC);
	memset(out, 0, 512 << 10);

	for (k = 0; k < JOBS && !ret; k++)
		for (c = 0; c < CTXS && !ret; c++) {
			n = 0;
			if (k % 2 == 0)
				pkt_gemm(dw, &n, VA_IN, VA_IN + GM * GK * 4,
					 VA_OUT + OUT_C(c, k), GM, GN, GK);
			else
				pkt_reduce_sum(dw, &n, VA_VEC,
					       VA_OUT + OUT_RES(c, k), NVEC);
			pkt_timestamp(dw, &n, VA_OUT + OUT_END(c, k));
			ret = submit(fd, ctx[c], dw, n, bos, 3, 0, 0, NULL);
		}
	tap_ok(!ret, "%d GEMM and REDUCE jobs queued", CTXS * JOBS);

	/* HIGH arrives every 25 ms or so while the others run */
	for (h = 0; h < HIGH_JOBS && !ret; h++) {
		usleep(25000);
		n = 0;
		pkt_fill(dw, &n, VA_OUT + OUT_FILL(h), HIGH_FILL, 0x4000 + h);
		ret = submit(fd, hi, dw, n, bos, 3, 0, 0, NULL);
	}
	tap_ok(!ret, "%d HIGH jobs arrived among them", HIGH_JOBS);
	for (c = 0; c < CTXS; c++)
		all &= ctx_idle(fd, ctx[c], 20000);
	all &= ctx_idle(fd, hi, 20000);
	tap_ok(all, "every job completed");

	for (c = 0; c < CTXS; c++) {
		for (k = 0; k < JOBS; k++) {
			const uint64_t *end = (const uint64_t *)(out + OUT_END(c, 0));

			if (!end[k] || (k && end[k] <= end[k - 1]))
				bad_order++;
			if (k % 2)
				bad_r += memcmp(out + OUT_RES(c, k), &sum, 4) != 0;
			else
				bad_c += memcmp(out + OUT_C(c, k), cref,
						GM * GN * 4) != 0;
		}
		ret = ctx_state(fd, ctx[c], &st);
		pre[c] = st.preemptions;
		bad_state += ret || st.state != DRM_TERN_CONTEXT_ACTIVE ||
			     st.reset_count;
	}
	for (h = 0; h < HIGH_JOBS; h++)
		for (i = 0; i < HIGH_FILL / 4; i++)
			bad_f += ((uint32_t *)(out + OUT_FILL(h)))[i] != 0x4000 + h;
	tap_diag("preemptions: LOW %llu %llu, NORMAL %llu %llu", pre[0], pre[1],
		 pre[2], pre[3]);
	tap_ok(pre[0] && pre[1] && pre[2] && pre[3],
	       "every LOW and NORMAL context was preempted");
	tap_ok(!bad_c, "every GEMM is bit-exact with the CPU (%u differ)", bad_c);
	tap_ok(!bad_r, "every REDUCE is bit-exact with the CPU (%u differ)", bad_r);
	tap_ok(!bad_f, "every HIGH FILL is right (%u words wrong)", bad_f);
	tap_ok(!bad_order, "each context's jobs ended in submission order (%u not)",
	       bad_order);
	tap_ok(!bad_state, "no context was reset or faulted");

	free(cref);
	close(fd);
	tap_done();
	return tap_exit_status();
}
