// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * tern-bench: submission latency, job throughput and copy bandwidth of a
 * tern device, measured through libtern.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

const char *tool_name = "tern-bench";

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tern-bench [-d DEVICE] [-n COUNT] [-j JOBS] [-s BYTES]\n"
		"Measure a tern device through libtern:\n"
		"  latency     COUNT single jobs (one WRITE_IMM), each submitted and waited\n"
		"              for: time in the submit call and from submit to completion\n"
		"  throughput  JOBS small jobs submitted back to back, keeping the context\n"
		"              full: jobs per second\n"
		"  bandwidth   one COPY of BYTES between two buffers, timed on the device\n"
		"              clock\n"
		"\n"
		"  -d, --device=DEVICE  an index (default 0) or a node path\n"
		"  -n, --latency=COUNT  latency samples (default 200)\n"
		"  -j, --jobs=JOBS      throughput jobs (default 2000)\n"
		"  -s, --size=BYTES     copy size (default 16M; k/M/G suffixes)\n"
		"  -h, --help           this help\n"
		"\n"
		"Exit status: 0 success, 1 a step failed or a result was wrong, 2 bad\n"
		"usage, 3 no tern device, 4 no permission.\n");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void print_stats(const char *what, uint64_t *v, uint64_t n)
{
	uint64_t sum = 0, i;

	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		sum += v[i];
	printf("  %-22s min %8.1f  median %8.1f  p99 %8.1f  max %8.1f  mean %8.1f us\n", what,
	       v[0] / 1e3, v[n / 2] / 1e3, v[(n * 99) / 100] / 1e3, v[n - 1] / 1e3,
	       (double)sum / n / 1e3);
}

static int latency(struct tern_context *ctx, struct tern_bo *bo, uint64_t count)
{
	uint64_t *sub = calloc(count, sizeof(*sub)), *rt = calloc(count, sizeof(*rt)), i;
	volatile uint32_t *word = tern_bo_map(bo);
	struct tern_cmdbuf *cb = NULL;
	int ret = -ENOMEM;

	if (!sub || !rt)
		goto out;
	for (i = 0; i < count; i++) {
		struct tern_fence *f;
		uint64_t t0, t1;

		tern_cmdbuf_free(cb);
		ret = tern_cmdbuf_create(0, &cb);
		if (!ret)
			ret = tern_cmd_write_imm(cb, tern_bo_va(bo), (uint32_t)i + 1);
		if (ret) {
			tool_error(ret, "building a job");
			goto out;
		}
		t0 = tool_now_ns();
		ret = tern_submit(ctx, cb, NULL, 0, &f);
		t1 = tool_now_ns();
		if (ret) {
			tool_error(ret, "submit");
			goto out;
		}
		ret = tern_fence_wait(f, 10 * 1000000000ll);
		rt[i] = tool_now_ns() - t0;
		sub[i] = t1 - t0;
		tern_fence_free(f);
		if (ret) {
			tool_error(ret, "waiting for a job");
			goto out;
		}
		if (*word != (uint32_t)i + 1) {
			fprintf(stderr, "%s: job %" PRIu64 " wrote %u, expected %" PRIu64 "\n",
				tool_name, i, *word, i + 1);
			ret = -EIO;
			goto out;
		}
	}
	printf("latency (%" PRIu64 " jobs, one WRITE_IMM each):\n", count);
	print_stats("submit call", sub, count);
	print_stats("submit to completion", rt, count);
	ret = 0;
out:
	tern_cmdbuf_free(cb);
	free(sub);
	free(rt);
	return ret;
}

static int throughput(struct tern_device *dev, struct tern_context *ctx, struct tern_bo *bo,
		      uint64_t jobs)
{
	unsigned int window = tern_device_info(dev)->max_jobs_per_context;
	struct tern_fence **ring;
	struct tern_cmdbuf *cb;
	uint64_t i, head = 0, tail = 0, t0, retries = 0;
	int ret;

	if (!window || window > 4096)
		window = 64;
	ring = calloc(window, sizeof(*ring));
	if (!ring)
		return -ENOMEM;
	ret = tern_cmdbuf_create(0, &cb);
	if (!ret)
		ret = tern_cmd_write_imm(cb, tern_bo_va(bo) + 4, 1);
	if (ret) {
		tool_error(ret, "building a job");
		free(ring);
		return ret;
	}
	t0 = tool_now_ns();
	for (i = 0; i < jobs; i++) {
		/* keep at most window jobs in flight; the kernel says -EAGAIN beyond */
		for (;;) {
			if (head - tail < window) {
				ret = tern_submit(ctx, cb, NULL, 0, &ring[head % window]);
				if (ret != -EAGAIN)
					break;
				retries++;
				if (head == tail)
					break;	/* full, and not with our jobs */
			}
			ret = tern_fence_wait(ring[tail % window], 10 * 1000000000ll);
			tern_fence_free(ring[tail % window]);
			tail++;
			if (ret)
				break;
		}
		if (ret) {
			tool_error(ret, "throughput job");
			break;
		}
		head++;
	}
	while (tail < head) {
		int r = tern_fence_wait(ring[tail % window], 10 * 1000000000ll);

		if (r && !ret) {
			tool_error(r, "waiting for a job");
			ret = r;
		}
		tern_fence_free(ring[tail % window]);
		tail++;
	}
	t0 = tool_now_ns() - t0;
	if (!ret)
		printf("throughput: %" PRIu64 " jobs in %.3f s: %.0f jobs/s (window %u, %" PRIu64
		       " -EAGAIN retries)\n", jobs, t0 / 1e9, jobs / (t0 / 1e9), window, retries);
	tern_cmdbuf_free(cb);
	free(ring);
	return ret;
}

