// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/err.h>
#include <linux/iosys-map.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_ttm_helper.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>
#include <drm/drm_vma_manager.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_tt.h>

#include <drm/tern_accel.h>

#include "tern_device.h"
#include "tern_gem.h"
#include "tern_ttm.h"

/**
 * DOC: buffer objects
 *
 * A tern BO is a TTM buffer object (tern_ttm.c) behind a GEM handle:
 * system memory, allocated on first use (a CPU fault through mmap(), or a
 * mapping into an address space), zeroed, and kept until the BO is freed
 * (or swapped out by TTM while nothing uses it).  The GEM object provides
 * mmap through the fake offset of &drm_tern_bo_info.mmap_offset, dma-buf
 * export (PRIME: an attachment pins the BO), vmap and fdinfo; an imported
 * foreign dma-buf becomes an sg BO whose pages belong to the exporter
 * (tern_gem_prime_import_sg_table()).
 *
 * The device never reaches a BO by itself: it goes through the page tables
 * of an address space (tern_vm.c).  A map places the BO (tern_bo_pin())
 * where its placement says: a SYSTEM BO in %TTM_PL_TT, pinned there while
 * mapped; a LOCAL BO in device-local memory, paged in there (tern_ttm.c),
 * or in TT when local memory is full of BOs in use; a LOCAL_PREFERRED BO
 * in local memory if it has room, else in TT.  Those two are pinned only
 * until the map ran: they move, and their mappings follow them
 * (tern_vm_move.c); a job's submit makes them resident
 * (tern_residency.c).  A mapping holds a reference on its BO until it is
 * unmapped.  DMA buffers and resume records
 * are driver-owned memory, not BOs.
 *
 * fdinfo gives drm-total-*, drm-shared-*, drm-active-* and drm-resident-*
 * of two regions (tern_gem_show_memory_stats()): "memory", system memory,
 * and "local", device-local memory, each BO counted where it is now.
 */

static enum drm_gem_object_status tern_gem_status(struct drm_gem_object *obj)
{
	struct tern_bo *bo = to_tern_bo(obj);

	/* Called under the file's table_lock: no locking, a snapshot is fine. */
	if (obj->import_attach || READ_ONCE(bo->populated) ||
	    READ_ONCE(bo->in_local))
		return DRM_GEM_OBJECT_RESIDENT;
	return 0;
}

static size_t tern_gem_rss(struct drm_gem_object *obj)
{
	return tern_gem_status(obj) & DRM_GEM_OBJECT_RESIDENT ? obj->size : 0;
}

/**
 * tern_gem_show_memory_stats() - fdinfo's memory keys of a file's BOs
 * @p: where to print
 * @file: the file
 *
 * drm_show_memory_stats() with two regions: "memory" (system memory, as
 * the DRM core names it) and "local".
 */
void tern_gem_show_memory_stats(struct drm_printer *p, struct drm_file *file)
{
	struct drm_memory_stats stats[2] = {};
	struct drm_gem_object *obj;
	int id;

	spin_lock(&file->table_lock);
	idr_for_each_entry(&file->object_idr, obj, id) {
		struct drm_memory_stats *s =
			&stats[READ_ONCE(to_tern_bo(obj)->in_local)];

		if (drm_gem_object_is_shared_for_memory_stats(obj))
			s->shared += obj->size;
		else
			s->private += obj->size;
		s->resident += tern_gem_rss(obj);
		if (!dma_resv_test_signaled(obj->resv, dma_resv_usage_rw(true)))
			s->active += obj->size;
	}
	spin_unlock(&file->table_lock);

	drm_print_memory_stats(p, &stats[0], DRM_GEM_OBJECT_RESIDENT, "memory");
	drm_print_memory_stats(p, &stats[1], DRM_GEM_OBJECT_RESIDENT, "local");
}

