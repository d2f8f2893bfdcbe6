// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * Figure 8: changes of an address space.  What a buffer's map and unmap
 * cost (tern_bo_alloc() and tern_bo_free() of a 64 KiB buffer: create, CPU
 * mapping, the device-side page-table update of each change), how many
 * (alloc, job, free) triples a thread completes per second, and how long
 * freeing a buffer no job uses waits while a long job of the same address
 * space runs on another buffer (tern_bo_free()'s synchronous unmap waits
 * for every job of the address space).
 *
 * The same with asynchronous binds (tern_vm_bind() at a reserved VA): a
 * map's and an unmap's round trip (queued to fence signalled), pipelined
 * (map, job, unmap) triples per second with every step waiting on the one
 * before through fences, and how long an unmap of a buffer the long job
 * does not use takes to signal while that job runs.
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

/* One asynchronous operation on @va, after @dep (or nothing); its fence. */
static int bind_async(struct tern_device *dev, uint32_t op, struct tern_bo *bo,
		      uint64_t va, struct tern_fence *dep, struct tern_fence **fencep)
{
	struct tern_bind_op o = {
		.op = op,
		.bo = op == TERN_BIND_MAP ? bo : NULL,
		.va = va,
		.range = BIND_SIZE,
	};
	struct tern_deps deps = { .fences = &dep, .fence_count = dep ? 1 : 0 };

	return tern_vm_bind(dev, &o, 1, &deps, fencep);
}

/* One asynchronous operation, waited for through its fence. */
static int bind_async_wait(struct tern_device *dev, uint32_t op, struct tern_bo *bo,
			   uint64_t va)
{
	struct tern_fence *f = NULL;
	int ret;

	ret = bind_async(dev, op, bo, va, NULL, &f);
	if (!ret)
		ret = tern_fence_wait(f, 10000000000ll);
	tern_fence_free(f);
	return ret;
}

/* p50 of an asynchronous map's and unmap's round trip, to the fence */
static int bind_async_latency(struct bench *b, struct tern_bo *bo, uint64_t va,
			      unsigned int n)
{
	double *map = calloc(n, sizeof(*map)), *unmap = calloc(n, sizeof(*unmap));
	unsigned int i;
	int ret = 0;

	if (!map || !unmap) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n && !ret; i++) {
		uint64_t t0 = bench_now_ns(), t1;

		ret = bind_async_wait(b->dev, TERN_BIND_MAP, bo, va);
		t1 = bench_now_ns();
		if (!ret)
			ret = bind_async_wait(b->dev, TERN_BIND_UNMAP, NULL, va);
		map[i] = (t1 - t0) / 1e3;
		unmap[i] = (bench_now_ns() - t1) / 1e3;
	}
	if (ret) {
		tool_error(ret, "figure 8 asynchronous binds");
		goto out;
	}
	bench_record(FIG, "async_map_p50", "driver", -1, "us", bench_quantile(map, n, 0.5));
	bench_record(FIG, "async_unmap_p50", "driver", -1, "us",
		     bench_quantile(unmap, n, 0.5));
out:
	free(map);
	free(unmap);
	return ret;
}

#define PIPE_DEPTH	8

/*
 * (map, job, unmap) triples per second with no wait on the CPU but for a
 * slot PIPE_DEPTH triples back: each step waits for the one before through
 * its fence.
 */
static int bind_async_triples(struct bench *b, struct tern_context *ctx,
			      struct tern_bo *bo, uint64_t va, unsigned int n)
{
	struct tern_fence *unmapped[PIPE_DEPTH] = { 0 };
	struct tern_cmdbuf *cb = NULL;
	unsigned int i, slot;
	uint64_t t0;
	int ret;

