/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_SYSFS_H__
#define __TERN_SYSFS_H__

struct attribute_group;

extern const struct attribute_group *tern_sysfs_groups[];

#endif /* __TERN_SYSFS_H__ */