static void tern_gem_free(struct drm_gem_object *obj)
{
	struct ttm_buffer_object *tbo = &to_tern_bo(obj)->tbo;

	/* every pin holds a reference: a pin left now is a leak */
	drm_WARN_ON(obj->dev, tbo->pin_count);
	/*
	 * An import lets go of the exporter's pages now: nothing can reach
	 * them any more.  Doing it here, not when TTM destroys the BO,
	 * keeps the dma-buf's reservation lock out of TTM's paths.
	 */
	if (obj->import_attach) {
		drm_prime_gem_destroy(obj, tbo->sg);
		obj->import_attach = NULL;
	}
	/* CPU mappings hold TTM references of their own. */
	ttm_bo_put(tbo);
}

static void tern_bo_destroy(struct ttm_buffer_object *tbo)
{
	struct tern_bo *bo = to_tern_bo(&tbo->base);

	struct tern_device *tdev = to_tern_device(tbo->base.dev);

	if (bo->accounted)
		atomic64_sub(tbo->base.size, &tdev->bo_bytes);
	atomic_dec(&tdev->bos);
	drm_gem_object_release(&tbo->base);
	mutex_destroy(&bo->gpuva_lock);
	/* the shared reservation object lived until here */
	if (bo->import_dmabuf)
		dma_buf_put(bo->import_dmabuf);
	kfree(bo);
}

/* tries of a pin in local memory that TTM refused */
#define TERN_BO_PIN_TRIES	3

/**
 * tern_bo_mapped() - whether an address space maps the BO
 * @bo: the BO
 *
 * A mapping is added by a map that pinned the BO first, so with the BO's
 * reservation held and the BO unpinned, a "no" stays true.
 *
 * Return: true if some address space has a mapping of it (queued or
 * removed and not yet reaped ones included).
 */
bool tern_bo_mapped(struct tern_bo *bo)
{
	bool mapped;

	mutex_lock(&bo->gpuva_lock);
	mapped = !list_empty(&bo->tbo.base.gpuva.list);
	mutex_unlock(&bo->gpuva_lock);
	return mapped;
}

/*
 * Where its placement says the device uses the BO, and pinned there; the
 * caller holds the reservation.
 */
static int tern_bo_pin_locked(struct tern_bo *bo)
{
	/* a pin that does not fit fails, rather than wake the OOM killer */
	struct ttm_operation_ctx ctx = {
		.interruptible = true,
		.gfp_retry_mayfail = true,
	};
	bool local = bo->placement == DRM_TERN_BO_PLACEMENT_LOCAL;
	struct ttm_placement *placement = &tern_placement_tt;
	int ret;

	if (local)
		placement = &tern_placement_local;
	else if (bo->placement == DRM_TERN_BO_PLACEMENT_LOCAL_PREFERRED)
		placement = &tern_placement_local_preferred;
	/*
	 * A movable BO pinned already, by a map still in flight, stays
	 * where it is: either place will do for a map, and the next job
	 * that lists it moves it.  Attached to another device, it is in
	 * system memory for the importer, where a LOCAL BO may not be
	 * mapped.
	 */
	if (tern_bo_movable(bo) && bo->tbo.pin_count) {
		if (local && bo->attach_pins)
			return -EBUSY;
		ttm_bo_pin(&bo->tbo);
		return 0;
	}
	ret = ttm_bo_validate(&bo->tbo, placement, &ctx);
	/*
	 * Local memory is where a job that lists a movable BO finds it, not
	 * where a map must: if the BO could not go there (local memory is
	 * full of BOs in use or pinned, no memory for the paging buffer,
	 * the copy engine lost), it is mapped in system memory.
	 */
	if (ret && ret != -ERESTARTSYS && ret != -EINTR && tern_bo_movable(bo))
		ret = ttm_bo_validate(&bo->tbo, &tern_placement_tt, &ctx);
	if (ret)
		return ret;
	ttm_bo_pin(&bo->tbo);
	return 0;
}

/*
 * &drm_gem_object_funcs.pin: a dma-buf attachment, which reads the pages
 * in system memory; the reservation is held.
 */
