/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_SCHED_H__
#define __TERN_SCHED_H__

#include <linux/dma-fence.h>
#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <drm/gpu_scheduler.h>

#include "tern_engine.h"
#include "tern_policy.h"

struct dma_fence;
struct drm_printer;
struct tern_device;
struct tern_sched_ctx;
struct tern_sched_job;

/**
 * struct tern_sched_ctx_ops - how the scheduler reports to the context layer
 * @completed: a job of the context completed on the device
 * @faulted: a job of the context faulted; @fault holds the latched registers
 * @hung: a job of the context made no progress for the context's timeout
 *	and the engine was reset
 * @reset: a job of the context was on the engine when it was reset for
 *	another context; it runs again (from where it was last preempted, or
 *	from the start)
 * @preempted: a running job of the context was preempted after @run_ns of
 *	device time; it resumes later where it stopped
 * @finished: the fence of the context's job @seqno signalled, with @error
 *	(0 if it completed); the job itself may be gone already.  Called in
 *	seqno order.
 *
 * All are called with the scheduler's lock held and interrupts off: they may
 * only update counters and spinlock-protected state.
 */
struct tern_sched_ctx_ops {
	void (*completed)(struct tern_sched_ctx *sctx, struct tern_sched_job *job,
			  u64 run_ns);
	void (*faulted)(struct tern_sched_ctx *sctx, struct tern_sched_job *job,
			const struct tern_fault_info *fault, u64 run_ns);
	void (*hung)(struct tern_sched_ctx *sctx, struct tern_sched_job *job);
	void (*reset)(struct tern_sched_ctx *sctx, struct tern_sched_job *job);
	void (*preempted)(struct tern_sched_ctx *sctx, struct tern_sched_job *job,
			  u64 run_ns);
	void (*finished)(struct tern_sched_ctx *sctx, u32 seqno, int error);
};

/**
 * struct tern_sched_ctx - the scheduler's view of a context
 * @ops: callbacks into the context layer
 * @sched: the engine scheduler the context is bound to
 * @entity: the context on the engine's policy: priority, weight, virtual
 *	time and the queue of its ready jobs
 * @cancelled: jobs of a cancelled context, or with an error of their own,
 *	waiting to be signalled with their error once no earlier job of the
 *	context is in a slot (so the context's fences signal in order)
 * @tag: value for SLOT_CTX_TAG, unique on the device
 * @timeout_ns: no-progress time after which a job counts as hung
 * @cancel_error: once non-zero, jobs of the context that did not start are
 *	cancelled with this error instead of run
 * @in_slots: jobs of the context in the engine's slots
 * @kernel: one of the driver's own queues (tern_bind.c): a job of it that
 *	faults or hangs fails alone, the context is not cancelled and its
 *	other jobs still run
 *
 * Everything but @ops, @tag and @timeout_ns is protected by the scheduler's
 * lock.
 */
struct tern_sched_ctx {
	const struct tern_sched_ctx_ops *ops;
	struct tern_sched *sched;
	struct tern_policy_entity entity;
	struct list_head cancelled;
	u32 tag;
	u64 timeout_ns;
	int cancel_error;
	unsigned int in_slots;
	bool kernel;
};

/**
 * struct tern_sched_job - the scheduler's view of a job
 * @pjob: the job on the policy (its link is also used in
 *	&tern_sched_ctx.cancelled)
 * @fence: the hardware fence (&tern_hw_fence.base), signalled by the
 *	scheduler under its lock
 * @ctx: the job's context
 * @desc: what goes into the slot (the scheduler fills in @desc.seqno and
 *	the RESUME flag); @desc.resume is the job's resume record
 * @cmd: CPU address of the DMA buffer, for devcoredumps
 * @seqno: the job's seqno in its context (for reports)
 * @error: if non-zero when the job is picked, it is not run and its fence
 *	signals with this error
 * @resume: the job was preempted: its next run continues from the record
 * @preemptions: times the job was preempted
 * @own_size: bytes of the job's own commands (@desc.buf_size covers the
 *	jobs of its batch too)
 * @resume_cpu: CPU address of the resume record (@desc.resume)
 * @batch_key: jobs of one batch share a non-NULL key: their commands lie
 *	back to back in one coherent allocation, resume records included
 * @batch_next: the next job of the batch this job heads or is part of,
 *	whose commands follow this job's in memory, or NULL
 * @batch_jobs: jobs of the batch this job heads (1 alone)
 * @batchable: short work that waits for nothing: may follow another job in
 *	a batch (tern_validate_batchable())
 */
struct tern_sched_job {
	struct tern_policy_job pjob;
	struct dma_fence *fence;
	struct tern_sched_ctx *ctx;
	struct tern_slot_desc desc;
	const u32 *cmd;
	u32 seqno;
	int error;
	bool resume;
	u32 preemptions;
	u32 own_size;
	void *resume_cpu;
	const void *batch_key;
	struct tern_sched_job *batch_next;
	u32 batch_jobs;
	bool batchable;
};

