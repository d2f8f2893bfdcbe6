// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_submit: every packet libtern builds runs on the device and does what
 * docs/hardware.md says, checked against the CPU; seqnos count up; the copy
 * engine runs the packets it can.
 *
 * tern-vm: timeout=120
 */
#include <math.h>
#include <stdint.h>
#include <tern/tern.h>

#include "tern_test.h"

static struct tern_device *dev;

static int run(struct tern_context *ctx, struct tern_cmdbuf *cb, uint32_t *seqno)
{
	struct tern_fence *f = NULL;
	int ret;

	ret = tern_submit(ctx, cb, NULL, 0, &f);
	if (!ret)
		ret = tern_fence_wait(f, 20 * 1000000000ll);
	if (!ret && seqno)
		*seqno = tern_fence_seqno(f);
	if (ret)
		tap_diag("job: %s", tern_last_error());
	tern_fence_free(f);
	tern_cmdbuf_reset(cb);
	return ret;
}

static void fill_floats(float *v, unsigned int n, unsigned int seed)
{
	for (unsigned int i = 0; i < n; i++)
		v[i] = (float)((i * 37 + seed * 11) % 101) / 8.0f - 6.0f;
}

int main(void)
{
	struct tern_context_params copyp = { .engine_class = TERN_ENGINE_COPY };
	struct tern_context *ctx, *copy;
	struct tern_bo *bo, *mat;
	struct tern_cmdbuf *cb;
	uint32_t *w, s1 = 0, s2 = 0;
	uint64_t *ts, va;
	float *f, *a, *b, *cm;
	bool good;
	int ret;

	if (tern_device_open(0, &dev) || tern_context_create(dev, NULL, &ctx) ||
	    tern_context_create(dev, &copyp, &copy) || tern_bo_alloc(dev, 1 << 20, 0, &bo) ||
	    tern_bo_alloc(dev, 3 * 64 * 64 * 4, 0, &mat) || tern_cmdbuf_create(0, &cb)) {
		tap_ok(false, "set-up: %s", tern_last_error());
		return tap_exit_status();
	}
	w = tern_bo_map(bo);
	ts = tern_bo_map(bo);
	f = tern_bo_map(bo);
	va = tern_bo_va(bo);

	tern_cmd_write_imm(cb, va, 0x12345678);
	tern_cmd_fence(cb, va + 4, 42);
	ret = run(ctx, cb, &s1);
	tap_ok(ret == 0 && w[0] == 0x12345678 && w[1] == 42, "WRITE_IMM and FENCE write their values");
	tern_cmd_nop(cb, 5);
	ret = run(ctx, cb, &s2);
	tap_ok(ret == 0 && s1 >= 1 && s2 == s1 + 1, "a NOP job; seqnos count up (%u, %u)", s1, s2);

	/* inside a run the engine may be up to 1 ms ahead of its cost model */
	tern_cmd_timestamp(cb, va + 64);
	tern_cmd_spin(cb, 5000);
	tern_cmd_timestamp(cb, va + 72);
	ret = run(ctx, cb, NULL);
	tap_ok(ret == 0 && ts[8] && ts[9] - ts[8] >= 4000000 && ts[9] - ts[8] < 1000000000,
	       "TIMESTAMPs around a 5 ms SPIN are %.3f ms apart (at least 4)",
	       (ts[9] - ts[8]) / 1e6);

	for (int i = 0; i < 1024; i++)
		w[1024 + i] = (uint32_t)i * 2654435761u;
	tern_cmd_copy(cb, va + 8192, va + 4096, 4096);
	tern_cmd_fill(cb, va + 12288, 4096, 0xabcdabcd);
	ret = run(ctx, cb, NULL);
	good = !memcmp(&w[2048], &w[1024], 4096);
	for (int i = 0; i < 1024; i++)
		good &= w[3072 + i] == 0xabcdabcd;
	tap_ok(ret == 0 && good, "COPY and FILL of 4 KiB");

	w[4096] = 5;
	tern_cmd_wait_mem(cb, va + 16384, 5, 1000000);
	tern_cmd_write_imm(cb, va + 16388, 1);
	ret = run(ctx, cb, NULL);
	tap_ok(ret == 0 && w[4097] == 1, "WAIT_MEM on a value already reached goes on");

	/* vectors at 64 KiB: a, b, c of 1000 floats */
	fill_floats(&f[16384], 1000, 1);
	fill_floats(&f[17408], 1000, 2);
	tern_cmd_vecadd(cb, va + 4 * 18432, va + 4 * 16384, va + 4 * 17408, 1000);
	ret = run(ctx, cb, NULL);
	good = true;
	for (int i = 0; i < 1000; i++)
		good &= f[18432 + i] == f[16384 + i] + f[17408 + i];
	tap_ok(ret == 0 && good, "VECADD of 1000 elements matches the CPU");

	{
		float y0[1000];

		memcpy(y0, &f[17408], sizeof(y0));
		tern_cmd_saxpy(cb, va + 4 * 17408, va + 4 * 16384, -1.5f, 1000);
		ret = run(ctx, cb, NULL);
		good = true;
		for (int i = 0; i < 1000; i++)
			good &= fabsf(f[17408 + i] - (-1.5f * f[16384 + i] + y0[i])) <= 1e-5f;
		tap_ok(ret == 0 && good, "SAXPY of 1000 elements matches the CPU");
	}

	{
		float sum = 0.0f, mn = INFINITY, mx = -INFINITY;

		for (int i = 0; i < 1000; i++) {
			sum += f[16384 + i];
			mn = fminf(mn, f[16384 + i]);
			mx = fmaxf(mx, f[16384 + i]);
		}
		tern_cmd_reduce(cb, va + 4 * 20000, va + 4 * 16384, 1000, TERN_REDUCTION_SUM);
		tern_cmd_reduce(cb, va + 4 * 20001, va + 4 * 16384, 1000, TERN_REDUCTION_MIN);
		tern_cmd_reduce(cb, va + 4 * 20002, va + 4 * 16384, 1000, TERN_REDUCTION_MAX);
		ret = run(ctx, cb, NULL);
		tap_ok(ret == 0 && f[20000] == sum && f[20001] == mn && f[20002] == mx,
		       "REDUCE sum/min/max: %g %g %g (CPU %g %g %g)", f[20000], f[20001],
		       f[20002], sum, mn, mx);
	}

	a = tern_bo_map(mat);
	b = a + 64 * 64;
	cm = b + 64 * 64;
	fill_floats(a, 64 * 48, 3);
	fill_floats(b, 48 * 32, 4);
	tern_cmd_gemm(cb, tern_bo_va(mat) + 2 * 64 * 64 * 4, tern_bo_va(mat),
		      tern_bo_va(mat) + 64 * 64 * 4, 64, 32, 48);
	ret = run(ctx, cb, NULL);
	good = true;
	for (int i = 0; i < 64; i++)
		for (int j = 0; j < 32; j++) {
			float s = 0.0f;

			for (int p = 0; p < 48; p++)
				s += a[i * 48 + p] * b[p * 32 + j];
			good &= !memcmp(&s, &cm[i * 32 + j], 4);
		}
	tap_ok(ret == 0 && good, "GEMM 64x32x48 matches the CPU bit for bit");

	/* the copy engine: copy, fill, write, timestamp */
	w[8000] = 0;
	tern_cmd_fill(cb, va + 4 * 8192, 256, 7);
	tern_cmd_copy(cb, va + 4 * 8448, va + 4 * 8192, 256);
	tern_cmd_write_imm(cb, va + 4 * 8000, 3);
	tern_cmd_timestamp(cb, va + 4 * 8002);
	ret = run(copy, cb, NULL);
	tap_ok(ret == 0 && w[8448] == 7 && w[8448 + 63] == 7 && w[8000] == 3,
	       "the copy engine runs FILL, COPY, WRITE_IMM and TIMESTAMP");

	{
		struct tern_context_status st;

		ret = tern_context_status(ctx, &st);
		tap_ok(ret == 0 && st.state == TERN_CONTEXT_ACTIVE && st.jobs_completed >= 9 &&
		       st.jobs_submitted == st.jobs_completed && st.busy_ns >= 2000000,
		       "context status: %llu jobs submitted, %llu completed, %.3f ms busy",
		       (unsigned long long)st.jobs_submitted,
		       (unsigned long long)st.jobs_completed, st.busy_ns / 1e6);
	}

	tern_cmdbuf_free(cb);
	tern_bo_free(mat);
	tern_bo_free(bo);
	tern_context_destroy(copy);
	tern_context_destroy(ctx);
	tern_device_close(dev);
	tap_done();
	return tap_exit_status();
}
