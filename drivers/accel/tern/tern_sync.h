/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_SYNC_H__
#define __TERN_SYNC_H__

#include <linux/types.h>

struct dma_fence;
struct dma_fence_chain;
struct drm_file;
struct drm_syncobj;

/* syncs an ioctl keeps on its stack; more are allocated */
#define TERN_SYNC_INLINE	4

/**
 * struct tern_out_sync - an out-syncobj, looked up before anything is
 *	queued, so that installing the fence cannot fail
 * @syncobj: the syncobj (a reference)
 * @chain: preallocated chain node for a timeline point, else NULL
 * @point: the timeline point, 0 for binary
 */
struct tern_out_sync {
	struct drm_syncobj *syncobj;
	struct dma_fence_chain *chain;
	u64 point;
};

int tern_sync_in_fences(struct drm_file *file, u64 uptr, u32 count,
			struct dma_fence **fences, u32 *nr, bool *signalled);
int tern_sync_fences_error(struct dma_fence **fences, u32 count);
int tern_sync_out_init(struct drm_file *file, u32 handle, u64 point,
		       struct tern_out_sync *out);
struct tern_out_sync *tern_sync_out_get(struct drm_file *file, u64 uptr,
					u32 count, struct tern_out_sync *small);
void tern_sync_out_signal(struct tern_out_sync *out, u32 count,
			  struct dma_fence *fence);
void tern_sync_out_free(struct tern_out_sync *out, u32 count,
			struct tern_out_sync *small);

#endif /* __TERN_SYNC_H__ */
