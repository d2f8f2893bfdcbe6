// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * tern-demo: a high-priority job preempts a long low-priority GEMM.
 *
 * A low-priority context submits one job: a GEMM, computed as bands of
 * rows (one GEMM packet each) with a TIMESTAMP packet before each band and
 * at the end.  Once the device has written the first timestamp (the GEMM
 * runs), and a little later, a high-priority context on the same engine
 * submits a short SAXPY, framed by timestamps too.  Both results are checked
 * against the CPU, and the device-clock timeline is printed: when the
 * high-priority job arrived, started and finished, how often the GEMM was
 * preempted and how long it stood still (the band it was computing took
 * that much longer than the others, per row).  The demo succeeds only if the high-priority job
 * finished before the GEMM and both results are right: on a driver that
 * does not preempt (or under its fifo or drmfair policy) it says what happened and
 * fails.
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

#define SAXPY_COUNT	(16u * 1024)
#define BANDS_MAX	16
/* u64 slots of the timestamp buffer: the SAXPY's two, then the GEMM's */
#define HI_START	0
#define HI_END		1
#define LO_STAMP(i)	(2 + (i))
/* CPU check budget: multiply-adds the guest CPU redoes to check the GEMM */
#define CHECK_MACS	(32ull << 20)
#define TIMELINE_COLS	60

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tern-demo [-d DEVICE] [-s SIZE] [-w MS]\n"
		"Submit a long low-priority GEMM (SIZE x SIZE x SIZE), then, while it runs,\n"
		"a short high-priority SAXPY on the same engine; check both results and\n"
		"print, on the device clock, when the high-priority job arrived, started\n"
		"and finished, and how long the GEMM was paused.\n"
		"\n"
		"  -d, --device=DEVICE  an index (default 0) or a node path\n"
		"  -s, --size=SIZE      GEMM dimension, 16 to 4096 (default 128).  A GEMM\n"
		"                       costs SIZE^3 ns times the device's time-scale:\n"
		"                       128 lasts 2.1 ms, or 420 ms at time-scale=200\n"
		"                       (the device `make demo` boots)\n"
		"  -w, --wait=MS        submit the high-priority job MS ms after the GEMM\n"
		"                       started (default 50)\n"
		"  -h, --help           this help\n"
		"\n"
		"Needs CAP_SYS_NICE for the high-priority context (run as root).\n"
		"Exit status: 0 the high-priority job finished first and both results are\n"
		"right; 1 it did not (no preemption), a result is wrong or a step failed;\n"
		"2 bad usage; 3 no tern device; 4 no permission.\n");
}

struct job {
	struct tern_context *ctx;
	struct tern_fence *fence;
	struct tern_cmdbuf *cb;
};

/* A high-priority context on @engine, the low-priority one's. */
static int high_context_on(struct tern_device *dev, uint32_t engine, struct tern_context **out)
{
	struct tern_context_params p = { .priority = TERN_PRIORITY_HIGH };
	int ret;

	ret = tern_context_create_on(dev, &p, engine, out);
	if (ret)
		tool_error(ret, "high-priority context");
	return ret;
}

/*
 * One row of the timeline: '#' from @t0 to @t1 except '.' from @g0 to @g1
 * (a pause; none if @g1 < @g0), and 'a' at @mark if >= 0 and free.
 */
static void timeline_row(const char *name, double t0, double t1, double g0, double g1,
			 double mark, double scale)
{
	char row[TIMELINE_COLS + 1];
	int i;

	for (i = 0; i < TIMELINE_COLS; i++) {
		double t = i * scale;

		row[i] = ' ';
		if (t + scale > t0 && t <= t1)
			row[i] = g1 >= g0 && t + scale > g0 && t < g1 ? '.' : '#';
	}
	i = mark >= 0.0 ? (int)(mark / scale) : -1;
	if (i >= 0 && i < TIMELINE_COLS && row[i] == ' ')
		row[i] = 'a';
	row[TIMELINE_COLS] = 0;
	printf("  %-11s |%s|\n", name, row);
}

/*
 * The low-priority job: C = A x B in bands of rows, a TIMESTAMP before each
 * band and one at the end.  Returns the number of bands in *@bands, their
 * rows in @rows[].
 */
