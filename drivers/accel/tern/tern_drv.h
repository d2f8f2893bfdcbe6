/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_DRV_H__
#define __TERN_DRV_H__

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#define TERN_DRIVER_NAME	"tern"
#define TERN_DRIVER_DESC	"tern compute accelerator"
#define TERN_DRIVER_MAJOR	1
#define TERN_DRIVER_MINOR	8

struct drm_file;
struct tern_device;
struct tern_vm;

/**
 * struct tern_file_usage - what the jobs of a file hold
 * @ref: held by the file and by each job not yet freed, which may outlive it
 * @cmd_bytes: bytes of command-buffer copies (DMA memory) of its unfinished
 *	jobs, limited to TERN_MAX_QUEUED_BYTES_PER_FILE (the uAPI's
 *	max_queued_bytes)
 * @held_bytes: the same for its jobs not yet freed, finished ones included,
 *	limited to TERN_MAX_HELD_BYTES_PER_FILE: finished jobs are freed from
 *	a work item, which a file that submits as soon as its jobs finish
 *	must not outrun without bound
 */
struct tern_file_usage {
	struct kref ref;
	atomic64_t cmd_bytes;
	atomic64_t held_bytes;
};

static inline void tern_file_usage_release(struct kref *ref)
{
	kfree(container_of(ref, struct tern_file_usage, ref));
}

static inline void tern_file_usage_put(struct tern_file_usage *usage)
{
	kref_put(&usage->ref, tern_file_usage_release);
}

/**
 * struct tern_file - per open file state (drm_file.driver_priv)
 * @tdev: the device
 * @vm: the file's address space
 * @contexts: context handle -> struct tern_context
 * @lock: serialises context creation, lookup and destruction of this file
 * @context_count: number of contexts in @contexts
 * @next_context: where the search for the next context handle starts:
 *	handles are not reused until they wrap, so that a (context, seqno)
 *	pair of DRM_IOCTL_TERN_WAIT never names another context's job
 * @retired_busy_ns: device time of destroyed contexts, per engine class
 * @usage: memory held by the file's unfinished jobs
 * @client_id: drm_file client id, for fdinfo and drm_sched
 */
struct tern_file {
	struct tern_device *tdev;
	struct tern_vm *vm;
	struct xarray contexts;
	struct mutex lock; /* protects @contexts and @context_count */
	unsigned int context_count;
	u32 next_context;
	u64 retired_busy_ns[2];
	struct tern_file_usage *usage;
	u64 client_id;
};

static inline struct tern_file *to_tern_file(struct drm_file *file)
{
	return file->driver_priv;
}

#endif /* __TERN_DRV_H__ */
