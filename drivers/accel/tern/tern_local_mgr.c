// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/dma-resv.h>
#include <linux/io.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include <drm/drm_print.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_device.h>

#include "tern_device.h"
#include "tern_local_mgr.h"
#include "tern_regs.h"
#include "tern_ttm.h"

/**
 * DOC: local memory manager
 *
 * Device-local memory is handed out by the kernel's buddy allocator, in
 * blocks of 4 KiB and more: a BO's local memory need not be contiguous, so
 * a BO fits whenever as many bytes are free.  Each resource keeps its list
 * of blocks in the order of the BO's bytes; &struct tern_local_cursor walks
 * it, for the page tables, the paging buffers and the CPU's faults.
 */

/**
 * struct tern_local_res - the local memory of one BO
 * @base: TTM's view
 * @blocks: its buddy blocks, in the order of the BO's bytes
 * @hint: the block tern_local_seek() last found, or NULL
 * @hint_offset: the byte of the BO where @hint starts
 *
 * @hint and @hint_offset are used and changed with the BO's reservation
 * held.
 */
struct tern_local_res {
	struct ttm_resource base;
	struct list_head blocks;
	struct gpu_buddy_block *hint;
	u64 hint_offset;
};

static struct tern_local_mgr *to_local_mgr(struct ttm_resource_manager *man)
{
	return container_of(man, struct tern_local_mgr, manager);
}

static struct tern_local_res *to_local_res(struct ttm_resource *res)
{
	return container_of(res, struct tern_local_res, base);
}

static int tern_local_alloc(struct ttm_resource_manager *man,
			    struct ttm_buffer_object *tbo,
			    const struct ttm_place *place,
			    struct ttm_resource **res)
{
	struct tern_local_mgr *mgr = to_local_mgr(man);
	struct tern_local_res *lres;
	int ret;

	/*
	 * No eviction could make room for it: a place it only wishes for
	 * (LOCAL_PREFERRED) is full, so that TTM goes on to the next one.
	 */
	if (tbo->base.size > man->size)
		return place->flags & TTM_PL_FLAG_DESIRED ? -ENOSPC : -E2BIG;

	lres = kzalloc(sizeof(*lres), GFP_KERNEL);
	if (!lres)
		return -ENOMEM;
	ttm_resource_init(tbo, place, &lres->base);
	INIT_LIST_HEAD(&lres->blocks);

	/* the usage now counts this one too */
	if (ttm_resource_manager_usage(man) > man->size) {
		ret = -ENOSPC;
		goto err_fini;
	}
	mutex_lock(&mgr->lock);
	ret = gpu_buddy_alloc_blocks(&mgr->mm, 0, man->size, lres->base.size,
				     PAGE_SIZE, &lres->blocks, 0);
	mutex_unlock(&mgr->lock);
	if (ret)
		goto err_fini;
	/* no single offset: tern_local_first() finds each byte */
	lres->base.start = 0;
	*res = &lres->base;
	return 0;

err_fini:
	ttm_resource_fini(man, &lres->base);
	kfree(lres);
	return ret;
}

static void tern_local_free(struct ttm_resource_manager *man,
			    struct ttm_resource *res)
{
	struct tern_local_mgr *mgr = to_local_mgr(man);
	struct tern_local_res *lres = to_local_res(res);

	mutex_lock(&mgr->lock);
	gpu_buddy_free_list(&mgr->mm, &lres->blocks, 0);
	mutex_unlock(&mgr->lock);
	ttm_resource_fini(man, res);
	kfree(lres);
}

static void tern_local_debug(struct ttm_resource_manager *man,
			     struct drm_printer *p)
{
	struct tern_local_mgr *mgr = to_local_mgr(man);

	mutex_lock(&mgr->lock);
	drm_printf(p, "local: %llu of %llu bytes free\n", mgr->mm.avail,
		   mgr->mm.size);
	mutex_unlock(&mgr->lock);
}

static const struct ttm_resource_manager_func tern_local_func = {
	.alloc = tern_local_alloc,
	.free = tern_local_free,
	.debug = tern_local_debug,
};

/* The buddy allocator @res's blocks come from. */
static struct gpu_buddy *tern_local_mm(struct ttm_resource *res)
{
	return &to_local_mgr(ttm_manager_type(res->bo->bdev, res->mem_type))->mm;
}

/* Put @c at the start of @block of @res. */
static void tern_local_at(struct tern_local_cursor *c, struct ttm_resource *res,
			  struct gpu_buddy_block *block)
{
	c->mm = tern_local_mm(res);
	c->head = &to_local_res(res)->blocks;
	c->block = block;
	c->start = gpu_buddy_block_offset(block);
	c->size = gpu_buddy_block_size(c->mm, block);
}

/**
 * tern_local_first() - start a walk over the local memory of a resource
 * @c: the cursor
 * @res: a resource of %TERN_PL_LOCAL
 * @offset: the byte of the BO to start at, less than its size
 */
