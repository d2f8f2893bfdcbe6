// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * Figure 4: fairness, on the scaled device.
 *
 * - Jain's index (sum x)^2 / (n sum x^2) of the device time (busy_ns of
 *   the context state) 16 equal NORMAL contexts got over a window while
 *   each kept six 4 ms SPIN jobs queued: 1 is perfectly even.
 * - Weighted shares: four contexts of weights 1, 2, 4 and 8 on one engine,
 *   all backlogged, over 6 s; each one's share of the engine's time over its
 *   share of the weights (1 is exact), under fair and, for contrast, fifo and
 *   drmfair (both ignore weights).
 * - Starvation: two NORMAL contexts keep one engine busy; a LOW context
 *   runs one small job at a time on it.  Each LOW job must complete; its
 *   wait is compared with the bound starve_ms + quantum (fair), and taken
 *   under drmfair too, where LOW's faster aging is the only bound.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define FIG 4
#define JOB_MS 4	/* device time of one load job */

struct share_load {
	struct bench_load_ctx lc[BENCH_LOAD_MAX_CTX];
	unsigned int n;
	struct tern_cmdbuf *spin;
};

static void share_load_free(struct share_load *sl)
{
	unsigned int i;

	for (i = 0; i < sl->n; i++)
		tern_context_destroy(sl->lc[i].ctx);
	tern_cmdbuf_free(sl->spin);
}

/* Add a backlogged context of @prio and @weight; on @engine unless < 0. */
static int share_add(struct bench *b, struct share_load *sl, uint32_t prio, uint32_t weight,
		     int engine)
{
	struct bench_load_ctx *c = &sl->lc[sl->n];
	int ret;

	if (!sl->spin) {
		uint32_t us = JOB_MS * 1000 / b->time_scale;

		ret = tern_cmdbuf_create(0, &sl->spin);
		if (!ret)
			ret = tern_cmd_spin(sl->spin, us ? us : 1);
		if (ret)
			return ret;
	}
	ret = bench_context_on(b->sdev, prio, weight, engine, &c->ctx);
	if (ret)
		return ret;
	c->cbs = (const struct tern_cmdbuf *const *)&sl->spin;
	c->ncbs = 1;
	/* deep enough that the context never runs dry while the load thread
	 * wakes up: a context with nothing queued gives up its share */
	c->depth = 6;
	sl->n++;
	return 0;
}

/* Run the load for @window_ms after a warm-up; busy_ns gained by each. */
static int share_measure(struct bench *b, struct share_load *sl, unsigned int window_ms,
			 double *gained)
{
	struct tern_context_status st;
	struct bench_load *load;
	unsigned int i;
	int ret, r;

	ret = bench_load_start(b->sdev, sl->lc, sl->n, &load);
	if (ret)
		return ret;
	bench_sleep_ns(4 * JOB_MS * 1000000ull);
	for (i = 0; i < sl->n && !ret; i++) {
		ret = tern_context_status(sl->lc[i].ctx, &st);
		gained[i] = -(double)st.busy_ns;
	}
	bench_sleep_ns(window_ms * 1000000ull);
	for (i = 0; i < sl->n && !ret; i++) {
		ret = tern_context_status(sl->lc[i].ctx, &st);
		gained[i] += (double)st.busy_ns;
		if (!ret && st.state != TERN_CONTEXT_ACTIVE)
			ret = -EIO;
	}
	r = bench_load_stop(load, NULL);
	return ret ? ret : r;
}

static int jain(struct bench *b, const char *series, unsigned int window_ms)
{
	struct share_load sl = { .n = 0 };
	double x[16], sum = 0, sq = 0;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < 16 && !ret; i++)
		ret = share_add(b, &sl, TERN_PRIORITY_NORMAL, 1, -1);
	if (!ret)
		ret = share_measure(b, &sl, window_ms, x);
	if (!ret) {
		for (i = 0; i < 16; i++) {
			sum += x[i];
			sq += x[i] * x[i];
		}
		bench_record(FIG, "jain_16_equal", series, -1, "index",
			     sq > 0 ? sum * sum / (16 * sq) : 0);
	}
	share_load_free(&sl);
	return ret;
}

static int weighted(struct bench *b, const char *series, unsigned int window_ms)
{
	static const uint32_t weights[] = { 1, 2, 4, 8 };
	struct share_load sl = { .n = 0 };
	double x[4], sum = 0, worst = 0;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < 4 && !ret; i++)
		ret = share_add(b, &sl, TERN_PRIORITY_NORMAL, weights[i], 0);
	if (!ret)
		ret = share_measure(b, &sl, window_ms, x);
	if (!ret) {
		for (i = 0; i < 4; i++)
			sum += x[i];
		for (i = 0; i < 4 && sum > 0; i++) {
			double r = (x[i] / sum) / (weights[i] / 15.0);

			bench_record(FIG, "share_over_weight", series, weights[i], "x", r);
			if (fabs(r - 1) > worst)
				worst = fabs(r - 1);
		}
		bench_record(FIG, "weight_worst_error", series, -1, "fraction", worst);
	}
	share_load_free(&sl);
	return ret;
}

