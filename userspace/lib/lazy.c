// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * lazy.c - job fences that get a syncobj only when one is asked for.
 *
 * From interface 1.8 a job of a context with a progress page is submitted
 * without an out-syncobj: whether it finished, and how, is read from the
 * page, and DRM_IOCTL_TERN_WAIT sleeps when it must.  Only a caller that
 * needs the fence as an object (tern_fence_syncobj(), a sync_file, a
 * dependency of another job or bind) makes DRM_IOCTL_TERN_JOB_FENCE put it
 * into the fence's syncobj (tern_fence_attach()).
 *
 * The page keeps the outcome of a job only until DRM_TERN_PROGRESS_KEPT
 * later jobs of its context failed, and a destroyed context's handle
 * cannot be asked any more; a syncobj keeps its fence forever.  So a lazy
 * fence is settled before either can happen to it:
 *
 * - every submission to the context holds its tern_progress's submit_lock
 *   from before the ioctl until its jobs are recorded, and one that makes
 *   lazy fences holds at most TERN_LAZY_SPAN jobs;
 * - before a submission of n jobs, every lazy fence with TERN_LAZY_SPAN or
 *   more jobs after it once they are queued is settled: a job that
 *   completed keeps its outcome in the fence (no system call), any other
 *   gets its fence put into its syncobj.  A lazy fence therefore never has
 *   TERN_LAZY_SPAN jobs after it, far fewer than can fail before its
 *   outcome is dropped;
 * - tern_context_destroy() settles every lazy fence of the context first.
 *   One the kernel could not take (out of memory) is then read from the
 *   page, which becomes final once the context's last job is gone.
 *
 * The lazy fences of a context are on a list in seqno order, in its
 * struct tern_progress, under its lock; a fence's state changes only under
 * it, after the fence left the list, and is read without it
 * (release/acquire).
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <xf86drm.h>

#include "internal.h"
#include "tern_accel.h"

_Static_assert(TERN_LAZY_SPAN < DRM_TERN_PROGRESS_KEPT, "lazy span");

static bool seqno_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

bool tern_lazy_supported(const struct tern_device *dev)
{
	return dev->info.driver_version >= (1u << 16 | 8);
}

int tern_fence_state(const struct tern_fence *f)
{
	return atomic_load_explicit(&f->state, memory_order_acquire);
}

static void set_state(struct tern_fence *f, int state)
{
	atomic_store_explicit(&f->state, state, memory_order_release);
}

/* The outcome is known and kept in the fence; its syncobj has not got it. */
static void set_known(struct tern_fence *f, int status)
{
	f->status = status;
	set_state(f, TERN_FENCE_KNOWN);
}

static void unlink_locked(struct tern_progress *prog, struct tern_fence *f)
{
	if (f->lazy_prev)
		f->lazy_prev->lazy_next = f->lazy_next;
	else
		prog->lazy_first = f->lazy_next;
	if (f->lazy_next)
		f->lazy_next->lazy_prev = f->lazy_prev;
	else
		prog->lazy_last = f->lazy_prev;
	f->lazy_prev = NULL;
	f->lazy_next = NULL;
	f->listed = false;
}

/* Append @f: submissions are one at a time, so the list stays in seqno order. */
static void append_locked(struct tern_progress *prog, struct tern_fence *f)
{
	f->lazy_prev = prog->lazy_last;
	f->lazy_next = NULL;
	if (prog->lazy_last)
		prog->lazy_last->lazy_next = f;
	else
		prog->lazy_first = f;
	prog->lazy_last = f;
	f->listed = true;
}

/* DRM_IOCTL_TERN_JOB_FENCE: the job's fence into @f's syncobj; 0 or -errno. */
static int job_fence(struct tern_fence *f)
{
	struct drm_tern_job_fence args = {
		.context = f->context,
		.seqno = f->seqno,
		.syncobj = f->syncobj,
	};
	int ret;

	do {
		ret = ioctl(f->dev->fd, DRM_IOCTL_TERN_JOB_FENCE, &args);
	} while (ret == -1 && errno == EINTR);
	return ret ? -errno : 0;
}

/*
 * Settle the lazy fence @f: keep the outcome of a job that completed, put
 * the fence of any other into the syncobj.  0, or the -errno of a job
 * whose fence could not be put there now (the fence stays lazy).  A fence
 * leaves the list before its state changes: whoever sees it settled may
 * free it.
 */
