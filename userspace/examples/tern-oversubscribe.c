// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * tern-oversubscribe: jobs of several processes on device-local buffers
 * twice the size of local memory, checked, with the paging they caused.
 *
 * An example of per-job residency (driver interface 1.7): a TERN_BO_LOCAL
 * buffer need not fit in local memory with all the others; the driver makes
 * the buffers a job uses resident when the job is submitted, evicting idle
 * ones (of any process) to system memory, and tern_context_paging() tells
 * what that cost.  Each process allocates its buffers, fills the first
 * half of each (x) with a pattern, then runs rounds: in each, one SAXPY job
 * per buffer, y = 0.5 * x + y, on the buffer's two halves, a few jobs in
 * flight.  After the last round every y must be rounds * 0.5 * x, exactly
 * (small integers and halves: no rounding), and x unchanged.  With --fit
 * the buffers take half of local memory in all, for comparison.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

const char *tool_name = "tern-oversubscribe";

#define MAX_PROCS	64
#define MAX_ROUNDS	10000	/* keeps every y below 2^23: exact in f32 */
#define MAX_WINDOW	4	/* jobs in flight per process */
/* a SAXPY takes at most 2^26 elements: two halves of 256 MiB */
#define MAX_BO_SIZE	(512ull << 20)
#define ALPHA		0.5f
#define X_PERIOD	1021	/* prime: a page moved to the wrong place shows */
#define FENCE_TIMEOUT	(120 * 1000000000ll)
#define PAGING_INTERFACE	(1u << 16 | 7)

/* What a process reports to the parent, in a shared mapping. */
struct proc_result {
	int status;			/* its exit code */
	bool done;			/* it got as far as the report */
	bool paging_known;		/* the driver has the counters */
	uint64_t jobs;
	uint64_t t_start, t_end;	/* CLOCK_MONOTONIC ns */
	uint64_t retries;		/* submits refused with -EAGAIN and retried */
	uint64_t wrong;			/* values that differ from the expected */
	uint64_t busy_ns;		/* device time of its jobs */
	struct tern_context_paging paging;
};

struct setup {
	const char *spec;
	unsigned int procs;
	unsigned int rounds;
	unsigned int window;
	unsigned int bos;		/* per process */
	uint64_t bo_size;
	bool fit;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tern-oversubscribe [-d DEVICE] [-p PROCS] [-r ROUNDS] [-b SIZE] [--fit]\n"
		"Run PROCS processes whose device-local buffers (TERN_BO_LOCAL) add up\n"
		"to twice the device's local memory; each runs ROUNDS rounds of one\n"
		"SAXPY job per buffer, each job using one buffer, checks its results\n"
		"bit for bit and prints the paging its jobs caused (bytes paged in and\n"
		"out, evictions, device time of the paging) and its throughput; then\n"
		"the totals.  Needs driver interface 1.7 (per-job residency) unless\n"
		"--fit.\n"
		"\n"
		"  -d, --device=DEVICE   an index (default 0) or a node path\n"
		"  -p, --processes=N     processes (default 3, at most %d)\n"
		"  -r, --rounds=N        rounds (default 4, at most %d)\n"
		"  -b, --bo-size=SIZE    bytes of each buffer, a multiple of 8 KiB\n"
		"                        (default 8M; k/M/G suffixes)\n"
		"  -f, --fit             fewer buffers, half of local memory in all, so\n"
		"                        that they fit: jobs/s without paging, to compare\n"
		"  -h, --help            this help\n"
		"\n"
		"Exit status: 0 every result is right, 1 a result is wrong or a step\n"
		"failed, 2 bad usage, 3 no tern device, 4 no permission.\n",
		MAX_PROCS, MAX_ROUNDS);
}

static float x_value(unsigned int proc, unsigned int bo, uint64_t i)
{
	return (float)((i * 7 + bo * 13u + proc * 31u) % X_PERIOD);
}

static double mib(uint64_t bytes)
{
	return (double)bytes / 1048576.0;
}