static int tern_gem_pin(struct drm_gem_object *obj)
{
	struct ttm_operation_ctx ctx = {
		.interruptible = true,
		.gfp_retry_mayfail = true,
	};
	struct tern_bo *bo = to_tern_bo(obj);
	int ret;

	/* a LOCAL BO an address space maps: its jobs want it in local memory */
	if (bo->placement == DRM_TERN_BO_PLACEMENT_LOCAL && tern_bo_mapped(bo))
		return -EBUSY;
	ret = ttm_bo_validate(&bo->tbo, &tern_placement_tt, &ctx);
	if (ret == -EINVAL && bo->tbo.pin_count)
		return -EBUSY;	/* pinned in local memory by a map in flight */
	if (ret)
		return ret;
	ttm_bo_pin(&bo->tbo);
	bo->attach_pins++;
	/* off the LRU lists TTM evicts and swaps from (not unreserved here) */
	ttm_bo_move_to_lru_tail_unlocked(&bo->tbo);
	return 0;
}

static void tern_gem_unpin(struct drm_gem_object *obj)
{
	struct ttm_buffer_object *tbo = &to_tern_bo(obj)->tbo;

	to_tern_bo(obj)->attach_pins--;
	ttm_bo_unpin(tbo);
	/* back on the LRU list: evictable and swappable again */
	ttm_bo_move_to_lru_tail_unlocked(tbo);
}

/* The pages, for an importer; pinned by its attachment (tern_gem_pin()). */
static struct sg_table *tern_gem_get_sg_table(struct drm_gem_object *obj)
{
	struct ttm_buffer_object *tbo = &to_tern_bo(obj)->tbo;

	dma_resv_assert_held(obj->resv);
	if (WARN_ON(!tbo->ttm || !ttm_tt_is_populated(tbo->ttm)))
		return ERR_PTR(-EINVAL);
	return drm_prime_pages_to_sg(obj->dev, tbo->ttm->pages,
				     tbo->ttm->num_pages);
}

/*
 * A kernel mapping of the BO for a dma-buf importer: only of system pages
 * pinned by its attachment (TTM would map the start of local memory for a
 * BO there, not its blocks).
 */
static int tern_gem_vmap(struct drm_gem_object *obj, struct iosys_map *map)
{
	struct ttm_buffer_object *tbo = &to_tern_bo(obj)->tbo;

	/* unpinned, a move would leave the mapping on freed pages */
	if (!tbo->pin_count)
		return -EINVAL;
	if (tbo->resource && tbo->resource->mem_type == TERN_PL_LOCAL)
		return -EOPNOTSUPP;
	return drm_gem_ttm_vmap(obj, map);
}

/* A kernel-owned object the process reads only: no writable mapping, ever. */
static int tern_gem_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	int ret;

	if (to_tern_bo(obj)->cpu_read_only) {
		if (vma->vm_flags & VM_WRITE)
			return -EACCES;
		vm_flags_clear(vma, VM_MAYWRITE);
	}
	if (obj->import_attach) {
		/* The exporter maps its own pages, with its own vm_ops. */
		vma->vm_private_data = NULL;
		vma->vm_ops = NULL;
		ret = dma_buf_mmap(obj->dma_buf, vma, 0);
		if (!ret)
			drm_gem_object_put(obj);
		return ret;
	}
	return drm_gem_ttm_mmap(obj, vma);
}

/*
 * TTM's fault handler, but for system memory without its drm_dev_enter():
 * system pages stay valid after the device is unplugged, so a process
 * keeps reading its BOs (and its progress pages) as it did from shmem.
 * Local memory is BAR2, gone with the device.
 */
