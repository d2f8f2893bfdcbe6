/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_TTM_H__
#define __TERN_TTM_H__

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

int tern_ttm_init(struct tern_device *tdev);
void tern_ttm_unplug(struct tern_device *tdev);

struct sg_table *tern_ttm_dma_map(struct tern_bo *bo);

#endif /* __TERN_TTM_H__ */