/* Wait for the oldest job in flight, @ring[*@tail % @window], and free its fence. */
static int wait_oldest(struct tern_fence **ring, unsigned int window, uint64_t *tail)
{
	struct tern_fence **f = &ring[*tail % window];
	int ret = tern_fence_wait(*f, FENCE_TIMEOUT);

	tern_fence_free(*f);
	*f = NULL;
	(*tail)++;
	return ret;
}

/* Submit @cb, retrying on -EAGAIN (local memory held by busy buffers). */
static int submit_retry(struct tern_context *ctx, const struct tern_cmdbuf *cb,
			struct tern_fence **ring, unsigned int window, uint64_t head,
			uint64_t *tail, struct proc_result *res, struct tern_fence **fence)
{
	uint64_t deadline = tool_now_ns() + 60 * 1000000000ull;
	int ret;

	for (;;) {
		ret = tern_submit(ctx, cb, NULL, 0, fence);
		if (ret != -EAGAIN || tool_now_ns() > deadline)
			return ret;
		res->retries++;
		/* our own jobs in flight may be what holds it: let one finish */
		if (head > *tail) {
			ret = wait_oldest(ring, window, tail);
			if (ret)
				return ret;
		} else {
			struct timespec ts = { 0, 2000000 };

			nanosleep(&ts, NULL);
		}
	}
}

/* One process: allocate, fill, wait for the start, run, check, report. */
static int run_process(const struct setup *s, unsigned int me, int ready, int go,
		       struct proc_result *res)
{
	uint64_t half = s->bo_size / 2, n = half / 4, head = 0, tail = 0, i;
	struct tern_fence *ring[MAX_WINDOW] = { NULL };
	struct tern_bo **bo = calloc(s->bos, sizeof(*bo));
	struct tern_cmdbuf **cb = calloc(s->bos, sizeof(*cb));
	struct tern_context *ctx = NULL;
	struct tern_device *dev = NULL;
	struct tern_context_status st;
	unsigned int b, r;
	char what[96], c;
	int ret, status = TOOL_EXIT_FAIL;

	if (!bo || !cb) {
		fprintf(stderr, "%s: process %u: out of memory\n", tool_name, me);
		goto signal;
	}
	status = tool_open(s->spec, &dev);
	if (status)
		goto signal;
	status = TOOL_EXIT_FAIL;
	ret = tern_context_create(dev, NULL, &ctx);
	if (ret) {
		snprintf(what, sizeof(what), "process %u: context", me);
		tool_error(ret, what);
		status = tool_exit_code(ret);
		goto signal;
	}
	for (b = 0; b < s->bos; b++) {
		float *x;

		ret = tern_bo_alloc(dev, s->bo_size, TERN_BO_LOCAL, &bo[b]);
		if (!ret)
			ret = tern_cmdbuf_create(0, &cb[b]);
		if (!ret)
			ret = tern_cmd_saxpy(cb[b], tern_bo_va(bo[b]) + half, tern_bo_va(bo[b]),
					     ALPHA, (uint32_t)n);
		if (ret) {
			snprintf(what, sizeof(what), "process %u: buffer %u of %u", me, b, s->bos);
			tool_error(ret, what);
			goto signal;
		}
		/* x in the first half; y, the second, is zero-filled already */
		x = tern_bo_map(bo[b]);
		for (i = 0; i < n; i++)
			x[i] = x_value(me, b, i);
	}
	status = TOOL_EXIT_OK;
signal:
	/*
	 * The parent starts everybody at once, even after a failure here.
	 * Closing our end of "ready" lets the parent see the end of the pipe
	 * should another process die before it wrote.
	 */
	c = 'r';
	if (write(ready, &c, 1) != 1)
		status = TOOL_EXIT_FAIL;
	close(ready);
	if (read(go, &c, 1) < 0)
		status = TOOL_EXIT_FAIL;
	close(go);
	if (status)
		goto out;