static vm_fault_t tern_gem_fault(struct vm_fault *vmf)
{
	struct ttm_buffer_object *tbo = vmf->vma->vm_private_data;
	struct drm_device *drm = tbo->base.dev;
	vm_fault_t ret;
	int idx;

	ret = ttm_bo_vm_reserve(tbo, vmf);
	if (ret)
		return ret;
	if (tbo->resource->mem_type != TERN_PL_LOCAL) {
		ret = ttm_bo_vm_fault_reserved(vmf, vmf->vma->vm_page_prot,
					       TTM_BO_VM_NUM_PREFAULT);
	} else if (drm_dev_enter(drm, &idx)) {
		ret = ttm_bo_vm_fault_reserved(vmf, vmf->vma->vm_page_prot,
					       TTM_BO_VM_NUM_PREFAULT);
		drm_dev_exit(idx);
	} else {
		/* BAR2 is gone with the device: a page of zeroes instead */
		ret = ttm_bo_vm_dummy_page(vmf, vmf->vma->vm_page_prot);
	}
	if (ret == VM_FAULT_RETRY && !(vmf->flags & FAULT_FLAG_RETRY_NOWAIT))
		return ret;
	dma_resv_unlock(tbo->base.resv);
	return ret;
}

/* ptrace and /proc/<pid>/mem: no write through a mapping that cannot write */
static int tern_gem_access(struct vm_area_struct *vma, unsigned long addr,
			   void *buf, int len, int write)
{
	struct ttm_buffer_object *tbo = vma->vm_private_data;

	if (write && (to_tern_bo(&tbo->base)->cpu_read_only ||
		      !(vma->vm_flags & VM_WRITE)))
		return -EACCES;
	return ttm_bo_vm_access(vma, addr, buf, len, write);
}

static const struct vm_operations_struct tern_gem_vm_ops = {
	.fault = tern_gem_fault,
	.open = ttm_bo_vm_open,
	.close = ttm_bo_vm_close,
	.access = tern_gem_access,
};

static const struct drm_gem_object_funcs tern_gem_funcs = {
	.free = tern_gem_free,
	.print_info = drm_gem_ttm_print_info,
	.pin = tern_gem_pin,
	.unpin = tern_gem_unpin,
	.get_sg_table = tern_gem_get_sg_table,
	.vmap = tern_gem_vmap,
	.vunmap = drm_gem_ttm_vunmap,
	.mmap = tern_gem_mmap,
	.status = tern_gem_status,
	.rss = tern_gem_rss,
	.vm_ops = &tern_gem_vm_ops,
};

/*
 * A new BO in SYSTEM (no pages yet), unreserved; or one imported from
 * @dmabuf, whose reference it takes over (dropped on failure too), in TT,
 * sharing the dma-buf's reservation object, which must be locked and stays
 * so.  @size is rounded up to whole CPU pages.
 */
static struct tern_bo *tern_bo_create(struct drm_device *dev, size_t size,
				      enum ttm_bo_type type,
				      struct sg_table *sg,
				      struct dma_buf *dmabuf)
{
	struct tern_device *tdev = to_tern_device(dev);
	struct ttm_operation_ctx ctx = {
		.interruptible = true,
		.gfp_retry_mayfail = true,
	};
	struct tern_bo *bo;
	int ret;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo) {
		if (dmabuf)
			dma_buf_put(dmabuf);
		return ERR_PTR(-ENOMEM);
	}

	bo->placement = DRM_TERN_BO_PLACEMENT_SYSTEM;
	bo->import_dmabuf = dmabuf;
	bo->tbo.base.funcs = &tern_gem_funcs;
	drm_gem_private_object_init(dev, &bo->tbo.base, PAGE_ALIGN(size));
	mutex_init(&bo->gpuva_lock);
	drm_gem_gpuva_set_lock(&bo->tbo.base, &bo->gpuva_lock);
	atomic_inc(&tdev->bos);

	/* On failure TTM calls tern_bo_destroy(). */
	ret = ttm_bo_init_reserved(&tdev->ttm, &bo->tbo, type,
				   type == ttm_bo_type_sg ? &tern_placement_tt :
							    &tern_placement_system,
				   0, &ctx, sg, dmabuf ? dmabuf->resv : NULL,
				   tern_bo_destroy);
	if (ret)
		return ERR_PTR(ret);
	if (!dmabuf)
		ttm_bo_unreserve(&bo->tbo);
	return bo;
}

