// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/dma-fence-chain.h>
#include <linux/dma-fence-unwrap.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_file.h>
#include <drm/drm_syncobj.h>

#include <drm/tern_accel.h>

#include "tern_sync.h"

/*
 * DOC: syncobjs of the ioctls
 *
 * DRM_IOCTL_TERN_SUBMIT and DRM_IOCTL_TERN_VM_BIND_OPS take arrays of
 * struct drm_tern_sync: in-syncs, whose fences are looked up at the ioctl
 * (a timeline point with no fence yet is -ENOENT), and out-syncs, looked up
 * and given their timeline chain node before anything is queued, so that
 * the fence the ioctl makes is installed without a failure.
 */

static void tern_syncs_free(struct drm_tern_sync *syncs,
			    struct drm_tern_sync *small)
{
	if (syncs != small)
		kvfree(syncs);
}

/*
 * The user's array of @count syncs, checked; into @small (room for
 * TERN_SYNC_INLINE) when it fits.  Free with tern_syncs_free().
 */
static struct drm_tern_sync *tern_syncs_copy(u64 uptr, u32 count,
					     struct drm_tern_sync *small)
{
	struct drm_tern_sync *syncs = small;
	u32 i;

	if (count > TERN_SYNC_INLINE) {
		syncs = kvmalloc_array(count, sizeof(*syncs), GFP_KERNEL);
		if (!syncs)
			return ERR_PTR(-ENOMEM);
	}
	if (copy_from_user(syncs, u64_to_user_ptr(uptr),
			   array_size(count, sizeof(*syncs)))) {
		tern_syncs_free(syncs, small);
		return ERR_PTR(-EFAULT);
	}
	for (i = 0; i < count; i++) {
		if (syncs[i].flags) {
			tern_syncs_free(syncs, small);
			return ERR_PTR(-EINVAL);
		}
	}
	return syncs;
}

/**
 * tern_sync_in_fences() - look up the fences of in-syncs
 * @file: the file whose syncobj handles they are
 * @uptr: user pointer to @count struct drm_tern_sync
 * @count: entries, not 0
 * @fences: room for @count references, filled from *@nr on
 * @nr: incremented for each fence stored, also on failure
 * @signalled: cleared if one of them has not signalled
 *
 * Return: 0; -EFAULT, -EINVAL (flags), -ENOENT (no such syncobj, or a
 * timeline point with no fence yet) or -ENOMEM.  The references stored are
 * the caller's to put, whatever the return.
 */
int tern_sync_in_fences(struct drm_file *file, u64 uptr, u32 count,
			struct dma_fence **fences, u32 *nr, bool *signalled)
{
	struct drm_tern_sync small[TERN_SYNC_INLINE], *syncs;
	int ret = 0;
	u32 i;

	syncs = tern_syncs_copy(uptr, count, small);
	if (IS_ERR(syncs))
		return PTR_ERR(syncs);
	for (i = 0; i < count; i++) {
		struct dma_fence *fence;

		ret = drm_syncobj_find_fence(file, syncs[i].handle,
					     syncs[i].point, 0, &fence);
		/* a timeline point past the last one has no fence (yet) */
		if (ret == -EINVAL)
			ret = -ENOENT;
		if (ret)
			break;
		fences[(*nr)++] = fence;
		*signalled &= dma_fence_is_signaled(fence);
	}
	tern_syncs_free(syncs, small);
	return ret;
}

/**
 * tern_sync_fences_error() - the first error among signalled fences
 * @fences: the fences, all signalled
 * @count: entries of @fences
 *
 * A timeline point stands for the fence added at that point only; a fence
 * array for each of its fences.
 *
 * Return: 0 or the first negative error found.
 */
int tern_sync_fences_error(struct dma_fence **fences, u32 count)
{
	struct dma_fence_unwrap iter;
	struct dma_fence *f;
	u32 i;

	for (i = 0; i < count; i++) {
		dma_fence_unwrap_for_each(f, &iter,
					  dma_fence_chain_contained(fences[i])) {
			int status = dma_fence_get_status(f);

			if (status < 0) {
				dma_fence_put(iter.chain);
				return status;
			}
		}
	}
	return 0;
}

