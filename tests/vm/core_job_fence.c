// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_job_fence: DRM_IOCTL_TERN_JOB_FENCE gives a syncobj the fence of a
 * job submitted without one.  A job still queued or running gives its own
 * fence, which signals when the job does, with its error; one that waits
 * for an in-fence in drm_sched gives drm_sched's; a finished job gives a
 * signalled fence with its outcome, while the progress record keeps it
 * (-ENODATA after).  Timeline points work; bad input is refused and
 * changes nothing.  Races: the fence of the newest job asked for while
 * jobs complete and are released by other submissions (every answer is
 * 0 and every fence completes), and asked for while the context is
 * destroyed (0 or ENOENT, and every fence given signals).
 *
 * tern-vm: timeout=180
 */
#include <pthread.h>
#include <stdatomic.h>

#include "core_test.h"

#define VA_GATE		0x100000ull
#define VA_NOWHERE	0x7000000ull	/* never mapped: a write there faults */
#define RACE_NS		3000000000ll
#define RACE_SYNCOBJS	64

static int job_fence(int fd, uint32_t ctx, uint32_t seqno, uint32_t so, uint64_t point,
		     uint32_t flags)
{
	struct drm_tern_job_fence jf = {
		.context = ctx,
		.seqno = seqno,
		.syncobj = so,
		.flags = flags,
		.point = point,
	};

	return ioctl(fd, DRM_IOCTL_TERN_JOB_FENCE, &jf) ? -errno : 0;
}

static uint32_t nop(int fd, uint32_t ctx, uint32_t in_sync)
{
	const uint32_t dw = TERN_PKT_HEADER(TERN_OP_NOP, 1);
	struct drm_tern_submit s;

	if (submit(fd, ctx, &dw, 1, NULL, 0, in_sync, 0, &s))
		return 0;
	return s.seqno;
}

static uint32_t faulting(int fd, uint32_t ctx)
{
	struct drm_tern_submit s;
	uint32_t dw[8], n = 0;

	pkt_write_imm(dw, &n, VA_NOWHERE, 1);
	if (submit(fd, ctx, dw, n, NULL, 0, 0, 0, &s))
		return 0;
	return s.seqno;
}

static void check_bad_input(int fd, uint32_t ctx, uint32_t last)
{
	uint32_t so = syncobj_new(fd);

	tap_errno(job_fence(fd, ctx, last, so, 0, 1), -EINVAL, "JOB_FENCE with flags");
	tap_errno(job_fence(fd, ctx, 0, so, 0, 0), -EINVAL, "JOB_FENCE for seqno 0");
	tap_errno(job_fence(fd, ctx, last + 1, so, 0, 0), -EINVAL,
		  "JOB_FENCE for a job not submitted yet");
	tap_errno(job_fence(fd, 0xdead, 1, so, 0, 0), -ENOENT,
		  "JOB_FENCE on a context that does not exist");
	tap_errno(job_fence(fd, ctx, last, 0xdead, 0, 0), -ENOENT,
		  "JOB_FENCE into a syncobj that does not exist");
	tap_errno(job_fence(fd, ctx, last - 0x80000000u, so, 0, 0), -EINVAL,
		  "JOB_FENCE for a seqno 2^31 back, never submitted");
	tap_errno(job_wait(fd, ctx, last - 0x7fffffffu, 0, NULL), -EINVAL,
		  "WAIT for one 2^31 - 1 back, never submitted either");
	tap_errno(drmSyncobjWait(fd, &so, 1, 0, 0, NULL), -EINVAL,
		  "the refused calls left the syncobj without a fence");
	drmSyncobjDestroy(fd, so);
}

