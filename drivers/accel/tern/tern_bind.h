/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_BIND_H__
#define __TERN_BIND_H__

#include <linux/mutex.h>
#include <linux/types.h>

#include "tern_sched.h"

struct drm_printer;
struct tern_device;

/**
 * struct tern_bind_queue - a queue of the driver's own jobs on the copy
 *	engine: the page-table updates (&tern_device.bind), or the paging
 *	buffers (&tern_device.paging_queue)
 * @sctx: its context on the copy engine's scheduler
 * @wq: runs the address spaces' binds (&tern_vm.bind_work): on the
 *	fence-signalling side, so with a rescuer (the update queue only)
 * @lock: makes seqno order and push order the same
 * @fence_context: dma_fence context of its jobs
 * @next_seqno: seqno of the last job pushed (protected by @lock)
 * @jobs: jobs that completed
 * @retries: jobs run again after a failure of their own
 * @failures: jobs given up (after TERN_BIND_TRIES runs, or the engine
 *	lost)
 * @preemptions: runs preempted (paging jobs, which have resume records)
 * @busy_ns: device time of the jobs
 * The counters are protected by the scheduler's lock.
 */
struct tern_bind_queue {
	struct tern_sched_ctx sctx;
	struct workqueue_struct *wq;
	struct mutex lock; /* see above */
	u64 fence_context;
	u32 next_seqno;
	u64 jobs;
	u64 retries;
	u64 failures;
	u64 preemptions;
	u64 busy_ns;
};

struct tern_bind_job;

/**
 * struct tern_bind_run - what running one update takes, allocated before
 *	the update is recorded (tern_bind_prepare())
 * @job: the job, run once per piece and try
 * @fences: a hardware fence for each run
 * @nr_fences: entries of @fences
 * @used: fences used so far
 * @device_ns: device time of its runs, for the account of whoever asked
 */
struct tern_bind_run {
	struct tern_bind_job *job;
	struct tern_hw_fence **fences;
	unsigned int nr_fences;
	unsigned int used;
	u64 device_ns;
};

int tern_bind_init(struct tern_device *tdev);
int tern_bind_prepare(struct tern_device *tdev, u64 cmd_bytes,
		      struct tern_bind_run *run);
int tern_bind_run(struct tern_device *tdev, struct tern_bind_run *run,
		  const u32 *cmd, dma_addr_t cmd_dma, u32 dwords, u64 root);
int tern_bind_run_paging(struct tern_device *tdev, struct tern_bind_run *run,
			 const u32 *cmd, dma_addr_t cmd_dma, u32 dwords,
			 u64 root, void *resume_cpu, dma_addr_t resume_dma);
void tern_bind_release(struct tern_bind_run *run);
void tern_bind_debugfs_show(struct tern_device *tdev, struct drm_printer *p);
void tern_bind_debugfs_show_paging(struct tern_device *tdev,
				   struct drm_printer *p);

#endif /* __TERN_BIND_H__ */