/**
 * tern_sync_out_free() - drop what tern_sync_out_get() took
 * @out: its return, or NULL
 * @count: entries
 * @small: the array passed to it
 */
void tern_sync_out_free(struct tern_out_sync *out, u32 count,
			struct tern_out_sync *small)
{
	u32 i;

	if (!out)
		return;
	for (i = 0; i < count; i++) {
		if (out[i].syncobj)
			drm_syncobj_put(out[i].syncobj);
		dma_fence_chain_free(out[i].chain);
	}
	if (out != small)
		kvfree(out);
}

/**
 * tern_sync_out_init() - look up one out-sync before its fence exists
 * @file: the file whose syncobj handle it is
 * @handle: the syncobj handle
 * @point: 0 for a binary syncobj, else the timeline point
 * @out: zeroed; filled in, for tern_sync_out_signal() and
 *	tern_sync_out_free(), also on failure
 *
 * Return: 0, -ENOENT (no such syncobj) or -ENOMEM.
 */
int tern_sync_out_init(struct drm_file *file, u32 handle, u64 point,
		       struct tern_out_sync *out)
{
	out->syncobj = drm_syncobj_find(file, handle);
	if (!out->syncobj)
		return -ENOENT;
	out->point = point;
	if (point) {
		out->chain = dma_fence_chain_alloc();
		if (!out->chain)
			return -ENOMEM;
	}
	return 0;
}

/**
 * tern_sync_out_get() - look up out-syncs before anything is queued
 * @file: the file whose syncobj handles they are
 * @uptr: user pointer to @count struct drm_tern_sync
 * @count: entries
 * @small: room for TERN_SYNC_INLINE entries, zeroed, used when they fit
 *
 * Return: the looked-up syncs (NULL for @count 0), to pass to
 * tern_sync_out_signal() and tern_sync_out_free(); or an ERR_PTR: -EFAULT,
 * -EINVAL (flags), -ENOENT (no such syncobj) or -ENOMEM.
 */
struct tern_out_sync *tern_sync_out_get(struct drm_file *file, u64 uptr,
					u32 count, struct tern_out_sync *small)
{
	struct drm_tern_sync small_syncs[TERN_SYNC_INLINE], *syncs;
	struct tern_out_sync *out = small;
	int ret = 0;
	u32 i;

	if (!count)
		return NULL;
	syncs = tern_syncs_copy(uptr, count, small_syncs);
	if (IS_ERR(syncs))
		return ERR_CAST(syncs);

	if (count > TERN_SYNC_INLINE) {
		out = kvcalloc(count, sizeof(*out), GFP_KERNEL);
		if (!out) {
			tern_syncs_free(syncs, small_syncs);
			return ERR_PTR(-ENOMEM);
		}
	}
	for (i = 0; i < count && !ret; i++)
		ret = tern_sync_out_init(file, syncs[i].handle, syncs[i].point,
					 &out[i]);
	tern_syncs_free(syncs, small_syncs);
	if (ret) {
		tern_sync_out_free(out, count, small);
		return ERR_PTR(ret);
	}
	return out;
}

/**
 * tern_sync_out_signal() - give the out-syncs their fence
 * @out: from tern_sync_out_get()
 * @count: entries
 * @fence: the fence: replaces a binary syncobj's, is added at the point of
 *	a timeline
 *
 * Consumes the chain nodes; allocates nothing.
 */
void tern_sync_out_signal(struct tern_out_sync *out, u32 count,
			  struct dma_fence *fence)
{
	u32 i;

	for (i = 0; i < count; i++) {
		if (out[i].chain) {
			drm_syncobj_add_point(out[i].syncobj, out[i].chain,
					      fence, out[i].point);
			out[i].chain = NULL;
		} else {
			drm_syncobj_replace_fence(out[i].syncobj, fence);
		}
	}
}