static int build_low(struct tern_cmdbuf *cb, uint64_t c, uint64_t a, uint64_t b,
		     uint64_t ts, uint32_t n, uint32_t *rows, unsigned int *bands)
{
	uint32_t per = (n + BANDS_MAX - 1) / BANDS_MAX, r;
	unsigned int i = 0;
	int ret = 0;

	for (r = 0; !ret && r < n; r += per, i++) {
		uint64_t off = (uint64_t)r * n * 4;

		rows[i] = n - r < per ? n - r : per;
		ret = tern_cmd_timestamp(cb, ts + 8 * LO_STAMP(i));
		if (!ret)
			ret = tern_cmd_gemm(cb, c + off, a + off, b, rows[i], n, n);
	}
	if (!ret)
		ret = tern_cmd_timestamp(cb, ts + 8 * LO_STAMP(i));
	*bands = i;
	return ret;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/*
 * How long the GEMM stood still, in ms: the bands that were running while
 * the high-priority job ran (@h0 to @h1) took longer than their rows take
 * in the other bands (the median time per row).  -1 when every band
 * overlaps it (nothing to compare with).
 */
static double pause_ms(const volatile uint64_t *stamp, const uint32_t *rows,
		       unsigned int bands, uint64_t h0, uint64_t h1)
{
	double per_row[BANDS_MAX], base, paused = 0.0;
	unsigned int i, k = 0;

	for (i = 0; i < bands; i++)
		if (stamp[LO_STAMP(i + 1)] <= h0 || stamp[LO_STAMP(i)] >= h1)
			per_row[k++] = (double)(stamp[LO_STAMP(i + 1)] - stamp[LO_STAMP(i)]) /
				       rows[i];
	if (!k)
		return -1.0;
	qsort(per_row, k, sizeof(per_row[0]), cmp_double);
	base = per_row[k / 2];
	for (i = 0; i < bands; i++) {
		double took = (double)(stamp[LO_STAMP(i + 1)] - stamp[LO_STAMP(i)]);

		if (stamp[LO_STAMP(i + 1)] > h0 && stamp[LO_STAMP(i)] < h1 &&
		    took > base * rows[i])
			paused += took - base * rows[i];
	}
	return paused / 1e6;
}

static void sleep_us(long us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/* Compare with the CPU: all of the SAXPY, and the GEMM rows the budget allows. */
static uint64_t check(const float *fa, const float *fb, const float *fc, uint32_t n,
		      const float *fx, const float *fy, const float *yref, uint64_t *rows)
{
	uint64_t bad = 0, step;
	uint32_t i, j, p;

	for (i = 0; i < SAXPY_COUNT; i++) {
		float want = 0.5f * fx[i] + yref[i];

		if (memcmp(&want, &fy[i], sizeof(want)) && bad++ < 5)
			fprintf(stderr, "%s: SAXPY y[%u] = %.9g, the CPU says %.9g\n", tool_name,
				i, fy[i], want);
	}
	step = ((uint64_t)n * n * n + CHECK_MACS - 1) / CHECK_MACS;
	if (!step)
		step = 1;
	*rows = 0;
	for (i = 0; i < n; i += (uint32_t)step) {
		(*rows)++;
		for (j = 0; j < n; j++) {
			float sum = 0.0f;

			for (p = 0; p < n; p++)
				sum += fa[(uint64_t)i * n + p] * fb[(uint64_t)p * n + j];
			if (memcmp(&sum, &fc[(uint64_t)i * n + j], sizeof(sum)) && bad++ < 5)
				fprintf(stderr, "%s: GEMM C[%u][%u] = %.9g, the CPU says %.9g\n",
					tool_name, i, j, fc[(uint64_t)i * n + j], sum);
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "size", required_argument, NULL, 's' },
		{ "wait", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tern_context_params lowp = { .priority = TERN_PRIORITY_LOW };
	struct tern_bo *a = NULL, *b = NULL, *cm = NULL, *x = NULL, *y = NULL, *ts = NULL;
	struct job lo = { 0 }, hi = { 0 };
	struct tern_context_status slo = { 0 }, shi = { 0 };
	volatile uint64_t *stamp;
	uint64_t size = 128, wait_ms = 50, arrive = 0, bad, t, rows = 0, g0, g1;
	uint32_t band_rows[BANDS_MAX];
	unsigned int bands = 0;
	const char *spec = NULL;
	struct tern_device *dev;
	float *fa, *fb, *fc, *fx, *fy, *yref = NULL;
	int c, ret, status = TOOL_EXIT_FAIL;
	double l1, ha, h0, h1, paused, scale;
	uint32_t n;

	while ((c = getopt_long(argc, argv, "d:s:w:h", opts, NULL)) != -1) {
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
		case 'w':
			if (tool_parse_u64(optarg, &wait_ms) || wait_ms > 60000) {
				fprintf(stderr, "%s: bad wait \"%s\" (0 to 60000 ms)\n", tool_name,
					optarg);
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
		status = tool_exit_code(ret);
		goto out;
	}
	printf("tern-demo: low- and high-priority contexts on engine %u\n",
	       tern_context_engine(lo.ctx));

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
		ret = tern_bo_alloc(dev, 8 * LO_STAMP(BANDS_MAX + 1), 0, &ts);
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

	ret = tern_cmdbuf_create(0, &lo.cb);
	if (!ret)
		ret = build_low(lo.cb, tern_bo_va(cm), tern_bo_va(a), tern_bo_va(b), tern_bo_va(ts),
				n, band_rows, &bands);
	if (!ret)
		ret = tern_cmdbuf_create(0, &hi.cb);
	if (!ret)
		ret = tern_cmd_timestamp(hi.cb, tern_bo_va(ts) + 8 * HI_START);
	if (!ret)
		ret = tern_cmd_saxpy(hi.cb, tern_bo_va(y), tern_bo_va(x), 0.5f, SAXPY_COUNT);
	if (!ret)
		ret = tern_cmd_timestamp(hi.cb, tern_bo_va(ts) + 8 * HI_END);
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
	while (!stamp[LO_STAMP(0)] && tern_fence_status(lo.fence) == -EBUSY &&
	       tool_now_ns() - t < 30 * 1000000000ull)
		sleep_us(200);
	if (!stamp[LO_STAMP(0)]) {
		fprintf(stderr, "%s: the GEMM had not started after %.1f s\n", tool_name,
			(tool_now_ns() - t) / 1e9);
		goto out;
	}
	sleep_us((long)wait_ms * 1000);
	ret = tern_device_clock(dev, &arrive);
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
	ret = tern_context_status(lo.ctx, &slo);
	if (!ret)
		ret = tern_context_status(hi.ctx, &shi);
	if (ret) {
		tool_error(ret, "context status");
		goto out;
	}
	bad = check(fa, fb, fc, n, fx, fy, yref, &rows);

	/* device clock, ms from the start of the GEMM */
	g0 = stamp[LO_STAMP(0)];
	g1 = stamp[LO_STAMP(bands)];
	l1 = (double)(g1 - g0) / 1e6;
	ha = ((double)arrive - (double)g0) / 1e6;
	h0 = ((double)stamp[HI_START] - (double)g0) / 1e6;
	h1 = ((double)stamp[HI_END] - (double)g0) / 1e6;
	paused = pause_ms(stamp, band_rows, bands, stamp[HI_START], stamp[HI_END]);
	/*
	 * The engine runs one slot at a time: a GEMM that ran before and after
	 * the high-priority job stood still at least while that job ran.  Its
	 * bands show more when the pause was longer, but can show less: a
	 * preempted run is let off the rest of the modelled time of the chunk
	 * it stopped in (docs/hardware.md, section 12).
	 */
	if (h0 > 0.0 && h1 < l1)
		paused = fmax(paused, h1 - h0);
	printf("\ndevice clock, ms from the start of the low-priority GEMM:\n");
	printf("  low  GEMM %ux%ux%u    started %9.3f                    finished %9.3f\n",
	       n, n, n, 0.0, l1);
	printf("  high SAXPY of %-6u    arrived %9.3f  started %9.3f  finished %9.3f\n",
	       SAXPY_COUNT, ha, h0, h1);
	printf("\n  the high-priority job started %.3f ms after it arrived and was done "
	       "%.3f ms after it arrived\n", h0 - ha, h1 - ha);
	printf("  the GEMM was preempted %" PRIu64 " time%s and ", slo.preemptions,
	       slo.preemptions == 1 ? "" : "s");
	if (paused >= 0.0)
		printf("paused %.3f ms (the high-priority job's run, or longer if its "
		       "rows took longer than the others, %u rows in %u bands)\n",
		       paused, n, bands);
	else
		printf("ran %.3f ms of device time in a span of %.3f ms\n", slo.busy_ns / 1e6, l1);
	scale = fmax(fmax(l1, h1), ha);
	scale = (scale > 0 ? scale : 1.0) / (TIMELINE_COLS - 1);
	printf("\ntimeline, one column = %.2f ms ('#' running, '.' paused, 'a' the "
	       "high-priority job arrived):\n", scale);
	timeline_row("low  GEMM", 0.0, l1, h0, h1, -1.0, scale);
	timeline_row("high SAXPY", h0, h1, 0.0, -1.0, ha, scale);
	printf("\n");

	if (bad)
		printf("tern-demo: WRONG results (%" PRIu64 " differences)\n", bad);
	else
		printf("tern-demo: both results match the CPU bit for bit (SAXPY: all %u "
		       "elements; GEMM: %" PRIu64 " of %u rows)\n", SAXPY_COUNT, rows, n);
	if (arrive >= g1) {
		printf("tern-demo: FAILED: the GEMM finished before the high-priority job "
		       "arrived; make it longer (-s, or the device's time-scale property)\n");
	} else if (stamp[HI_END] < g1) {
		printf("tern-demo: the high-priority job preempted the GEMM and finished "
		       "%.3f ms before it; the GEMM resumed where it stopped\n", l1 - h1);
		if (!bad)
			status = TOOL_EXIT_OK;
	} else {
		printf("tern-demo: FAILED: the high-priority job waited %.3f ms for the GEMM "
		       "to finish: the driver did not preempt it (fifo or drmfair "
		       "policy, or no preemption)\n", h0 - ha);
	}
	printf("low context:  %" PRIu64 " job(s) done, %" PRIu64 " preemption(s), state %s\n",
	       slo.jobs_completed, slo.preemptions, tern_context_state_name(slo.state));
	printf("high context: %" PRIu64 " job(s) done, %.3f ms busy, state %s\n",
	       shi.jobs_completed, shi.busy_ns / 1e6, tern_context_state_name(shi.state));
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
