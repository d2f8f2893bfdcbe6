// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/dma-mapping.h>
#include <linux/pci.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_prime.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_device.h>
#include <drm/ttm/ttm_resource.h>
#include <drm/ttm/ttm_tt.h>

#include "tern_device.h"
#include "tern_gem.h"
#include "tern_local_mgr.h"
#include "tern_paging.h"
#include "tern_regs.h"
#include "tern_ttm.h"
#include "tern_vm.h"

/**
 * DOC: memory manager
 *
 * tern's buffer objects are TTM buffer objects (&struct tern_bo embeds a
 * &struct ttm_buffer_object), so that placement, pinning, swap-out and
 * moves between memory types are the kernel's memory manager's.  A device
 * has one &struct ttm_device and these memory types:
 *
 * - %TTM_PL_SYSTEM: system memory the device does not reach.  A BO is
 *   created there, without pages; its pages are allocated (zeroed) on the
 *   first CPU fault, and TTM may swap them out while the BO is idle and
 *   unpinned.
 * - %TTM_PL_TT: system memory the device reaches.  The pages come from
 *   TTM's page pool and are mapped for DMA by tern_ttm_dma_map() (or a
 *   paging buffer), which keeps the DMA-mapped sg table with the pages
 *   until they are freed, or the device is removed (tern_ttm_unplug()).
 *   Its manager only counts: any amount of system memory may be reachable.
 * - %TERN_PL_LOCAL: device-local memory (BAR2), handed out in blocks by
 *   the buddy allocator (tern_local_mgr.c); the CPU maps it write-combined
 *   through BAR2.
 *
 * A SYSTEM BO moves from SYSTEM to TT when it is pinned for the device (a
 * mapping into an address space, tern_bo_pin(), or a dma-buf attachment)
 * and stays there; both types hold the same pages, so the move copies
 * nothing.  A LOCAL BO moves to local memory when a map or a job's submit
 * (tern_residency.c) wants it there, paged in by a paging buffer of the
 * copy engine (tern_paging.c) or, if it has no pages yet, cleared; while
 * it is idle (no unfinished job lists it) and unpinned, mapped or not, TTM
 * may evict it to TT (paged out) to make room for another, and a dma-buf
 * attachment pins it in TT.  A LOCAL_PREFERRED BO goes to local memory
 * when local memory has room without evicting (also from TT: a
 * promotion), to TT otherwise.  The mappings of a moved BO follow it
 * (tern_vm_move.c) before its old place is freed.  A move to or from local
 * memory waits for the BO to be idle and for its paging buffer: moves are
 * not pipelined.
 *
 * An imported dma-buf becomes an sg BO (%ttm_bo_type_sg) in TT whose pages
 * are the exporter's: it is never populated nor swapped by tern.
 *
 * &tern_device.system_bytes counts the bytes of pages allocated for the
 * device's BOs (debugfs ``memory``).
 */

/**
 * struct tern_tt - the pages of a BO in system memory
 * @ttm: TTM's page array
 * @bo: the BO it belongs to
 * @sgt: the pages mapped for DMA by the device, or NULL; made on the first
 *	pin or paging buffer, released with the pages
 * @dma_link: in &tern_device.tt_dma while @sgt is mapped
 *
 * @sgt is set and cleared with the BO reserved and &tern_device.tt_dma_sem
 * held for reading; it is mapped for the device while @dma_link is on the
 * list.  At PCI remove, tern_ttm_unplug() unmaps it and takes it off the
 * list, but leaves the table to the pages' release.
 */
struct tern_tt {
	struct ttm_tt ttm;
	struct tern_bo *bo;
	struct sg_table *sgt;
	struct list_head dma_link;
};

static struct ttm_place tern_place_system = { .mem_type = TTM_PL_SYSTEM };
static struct ttm_place tern_place_tt = { .mem_type = TTM_PL_TT };
static struct ttm_place tern_place_local = { .mem_type = TERN_PL_LOCAL };

