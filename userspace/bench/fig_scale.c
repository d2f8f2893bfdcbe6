// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * Figure 5: how the driver's cost grows with contexts and processes.
 *
 * Contexts: N contexts (1 to 4096; at most max_contexts per open file, so
 * N / 64 opens of the device) in this process; NOP jobs round-robin over
 * them.  Per job: kernel CPU time of the whole guest (system + irq +
 * softirq of /proc/stat: the submit ioctl, the scheduler, the interrupt and
 * the fence) and wall time; per context: the growth of the kernel's slab
 * memory (/proc/meminfo Slab) when the contexts (and their share of the
 * opens) were made.  Slab pages are shared, so small N shows 0 and other
 * kernel activity shows as noise, sometimes below 0.
 *
 * The raw path's own kernel CPU per NOP (debugfs raw_nop, pipelined on one
 * engine: the doorbell, the interrupt and the wake-up, no scheduler) is
 * measured the same way in each repetition (series "raw"), to compare the
 * one-context figure with.
 *
 * Where one context's CPU per job goes (fig_scale_ways.c): the same
 * stream submitted through the uAPI directly, with and without an
 * out-syncobj, in batches, and the floor of a nearly empty ioctl.
 *
 * Processes: P processes (1 to 64), each its own open and one context, the
 * same number of jobs in all; kernel CPU per job, wall time per job, and
 * the MemFree drop per process (the whole process: its open, context and
 * its own pages).
 */
#include <errno.h>
#include <stdlib.h>

#include "bench.h"

#define FIG 5

/* Kernel CPU per NOP on the raw path; negative when it cannot be measured. */
static double raw_cpu_per_job(struct bench *b, unsigned int jobs)
{
	uint64_t total;
	double k0, k1;
	int ret;

	k0 = bench_kernel_cpu_s();
	ret = bench_raw_nop(b->dev, 0, jobs, false, NULL, &total);
	k1 = bench_kernel_cpu_s();
	if (ret || k0 < 0 || k1 < 0)
		return -1;
	return (k1 - k0) * 1e6 / jobs;
}

static int contexts_run(struct bench *b, unsigned int n, unsigned int jobs)
{
	unsigned int per_file = tern_device_info(b->dev)->max_contexts;
	unsigned int nfiles, f, c, window;
	struct tern_device **files;
	struct tern_context **ctx;
	long slab0, slab1;
	double k0, k1;
	uint64_t t0, t1;
	int ret = 0;

	if (!per_file)
		per_file = 64;
	nfiles = (n + per_file - 1) / per_file;
	files = calloc(nfiles, sizeof(*files));
	ctx = calloc(n, sizeof(*ctx));
	if (!files || !ctx) {
		free(files);
		free(ctx);
		return -ENOMEM;
	}
	bench_memory_settle();
	slab0 = bench_meminfo_kib("Slab");
	for (f = 0; f < nfiles && !ret; f++) {
		ret = tern_device_open_path(tern_device_info(b->dev)->path, &files[f]);
		if (ret)
			tool_error(ret, "opening the device");
	}
	for (c = 0; c < n && !ret; c++) {
		ret = tern_context_create(files[c / per_file], NULL, &ctx[c]);
		if (ret)
			tool_error(ret, "context");
	}
	slab1 = bench_meminfo_kib("Slab");
	if (ret)
		goto out;
	/* about 64 jobs in flight whatever N */
	window = n >= 64 ? 1 : 64 / n;
	k0 = bench_kernel_cpu_s();
	t0 = bench_now_ns();
	ret = bench_nop_stream(ctx, n, jobs, window);
	t1 = bench_now_ns();
	k1 = bench_kernel_cpu_s();
	if (ret)
		goto out;
	bench_record(FIG, "kernel_cpu_per_job", "contexts", n, "us", (k1 - k0) * 1e6 / jobs);
	bench_record(FIG, "wall_per_job", "contexts", n, "us", (t1 - t0) / 1e3 / jobs);
	if (slab0 > 0 && slab1 > 0)
		bench_record(FIG, "slab_per_context", "contexts", n, "KiB",
			     (double)(slab1 - slab0) / n);
out:
	for (c = 0; c < n; c++)
		tern_context_destroy(ctx[c]);
	for (f = 0; f < nfiles; f++)
		tern_device_close(files[f]);
	free(ctx);
	free(files);
	return ret;
}

int bench_fig_scale(struct bench *b)
{
	static const unsigned int full_ctx[] = { 1, 16, 256, 4096 }, quick_ctx[] = { 1, 16 };
	static const unsigned int full_proc[] = { 1, 4, 16, 64 }, quick_proc[] = { 1, 4 };
	const unsigned int *nctx = b->quick ? quick_ctx : full_ctx;
	const unsigned int *nproc = b->quick ? quick_proc : full_proc;
	unsigned int count = b->quick ? 2 : 4, rep, i;
	int ret = 0;

	/*
	 * /proc/stat counts in ticks of 10 ms: enough jobs for tens of ticks
	 * (a few in quick mode).
	 */
	unsigned int many = b->quick ? 2048 : 8192;

	for (rep = 0; rep < b->reps && !ret; rep++) {
		double raw = raw_cpu_per_job(b, many);

		if (raw >= 0)
			bench_record(FIG, "kernel_cpu_per_job", "raw", -1, "us", raw);
		else
			bench_missing(FIG, "raw", "no debugfs raw_nop, or no /proc/stat");
		ret = bench_fig_scale_ways(b, many);
		for (i = 0; i < count && !ret; i++) {
			/* at least one job per context, and enough to measure */
			unsigned int jobs = nctx[i] > many ? nctx[i] : many;

			ret = contexts_run(b, nctx[i], jobs);
		}
		for (i = 0; i < count && !ret; i++) {
			struct bench_proc_run run;
			unsigned int jobs = b->quick ? 256 : 1024;

			ret = bench_nop_processes(b->dev, nproc[i], jobs, &run);
			if (ret)
				break;
			bench_record(FIG, "kernel_cpu_per_job", "processes", nproc[i], "us",
				     run.kernel_s * 1e6 / run.jobs);
			bench_record(FIG, "wall_per_job", "processes", nproc[i], "us",
				     run.ns / 1e3 / run.jobs);
			bench_record(FIG, "mem_per_process", "processes", nproc[i], "KiB",
				     (double)run.mem_kib / nproc[i]);
		}
		bench_log(b, "fig 5 rep %u done", rep);
	}
	return ret;
}
