// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * fig_common.c - small helpers of the figures: clocks, one timed job,
 * a context placed on a chosen engine, fixed-seed random numbers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

uint64_t bench_now_ns(void)
{
	return tool_now_ns();
}

void bench_sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u),
			       .tv_nsec = (long)(ns % 1000000000u) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int bench_run_one(struct tern_context *ctx, const struct tern_cmdbuf *cb,
		  int64_t timeout_ns, uint64_t *ns)
{
	struct tern_fence *f;
	uint64_t t0 = bench_now_ns();
	int ret;

	*ns = 0;
	ret = tern_submit(ctx, cb, NULL, 0, &f);
	if (ret) {
		tool_error(ret, "submit");
		return ret;
	}
	ret = tern_fence_wait(f, timeout_ns);
	*ns = bench_now_ns() - t0;
	if (ret)
		tool_error(ret, "waiting for a job");
	tern_fence_free(f);
	return ret;
}

int bench_context_on(struct tern_device *dev, uint32_t priority, uint32_t weight, int engine,
		     struct tern_context **ctxp)
{
	struct tern_context_params p = { .priority = priority,
					 .engine_class = TERN_ENGINE_COMPUTE,
					 .weight = weight };
	int ret;

	if (engine >= 0)
		ret = tern_context_create_on(dev, &p, (uint32_t)engine, ctxp);
	else
		ret = tern_context_create(dev, &p, ctxp);
	if (ret)
		tool_error(ret, "context");
	return ret;
}

uint32_t bench_rand(uint32_t *state)
{
	uint32_t x = *state ? *state : 0x9e3779b9u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

int bench_nop_stream_many(struct tern_context **ctx, unsigned int nctx, unsigned int jobs,
			  unsigned int window, unsigned int batch)
{
	struct tern_fence **ring = calloc((size_t)nctx * window, sizeof(*ring));
	struct tern_fence **got = calloc(batch, sizeof(*got));
	const struct tern_cmdbuf **cbs = calloc(batch, sizeof(*cbs));
	uint64_t *head = calloc(nctx, sizeof(*head)), *tail = calloc(nctx, sizeof(*tail));
	struct tern_cmdbuf *cb = NULL;
	unsigned int i, c, k, n, want;
	int ret = -ENOMEM;

	if (!ring || !got || !cbs || !head || !tail || batch > window)
		goto out;
	ret = tern_cmdbuf_create(0, &cb);
	if (!ret)
		ret = tern_cmd_nop(cb, 1);
	for (k = 0; k < batch; k++)
		cbs[k] = cb;
	for (i = 0, c = 0; i < jobs && !ret; c = (c + 1) % nctx) {
		want = jobs - i < batch ? jobs - i : batch;
		while (head[c] - tail[c] > window - want) {
			struct tern_fence **f = &ring[c * window + tail[c] % window];

			ret = tern_fence_wait(*f, 30000000000ll);
			tern_fence_free(*f);
			*f = NULL;
			tail[c]++;
			if (ret)
				break;
		}
		if (ret)
			break;
		if (want == 1) {
			n = 0;
			ret = tern_submit(ctx[c], cb, NULL, 0, &got[0]);
			if (!ret)
				n = 1;
		} else {
			ret = tern_submit_many(ctx[c], cbs, want, got, &n);
		}
		for (k = 0; k < n; k++)
			ring[c * window + (head[c] + k) % window] = got[k];
		head[c] += n;
		i += n;
	}
	if (ret)
		tool_error(ret, "NOP job");
	for (c = 0; c < nctx; c++) {
		for (; tail[c] < head[c]; tail[c]++) {
			struct tern_fence **f = &ring[c * window + tail[c] % window];
			int r = tern_fence_wait(*f, 30000000000ll);

			if (r && !ret) {
				tool_error(r, "NOP job");
				ret = r;
			}
			tern_fence_free(*f);
		}
	}
out:
	tern_cmdbuf_free(cb);
	free(ring);
	free(got);
	free(cbs);
	free(head);
	free(tail);
	return ret;
}

int bench_nop_stream(struct tern_context **ctx, unsigned int nctx, unsigned int jobs,
		     unsigned int window)
{
	return bench_nop_stream_many(ctx, nctx, jobs, window, 1);
}

int bench_nop_contexts(struct tern_device *dev, unsigned int nctx, unsigned int jobs,
		       unsigned int batch, uint64_t *ns)
{
	struct tern_context **ctx = calloc(nctx, sizeof(*ctx));
	unsigned int c;
	int ret = ctx ? 0 : -ENOMEM;

	for (c = 0; c < nctx && !ret; c++) {
		ret = tern_context_create(dev, NULL, &ctx[c]);
		if (ret)
			tool_error(ret, "context");
	}
	*ns = bench_now_ns();
	if (!ret)
		ret = bench_nop_stream_many(ctx, nctx, jobs, BENCH_NOP_WINDOW, batch);
	*ns = bench_now_ns() - *ns;
	for (c = 0; ctx && c < nctx; c++)
		tern_context_destroy(ctx[c]);
	free(ctx);
	return ret;
}

/* one field of /proc/meminfo, in KiB, or -1 */
long bench_meminfo_kib(const char *field)
{
	size_t flen = strlen(field);
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, flen) && line[flen] == ':') {
			v = strtol(line + flen + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

void bench_memory_settle(void)
{
	long prev = bench_meminfo_kib("MemFree"), now;
	int i;

	/* objects of earlier steps are freed late (RCU, work items) */
	for (i = 0; i < 40; i++) {
		bench_sleep_ns(50000000);
		now = bench_meminfo_kib("MemFree");
		if (labs(now - prev) < 64)
			break;
		prev = now;
	}
}

double bench_kernel_cpu_s(void)
{
	unsigned long long user, nice, sys, idle, iowait, irq, softirq;
	double v = -1;
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return -1;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &sys, &idle,
		   &iowait, &irq, &softirq) == 7)
		v = (double)(sys + irq + softirq) / (double)sysconf(_SC_CLK_TCK);
	fclose(f);
	return v;
}