/* Finished jobs: a signalled fence with the outcome, for a binary syncobj and a point. */
static void check_finished(int fd, uint32_t ctx)
{
	uint32_t so = syncobj_new(fd), tl = 0, fctx, good, bad;
	uint64_t point = 5;
	int error = 1;

	/* a fault leaves its context faulted: one of its own */
	if (ctx_create(fd, 1, 0, 0, &fctx)) {
		tap_ok(false, "a context to fault");
		return;
	}
	good = nop(fd, ctx, 0);
	bad = faulting(fd, fctx);
	tap_ok(good && bad && !job_wait(fd, ctx, good, 10000, NULL) &&
	       !job_wait(fd, fctx, bad, 10000, &error) && error == -EIO,
	       "a NOP and a faulting job finished (%d)", error);
	tap_ok(!job_fence(fd, ctx, good, so, 0, 0) && core_fence_status(fd, so) == 1,
	       "a completed job's fence is signalled without an error");
	tap_ok(!job_fence(fd, fctx, bad, so, 0, 0) && core_fence_status(fd, so) == -EIO,
	       "a faulted job's fence is signalled with -EIO (it replaced the last one)");
	drmSyncobjCreate(fd, 0, &tl);
	tap_ok(!job_fence(fd, fctx, bad, tl, point, 0) &&
	       !drmSyncobjTimelineWait(fd, &tl, &point, 1, now_ns() + 1000000000ll, 0,
				       NULL),
	       "a timeline point gets the fence");
	ctx_destroy(fd, fctx);
	drmSyncobjDestroy(fd, tl);
	drmSyncobjDestroy(fd, so);
}

/*
 * Unfinished jobs: queued behind a gate, waiting for it in drm_sched, and
 * a faulting job queued behind a long one: their own fences, signalled later.
 */
static void check_unfinished(int fd, uint32_t ctx)
{
	uint32_t so_run = syncobj_new(fd), so_fault = syncobj_new(fd);
	uint32_t so_dep = syncobj_new(fd), gate_so = syncobj_new(fd);
	uint32_t bo, other, fctx, run, bad, dep, dw[4], n = 0;
	struct core_gate gate;
	void *mem;

	if (core_bo(fd, 4096, VA_GATE, &bo, &mem) ||
	    core_gate_init(&gate, fd, ctx, bo, VA_GATE, mem, gate_so) ||
	    ctx_create(fd, 1, 0, 0, &other) || ctx_create(fd, 1, 0, 0, &fctx)) {
		tap_ok(false, "a gated context");
		return;
	}
	run = nop(fd, ctx, 0);
	/* on another context, waiting in drm_sched for the gate */
	dep = nop(fd, other, gate_so);
	pkt_spin(dw, &n, 100000);
	bad = submit(fd, fctx, dw, n, NULL, 0, 0, 0, NULL) ? 0 : faulting(fd, fctx);
	tap_ok(run && bad && dep && !job_fence(fd, ctx, run, so_run, 0, 0) &&
	       !job_fence(fd, fctx, bad, so_fault, 0, 0) &&
	       !job_fence(fd, other, dep, so_dep, 0, 0),
	       "JOB_FENCE on jobs queued behind a gate or a long job, and on one "
	       "waiting for the gate");
	core_gate_hold(&gate);
	tap_ok(syncobj_wait(fd, so_run, 100) == -ETIME &&
	       syncobj_wait(fd, so_dep, 0) == -ETIME,
	       "their fences have not signalled while the gate holds");
	core_gate_open(&gate);
	tap_ok(!syncobj_wait(fd, so_run, 10000) && core_fence_status(fd, so_run) == 1,
	       "the queued job's fence signals once it ran, without an error");
	tap_ok(!syncobj_wait(fd, so_fault, 10000) && core_fence_status(fd, so_fault) == -EIO,
	       "the faulting job's fence signals with -EIO");
	tap_ok(!syncobj_wait(fd, so_dep, 10000) && core_fence_status(fd, so_dep) == 1,
	       "the job that waited for an in-fence: drm_sched's fence signals");
	ctx_destroy(fd, other);
	ctx_destroy(fd, fctx);
	drmSyncobjDestroy(fd, so_run);
	drmSyncobjDestroy(fd, so_fault);
	drmSyncobjDestroy(fd, so_dep);
	drmSyncobjDestroy(fd, gate_so);
	bo_close(fd, bo);
}

/* A context of its own with a job that faulted: a syncobj failed -EIO. */
static uint32_t failed_syncobj(int fd)
{
	struct drm_tern_submit s;
	uint32_t dw[8], n = 0, so = syncobj_new(fd), ctx;

	if (ctx_create(fd, 1, 0, 0, &ctx))
		return 0;
	pkt_write_imm(dw, &n, VA_NOWHERE, 1);
	if (submit(fd, ctx, dw, n, NULL, 0, 0, so, &s) || syncobj_wait(fd, so, 10000))
		return 0;
	ctx_destroy(fd, ctx);
	return so;
}

