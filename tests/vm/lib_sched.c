// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_sched: the scheduling parameters of libtern reach the driver's
 * scheduler and its counters come back: a high-priority job preempts a long
 * low-priority one on the same engine, which then resumes and counts the
 * preemption in tern_context_status(); two normal-priority contexts of
 * weights 3 and 1 with work waiting share their engine about 3:1 by device
 * time.
 *
 * tern-vm: timeout=120
 */
#include <stdint.h>
#include <time.h>
#include <tern/tern.h>

#include "tern_test.h"

#define SEC		1000000000ll
/* long enough that a quantum's worth of either context is a small error */
/*
 * Jobs long against drm_sched's hand-over of a ready job to the scheduler
 * (about 1 ms under emulation, several on the debug kernel): the queues
 * fill faster than the engine drains them, so both contexts stay
 * backlogged and the share is the policy's, not the hand-over order's.
 */
#define SHARE_JOBS	20
#define SHARE_JOB_US	20000

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

/* A context of @p on engine @engine (tern_context_create_on()), or NULL. */
static struct tern_context *context_on(struct tern_device *dev,
				       const struct tern_context_params *p, uint32_t engine)
{
	struct tern_context *ctx;

	if (tern_context_create_on(dev, p, engine, &ctx))
		return NULL;
	if (tern_context_engine(ctx) != engine) {
		tern_context_destroy(ctx);
		return NULL;
	}
	return ctx;
}

static void preemption(struct tern_device *dev)
{
	struct tern_context_params lowp = { .priority = TERN_PRIORITY_LOW };
	struct tern_context_params highp = { .priority = TERN_PRIORITY_HIGH };
	struct tern_context *lo, *hi = NULL;
	struct tern_fence *flo = NULL, *fhi = NULL;
	struct tern_context_status slo, shi;
	struct tern_cmdbuf *cl, *ch;
	volatile uint64_t *ts;
	struct tern_bo *bo;
	int64_t t0;
	int ret;

	if (tern_context_create(dev, &lowp, &lo) || tern_bo_alloc(dev, 4096, 0, &bo) ||
	    tern_cmdbuf_create(0, &cl) || tern_cmdbuf_create(0, &ch)) {
		tap_ok(false, "set-up: %s", tern_last_error());
		return;
	}
	hi = context_on(dev, &highp, tern_context_engine(lo));
	tap_ok(hi != NULL, "a low- and a high-priority context on engine %u",
	       tern_context_engine(lo));
	if (!hi)
		return;
	ts = tern_bo_map(bo);
	/* low: stamp, 300 ms of SPIN (preemptible every 10 us), stamp */
	tern_cmd_timestamp(cl, tern_bo_va(bo));
	tern_cmd_spin(cl, 300000);
	tern_cmd_timestamp(cl, tern_bo_va(bo) + 8);
	/*
	 * high: 30 ms, so that the pause it makes in the low job stands out
	 * from the few ms a loaded host adds to a run's start and end
	 */
	tern_cmd_timestamp(ch, tern_bo_va(bo) + 16);
	tern_cmd_spin(ch, 30000);
	tern_cmd_timestamp(ch, tern_bo_va(bo) + 24);
	ret = tern_submit(lo, cl, NULL, 0, &flo);
	tap_ok(ret == 0, "the long low-priority job is queued");
	if (ret)
		return;
	t0 = now_ns();
	while (!ts[0] && now_ns() - t0 < 20 * SEC)
		usleep(200);
	tap_ok(ts[0] != 0, "it started");
	ret = tern_submit(hi, ch, NULL, 0, &fhi);
	tap_ok(ret == 0 && tern_fence_wait(fhi, 20 * SEC) == 0, "the high-priority job ran");
	tap_ok(tern_fence_status(flo) == -EBUSY && ts[3] && !ts[1] && ts[2] > ts[0],
	       "while the low-priority job had not finished (the high one ran from %.3f to "
	       "%.3f ms into it)",
	       ts[2] > ts[0] ? (ts[2] - ts[0]) / 1e6 : -1.0,
	       ts[3] > ts[0] ? (ts[3] - ts[0]) / 1e6 : -1.0);
	tap_ok(tern_fence_wait(flo, 60 * SEC) == 0 && ts[1] > ts[3],
	       "the low-priority job resumed and completed after it");
	ret = tern_context_status(lo, &slo) || tern_context_status(hi, &shi);
	tap_ok(!ret && slo.preemptions >= 1 && slo.jobs_completed == 1,
	       "the low context counts %llu preemption(s)", (unsigned long long)slo.preemptions);
	tap_ok(!ret && shi.preemptions == 0, "the high context none (%llu)",
	       (unsigned long long)shi.preemptions);
	tap_ok(!ret && slo.busy_ns >= 250000000ull &&
	       slo.busy_ns < (ts[1] - ts[0]) - (ts[3] - ts[2]) / 2,
	       "the low job's device time (%.1f ms) is its SPIN, less than its span "
	       "(%.1f ms) less half the high job's (%.1f ms): the pause is not charged",
	       slo.busy_ns / 1e6, (ts[1] - ts[0]) / 1e6, (ts[3] - ts[2]) / 1e6);
	tern_fence_free(fhi);
	tern_fence_free(flo);
	tern_cmdbuf_free(ch);
	tern_cmdbuf_free(cl);
	tern_bo_free(bo);
	tern_context_destroy(hi);
	tern_context_destroy(lo);
}