/**
 * tern_gem_prime_import_sg_table() - &drm_driver.gem_prime_import_sg_table
 * @dev: the DRM device
 * @attach: the attachment to a foreign dma-buf
 * @sgt: its pages, mapped for the device by the attachment
 *
 * The BO shares the dma-buf's reservation object, as the DRM core expects
 * of an imported object.
 *
 * Return: the new BO's GEM object, or an ERR_PTR.
 */
struct drm_gem_object *
tern_gem_prime_import_sg_table(struct drm_device *dev,
			       struct dma_buf_attachment *attach,
			       struct sg_table *sgt)
{
	struct dma_buf *dmabuf = attach->dmabuf;
	struct tern_bo *bo;

	/*
	 * The BO shares the dma-buf's reservation object until TTM destroyed
	 * it, which may be after the import failed or the attachment went:
	 * it holds the dma-buf until then.
	 */
	get_dma_buf(dmabuf);
	dma_resv_lock(dmabuf->resv, NULL);
	bo = tern_bo_create(dev, dmabuf->size, ttm_bo_type_sg, sgt, dmabuf);
	dma_resv_unlock(dmabuf->resv);
	return IS_ERR(bo) ? ERR_CAST(bo) : tern_bo_obj(bo);
}

/**
 * tern_bo_create_ioctl() - DRM_IOCTL_TERN_BO_CREATE
 * @dev: the DRM device
 * @data: &struct drm_tern_bo_create
 * @file: the caller's file
 *
 * Return: 0 or a negative errno, see &struct drm_tern_bo_create.
 */
int tern_bo_create_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_tern_bo_create *args = data;
	struct tern_bo *bo;
	u32 handle;
	int ret, idx;

	if (args->flags || args->pad || !args->size)
		return -EINVAL;
	switch (args->placement) {
	case DRM_TERN_BO_PLACEMENT_SYSTEM:
		break;
	case DRM_TERN_BO_PLACEMENT_LOCAL:
		if (!to_tern_device(dev)->local_mem_size)
			return -EOPNOTSUPP;
		/* could never be placed */
		if (args->size > to_tern_device(dev)->local_mem_size)
			return -E2BIG;
		break;
	case DRM_TERN_BO_PLACEMENT_LOCAL_PREFERRED:
		/* system memory when local memory has no room (or is none) */
		break;
	default:
		return -EINVAL;
	}
	if (args->size > TERN_MAX_BO_SIZE)
		return -E2BIG;

	if (!drm_dev_enter(dev, &idx))
		return -ENODEV;

	/* Rounds the size up to whole CPU pages (a multiple of 4 KiB). */
	bo = tern_bo_create(dev, args->size, ttm_bo_type_device, NULL, NULL);
	if (IS_ERR(bo)) {
		ret = PTR_ERR(bo);
		goto out_exit;
	}
	bo->placement = args->placement;
	bo->accounted = true;
	atomic64_add(tern_bo_size(bo), &to_tern_device(dev)->bo_bytes);

	ret = drm_gem_handle_create(file, tern_bo_obj(bo), &handle);
	/* The handle holds the reference from now on (or nothing does). */
	drm_gem_object_put(tern_bo_obj(bo));
	if (ret)
		goto out_exit;

	args->size = tern_bo_size(bo);
	args->handle = handle;
out_exit:
	drm_dev_exit(idx);
	return ret;
}

/**
 * tern_bo_info_ioctl() - DRM_IOCTL_TERN_BO_INFO
 * @dev: the DRM device
 * @data: &struct drm_tern_bo_info
 * @file: the caller's file
 *
 * Return: 0 or a negative errno, see &struct drm_tern_bo_info.
 */