/*
 * Release the finished jobs of @fd's contexts: until then JOB_FENCE finds
 * a job's own fence.  A submission releases them; the free work after 2 ms
 * releases those that finish after it.
 */
static void release_finished(int fd)
{
	uint32_t ctx;

	if (ctx_create(fd, 1, 0, 0, &ctx))
		return;
	core_run(fd, ctx, (const uint32_t[]){ TERN_PKT_HEADER(TERN_OP_NOP, 1) }, 1);
	nop(fd, ctx, 0);
	usleep(20000);
	ctx_destroy(fd, ctx);
}

/* Past DRM_TERN_PROGRESS_KEPT later failures, the outcome is forgotten. */
static void check_forgotten(int fd, uint32_t ctx)
{
	uint32_t bad_so = failed_syncobj(fd), so = syncobj_new(fd);
	uint32_t first, last = 0, i;
	bool all = bad_so != 0;
	int error = 0;

	first = nop(fd, ctx, 0);
	for (i = 0; i <= DRM_TERN_PROGRESS_KEPT; i++) {
		last = nop(fd, ctx, bad_so);
		all &= last != 0;
	}
	tap_ok(all && first && !job_wait(fd, ctx, last, 10000, &error) && error == -EIO,
	       "a job, then %u that failed on their in-fence", DRM_TERN_PROGRESS_KEPT + 1);
	release_finished(fd);
	tap_ok(!job_fence(fd, ctx, first + 2, so, 0, 0) && core_fence_status(fd, so) == -EIO,
	       "the oldest failure kept still gives its -EIO");
	tap_errno(job_fence(fd, ctx, first + 1, so, 0, 0), -ENODATA,
		  "the failure before it is forgotten: -ENODATA");
	tap_errno(job_fence(fd, ctx, first, so, 0, 0), -ENODATA,
		  "and so is the completed job before that");
	tap_ok(core_fence_status(fd, so) == -EIO, "and the syncobj is unchanged");
	drmSyncobjDestroy(fd, so);
	drmSyncobjDestroy(fd, bad_so);
}

struct race {
	int fd;
	uint32_t ctx;
	atomic_uint newest;
	atomic_bool stop;
	unsigned int submitted, asked, refused;
	int bad;
};

/* Submit NOPs as fast as the context takes them. */
static void *race_submit(void *arg)
{
	struct race *r = arg;
	int64_t end = now_ns() + RACE_NS;

	while (now_ns() < end) {
		uint32_t seq = nop(r->fd, r->ctx, 0);

		if (seq) {
			atomic_store(&r->newest, seq);
			r->submitted++;
		} else {
			usleep(50);
		}
	}
	atomic_store(&r->stop, true);
	return NULL;
}

/* Ask for the newest job's fence, the one completing and being released. */
static void check_race_complete(int fd)
{
	uint32_t so[RACE_SYNCOBJS], ctx2, i = 0, done = 0;
	struct race r = { .fd = fd };
	pthread_t t;
	bool all;

	if (ctx_create(fd, 1, 0, 0, &r.ctx) || ctx_create(fd, 1, 0, 0, &ctx2)) {
		tap_ok(false, "contexts for the race");
		return;
	}
	for (i = 0; i < RACE_SYNCOBJS; i++)
		so[i] = syncobj_new(fd);
	pthread_create(&t, NULL, race_submit, &r);
	i = 0;
	while (!atomic_load(&r.stop)) {
		uint32_t seq = atomic_load(&r.newest);
		int ret;

		if (!seq)
			continue;
		ret = job_fence(fd, r.ctx, seq, so[i % RACE_SYNCOBJS], 0, 0);
		if (ret) {
			r.bad++;
			tap_diag("JOB_FENCE for job %u: %s", seq, strerror(-ret));
		}
		r.asked++;
		/* and a submission on another context releases finished jobs */
		if (!(i % 8))
			nop(fd, ctx2, 0);
		if (!(++i % RACE_SYNCOBJS)) {
			all = true;
			for (uint32_t k = 0; k < RACE_SYNCOBJS; k++)
				all &= !syncobj_wait(fd, so[k], 10000) &&
				       core_fence_status(fd, so[k]) == 1;
			done += all;
			r.bad += !all;
		}
	}
	pthread_join(t, NULL);
	tap_diag("%u jobs submitted, %u fences asked for, %u rounds checked", r.submitted,
		 r.asked, done);
	tap_ok(!r.bad && r.asked > 1000,
	       "the fence of the newest job, asked for while jobs complete and are "
	       "released: always given, always completes (%u asked)", r.asked);
	for (i = 0; i < RACE_SYNCOBJS; i++)
		drmSyncobjDestroy(fd, so[i]);
	ctx_destroy(fd, r.ctx);
	ctx_destroy(fd, ctx2);
}