/*
 * Most jobs, and most bytes of command copies, that one slot runs as a
 * batch (see "DOC: batches" in tern_sched.c).
 */
#define TERN_BATCH_MAX_JOBS	16
#define TERN_BATCH_MAX_BYTES	16384

/* Size and alignment of a job's resume record (docs/hardware.md 11.3). */
#define TERN_RESUME_RECORD_SIZE	64

/* Preemption latencies kept per engine for debugfs. */
#define TERN_PREEMPT_LATENCY_SAMPLES	1024

/**
 * struct tern_sched_preempt_stats - preemptions of one engine
 * @requested: preemption requests written to ENG_PREEMPT
 * @served: requests the engine served
 * @jobs: running jobs that went PREEMPTED (the others ended first)
 * @last_ns: latency of the last served request
 * @max_ns: largest latency
 * @sample: ring of the last latencies, ns
 * @samples: latencies recorded since the last clear; the ring holds the
 *	last min(@samples, TERN_PREEMPT_LATENCY_SAMPLES)
 */
struct tern_sched_preempt_stats {
	u64 requested;
	u64 served;
	u64 jobs;
	u64 last_ns;
	u64 max_ns;
	u64 sample[TERN_PREEMPT_LATENCY_SAMPLES];
	u64 samples;
};

/* Ranges of the tunables (module parameters and debugfs). */
#define TERN_QUANTUM_US_MAX	1000000u
#define TERN_STARVE_MS_MAX	100000u

/**
 * struct tern_sched_params - tunables of the scheduler
 * @mode: &enum tern_policy_mode
 * @quantum_us: time slice inside a priority class, device us
 * @starve_ms: starvation bound of lower classes, device ms
 *
 * All u32, so that debugfs can set any of them by offset.
 */
struct tern_sched_params {
	u32 mode;
	u32 quantum_us;
	u32 starve_ms;
};

/**
 * struct tern_drm_sched - an engine's drm_gpu_scheduler
 * @ref: the device's reference, and one per hardware fence of the engine
 * @base: the scheduler
 *
 * Allocated apart from the device: drm_sched's finished fences read their
 * scheduler's name for as long as they live, which may be longer than the
 * device (a sync_file in another process).
 */
struct tern_drm_sched {
	struct kref ref;
	struct drm_gpu_scheduler base;
};

/**
 * struct tern_hw_fence - a job's hardware fence
 * @base: the fence, signalled by the scheduler
 * @lock: its lock: a fence may outlive the device
 * @drm_sched: the engine's drm_sched, kept while the fence lives
 */
struct tern_hw_fence {
	struct dma_fence base;
	spinlock_t lock; /* the fence's */
	struct tern_drm_sched *drm_sched;
};

int tern_sched_init(struct tern_device *tdev, struct tern_sched *sched,
		    struct tern_engine *eng,
		    const struct drm_sched_backend_ops *ops);
void tern_sched_start(struct tern_sched *sched);
void tern_sched_quiesce(struct tern_sched *sched);
void tern_sched_cancel_jobs(struct tern_sched *sched, int error);
void tern_sched_fini(struct tern_sched *sched);
void tern_sched_fence_init(struct tern_sched *sched, struct tern_hw_fence *hw,
			   u64 context, u64 seqno);
struct dma_fence *tern_sched_fence_done(struct tern_sched *sched, u64 context,
					u64 seqno, int error);
void tern_sched_ctx_init(struct tern_sched *sched, struct tern_sched_ctx *sctx,
			 unsigned int priority, u32 weight);