/** @tern_placement_system: system memory the device does not reach */
struct ttm_placement tern_placement_system = {
	.num_placement = 1,
	.placement = &tern_place_system,
};

/** @tern_placement_tt: system memory the device reaches */
struct ttm_placement tern_placement_tt = {
	.num_placement = 1,
	.placement = &tern_place_tt,
};

/** @tern_placement_local: device-local memory */
struct ttm_placement tern_placement_local = {
	.num_placement = 1,
	.placement = &tern_place_local,
};

/*
 * TTM validates in two passes: the first without evicting, where a BO is
 * in place only in a place that is not FALLBACK, the second evicting,
 * where DESIRED places are skipped.  So local memory is tried first, for
 * a BO in TT too (which it then leaves: a promotion), but never evicted
 * for; TT takes what does not fit.
 */
static struct ttm_place tern_places_local_preferred[] = {
	{ .mem_type = TERN_PL_LOCAL, .flags = TTM_PL_FLAG_DESIRED },
	{ .mem_type = TTM_PL_TT, .flags = TTM_PL_FLAG_FALLBACK },
};

/*
 * @tern_placement_local_preferred: device-local memory if it has room,
 * else system memory the device reaches.  No other BO is evicted for it,
 * and a BO in system memory moves to local memory when a validation finds
 * room there.
 */
struct ttm_placement tern_placement_local_preferred = {
	.num_placement = ARRAY_SIZE(tern_places_local_preferred),
	.placement = tern_places_local_preferred,
};

static inline struct tern_tt *to_tern_tt(struct ttm_tt *ttm)
{
	return container_of(ttm, struct tern_tt, ttm);
}

static struct ttm_tt *tern_ttm_tt_create(struct ttm_buffer_object *tbo,
					 u32 page_flags)
{
	struct tern_tt *tt;

	tt = kzalloc(sizeof(*tt), GFP_KERNEL);
	if (!tt)
		return NULL;
	tt->bo = to_tern_bo(&tbo->base);
	INIT_LIST_HEAD(&tt->dma_link);
	/* PCI is cache coherent: keep the CPU mappings cached. */
	if (ttm_tt_init(&tt->ttm, tbo, page_flags, ttm_cached, 0)) {
		kfree(tt);
		return NULL;
	}
	return &tt->ttm;
}

static int tern_ttm_tt_populate(struct ttm_device *bdev, struct ttm_tt *ttm,
				struct ttm_operation_ctx *ctx)
{
	struct tern_tt *tt = to_tern_tt(ttm);
	struct tern_device *tdev = container_of(bdev, struct tern_device, ttm);
	int ret;

	/* An imported dma-buf: the exporter's pages, mapped by the attachment. */
	if (ttm->page_flags & TTM_TT_FLAG_EXTERNAL)
		return 0;

	ret = ttm_pool_alloc(&bdev->pool, ttm, ctx);
	if (ret)
		return ret;
	atomic64_add((u64)ttm->num_pages << PAGE_SHIFT, &tdev->system_bytes);
	WRITE_ONCE(tt->bo->populated, true);
	return 0;
}

static void tern_ttm_dma_unmap(struct tern_device *tdev, struct tern_tt *tt)
{
	if (!tt->sgt)
		return;
	down_read(&tdev->tt_dma_sem);
	/* not after PCI remove: tern_ttm_unplug() did it then */
	if (!list_empty(&tt->dma_link)) {
		dma_unmap_sgtable(tdev->drm.dev, tt->sgt, DMA_BIDIRECTIONAL, 0);
		spin_lock(&tdev->tt_dma_list_lock);
		list_del_init(&tt->dma_link);
		spin_unlock(&tdev->tt_dma_list_lock);
	}
	sg_free_table(tt->sgt);
	kfree(tt->sgt);
	tt->sgt = NULL;
	up_read(&tdev->tt_dma_sem);
}