static void weights(struct tern_device *dev)
{
	struct tern_context_params heavyp = { .weight = 3 }, lightp = { .weight = 1 };
	struct tern_context_params copyp = { .engine_class = TERN_ENGINE_COPY };
	struct tern_fence *fh[SHARE_JOBS] = { NULL }, *fl[SHARE_JOBS] = { NULL };
	struct tern_context *heavy, *light, *gatectx;
	struct tern_timeline_point gate;
	struct tern_context_status sh, sl;
	struct tern_cmdbuf *cb, *gatecb;
	struct tern_deps d = { 0 };
	struct tern_timeline *tl;
	volatile uint32_t *w;
	unsigned int i, n = SHARE_JOBS;
	struct tern_bo *bo;
	double ratio;
	int ret = 0;

	if (tern_context_create(dev, &heavyp, &heavy) || tern_context_create(dev, &copyp, &gatectx) ||
	    tern_timeline_create(dev, &tl) || tern_bo_alloc(dev, 4096, 0, &bo) ||
	    tern_cmdbuf_create(0, &cb) || tern_cmd_spin(cb, SHARE_JOB_US) ||
	    tern_cmdbuf_create(0, &gatecb) ||
	    tern_cmd_wait_mem(gatecb, tern_bo_va(bo), 1, 10000000)) {
		tap_ok(false, "set-up: %s", tern_last_error());
		return;
	}
	light = context_on(dev, &lightp, tern_context_engine(heavy));
	tap_ok(light != NULL, "contexts of weight 3 and 1 on engine %u",
	       tern_context_engine(heavy));
	if (!light)
		return;
	w = tern_bo_map(bo);
	if (n > tern_device_info(dev)->max_jobs_per_context)
		n = tern_device_info(dev)->max_jobs_per_context;
	/*
	 * Every job waits for point 1, which a copy-engine job signals once the
	 * CPU lets it: both contexts' queues are full when the engine starts.
	 */
	gate.timeline = tl;
	gate.point = 1;
	d.signals = &gate;
	d.signal_count = 1;
	ret = tern_submit_deps(gatectx, gatecb, &d, NULL);
	memset(&d, 0, sizeof(d));
	d.waits = &gate;
	d.wait_count = 1;
	for (i = 0; !ret && i < n; i++) {
		ret = tern_submit_deps(heavy, cb, &d, &fh[i]);
		if (!ret)
			ret = tern_submit_deps(light, cb, &d, &fl[i]);
	}
	tap_ok(ret == 0, "%u jobs of %u us on each, held by a timeline point: %s", n,
	       SHARE_JOB_US, ret ? tern_last_error() : "queued");
	w[0] = 1;
	ret = ret ? ret : tern_fence_wait(fh[n - 1], 60 * SEC);
	if (!ret)
		ret = tern_context_status(heavy, &sh) || tern_context_status(light, &sl);
	ratio = !ret && sl.busy_ns ? (double)sh.busy_ns / (double)sl.busy_ns : 0.0;
	tap_ok(!ret && ratio >= 2.0 && ratio <= 4.5,
	       "when the weight-3 context is done it had %.1f ms of device time, the "
	       "weight-1 one %.1f ms: ratio %.2f (3 wanted)", ret ? 0 : sh.busy_ns / 1e6,
	       ret ? 0 : sl.busy_ns / 1e6, ratio);
	tap_ok(!ret && tern_fence_wait_all(fl, n, 60 * SEC) == 0,
	       "then the weight-1 context finishes");
	for (i = 0; i < n; i++) {
		tern_fence_free(fh[i]);
		tern_fence_free(fl[i]);
	}
	tern_timeline_free(tl);
	tern_cmdbuf_free(gatecb);
	tern_cmdbuf_free(cb);
	tern_bo_free(bo);
	tern_context_destroy(gatectx);
	tern_context_destroy(light);
	tern_context_destroy(heavy);
}

int main(void)
{
	struct tern_device *dev;

	if (tern_device_open(0, &dev)) {
		tap_ok(false, "open: %s", tern_last_error());
		return tap_exit_status();
	}
	preemption(dev);
	weights(dev);
	tern_device_close(dev);
	tap_done();
	return tap_exit_status();
}
