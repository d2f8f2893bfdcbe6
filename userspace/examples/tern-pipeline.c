// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * tern-pipeline: frames through two stages on two engines, chained by one
 * timeline.  For frame f, a job on the copy engine fills x_f with f and
 * signals point 2f - 1; a job on a compute engine waits for that point,
 * computes y_f = 2 x_f + y_f and signals point 2f.  Every job is submitted
 * up front; the timeline orders them, and the CPU waits for the last point
 * and checks every frame.  An example of tern_submit_deps() and timelines.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

const char *tool_name = "tern-pipeline";

#define FRAMES_MAX	64

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tern-pipeline [-d DEVICE] [-f FRAMES] [-n COUNT]\n"
		"Run FRAMES frames of COUNT f32 elements through a fill on the copy engine\n"
		"and a SAXPY on a compute engine, ordered by one timeline, and check them.\n"
		"\n"
		"  -d, --device=DEVICE  an index (default 0) or a node path\n"
		"  -f, --frames=FRAMES  frames, 1 to %d (default 8)\n"
		"  -n, --count=COUNT    elements per frame (default 64k; k/M suffixes)\n"
		"  -h, --help           this help\n"
		"\n"
		"Exit status: 0 every result is right, 1 one is wrong or a step failed,\n"
		"2 bad usage, 3 no tern device, 4 no permission.\n", FRAMES_MAX);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "frames", required_argument, NULL, 'f' },
		{ "count", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tern_context_params copyp = { .engine_class = TERN_ENGINE_COPY };
	struct tern_bo *x[FRAMES_MAX] = { NULL }, *y[FRAMES_MAX] = { NULL };
	struct tern_context *copy = NULL, *compute = NULL;
	struct tern_cmdbuf *cb = NULL;
	struct tern_timeline *tl = NULL;
	struct tern_timeline_point wait, sig;
	struct tern_deps d;
	struct tern_device *dev;
	uint64_t frames = 8, count = 64 * 1024, f, i, bad = 0, done = 0, t0;
	const char *spec = NULL;
	int c, ret, status = TOOL_EXIT_FAIL;

	while ((c = getopt_long(argc, argv, "d:f:n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			spec = optarg;
			break;
		case 'f':
			if (tool_parse_u64(optarg, &frames) || !frames || frames > FRAMES_MAX) {
				fprintf(stderr, "%s: bad frame count \"%s\" (1 to %d)\n", tool_name,
					optarg, FRAMES_MAX);
				return TOOL_EXIT_USAGE;
			}
			break;
		case 'n':
			if (tool_parse_u64(optarg, &count) || !count || count > (1u << 24)) {
				fprintf(stderr, "%s: bad count \"%s\" (1 to 16M)\n", tool_name, optarg);
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
	ret = tern_context_create(dev, &copyp, &copy);
	if (!ret)
		ret = tern_context_create(dev, NULL, &compute);
	if (!ret)
		ret = tern_timeline_create(dev, &tl);
	if (!ret)
		ret = tern_cmdbuf_create(0, &cb);
	for (f = 0; !ret && f < frames; f++) {
		ret = tern_bo_alloc(dev, count * 4, 0, &x[f]);
		if (!ret)
			ret = tern_bo_alloc(dev, count * 4, 0, &y[f]);
		for (i = 0; !ret && i < count; i++)
			((float *)tern_bo_map(y[f]))[i] = 1.0f;
	}
	if (ret) {
		tool_error(ret, "setting up");
		status = tool_exit_code(ret);
		goto out;
	}

	t0 = tool_now_ns();
	for (f = 0; f < frames; f++) {
		float value = (float)(f + 1);
		uint32_t bits;

		/* stage 1, copy engine: x_f = f + 1, then point 2f + 1 */
		memcpy(&bits, &value, sizeof(bits));
		tern_cmdbuf_reset(cb);
		ret = tern_cmd_fill(cb, tern_bo_va(x[f]), (uint32_t)(count * 4), bits);
		sig.timeline = tl;
		sig.point = 2 * f + 1;
		memset(&d, 0, sizeof(d));
		d.signals = &sig;
		d.signal_count = 1;
		if (!ret)
			ret = tern_submit_deps(copy, cb, &d, NULL);
		if (ret) {
			tool_error(ret, "submitting a fill");
			goto out;
		}
		/* stage 2, compute engine: after point 2f + 1, y_f += 2 x_f, then 2f + 2 */
		tern_cmdbuf_reset(cb);
		ret = tern_cmd_saxpy(cb, tern_bo_va(y[f]), tern_bo_va(x[f]), 2.0f, (uint32_t)count);
		wait = sig;
		sig.point = 2 * f + 2;
		d.waits = &wait;
		d.wait_count = 1;
		if (!ret)
			ret = tern_submit_deps(compute, cb, &d, NULL);
		if (ret) {
			tool_error(ret, "submitting a SAXPY");
			goto out;
		}
	}
	ret = tern_timeline_wait(tl, 2 * frames, 60 * 1000000000ll);
	if (!ret)
		ret = tern_timeline_query(tl, &done, NULL);
	if (ret) {
		tool_error(ret, "waiting for the last frame");
		goto out;
	}
	/* a point says when, not whether: the results say whether */
	for (f = 0; f < frames; f++) {
		const float *ys = tern_bo_map(y[f]);
		float want = 2.0f * (float)(f + 1) + 1.0f;

		for (i = 0; i < count; i++)
			if (ys[i] != want && bad++ < 5)
				fprintf(stderr, "%s: frame %" PRIu64 ": y[%" PRIu64 "] = %g, the CPU "
					"says %g\n", tool_name, f + 1, i, ys[i], want);
	}
	printf("%s: %" PRIu64 " frames of %" PRIu64 " elements, fill on engine %u then SAXPY "
	       "on engine %u, ordered by one timeline (now at point %" PRIu64 "): %.3f ms\n",
	       tool_name, frames, count, tern_context_engine(copy), tern_context_engine(compute),
	       done, (tool_now_ns() - t0) / 1e6);
	if (bad) {
		printf("%s: %" PRIu64 " WRONG results\n", tool_name, bad);
		goto out;
	}
	printf("%s: every frame matches the CPU\n", tool_name);
	status = TOOL_EXIT_OK;
out:
	for (f = 0; f < frames; f++) {
		tern_bo_free(y[f]);
		tern_bo_free(x[f]);
	}
	tern_cmdbuf_free(cb);
	tern_timeline_free(tl);
	tern_context_destroy(compute);
	tern_context_destroy(copy);
	tern_device_close(dev);
	return status;
}
