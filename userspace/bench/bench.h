/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The tern authors
 *
 * bench.h - what the files of tern-benchsuite share: the run's settings,
 * the result store, debugfs access, a background load and the figures.
 *
 * A figure runs its measurement bench->reps times and records one value per
 * repetition and metric with bench_record().  The store keeps every value;
 * the table and the JSON file give the median and the spread.  A metric that
 * cannot be taken (the driver lacks a debugfs file, say) is recorded with
 * bench_missing() and its reason, never with a made-up value.
 */
#ifndef TERN_BENCH_H
#define TERN_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common.h"

#define BENCH_FIGURES	9
#define BENCH_MAX_REPS	16

struct bench {
	struct tern_device *dev;	/* figures 1, 2, 5, 6, 8, 9 */
	struct tern_device *sdev;	/* figures 3, 4, 7: the slow (scaled) device */
	uint32_t dev_scale;		/* time-scale of dev, measured with a SPIN */
	uint32_t time_scale;		/* of sdev, measured the same way */
	unsigned int reps;		/* repetitions of each figure */
	bool quick;			/* tiny counts: a smoke check */
	bool verbose;
};

/* --- results.c ---------------------------------------------------------- */

/*
 * Record @value of metric @name of figure @fig for one repetition.  @series
 * separates lines of one plot ("fair", "fifo", "drmfair", "driver",
 * "device"); @x is the
 * plot's parameter (contexts, processes, weight) or a negative number for
 * none.  Repeated calls with the same (fig, name, series, x) add values.
 */
void bench_record(int fig, const char *name, const char *series, double x,
		  const char *unit, double value);

/* Note that metric @name of figure @fig could not be measured, and why. */
__attribute__((format(printf, 3, 4)))
void bench_missing(int fig, const char *name, const char *fmt, ...);

/* Print the table of every metric: median, min, max, spread. */
void bench_print_table(FILE *f);

/* Write every metric with all its values as JSON to @path; 0 or -errno. */
int bench_write_json(const char *path, const struct bench *b, const char *mode);

/* Release the store. */
void bench_results_free(void);

/* Sort @v (n values) and return the @p-quantile (0..1), nearest rank. */
double bench_quantile(double *v, unsigned int n, double p);

/* Verbose progress on stderr. */
__attribute__((format(printf, 2, 3)))
void bench_log(const struct bench *b, const char *fmt, ...);

/* --- debugfs.c ---------------------------------------------------------- */

/* Path of debugfs file @name of @dev; -ENOENT if the driver lacks it. */
int bench_debugfs_path(struct tern_device *dev, const char *name, char *path, size_t len);

/* Read a whole debugfs file into a malloc'd string; 0 or -errno. */
int bench_debugfs_read(struct tern_device *dev, const char *name, char **text);

/* Write @text to a debugfs file in one write(); 0 or -errno. */
int bench_debugfs_write(struct tern_device *dev, const char *name, const char *text);

/* Switch the scheduling policy of every engine ("fair" or "fifo"). */
int bench_set_policy(struct tern_device *dev, const char *policy);

/*
 * Switch to the drmfair policy, the model of drm_sched's FAIR policy: 0,
 * 1 when the driver has no such policy (reported as missing for figure
 * @fig), or -errno.
 */
int bench_set_drmfair(struct tern_device *dev, int fig);

/* A decimal debugfs value (quantum_us, starve_ms); falls back to the module
 * parameter of the same name. */
int bench_read_knob(struct tern_device *dev, const char *name, uint64_t *value);

/* Run @count NOPs on @engine straight from the driver (raw_nop).  Serial:
 * *@ns gets @count malloc'd round trips.  Both: *@total_ns the whole run. */
int bench_raw_nop(struct tern_device *dev, uint32_t engine, uint32_t count, bool serial,
		  uint64_t **ns, uint64_t *total_ns);
/* @count pipelined NOPs on every compute engine at once; *@total_ns wall time */
int bench_raw_nop_all(struct tern_device *dev, uint32_t count, uint64_t *total_ns);

/* Preemption latencies recorded since the last clear (preempt_latency). */
int bench_preempt_latencies(struct tern_device *dev, double **ns, unsigned int *count);
int bench_preempt_latencies_clear(struct tern_device *dev);

/* --- load.c ------------------------------------------------------------- */

