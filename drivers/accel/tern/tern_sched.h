/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_SCHED_H__
#define __TERN_SCHED_H__

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <drm/gpu_scheduler.h>

#include "tern_engine.h"

struct dma_fence;
struct drm_printer;
struct tern_device;
struct tern_sched_ctx;
struct tern_sched_job;

/**
 * struct tern_sched_ctx_ops - how the feeder reports to the context layer
 * @completed: a job of the context completed on the device
 * @faulted: a job of the context faulted; @fault holds the latched registers
 * @hung: a job of the context made no progress for the context's timeout
 *	and the engine was reset
 * @reset: a job of the context was on the engine when it was reset for
 *	another context; it is run again from the start
 *
 * All are called with the feeder's lock held and interrupts off: they may
 * only update counters and spinlock-protected state.
 */
struct tern_sched_ctx_ops {
	void (*completed)(struct tern_sched_ctx *sctx, struct tern_sched_job *job,
			  u64 run_ns);
	void (*faulted)(struct tern_sched_ctx *sctx, struct tern_sched_job *job,
			const struct tern_fault_info *fault, u64 run_ns);
	void (*hung)(struct tern_sched_ctx *sctx, struct tern_sched_job *job);
	void (*reset)(struct tern_sched_ctx *sctx, struct tern_sched_job *job);
};

/**
 * struct tern_sched_ctx - the feeder's view of a context
 * @ops: callbacks into the context layer
 * @sched: the engine feeder the context is bound to
 * @tag: value for SLOT_CTX_TAG, unique on the device
 * @timeout: no-progress time after which a job counts as hung, jiffies
 * @cancel_error: under the feeder's lock; once non-zero, jobs of the context
 *	that did not start are cancelled with this error instead of run
 */
struct tern_sched_ctx {
	const struct tern_sched_ctx_ops *ops;
	struct tern_sched *sched;
	u32 tag;
	unsigned long timeout;
	int cancel_error;
};

/**
 * struct tern_sched_job - the feeder's view of a job
 * @link: in the feeder's queue
 * @fence: the hardware fence, signalled by the feeder (its lock is the
 *	feeder's lock)
 * @ctx: the job's context
 * @desc: what goes into the slot (the feeder fills in @desc.seqno)
 * @cmd: CPU address of the DMA buffer, for devcoredumps
 * @seqno: the job's seqno in its context (for reports)
 * @error: if non-zero when the job reaches the head of the queue, it is not
 *	run and its fence signals with this error
 */
struct tern_sched_job {
	struct list_head link;
	struct dma_fence *fence;
	struct tern_sched_ctx *ctx;
	struct tern_slot_desc desc;
	const u32 *cmd;
	u32 seqno;
	int error;
};

/**
 * struct tern_sched - the in-order feeder of one engine
 * @tdev: the device
 * @eng: the engine it feeds
 * @drm: drm_sched instance resolving job dependencies; its run_job hands
 *	ready jobs to tern_sched_push()
 * @lock: protects everything below, and is the lock of the job fences
 * @queue: ready jobs waiting for a slot, in order
 * @slot: job in each hardware slot, NULL if the slot is FREE
 * @order: slots in doorbell order; @order[0] is the one running
 * @inflight: number of occupied slots
 * @hw_seqno: last value written to a slot's SEQNO
 * @stopped: the device is gone: nothing is programmed any more
 * @resetting: an engine reset is in progress: nothing is programmed
 * @done_work: bottom half of the engine's interrupt
 * @watchdog: polls progress (hang detection) and slots (lost interrupts)
 * @progress: last sample of TERN_ENG_PROGRESS
 * @progress_stamp: jiffies when @progress last moved
 * @ctx_count: contexts bound to the engine, for placement
 * @queued: jobs in @queue
 * @jobs_run: jobs programmed into a slot
 * @jobs_completed: jobs that completed
 * @faults: faults reported by the engine
 * @resets: engine resets after a hang
 */
struct tern_sched {
	struct tern_device *tdev;
	struct tern_engine *eng;
	struct drm_gpu_scheduler drm;

	spinlock_t lock; /* see above */
	struct list_head queue;
	struct tern_sched_job *slot[TERN_SLOTS_PER_ENGINE];
	unsigned int order[TERN_SLOTS_PER_ENGINE];
	unsigned int inflight;
	u32 hw_seqno;
	bool stopped;
	bool resetting;

	struct work_struct done_work;
	struct delayed_work watchdog;
	u32 progress;
	unsigned long progress_stamp;

	atomic_t ctx_count;
	unsigned int queued;
	u64 jobs_run;
	u64 jobs_completed;
	u64 faults;
	u64 resets;
};

int tern_sched_init(struct tern_device *tdev, struct tern_sched *sched,
		    struct tern_engine *eng,
		    const struct drm_sched_backend_ops *ops);
void tern_sched_start(struct tern_sched *sched);
void tern_sched_stop(struct tern_sched *sched);
void tern_sched_fini(struct tern_sched *sched);
void tern_sched_fence_init(struct tern_sched *sched, struct dma_fence *fence,
			   u64 context, u64 seqno);
void tern_sched_push(struct tern_sched *sched, struct tern_sched_job *job);
void tern_sched_ctx_cancel(struct tern_sched_ctx *sctx, int error);
void tern_sched_debugfs_show(struct tern_sched *sched, struct drm_printer *p);
void tern_sched_debugfs_show_queue(struct tern_sched *sched,
				   struct drm_printer *p);

#endif /* __TERN_SCHED_H__ */
