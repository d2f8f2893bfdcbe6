// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * Figure 2: small-job (NOP) throughput through libtern with 1, 4, 16 and 64
 * contexts in one process and with several processes of one context each,
 * beside the rate the device completes NOP buffers with both slots kept
 * full (debugfs raw_nop pipelined, one engine).  The limit for C contexts
 * is min(C, compute engines) times the per-engine rate: contexts are spread
 * over the compute engines, which run in parallel.  Whether the host gives
 * the engines that parallelism is measured too: raw_pipelined_all keeps
 * both slots of every compute engine full at once, and ratio_to_all
 * compares the several-context series with it.  The contexts_many series
 * runs the contexts' stream again with BENCH_NOP_BATCH jobs per
 * tern_submit_many() call.
 */
#include <errno.h>

#include "bench.h"

#define FIG 2

/*
 * A rate of @series at @x, and its ratios to the device: to @lanes engines
 * at @raw_rate each, and to every engine at once (@all_rate, when there
 * are several lanes).  A rate not measured is 0.
 */
static void record_rate(const char *series, unsigned int x, double rate, unsigned int lanes,
			double raw_rate, double all_rate)
{
	bench_record(FIG, "jobs_per_s", series, x, "jobs/s", rate);
	if (raw_rate > 0)
		bench_record(FIG, "ratio_to_device", series, x, "x", rate / (lanes * raw_rate));
	if (all_rate > 0 && lanes > 1)
		bench_record(FIG, "ratio_to_all", series, x, "x", rate / all_rate);
}

int bench_fig_throughput(struct bench *b)
{
	static const unsigned int ctxs[] = { 1, 4, 16, 64 };
	static const unsigned int procs[] = { 4, 16 };
	static const unsigned int many[] = { 1, 16 };
	const struct tern_device_info *info = tern_device_info(b->dev);
	unsigned int jobs = b->quick ? 128 : 2048, engines = info->compute_engine_count;
	unsigned int rep, i;
	int ret = 0;

	for (rep = 0; rep < b->reps && !ret; rep++) {
		struct bench_proc_run run;
		double raw_rate = 0, all_rate = 0;
		uint64_t total, ns;

		ret = bench_raw_nop(b->dev, 0, jobs, false, NULL, &total);
		if (ret == -ENOENT) {
			bench_missing(FIG, "raw_pipelined", "the driver has no debugfs raw_nop");
			ret = 0;
		} else if (ret) {
			fprintf(stderr, "%s: raw_nop pipelined: %s\n", tool_name, tern_strerror(ret));
			break;
		} else {
			raw_rate = jobs / (total / 1e9);
			bench_record(FIG, "raw_pipelined", "device", -1, "jobs/s", raw_rate);
		}
		if (raw_rate > 0 && engines > 1) {
			ret = bench_raw_nop_all(b->dev, jobs, &total);
			if (ret == -EINVAL) {
				bench_missing(FIG, "raw_pipelined_all",
					      "the driver's raw_nop has no \"all\"");
				ret = 0;
			} else if (ret) {
				fprintf(stderr, "%s: raw_nop all: %s\n", tool_name,
					tern_strerror(ret));
				break;
			} else {
				all_rate = (double)jobs * engines / (total / 1e9);
				bench_record(FIG, "raw_pipelined_all", "device", -1, "jobs/s",
					     all_rate);
			}
		}
		for (i = 0; i < sizeof(ctxs) / sizeof(ctxs[0]) && !ret; i++) {
			unsigned int c = ctxs[i], lanes = c < engines ? c : engines;

			ret = bench_nop_contexts(b->dev, c, jobs, 1, &ns);
			if (ret)
				break;
			record_rate("contexts", c, jobs / (ns / 1e9), lanes, raw_rate, all_rate);
		}
		/* the same stream, BENCH_NOP_BATCH jobs per system call */
		for (i = 0; i < sizeof(many) / sizeof(many[0]) && !ret; i++) {
			unsigned int c = many[i], lanes = c < engines ? c : engines;

			ret = bench_nop_contexts(b->dev, c, jobs, BENCH_NOP_BATCH, &ns);
			if (ret)
				break;
			record_rate("contexts_many", c, jobs / (ns / 1e9), lanes, raw_rate, all_rate);
		}
		for (i = 0; i < sizeof(procs) / sizeof(procs[0]) && !ret; i++) {
			unsigned int p = procs[i], lanes = p < engines ? p : engines;

			ret = bench_nop_processes(b->dev, p, jobs, &run);
			if (ret)
				break;
			record_rate("processes", p, run.jobs / (run.ns / 1e9), lanes, raw_rate,
				    all_rate);
		}
		bench_log(b, "fig 2 rep %u done", rep);
	}
	return ret;
}
