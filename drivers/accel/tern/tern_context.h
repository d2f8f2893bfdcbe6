/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_CONTEXT_H__
#define __TERN_CONTEXT_H__

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <drm/gpu_scheduler.h>

#include "tern_progress.h"
#include "tern_sched.h"

struct drm_device;
struct drm_file;
struct drm_printer;
struct tern_device;
struct tern_bo;
struct tern_file;
struct tern_vm;

/**
 * struct tern_context - a queue of work for one engine, owned by a file
 * @ref: reference count: the file's handle and every unfinished job
 * @rcu: the context is freed after a grace period: tern_context_lookup()
 *	finds it without the file's lock
 * @tdev: the device
 * @vm: the address space of the owning file (a reference)
 * @handle: handle in the owning file
 * @priority: enum drm_tern_priority
 * @engine_class: enum drm_tern_engine_class
 * @timeout_ms: hang timeout
 * @weight: share weight inside its priority class
 * @sched: the scheduler of the engine the context is bound to
 * @sctx: the scheduler's view of the context
 * @entity: drm_sched entity resolving its jobs' dependencies
 * @submit_lock: serialises seqno assignment, arming and pushing of jobs
 *	against each other and against the context's destruction
 * @closed: the context's handle is gone: no job is pushed any more
 *	(protected by @submit_lock)
 * @fence_context: dma_fence context of its hardware fences
 * @next_seqno: seqno of the last submitted job
 * @pending: jobs submitted whose fence has not signalled (limit
 *	TERN_MAX_JOBS_PER_CONTEXT)
 * @sched_jobs: jobs pushed to drm_sched and not yet handed to the
 *	scheduler: while there are any, new jobs follow them through drm_sched
 * @progress: what became of its jobs (DRM_IOCTL_TERN_WAIT, the progress
 *	page)
 * @progress_bo: with %DRM_TERN_CONTEXT_CREATE_PROGRESS, the progress page
 * @progress_file: the file that may map @progress_bo, until the handle
 *	goes
 * @link: in the device's list of contexts (debugfs)
 * @release_work: frees the context after the last reference
 * @state_lock: protects the fields below
 * @jobs: the jobs not released yet, in seqno order, for
 *	DRM_IOCTL_TERN_JOB_FENCE: added once armed, under @submit_lock too;
 *	a job leaves when it is released
 * @state: enum drm_tern_context_state
 * @reason: enum drm_tern_context_reason
 * @fault_kind: TERN_FAULT_* of the fault
 * @fault_offset: dword index of the faulting packet
 * @fault_addr: faulting address
 * @fault_seqno: seqno of the guilty job
 * @reset_count: engine resets that hit this context
 * @jobs_submitted: jobs submitted
 * @submitted_seqno: seqno of the last of them
 * @jobs_completed: jobs that completed on the device
 * @busy_ns: device time of its runs
 * @preemptions: times a running job of the context was preempted
 * @paging: what the residency of its jobs moved (tern_residency.c):
 *	bytes paged in and out, evictions, device time
 */
struct tern_context {
	struct kref ref;
	struct rcu_head rcu;
	struct tern_device *tdev;
	struct tern_vm *vm;
	u32 handle;
	u32 priority;
	u32 engine_class;
	u32 timeout_ms;
	u32 weight;

	struct tern_sched *sched;
	struct tern_sched_ctx sctx;
	struct drm_sched_entity entity;

	struct mutex submit_lock; /* see above */
	bool closed;
	u64 fence_context;
	u32 next_seqno;
	atomic_t pending;
	atomic_t sched_jobs;
	struct tern_progress progress;
	struct tern_bo *progress_bo;
	struct drm_file *progress_file;
	struct list_head link;
	struct work_struct release_work;

	spinlock_t state_lock; /* see above */
	struct list_head jobs;
	u32 state;
	u32 reason;
	u32 fault_kind;
	u32 fault_offset;
	u64 fault_addr;
	u32 fault_seqno;
	u32 reset_count;
	u64 jobs_submitted;
	u32 submitted_seqno;
	u64 jobs_completed;
	u64 busy_ns;
	u64 preemptions;
	struct {
		u64 bytes_in;
		u64 bytes_out;
		u64 evictions;
		u64 ns;
	} paging;
};

struct tern_context *tern_context_lookup(struct tern_file *tfile, u32 handle);
void tern_context_put(struct tern_context *ctx);
bool tern_context_usable(struct tern_context *ctx);
void tern_context_destroy_all(struct tern_file *tfile);
void tern_context_debugfs_show(struct tern_device *tdev, struct drm_printer *p);
void tern_context_busy_ns(struct tern_file *tfile, u64 *busy_ns_per_class);

int tern_context_create_ioctl(struct drm_device *drm, void *data,
			      struct drm_file *file);
int tern_context_destroy_ioctl(struct drm_device *drm, void *data,
			       struct drm_file *file);
int tern_context_get_state_ioctl(struct drm_device *drm, void *data,
				 struct drm_file *file);
int tern_context_wait_ioctl(struct drm_device *drm, void *data,
			    struct drm_file *file);
u32 tern_context_next_seqno(const struct tern_context *ctx);
bool tern_context_seqno_submitted(struct tern_context *ctx, u32 seqno);

#endif /* __TERN_CONTEXT_H__ */
