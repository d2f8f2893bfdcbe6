/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_JOB_H__
#define __TERN_JOB_H__

#include <linux/dma-fence.h>
#include <linux/llist.h>
#include <linux/workqueue.h>

#include <drm/gpu_scheduler.h>

#include "tern_sched.h"

struct drm_device;
struct drm_file;
struct drm_gem_object;
struct tern_context;
struct tern_device;
struct tern_file_usage;

/*
 * How long a finished job may wait on &tern_device.free_jobs for a
 * submission to release it before the free work does.
 */
#define TERN_JOB_FREE_DELAY	msecs_to_jiffies(2)

/**
 * struct tern_cmd_block - DMA memory shared by consecutive jobs of one
 *	context submitted by one DRM_IOCTL_TERN_SUBMIT_MANY
 * @ref: one per job using it, and the ioctl's while it runs
 * @tdev: the device
 * @cpu: CPU address: the jobs' command copies back to back, then their
 *	resume records
 * @dma: its bus address
 * @size: bytes allocated
 *
 * Their copies being contiguous, the scheduler can run several of those
 * jobs in one slot (see "DOC: batches" in tern_sched.c).
 */
struct tern_cmd_block {
	struct kref ref;
	struct tern_device *tdev;
	void *cpu;
	dma_addr_t dma;
	size_t size;
};

/**
 * struct tern_job - one submitted command buffer
 * @base: the drm_sched job (dependencies, finished fence)
 * @hw: the scheduler's view (hardware fence, slot description)
 * @ctx: the context (a reference)
 * @cmd: CPU address of the kernel-owned DMA buffer holding the validated
 *	copy of the user's command buffer, then (if it has room) the job's
 *	resume record
 * @cmd_dma: its bus address
 * @cmd_size: size of the command buffer in bytes
 * @resume: CPU address of the resume record when it is not in @cmd's
 *	allocation, else NULL
 * @resume_dma: bus address of the resume record
 * @block: the shared memory @cmd and the record are in (a reference), or
 *	NULL when the job has its own
 * @charge: bytes the job counts against its file's limits
 * @bos: the buffer objects the job uses (references)
 * @bo_count: entries of @bos
 * @usage: the submitting file's usage (a reference)
 * @counted: the job counts in &tern_context.pending
 * @charged: @usage is charged with the memory of @cmd and @resume
 * @deps: the in-fences (references), checked for errors when the job is
 *	ready, then released
 * @dep_count: entries of @deps
 * @scheduled: @base is initialised: the job waits for its in-fences in
 *	drm_sched, which hands it to the scheduler and frees it; otherwise it
 *	went to the scheduler from the submit ioctl, and @signal_cb frees it
 * @signal_cb: on the hardware fence once the job is pushed to the
 *	scheduler: uncharges the job (@counted, @charged) when it signals
 * @free_node: in &tern_device.free_jobs once finished
 * @ctx_link: in &tern_context.jobs from its arming to its release; empty
 *	before
 */
struct tern_job {
	struct drm_sched_job base;
	struct tern_sched_job hw;
	struct tern_context *ctx;
	u32 *cmd;
	dma_addr_t cmd_dma;
	u32 cmd_size;
	void *resume;
	dma_addr_t resume_dma;
	struct tern_cmd_block *block;
	size_t charge;
	struct drm_gem_object **bos;
	u32 bo_count;
	struct tern_file_usage *usage;
	bool counted;
	bool charged;
	struct dma_fence **deps;
	u32 dep_count;
	bool scheduled;
	struct dma_fence_cb signal_cb;
	struct llist_node free_node;
	struct list_head ctx_link;
};

extern const struct drm_sched_backend_ops tern_job_sched_ops;

int tern_submit_ioctl(struct drm_device *drm, void *data, struct drm_file *file);
int tern_submit_many_ioctl(struct drm_device *drm, void *data,
			   struct drm_file *file);
int tern_job_fence_ioctl(struct drm_device *drm, void *data,
			 struct drm_file *file);
void tern_job_free_work(struct work_struct *work);
void tern_job_reap(struct tern_device *tdev);

#endif /* __TERN_JOB_H__ */