void tern_sched_ctx_set_driver(struct tern_sched_ctx *sctx);
void tern_sched_ctx_set_kernel(struct tern_sched_ctx *sctx);
void tern_sched_ctx_fini(struct tern_sched_ctx *sctx);
void tern_sched_push(struct tern_sched *sched, struct tern_sched_job *job);
void tern_sched_queue(struct tern_sched *sched, struct tern_sched_job *job);
void tern_sched_kick(struct tern_sched *sched);
void tern_sched_ctx_cancel(struct tern_sched_ctx *sctx, int error);
/**
 * struct tern_sched - the scheduler of one engine
 * @tdev: the device
 * @eng: the engine it feeds
 * @drm: drm_sched instance resolving job dependencies; its run_job hands
 *	ready jobs to tern_sched_push()
 * @lock: protects everything below, the policy and every
 *	&tern_sched_ctx bound to the engine; it is the lock of the job fences
 * @params: the tunables as last set (the policy derives its own from them)
 * @policy: what runs next (tern_policy.c)
 * @slot: job in each hardware slot, NULL if the slot is FREE
 * @order: slots in doorbell order; @order[0] is the one running
 * @inflight: number of occupied slots
 * @hw_seqno: last value written to a slot's SEQNO for a new run
 * @done_seq: low 24 bits of the DONE_SEQ of the last slot retired: a done
 *	record is taken for the next DONE only if it follows this one
 * @stopped: the device is gone, or the engine was lost (a reset that did
 *	not end): nothing is programmed any more
 * @resetting: an engine reset is in progress: nothing is programmed
 * @raw: the engine is lent to tern_sched_raw_run(): nothing is programmed
 * @raw_wait: tern_sched_raw_run() waits here for the slots to drain and
 *	for its runs
 * @raw_irq: interrupts taken while the engine is lent
 * @done_work: the scheduler's event handler: retires DONE slots, refills,
 *	decides on preemption
 * @watchdog: polls progress (hang detection), slots (lost interrupts) and
 *	starvation
 * @check_timer: wakes @done_work when time alone can change the policy's
 *	answer (end of a quantum, a starvation bound reached)
 * @progress: hang predicate state of the running job
 * @run_start_ns: ENG_BUSY_NS when the running job started (or now, while
 *	the engine is idle): advanced by the RUN_NS of each retired run, read
 *	from the device only after a reset or raw_nop
 * @progress_sampled: @progress holds a sample taken since the running job
 *	became the head (the watchdog takes the first)
 * @preempting: a preemption request is outstanding: nothing is programmed
 *	until both slots are DONE
 * @hang_suspect: the running job made no progress for its timeout; a
 *	preemption request was written so that it cannot start the PENDING
 *	job if it ends after all; nothing is programmed; the next watchdog
 *	tick resets the engine if the job is still there
 * @suspect_request: the request of @hang_suspect was written by the
 *	suspicion itself (no other was outstanding): if the suspicion ends
 *	before a reset, it becomes an ordinary outstanding request
 *	(@preempting), since the engine still serves it
 * @preempt_start_ns: ktime of the outstanding request
 * @preempt_irq_ns: ktime of the last PREEMPT_DONE interrupt
 * @preempt_ctx_tag: context of the job running at the request (for tracing)
 * @preempt_seqno: its seqno
 * @preempt: preemption counters and latencies
 * @ctx_count: contexts bound to the engine, for placement
 * @queued: ready jobs on the policy
 * @jobs_run: runs programmed into a slot (a resumed job counts again)
 * @jobs_completed: jobs that completed
 * @faults: faults reported by the engine
 * @resets: engine resets after a hang
 * @batches: slots programmed with a batch of more than one job
 * @batched_jobs: jobs those batches held
 */
struct tern_sched {
	struct tern_device *tdev;
	struct tern_engine *eng;
	struct tern_drm_sched *drm;

	spinlock_t lock; /* see above */
	struct tern_sched_params params;
	struct tern_policy policy;
	struct tern_sched_job *slot[TERN_SLOTS_PER_ENGINE];
	unsigned int order[TERN_SLOTS_PER_ENGINE];
	unsigned int inflight;
	u32 hw_seqno;
	u32 done_seq;
	bool stopped;
	bool resetting;
	bool raw;
	wait_queue_head_t raw_wait;
	atomic_t raw_irq;

	struct work_struct done_work;
	struct delayed_work watchdog;
	struct hrtimer check_timer;
	struct tern_policy_progress progress;
	u64 run_start_ns;
	bool progress_sampled;

	bool preempting;
	struct tern_sched_job *hang_suspect;
	bool suspect_request;
	u64 preempt_start_ns;
	u64 preempt_irq_ns;
	u32 preempt_ctx_tag;
	u32 preempt_seqno;
	struct tern_sched_preempt_stats preempt;

	atomic_t ctx_count;
	unsigned int queued;
	u64 jobs_run;
	u64 jobs_completed;
	u64 faults;
	u64 resets;
	u64 batches;
	u64 batched_jobs;
};

const char *tern_sched_mode_name(int mode);
int tern_sched_mode_parse(const char *name);
void tern_sched_default_params(struct tern_sched_params *params);
void tern_sched_get_params(struct tern_sched *sched,
			   struct tern_sched_params *params);
void tern_sched_set_params(struct tern_sched *sched,
			   const struct tern_sched_params *params);
int tern_sched_raw_run(struct tern_sched *sched,
		       const struct tern_slot_desc *desc, unsigned int count,
		       bool pipelined, u64 *total_ns, u64 *sample_ns);
void tern_sched_debugfs_show(struct tern_sched *sched, struct drm_printer *p);
void tern_sched_debugfs_show_queue(struct tern_sched *sched,
				   struct drm_printer *p);
void tern_sched_debugfs_show_latency(struct tern_sched *sched,
				     struct drm_printer *p);
void tern_sched_clear_latency(struct tern_sched *sched);

#endif /* __TERN_SCHED_H__ */
