/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_PROGRESS_H__
#define __TERN_PROGRESS_H__

#include <linux/types.h>
#include <linux/wait.h>

#include <drm/tern_accel.h>

/**
 * struct tern_progress - what became of a context's jobs
 * @rec: the kernel's own record, the one every decision reads
 * @page: the kernel mapping of the progress page the process maps
 *	read-only, a copy of @rec that is only written, or NULL
 * @wq: DRM_IOCTL_TERN_WAIT sleeps here
 *
 * @rec and @page are written under the lock of the context's engine
 * scheduler only (tern_progress_finished(), tern_progress_set_state()),
 * which also serialises readers of more than @rec.completed.
 */
struct tern_progress {
	struct drm_tern_progress rec;
	struct drm_tern_progress *page;
	wait_queue_head_t wq;
};

void tern_progress_init(struct tern_progress *prog,
			struct drm_tern_progress *page);
void tern_progress_close(struct tern_progress *prog);
void tern_progress_finished(struct tern_progress *prog, u32 seqno, int error);
void tern_progress_set_state(struct tern_progress *prog, u32 state);
bool tern_progress_done(const struct tern_progress *prog, u32 seqno);
int tern_progress_outcome(const struct drm_tern_progress *rec, u32 seqno,
			  int *error);

#endif /* __TERN_PROGRESS_H__ */
