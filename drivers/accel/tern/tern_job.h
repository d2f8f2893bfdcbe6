/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_JOB_H__
#define __TERN_JOB_H__

#include <drm/gpu_scheduler.h>

#include "tern_sched.h"

struct drm_device;
struct drm_file;
struct drm_gem_object;
struct tern_context;
struct tern_file_usage;

/**
 * struct tern_job - one submitted command buffer
 * @base: the drm_sched job (dependencies, finished fence)
 * @hw: the scheduler's view (hardware fence, slot description)
 * @ctx: the context (a reference)
 * @cmd: CPU address of the kernel-owned DMA buffer holding the validated
 *	copy of the user's command buffer
 * @cmd_dma: its bus address
 * @cmd_size: its size in bytes
 * @bos: the buffer objects the job uses (references)
 * @bo_count: entries of @bos
 * @usage: the submitting file's usage, charged with @cmd_size (a reference)
 */
struct tern_job {
	struct drm_sched_job base;
	struct tern_sched_job hw;
	struct tern_context *ctx;
	u32 *cmd;
	dma_addr_t cmd_dma;
	u32 cmd_size;
	struct drm_gem_object **bos;
	u32 bo_count;
	struct tern_file_usage *usage;
};

extern const struct drm_sched_backend_ops tern_job_sched_ops;

int tern_submit_ioctl(struct drm_device *drm, void *data, struct drm_file *file);

#endif /* __TERN_JOB_H__ */
