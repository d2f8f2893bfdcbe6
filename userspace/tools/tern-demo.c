// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * tern-demo: what the scheduler does with a high-priority job that arrives
 * while a long low-priority GEMM runs.
 *
 * A low-priority context submits a GEMM framed by two TIMESTAMP packets.
 * Once the device has written the first timestamp (the GEMM started), a
 * high-priority context on the same engine submits a short SAXPY, also
 * framed by timestamps.  Both results are checked against the CPU and the
 * device-clock timeline is printed.  The demo reports what happened (the
 * high-priority job ran inside the GEMM's window, i.e. preempted it, or it
 * waited for the GEMM to finish, or the two ran on different engines); it
 * does not require one policy, so it also runs on a driver that does not
 * preempt.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

const char *tool_name = "tern-demo";

#define SAXPY_COUNT	(64u * 1024)
/* CPU check budget: multiply-adds the guest CPU redoes to check the GEMM */
#define CHECK_MACS	(32ull << 20)
#define TIMELINE_COLS	60

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tern-demo [-d DEVICE] [-s SIZE]\n"
		"Submit a long low-priority GEMM (SIZE x SIZE x SIZE), then, once it is\n"
		"running, a short high-priority SAXPY on the same engine; check both\n"
		"results and print when each ran on the device clock.\n"
		"\n"
		"  -d, --device=DEVICE  an index (default 0) or a node path\n"
		"  -s, --size=SIZE      GEMM dimension, 16 to 4096 (default 512: about\n"
		"                       134 ms of device time at time-scale 1)\n"
		"  -h, --help           this help\n"
		"\n"
		"Needs CAP_SYS_NICE for the high-priority context (run as root).\n"
		"Exit status: 0 both results are right, 1 a result is wrong or a step\n"
		"failed, 2 bad usage, 3 no tern device, 4 no permission.\n");
}

struct job {
	struct tern_context *ctx;
	struct tern_fence *fence;
	struct tern_cmdbuf *cb;
};

/* A high-priority context on @engine: the driver picks engines, so ask again. */
static int high_context_on(struct tern_device *dev, uint32_t engine, struct tern_context **out)
{
	struct tern_context_params p = { .priority = TERN_PRIORITY_HIGH };
	struct tern_context *tries[16] = { NULL };
	unsigned int n, i, max = tern_device_info(dev)->compute_engine_count * 2;
	int ret = 0;

	if (max > 16)
		max = 16;
	if (max < 1)
		max = 1;
	*out = NULL;
	for (n = 0; n < max; n++) {
		ret = tern_context_create(dev, &p, &tries[n]);
		if (ret)
			break;
		if (tern_context_engine(tries[n]) == engine) {
			*out = tries[n];
			tries[n] = NULL;
			break;
		}
	}
	for (i = 0; i < 16; i++) {
		/* keep one on another engine if none matched */
		if (!*out && tries[i]) {
			*out = tries[i];
			continue;
		}
		tern_context_destroy(tries[i]);
	}
	return *out ? 0 : ret;
}

/* One row of the timeline: '#' from @t0 to @t1, 's' at @mark (if >= 0). */
static void timeline_row(const char *name, double t0, double t1, double mark, double scale)
{
	char row[TIMELINE_COLS + 1];
	int i, a = (int)(t0 / scale), b = (int)(t1 / scale);

	for (i = 0; i < TIMELINE_COLS; i++)
		row[i] = i >= a && i <= b ? '#' : ' ';
	if (mark >= 0.0 && (int)(mark / scale) < TIMELINE_COLS && row[(int)(mark / scale)] == ' ')
		row[(int)(mark / scale)] = 's';
	row[TIMELINE_COLS] = 0;
	printf("  %-11s [%s]\n", name, row);
}

