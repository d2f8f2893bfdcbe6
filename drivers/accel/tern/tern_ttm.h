/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_TTM_H__
#define __TERN_TTM_H__

#include <linux/list.h>
#include <linux/types.h>

#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_placement.h>

struct sg_table;
struct tern_bo;
struct tern_device;

/* device-local memory, in TTM's memory type of device memory */
#define TERN_PL_LOCAL	TTM_PL_VRAM

extern struct ttm_placement tern_placement_system;
extern struct ttm_placement tern_placement_local;
extern struct ttm_placement tern_placement_local_preferred;
extern struct ttm_placement tern_placement_tt;

/**
 * struct tern_ttm_mover - one validation that may move BOs, and what it
 *	moved: the paging that a submit's residency caused
 * @ctx: TTM's context of the validation, passed to ttm_bo_validate(); TTM
 *	hands it down to the evictions it makes for it
 * @link: in &tern_device.movers while registered
 * @bytes_in: bytes paged into local memory (or cleared there)
 * @bytes_out: bytes paged out of it
 * @evictions: BOs evicted to make room
 * @paging_ns: device time of those paging buffers
 *
 * The counters are written by the moves, which run in the thread that
 * validates: no lock.
 */
struct tern_ttm_mover {
	struct ttm_operation_ctx ctx;
	struct list_head link;
	u64 bytes_in;
	u64 bytes_out;
	u64 evictions;
	u64 paging_ns;
};

void tern_ttm_mover_begin(struct tern_device *tdev, struct tern_ttm_mover *m);
void tern_ttm_mover_end(struct tern_device *tdev, struct tern_ttm_mover *m);

int tern_ttm_init(struct tern_device *tdev);
void tern_ttm_unplug(struct tern_device *tdev);

struct sg_table *tern_ttm_dma_map(struct tern_bo *bo);

#endif /* __TERN_TTM_H__ */