int tern_bo_info_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_tern_bo_info *args = data;
	struct drm_gem_object *obj;
	int ret, idx;

	if (args->flags || args->pad)
		return -EINVAL;

	if (!drm_dev_enter(dev, &idx))
		return -ENODEV;

	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj) {
		ret = -ENOENT;
		goto out_exit;
	}

	ret = drm_gem_create_mmap_offset(obj);
	if (ret)
		goto out_put;

	args->size = obj->size;
	args->mmap_offset = drm_vma_node_offset_addr(&obj->vma_node);
	args->placement = to_tern_bo(obj)->placement;
out_put:
	drm_gem_object_put(obj);
out_exit:
	drm_dev_exit(idx);
	return ret;
}

/* One try of tern_bo_pin(), in a ww transaction of its own. */
static int tern_bo_pin_once(struct tern_bo *bo, struct tern_bo_backing *backing)
{
	struct ttm_buffer_object *tbo = &bo->tbo;
	struct tern_device *tdev = to_tern_device(tbo->base.dev);
	bool serial = bo->placement == DRM_TERN_BO_PLACEMENT_LOCAL;
	struct ww_acquire_ctx ticket;
	struct sg_table *sgt;
	int ret;

	/* taking local memory: one at a time, as the submits do */
	if (serial) {
		ret = mutex_lock_interruptible(&tdev->residency_lock);
		if (ret)
			return ret;
	}
	/*
	 * With a ticket, TTM may sleep on the reservation of a victim it
	 * evicts to make room (without one, it only tries the lock).
	 */
	ww_acquire_init(&ticket, &reservation_ww_class);
	ret = ttm_bo_reserve(tbo, true, false, &ticket);
	if (ret)
		goto out_fini;
	ret = tern_bo_pin_locked(bo);
	if (ret)
		goto out_unreserve;
	if (tbo->resource->mem_type == TERN_PL_LOCAL) {
		backing->sgt = NULL;
		backing->local = tbo->resource;
		goto out_unreserve;
	}
	sgt = tern_ttm_dma_map(bo);
	if (IS_ERR(sgt)) {
		ttm_bo_unpin(tbo);
		ret = PTR_ERR(sgt);
		goto out_unreserve;
	}
	backing->sgt = sgt;
out_unreserve:
	ttm_bo_unreserve(tbo);
out_fini:
	ww_acquire_fini(&ticket);
	if (serial)
		mutex_unlock(&tdev->residency_lock);
	return ret;
}

/**
 * tern_bo_pin() - keep a BO in place for the device
 * @bo: the BO
 * @backing: out: where the device reaches it, valid until tern_bo_unpin()
 *
 * Moves a BO to where its placement says the device uses it and pins it
 * there (it is neither swapped nor moved until tern_bo_unpin()): a SYSTEM
 * BO to %TTM_PL_TT, its pages allocated if needed and mapped for DMA by
 * the device; a LOCAL BO to local memory, paged in from system memory (or
 * cleared) by the copy engine, after idle BOs were paged out to make room,
 * or to TT if local memory is full of BOs in use; a LOCAL_PREFERRED BO to
 * local memory if it has room without evicting (paged in from TT if it
 * was there), else (or if that fails) to TT.  A LOCAL or LOCAL_PREFERRED
 * BO pinned already stays where it is.  An imported BO's pages are the
 * exporter's, pinned by the attachment for as long as the BO exists.
 * Takes the BO's reservation lock: do not call it with the lock held.
 *
 * Return: 0; -EBUSY if a LOCAL BO is pinned in system memory by a dma-buf
 * attachment; another negative errno.
 */
int tern_bo_pin(struct tern_bo *bo, struct tern_bo_backing *backing)
{
	int ret, tries;

	if (tern_bo_obj(bo)->import_attach) {
		backing->sgt = bo->tbo.sg;
		return 0;
	}

	/*
	 * TTM's eviction may back off from a deadlock with another
	 * transaction (-ENOMEM, which the fallback to TT took): a refusal
	 * is tried again in a new transaction before it counts.
	 */
	for (tries = 0; ; tries++) {
		ret = tern_bo_pin_once(bo, backing);
		if (!tern_bo_movable(bo) || ret != -ENOMEM ||
		    tries == TERN_BO_PIN_TRIES - 1)
			return ret;
	}
}

