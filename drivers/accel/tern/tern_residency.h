/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_RESIDENCY_H__
#define __TERN_RESIDENCY_H__

#include <linux/types.h>

struct drm_gem_object;
struct tern_device;
struct tern_ttm_mover;

/* how long a submit tries again to make its BOs resident */
#define TERN_RESIDENCY_RETRY_MS	1000

bool tern_residency_needed(struct drm_gem_object **bos, u32 count);
bool tern_residency_must_move(struct drm_gem_object **bos, u32 count);
int tern_residency_validate(struct tern_device *tdev,
			    struct drm_gem_object **bos, u32 count,
			    struct tern_ttm_mover *m, bool serial);

#endif /* __TERN_RESIDENCY_H__ */
