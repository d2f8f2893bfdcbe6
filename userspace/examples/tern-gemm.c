// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * tern-gemm: C = A x B on a tern device, checked bit for bit against the
 * CPU (the device accumulates each element in f32 in index order, as the
 * reference loop here does).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

const char *tool_name = "tern-gemm";

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tern-gemm [-d DEVICE] [-m M] [-n N] [-k K] [-p PRIORITY]\n"
		"Multiply an MxK by a KxN f32 matrix on a tern device and check the\n"
		"result bit for bit against the CPU.\n"
		"\n"
		"  -d, --device=DEVICE      an index (default 0) or a node path\n"
		"  -m, -n, -k               the dimensions, 1 to 4096 (default 256 each)\n"
		"  -p, --priority=PRIORITY  low, normal (default) or high\n"
		"  -h, --help               this help\n"
		"\n"
		"Exit status: 0 the result is right, 1 it is wrong or a step failed,\n"
		"2 bad usage, 3 no tern device, 4 no permission.\n");
}

static int parse_dim(const char *s, uint32_t *d)
{
	uint64_t v;

	if (tool_parse_u64(s, &v) || !v || v > 4096) {
		fprintf(stderr, "%s: bad dimension \"%s\" (1 to 4096)\n", tool_name, s);
		return -1;
	}
	*d = (uint32_t)v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "priority", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tern_context_params params = { .priority = TERN_PRIORITY_NORMAL };
	struct tern_bo *abo = NULL, *bbo = NULL, *cbo = NULL, *tbo = NULL;
	uint32_t m = 256, n = 256, k = 256, i, j, p;
	struct tern_context *ctx = NULL;
	struct tern_fence *fence = NULL;
	struct tern_cmdbuf *cb = NULL;
	const char *spec = NULL;
	struct tern_device *dev;
	uint64_t bad = 0, *stamps, dt;
	float *a, *b, *cm;
	int c, ret, status = TOOL_EXIT_FAIL;

	while ((c = getopt_long(argc, argv, "d:m:n:k:p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			spec = optarg;
			break;
		case 'm':
			if (parse_dim(optarg, &m))
				return TOOL_EXIT_USAGE;
			break;
		case 'n':
			if (parse_dim(optarg, &n))
				return TOOL_EXIT_USAGE;
			break;
		case 'k':
			if (parse_dim(optarg, &k))
				return TOOL_EXIT_USAGE;
			break;
		case 'p':
			if (!strcmp(optarg, "low"))
				params.priority = TERN_PRIORITY_LOW;
			else if (!strcmp(optarg, "normal"))
				params.priority = TERN_PRIORITY_NORMAL;
			else if (!strcmp(optarg, "high"))
				params.priority = TERN_PRIORITY_HIGH;
			else {
				fprintf(stderr, "%s: bad priority \"%s\"\n", tool_name, optarg);
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
	ret = tern_context_create(dev, &params, &ctx);
	if (ret) {
		tool_error(ret, "context");
		status = tool_exit_code(ret);
		goto out;
	}
	ret = tern_bo_alloc(dev, (uint64_t)m * k * 4, 0, &abo);
	if (!ret)
		ret = tern_bo_alloc(dev, (uint64_t)k * n * 4, 0, &bbo);
	if (!ret)
		ret = tern_bo_alloc(dev, (uint64_t)m * n * 4, 0, &cbo);
	if (!ret)
		ret = tern_bo_alloc(dev, 16, 0, &tbo);
	if (ret) {
		tool_error(ret, "allocating buffers");
		goto out;
	}
	a = tern_bo_map(abo);
	b = tern_bo_map(bbo);
	cm = tern_bo_map(cbo);
	stamps = tern_bo_map(tbo);
	tool_fill_random(a, (uint64_t)m * k, 3);
	tool_fill_random(b, (uint64_t)k * n, 4);

	ret = tern_cmdbuf_create(0, &cb);
	if (!ret)
		ret = tern_cmd_timestamp(cb, tern_bo_va(tbo));
	if (!ret)
		ret = tern_cmd_gemm(cb, tern_bo_va(cbo), tern_bo_va(abo), tern_bo_va(bbo), m, n, k);
	if (!ret)
		ret = tern_cmd_timestamp(cb, tern_bo_va(tbo) + 8);
	if (ret) {
		tool_error(ret, "building the command buffer");
		goto out;
	}
	ret = tern_submit(ctx, cb, NULL, 0, &fence);
	if (ret) {
		tool_error(ret, "submit");
		goto out;
	}
	ret = tern_fence_wait(fence, 600 * 1000000000ll);
	if (ret) {
		tool_error(ret, "waiting for the job");
		goto out;
	}

	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++) {
			float sum = 0.0f;

			for (p = 0; p < k; p++)
				sum += a[(uint64_t)i * k + p] * b[(uint64_t)p * n + j];
			if (memcmp(&sum, &cm[(uint64_t)i * n + j], sizeof(sum)) && bad++ < 5)
				fprintf(stderr, "%s: C[%u][%u] = %.9g, the CPU says %.9g\n",
					tool_name, i, j, cm[(uint64_t)i * n + j], sum);
		}
	dt = stamps[1] - stamps[0];
	printf("gemm: %ux%ux%u (m x n x k): %.3f ms on the device clock, %.2f GFLOP/s\n",
	       m, n, k, dt / 1e6, dt ? 2.0 * m * n * k / dt : 0.0);
	if (bad) {
		printf("gemm: WRONG: %" PRIu64 " of %" PRIu64 " elements differ from the CPU\n",
		       bad, (uint64_t)m * n);
		goto out;
	}
	printf("gemm: result matches the CPU bit for bit\n");
	status = TOOL_EXIT_OK;
out:
	tern_fence_free(fence);
	tern_cmdbuf_free(cb);
	tern_bo_free(tbo);
	tern_bo_free(cbo);
	tern_bo_free(bbo);
	tern_bo_free(abo);
	tern_context_destroy(ctx);
	tern_device_close(dev);
	return status;
}