/**
 * tern_ttm_unplug() - unmap the device's DMA mappings of BO pages
 * @tdev: the device, at PCI remove, after drm_dev_unplug() and with the
 *	hardware quiesced
 *
 * The device and its IOMMU domain go when remove returns, while BOs may
 * live on in the processes that hold them: their pages are unmapped for
 * DMA now, and never mapped again (tern_tt_dma_map() then fails with
 * -ENODEV).  The sg tables stay with the pages until those are freed, so
 * a page-table writer still walking one reads stale addresses but no
 * freed memory; nothing reaches them through the device any more.
 */
void tern_ttm_unplug(struct tern_device *tdev)
{
	struct tern_tt *tt, *next;

	/* no mapping or unmapping runs meanwhile: the list is still */
	down_write(&tdev->tt_dma_sem);
	tdev->tt_dma_gone = true;
	list_for_each_entry_safe(tt, next, &tdev->tt_dma, dma_link) {
		dma_unmap_sgtable(tdev->drm.dev, tt->sgt, DMA_BIDIRECTIONAL, 0);
		list_del_init(&tt->dma_link);
	}
	up_write(&tdev->tt_dma_sem);
}

static void tern_ttm_tt_unpopulate(struct ttm_device *bdev, struct ttm_tt *ttm)
{
	struct tern_tt *tt = to_tern_tt(ttm);
	struct tern_device *tdev = container_of(bdev, struct tern_device, ttm);

	if (ttm->page_flags & TTM_TT_FLAG_EXTERNAL)
		return;

	WRITE_ONCE(tt->bo->populated, false);
	tern_ttm_dma_unmap(tdev, tt);
	ttm_pool_free(&bdev->pool, ttm);
	atomic64_sub((u64)ttm->num_pages << PAGE_SHIFT, &tdev->system_bytes);
}

static void tern_ttm_tt_destroy(struct ttm_device *bdev, struct ttm_tt *ttm)
{
	ttm_tt_fini(ttm);
	kfree(to_tern_tt(ttm));
}

/*
 * The pages of @tt mapped for DMA by the device; kept until they are freed
 * or the device is removed, after which this fails with -ENODEV.
 */
static struct sg_table *tern_tt_dma_map(struct tern_device *tdev,
					struct tern_tt *tt)
{
	struct drm_device *drm = &tdev->drm;
	struct sg_table *sgt;
	int ret;

	down_read(&tdev->tt_dma_sem);
	if (tdev->tt_dma_gone) {
		sgt = ERR_PTR(-ENODEV);
		goto out_unlock;
	}
	sgt = tt->sgt;
	if (sgt)
		goto out_unlock;

	sgt = drm_prime_pages_to_sg(drm, tt->ttm.pages, tt->ttm.num_pages);
	if (IS_ERR(sgt))
		goto out_unlock;
	ret = dma_map_sgtable(drm->dev, sgt, DMA_BIDIRECTIONAL, 0);
	if (ret) {
		sg_free_table(sgt);
		kfree(sgt);
		sgt = ERR_PTR(ret);
		goto out_unlock;
	}
	tt->sgt = sgt;
	spin_lock(&tdev->tt_dma_list_lock);
	list_add_tail(&tt->dma_link, &tdev->tt_dma);
	spin_unlock(&tdev->tt_dma_list_lock);
out_unlock:
	up_read(&tdev->tt_dma_sem);
	return sgt;
}

/**
 * tern_ttm_dma_map() - the pages of a BO in TT, mapped for DMA by the device
 * @bo: the BO, reserved, in %TTM_PL_TT
 *
 * Maps the pages on the first call; they stay mapped until they are freed,
 * or until PCI remove (tern_ttm_unplug()).
 *
 * Return: the DMA-mapped sg table, owned by the BO's pages, or an ERR_PTR
 * (-ENODEV once the device was removed).
 */
