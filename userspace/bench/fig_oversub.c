// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * Figure 9: oversubscription of device-local memory (per-job residency,
 * driver interface 1.7).  The same multi-process work twice: OVERSUB_PROCS
 * processes, each its own open of the device and one context, each
 * running the same number of SAXPY jobs, one TERN_BO_LOCAL buffer per job
 * (y = 0.5 * x + y on the buffer's two halves), cycling through its
 * buffers, OVERSUB_WINDOW jobs in flight.  "fit": the buffers of all the
 * processes take half of local memory, so they stay resident; "over": they
 * take twice local memory, so (least recently used first) nearly every job
 * pages its buffer in and another one out.  The runs alternate, fit then
 * over, once per repetition, in one boot.
 *
 * Recorded: jobs per second of each run (all the jobs over the wall time
 * from the common start to the last fence; x is the working set over local
 * memory), "over/fit" the ratio of the two runs of a repetition, and per
 * job: MiB paged in and out, evictions and the device time of the paging
 * (tern_context_paging(), summed over the processes' contexts) and the
 * device time of the jobs themselves (busy_ns).  The per-pair values are
 * printed as they come.  Results are checked bit for bit in the first
 * repetition (every y must be jobs-per-buffer * 0.5 * x, exactly).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define FIG 9
#define OVERSUB_PROCS		3
#define OVERSUB_WINDOW		2
#define OVERSUB_ALPHA		0.5f
#define OVERSUB_PERIOD		1021
#define OVERSUB_TIMEOUT		(120 * 1000000000ll)
#define OVERSUB_INTERFACE	(1u << 16 | 7)

struct oversub {
	const char *path;	/* the device node each process opens */
	uint64_t bo_size;
	unsigned int bos;	/* per process */
	unsigned int jobs;	/* per process */
	bool check;
};

/* what a process hands back, in a shared mapping */
struct oversub_proc {
	int ret;
	uint64_t t_start, t_end;
	uint64_t busy_ns;
	uint64_t wrong;
	struct tern_context_paging paging;
};

struct oversub_run {
	double jobs_per_s;
	double set_ratio;	/* working set / local memory */
	unsigned int jobs;	/* in all */
	uint64_t busy_ns;
	struct tern_context_paging paging;
};

static float x_value(unsigned int proc, unsigned int bo, uint64_t i)
{
	return (float)((i * 7 + bo * 13u + proc * 31u) % OVERSUB_PERIOD);
}

static int wait_oldest(struct tern_fence **ring, uint64_t *tail)
{
	struct tern_fence **f = &ring[*tail % OVERSUB_WINDOW];
	int ret = tern_fence_wait(*f, OVERSUB_TIMEOUT);

	tern_fence_free(*f);
	*f = NULL;
	(*tail)++;
	return ret;
}

/* One process of a run; returns 0 or a negative errno, also in @res. */
static int oversub_process(const struct oversub *o, unsigned int me, int ready, int go,
			   struct oversub_proc *res)
{
	uint64_t half = o->bo_size / 2, n = half / 4, head = 0, tail = 0, i;
	struct tern_fence *ring[OVERSUB_WINDOW] = { NULL };
	struct tern_bo **bo = calloc(o->bos, sizeof(*bo));
	struct tern_cmdbuf **cb = calloc(o->bos, sizeof(*cb));
	struct tern_context *ctx = NULL;
	struct tern_device *dev = NULL;
	struct tern_context_status st;
	unsigned int b, j, rounds;
	char c = 'r';
	int ret = bo && cb ? 0 : -ENOMEM;

	if (!ret)
		ret = tern_device_open_path(o->path, &dev);
	if (!ret)
		ret = tern_context_create(dev, NULL, &ctx);
	for (b = 0; b < o->bos && !ret; b++) {
		float *x;

		ret = tern_bo_alloc(dev, o->bo_size, TERN_BO_LOCAL, &bo[b]);
		if (!ret)
			ret = tern_cmdbuf_create(0, &cb[b]);
		if (!ret)
			ret = tern_cmd_saxpy(cb[b], tern_bo_va(bo[b]) + half, tern_bo_va(bo[b]),
					     OVERSUB_ALPHA, (uint32_t)n);
		if (ret)
			break;
		x = tern_bo_map(bo[b]);
		for (i = 0; i < n; i++)
			x[i] = x_value(me, b, i);
	}
	if (ret)
		tool_error(ret, "figure 9 set-up");
	/* ready even after a failure: the parent starts everybody at once */
	if (write(ready, &c, 1) != 1 && !ret)
		ret = -EPIPE;
	close(ready);
	if (read(go, &c, 1) < 0 && !ret)
		ret = -EPIPE;
	close(go);
	if (ret)
		goto out;

	res->t_start = bench_now_ns();
	for (j = 0; j < o->jobs && !ret; j++) {
		struct tern_fence **f;
		uint64_t deadline = bench_now_ns() + 60 * 1000000000ull;

		if (head - tail == OVERSUB_WINDOW)
			ret = wait_oldest(ring, &tail);
		f = &ring[head % OVERSUB_WINDOW];
		while (!ret) {
			ret = tern_submit(ctx, cb[j % o->bos], NULL, 0, f);
			if (ret != -EAGAIN || bench_now_ns() > deadline)
				break;
			/* local memory held by busy buffers for 1 s: let ours finish */
			ret = head > tail ? wait_oldest(ring, &tail) : 0;
			if (head == tail)
				bench_sleep_ns(2000000);
		}
		if (!ret)
			head++;
	}
	if (ret)
		tool_error(ret, "figure 9 submit");
	while (tail < head) {
		int r = wait_oldest(ring, &tail);

		if (r && !ret) {
			tool_error(r, "figure 9 job");
			ret = r;
		}
	}
	res->t_end = bench_now_ns();
	if (!ret) {
		ret = tern_context_paging(ctx, &res->paging);
		if (!ret)
			ret = tern_context_status(ctx, &st);
		if (ret)
			tool_error(ret, "figure 9 counters");
		else
			res->busy_ns = st.busy_ns;
	}
	if (!ret && o->check) {
		for (b = 0; b < o->bos; b++) {
			const float *x = tern_bo_map(bo[b]), *y = x + n;

			/* buffer b ran once per round it was reached in */
			rounds = o->jobs / o->bos + (b < o->jobs % o->bos);
			for (i = 0; i < n; i++) {
				float xv = x_value(me, b, i);
				float want = (float)((double)rounds * OVERSUB_ALPHA * (double)xv);

				if (memcmp(&x[i], &xv, sizeof(xv)) ||
				    memcmp(&y[i], &want, sizeof(want)))
					res->wrong++;
			}
		}
		if (res->wrong) {
			fprintf(stderr, "%s: figure 9: process %u: %" PRIu64 " wrong values\n",
				tool_name, me, res->wrong);
			ret = -EIO;
		}
	}
out:
	for (j = 0; j < OVERSUB_WINDOW; j++)
		tern_fence_free(ring[j]);
	for (b = 0; bo && b < o->bos; b++) {
		tern_cmdbuf_free(cb ? cb[b] : NULL);
		tern_bo_free(bo[b]);
	}
	free(cb);
	free(bo);
	tern_context_destroy(ctx);
	tern_device_close(dev);
	res->ret = ret;
	return ret;
}

/* Bytes of local memory in use (sysfs tern_local_memory_used), or -1. */
static int64_t local_used(struct tern_device *dev)
{
	const char *slot = tern_device_info(dev)->pci_slot;
	unsigned long long v;
	char path[128];
	FILE *f;
	int n;

	if (!slot[0])
		return -1;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/tern_local_memory_used", slot);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fscanf(f, "%llu", &v);
	fclose(f);
	return n == 1 ? (int64_t)v : -1;
}

/* Wait (at most 2 s) until the buffers of the last run left local memory. */
static void local_settle(struct tern_device *dev, int64_t baseline)
{
	int i;

	for (i = 0; i < 200 && baseline >= 0 && local_used(dev) > baseline; i++)
		bench_sleep_ns(10000000);
}

static int oversub_run(const struct oversub *o, uint64_t local, struct oversub_run *run)
{
	struct oversub_proc *res;
	pid_t pid[OVERSUB_PROCS];
	unsigned int p, started = 0;
	uint64_t t0 = UINT64_MAX, t1 = 0;
	int ready[2], go[2], status, ret = 0;
	char c;

	memset(run, 0, sizeof(*run));
	res = mmap(NULL, sizeof(*res) * OVERSUB_PROCS, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED)
		return -errno;
	memset(res, 0, sizeof(*res) * OVERSUB_PROCS);
	if (pipe(ready)) {
		ret = -errno;
		munmap(res, sizeof(*res) * OVERSUB_PROCS);
		return ret;
	}
	if (pipe(go)) {
		ret = -errno;
		close(ready[0]);
		close(ready[1]);
		munmap(res, sizeof(*res) * OVERSUB_PROCS);
		return ret;
	}
	fflush(NULL);
	for (p = 0; p < OVERSUB_PROCS; p++) {
		pid[p] = fork();
		if (pid[p] < 0) {
			ret = -errno;
			break;
		}
		if (!pid[p]) {
			close(ready[0]);
			close(go[1]);
			_exit(oversub_process(o, p, ready[1], go[0], &res[p]) ? 1 : 0);
		}
		started++;
	}
	close(ready[1]);
	close(go[0]);
	for (p = 0; p < started; p++)
		if (read(ready[0], &c, 1) != 1)
			break;
	close(go[1]);
	close(ready[0]);
	for (p = 0; p < started; p++) {
		if (waitpid(pid[p], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "%s: figure 9: process %u of %u failed (%d)\n", tool_name,
				p, OVERSUB_PROCS, res[p].ret);
			if (!ret)
				ret = res[p].ret ? res[p].ret : -EIO;
			continue;
		}
		if (res[p].t_start < t0)
			t0 = res[p].t_start;
		if (res[p].t_end > t1)
			t1 = res[p].t_end;
		run->busy_ns += res[p].busy_ns;
		run->paging.bytes_in += res[p].paging.bytes_in;
		run->paging.bytes_out += res[p].paging.bytes_out;
		run->paging.evictions += res[p].paging.evictions;
		run->paging.paging_ns += res[p].paging.paging_ns;
	}
	run->jobs = o->jobs * OVERSUB_PROCS;
	/* to two decimals: the x of the table */
	run->set_ratio = round(100.0 * (double)o->bo_size * o->bos * OVERSUB_PROCS /
			       (double)local) / 100.0;
	if (!ret && t1 > t0)
		run->jobs_per_s = run->jobs / ((double)(t1 - t0) / 1e9);
	munmap(res, sizeof(*res) * OVERSUB_PROCS);
	return ret;
}

static void record_run(const char *series, const struct oversub_run *r)
{
	double jobs = r->jobs;

	bench_record(FIG, "jobs_per_s", series, r->set_ratio, "jobs/s", r->jobs_per_s);
	bench_record(FIG, "paged_in_per_job", series, r->set_ratio, "MiB",
		     r->paging.bytes_in / jobs / 1048576.0);
	bench_record(FIG, "paged_out_per_job", series, r->set_ratio, "MiB",
		     r->paging.bytes_out / jobs / 1048576.0);
	bench_record(FIG, "evictions_per_job", series, r->set_ratio, "BOs",
		     r->paging.evictions / jobs);
	bench_record(FIG, "paging_per_job", series, r->set_ratio, "ms",
		     r->paging.paging_ns / jobs / 1e6);
	bench_record(FIG, "device_time_per_job", series, r->set_ratio, "ms",
		     r->busy_ns / jobs / 1e6);
}

int bench_fig_oversub(struct bench *b)
{
	const struct tern_device_info *info = tern_device_info(b->dev);
	uint64_t local = info->local_mem_size, bo_size;
	struct oversub fit, over;
	struct oversub_run rf, ro;
	const char *which;
	unsigned int rep;
	int64_t baseline;
	int ret = 0;

	if (!local) {
		bench_missing(FIG, "oversubscription", "the device has no local memory");
		return 0;
	}
	if (info->driver_version < OVERSUB_INTERFACE) {
		bench_missing(FIG, "oversubscription", "driver interface %u.%u: LOCAL buffers "
			      "stay resident from their map, a working set above local memory "
			      "needs 1.7", info->driver_version >> 16,
			      info->driver_version & 0xffff);
		return 0;
	}
	/* 8 MiB buffers on 256 MiB (4 MiB quick): 66 (129) buffers in the over set */
	bo_size = local / (b->quick ? 64 : 32);
	if (bo_size > (8u << 20))
		bo_size = 8u << 20;
	bo_size &= ~(uint64_t)8191;
	if (bo_size < 8192 || (info->max_bo_size && bo_size > info->max_bo_size)) {
		bench_missing(FIG, "oversubscription", "local memory of %" PRIu64 " bytes is "
			      "too small for the figure's buffers", local);
		return 0;
	}
	fit = (struct oversub){ .path = info->path, .bo_size = bo_size };
	over = fit;
	/* at most half of local memory, and at least twice it */
	fit.bos = (unsigned int)(local / 2 / OVERSUB_PROCS / bo_size);
	over.bos = (unsigned int)((2 * local + OVERSUB_PROCS * bo_size - 1) /
				  (OVERSUB_PROCS * bo_size));
	if (!fit.bos)
		fit.bos = 1;
	/* the same jobs in both: every over buffer once (quick) or twice */
	fit.jobs = over.jobs = over.bos * (b->quick ? 1 : 2);

	baseline = local_used(b->dev);
	bench_log(b, "fig 9: %u processes, %u and %u buffers of %" PRIu64 " KiB each, %u jobs "
		  "each, local memory %" PRIu64 " MiB (%" PRId64 " bytes in use)",
		  OVERSUB_PROCS, fit.bos, over.bos, bo_size >> 10, fit.jobs, local >> 20,
		  baseline);
	for (rep = 0; rep < b->reps && !ret; rep++) {
		fit.check = over.check = rep == 0;
		which = "fit";
		local_settle(b->dev, baseline);
		ret = oversub_run(&fit, local, &rf);
		if (!ret) {
			which = "over";
			local_settle(b->dev, baseline);
			ret = oversub_run(&over, local, &ro);
		}
		if (ret) {
			/* the processes said why */
			fprintf(stderr, "%s: figure 9: the %s run of repetition %u failed\n",
				tool_name, which, rep + 1);
			break;
		}
		record_run("fit", &rf);
		record_run("over", &ro);
		if (rf.jobs_per_s > 0)
			bench_record(FIG, "throughput", "over/fit", -1, "x",
				     ro.jobs_per_s / rf.jobs_per_s);
		printf("tern-benchsuite: figure 9, pair %u: fit (%.2fx local) %.1f jobs/s, "
		       "over (%.2fx local) %.1f jobs/s, over/fit %.3f; over per job: in %.2f "
		       "MiB, out %.2f MiB, %.2f evictions, paging %.2f ms\n", rep + 1,
		       rf.set_ratio, rf.jobs_per_s, ro.set_ratio, ro.jobs_per_s,
		       rf.jobs_per_s > 0 ? ro.jobs_per_s / rf.jobs_per_s : 0.0,
		       ro.paging.bytes_in / (double)ro.jobs / 1048576.0,
		       ro.paging.bytes_out / (double)ro.jobs / 1048576.0,
		       ro.paging.evictions / (double)ro.jobs,
		       ro.paging.paging_ns / (double)ro.jobs / 1e6);
		fflush(stdout);
	}
	bench_log(b, "fig 9 done");
	return ret;
}
