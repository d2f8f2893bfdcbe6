// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * Figure 3: latency of a small high-priority job while low-priority contexts
 * keep every compute engine busy with long SPIN and GEMM jobs, under the
 * fair preemptive policy, the fifo cooperative one and drmfair (the model
 * of drm_sched's FAIR policy, no preemption either), switched through
 * debugfs sched_policy in the same boot.  Also without load ("idle").
 *
 * Figure 7: the preemptions of the fair runs, as the driver measured them
 * (debugfs preempt_latency: ENG_PREEMPT write to PREEMPT_DONE served),
 * p50 and p99, beside the count the contexts report.
 *
 * Runs on the scaled device (time-scale S): a job of T ms is a SPIN of
 * T / S ms, or a GEMM of m x 64 x 64 with m * 4096 * S ns = T, so the host
 * does little real work for long jobs.
 */
#include <errno.h>
#include <stdlib.h>

#include "bench.h"

#define FIG 3
#define FIG_PREEMPT 7

struct prio_load {
	struct bench_load_ctx lc[BENCH_LOAD_MAX_CTX];
	unsigned int n;
	struct tern_cmdbuf *cbs[2];	/* SPIN, GEMM */
	struct tern_bo *bo[3];		/* A, B, C of the GEMM */
};

static void prio_load_free(struct prio_load *pl)
{
	unsigned int i;

	for (i = 0; i < pl->n; i++)
		tern_context_destroy(pl->lc[i].ctx);
	for (i = 0; i < 2; i++)
		tern_cmdbuf_free(pl->cbs[i]);
	for (i = 0; i < 3; i++)
		tern_bo_free(pl->bo[i]);
}

static int prio_load_init(struct bench *b, struct prio_load *pl, unsigned int job_ms)
{
	unsigned int engines = tern_device_info(b->sdev)->compute_engine_count;
	uint64_t job_ns = job_ms * 1000000ull;
	uint32_t spin_us = (uint32_t)(job_ns / 1000 / b->time_scale);
	uint64_t rows = job_ns / (4096ull * b->time_scale);
	unsigned int i, j, busy = 0;
	int ret = 0;

	if (!spin_us)
		spin_us = 1;
	rows = rows < 1 ? 1 : rows > 4096 ? 4096 : rows;
	for (i = 0; i < 2 && !ret; i++)
		ret = tern_cmdbuf_create(0, &pl->cbs[i]);
	if (!ret)
		ret = tern_bo_alloc(b->sdev, rows * 64 * 4, 0, &pl->bo[0]);
	if (!ret)
		ret = tern_bo_alloc(b->sdev, 64 * 64 * 4, 0, &pl->bo[1]);
	if (!ret)
		ret = tern_bo_alloc(b->sdev, rows * 64 * 4, 0, &pl->bo[2]);
	if (!ret)
		ret = tern_cmd_spin(pl->cbs[0], spin_us);
	if (!ret)
		ret = tern_cmd_gemm(pl->cbs[1], tern_bo_va(pl->bo[2]), tern_bo_va(pl->bo[0]),
				    tern_bo_va(pl->bo[1]), (uint32_t)rows, 64, 64);
	if (ret) {
		tool_error(ret, "figure 3 load");
		return ret;
	}
	tool_fill_random(tern_bo_map(pl->bo[0]), rows * 64, 6);
	tool_fill_random(tern_bo_map(pl->bo[1]), 64 * 64, 7);
	/* two LOW contexts per compute engine, each alternating SPIN and GEMM */
	for (i = 0; i < 2 * engines && i < BENCH_LOAD_MAX_CTX && !ret; i++) {
		struct tern_context_params p = { .priority = TERN_PRIORITY_LOW };
		struct bench_load_ctx *c = &pl->lc[i];

		ret = tern_context_create(b->sdev, &p, &c->ctx);
		if (ret) {
			tool_error(ret, "figure 3: low-priority context");
			break;
		}
		pl->n++;
		c->cbs = (const struct tern_cmdbuf *const *)pl->cbs;
		c->ncbs = 2;
		c->depth = 2;
		busy |= 1u << tern_context_engine(c->ctx);
	}
	for (j = 0, i = 0; i < tern_device_info(b->sdev)->engine_count; i++)
		j += tern_device_info(b->sdev)->engine_class[i] == TERN_ENGINE_COMPUTE &&
		     !(busy & (1u << i));
	if (!ret && j) {
		fprintf(stderr, "%s: figure 3: %u compute engines got no load\n", tool_name, j);
		ret = -EAGAIN;
	}
	return ret;
}

/* The high-priority samples of one run; *@p50 and *@p99 in ms. */
static int high_samples(struct tern_context *high, struct tern_bo *word,
			unsigned int n, unsigned int job_ms, double *lat, double *p50,
			double *p99)
{
	volatile uint32_t *v = tern_bo_map(word);
	struct tern_cmdbuf *cb = NULL;
	uint32_t seed = 12345;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		uint64_t ns = 0;

		/* arrive at fixed pseudo-random points of the low jobs */
		bench_sleep_ns((1 + bench_rand(&seed) % (job_ms * 1000)) * 1000ull);
		tern_cmdbuf_free(cb);
		cb = NULL;
		ret = tern_cmdbuf_create(0, &cb);
		if (!ret)
			ret = tern_cmd_write_imm(cb, tern_bo_va(word), i + 1);
		if (!ret)
			ret = bench_run_one(high, cb, 60000000000ll, &ns);
		if (!ret && *v != i + 1) {
			fprintf(stderr, "%s: high-priority job %u wrote %u\n", tool_name, i, *v);
			ret = -EIO;
		}
		lat[i] = ns / 1e6;
	}
	tern_cmdbuf_free(cb);
	if (!ret) {
		*p50 = bench_quantile(lat, n, 0.5);
		*p99 = bench_quantile(lat, n, 0.99);
	}
	return ret;
}

