// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * Figure 6: data throughput of COPY (copy engine), GEMM and SAXPY (compute
 * engine).  Each repetition submits K jobs of one packet back to back on
 * a new context.  "driver" is bytes (or multiply-adds, elements) over the
 * wall time from the first submit to the last fence; "device" is the same
 * over the device time of the runs (the context's busy_ns, the sum of the
 * engine's RUN_NS), the device's internal rate.  The cost model's limit is
 * one byte (multiply-add, element) per ns divided by the device's
 * time-scale: a run lasts at least its modelled cost.
 * Results are checked bit for bit against the CPU in the first repetition.
 *
 * Each repetition also runs the same jobs on buffers in device-local
 * memory (TERN_BO_LOCAL, interface 1.6), right after the system-memory
 * run: "local driver" and "local device" are their rates, "local/system"
 * the ratio of the two device rates of the repetition (the cost model
 * makes a chunk whose data is all local four times cheaper).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define FIG 6

enum kind { K_COPY, K_GEMM, K_SAXPY };

struct work {
	enum kind kind;
	const char *name, *unit;
	uint32_t size;			/* bytes, or matrix side, or elements */
	double amount;			/* per job, in unit */
	uint32_t flags;			/* of tern_bo_alloc(): TERN_BO_LOCAL or 0 */
	struct tern_bo *a, *b, *c;
};

static int work_alloc(struct tern_device *dev, struct work *w)
{
	uint64_t n = w->size, abytes, bbytes, cbytes;
	int ret;

	switch (w->kind) {
	case K_COPY:
		abytes = cbytes = n;
		bbytes = 4;
		w->amount = (double)n;
		break;
	case K_GEMM:
		abytes = bbytes = cbytes = n * n * 4;
		w->amount = (double)n * n * n;
		break;
	default:
		abytes = cbytes = n * 4;
		bbytes = 4;
		w->amount = (double)n;
		break;
	}
	ret = tern_bo_alloc(dev, abytes, w->flags, &w->a);
	if (!ret)
		ret = tern_bo_alloc(dev, bbytes, w->flags, &w->b);
	if (!ret)
		ret = tern_bo_alloc(dev, cbytes, w->flags, &w->c);
	if (ret)
		tool_error(ret, "figure 6 buffers");
	return ret;
}

static void work_free(struct work *w)
{
	tern_bo_free(w->a);
	tern_bo_free(w->b);
	tern_bo_free(w->c);
}

/* inputs from fixed seeds; the output zeroed */
static void work_fill(struct work *w)
{
	uint64_t n = w->size;

	switch (w->kind) {
	case K_COPY:
		tool_fill_random(tern_bo_map(w->a), n / 4, 1);
		memset(tern_bo_map(w->c), 0, n);
		break;
	case K_GEMM:
		tool_fill_random(tern_bo_map(w->a), n * n, 2);
		tool_fill_random(tern_bo_map(w->b), n * n, 3);
		memset(tern_bo_map(w->c), 0, n * n * 4);
		break;
	default:
		tool_fill_random(tern_bo_map(w->a), n, 4);
		tool_fill_random(tern_bo_map(w->c), n, 5);
		break;
	}
}

#define SAXPY_ALPHA 0.75f

/* Compare the device's output with the CPU's, bit for bit. */
static int work_check(struct work *w, unsigned int jobs)
{
	uint64_t n = w->size, i, j, p, bad = 0;
	const float *a = tern_bo_map(w->a), *b = tern_bo_map(w->b), *c = tern_bo_map(w->c);
	float *y;

	switch (w->kind) {
	case K_COPY:
		bad = memcmp(a, c, n) != 0;
		break;
	case K_GEMM:
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++) {
				float sum = 0.0f;

				for (p = 0; p < n; p++)
					sum = sum + a[i * n + p] * b[p * n + j];
				bad += memcmp(&sum, &c[i * n + j], sizeof(sum)) != 0;
			}
		break;
	default:
		y = malloc(n * sizeof(*y));
		if (!y)
			return -ENOMEM;
		tool_fill_random(y, n, 5);
		for (p = 0; p < jobs; p++)
			for (i = 0; i < n; i++)
				y[i] = SAXPY_ALPHA * a[i] + y[i];
		for (i = 0; i < n; i++)
			bad += memcmp(&y[i], &c[i], sizeof(*y)) != 0;
		free(y);
		break;
	}
	if (bad) {
		fprintf(stderr, "%s: %s: %llu wrong values\n", tool_name, w->name,
			(unsigned long long)bad);
		return -EIO;
	}
	return 0;
}