static int starvation(struct bench *b, const char *series, unsigned int jobs)
{
	struct tern_context *low = NULL;
	struct share_load sl = { .n = 0 };
	struct tern_cmdbuf *cb = NULL;
	struct bench_load *load = NULL;
	uint64_t quantum_us = 0, starve_ms = 0;
	double worst = 0;
	unsigned int i;
	int ret;

	if (bench_read_knob(b->sdev, "quantum_us", &quantum_us) ||
	    bench_read_knob(b->sdev, "starve_ms", &starve_ms)) {
		bench_missing(FIG, "low_wait_max", "the driver has no quantum_us/starve_ms");
		return 0;
	}
	ret = share_add(b, &sl, TERN_PRIORITY_NORMAL, 1, 0);
	if (!ret)
		ret = share_add(b, &sl, TERN_PRIORITY_NORMAL, 1, 0);
	if (!ret)
		ret = bench_context_on(b->sdev, TERN_PRIORITY_LOW, 0, 0, &low);
	if (!ret)
		ret = tern_cmdbuf_create(0, &cb);
	if (!ret)
		ret = tern_cmd_nop(cb, 1);
	if (!ret)
		ret = bench_load_start(b->sdev, sl.lc, sl.n, &load);
	if (!ret) {
		bench_sleep_ns(4 * JOB_MS * 1000000ull);
		for (i = 0; i < jobs && !ret; i++) {
			uint64_t ns;

			/* a LOW job that does not finish within 10 s is starved */
			ret = bench_run_one(low, cb, 10000000000ll, &ns);
			if (ns / 1e6 > worst)
				worst = ns / 1e6;
		}
		bench_load_stop(load, NULL);
	}
	if (!ret) {
		bench_record(FIG, "low_wait_max", series, -1, "ms", worst);
		/* drmfair has no bound of its own: it ignores both knobs */
		if (!strcmp(series, "fair"))
			bench_record(FIG, "low_wait_bound", series, -1, "ms",
				     starve_ms + quantum_us / 1e3);
	}
	tern_cmdbuf_free(cb);
	tern_context_destroy(low);
	share_load_free(&sl);
	return ret;
}

/* The drmfair lines of the figure, if the driver has the policy. */
static int drmfair_runs(struct bench *b, unsigned int window_ms, unsigned int weighted_ms)
{
	int ret = bench_set_drmfair(b->sdev, FIG);

	if (ret)
		return ret == 1 ? 0 : ret;
	ret = jain(b, "drmfair", window_ms);
	if (!ret)
		ret = weighted(b, "drmfair", weighted_ms);
	if (!ret)
		ret = starvation(b, "drmfair", b->quick ? 3 : 10);
	return ret;
}

int bench_fig_fairness(struct bench *b)
{
	/*
	 * A job is charged when it ends, so each context's time in a window
	 * is off by up to a job at each end: the weight-1 context's 1/15 of
	 * the weighted window must hold many jobs for its error to mean the
	 * policy's (100 of them in 6 s, against 25 in 1.5 s).
	 */
	unsigned int window_ms = b->quick ? 300 : 1500, rep;
	unsigned int weighted_ms = b->quick ? 300 : 6000;
	char path[256];
	bool can_switch = bench_debugfs_path(b->sdev, "sched_policy", path, sizeof(path)) == 0;
	int ret = 0;

	if (!can_switch)
		bench_missing(FIG, "fair_vs_fifo", "the driver has no debugfs sched_policy");
	for (rep = 0; rep < b->reps && !ret; rep++) {
		if (can_switch)
			ret = bench_set_policy(b->sdev, "fair");
		if (!ret)
			ret = jain(b, can_switch ? "fair" : "default", window_ms);
		if (!ret)
			ret = weighted(b, can_switch ? "fair" : "default", weighted_ms);
		if (!ret && can_switch)
			ret = starvation(b, "fair", b->quick ? 3 : 10);
		if (!ret && can_switch)
			ret = bench_set_policy(b->sdev, "fifo");
		if (!ret && can_switch)
			ret = jain(b, "fifo", window_ms);
		if (!ret && can_switch)
			ret = weighted(b, "fifo", weighted_ms);
		if (!ret && can_switch)
			ret = drmfair_runs(b, window_ms, weighted_ms);
		if (!ret && can_switch)
			ret = bench_set_policy(b->sdev, "fair");
		if (ret)
			fprintf(stderr, "%s: figure 4: %s\n", tool_name, tern_strerror(ret));
		bench_log(b, "fig 4 rep %u done", rep);
	}
	return ret;
}