static int settle_locked(struct tern_progress *prog, struct tern_fence *f)
{
	int ret, page, status;

	page = tern_progress_outcome(prog, f->seqno, &status);
	if (!page && !status) {
		unlink_locked(prog, f);
		set_known(f, 0);
		return 0;
	}
	/* its handle may name another context now: only the page can tell */
	if (atomic_load(&prog->destroyed)) {
		if (page)
			return -ENOENT;
		unlink_locked(prog, f);
		set_known(f, status);
		return 0;
	}
	/* not finished, or failed: the syncobj keeps the error too */
	ret = job_fence(f);
	if (!ret) {
		unlink_locked(prog, f);
		set_state(f, TERN_FENCE_ATTACHED);
		return 0;
	}
	/*
	 * For good (the device or the context is gone; -EINVAL: a handle
	 * the kernel does not know as the library's): what is known.
	 */
	if (ret == -ENODEV || ret == -ENOENT || ret == -ENODATA || ret == -EINVAL) {
		unlink_locked(prog, f);
		set_known(f, page ? ret : status);
		return 0;
	}
	return ret;
}

static int settle_error(const struct tern_fence *f, int err, const char *what)
{
	return tern_seterr(err, "%s: cannot put the fence of job %u into its syncobj: %s",
			   what, f->seqno, strerror(-err));
}

int tern_lazy_submit_begin(struct tern_progress *prog, unsigned int jobs)
{
	struct tern_fence *f;
	uint32_t bound;
	int ret = 0;

	if (!prog || !prog->lazy)
		return 0;
	pthread_mutex_lock(&prog->submit_lock);
	/* the newest job once this submission's are queued */
	bound = prog->last_seqno + jobs;
	pthread_mutex_lock(&prog->lock);
	while ((f = prog->lazy_first) && (int32_t)(bound - f->seqno) >= TERN_LAZY_SPAN) {
		ret = settle_locked(prog, f);
		if (ret) {
			ret = settle_error(f, ret, "submit");
			break;
		}
	}
	pthread_mutex_unlock(&prog->lock);
	if (ret)
		pthread_mutex_unlock(&prog->submit_lock);
	return ret;
}

void tern_lazy_submitted(struct tern_progress *prog, uint32_t seqno, struct tern_fence *f)
{
	if (!prog || !prog->lazy)
		return;
	if (seqno_after(seqno, prog->last_seqno))
		prog->last_seqno = seqno;
	if (f) {
		pthread_mutex_lock(&prog->lock);
		append_locked(prog, f);
		set_state(f, TERN_FENCE_LAZY);
		pthread_mutex_unlock(&prog->lock);
	}
}

void tern_lazy_submit_end(struct tern_progress *prog)
{
	if (prog && prog->lazy)
		pthread_mutex_unlock(&prog->submit_lock);
}

void tern_lazy_context_destroy(struct tern_progress *prog)
{
	struct tern_fence *f, *next;

	if (!prog)
		return;
	pthread_mutex_lock(&prog->submit_lock);
	pthread_mutex_lock(&prog->lock);
	/*
	 * One the kernel cannot take now (out of memory) stays lazy: the
	 * page, final once the context's last job is gone, tells its
	 * outcome (tern_fence_outcome()).
	 */
	for (f = prog->lazy_first; f; f = next) {
		next = f->lazy_next;
		settle_locked(prog, f);
	}
	tern_progress_destroyed(prog);
	pthread_mutex_unlock(&prog->lock);
	pthread_mutex_unlock(&prog->submit_lock);
}

void tern_lazy_forget(struct tern_fence *f)
{
	struct tern_progress *prog = f->progress;

	if (!prog || !prog->lazy)
		return;
	/* a settling in another thread may still be unlinking it */
	pthread_mutex_lock(&prog->lock);
	if (f->listed)
		unlink_locked(prog, f);
	pthread_mutex_unlock(&prog->lock);
}

int tern_fence_attach(struct tern_fence *f, const char *what)
{
	struct tern_progress *prog = f->progress;
	int ret = 0;

	if (tern_fence_state(f) == TERN_FENCE_ATTACHED)
		return 0;
	pthread_mutex_lock(&prog->lock);
	if (f->listed)
		ret = settle_locked(prog, f);
	/* it completed, or the device is gone */
	if (!ret && tern_fence_state(f) == TERN_FENCE_KNOWN) {
		if (f->status)
			ret = f->status;	/* no syncobj changes any more */
		else if (drmSyncobjSignal(f->dev->fd, &f->syncobj, 1))
			ret = -errno;
		else	/* a signalled fence says the same */
			set_state(f, TERN_FENCE_ATTACHED);
	}
	pthread_mutex_unlock(&prog->lock);
	if (ret)
		return settle_error(f, ret, what);
	return 0;
}