static int work_cmd(struct tern_cmdbuf *cb, struct work *w)
{
	switch (w->kind) {
	case K_COPY:
		return tern_cmd_copy(cb, tern_bo_va(w->c), tern_bo_va(w->a), w->size);
	case K_GEMM:
		return tern_cmd_gemm(cb, tern_bo_va(w->c), tern_bo_va(w->a), tern_bo_va(w->b),
				     w->size, w->size, w->size);
	default:
		return tern_cmd_saxpy(cb, tern_bo_va(w->c), tern_bo_va(w->a), SAXPY_ALPHA,
				      w->size);
	}
}

/* Run @jobs jobs of @w; *@rate: the device's rate, per second. */
static int work_run(struct bench *b, struct work *w, unsigned int jobs, bool check,
		    double *rate)
{
	bool local = w->flags & TERN_BO_LOCAL;
	struct tern_context_params p = {
		.engine_class = w->kind == K_COPY ? TERN_ENGINE_COPY : TERN_ENGINE_COMPUTE,
	};
	struct tern_fence **f = calloc(jobs, sizeof(*f));
	struct tern_cmdbuf *cb = NULL;
	struct tern_context *ctx = NULL;
	struct tern_context_status st;
	double device_ns, wall_ns;
	unsigned int i;
	uint64_t t0;
	int ret = f ? 0 : -ENOMEM;

	if (!ret)
		ret = tern_context_create(b->dev, &p, &ctx);
	if (!ret)
		ret = tern_cmdbuf_create(0, &cb);
	if (!ret)
		ret = work_cmd(cb, w);
	if (ret) {
		tool_error(ret, "figure 6 set-up");
		goto out;
	}
	work_fill(w);
	t0 = bench_now_ns();
	for (i = 0; i < jobs && !ret; i++)
		ret = tern_submit(ctx, cb, NULL, 0, &f[i]);
	if (ret)
		tool_error(ret, "figure 6 submit");
	if (!ret) {
		ret = tern_fence_wait_all(f, jobs, 120000000000ll);
		if (ret)
			tool_error(ret, "figure 6 job");
	}
	wall_ns = (double)(bench_now_ns() - t0);
	if (!ret)
		ret = tern_context_status(ctx, &st);
	if (ret)
		goto out;
	/* a fresh context: its busy time is these jobs' */
	device_ns = (double)st.busy_ns;
	*rate = w->amount * jobs / device_ns * 1e9;
	bench_record(FIG, w->name, local ? "local driver" : "driver", -1, w->unit,
		     w->amount * jobs / wall_ns * 1e9);
	bench_record(FIG, w->name, local ? "local device" : "device", -1, w->unit, *rate);
	if (!local) {
		bench_record(FIG, w->name, "model", -1, w->unit, 1e9 / b->dev_scale);
		bench_record(FIG, w->name, "driver/device", -1, "x", device_ns / wall_ns);
	}
	if (check)
		ret = work_check(w, jobs);
out:
	for (i = 0; f && i < jobs; i++)
		tern_fence_free(f[i]);
	tern_cmdbuf_free(cb);
	tern_context_destroy(ctx);
	free(f);
	return ret;
}

int bench_fig_compute(struct bench *b)
{
	struct work w[] = {
		{ .kind = K_COPY, .name = "copy", .unit = "B/s",
		  .size = b->quick ? 256u << 10 : 4u << 20 },
		{ .kind = K_GEMM, .name = "gemm", .unit = "MAC/s", .size = b->quick ? 32 : 128 },
		{ .kind = K_SAXPY, .name = "saxpy", .unit = "elem/s",
		  .size = b->quick ? 65536 : 1u << 20 },
	};
	unsigned int jobs = b->quick ? 2 : 8, rep, i;
	double sys_rate, local_rate;
	struct work l;
	int ret = 0;

	for (i = 0; i < sizeof(w) / sizeof(w[0]) && !ret; i++) {
		l = w[i];
		l.flags = TERN_BO_LOCAL;
		ret = work_alloc(b->dev, &w[i]);
		/* a driver before 1.6, or no local memory: no local series */
		if (!ret && tern_device_info(b->dev)->local_mem_size &&
		    tern_bo_alloc(b->dev, 4096, TERN_BO_LOCAL, &l.a) == 0) {
			tern_bo_free(l.a);
			ret = work_alloc(b->dev, &l);
		} else {
			l.a = NULL;
		}
		for (rep = 0; rep < b->reps && !ret; rep++) {
			ret = work_run(b, &w[i], jobs, rep == 0, &sys_rate);
			if (!ret && l.a) {
				ret = work_run(b, &l, jobs, rep == 0, &local_rate);
				if (!ret)
					bench_record(FIG, w[i].name, "local/system", -1, "x",
						     local_rate / sys_rate);
			}
		}
		work_free(&w[i]);
		if (l.a)
			work_free(&l);
	}
	bench_log(b, "fig 6 done");
	return ret;
}