struct destroyer {
	int fd;
	uint32_t ctx;
	unsigned int delay_us;
	atomic_bool go;
};

static void *destroy_soon(void *arg)
{
	struct destroyer *d = arg;

	while (!atomic_load(&d->go))
		;
	if (d->delay_us)
		usleep(d->delay_us);
	ctx_destroy(d->fd, d->ctx);
	return NULL;
}

/* Ask for fences while the context is destroyed: 0 or ENOENT; all given signal. */
static void check_race_destroy(int fd)
{
	unsigned int rounds, given = 0, absent = 0, bad = 0;
	uint32_t dw[4], n = 0;

	pkt_spin(dw, &n, 50);
	for (rounds = 0; rounds < 40; rounds++) {
		struct destroyer d = { .fd = fd };
		uint32_t so[32], last = 0, i;
		pthread_t t;

		if (ctx_create(fd, 1, 0, 0, &d.ctx)) {
			bad++;
			break;
		}
		for (i = 0; i < 32; i++) {
			struct drm_tern_submit s;

			so[i] = syncobj_new(fd);
			if (!submit(fd, d.ctx, dw, n, NULL, 0, 0, 0, &s))
				last = s.seqno;
		}
		d.delay_us = rounds * 20;
		pthread_create(&t, NULL, destroy_soon, &d);
		atomic_store(&d.go, true);
		for (i = 0; i < 32; i++) {
			int ret = job_fence(fd, d.ctx, last - 31 + i, so[i], 0, 0);

			if (!ret) {
				int st;

				given++;
				st = !syncobj_wait(fd, so[i], 10000) ?
					core_fence_status(fd, so[i]) : -1000;
				if (st != 1 && st != -ECANCELED) {
					bad++;
					tap_diag("job %u: fence status %d", last - 31 + i, st);
				}
			} else if (ret == -ENOENT) {
				absent++;
			} else {
				bad++;
				tap_diag("JOB_FENCE during destruction: %s", strerror(-ret));
			}
		}
		pthread_join(t, NULL);
		for (i = 0; i < 32; i++)
			drmSyncobjDestroy(fd, so[i]);
	}
	tap_diag("%u fences given, %u refused with ENOENT", given, absent);
	tap_ok(!bad && given,
	       "JOB_FENCE while its context is destroyed: a fence that completes or is "
	       "cancelled, or ENOENT");
}

int main(void)
{
	struct drm_tern_get_info info;
	uint32_t ctx, last = 0, i;
	int fd;

	tap_plan(28);
	fd = tern_test_open();
	if (fd < 0 || core_get_info(fd, &info))
		info.driver_version = 0;
	if (!tap_ok(info.driver_version >= (1u << 16 | 8), "interface 1.8 (%u.%u)",
		    info.driver_version >> 16, info.driver_version & 0xffff))
		return tap_exit_status();
	if (!tap_ok(!ctx_create(fd, 1, 0, 0, &ctx), "a context"))
		return tap_exit_status();
	for (i = 0; i < 4; i++)
		last = nop(fd, ctx, 0);
	check_bad_input(fd, ctx, last);
	check_finished(fd, ctx);
	check_unfinished(fd, ctx);
	check_forgotten(fd, ctx);
	tap_ok(!ctx_destroy(fd, ctx), "the context is destroyed");
	{
		uint32_t so = syncobj_new(fd);

		tap_errno(job_fence(fd, ctx, 1, so, 0, 0), -ENOENT,
			  "JOB_FENCE on the destroyed context");
		drmSyncobjDestroy(fd, so);
	}
	check_race_complete(fd);
	check_race_destroy(fd);
	close(fd);
	return tap_exit_status();
}
