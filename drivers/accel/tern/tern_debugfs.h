/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_DEBUGFS_H__
#define __TERN_DEBUGFS_H__

struct tern_device;

#if IS_ENABLED(CONFIG_DEBUG_FS)
void tern_debugfs_init(struct tern_device *tdev);
#else
static inline void tern_debugfs_init(struct tern_device *tdev) { }
#endif

#endif /* __TERN_DEBUGFS_H__ */