static int bandwidth(struct tern_device *dev, struct tern_context *ctx, uint64_t size)
{
	struct tern_bo *src = NULL, *dst = NULL, *ts = NULL;
	struct tern_fence *f = NULL;
	struct tern_cmdbuf *cb = NULL;
	uint64_t *stamps, dt;
	int ret;

	ret = tern_bo_alloc(dev, size, 0, &src);
	if (!ret)
		ret = tern_bo_alloc(dev, size, 0, &dst);
	if (!ret)
		ret = tern_bo_alloc(dev, 16, 0, &ts);
	if (ret) {
		tool_error(ret, "allocating buffers");
		goto out;
	}
	memset(tern_bo_map(src), 0x5a, size);
	ret = tern_cmdbuf_create(0, &cb);
	if (!ret)
		ret = tern_cmd_timestamp(cb, tern_bo_va(ts));
	if (!ret)
		ret = tern_cmd_copy(cb, tern_bo_va(dst), tern_bo_va(src), (uint32_t)size);
	if (!ret)
		ret = tern_cmd_timestamp(cb, tern_bo_va(ts) + 8);
	if (!ret)
		ret = tern_submit(ctx, cb, NULL, 0, &f);
	if (!ret)
		ret = tern_fence_wait(f, 60 * 1000000000ll);
	if (ret) {
		tool_error(ret, "copy job");
		goto out;
	}
	if (memcmp(tern_bo_map(src), tern_bo_map(dst), size)) {
		fprintf(stderr, "%s: the copy is wrong\n", tool_name);
		ret = -EIO;
		goto out;
	}
	stamps = tern_bo_map(ts);
	dt = stamps[1] - stamps[0];
	printf("bandwidth: COPY of %" PRIu64 " bytes: %.3f ms on the device clock, %.2f GB/s\n",
	       size, dt / 1e6, dt ? (double)size / dt : 0.0);
out:
	tern_fence_free(f);
	tern_cmdbuf_free(cb);
	tern_bo_free(ts);
	tern_bo_free(dst);
	tern_bo_free(src);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "latency", required_argument, NULL, 'n' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "size", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t count = 200, jobs = 2000, size = 16 << 20;
	struct tern_context *ctx = NULL;
	struct tern_bo *bo = NULL;
	const char *spec = NULL;
	struct tern_device *dev;
	int c, ret;

	while ((c = getopt_long(argc, argv, "d:n:j:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			spec = optarg;
			break;
		case 'n':
			if (tool_parse_u64(optarg, &count) || !count || count > 10000000) {
				fprintf(stderr, "%s: bad count \"%s\"\n", tool_name, optarg);
				return TOOL_EXIT_USAGE;
			}
			break;
		case 'j':
			if (tool_parse_u64(optarg, &jobs) || !jobs) {
				fprintf(stderr, "%s: bad job count \"%s\"\n", tool_name, optarg);
				return TOOL_EXIT_USAGE;
			}
			break;
		case 's':
			if (tool_parse_u64(optarg, &size) || !size || size > 0xffffffffu) {
				fprintf(stderr, "%s: bad size \"%s\" (1 to 4G-1)\n", tool_name, optarg);
				return TOOL_EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return TOOL_EXIT_OK;
		default:
			usage(stderr);
			return TOOL_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return TOOL_EXIT_USAGE;
	}

	ret = tool_open(spec, &dev);
	if (ret)
		return ret;
	ret = tern_context_create(dev, NULL, &ctx);
	if (ret) {
		tool_error(ret, "context");
		tern_device_close(dev);
		return tool_exit_code(ret);
	}
	ret = tern_bo_alloc(dev, 4096, 0, &bo);
	if (ret)
		tool_error(ret, "allocating a buffer");
	if (!ret)
		ret = latency(ctx, bo, count);
	if (!ret)
		ret = throughput(dev, ctx, bo, jobs);
	if (!ret)
		ret = bandwidth(dev, ctx, size);
	tern_bo_free(bo);
	tern_context_destroy(ctx);
	tern_device_close(dev);
	return ret ? TOOL_EXIT_FAIL : TOOL_EXIT_OK;
}