int bench_nop_processes(struct tern_device *dev, unsigned int nproc, unsigned int jobs,
			struct bench_proc_run *run)
{
	const char *path = tern_device_info(dev)->path;
	int ready[2], go[2], ret = 0, status;
	unsigned int i, started = 0;
	pid_t *pid = calloc(nproc, sizeof(*pid));
	long free0;
	double k0;
	char c;

	if (!pid)
		return -ENOMEM;
	bench_memory_settle();
	free0 = bench_meminfo_kib("MemFree");
	if (pipe(ready)) {
		free(pid);
		return -errno;
	}
	if (pipe(go)) {
		close(ready[0]);
		close(ready[1]);
		free(pid);
		return -errno;
	}
	fflush(NULL);
	for (i = 0; i < nproc; i++) {
		pid[i] = fork();
		if (pid[i] < 0) {
			ret = -errno;
			break;
		}
		if (!pid[i]) {
			struct tern_context *ctx = NULL;
			struct tern_device *d = NULL;
			int r;

			close(ready[0]);
			close(go[1]);
			r = tern_device_open_path(path, &d);
			if (!r)
				r = tern_context_create(d, NULL, &ctx);
			if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
				_exit(2);
			if (!r)
				r = bench_nop_stream(&ctx, 1, jobs / nproc, BENCH_NOP_WINDOW);
			tern_context_destroy(ctx);
			tern_device_close(d);
			_exit(r ? 1 : 0);
		}
		started++;
	}
	close(ready[1]);
	close(go[0]);
	for (i = 0; i < started; i++)
		if (read(ready[0], &c, 1) != 1)
			ret = -EPIPE;
	run->mem_kib = free0 - bench_meminfo_kib("MemFree");
	k0 = bench_kernel_cpu_s();
	run->ns = bench_now_ns();
	for (i = 0; i < started; i++)
		if (write(go[1], "g", 1) != 1)
			ret = -EPIPE;
	close(go[1]);
	for (i = 0; i < started; i++) {
		if (waitpid(pid[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "%s: NOP process %u of %u failed\n", tool_name, i, nproc);
			ret = -EIO;
		}
	}
	run->ns = bench_now_ns() - run->ns;
	run->kernel_s = bench_kernel_cpu_s() - k0;
	run->jobs = jobs / nproc * nproc;
	close(ready[0]);
	free(pid);
	return ret;
}