void tern_local_first(struct tern_local_cursor *c, struct ttm_resource *res,
		      u64 offset)
{
	tern_local_at(c, res, list_first_entry(&to_local_res(res)->blocks,
					       struct gpu_buddy_block, link));
	tern_local_next(c, offset);
}

/**
 * tern_local_next() - move a walk forward
 * @c: the cursor
 * @bytes: how far; the walk may end exactly at the end of the last block
 */
void tern_local_next(struct tern_local_cursor *c, u64 bytes)
{
	while (bytes >= c->size) {
		bytes -= c->size;
		if (list_is_last(&c->block->link, c->head)) {
			WARN_ON(bytes);
			c->start += c->size;
			c->size = 0;
			return;
		}
		c->block = list_next_entry(c->block, link);
		c->start = gpu_buddy_block_offset(c->block);
		c->size = gpu_buddy_block_size(c->mm, c->block);
	}
	c->start += bytes;
	c->size -= bytes;
}

/**
 * tern_local_seek() - where a byte of a BO is in local memory, for faults
 * @res: a resource of %TERN_PL_LOCAL, whose BO's reservation the caller
 *	holds
 * @offset: the byte of the BO, less than its size
 *
 * A CPU fault maps one page after the other: the resource remembers the
 * block of the last answer, and the next one walks from there, forward or
 * back, so that mapping a BO of many blocks in order, either way, is not
 * quadratic in their number.
 *
 * Return: the offset of that byte in local memory.
 */
u64 tern_local_seek(struct ttm_resource *res, u64 offset)
{
	struct tern_local_res *lres = to_local_res(res);
	struct tern_local_cursor c;

	dma_resv_assert_held(res->bo->base.resv);
	if (!lres->hint) {
		lres->hint = list_first_entry(&lres->blocks,
					      struct gpu_buddy_block, link);
		lres->hint_offset = 0;
	}
	/* back to the block that holds @offset, or one before it */
	while (offset < lres->hint_offset) {
		lres->hint = list_prev_entry(lres->hint, link);
		lres->hint_offset -= gpu_buddy_block_size(tern_local_mm(res),
							  lres->hint);
	}
	tern_local_at(&c, res, lres->hint);
	tern_local_next(&c, offset - lres->hint_offset);
	lres->hint = c.block;
	lres->hint_offset = offset - (c.start - gpu_buddy_block_offset(c.block));
	return c.start;
}

/**
 * tern_local_mgr_init() - the manager of the device's local memory
 * @tdev: the device, with local memory
 *
 * Claims BAR2 (until the driver leaves the device), the CPU's way to local
 * memory, last: a failure leaves nothing claimed.
 *
 * Return: 0 or a negative errno.
 */
int tern_local_mgr_init(struct tern_device *tdev)
{
	struct tern_local_mgr *mgr = &tdev->local_mgr;
	struct ttm_resource_manager *man = &mgr->manager;
	int ret;

	ret = gpu_buddy_init(&mgr->mm, tdev->local_mem_size, PAGE_SIZE);
	if (ret)
		return ret;
	/* the CPU maps BAR2 write-combined (PAT, or MTRRs without it) */
	mgr->bar = pci_resource_start(tdev->pdev, TERN_BAR_LOCAL_MEM);
	ret = arch_io_reserve_memtype_wc(mgr->bar, tdev->local_mem_size);
	if (ret)
		goto err_buddy;
	mgr->wc = arch_phys_wc_add(mgr->bar, tdev->local_mem_size);
	/* another driver's claim on it: not ours to map */
	ret = pcim_request_region(tdev->pdev, TERN_BAR_LOCAL_MEM, "tern");
	if (ret)
		goto err_wc;
	mutex_init(&mgr->lock);
	man->func = &tern_local_func;
	/* in bytes, as the buddy allocator's offsets */
	ttm_resource_manager_init(man, &tdev->ttm, mgr->mm.size);
	ttm_set_driver_manager(&tdev->ttm, TERN_PL_LOCAL, man);
	ttm_resource_manager_set_used(man, true);
	return 0;

err_wc:
	arch_phys_wc_del(mgr->wc);
	arch_io_free_memtype_wc(mgr->bar, tdev->local_mem_size);
err_buddy:
	gpu_buddy_fini(&mgr->mm);
	return ret;
}

/**
 * tern_local_mgr_fini() - tear the manager down, after every BO is gone
 * @tdev: the device
 */
void tern_local_mgr_fini(struct tern_device *tdev)
{
	struct tern_local_mgr *mgr = &tdev->local_mgr;
	struct ttm_resource_manager *man = &mgr->manager;

	ttm_resource_manager_set_used(man, false);
	drm_WARN_ON(&tdev->drm, ttm_resource_manager_usage(man));
	ttm_resource_manager_cleanup(man);
	ttm_set_driver_manager(&tdev->ttm, TERN_PL_LOCAL, NULL);
	gpu_buddy_fini(&mgr->mm);
	mutex_destroy(&mgr->lock);
	arch_phys_wc_del(mgr->wc);
	arch_io_free_memtype_wc(mgr->bar, tdev->local_mem_size);
}