	res->t_start = tool_now_ns();
	ret = 0;
	for (r = 0; r < s->rounds && !ret; r++) {
		for (b = 0; b < s->bos && !ret; b++) {
			if (head - tail == s->window)
				ret = wait_oldest(ring, s->window, &tail);
			if (!ret)
				ret = submit_retry(ctx, cb[b], ring, s->window, head, &tail, res,
						   &ring[head % s->window]);
			if (!ret) {
				head++;
				res->jobs++;
			}
		}
	}
	if (ret) {
		snprintf(what, sizeof(what), "process %u: at round %u, buffer %u", me, r - 1,
			 b - 1);
		tool_error(ret, what);
	}
	while (tail < head) {
		int r2 = wait_oldest(ring, s->window, &tail);

		if (r2 && !ret) {
			snprintf(what, sizeof(what), "process %u: a job", me);
			tool_error(r2, what);
			ret = r2;
		}
	}
	res->t_end = tool_now_ns();
	if (ret)
		goto out;

	ret = tern_context_paging(ctx, &res->paging);
	res->paging_known = ret == 0;
	if (ret && ret != -EOPNOTSUPP) {
		snprintf(what, sizeof(what), "process %u: paging counters", me);
		tool_error(ret, what);
		goto out;
	}
	ret = tern_context_status(ctx, &st);
	if (ret) {
		snprintf(what, sizeof(what), "process %u: context status", me);
		tool_error(ret, what);
		goto out;
	}
	res->busy_ns = st.busy_ns;

	/* y = rounds * 0.5 * x exactly, x as written */
	for (b = 0; b < s->bos; b++) {
		const float *x = tern_bo_map(bo[b]), *y = x + n;

		for (i = 0; i < n; i++) {
			float xv = x_value(me, b, i);
			float want = (float)((double)s->rounds * ALPHA * (double)xv);

			if (memcmp(&x[i], &xv, sizeof(xv)) ||
			    memcmp(&y[i], &want, sizeof(want))) {
				if (res->wrong++ < 5)
					fprintf(stderr, "%s: process %u: buffer %u, element %" PRIu64
						": x %.9g y %.9g, expected x %.9g y %.9g\n",
						tool_name, me, b, i, x[i], y[i], xv, want);
			}
		}
	}
	res->done = true;
	status = res->wrong ? TOOL_EXIT_FAIL : TOOL_EXIT_OK;
out:
	for (i = 0; i < MAX_WINDOW; i++)
		tern_fence_free(ring[i]);
	for (b = 0; bo && b < s->bos; b++) {
		tern_cmdbuf_free(cb ? cb[b] : NULL);
		tern_bo_free(bo[b]);
	}
	free(cb);
	free(bo);
	tern_context_destroy(ctx);
	tern_device_close(dev);
	res->status = status;
	return status;
}

static void print_paging(const struct proc_result *r, uint64_t jobs)
{
	const struct tern_context_paging *p = &r->paging;

	printf("  paged in %.1f MiB, out %.1f MiB, %" PRIu64 " evictions, paging %.3f s of "
	       "device time (%.2f MiB in and %.2f evictions per job)\n",
	       mib(p->bytes_in), mib(p->bytes_out), p->evictions, p->paging_ns / 1e9,
	       jobs ? mib(p->bytes_in) / (double)jobs : 0.0,
	       jobs ? (double)p->evictions / (double)jobs : 0.0);
}