	ret = tern_cmdbuf_create(0, &cb);
	t0 = bench_now_ns();
	for (i = 0; i < n && !ret; i++) {
		uint64_t at = va + (uint64_t)(i % PIPE_DEPTH) * 2 * BIND_SIZE;
		struct tern_fence *mapped = NULL, *job = NULL;
		struct tern_deps deps = { 0 };

		slot = i % PIPE_DEPTH;
		if (unmapped[slot]) {
			/* the slot's last unmap: its range is free again */
			ret = tern_fence_wait(unmapped[slot], 10000000000ll);
			tern_fence_free(unmapped[slot]);
			unmapped[slot] = NULL;
			if (ret)
				break;
		}
		ret = bind_async(b->dev, TERN_BIND_MAP, bo, at, NULL, &mapped);
		if (ret)
			break;
		tern_cmdbuf_reset(cb);
		ret = tern_cmd_write_imm(cb, at + 4 * slot, i + 1);
		deps.fences = &mapped;
		deps.fence_count = 1;
		if (!ret)
			ret = tern_submit_deps(ctx, cb, &deps, &job);
		if (!ret)
			ret = bind_async(b->dev, TERN_BIND_UNMAP, NULL, at, job,
					 &unmapped[slot]);
		tern_fence_free(mapped);
		tern_fence_free(job);
	}
	for (slot = 0; slot < PIPE_DEPTH; slot++) {
		if (unmapped[slot] && !ret)
			ret = tern_fence_wait(unmapped[slot], 10000000000ll);
		tern_fence_free(unmapped[slot]);
	}
	if (ret)
		tool_error(ret, "figure 8 asynchronous triples");
	else
		bench_record(FIG, "async_triples_per_s", "driver", -1, "1/s",
			     n / ((bench_now_ns() - t0) / 1e9));
	tern_cmdbuf_free(cb);
	return ret;
}

/*
 * How long an asynchronous unmap of a range the long job does not use
 * takes to signal while that job runs on another buffer.
 */
static int async_unmap_stall(struct bench *b, struct tern_context *ctx,
			     struct tern_bo *idle, uint64_t va)
{
	struct tern_fence *f = NULL, *job = NULL;
	struct tern_cmdbuf *cb = NULL;
	struct tern_bo *busy = NULL;
	uint64_t t1, t2;
	int ret;

	ret = bind_async(b->dev, TERN_BIND_MAP, idle, va, NULL, NULL);
	if (!ret)
		ret = tern_bo_alloc(b->dev, BIND_SIZE, 0, &busy);
	if (!ret)
		ret = tern_cmdbuf_create(0, &cb);
	if (!ret)
		ret = tern_cmd_spin(cb, LONG_JOB_US);
	if (!ret)
		ret = tern_cmd_write_imm(cb, tern_bo_va(busy), 1);
	if (!ret)
		ret = tern_submit(ctx, cb, NULL, 0, &job);
	if (ret)
		goto out;
	bench_sleep_ns(10000000);
	t1 = bench_now_ns();
	ret = bind_async(b->dev, TERN_BIND_UNMAP, NULL, va, NULL, &f);
	if (!ret)
		ret = tern_fence_wait(f, 60000000000ll);
	t2 = bench_now_ns();
	if (!ret)
		bench_record(FIG, "async_unmap_stall_ms", "driver", -1, "ms",
			     (t2 - t1) / 1e6);
	if (!ret)
		ret = tern_fence_wait(job, 60000000000ll);
out:
	if (ret)
		tool_error(ret, "figure 8 asynchronous unmap stall");
	tern_fence_free(f);
	tern_fence_free(job);
	tern_cmdbuf_free(cb);
	tern_bo_free(busy);
	return ret;
}

/* The asynchronous measures, at a VA range of their own. */
static int bind_async_all(struct bench *b, struct tern_context *ctx, unsigned int n)
{
	uint64_t span = (uint64_t)PIPE_DEPTH * 2 * BIND_SIZE, va = 0;
	struct tern_bo *bo = NULL;
	int ret;

	ret = tern_va_reserve(b->dev, span, BIND_SIZE, &va);
	if (!ret)
		ret = tern_bo_alloc(b->dev, BIND_SIZE, 0, &bo);
	if (!ret)
		ret = bind_async_latency(b, bo, va, n);
	if (!ret)
		ret = bind_async_triples(b, ctx, bo, va, n);
	if (!ret)
		ret = async_unmap_stall(b, ctx, bo, va);
	if (ret)
		tool_error(ret, "figure 8 asynchronous set-up");
	tern_bo_free(bo);
	if (va)
		tern_va_release(b->dev, va, span);
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
		if (!ret)
			ret = bind_async_all(b, ctx, n);
		bench_log(b, "fig 8 rep %u", rep);
	}
	tern_context_destroy(ctx);
	return ret;
}