/* One loaded run under the current policy; @preempt: also figure 7. */
static int loaded_run(struct bench *b, struct tern_context *high, struct tern_bo *word,
		      unsigned int n, unsigned int job_ms, const char *series, double *lat,
		      bool preempt, double *p50, double *p99)
{
	struct prio_load pl = { .n = 0 };
	struct bench_load *load = NULL;
	uint64_t preemptions = 0;
	unsigned int i;
	int ret, r;

	ret = prio_load_init(b, &pl, job_ms);
	if (!ret && preempt) {
		r = bench_preempt_latencies_clear(b->sdev);
		if (r == -ENOENT)
			bench_missing(FIG_PREEMPT, "preempt_latency",
				      "the driver has no debugfs preempt_latency");
		else if (r)
			ret = r;
	}
	if (!ret)
		ret = bench_load_start(b->sdev, pl.lc, pl.n, &load);
	if (!ret) {
		bench_sleep_ns(2 * job_ms * 1000000ull);	/* every engine busy */
		ret = high_samples(high, word, n, job_ms, lat, p50, p99);
		r = bench_load_stop(load, NULL);
		if (r && !ret) {
			fprintf(stderr, "%s: figure 3 load: %s\n", tool_name, tern_strerror(r));
			ret = r;
		}
	}
	for (i = 0; i < pl.n && !ret; i++) {
		struct tern_context_status st;

		ret = tern_context_status(pl.lc[i].ctx, &st);
		if (!ret && st.state != TERN_CONTEXT_ACTIVE) {
			fprintf(stderr, "%s: figure 3: low context %u is %s\n", tool_name, i,
				tern_context_state_name(st.state));
			ret = -EIO;
		}
		preemptions += st.preemptions;
	}
	if (!ret) {
		bench_record(FIG, "high_latency_p50", series, -1, "ms", *p50);
		bench_record(FIG, "high_latency_p99", series, -1, "ms", *p99);
		bench_record(FIG, "low_preemptions", series, -1, "count", (double)preemptions);
	}
	if (!ret && preempt) {
		double *v = NULL;
		unsigned int count = 0;

		r = bench_preempt_latencies(b->sdev, &v, &count);
		if (!r && count) {
			bench_record(FIG_PREEMPT, "preempt_latency_p50", series, -1, "us",
				     bench_quantile(v, count, 0.5) / 1e3);
			bench_record(FIG_PREEMPT, "preempt_latency_p99", series, -1, "us",
				     bench_quantile(v, count, 0.99) / 1e3);
			bench_record(FIG_PREEMPT, "preemptions_recorded", series, -1, "count",
				     count);
		} else if (!r) {
			bench_missing(FIG_PREEMPT, "preempt_latency",
				      "no preemption was recorded under load");
		}
		free(v);
	}
	prio_load_free(&pl);
	return ret;
}