static int run(const struct setup *s, uint64_t local)
{
	struct proc_result *res, total = { .paging_known = true };
	pid_t pid[MAX_PROCS];
	int ready[2], go[2], status = TOOL_EXIT_OK, st;
	uint64_t t0 = UINT64_MAX, t1 = 0, set = (uint64_t)s->procs * s->bos * s->bo_size;
	unsigned int p, started = 0;
	double secs;
	char c;

	res = mmap(NULL, s->procs * sizeof(*res), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED) {
		fprintf(stderr, "%s: shared memory: %s\n", tool_name, strerror(errno));
		return TOOL_EXIT_FAIL;
	}
	memset(res, 0, s->procs * sizeof(*res));
	if (pipe(ready)) {
		munmap(res, s->procs * sizeof(*res));
		return TOOL_EXIT_FAIL;
	}
	if (pipe(go)) {
		close(ready[0]);
		close(ready[1]);
		munmap(res, s->procs * sizeof(*res));
		return TOOL_EXIT_FAIL;
	}
	printf("%u process%s x %u LOCAL buffer%s of %.1f MiB = %.1f MiB, %.2fx local memory "
	       "(%.1f MiB)%s; %u round%s, at most %u job%s in flight per process\n", s->procs,
	       s->procs == 1 ? "" : "es", s->bos, s->bos == 1 ? "" : "s", mib(s->bo_size),
	       mib(set), (double)set / (double)local, mib(local), s->fit ? " (--fit)" : "", s->rounds, s->rounds == 1 ? "" : "s", s->window,
	       s->window == 1 ? "" : "s");
	fflush(NULL);
	for (p = 0; p < s->procs; p++) {
		pid[p] = fork();
		if (pid[p] < 0) {
			fprintf(stderr, "%s: fork: %s\n", tool_name, strerror(errno));
			status = TOOL_EXIT_FAIL;
			break;
		}
		if (!pid[p]) {
			close(ready[0]);
			close(go[1]);
			_exit(run_process(s, p, ready[1], go[0], &res[p]));
		}
		started++;
	}
	close(ready[1]);
	close(go[0]);
	/* everybody allocated and filled its buffers: start them together */
	for (p = 0; p < started; p++)
		if (read(ready[0], &c, 1) != 1)
			break;
	close(go[1]);
	close(ready[0]);
	for (p = 0; p < started; p++) {
		if (waitpid(pid[p], &st, 0) < 0 || !WIFEXITED(st)) {
			fprintf(stderr, "%s: process %u did not exit normally\n", tool_name, p);
			status = TOOL_EXIT_FAIL;
			continue;
		}
		if (WEXITSTATUS(st) && !status)
			status = WEXITSTATUS(st);
	}

	for (p = 0; p < started; p++) {
		const struct proc_result *r = &res[p];

		if (!r->done)
			continue;
		secs = (double)(r->t_end - r->t_start) / 1e9;
		printf("process %u: %" PRIu64 " jobs in %.3f s: %.1f jobs/s, %.1f MiB/s of "
		       "buffers; device time %.3f s; %s", p, r->jobs, secs,
		       secs > 0 ? (double)r->jobs / secs : 0.0,
		       secs > 0 ? mib(r->jobs * s->bo_size) / secs : 0.0, r->busy_ns / 1e9,
		       r->wrong ? "WRONG results" : "results bit-exact");
		if (r->retries)
			printf(", %" PRIu64 " submits retried (-EAGAIN)", r->retries);
		printf("\n");
		if (r->paging_known)
			print_paging(r, r->jobs);
		else
			printf("  paging: not reported (the driver is older than interface "
			       "1.7)\n");
		total.jobs += r->jobs;
		total.wrong += r->wrong;
		total.retries += r->retries;
		total.paging_known &= r->paging_known;
		total.paging.bytes_in += r->paging.bytes_in;
		total.paging.bytes_out += r->paging.bytes_out;
		total.paging.evictions += r->paging.evictions;
		total.paging.paging_ns += r->paging.paging_ns;
		if (r->t_start < t0)
			t0 = r->t_start;
		if (r->t_end > t1)
			t1 = r->t_end;
	}
	if (t1 > t0) {
		secs = (double)(t1 - t0) / 1e9;
		printf("total: %" PRIu64 " jobs in %.3f s: %.1f jobs/s, %.1f MiB/s of buffers\n",
		       total.jobs, secs, (double)total.jobs / secs,
		       mib(total.jobs * s->bo_size) / secs);
		if (total.paging_known)
			print_paging(&total, total.jobs);
	}
	if (status)
		printf("FAILED: %s\n", total.wrong ? "wrong results" : "a process failed");
	else
		printf("every result is right\n");
	munmap(res, s->procs * sizeof(*res));
	return status;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "processes", required_argument, NULL, 'p' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "bo-size", required_argument, NULL, 'b' },
		{ "fit", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct setup s = { .procs = 3, .rounds = 4, .bo_size = 8u << 20 };
	const struct tern_device_info *info;
	struct tern_device *dev;
	uint64_t v, local, set, max;
	uint32_t version;
	int c, ret;

	while ((c = getopt_long(argc, argv, "d:p:r:b:fh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			s.spec = optarg;
			break;
		case 'p':
			if (tool_parse_u64(optarg, &v) || !v || v > MAX_PROCS) {
				fprintf(stderr, "%s: bad process count \"%s\" (1 to %d)\n",
					tool_name, optarg, MAX_PROCS);
				return TOOL_EXIT_USAGE;
			}
			s.procs = (unsigned int)v;
			break;
		case 'r':
			if (tool_parse_u64(optarg, &v) || !v || v > MAX_ROUNDS) {
				fprintf(stderr, "%s: bad round count \"%s\" (1 to %d)\n",
					tool_name, optarg, MAX_ROUNDS);
				return TOOL_EXIT_USAGE;
			}
			s.rounds = (unsigned int)v;
			break;
		case 'b':
			if (tool_parse_u64(optarg, &v) || !v || v % 8192 || v > MAX_BO_SIZE) {
				fprintf(stderr, "%s: bad buffer size \"%s\" (a multiple of 8 KiB, "
					"at most %u MiB)\n", tool_name, optarg,
					(unsigned int)(MAX_BO_SIZE >> 20));
				return TOOL_EXIT_USAGE;
			}
			s.bo_size = v;
			break;
		case 'f':
			s.fit = true;
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

	/* the device's size and version; each process opens it on its own */
	ret = tool_open(s.spec, &dev);
	if (ret)
		return ret;
	info = tern_device_info(dev);
	local = info->local_mem_size;
	version = info->driver_version;
	max = info->max_bo_size;
	tern_device_close(dev);
	if (!local) {
		fprintf(stderr, "%s: the device has no local memory\n", tool_name);
		return TOOL_EXIT_FAIL;
	}
	if (!s.fit && version < PAGING_INTERFACE) {
		fprintf(stderr, "%s: the driver's interface %u.%u keeps LOCAL buffers resident "
			"from their allocation: a working set above local memory needs 1.7 "
			"(per-job residency); --fit runs without it\n", tool_name,
			version >> 16, version & 0xffff);
		return TOOL_EXIT_FAIL;
	}
	if (max && s.bo_size > max) {
		fprintf(stderr, "%s: %.1f MiB buffers: the device's largest is %.1f MiB\n",
			tool_name, mib(s.bo_size), mib(max));
		return TOOL_EXIT_USAGE;
	}
	if ((uint64_t)s.procs * s.bo_size > local / 2) {
		fprintf(stderr, "%s: %u process(es) using one buffer of %.1f MiB each at a time "
			"need more than half of local memory (%.1f MiB): take smaller "
			"buffers\n",
			tool_name, s.procs, mib(s.bo_size), mib(local));
		return TOOL_EXIT_USAGE;
	}
	/* jobs in flight: those of all processes take at most half of local memory */
	v = local / 2 / ((uint64_t)s.procs * s.bo_size);
	s.window = v > MAX_WINDOW ? MAX_WINDOW : (unsigned int)v;
	/* at most half of local memory to fit, at least twice it to oversubscribe */
	set = s.fit ? local / 2 : 2 * local;
	v = set / s.procs / s.bo_size;
	if (!s.fit && v * s.procs * s.bo_size < set)
		v++;
	if (!v) {
		fprintf(stderr, "%s: %.1f MiB per process is less than one %.1f MiB buffer: "
			"take smaller buffers or fewer processes\n", tool_name,
			mib(set / s.procs), mib(s.bo_size));
		return TOOL_EXIT_USAGE;
	}
	s.bos = (unsigned int)v;
	return run(&s, local);
}
