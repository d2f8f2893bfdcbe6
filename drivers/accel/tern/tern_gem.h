/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_GEM_H__
#define __TERN_GEM_H__

#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/types.h>

#include <drm/drm_gem.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/tern_accel.h>

struct drm_device;
struct dma_buf;
struct dma_buf_attachment;
struct drm_file;
struct drm_printer;
struct sg_table;

/**
 * struct tern_bo - a tern buffer object
 * @tbo: the TTM buffer object, whose GEM object is the handle's
 * @placement: enum drm_tern_bo_placement chosen at creation
 * @populated: system pages are allocated for it (written by TTM's populate
 *	and unpopulate callbacks, read without a lock by fdinfo)
 * @in_local: it is in device-local memory (written by the move callback,
 *	read without a lock by fdinfo)
 * @import_dmabuf: for an imported BO, a reference on the dma-buf, whose
 *	reservation object the BO shares until TTM destroyed it
 * @attach_pins: pins of dma-buf attachments of other devices (under the
 *	reservation)
 * @accounted: created by DRM_IOCTL_TERN_BO_CREATE and counted in
 *	&tern_device.bo_bytes until freed
 * @cpu_read_only: the process may map it for reading only (a kernel-owned
 *	object such as a progress page)
 * @gpuva_lock: protects the object's list of &struct drm_gpuvm_bo (the
 *	address spaces that map it) and their lists of mappings
 *	(drm_gem_gpuva_set_lock()).  Taken under &tern_vm.lock (also on the
 *	fence-signalling side of the binds) or alone: nothing allocates
 *	memory or waits for a fence under it.
 */
struct tern_bo {
	struct ttm_buffer_object tbo;
	u32 placement;
	bool populated;
	bool in_local;
	struct dma_buf *import_dmabuf;
	unsigned int attach_pins;
	bool accounted;
	bool cpu_read_only;
	struct mutex gpuva_lock; /* see above */
};

static inline struct tern_bo *to_tern_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct tern_bo, tbo.base);
}

static inline struct drm_gem_object *tern_bo_obj(struct tern_bo *bo)
{
	return &bo->tbo.base;
}

/* Bytes the device reaches through a DMA-mapped sg table. */
static inline u64 tern_sgt_dma_bytes(struct sg_table *sgt)
{
	struct scatterlist *sg;
	u64 bytes = 0;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i)
		bytes += sg_dma_len(sg);
	return bytes;
}

/*
 * Whether the BO moves while address spaces map it (LOCAL and
 * LOCAL_PREFERRED BOs of this device, between local and system memory):
 * then no address space pins it, and each move rewrites its mappings
 * (tern_vm_bo_move_end()).  A SYSTEM BO, or an imported one, is pinned where
 * it is while mapped.  Fixed for the BO's life.
 */
static inline bool tern_bo_movable(struct tern_bo *bo)
{
	return bo->placement != DRM_TERN_BO_PLACEMENT_SYSTEM &&
	       !bo->tbo.base.import_attach;
}

static inline size_t tern_bo_size(struct tern_bo *bo)
{
	return bo->tbo.base.size;
}

struct drm_gem_object *
tern_gem_prime_import_sg_table(struct drm_device *dev,
			       struct dma_buf_attachment *attach,
			       struct sg_table *sgt);
void tern_gem_show_memory_stats(struct drm_printer *p, struct drm_file *file);
int tern_bo_create_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int tern_bo_info_ioctl(struct drm_device *dev, void *data, struct drm_file *file);

/**
 * struct tern_bo_backing - where the device reaches a pinned BO
 * @sgt: its pages in system memory, mapped for DMA; NULL if it is in
 *	device-local memory
 * @local: there, its blocks (walked with &struct tern_local_cursor)
 */
struct tern_bo_backing {
	struct sg_table *sgt;
	struct ttm_resource *local;
};

int tern_bo_pin(struct tern_bo *bo, struct tern_bo_backing *backing);
bool tern_bo_mapped(struct tern_bo *bo);
void tern_bo_unpin(struct tern_bo *bo);

struct tern_bo *tern_bo_create_kernel(struct drm_device *dev,
				      struct drm_file *file, size_t size,
				      void **vaddr, u64 *offset);
void tern_bo_revoke_file(struct tern_bo *bo, struct drm_file *file);
void tern_bo_free_kernel(struct tern_bo *bo, void *vaddr);

#endif /* __TERN_GEM_H__ */