static void sleep_us(long us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "size", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tern_context_params lowp = { .priority = TERN_PRIORITY_LOW };
	struct tern_bo *a = NULL, *b = NULL, *cm = NULL, *x = NULL, *y = NULL, *ts = NULL;
	struct job lo = { 0 }, hi = { 0 };
	struct tern_context_status st;
	volatile uint64_t *stamp;
	uint64_t size = 512, hi_submit = 0, bad = 0, t, rows_checked = 0, step;
	const char *spec = NULL;
	struct tern_device *dev;
	float *fa, *fb, *fc, *fx, *fy, *yref = NULL;
	int c, ret, status = TOOL_EXIT_FAIL;
	uint32_t n, i, j, p;
	double l0, l1, h0, h1, hs;

	while ((c = getopt_long(argc, argv, "d:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			spec = optarg;
			break;
		case 's':
			if (tool_parse_u64(optarg, &size) || size < 16 || size > 4096) {
				fprintf(stderr, "%s: bad size \"%s\" (16 to 4096)\n", tool_name, optarg);
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
	n = (uint32_t)size;

	ret = tool_open(spec, &dev);
	if (ret)
		return ret;
	ret = tern_context_create(dev, &lowp, &lo.ctx);
	if (ret) {
		tool_error(ret, "low-priority context");
		status = tool_exit_code(ret);
		goto out;
	}
	ret = high_context_on(dev, tern_context_engine(lo.ctx), &hi.ctx);
	if (ret) {
		tool_error(ret, "high-priority context");
		status = tool_exit_code(ret);
		goto out;
	}
	printf("tern-demo: low-priority context on engine %u, high-priority context on "
	       "engine %u\n", tern_context_engine(lo.ctx), tern_context_engine(hi.ctx));

	ret = tern_bo_alloc(dev, (uint64_t)n * n * 4, 0, &a);
	if (!ret)
		ret = tern_bo_alloc(dev, (uint64_t)n * n * 4, 0, &b);
	if (!ret)
		ret = tern_bo_alloc(dev, (uint64_t)n * n * 4, 0, &cm);
	if (!ret)
		ret = tern_bo_alloc(dev, SAXPY_COUNT * 4, 0, &x);
	if (!ret)
		ret = tern_bo_alloc(dev, SAXPY_COUNT * 4, 0, &y);
	if (!ret)
		ret = tern_bo_alloc(dev, 64, 0, &ts);
	if (ret) {
		tool_error(ret, "allocating buffers");
		goto out;
	}
	fa = tern_bo_map(a);
	fb = tern_bo_map(b);
	fc = tern_bo_map(cm);
	fx = tern_bo_map(x);
	fy = tern_bo_map(y);
	stamp = tern_bo_map(ts);
	tool_fill_random(fa, (uint64_t)n * n, 11);
	tool_fill_random(fb, (uint64_t)n * n, 12);
	tool_fill_random(fx, SAXPY_COUNT, 13);
	tool_fill_random(fy, SAXPY_COUNT, 14);
	yref = malloc(SAXPY_COUNT * sizeof(*yref));
	if (!yref) {
		fprintf(stderr, "%s: out of memory\n", tool_name);
		goto out;
	}
	memcpy(yref, fy, SAXPY_COUNT * sizeof(*yref));

	/* stamps: [0] GEMM start, [1] GEMM end, [2] SAXPY start, [3] SAXPY end */
	ret = tern_cmdbuf_create(0, &lo.cb);
	if (!ret)
		ret = tern_cmd_timestamp(lo.cb, tern_bo_va(ts));
	if (!ret)
		ret = tern_cmd_gemm(lo.cb, tern_bo_va(cm), tern_bo_va(a), tern_bo_va(b), n, n, n);
	if (!ret)
		ret = tern_cmd_timestamp(lo.cb, tern_bo_va(ts) + 8);
	if (!ret)
		ret = tern_cmdbuf_create(0, &hi.cb);
	if (!ret)
		ret = tern_cmd_timestamp(hi.cb, tern_bo_va(ts) + 16);
	if (!ret)
		ret = tern_cmd_saxpy(hi.cb, tern_bo_va(y), tern_bo_va(x), 0.5f, SAXPY_COUNT);
	if (!ret)
		ret = tern_cmd_timestamp(hi.cb, tern_bo_va(ts) + 24);
	if (ret) {
		tool_error(ret, "building the command buffers");
		goto out;
	}

	ret = tern_submit(lo.ctx, lo.cb, NULL, 0, &lo.fence);
	if (ret) {
		tool_error(ret, "submitting the GEMM");
		goto out;
	}
	/* wait until the device wrote the GEMM's start stamp: it is running */
	t = tool_now_ns();
	while (!stamp[0] && tern_fence_status(lo.fence) == -EBUSY &&
	       tool_now_ns() - t < 30 * 1000000000ull)
		sleep_us(200);
	if (!stamp[0])
		printf("tern-demo: the GEMM had not started after %.1f s; submitting the "
		       "high-priority job anyway\n", (tool_now_ns() - t) / 1e9);
	ret = tern_device_clock(dev, &hi_submit);
	if (!ret)
		ret = tern_submit(hi.ctx, hi.cb, NULL, 0, &hi.fence);
	if (ret) {
		tool_error(ret, "submitting the high-priority job");
		goto out;
	}
	ret = tern_fence_wait(hi.fence, 120 * 1000000000ll);
	if (ret) {
		tool_error(ret, "high-priority job");
		goto out;
	}
	ret = tern_fence_wait(lo.fence, 600 * 1000000000ll);
	if (ret) {
		tool_error(ret, "low-priority GEMM");
		goto out;
	}

	/* check: all of the SAXPY, and as many GEMM rows as the budget allows */
	for (i = 0; i < SAXPY_COUNT; i++) {
		float want = 0.5f * fx[i] + yref[i];

		if (fabsf(fy[i] - want) > 1e-6f * fmaxf(1.0f, fabsf(want)) && bad++ < 5)
			fprintf(stderr, "%s: SAXPY y[%u] = %.9g, the CPU says %.9g\n", tool_name,
				i, fy[i], want);
	}
	step = ((uint64_t)n * n * n + CHECK_MACS - 1) / CHECK_MACS;
	if (!step)
		step = 1;
	for (i = 0; i < n; i += (uint32_t)step) {
		rows_checked++;
		for (j = 0; j < n; j++) {
			float sum = 0.0f;

			for (p = 0; p < n; p++)
				sum += fa[(uint64_t)i * n + p] * fb[(uint64_t)p * n + j];
			if (memcmp(&sum, &fc[(uint64_t)i * n + j], sizeof(sum)) && bad++ < 5)
				fprintf(stderr, "%s: GEMM C[%u][%u] = %.9g, the CPU says %.9g\n",
					tool_name, i, j, fc[(uint64_t)i * n + j], sum);
		}
	}

	l0 = 0.0;
	l1 = (stamp[1] - stamp[0]) / 1e6;
	h0 = ((double)stamp[2] - (double)stamp[0]) / 1e6;
	h1 = ((double)stamp[3] - (double)stamp[0]) / 1e6;
	hs = ((double)hi_submit - (double)stamp[0]) / 1e6;
	printf("\ndevice clock, ms from the start of the GEMM:\n");
	printf("  low  GEMM %ux%ux%u  engine %u  ran        %9.3f .. %9.3f\n", n, n, n,
	       tern_context_engine(lo.ctx), l0, l1);
	printf("  high SAXPY %u       engine %u  submitted %9.3f, ran %9.3f .. %9.3f\n",
	       SAXPY_COUNT, tern_context_engine(hi.ctx), hs, h0, h1);
	{
		double end = fmax(fmax(l1, h1), hs), scale = (end > 0 ? end : 1.0) / (TIMELINE_COLS - 1);

		printf("\ntimeline, one column = %.2f ms ('s': the high-priority submit):\n", scale);
		timeline_row("low  GEMM", l0, l1, -1.0, scale);
		timeline_row("high SAXPY", h0 < 0 ? 0 : h0, h1 < 0 ? 0 : h1, hs, scale);
		printf("\n");
	}
	if (tern_context_engine(lo.ctx) != tern_context_engine(hi.ctx))
		printf("=> the jobs ran on different engines, side by side: no scheduling "
		       "decision between them was needed\n");
	else if (h0 >= l0 && h1 <= l1)
		printf("=> the high-priority job ran inside the GEMM's window: the GEMM was "
		       "preempted, the job started %.3f ms after its submit, and the GEMM "
		       "resumed\n", h0 - hs);
	else if (h0 >= l1)
		printf("=> the high-priority job waited for the GEMM to finish: it started "
		       "%.3f ms after its submit (this driver did not preempt)\n", h0 - hs);
	else
		printf("=> the high-priority job ran before the GEMM started\n");
	if (!tern_context_status(lo.ctx, &st))
		printf("low context:  %" PRIu64 " job(s) done, %.3f ms busy, state %s\n",
		       st.jobs_completed, st.busy_ns / 1e6, tern_context_state_name(st.state));
	if (!tern_context_status(hi.ctx, &st))
		printf("high context: %" PRIu64 " job(s) done, %.3f ms busy, state %s\n",
		       st.jobs_completed, st.busy_ns / 1e6, tern_context_state_name(st.state));

	if (bad) {
		printf("tern-demo: WRONG results (%" PRIu64 " differences)\n", bad);
		goto out;
	}
	printf("tern-demo: both results match the CPU (SAXPY: all %u elements; GEMM: %"
	       PRIu64 " of %u rows, bit for bit)\n", SAXPY_COUNT, rows_checked, n);
	status = TOOL_EXIT_OK;
out:
	free(yref);
	tern_fence_free(hi.fence);
	tern_fence_free(lo.fence);
	tern_cmdbuf_free(hi.cb);
	tern_cmdbuf_free(lo.cb);
	tern_bo_free(ts);
	tern_bo_free(y);
	tern_bo_free(x);
	tern_bo_free(cm);
	tern_bo_free(b);
	tern_bo_free(a);
	tern_context_destroy(hi.ctx);
	tern_context_destroy(lo.ctx);
	tern_device_close(dev);
	return status;
}