struct sg_table *tern_ttm_dma_map(struct tern_bo *bo)
{
	struct ttm_buffer_object *tbo = &bo->tbo;

	dma_resv_assert_held(tbo->base.resv);
	/* an import's pages are mapped by its attachment, not here */
	if (WARN_ON(!tbo->resource || tbo->resource->mem_type != TTM_PL_TT ||
		    !tbo->ttm || !ttm_tt_is_populated(tbo->ttm) ||
		    tbo->ttm->page_flags & TTM_TT_FLAG_EXTERNAL))
		return ERR_PTR(-EINVAL);
	return tern_tt_dma_map(container_of(tbo->bdev, struct tern_device, ttm),
			       to_tern_tt(tbo->ttm));
}

/**
 * tern_ttm_mover_begin() - count what a validation moves
 * @tdev: the device
 * @m: the mover, whose @ctx the caller fills and passes to TTM
 *
 * The counters start at 0; tern_ttm_mover_end() before @m goes.
 */
void tern_ttm_mover_begin(struct tern_device *tdev, struct tern_ttm_mover *m)
{
	m->bytes_in = 0;
	m->bytes_out = 0;
	m->evictions = 0;
	m->paging_ns = 0;
	spin_lock(&tdev->movers_lock);
	list_add(&m->link, &tdev->movers);
	spin_unlock(&tdev->movers_lock);
}

/**
 * tern_ttm_mover_end() - stop counting for a mover
 * @tdev: the device
 * @m: the mover
 */
void tern_ttm_mover_end(struct tern_device *tdev, struct tern_ttm_mover *m)
{
	spin_lock(&tdev->movers_lock);
	list_del(&m->link);
	spin_unlock(&tdev->movers_lock);
}

/* The mover whose validation this is, or NULL (a map, a fault, TTM's own). */
static struct tern_ttm_mover *tern_ttm_mover_find(struct tern_device *tdev,
						  struct ttm_operation_ctx *ctx)
{
	struct tern_ttm_mover *m, *found = NULL;

	spin_lock(&tdev->movers_lock);
	list_for_each_entry(m, &tdev->movers, link) {
		if (&m->ctx == ctx) {
			found = m;
			break;
		}
	}
	spin_unlock(&tdev->movers_lock);
	return found;
}

static bool tern_ttm_eviction_valuable(struct ttm_buffer_object *tbo,
				       const struct ttm_place *place)
{
	struct tern_bo *bo = to_tern_bo(&tbo->base);

	/*
	 * Pinned BOs are skipped by TTM itself.  A busy BO is never a
	 * victim: a job that lists it is queued, running or preempted (it
	 * runs with the BO where it is), or the BO is moving.
	 */
	if (!dma_resv_test_signaled(tbo->base.resv, DMA_RESV_USAGE_BOOKKEEP))
		return false;
	/*
	 * Out of TT (swap-out): not while an address space maps it, which
	 * a movable BO's mappings do not pin.
	 */
	if (tbo->resource->mem_type != TERN_PL_LOCAL && tern_bo_mapped(bo))
		return false;
	/* mapped in an address space that failed a change: it stays */
	if (tern_bo_movable(bo) && tern_vm_bo_stuck(bo))
		return false;
	return ttm_bo_eviction_valuable(tbo, place);
}

static void tern_ttm_evict_flags(struct ttm_buffer_object *tbo,
				 struct ttm_placement *placement)
{
	/*
	 * Local memory is paged out to TT, to make room for another BO;
	 * swap-out goes from TT through SYSTEM.
	 */
	if (tbo->resource->mem_type == TERN_PL_LOCAL)
		*placement = tern_placement_tt;
	else
		*placement = tern_placement_system;
}

static int tern_ttm_io_mem_reserve(struct ttm_device *bdev,
				   struct ttm_resource *mem)
{
	struct tern_device *tdev = container_of(bdev, struct tern_device, ttm);

