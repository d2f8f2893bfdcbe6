// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * Figure 8: changes of an address space.  What a buffer's map and unmap
 * cost (tern_bo_alloc() and tern_bo_free() of a 64 KiB buffer: create, CPU
 * mapping, the device-side page-table update of each change), how many
 * (alloc, job, free) triples a thread completes per second, and how long
 * freeing a buffer no job uses waits while a long job of the same address
 * space runs on another buffer (the unmap waits for every job of the
 * address space today).
 */
#include <errno.h>
#include <stdlib.h>

#include "bench.h"

#define FIG		8
#define BIND_SIZE	0x10000
#define LONG_JOB_US	200000

/* p50 and p99 of tern_bo_alloc() + tern_bo_free(), and each alone */
static int bind_latency(struct bench *b, unsigned int n)
{
	double *both = calloc(n, sizeof(*both)), *alloc = calloc(n, sizeof(*alloc));
	unsigned int i;
	int ret = 0;

	if (!both || !alloc) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n && !ret; i++) {
		uint64_t t0 = bench_now_ns(), t1;
		struct tern_bo *bo;

		ret = tern_bo_alloc(b->dev, BIND_SIZE, 0, &bo);
		if (ret) {
			tool_error(ret, "figure 8 alloc");
			break;
		}
		t1 = bench_now_ns();
		tern_bo_free(bo);
		alloc[i] = (t1 - t0) / 1e3;
		both[i] = (bench_now_ns() - t0) / 1e3;
	}
	if (!ret) {
		bench_record(FIG, "alloc_free_p50", "driver", -1, "us",
			     bench_quantile(both, n, 0.5));
		bench_record(FIG, "alloc_free_p99", "driver", -1, "us",
			     bench_quantile(both, n, 0.99));
		bench_record(FIG, "alloc_p50", "driver", -1, "us",
			     bench_quantile(alloc, n, 0.5));
	}
out:
	free(both);
	free(alloc);
	return ret;
}

/* (alloc, a job writing the buffer, free) per second, one thread */
static int bind_triples(struct bench *b, struct tern_context *ctx, unsigned int n)
{
	struct tern_cmdbuf *cb = NULL;
	uint64_t t0;
	unsigned int i;
	int ret;

	ret = tern_cmdbuf_create(0, &cb);
	t0 = bench_now_ns();
	for (i = 0; i < n && !ret; i++) {
		struct tern_bo *bo;
		uint64_t ns;

		ret = tern_bo_alloc(b->dev, BIND_SIZE, 0, &bo);
		if (ret)
			break;
		tern_cmdbuf_reset(cb);
		ret = tern_cmd_write_imm(cb, tern_bo_va(bo), i + 1);
		if (!ret)
			ret = bench_run_one(ctx, cb, 10000000000ll, &ns);
		if (!ret && *(volatile uint32_t *)tern_bo_map(bo) != i + 1)
			ret = -EIO;
		tern_bo_free(bo);
	}
	if (ret)
		tool_error(ret, "figure 8 triples");
	else
		bench_record(FIG, "triples_per_s", "driver", -1, "1/s",
			     n / ((bench_now_ns() - t0) / 1e9));
	tern_cmdbuf_free(cb);
	return ret;
}

/* How long freeing an unused buffer waits for a long job on another one. */
static int unmap_stall(struct bench *b, struct tern_context *ctx)
{
	struct tern_bo *busy = NULL, *idle = NULL;
	struct tern_cmdbuf *cb = NULL;
	struct tern_fence *f = NULL;
	uint64_t t0, t1, t2;
	int ret;

	ret = tern_bo_alloc(b->dev, BIND_SIZE, 0, &busy);
	if (!ret)
		ret = tern_bo_alloc(b->dev, BIND_SIZE, 0, &idle);
	if (!ret)
		ret = tern_cmdbuf_create(0, &cb);
	if (!ret)
		ret = tern_cmd_spin(cb, LONG_JOB_US);
	if (!ret)
		ret = tern_cmd_write_imm(cb, tern_bo_va(busy), 1);
	if (ret)
		goto out;
	t0 = bench_now_ns();
	ret = tern_submit(ctx, cb, NULL, 0, &f);
	if (ret)
		goto out;
	/* let it start */
	bench_sleep_ns(10000000);
	t1 = bench_now_ns();
	tern_bo_free(idle);
	idle = NULL;
	t2 = bench_now_ns();
	ret = tern_fence_wait(f, 60000000000ll);
	if (ret)
		goto out;
	bench_record(FIG, "unmap_stall_ms", "driver", -1, "ms", (t2 - t1) / 1e6);
	bench_record(FIG, "long_job_ms", "driver", -1, "ms", (bench_now_ns() - t0) / 1e6);
out:
	if (ret)
		tool_error(ret, "figure 8 unmap stall");
	tern_fence_free(f);
	tern_cmdbuf_free(cb);
	tern_bo_free(idle);
	tern_bo_free(busy);
	return ret;
}

int bench_fig_bind(struct bench *b)
{
	unsigned int n = b->quick ? 20 : 200, rep;
	struct tern_context *ctx = NULL;
	int ret;

	ret = tern_context_create(b->dev, NULL, &ctx);
	if (ret) {
		tool_error(ret, "figure 8 set-up");
		return ret;
	}
	for (rep = 0; rep < b->reps && !ret; rep++) {
		ret = bind_latency(b, n);
		if (!ret)
			ret = bind_triples(b, ctx, n);
		if (!ret)
			ret = unmap_stall(b, ctx);
		bench_log(b, "fig 8 rep %u", rep);
	}
	tern_context_destroy(ctx);
	return ret;
}