/**
 * tern_bo_unpin() - undo one tern_bo_pin()
 * @bo: the BO
 *
 * Takes the BO's reservation lock.
 */
void tern_bo_unpin(struct tern_bo *bo)
{
	if (tern_bo_obj(bo)->import_attach)
		return;
	/*
	 * Not interruptible: an unpin must not be lost.  Unreserving puts
	 * the BO back on its LRU list, where TTM finds what it may evict or
	 * swap out.
	 */
	dma_resv_lock(bo->tbo.base.resv, NULL);
	ttm_bo_unpin(&bo->tbo);
	ttm_bo_unreserve(&bo->tbo);
}

/**
 * tern_bo_create_kernel() - a kernel-owned BO that a file may map read-only
 * @dev: the DRM device
 * @file: the file allowed to map it
 * @size: its size in bytes, a multiple of PAGE_SIZE
 * @vaddr: out: the kernel mapping of its pages, which stay allocated and
 *	pinned until tern_bo_free_kernel()
 * @offset: out: the offset for mmap() on @file
 *
 * The BO has no handle: it cannot be shared, bound or closed by the
 * process, only mapped for reading.  A mapping keeps the object alive after
 * tern_bo_free_kernel().
 *
 * Return: the BO, or an ERR_PTR.
 */
struct tern_bo *tern_bo_create_kernel(struct drm_device *dev,
				      struct drm_file *file, size_t size,
				      void **vaddr, u64 *offset)
{
	struct iosys_map map;
	struct tern_bo *bo;
	int ret;

	bo = tern_bo_create(dev, size, ttm_bo_type_device, NULL, NULL);
	if (IS_ERR(bo))
		return bo;
	bo->cpu_read_only = true;

	ret = ttm_bo_reserve(&bo->tbo, true, false, NULL);
	if (ret)
		goto err_put;
	ret = tern_bo_pin_locked(bo);
	if (ret)
		goto err_unreserve;
	ret = ttm_bo_vmap(&bo->tbo, &map);
	if (ret)
		goto err_unpin;
	if (map.is_iomem) {	/* never for system memory */
		ret = -EINVAL;
		goto err_vunmap;
	}
	ret = drm_vma_node_allow(&bo->tbo.base.vma_node, file);
	if (ret)
		goto err_vunmap;
	ttm_bo_unreserve(&bo->tbo);

	*vaddr = map.vaddr;
	*offset = drm_vma_node_offset_addr(&bo->tbo.base.vma_node);
	return bo;

err_vunmap:
	ttm_bo_vunmap(&bo->tbo, &map);
err_unpin:
	ttm_bo_unpin(&bo->tbo);
err_unreserve:
	ttm_bo_unreserve(&bo->tbo);
err_put:
	drm_gem_object_put(tern_bo_obj(bo));
	return ERR_PTR(ret);
}

/**
 * tern_bo_revoke_file() - a file may no longer map a kernel-owned BO
 * @bo: the BO, from tern_bo_create_kernel()
 * @file: the file given there
 *
 * Mappings made before stay.  Call it before @file is freed: the
 * permission is recorded by the file's address.
 */
void tern_bo_revoke_file(struct tern_bo *bo, struct drm_file *file)
{
	drm_vma_node_revoke(&bo->tbo.base.vma_node, file);
}

/**
 * tern_bo_free_kernel() - drop a kernel-owned BO
 * @bo: the BO, from tern_bo_create_kernel()
 * @vaddr: its kernel mapping
 */
void tern_bo_free_kernel(struct tern_bo *bo, void *vaddr)
{
	struct iosys_map map;

	iosys_map_set_vaddr(&map, vaddr);
	dma_resv_lock(bo->tbo.base.resv, NULL);
	ttm_bo_vunmap(&bo->tbo, &map);
	ttm_bo_unpin(&bo->tbo);
	ttm_bo_unreserve(&bo->tbo);
	drm_gem_object_put(tern_bo_obj(bo));
}
