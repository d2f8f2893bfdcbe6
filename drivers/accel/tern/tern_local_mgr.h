/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_LOCAL_MGR_H__
#define __TERN_LOCAL_MGR_H__

#include <linux/gpu_buddy.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include <drm/ttm/ttm_resource.h>

struct drm_printer;
struct tern_device;

/**
 * struct tern_local_mgr - TTM's manager of device-local memory
 * @manager: the TTM resource manager
 * @mm: the buddy allocator of the local memory's offsets
 * @lock: protects @mm
 * @bar: where BAR2 starts, the CPU's way to local memory
 * @wc: the write-combining range of BAR2 (arch_phys_wc_add())
 */
struct tern_local_mgr {
	struct ttm_resource_manager manager;
	struct gpu_buddy mm;
	struct mutex lock; /* see above */
	resource_size_t bar;
	int wc;
};

/**
 * struct tern_local_cursor - a walk over the local memory of a resource
 * @mm: the buddy allocator the blocks are from
 * @head: the resource's list of blocks
 * @block: the block the walk is in
 * @start: local-memory offset of the walk's position
 * @size: bytes left in @block from @start
 */
struct tern_local_cursor {
	struct gpu_buddy *mm;
	struct list_head *head;
	struct gpu_buddy_block *block;
	u64 start;
	u64 size;
};

int tern_local_mgr_init(struct tern_device *tdev);
void tern_local_mgr_fini(struct tern_device *tdev);
void tern_local_first(struct tern_local_cursor *c, struct ttm_resource *res,
		      u64 offset);
void tern_local_next(struct tern_local_cursor *c, u64 bytes);
u64 tern_local_seek(struct ttm_resource *res, u64 offset);

#endif /* __TERN_LOCAL_MGR_H__ */