int bench_fig_priority(struct bench *b)
{
	unsigned int n = b->quick ? 6 : 30, job_ms = b->quick ? 10 : 40, rep;
	struct tern_context_params hp = { .priority = TERN_PRIORITY_HIGH,
					  .engine_class = TERN_ENGINE_COMPUTE };
	struct tern_context *high = NULL;
	struct tern_bo *word = NULL;
	double *lat = calloc(n, sizeof(*lat));
	char path[256];
	bool can_switch;
	int ret;

	if (!lat)
		return -ENOMEM;
	can_switch = bench_debugfs_path(b->sdev, "sched_policy", path, sizeof(path)) == 0;
	if (!can_switch)
		bench_missing(FIG, "fair_vs_fifo",
			      "the driver has no debugfs sched_policy: one run as it schedules");
	ret = tern_context_create(b->sdev, &hp, &high);
	if (!ret)
		ret = tern_bo_alloc(b->sdev, 4096, 0, &word);
	if (ret) {
		tool_error(ret, "figure 3 set-up");
		goto out;
	}
	for (rep = 0; rep < b->reps && !ret; rep++) {
		double fair50 = 0, fair99 = 0, fifo50 = 0, fifo99 = 0, i50, i99;
		double drm50 = 0, drm99 = 0;

		ret = high_samples(high, word, n, job_ms, lat, &i50, &i99);
		if (ret)
			break;
		bench_record(FIG, "high_latency_p50", "idle", -1, "ms", i50);
		bench_record(FIG, "high_latency_p99", "idle", -1, "ms", i99);
		if (!can_switch) {
			ret = loaded_run(b, high, word, n, job_ms, "default", lat, true,
					 &fair50, &fair99);
			continue;
		}
		ret = bench_set_policy(b->sdev, "fair");
		if (!ret)
			ret = loaded_run(b, high, word, n, job_ms, "fair", lat, true,
					 &fair50, &fair99);
		if (!ret)
			ret = bench_set_policy(b->sdev, "fifo");
		if (!ret)
			ret = loaded_run(b, high, word, n, job_ms, "fifo", lat, false,
					 &fifo50, &fifo99);
		if (ret)
			break;
		bench_record(FIG, "ratio_p50", "fifo/fair", -1, "x", fifo50 / fair50);
		bench_record(FIG, "ratio_p99", "fifo/fair", -1, "x", fifo99 / fair99);
		bench_log(b, "fig 3 rep %u: p50 fair %.2f ms fifo %.2f ms", rep, fair50, fifo50);
		ret = bench_set_drmfair(b->sdev, FIG);
		if (ret == 1) {
			ret = 0;
			continue;
		}
		if (!ret)
			ret = loaded_run(b, high, word, n, job_ms, "drmfair", lat, false,
					 &drm50, &drm99);
		if (ret)
			break;
		bench_record(FIG, "ratio_p50", "drmfair/fair", -1, "x", drm50 / fair50);
		bench_record(FIG, "ratio_p99", "drmfair/fair", -1, "x", drm99 / fair99);
		bench_log(b, "fig 3 rep %u: p50 drmfair %.2f ms", rep, drm50);
	}
	if (can_switch && bench_set_policy(b->sdev, "fair") && !ret) {
		fprintf(stderr, "%s: cannot switch the policy back to fair\n", tool_name);
		ret = -EIO;
	}
out:
	tern_bo_free(word);
	tern_context_destroy(high);
	free(lat);
	return ret;
}