	switch (mem->mem_type) {
	case TTM_PL_SYSTEM:
	case TTM_PL_TT:
		return 0;
	case TERN_PL_LOCAL:
		/* where BAR2 starts: tern_ttm_io_mem_pfn() finds each page */
		mem->bus.offset = tdev->local_mgr.bar;
		mem->bus.is_iomem = true;
		mem->bus.caching = ttm_write_combined;
		return 0;
	}
	return -EINVAL;
}

static unsigned long tern_ttm_io_mem_pfn(struct ttm_buffer_object *tbo,
					 unsigned long page_offset)
{
	u64 local = tern_local_seek(tbo->resource, (u64)page_offset << PAGE_SHIFT);

	return (tbo->resource->bus.offset + local) >> PAGE_SHIFT;
}

/* Page a BO in to local memory (or clear it there), or out to TT. */
static int tern_ttm_move_local(struct ttm_buffer_object *tbo, bool evict,
			       struct ttm_operation_ctx *ctx,
			       struct ttm_resource *new_mem)
{
	struct tern_device *tdev = container_of(tbo->bdev, struct tern_device,
						ttm);
	struct tern_bo *bo = to_tern_bo(&tbo->base);
	bool in = new_mem->mem_type == TERN_PL_LOCAL;
	struct ttm_resource *local = in ? new_mem : tbo->resource;
	struct tern_ttm_mover *m = tern_ttm_mover_find(tdev, ctx);
	struct tern_bo_backing to = {};
	struct sg_table *sgt = NULL;
	struct tern_vm_move mv;
	u64 device_ns = 0;
	int ret;

	/* its mappings could not follow it: not worth the copy */
	if (tern_bo_movable(bo) && tern_vm_bo_stuck(bo))
		return -EBUSY;
	/* nothing may use the old place any more */
	ret = ttm_bo_wait_ctx(tbo, ctx);
	/*
	 * Not "held by an attachment"; but an eviction keeps -EBUSY, with
	 * which TTM goes on to the next victim.
	 */
	if (ret == -EBUSY && !evict)
		ret = -ETIMEDOUT;
	if (ret)
		return ret;

	/*
	 * In: the pages, if it has any (swapped out ones come back first);
	 * out: TTM populated the new ones.
	 */
	if (tbo->ttm && tbo->ttm->page_flags & TTM_TT_FLAG_SWAPPED) {
		ret = ttm_tt_populate(tbo->bdev, tbo->ttm, ctx);
		if (ret)
			return ret;
	}
	if (tbo->ttm && ttm_tt_is_populated(tbo->ttm)) {
		sgt = tern_tt_dma_map(tdev, to_tern_tt(tbo->ttm));
		if (IS_ERR(sgt)) {
			ret = PTR_ERR(sgt);
			sgt = NULL;
		}
	}
	/* a failed DMA mapping (-ENODEV once unplugged) copies nothing */
	if (!ret) {
		if (!sgt && in)
			ret = tern_paging_clear(tdev, local, tbo->base.size,
						&device_ns);
		else if (WARN_ON(!sgt))
			ret = -EINVAL;
		else
			ret = tern_paging_copy(tdev, sgt, local, tbo->base.size,
					       in ? TERN_PAGING_IN :
						    TERN_PAGING_OUT,
					       &device_ns);
	}
	/*
	 * Unplugged: local memory is gone, its contents with it; the new
	 * pages, which TTM did not zero, are cleared rather than shown.  A
	 * copy engine lost on a device still there fails the move.
	 */
	if (ret == -ENODEV && !in && drm_dev_is_unplugged(&tdev->drm)) {
		pgoff_t i;

		for (i = 0; i < tbo->ttm->num_pages; i++) {
			clear_highpage(tbo->ttm->pages[i]);
			cond_resched();
		}
		ret = 0;
	}
	if (ret)
		return ret;

