// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * tern-saxpy: y = alpha * x + y on a tern device, checked against the CPU.
 * An example of the whole libtern flow: open, context, buffers, command
 * buffer, submit, wait, read back.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

const char *tool_name = "tern-saxpy";

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tern-saxpy [-d DEVICE] [-n COUNT] [-a ALPHA]\n"
		"Compute y = alpha * x + y for COUNT f32 elements on a tern device and\n"
		"check the result against the CPU.\n"
		"\n"
		"  -d, --device=DEVICE  an index (default 0) or a node path\n"
		"  -n, --count=COUNT    elements (default 1M; k/M suffixes)\n"
		"  -a, --alpha=ALPHA    the scalar (default 2.5)\n"
		"  -h, --help           this help\n"
		"\n"
		"Exit status: 0 the result is right, 1 it is wrong or a step failed,\n"
		"2 bad usage, 3 no tern device, 4 no permission.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tern_bo *xbo = NULL, *ybo = NULL, *tbo = NULL;
	uint64_t count = 1 << 20, i, bad = 0, t0;
	struct tern_context *ctx = NULL;
	struct tern_fence *fence = NULL;
	struct tern_cmdbuf *cb = NULL;
	struct tern_device *dev;
	float alpha = 2.5f, *x, *y, *ref = NULL;
	const char *spec = NULL;
	double max_err = 0.0;
	uint64_t *stamps;
	int c, ret, status = TOOL_EXIT_FAIL;
	char *end;

	while ((c = getopt_long(argc, argv, "d:n:a:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			spec = optarg;
			break;
		case 'n':
			if (tool_parse_u64(optarg, &count) || !count || count > (1u << 26)) {
				fprintf(stderr, "%s: bad count \"%s\" (1 to 64M)\n", tool_name, optarg);
				return TOOL_EXIT_USAGE;
			}
			break;
		case 'a':
			alpha = strtof(optarg, &end);
			if (*end || !isfinite(alpha)) {
				fprintf(stderr, "%s: bad alpha \"%s\"\n", tool_name, optarg);
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
		status = tool_exit_code(ret);
		goto out;
	}
	ret = tern_bo_alloc(dev, count * 4, 0, &xbo);
	if (!ret)
		ret = tern_bo_alloc(dev, count * 4, 0, &ybo);
	if (!ret)
		ret = tern_bo_alloc(dev, 16, 0, &tbo);
	if (ret) {
		tool_error(ret, "allocating buffers");
		goto out;
	}
	x = tern_bo_map(xbo);
	y = tern_bo_map(ybo);
	stamps = tern_bo_map(tbo);
	ref = malloc(count * sizeof(*ref));
	if (!ref) {
		fprintf(stderr, "%s: out of memory\n", tool_name);
		goto out;
	}
	tool_fill_random(x, count, 1);
	tool_fill_random(y, count, 2);
	memcpy(ref, y, count * sizeof(*ref));

	ret = tern_cmdbuf_create(0, &cb);
	if (!ret)
		ret = tern_cmd_timestamp(cb, tern_bo_va(tbo));
	if (!ret)
		ret = tern_cmd_saxpy(cb, tern_bo_va(ybo), tern_bo_va(xbo), alpha, (uint32_t)count);
	if (!ret)
		ret = tern_cmd_timestamp(cb, tern_bo_va(tbo) + 8);
	if (ret) {
		tool_error(ret, "building the command buffer");
		goto out;
	}
	t0 = tool_now_ns();
	ret = tern_submit(ctx, cb, NULL, 0, &fence);
	if (ret) {
		tool_error(ret, "submit");
		goto out;
	}
	ret = tern_fence_wait(fence, 60 * 1000000000ll);
	if (ret) {
		tool_error(ret, "waiting for the job");
		goto out;
	}
	t0 = tool_now_ns() - t0;

	for (i = 0; i < count; i++) {
		float want = alpha * x[i] + ref[i];
		double err = fabs((double)y[i] - (double)want);

		if (err > max_err)
			max_err = err;
		/* one rounding of a product and a sum: allow 2 ulp of the result */
		if (err > 2.0 * ldexp(1.0, ilogb(fabs(want) > 1e-30 ? want : 1e-30) - 23)) {
			if (bad++ < 5)
				fprintf(stderr, "%s: y[%" PRIu64 "] = %.9g, the CPU says %.9g\n",
					tool_name, i, y[i], want);
		}
	}
	printf("saxpy: %" PRIu64 " elements, alpha %g: device %.3f ms (device clock), "
	       "%.3f ms submit to wait, %.2f GB/s\n", count, alpha,
	       (stamps[1] - stamps[0]) / 1e6, t0 / 1e6,
	       stamps[1] > stamps[0] ? 12.0 * count / (stamps[1] - stamps[0]) : 0.0);
	if (bad) {
		printf("saxpy: WRONG: %" PRIu64 " of %" PRIu64 " elements differ from the CPU "
		       "(largest error %g)\n", bad, count, max_err);
		goto out;
	}
	printf("saxpy: result matches the CPU (largest difference %g)\n", max_err);
	status = TOOL_EXIT_OK;
out:
	free(ref);
	tern_fence_free(fence);
	tern_cmdbuf_free(cb);
	tern_bo_free(tbo);
	tern_bo_free(ybo);
	tern_bo_free(xbo);
	tern_context_destroy(ctx);
	tern_device_close(dev);
	return status;
}
