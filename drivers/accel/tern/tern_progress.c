// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "tern_progress.h"

/**
 * DOC: progress
 *
 * Every context keeps a record of what became of its jobs: the seqno of the
 * last one that finished, and the errors of the last
 * %DRM_TERN_PROGRESS_KEPT that failed (struct drm_tern_progress).  The
 * scheduler writes it right after each job's fence signalled, under its
 * lock, and the context's fences signal in seqno order, so the record says
 * for every job whether it finished and how, long after its fence is gone.
 * DRM_IOCTL_TERN_WAIT reads it and sleeps on it.
 *
 * A context created with %DRM_TERN_CONTEXT_CREATE_PROGRESS also has a
 * progress page (tern_context.c makes it: a kernel-owned GEM object its
 * file may map read-only).  Every change of the record is written to the
 * page as well, in the order the uAPI documents, so that a process can tell
 * a job finished without a system call.  Nothing reads the page back.
 */

static bool tern_seqno_after(u32 a, u32 b)
{
	return (s32)(a - b) > 0;
}

/**
 * tern_progress_init() - set up a context's progress record
 * @prog: the record
 * @page: the kernel mapping of the context's progress page
 *	(%DRM_TERN_PROGRESS_SIZE bytes), or NULL
 */
void tern_progress_init(struct tern_progress *prog,
			struct drm_tern_progress *page)
{
	memset(&prog->rec, 0, sizeof(prog->rec));
	prog->page = page;
	if (page)
		memset(page, 0, DRM_TERN_PROGRESS_SIZE);
	init_waitqueue_head(&prog->wq);
}

/**
 * tern_progress_close() - the context is gone: no job of it is left
 * @prog: the record
 *
 * The page says %DRM_TERN_PROGRESS_CLOSED and is not written any more; the
 * caller may release it.
 */
void tern_progress_close(struct tern_progress *prog)
{
	if (prog->page) {
		/* after every write of the page: a reader that sees it sees them */
		smp_store_release(&prog->page->flags, DRM_TERN_PROGRESS_CLOSED);
	}
	prog->page = NULL;
}

/**
 * tern_progress_finished() - a job's fence signalled
 * @prog: its context's record
 * @seqno: the job
 * @error: the fence's error, or 0
 *
 * Called under the scheduler's lock, after the fence signalled, in the
 * context's seqno order, in any context: it only writes memory and wakes
 * DRM_IOCTL_TERN_WAIT.
 */
void tern_progress_finished(struct tern_progress *prog, u32 seqno, int error)
{
	struct drm_tern_progress *rec = &prog->rec;
	struct drm_tern_progress *page = prog->page;

	if (WARN_ONCE(!tern_seqno_after(seqno, rec->completed),
		      "job %u finished after job %u (error %d)\n", seqno,
		      rec->completed, error))
		return;
	if (error) {
		u32 i = rec->error_count % DRM_TERN_PROGRESS_ERRORS;

		/*
		 * The count that retires the failure this slot held reached
		 * the page before the slot changes: a reader that sees the
		 * old count knows the oldest slot is not to be read.
		 */
		smp_wmb();
		rec->errors[i].seqno = seqno;
		rec->errors[i].error = error;
		/* the entry before the count that covers it */
		smp_store_release(&rec->error_count, rec->error_count + 1);
		if (page) {
			WRITE_ONCE(page->errors[i].seqno, seqno);
			WRITE_ONCE(page->errors[i].error, error);
			/* pairs with the reader's acquire of the count */
			smp_store_release(&page->error_count, rec->error_count);
		}
	}
	/*
	 * The errors before the seqno that covers them; pairs with the
	 * acquire of tern_progress_done() and of the page's reader.
	 */
	smp_store_release(&rec->completed, seqno);
	if (page) {
		/* the same for the page: pairs with its reader's acquire */
		smp_store_release(&page->completed, seqno);
	}
	if (wq_has_sleeper(&prog->wq))
		wake_up_all(&prog->wq);
}

/**
 * tern_progress_set_state() - the context changed state
 * @prog: its record
 * @state: enum drm_tern_context_state
 *
 * Called under the scheduler's lock.
 */
void tern_progress_set_state(struct tern_progress *prog, u32 state)
{
	WRITE_ONCE(prog->rec.state, state);
	if (prog->page)
		WRITE_ONCE(prog->page->state, state);
}

/**
 * tern_progress_done() - has a job finished?
 * @prog: its context's record
 * @seqno: the job
 *
 * Lockless: once true, stays true.
 *
 * Return: true if the job's fence signalled.
 */
bool tern_progress_done(const struct tern_progress *prog, u32 seqno)
{
	/* pairs with the release in tern_progress_finished() */
	return !tern_seqno_after(seqno, smp_load_acquire(&prog->rec.completed));
}

/**
 * tern_progress_outcome() - how a job finished
 * @rec: a progress record that does not change while this runs
 * @seqno: the job
 * @error: out: 0 if it completed, else the negative errno of its fence
 *
 * The reading rule of "DOC: tern progress pages" in the uAPI.
 *
 * Return: 0 with @error set; -EBUSY the job has not finished; -ENODATA it
 * finished but its outcome left the window of kept errors.
 */
int tern_progress_outcome(const struct drm_tern_progress *rec, u32 seqno,
			  int *error)
{
	u32 n = rec->error_count;
	u32 kept = min(n, DRM_TERN_PROGRESS_KEPT);
	u32 k;

	*error = 0;
	if (tern_seqno_after(seqno, rec->completed))
		return -EBUSY;
	for (k = 1; k <= kept; k++) {
		const struct drm_tern_progress_error *e =
			&rec->errors[(n - k) % DRM_TERN_PROGRESS_ERRORS];

		if (e->seqno == seqno) {
			*error = e->error;
			return 0;
		}
		/* newest first: past the job, nothing older can be it */
		if (tern_seqno_after(seqno, e->seqno))
			return 0;
	}
	/* older than every kept failure: gone if failures were dropped */
	return n > DRM_TERN_PROGRESS_KEPT ? -ENODATA : 0;
}