	/*
	 * The mappings of the BO follow it before its old place goes (a BO
	 * out of a device that is gone has no DMA mapping: nothing to
	 * follow).  An address space that failed a change keeps it where
	 * it is.
	 */
	if (tern_bo_movable(bo) && (in || sgt)) {
		ret = tern_vm_bo_move_begin(bo, &mv);
		/*
		 * The device is being removed: its engines may still run
		 * until PCI remove resets them, through the mappings that
		 * could not follow.  Out of local memory, which nothing hands
		 * out again, the BO leaves; into it, it stays in system
		 * memory, where the mappings are.
		 */
		if (ret == -ENODEV && !in)
			goto cleanup;
		if (ret)
			return ret;
		if (in)
			to.local = new_mem;
		else
			to.sgt = sgt;
		tern_vm_bo_move_end(bo, &to, &mv);
	}

cleanup:
	/* Frees the old place: the pages when paged in, local memory when out. */
	ttm_bo_move_sync_cleanup(tbo, new_mem);
	WRITE_ONCE(bo->in_local, in);
	if (evict)
		atomic64_inc(&tdev->paging.evictions);
	if (m) {
		if (in)
			m->bytes_in += tbo->base.size;
		else
			m->bytes_out += tbo->base.size;
		m->evictions += evict;
		m->paging_ns += device_ns;
	}
	return 0;
}

static int tern_ttm_move(struct ttm_buffer_object *tbo, bool evict,
			 struct ttm_operation_ctx *ctx,
			 struct ttm_resource *new_mem, struct ttm_place *hop)
{
	struct ttm_resource *old_mem = tbo->resource;
	u32 old_type = old_mem ? old_mem->mem_type : TTM_PL_SYSTEM;
	u32 new_type = new_mem->mem_type;

	/*
	 * A new BO, or SYSTEM <-> TT: the same pages, already there (TTM
	 * populated them for TT).  A BO leaves TT only unpinned and mapped
	 * in no address space (tern_ttm_eviction_valuable()), when the
	 * device can no longer reach it, so there is nothing to wait for.
	 */
	if ((!old_mem && new_type != TERN_PL_LOCAL) ||
	    (old_type == TTM_PL_SYSTEM && new_type == TTM_PL_TT) ||
	    (old_type == TTM_PL_TT && new_type == TTM_PL_SYSTEM)) {
		WARN_ON_ONCE(old_type == TTM_PL_TT &&
			     tern_bo_movable(to_tern_bo(&tbo->base)) &&
			     tern_bo_mapped(to_tern_bo(&tbo->base)));
		ttm_bo_move_null(tbo, new_mem);
		return 0;
	}
	/* Paged out to pages the device can reach, then SYSTEM. */
	if (old_type == TERN_PL_LOCAL && new_type == TTM_PL_SYSTEM) {
		*hop = tern_place_tt;
		hop->flags = TTM_PL_FLAG_TEMPORARY;
		return -EMULTIHOP;
	}
	/*
	 * To or from local memory (the only moves left but LOCAL -> LOCAL);
	 * a BO with no place yet (none today: old_type is SYSTEM then) is
	 * cleared there.
	 */
	if (old_type == TERN_PL_LOCAL || new_type == TERN_PL_LOCAL)
		if (old_type != new_type)
			return tern_ttm_move_local(tbo, evict, ctx, new_mem);
	return -EINVAL;
}

static const struct ttm_device_funcs tern_ttm_funcs = {
	.ttm_tt_create = tern_ttm_tt_create,
	.ttm_tt_populate = tern_ttm_tt_populate,
	.ttm_tt_unpopulate = tern_ttm_tt_unpopulate,
	.ttm_tt_destroy = tern_ttm_tt_destroy,
	.eviction_valuable = tern_ttm_eviction_valuable,
	.evict_flags = tern_ttm_evict_flags,
	.move = tern_ttm_move,
	.io_mem_reserve = tern_ttm_io_mem_reserve,
	.io_mem_pfn = tern_ttm_io_mem_pfn,
};

