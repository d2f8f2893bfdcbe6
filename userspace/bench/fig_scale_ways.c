// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * Figure 5, where one context's kernel CPU per job goes: the same stream of
 * NOP jobs on one context, submitted with the uAPI directly in four ways,
 * each measured like the figure (system + irq + softirq time of the whole
 * guest over the jobs), in the same repetition as the raw path:
 *
 * - "submit_out_syncobj": one DRM_IOCTL_TERN_SUBMIT per job with an
 *   out-syncobj (what libtern did before interface 1.8);
 * - "submit": one SUBMIT per job without one (libtern's way since: the
 *   outcome is on the progress page);
 * - "submit_many_16": DRM_IOCTL_TERN_SUBMIT_MANY of 16 jobs per call, no
 *   syncobj: the per-job work without a system call each;
 * - "wait_ioctl": no job, one DRM_IOCTL_TERN_WAIT on a finished job per
 *   "job": the floor of a system call that copies a small struct in and
 *   out and looks a context up, under this machine's emulation;
 * - "raw_serial": the raw path one NOP at a time (debugfs raw_nop
 *   serial), a doorbell to an idle engine and a wait for its interrupt per
 *   job, where the figure's "raw" keeps both slots full.
 *
 * Every 64 jobs the stream waits (one WAIT) for the job 64 back, so a
 * context never fills; the device keeps up with the submissions, so those
 * waits rarely sleep.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <xf86drm.h>

#include "bench.h"
#include "tern_accel.h"

#define FIG 5
#define WINDOW 64
#define BATCH 16

static int ioctl_retry(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret == -1 && (errno == EINTR || errno == EAGAIN));
	return ret ? -errno : 0;
}

static int wait_job(int fd, uint32_t ctx, uint32_t seqno)
{
	struct drm_tern_wait w = {
		.context = ctx,
		.seqno = seqno,
		.timeout_ns = INT64_MAX,
	};
	int ret = ioctl_retry(fd, DRM_IOCTL_TERN_WAIT, &w);

	return ret ? ret : w.error;
}

/* @jobs NOPs on @ctx, @batch per call (1: SUBMIT), an out-syncobj each if @so. */
static int stream(int fd, uint32_t ctx, unsigned int jobs, unsigned int batch, uint32_t so)
{
	static const uint32_t nop = TERN_PKT_HEADER(TERN_OP_NOP, 1);
	struct drm_tern_submit sub[BATCH];
	struct drm_tern_sync out = { .handle = so };
	struct drm_tern_submit_many many = {
		.submits = (uintptr_t)sub,
		.stride = sizeof(sub[0]),
	};
	uint32_t last = 0;
	unsigned int done = 0, i, n;
	int ret = 0;

	while (done < jobs && !ret) {
		n = jobs - done < batch ? jobs - done : batch;
		memset(sub, 0, sizeof(sub));
		for (i = 0; i < n; i++) {
			sub[i].context = ctx;
			sub[i].cmdbuf = (uintptr_t)&nop;
			sub[i].cmdbuf_size = sizeof(nop);
			sub[i].out_syncs = (uintptr_t)&out;
			sub[i].out_sync_count = so ? 1 : 0;
		}
		if (n == 1) {
			ret = ioctl_retry(fd, DRM_IOCTL_TERN_SUBMIT, &sub[0]);
		} else {
			many.count = n;
			ret = ioctl_retry(fd, DRM_IOCTL_TERN_SUBMIT_MANY, &many);
			if (!ret && many.submitted != n)
				ret = many.error ? many.error : -EIO;
		}
		if (ret)
			break;
		last = sub[n - 1].seqno;
		/* a window of WINDOW jobs: wait for the one that far back */
		if ((done + n) / WINDOW != done / WINDOW && last > WINDOW)
			ret = wait_job(fd, ctx, last - WINDOW);
		done += n;
	}
	if (!ret && last)
		ret = wait_job(fd, ctx, last);
	return ret;
}

/* @calls DRM_IOCTL_TERN_WAIT on finished job @seqno. */
static int waits(int fd, uint32_t ctx, uint32_t seqno, unsigned int calls)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < calls && !ret; i++)
		ret = wait_job(fd, ctx, seqno);
	return ret;
}

static int measure(const char *series, int fd, uint32_t ctx, uint32_t so, unsigned int batch,
		   unsigned int jobs)
{
	double k0, k1;
	int ret;

	k0 = bench_kernel_cpu_s();
	ret = batch ? stream(fd, ctx, jobs, batch, so) : waits(fd, ctx, 1, jobs);
	k1 = bench_kernel_cpu_s();
	if (ret)
		return ret;
	if (k0 >= 0 && k1 >= 0)
		bench_record(FIG, "kernel_cpu_per_job", series, -1, "us", (k1 - k0) * 1e6 / jobs);
	return 0;
}

/*
 * The raw path one NOP at a time: a doorbell to an idle engine and a wait
 * for its interrupt per job, as a stream whose submitter is slower than
 * the device pays.
 */
static int raw_serial(struct bench *b, unsigned int jobs)
{
	uint64_t total, *ns = NULL;
	double k0, k1;
	int ret;

	k0 = bench_kernel_cpu_s();
	ret = bench_raw_nop(b->dev, 0, jobs, true, &ns, &total);
	k1 = bench_kernel_cpu_s();
	free(ns);
	if (ret)
		return ret;
	if (k0 >= 0 && k1 >= 0)
		bench_record(FIG, "kernel_cpu_per_job", "raw_serial", -1, "us",
			     (k1 - k0) * 1e6 / jobs);
	return 0;
}

int bench_fig_scale_ways(struct bench *b, unsigned int jobs)
{
	struct drm_tern_context_create c = { .priority = DRM_TERN_PRIORITY_NORMAL };
	struct drm_tern_context_destroy d = { 0 };
	int fd = tern_device_fd(b->dev);
	uint32_t so = 0;
	int ret;

	ret = ioctl_retry(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &c);
	if (ret)
		return ret;
	if (drmSyncobjCreate(fd, 0, &so))
		ret = -errno;
	/* the first job also makes the job the floor's WAIT asks about */
	if (!ret)
		ret = measure("submit_out_syncobj", fd, c.handle, so, 1, jobs);
	if (!ret)
		ret = measure("submit", fd, c.handle, 0, 1, jobs);
	if (!ret)
		ret = measure("submit_many_16", fd, c.handle, 0, BATCH, jobs);
	if (!ret)
		ret = measure("wait_ioctl", fd, c.handle, 0, 0, jobs);
	if (!ret)
		ret = raw_serial(b, jobs);
	if (so)
		drmSyncobjDestroy(fd, so);
	d.handle = c.handle;
	ioctl(fd, DRM_IOCTL_TERN_CONTEXT_DESTROY, &d);
	return ret;
}
