/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_DRV_H__
#define __TERN_DRV_H__

#include <linux/mutex.h>
#include <linux/xarray.h>

#define TERN_DRIVER_NAME	"tern"
#define TERN_DRIVER_DESC	"tern compute accelerator"
#define TERN_DRIVER_MAJOR	1
#define TERN_DRIVER_MINOR	0

struct drm_file;
struct tern_device;
struct tern_vm;

/**
 * struct tern_file - per open file state (drm_file.driver_priv)
 * @tdev: the device
 * @vm: the file's address space
 * @contexts: context handle -> struct tern_context
 * @lock: serialises context creation, lookup and destruction of this file
 * @context_count: number of contexts in @contexts
 * @retired_busy_ns: device time of destroyed contexts, per engine class
 * @client_id: drm_file client id, for fdinfo and drm_sched
 */
struct tern_file {
	struct tern_device *tdev;
	struct tern_vm *vm;
	struct xarray contexts;
	struct mutex lock; /* protects @contexts and @context_count */
	unsigned int context_count;
	u64 retired_busy_ns[2];
	u64 client_id;
};

static inline struct tern_file *to_tern_file(struct drm_file *file)
{
	return file->driver_priv;
}

#endif /* __TERN_DRV_H__ */