/* The TT manager: system memory has no addresses to hand out, only bytes. */

static int tern_tt_mgr_alloc(struct ttm_resource_manager *man,
			     struct ttm_buffer_object *tbo,
			     const struct ttm_place *place,
			     struct ttm_resource **res)
{
	struct ttm_resource *r;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	ttm_resource_init(tbo, place, r);
	*res = r;
	return 0;
}

static void tern_tt_mgr_free(struct ttm_resource_manager *man,
			     struct ttm_resource *res)
{
	ttm_resource_fini(man, res);
	kfree(res);
}

static const struct ttm_resource_manager_func tern_tt_mgr_func = {
	.alloc = tern_tt_mgr_alloc,
	.free = tern_tt_mgr_free,
};

static void tern_ttm_fini(struct drm_device *drm, void *data)
{
	struct tern_device *tdev = to_tern_device(drm);
	struct ttm_resource_manager *man = &tdev->tt_mgr;

	/*
	 * First, with the managers still there: it waits for TTM's walks
	 * and runs the delayed destruction of the BOs whose release waited
	 * for their fences.
	 */
	ttm_device_fini(&tdev->ttm);

	/* Every BO is gone with the last file: anything left is a leak. */
	drm_WARN_ON(drm, atomic_read(&tdev->bos));
	drm_WARN_ON(drm, atomic64_read(&tdev->bo_bytes));
	drm_WARN_ON(drm, atomic64_read(&tdev->system_bytes));
	drm_WARN_ON(drm, !list_empty(&tdev->tt_dma));
	if (tdev->local_mem_size)
		tern_local_mgr_fini(tdev);
	ttm_resource_manager_set_used(man, false);
	drm_WARN_ON(drm, ttm_resource_manager_usage(man));
	ttm_resource_manager_cleanup(man);
	ttm_set_driver_manager(&tdev->ttm, TTM_PL_TT, NULL);
}

/**
 * tern_ttm_init() - the device's memory manager
 * @tdev: the device
 *
 * Torn down when the DRM device is released, after every BO was freed.
 *
 * Return: 0 or a negative errno.
 */
int tern_ttm_init(struct tern_device *tdev)
{
	struct drm_device *drm = &tdev->drm;
	struct ttm_resource_manager *man = &tdev->tt_mgr;
	int ret;

	INIT_LIST_HEAD(&tdev->tt_dma);
	spin_lock_init(&tdev->tt_dma_list_lock);
	INIT_LIST_HEAD(&tdev->movers);
	spin_lock_init(&tdev->movers_lock);
	ret = drmm_mutex_init(&tdev->drm, &tdev->residency_lock);
	if (ret)
		return ret;
	init_rwsem(&tdev->tt_dma_sem);
	ret = ttm_device_init(&tdev->ttm, &tern_ttm_funcs, drm->dev,
			      drm->anon_inode->i_mapping,
			      drm->vma_offset_manager, false, false);
	if (ret)
		return ret;

	man->use_tt = true;
	man->func = &tern_tt_mgr_func;
	ttm_resource_manager_init(man, &tdev->ttm, totalram_pages());
	ttm_set_driver_manager(&tdev->ttm, TTM_PL_TT, man);
	ttm_resource_manager_set_used(man, true);

	/*
	 * A device without local memory has no LOCAL manager; nor has one
	 * whose local memory cannot be managed or mapped (no memory for the
	 * allocator, BAR2 not mappable write-combined): it works without.
	 */
	if (tdev->local_mem_size) {
		ret = tern_local_mgr_init(tdev);
		if (ret) {
			drm_warn(&tdev->drm, "local memory not used: %d\n", ret);
			tdev->local_mem_size = 0;
		}
	}

	return drmm_add_action_or_reset(drm, tern_ttm_fini, NULL);
}