/*
 * A background load: each context keeps @depth jobs (2 if 0, at most
 * BENCH_LOAD_MAX_DEPTH) in flight, cycling through its command buffers,
 * from one thread, until stopped.
 */
#define BENCH_LOAD_MAX_DEPTH	8
#define BENCH_LOAD_MAX_CTX	64

struct bench_load_ctx {
	struct tern_context *ctx;
	const struct tern_cmdbuf *const *cbs;	/* jobs, used in turn */
	unsigned int ncbs;
	unsigned int depth;
	/* private */
	struct tern_fence *fence[BENCH_LOAD_MAX_DEPTH];
	uint64_t head, tail, next_cb;
};

struct bench_load;

int bench_load_start(struct tern_device *dev, struct bench_load_ctx *ctxs, unsigned int n,
		     struct bench_load **loadp);
/* Stop submitting, wait for the jobs in flight; returns the first error. */
int bench_load_stop(struct bench_load *load, uint64_t *jobs_done);

/* --- the figures --------------------------------------------------------- */

/* 0 when the figure ran (metrics recorded or reported missing), or -errno
 * when something failed that should not (a wrong result, an ioctl error). */
int bench_fig_latency(struct bench *b);		/* 1 */
int bench_fig_throughput(struct bench *b);	/* 2 */
int bench_fig_priority(struct bench *b);	/* 3 and 7 */
int bench_fig_fairness(struct bench *b);	/* 4 */
int bench_fig_scale(struct bench *b);		/* 5 */
int bench_fig_scale_ways(struct bench *b, unsigned int jobs);	/* 5, by way of submission */
int bench_fig_compute(struct bench *b);		/* 6 */
int bench_fig_bind(struct bench *b);		/* 8 */
int bench_fig_oversub(struct bench *b);		/* 9 */

/* Helpers of the figures (fig_common.c). */
uint64_t bench_now_ns(void);
void bench_sleep_ns(uint64_t ns);
/* Submit @cb on @ctx and wait for it; *@ns the submit-to-signal time. */
int bench_run_one(struct tern_context *ctx, const struct tern_cmdbuf *cb,
		  int64_t timeout_ns, uint64_t *ns);
/*
 * A compute context of @priority and @weight on engine @engine
 * (tern_context_create_on()), or where the driver places it if @engine is
 * negative.
 */
int bench_context_on(struct tern_device *dev, uint32_t priority, uint32_t weight, int engine,
		     struct tern_context **ctxp);
/* NOP jobs kept in flight per context by the streams below */
#define BENCH_NOP_WINDOW	8
/* jobs per tern_submit_many() call of figure 2's contexts_many series */
#define BENCH_NOP_BATCH		4
/* @jobs NOP jobs round-robin over @nctx contexts, @window in flight each */
int bench_nop_stream(struct tern_context **ctx, unsigned int nctx, unsigned int jobs,
		     unsigned int window);
/*
 * The same with tern_submit_many(): @batch jobs of a context per call, the
 * call made once @batch of its @window places are free (@batch 1: the
 * plain stream)
 */
int bench_nop_stream_many(struct tern_context **ctx, unsigned int nctx, unsigned int jobs,
			  unsigned int window, unsigned int batch);
/* the same over @nctx new contexts of @dev; *@ns the stream's time */
int bench_nop_contexts(struct tern_device *dev, unsigned int nctx, unsigned int jobs,
		       unsigned int batch, uint64_t *ns);

struct bench_proc_run {
	uint64_t ns;		/* from the start signal to the last exit */
	double kernel_s;	/* system + irq + softirq time of all CPUs meanwhile */
	long mem_kib;		/* MemFree drop with every process set up */
	unsigned int jobs;	/* jobs run in all */
};
/* @nproc processes, each its own open of @dev and one context, @jobs in all */
int bench_nop_processes(struct tern_device *dev, unsigned int nproc, unsigned int jobs,
			struct bench_proc_run *run);
/* a field of /proc/meminfo in KiB (-1 if absent); kernel CPU seconds so far */
long bench_meminfo_kib(const char *field);
/* wait (at most 2 s) until MemFree stops moving */
void bench_memory_settle(void);
double bench_kernel_cpu_s(void);
/* Deterministic pseudo-random numbers (xorshift32) for fixed-seed runs. */
uint32_t bench_rand(uint32_t *state);

#endif /* TERN_BENCH_H */
