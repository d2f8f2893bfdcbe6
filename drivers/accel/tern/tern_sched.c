// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/dma-fence.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <drm/drm_print.h>

#include "tern_coredump.h"
#include "tern_device.h"
#include "tern_sched.h"
#include "tern_trace.h"

/**
 * DOC: scheduler
 *
 * Each engine has a two-slot hardware queue and one &struct tern_sched that
 * decides what goes into it.  The decisions are the policy's
 * (tern_policy.c: priority classes, weighted fair share of device time,
 * quantum, no starvation, or first come first served); this file applies
 * them to the hardware: it programs free slots with the job the policy
 * picks, retires DONE slots in doorbell order, requests preemption when the
 * policy says so and gives preempted work back to the policy.
 *
 * Dependencies are drm_sched's job: each engine has a drm_gpu_scheduler and
 * each context one drm_sched_entity on it; drm_sched calls run_job (in
 * tern_job.c) once a job's in-fences signalled, and run_job hands the job to
 * tern_sched_push(), which puts it on its context's queue in the policy.
 * The credit limit is high, so drm_sched never throttles: what the hardware
 * runs next is decided here only.
 *
 * Scheduling events: every decision runs under @lock, from one of five
 * events: a job became ready (tern_sched_push(), from the submit ioctl or
 * drm_sched's run_job), slots COMPLETED (the engine's interrupt, in
 * hard-IRQ context: tern_sched_irq()), a slot went DONE with another
 * outcome or a preemption request was served (@done_work, queued by the
 * interrupt), a quantum or a starvation bound ran out (@check_timer queues
 * @done_work) and the watchdog tick (@watchdog, every TERN_WATCHDOG_PERIOD
 * while a slot is busy).  @done_work and @watchdog run on the device's
 * ordered workqueue, never concurrently; faults, preemptions and resets
 * are only ever handled there (see docs/scheduler.md).  Each event runs
 * tern_sched_event() or part of it: retire DONE slots, fill free slots,
 * then ask the policy whether the running job should be preempted (a
 * submission only fills and asks, and the policy is not asked at all, nor
 * a register read, while the engine has nothing else to run).
 *
 * Preemption: every job has a 64-byte resume record next to its DMA buffer
 * and every slot is programmed with it, so every run is preemptible.  On a
 * request the engine stops the RUNNING slot at its next preemption point
 * (outcome PREEMPTED, the record written) and cancels the PENDING one
 * (CANCELLED); nothing is programmed while the request is outstanding.  The
 * preempted job is charged its RUN_NS and both go back to the heads of their
 * contexts' queues in their order (tern_policy_requeue()); the preempted
 * one is later programmed with FLAGS.RESUME and continues where it stopped.
 * The request is served when both slots are DONE; its latency (request to
 * PREEMPT_DONE interrupt) is kept per engine for debugfs and traced.
 *
 * Order: a context's jobs leave its policy queue in submission order and
 * slots complete in doorbell order, so its fences signal in seqno order.
 * Jobs that must not run (context destroyed, faulted or banned; failed
 * dependency) are signalled with their error only once no earlier job of
 * their context is in a slot (&tern_sched_ctx.cancelled), which keeps that
 * order.
 *
 * Outcomes: COMPLETED signals the fence; FAULTED signals it with -EIO, tells
 * the context (which stops taking work), cancels the context's queued jobs
 * and takes a devcoredump; the job cancelled behind a fault goes back to
 * its queue.  The driver's own queues of an engine (&tern_sched_ctx.kernel,
 * tern_bind.c) are not cancelled by a fault or a hang of one of their
 * jobs: that job fails alone, and the others run.
 *
 * Hangs: the watchdog samples TERN_ENG_PROGRESS (tern_policy_hung()).  When
 * the counter has not moved for the running context's timeout, the engine
 * is reset: the running job's fence signals with -ETIMEDOUT and its context
 * is banned; the job in the PENDING slot (innocent) goes back to the head of
 * its queue and keeps its resume record, which the reset does not touch.
 * Long jobs that progress are never killed.  The watchdog also retires DONE
 * slots, so a lost interrupt delays a completion by one period at most.
 *
 * Locking: @lock is taken with interrupts off: it is also the lock of the
 * hardware fences, whose callbacks may be added from any context.  The
 * policy has no lock of its own; every call on it is made under @lock.
 */

#define TERN_WATCHDOG_PERIOD	msecs_to_jiffies(50)
#define TERN_RAW_RUN_TIMEOUT	(2 * HZ)
/* shortest wait before the policy is asked again */
#define TERN_MIN_CHECK_NS	(20 * NSEC_PER_USEC)

static int tern_sched_default_mode = TERN_POLICY_FAIR;

/* the names of &enum tern_policy_mode, in the module parameter and debugfs */
static const char *const tern_sched_mode_names[] = {
	[TERN_POLICY_FAIR] = "fair",
	[TERN_POLICY_FIFO] = "fifo",
	[TERN_POLICY_DRMFAIR] = "drmfair",
};

/**
 * tern_sched_mode_parse() - the scheduling policy a name stands for
 * @name: "fair", "fifo" or "drmfair", a trailing newline allowed
 *
 * Return: the &enum tern_policy_mode, or -EINVAL for any other name.
 */
int tern_sched_mode_parse(const char *name)
{
	return sysfs_match_string(tern_sched_mode_names, name);
}

static int tern_sched_policy_param_set(const char *val,
				       const struct kernel_param *kp)
{
	int mode = tern_sched_mode_parse(val);

	if (mode < 0)
		return mode;
	tern_sched_default_mode = mode;
	return 0;
}

static int tern_sched_policy_param_get(char *buffer,
				       const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%s\n",
			  tern_sched_mode_name(tern_sched_default_mode));
}

static const struct kernel_param_ops tern_sched_policy_param_ops = {
	.set = tern_sched_policy_param_set,
	.get = tern_sched_policy_param_get,
};

module_param_cb(sched_policy, &tern_sched_policy_param_ops, NULL, 0444);
MODULE_PARM_DESC(sched_policy,
		 "Scheduling policy: fair (priorities, fair share, preemption; default), fifo (first come, first served, no preemption but for the driver's page-table updates) or drmfair (a model of drm_sched's FAIR policy: virtual time aged by priority, no preemption but for those updates)");

static unsigned int quantum_us = 10000;
module_param(quantum_us, uint, 0444);
MODULE_PARM_DESC(quantum_us,
		 "Device time after which a running job yields to waiting work of the same or a higher priority, us (default 10000)");

static unsigned int starve_ms = 50;
module_param(starve_ms, uint, 0444);
MODULE_PARM_DESC(starve_ms,
		 "Higher-priority device time after which waiting lower-priority work runs, ms (default 50)");

/**
 * tern_sched_mode_name() - name of a scheduling policy
 * @mode: &enum tern_policy_mode
 *
 * Return: "fair", "fifo" or "drmfair"; "fair" for a value out of range.
 */
const char *tern_sched_mode_name(int mode)
{
	if (mode < 0 || mode >= ARRAY_SIZE(tern_sched_mode_names))
		return "fair";
	return tern_sched_mode_names[mode];
}

/**
 * tern_sched_default_params() - the tunables given as module parameters
 * @params: filled in, each value clamped to its range
 */
void tern_sched_default_params(struct tern_sched_params *params)
{
	params->mode = tern_sched_default_mode;
	params->quantum_us = clamp(quantum_us, 1u, TERN_QUANTUM_US_MAX);
	params->starve_ms = clamp(starve_ms, 1u, TERN_STARVE_MS_MAX);
}

static const char *tern_fence_get_driver_name(struct dma_fence *fence)
{
	return "tern";
}

static const char *tern_fence_get_timeline_name(struct dma_fence *fence)
{
	return "tern-context";
}

static struct tern_hw_fence *to_hw_fence(struct dma_fence *fence)
{
	return container_of(fence, struct tern_hw_fence, base);
}

static void tern_drm_sched_release(struct kref *ref)
{
	kfree(container_of(ref, struct tern_drm_sched, ref));
}

/*
 * The last reference to a hardware fence can be dropped long after the
 * device and the module are gone as far as their users know: a finished
 * fence of drm_sched kept in a sync_file holds its hardware fence, and
 * drm_sched reads the name of its scheduler through it.  So each hardware
 * fence has a lock of its own, keeps the memory of its drm_gpu_scheduler
 * (not the device) and pins the module, which then cannot be unloaded
 * while such a fence exists.  May run in any context.
 */
static void tern_hw_fence_release(struct dma_fence *fence)
{
	struct tern_drm_sched *ds = to_hw_fence(fence)->drm_sched;

	kref_put(&ds->ref, tern_drm_sched_release);
	dma_fence_free(fence);
	module_put(THIS_MODULE);
}

static const struct dma_fence_ops tern_hw_fence_ops = {
	.get_driver_name = tern_fence_get_driver_name,
	.get_timeline_name = tern_fence_get_timeline_name,
	.release = tern_hw_fence_release,
};

/**
 * tern_sched_fence_init() - initialise a job's hardware fence
 * @sched: the scheduler that will signal it
 * @hw: the fence, allocated by the caller
 * @context: the fence context (one per tern context)
 * @seqno: the job's seqno in that context
 *
 * The fence pins the module and the memory of the engine's drm_sched until
 * its last reference is dropped.
 */
void tern_sched_fence_init(struct tern_sched *sched, struct tern_hw_fence *hw,
			   u64 context, u64 seqno)
{
	__module_get(THIS_MODULE);
	kref_get(&sched->drm->ref);
	hw->drm_sched = sched->drm;
	spin_lock_init(&hw->lock);
	dma_fence_init(&hw->base, &tern_hw_fence_ops, &hw->lock, context, seqno);
}

/**
 * tern_sched_fence_done() - a signalled fence for a finished job
 * @sched: the scheduler that signalled the job's own fence
 * @context: the fence context of the job's hardware fence
 * @seqno: the job's seqno
 * @error: 0, or the negative errno the job's fence signalled with
 *
 * For a job released since it finished (DRM_IOCTL_TERN_JOB_FENCE): a
 * hardware fence of the same context and seqno, already signalled with the
 * job's outcome, pinning what every hardware fence pins.
 *
 * Return: the fence (a reference), or NULL without memory.
 */
struct dma_fence *tern_sched_fence_done(struct tern_sched *sched, u64 context,
					u64 seqno, int error)
{
	struct tern_hw_fence *hw = kzalloc(sizeof(*hw), GFP_KERNEL);

	if (!hw)
		return NULL;
	tern_sched_fence_init(sched, hw, context, seqno);
	if (error)
		dma_fence_set_error(&hw->base, error);
	dma_fence_signal(&hw->base);
	return &hw->base;
}

/* The job is done with: the policy forgets it, its fence signals. */
static void tern_sched_signal(struct tern_sched *s, struct tern_sched_job *job,
			      int error)
{
	struct dma_fence *fence = dma_fence_get(job->fence);
	struct tern_sched_ctx *ctx = job->ctx;
	u32 seqno = job->seqno;

	lockdep_assert_held(&s->lock);
	tern_policy_forget(&s->policy, &job->pjob);
	/*
	 * The fence's own lock nests inside the scheduler's.  Its callbacks
	 * may free the job (and drop the job's reference to the fence) on
	 * another CPU before dma_fence_signal() returns: @fence is ours, and
	 * so is @ctx, which is freed only after tern_sched_ctx_fini() took
	 * our lock.
	 */
	if (error)
		dma_fence_set_error(fence, error);
	/* before the signal: once signalled, the job may be freed at once */
	trace_tern_job_signal(s->eng->id, ctx->tag, seqno, error);
	dma_fence_signal(fence);
	dma_fence_put(fence);
	/* after the signal and its callbacks: the job no longer counts */
	ctx->ops->finished(ctx, seqno, error);
}

static struct tern_sched_job *to_sched_job(struct tern_policy_job *pjob)
{
	return container_of(pjob, struct tern_sched_job, pjob);
}

static struct tern_sched_ctx *to_sched_ctx(struct tern_policy_entity *e)
{
	return container_of(e, struct tern_sched_ctx, entity);
}

static void tern_sched_arm_watchdog(struct tern_sched *s)
{
	queue_delayed_work(s->tdev->wq, &s->watchdog, TERN_WATCHDOG_PERIOD);
}

/* Signal the held-back jobs of @ctx once none of its jobs is in a slot. */
static void tern_sched_flush_cancelled(struct tern_sched *s,
				       struct tern_sched_ctx *ctx)
{
	struct tern_sched_job *job, *tmp;

	lockdep_assert_held(&s->lock);
	if (ctx->in_slots)
		return;
	list_for_each_entry_safe(job, tmp, &ctx->cancelled, pjob.link) {
		list_del_init(&job->pjob.link);
		tern_sched_signal(s, job, job->error ?: ctx->cancel_error);
	}
}

/* Hold back a job of a cancelled context, in seqno order. */
static void tern_sched_hold(struct tern_sched *s, struct tern_sched_job *job)
{
	struct tern_sched_ctx *ctx = job->ctx;
	struct tern_sched_job *pos;

	lockdep_assert_held(&s->lock);
	tern_policy_forget(&s->policy, &job->pjob);
	list_for_each_entry(pos, &ctx->cancelled, pjob.link) {
		if ((s32)(job->seqno - pos->seqno) < 0) {
			list_add_tail(&job->pjob.link, &pos->pjob.link);
			return;
		}
	}
	list_add_tail(&job->pjob.link, &ctx->cancelled);
}

/* Hold back @head and the jobs of its batch. */
static void tern_sched_hold_batch(struct tern_sched *s,
				  struct tern_sched_job *head)
{
	struct tern_sched_job *job = head, *next;

	for (; job; job = next) {
		next = job->batch_next;
		job->batch_next = NULL;
		job->batch_jobs = 1;
		tern_sched_hold(s, job);
	}
}

/* @ctx is cancelled: take its ready jobs off the policy and hold them. */
static void tern_sched_drain(struct tern_sched *s, struct tern_sched_ctx *ctx)
{
	struct tern_policy_job *pjob;

	lockdep_assert_held(&s->lock);
	while ((pjob = tern_policy_entity_pop(&s->policy, &ctx->entity))) {
		s->queued--;
		tern_sched_hold_batch(s, to_sched_job(pjob));
	}
	tern_sched_flush_cancelled(s, ctx);
}

/**
 * DOC: batches
 *
 * Under the ``fair`` policy, a slot given to a job may run the jobs that
 * follow it in its context's queue too, as one buffer: up to
 * TERN_BATCH_MAX_JOBS jobs and TERN_BATCH_MAX_BYTES of commands whose
 * copies lie back to back in memory (DRM_IOCTL_TERN_SUBMIT_MANY puts the
 * copies of consecutive entries of one context into one &tern_cmd_block).
 * One slot programming, one doorbell and one interrupt then serve them
 * all.  Each job keeps its own fence, seqno and outcome:
 *
 * - completed: every job of the batch signals, in order;
 * - faulted: the fault's packet offset names the job; the jobs before it
 *   completed, it fails with -EIO, the ones after it are cancelled with
 *   their context (-ECANCELED), as behind any fault;
 * - preempted: the record's offset names the job it stopped in; the jobs
 *   before it signal at once as completed, and the rest resumes later as
 *   a batch that starts with that job: the record is copied to that job's
 *   own and its offset moved by as much as the buffer's start
 *   (docs/hardware.md 11.3 allows it);
 * - hung: the engine's current offset names the job, as for a fault;
 * - cancelled (never started) or behind a reset: the batch goes back to
 *   the head of its context's queue as it is.
 *
 * A batch takes no more time from others than its jobs would one after
 * the other: it is preempted at a packet boundary like any job, the
 * policy charges its device time to its context, and a higher-priority
 * job preempts it within the same latency.  ``fifo`` and ``drmfair``,
 * which preempt only for the driver's page-table updates, do not batch.
 */

/* Let the jobs that follow @head in its context's queue ride in its slot. */
static void tern_sched_batch(struct tern_sched *s, struct tern_sched_job *head)
{
	struct tern_policy_entity *e = &head->ctx->entity;
	u32 max_bytes = min(TERN_BATCH_MAX_BYTES, s->tdev->buf_size_max);
	struct tern_sched_job *tail = head;
	u32 bytes = head->own_size;

	lockdep_assert_held(&s->lock);
	if (s->policy.mode != TERN_POLICY_FAIR || head->resume ||
	    head->batch_next || head->error || !head->batch_key)
		return;
	while (head->batch_jobs < TERN_BATCH_MAX_JOBS) {
		struct tern_policy_job *pjob = tern_policy_entity_peek(e);
		struct tern_sched_job *next;

		if (!pjob)
			break;
		next = to_sched_job(pjob);
		if (next->error || next->resume || next->batch_next ||
		    !next->batchable || next->batch_key != head->batch_key ||
		    next->desc.buf != head->desc.buf + bytes ||
		    bytes + next->own_size > max_bytes)
			break;
		tern_policy_entity_pop(&s->policy, e);
		s->queued--;
		tail->batch_next = next;
		tail = next;
		bytes += next->own_size;
		head->batch_jobs++;
	}
	head->desc.buf_size = bytes;
	if (head->batch_jobs > 1) {
		s->batches++;
		s->batched_jobs += head->batch_jobs;
	}
}

/*
 * The job of @head's batch whose commands hold byte @offset of the slot's
 * buffer, and in *@start the offset of its first byte.
 */
static struct tern_sched_job *tern_sched_batch_find(struct tern_sched_job *head,
						    u64 offset, u64 *start)
{
	struct tern_sched_job *job = head;
	u64 pos = 0;

	while (job->batch_next && offset >= pos + job->own_size) {
		pos += job->own_size;
		job = job->batch_next;
	}
	*start = pos;
	return job;
}

/*
 * The jobs of a batch from @job up to @stop (not included) completed: they
 * signal in order; the first is charged @run_ns.
 */
static void tern_sched_complete_batch(struct tern_sched *s,
				      struct tern_sched_job *job,
				      struct tern_sched_job *stop, u64 run_ns)
{
	while (job != stop) {
		struct tern_sched_job *next = job->batch_next;
		struct tern_sched_ctx *ctx = job->ctx;

		job->batch_next = NULL;
		s->jobs_completed++;
		ctx->ops->completed(ctx, job, run_ns);
		run_ns = 0;
		/* may free the job */
		tern_sched_signal(s, job, 0);
		job = next;
	}
}

/*
 * The jobs of @head's batch after @job never ran (a fault or hang in
 * @job): held back, to be cancelled with their context.
 */
static void tern_sched_batch_hold_rest(struct tern_sched *s,
				       struct tern_sched_job *job)
{
	tern_sched_hold_batch(s, job->batch_next);
	job->batch_next = NULL;
	job->batch_jobs = 1;
}

/*
 * A batch was preempted: the jobs before the one it stopped in completed
 * and signal now; that one heads what is left, with the preempted run's
 * record copied into its own, the offset moved to its start.  Returns the
 * new head.  A record the device did not write as expected (it always
 * does) leaves the batch whole.
 */
static struct tern_sched_job *tern_sched_batch_preempted(struct tern_sched *s,
							 struct tern_sched_job *head)
{
	const __le32 *rec = head->resume_cpu;
	struct tern_sched_job *job;
	__le32 *dst;
	u64 start;
	u32 offset;

	if (!head->batch_next || !rec ||
	    le32_to_cpu(rec[0]) != TERN_RESUME_MAGIC ||
	    le32_to_cpu(rec[1]) != head->desc.seqno)
		return head;
	offset = le32_to_cpu(rec[2]);
	job = tern_sched_batch_find(head, offset, &start);
	if (job == head)
		return head;

	dst = job->resume_cpu;
	memcpy(dst, rec, TERN_RESUME_RECORD_SIZE);
	dst[2] = cpu_to_le32(offset - start);
	job->desc.buf_size = head->desc.buf_size - start;
	job->desc.seqno = head->desc.seqno;
	job->batch_jobs = head->batch_jobs;
	for (struct tern_sched_job *j = head; j != job; j = j->batch_next)
		job->batch_jobs--;
	job->resume = true;
	job->preemptions = head->preemptions;
	/* a turn the policy gave the batch stays with what is left of it */
	tern_policy_transfer(&s->policy, &head->pjob, &job->pjob);
	/* the run's time goes to the job that was preempted */
	tern_sched_complete_batch(s, head, job, 0);
	return job;
}

/*
 * A job left a slot without finishing (preempted, cancelled, or behind a
 * reset).  If its context is cancelled it is not run again: hold it back
 * now, in seqno order, before anything flushes the context's held-back
 * jobs, so that the context's fences keep their order.
 *
 * Return: true if the job was held back, false if it is to be requeued.
 */
static bool tern_sched_hold_unfinished(struct tern_sched *s,
				       struct tern_sched_job *job)
{
	lockdep_assert_held(&s->lock);
	if (!job->ctx->cancel_error)
		return false;
	tern_sched_hold_batch(s, job);
	return true;
}

/* Give back the jobs of a preemption (or the job cancelled behind a fault). */
static void tern_sched_requeue(struct tern_sched *s,
			       struct tern_sched_job *preempted,
			       struct tern_sched_job *cancelled)
{
	lockdep_assert_held(&s->lock);
	if (!preempted && !cancelled)
		return;
	tern_policy_requeue(&s->policy, preempted ? &preempted->pjob : NULL,
			    cancelled ? &cancelled->pjob : NULL);
	s->queued += !!preempted + !!cancelled;
}

/**
 * struct tern_sched_unfinished - jobs one retire pass gives back
 * @job: the jobs that left a slot PREEMPTED or CANCELLED and go back to
 *	their queues, in doorbell order
 * @preempted: whether each one ran (PREEMPTED) or never started (CANCELLED)
 * @count: entries used
 *
 * Usually the RUNNING job of a preemption and the PENDING one behind it.
 * But a submission fills a free slot without reading the other one's state
 * (docs/scheduler.md 3.1), so the slot ahead of it may already be DONE with
 * an outcome the work item has not seen yet: one pass can then find two
 * PREEMPTED runs, or a CANCELLED one ahead of a PREEMPTED one.  Each of them
 * must go back; a job dropped here would never signal.
 */
struct tern_sched_unfinished {
	struct tern_sched_job *job[TERN_SLOTS_PER_ENGINE];
	bool preempted[TERN_SLOTS_PER_ENGINE];
	unsigned int count;
};

static void tern_sched_unfinished_add(struct tern_sched_unfinished *u,
				      struct tern_sched_job *job,
				      bool preempted)
{
	/* a pass retires at most the slots that were busy when it started */
	if (WARN_ON_ONCE(u->count == TERN_SLOTS_PER_ENGINE))
		return;
	u->job[u->count] = job;
	u->preempted[u->count] = preempted;
	u->count++;
}

/*
 * Requeue what a retire pass gave back: the earlier one stays ahead (both
 * may belong to one context), a lone CANCELLED job keeps the promise it
 * was picked with.
 */
static void tern_sched_requeue_unfinished(struct tern_sched *s,
					  struct tern_sched_unfinished *u)
{
	switch (u->count) {
	case 1:
		if (u->preempted[0])
			tern_sched_requeue(s, u->job[0], NULL);
		else
			tern_sched_requeue(s, NULL, u->job[0]);
		break;
	case 2:
		tern_sched_requeue(s, u->job[0], u->job[1]);
		break;
	}
}

/*
 * The job in the first slot starts running (as far as the driver knows).
 * No register is read: @run_start_ns already holds ENG_BUSY_NS as of its
 * start (the previous runs' RUN_NS were added as they were retired,
 * docs/hardware.md 12), and the watchdog takes the first progress sample.
 */
static void tern_sched_head_started(struct tern_sched *s)
{
	struct tern_sched_job *job = s->slot[s->order[0]];

	trace_tern_job_start(s->eng->id, s->order[0], job->ctx->tag,
			     job->seqno);
	s->progress_sampled = false;
}

/* ENG_BUSY_NS changed other than by a retired run: read it, engine idle. */
static void tern_sched_resync_busy(struct tern_sched *s)
{
	lockdep_assert_held(&s->lock);
	s->run_start_ns = tern_engine_busy_ns(s->eng);
}

static void tern_sched_program(struct tern_sched *s, struct tern_sched_job *job)
{
	unsigned int slot = s->inflight ? !s->order[0] : 0;

	lockdep_assert_held(&s->lock);
	if (job->resume) {
		/* same ROOT and SEQNO as the run that was preempted */
		job->desc.flags |= TERN_SLOT_FLAG_RESUME;
	} else {
		tern_sched_batch(s, job);
		job->desc.flags &= ~TERN_SLOT_FLAG_RESUME;
		job->desc.seqno = ++s->hw_seqno;
	}
	tern_engine_program_slot(s->eng, slot, &job->desc);
	s->slot[slot] = job;
	s->order[s->inflight++] = slot;
	job->ctx->in_slots++;
	s->jobs_run += job->batch_jobs;
	/* a batch is one run, of its first job; each job signals on its own */
	trace_tern_job_run(s->eng->id, slot, job->ctx->tag, job->seqno,
			   job->desc.seqno, job->resume, s->policy.last_pick);

	if (s->inflight == 1) {
		tern_sched_head_started(s);
		tern_sched_arm_watchdog(s);
	}
}

/* Fill the free slots with what the policy picks. */
static void tern_sched_feed(struct tern_sched *s)
{
	lockdep_assert_held(&s->lock);

	while (s->inflight < TERN_SLOTS_PER_ENGINE && !s->stopped &&
	       !s->resetting && !s->preempting && !s->hang_suspect && !s->raw) {
		struct tern_policy_job *pjob;
		struct tern_sched_job *job;

		pjob = tern_policy_pick_next(&s->policy);
		if (!pjob)
			break;
		job = to_sched_job(pjob);
		s->queued--;

		if (job->error) {
			/*
			 * Not run; but its fence must not signal before the
			 * one of its context's job in a slot: try again when
			 * that one is retired.
			 */
			if (job->ctx->in_slots) {
				tern_policy_requeue(&s->policy, NULL, pjob);
				s->queued++;
				break;
			}
			tern_sched_signal(s, job, job->error);
			continue;
		}
		tern_sched_program(s, job);
	}
}

static struct tern_sched_job *tern_sched_pop_head(struct tern_sched *s)
{
	struct tern_sched_job *job = s->slot[s->order[0]];

	s->slot[s->order[0]] = NULL;
	s->order[0] = s->order[1];
	s->inflight--;
	job->ctx->in_slots--;
	if (s->inflight)
		tern_sched_head_started(s);
	return job;
}

/* Both slots of a preempted engine are DONE: the request was served. */
static void tern_sched_preempt_served(struct tern_sched *s)
{
	struct tern_sched_preempt_stats *st = &s->preempt;
	u64 now = ktime_get_ns();
	u64 irq = READ_ONCE(s->preempt_irq_ns);
	u64 latency;

	/* the interrupt's time when it came for this request */
	if (irq > s->preempt_start_ns && irq <= now)
		now = irq;
	latency = now - s->preempt_start_ns;

	s->preempting = false;
	/*
	 * With done records the interrupt handler may take this request's
	 * message only after this, on its record path, which clears nothing:
	 * the request's status bits go now, or they would still be set at the
	 * next request and it would send no message (docs/hardware.md 6).
	 */
	if (s->eng->done)
		tern_engine_ack_irqs(s->eng);
	st->served++;
	st->last_ns = latency;
	st->max_ns = max(st->max_ns, latency);
	st->sample[st->samples % TERN_PREEMPT_LATENCY_SAMPLES] = latency;
	st->samples++;
	trace_tern_job_preempt(s->eng->id, s->preempt_ctx_tag,
			       s->preempt_seqno, latency);
}

/* Fault kinds whose FAULT_ADDR is the packet's offset in the buffer. */
static bool tern_fault_addr_is_offset(u32 kind)
{
	switch (kind) {
	case TERN_FAULT_BAD_OPCODE:
	case TERN_FAULT_BAD_LENGTH:
	case TERN_FAULT_PRIVILEGED:
	case TERN_FAULT_BAD_OPERAND:
	case TERN_FAULT_WAIT_TIMEOUT:
	case TERN_FAULT_INJECTED:
		return true;
	default:
		return false;
	}
}

static void tern_sched_retire_fault(struct tern_sched *s,
				    struct tern_sched_job *job, u64 run_ns)
{
	struct tern_sched_ctx *ctx = job->ctx;
	struct tern_fault_info fault;

	s->faults++;
	tern_engine_read_fault(s->eng, &fault);
	if (job->batch_next) {
		u64 off = (u64)TERN_FAULT_OFFSET(fault.info) * 4, start;
		struct tern_sched_job *guilty = tern_sched_batch_find(job, off,
								      &start);

		/* after it: held first, so that they follow it in order */
		tern_sched_batch_hold_rest(s, guilty);
		if (guilty != job) {
			tern_sched_complete_batch(s, job, guilty, run_ns);
			run_ns = 0;
		}
		job = guilty;
		/* the registers as the job alone would have set them */
		fault.info = (fault.info & 0xfff) |
			     (u32)((off - start) / 4) << 12;
		if (tern_fault_addr_is_offset(TERN_FAULT_KIND(fault.info)) &&
		    fault.addr >= start)
			fault.addr -= start;
	}
	/* the engine halts on a fault: the registers are this job's */
	if (fault.ctx_tag != ctx->tag)
		drm_err_ratelimited(&s->tdev->drm,
				    "engine %u: fault registers of context tag %u, job of %u\n",
				    s->eng->id, fault.ctx_tag, ctx->tag);
	trace_tern_job_fault(s->eng->id, ctx->tag, job->seqno,
			     TERN_FAULT_KIND(fault.info), fault.addr,
			     TERN_FAULT_OFFSET(fault.info));
	tern_coredump_capture(s, job, "fault", &fault);
	ctx->ops->faulted(ctx, job, &fault, run_ns);
	if (ctx->kernel) {
		tern_sched_signal(s, job, -EIO);
		return;
	}
	if (!ctx->cancel_error)
		ctx->cancel_error = -ECANCELED;
	tern_sched_signal(s, job, -EIO);
	tern_sched_drain(s, ctx);
}

/*
 * The suspicion is over without a reset, but the engine still serves the
 * request written for it: from now on it is an ordinary outstanding
 * request, so that nothing is programmed until it is served.  A job started
 * meanwhile would be preempted by it unseen, or would run (and complete)
 * ahead of a job of its own context that the request preempted.
 */
static void tern_sched_suspicion_over(struct tern_sched *s)
{
	struct tern_sched_job *head = s->inflight ? s->slot[s->order[0]] : NULL;

	lockdep_assert_held(&s->lock);
	s->hang_suspect = NULL;
	if (!s->suspect_request)
		return;
	s->suspect_request = false;
	s->preempting = true;
	s->preempt_start_ns = ktime_get_ns();
	s->preempt_ctx_tag = head ? head->ctx->tag : 0;
	s->preempt_seqno = head ? head->seqno : 0;
	s->preempt.requested++;
}

/* The hung job is gone or moved on: the suspicion is over. */
static void tern_sched_hang_cleared(struct tern_sched *s)
{
	lockdep_assert_held(&s->lock);
	if (s->hang_suspect &&
	    (!s->inflight || s->slot[s->order[0]] != s->hang_suspect))
		tern_sched_suspicion_over(s);
}

/*
 * Whether the head slot is DONE, and how: from its done record in the
 * interrupt handler of a device that has them (no register read; a record
 * that is not the next DONE, or another outcome than COMPLETED, leaves it
 * to the slow path), else from its registers.  Return 1 if DONE, 0 if
 * not yet, -EAGAIN if the interrupt handler must leave it to the slow
 * path.
 */
static int tern_sched_head_done(struct tern_sched *s, unsigned int slot,
				bool irq, struct tern_slot_result *res)
{
	struct tern_engine *eng = s->eng;
	u32 state, seq;

	if (irq && eng->done) {
		if (!tern_engine_slot_record(eng, slot, res, &seq))
			return 0;	/* its message follows its record */
		/*
		 * The late record of a DONE retired from the registers (by
		 * done_work or raw_nop) is not this run's: its SEQNO or its
		 * DONE_SEQ tells.
		 */
		if (res->outcome != TERN_OUTCOME_COMPLETED ||
		    res->seqno != s->slot[slot]->desc.seqno ||
		    seq != ((s->done_seq + 1) & TERN_DONE_SEQ_MASK))
			return -EAGAIN;
		s->done_seq = seq;
		return 1;
	}
	state = tern_engine_slot_state(eng, slot);
	if (TERN_SLOT_STATE_OF(state) != TERN_SLOT_STATE_DONE)
		return 0;
	if (irq && TERN_SLOT_OUTCOME_OF(state) != TERN_OUTCOME_COMPLETED)
		return -EAGAIN;
	tern_engine_slot_result(eng, slot, state, res);
	if (eng->done)
		s->done_seq = tern_engine_slot_done_seq(eng, slot);
	return 1;
}

/*
 * Retire DONE slots in doorbell order.  From the interrupt (@irq) only
 * COMPLETED ones: at the first other outcome it stops and returns false,
 * leaving that slot to the scheduler's work item.
 */
static bool tern_sched_retire(struct tern_sched *s, bool irq)
{
	struct tern_sched_unfinished back = {};
	struct tern_engine *eng = s->eng;
	bool fault = false, all = true;

	lockdep_assert_held(&s->lock);

	while (s->inflight && !s->stopped && !s->resetting) {
		unsigned int slot = s->order[0];
		struct tern_sched_ctx *ctx;
		struct tern_sched_job *job;
		struct tern_slot_result res;
		int done = tern_sched_head_done(s, slot, irq, &res);

		if (!done)
			break;
		if (done < 0) {
			all = false;
			break;
		}
		tern_engine_slot_ack(eng, slot);
		/* traced before the next job becomes the head */
		trace_tern_job_complete(eng->id, slot, s->slot[slot]->ctx->tag,
					s->slot[slot]->seqno, res.outcome,
					res.run_ns);
		/* ENG_BUSY_NS at the start of the next run */
		s->run_start_ns += res.run_ns;
		job = tern_sched_pop_head(s);
		ctx = job->ctx;
		tern_policy_charge(&s->policy, &ctx->entity, res.run_ns);

		switch (res.outcome) {
		case TERN_OUTCOME_COMPLETED:
			tern_sched_complete_batch(s, job, NULL, res.run_ns);
			break;
		case TERN_OUTCOME_FAULTED:
			tern_sched_retire_fault(s, job, res.run_ns);
			fault = true;
			/*
			 * The engine is halted.  A job programmed after the
			 * fault, before it was seen, is still PENDING:
			 * cancel it, it is retired next and goes back to its
			 * queue (or is held with its cancelled context).
			 */
			if (s->inflight &&
			    TERN_SLOT_STATE_OF(tern_engine_slot_state(eng, s->order[0])) !=
			    TERN_SLOT_STATE_DONE)
				tern_engine_cancel_halted(eng);
			break;
		case TERN_OUTCOME_PREEMPTED:
			s->preempt.jobs++;
			/*
			 * Not after an earlier job of the context that goes
			 * back too: it would signal after these.
			 */
			if (!back.count || back.job[0]->ctx != ctx)
				job = tern_sched_batch_preempted(s, job);
			job->resume = true;
			job->preemptions++;
			ctx->ops->preempted(ctx, job, res.run_ns);
			if (!tern_sched_hold_unfinished(s, job))
				tern_sched_unfinished_add(&back, job, true);
			break;
		case TERN_OUTCOME_CANCELLED:
			/* not started: it runs later, in its order */
			if (!tern_sched_hold_unfinished(s, job))
				tern_sched_unfinished_add(&back, job, false);
			break;
		default:
			drm_err_ratelimited(&s->tdev->drm,
					    "engine %u slot %u: DONE with outcome %u\n",
					    eng->id, slot, res.outcome);
			tern_sched_signal(s, job, -EIO);
			break;
		}
		tern_sched_flush_cancelled(s, ctx);
	}

	if (fault)
		tern_engine_clear_fault(eng);
	tern_sched_requeue_unfinished(s, &back);
	tern_sched_hang_cleared(s);
	if (s->preempting && !s->inflight && !s->stopped && !s->resetting)
		tern_sched_preempt_served(s);
	if (s->raw && !s->inflight)
		wake_up_all(&s->raw_wait);
	return all;
}

/* Ask the policy whether the running job should make way. */
static void tern_sched_check_preempt(struct tern_sched *s)
{
	struct tern_sched_job *running, *next;
	enum tern_policy_reason why;
	u64 ran, wait;

	lockdep_assert_held(&s->lock);
	if (!s->inflight || s->preempting || s->hang_suspect || s->stopped ||
	    s->resetting || s->raw)
		return;

	running = s->slot[s->order[0]];
	next = s->inflight > 1 ? s->slot[s->order[1]] : NULL;
	/* nothing else to run: nothing to decide, no register to read */
	if (!next && !s->queued)
		return;
	/*
	 * Only fair preempts for time, and only when something else may take
	 * the engine for it: otherwise no register is read.
	 */
	ran = tern_policy_time_matters(&s->policy, &running->pjob,
				       next ? &next->pjob : NULL) ?
	      tern_engine_busy_ns(s->eng) - s->run_start_ns : 0;

	why = tern_policy_should_preempt(&s->policy, &running->pjob, ran,
					 next ? &next->pjob : NULL);
	if (why) {
		tern_eng_write(s->eng, TERN_ENG_PREEMPT, 1);
		trace_tern_preempt_request(s->eng->id, running->ctx->tag,
					   running->seqno, why, ran);
		s->preempting = true;
		s->preempt_start_ns = ktime_get_ns();
		s->preempt_ctx_tag = running->ctx->tag;
		s->preempt_seqno = running->seqno;
		s->preempt.requested++;
		return;
	}

	/* ask again when time alone can change the answer */
	wait = tern_policy_next_check(&s->policy, &running->pjob, ran,
				      next ? &next->pjob : NULL);
	if (wait != U64_MAX)
		hrtimer_start(&s->check_timer,
			      ns_to_ktime(max(wait, TERN_MIN_CHECK_NS)),
			      HRTIMER_MODE_REL);
}

/* One scheduling event: retire, refill, decide on preemption. */
static void tern_sched_event(struct tern_sched *s)
{
	tern_sched_retire(s, false);
	tern_sched_feed(s);
	tern_sched_check_preempt(s);
}

static void tern_sched_done_work(struct work_struct *work)
{
	struct tern_sched *s = container_of(work, struct tern_sched, done_work);
	unsigned long flags;
	bool fence_cookie;

	fence_cookie = dma_fence_begin_signalling();
	spin_lock_irqsave(&s->lock, flags);
	tern_sched_event(s);
	spin_unlock_irqrestore(&s->lock, flags);
	dma_fence_end_signalling(fence_cookie);
}

static enum hrtimer_restart tern_sched_check_due(struct hrtimer *timer)
{
	struct tern_sched *s = container_of(timer, struct tern_sched,
					    check_timer);

	queue_work(s->tdev->wq, &s->done_work);
	return HRTIMER_NORESTART;
}

/* Retire COMPLETED slots and refill them, in the interrupt: true if done. */
static bool tern_sched_irq_complete(struct tern_sched *s)
{
	bool done = false;

	spin_lock(&s->lock);
	if (!s->raw && !s->preempting && !s->hang_suspect && !s->stopped &&
	    !s->resetting && tern_sched_retire(s, true)) {
		tern_sched_feed(s);
		tern_sched_check_preempt(s);
		done = true;
	}
	spin_unlock(&s->lock);
	return done;
}

/*
 * The engine's interrupt.  The common case, slots that COMPLETED, is
 * handled here, in hard-IRQ context: the fences signal and the free slots
 * are refilled without waiting for a work item.  On a device with done
 * records this reads no register: the records tell which slots completed
 * and for how long they ran (docs/hardware.md 7.1), and only the ACK of
 * each slot is written.  A fault, a preemption, a reset or raw_nop's loan
 * of the engine goes to the scheduler's work item, as does whatever this
 * pass leaves (a DONE slot of another outcome, or a record written late).
 */
static void tern_sched_irq(struct tern_engine *eng, u32 status, void *data)
{
	struct tern_sched *s = data;

	if (status & TERN_ENG_IRQ_UNREAD) {
		/* done records: completions cost no register read */
		if (tern_sched_irq_complete(s))
			return;
		/* the rest needs the status, and the slow path */
		status = tern_engine_ack_irqs(eng) | TERN_ENG_IRQ_UNREAD;
	}
	if (status & TERN_ENG_IRQ_PREEMPT_DONE)
		WRITE_ONCE(s->preempt_irq_ns, ktime_get_ns());
	if (READ_ONCE(s->raw))
		wake_up_all(&s->raw_wait);

	if ((status & (TERN_ENG_IRQ_FAULT | TERN_ENG_IRQ_PREEMPT_DONE |
		       TERN_ENG_IRQ_UNREAD)) ||
	    !tern_sched_irq_complete(s))
		queue_work(s->tdev->wq, &s->done_work);
}

/*
 * Cancel every job of the engine with @error.  A context's jobs may be in
 * a slot, held back and queued at once, in any seqno order among the
 * three (a held job preempted before a later one of its context started):
 * all of them join the context's held jobs, which stay in seqno order,
 * and each context's fences then signal in that order.
 */
static void tern_sched_cancel_all(struct tern_sched *s, int error)
{
	struct tern_policy_entity *e;
	struct tern_policy_job *pjob;
	struct tern_sched_job *job, *tmp;

	lockdep_assert_held(&s->lock);

	while (s->inflight)
		tern_sched_hold_batch(s, tern_sched_pop_head(s));
	list_for_each_entry(e, &s->policy.entities, link) {
		struct tern_sched_ctx *ctx = to_sched_ctx(e);

		while ((pjob = tern_policy_entity_pop(&s->policy, e)))
			tern_sched_hold_batch(s, to_sched_job(pjob));
		list_for_each_entry_safe(job, tmp, &ctx->cancelled, pjob.link) {
			list_del_init(&job->pjob.link);
			tern_sched_signal(s, job, error);
		}
	}
	s->queued = 0;
	s->preempting = false;
	s->hang_suspect = NULL;
	s->suspect_request = false;
}

/*
 * A reset of the engine did not end (tern_engine_reset() marked it lost):
 * nothing runs there any more, every job of it fails.
 */
static void tern_sched_engine_lost(struct tern_sched *s)
{
	lockdep_assert_held(&s->lock);
	if (s->stopped)
		return;
	drm_err(&s->tdev->drm, "engine %u lost: cancelling its work\n",
		s->eng->id);
	WRITE_ONCE(s->stopped, true);
	tern_sched_cancel_all(s, -EIO);
}

/*
 * The running job made no progress for its timeout.  The first time,
 * request a preemption (a hung engine does not serve it) and look again at
 * the next tick: meanwhile nothing is programmed, and if the job reaches
 * its end after all, the request cancels the PENDING slot instead of
 * starting it, so no job is half run by the reset.  Return true when the
 * job is still there, still without progress: time to reset.
 */
static bool tern_sched_hang_confirmed(struct tern_sched *s,
				      struct tern_sched_job *head)
{
	lockdep_assert_held(&s->lock);
	if (s->hang_suspect == head)
		return true;
	if (!s->preempting && !s->hang_suspect) {
		tern_eng_write(s->eng, TERN_ENG_PREEMPT, 1);
		s->suspect_request = true;
	}
	s->hang_suspect = head;
	return false;
}

/* Reset the engine under a job confirmed hung; resetting is set. */
static void tern_sched_recover(struct tern_sched *s)
{
	struct tern_sched_job *guilty, *innocent = NULL;
	struct tern_sched_ctx *gctx, *held = NULL;
	struct tern_engine *eng = s->eng;
	unsigned long flags;
	u32 hang_offset;
	bool completed;
	u64 busy, ran;
	int ret;

	/* the registers as the hang left them, before the reset clears them */
	spin_lock_irqsave(&s->lock, flags);
	guilty = s->slot[s->order[0]];
	hang_offset = tern_eng_read(eng, TERN_ENG_CUR_OFFSET);
	{
		u64 start;

		/* the job of its batch the engine stopped in */
		tern_coredump_capture(s, tern_sched_batch_find(guilty, hang_offset,
							       &start),
				      "hang", NULL);
	}
	spin_unlock_irqrestore(&s->lock, flags);

	mutex_lock(&s->tdev->reset_lock);
	ret = tern_engine_reset(eng);
	mutex_unlock(&s->tdev->reset_lock);

	spin_lock_irqsave(&s->lock, flags);
	s->resets++;
	atomic_inc(&s->tdev->device_resets);
	/* the requests the hung engine did not serve are gone with the reset */
	s->preempting = false;
	s->hang_suspect = NULL;
	s->suspect_request = false;
	busy = tern_engine_busy_ns(eng);
	ran = busy - s->run_start_ns;
	/*
	 * A run that reached its end between the last look and the reset
	 * wrote its seqno back (docs/hardware.md 15): it completed.  The job
	 * behind it did not start (the preemption request cancelled it).
	 */
	completed = READ_ONCE(*eng->writeback) == guilty->desc.seqno;
	guilty = tern_sched_pop_head(s);
	if (s->inflight)
		innocent = tern_sched_pop_head(s);
	/* the reset added the abandoned run's time; the engine is idle */
	s->run_start_ns = busy;
	gctx = guilty->ctx;
	tern_policy_charge(&s->policy, &gctx->entity, ret ? 0 : ran);

	if (completed) {
		tern_sched_complete_batch(s, guilty, NULL, ret ? 0 : ran);
		tern_sched_flush_cancelled(s, gctx);
		if (innocent && tern_sched_hold_unfinished(s, innocent)) {
			tern_sched_flush_cancelled(s, innocent->ctx);
			innocent = NULL;
		}
		tern_sched_requeue(s, NULL, innocent);
		goto out;
	}

	if (guilty->batch_next) {
		/* the job the engine stopped in hung, as a fault would name it */
		struct tern_sched_job *hung;
		u64 start;

		hung = tern_sched_batch_find(guilty, hang_offset, &start);
		tern_sched_batch_hold_rest(s, hung);
		if (hung != guilty) {
			tern_sched_complete_batch(s, guilty, hung, ret ? 0 : ran);
			ran = 0;
		}
		guilty = hung;
	}
	trace_tern_engine_reset(eng->id, gctx->tag, guilty->seqno);
	drm_warn(&s->tdev->drm,
		 "engine %u: job %u of context tag %u made no progress, engine reset\n",
		 eng->id, guilty->seqno, gctx->tag);
	gctx->ops->hung(gctx, guilty);
	if (!gctx->cancel_error && !gctx->kernel)
		gctx->cancel_error = -ECANCELED;
	/* never started; a resume record it has is intact */
	if (innocent && !innocent->ctx->cancel_error)
		innocent->ctx->ops->reset(innocent->ctx, innocent);
	if (innocent && tern_sched_hold_unfinished(s, innocent)) {
		held = innocent->ctx;
		innocent = NULL;
	}
	tern_sched_signal(s, guilty, -ETIMEDOUT);
	if (!gctx->kernel)
		tern_sched_drain(s, gctx);
	if (held)
		tern_sched_flush_cancelled(s, held);
	tern_sched_requeue(s, NULL, innocent);
out:
	s->resetting = false;
	if (ret)
		tern_sched_engine_lost(s);
	tern_sched_event(s);
	spin_unlock_irqrestore(&s->lock, flags);
}

static void tern_sched_watchdog(struct work_struct *work)
{
	struct tern_sched *s = container_of(work, struct tern_sched,
					    watchdog.work);
	struct tern_sched_job *head;
	unsigned long flags;
	bool hang = false, stalled;
	bool fence_cookie;

	fence_cookie = dma_fence_begin_signalling();
	spin_lock_irqsave(&s->lock, flags);
	/*
	 * Catches completions whose interrupt was lost, and clears the
	 * status bits such an interrupt left set, or their next event would
	 * not interrupt either.
	 */
	if (!s->stopped && !s->raw &&
	    (tern_engine_ack_irqs(s->eng) & TERN_ENG_IRQ_PREEMPT_DONE))
		WRITE_ONCE(s->preempt_irq_ns, ktime_get_ns());
	tern_sched_retire(s, false);
	tern_sched_feed(s);
	if (s->stopped || s->resetting || !s->inflight)
		goto out;

	head = s->slot[s->order[0]];
	if (s->progress_sampled) {
		stalled = tern_policy_hung(&s->progress,
					   tern_engine_progress(s->eng),
					   ktime_get_ns(), head->ctx->timeout_ns);
	} else {
		/* a new head: its timeout counts from this first sample */
		tern_policy_progress_start(&s->progress,
					   tern_engine_progress(s->eng),
					   ktime_get_ns());
		s->progress_sampled = true;
		stalled = false;
	}
	/*
	 * Progress again: the request written for the suspicion preempts
	 * the job at its next preemption point, as any other would.
	 */
	if (!stalled && s->hang_suspect)
		tern_sched_suspicion_over(s);
	if (stalled && tern_sched_hang_confirmed(s, head)) {
		hang = true;
		s->resetting = true;
	} else {
		/* starvation bounds grow with time too */
		tern_sched_check_preempt(s);
		tern_sched_arm_watchdog(s);
	}
out:
	spin_unlock_irqrestore(&s->lock, flags);

	if (hang)
		tern_sched_recover(s);
	dma_fence_end_signalling(fence_cookie);
}

static void tern_sched_push_feed(struct tern_sched *sched,
				 struct tern_sched_job *job, bool feed);

/**
 * tern_sched_push() - hand a ready job to its engine
 * @sched: the scheduler of the job's engine
 * @job: the job; its fence, context and slot description are set
 *
 * Called from drm_sched's run_job.  The job joins the tail of its
 * context's queue and runs when the policy picks it.  A job with
 * @job->error set, or whose context is cancelled, is not run: its fence
 * signals with the error once the context's jobs before it are done, so
 * fences keep their order.
 */
void tern_sched_push(struct tern_sched *sched, struct tern_sched_job *job)
{
	tern_sched_push_feed(sched, job, true);
}

/**
 * tern_sched_queue() - tern_sched_push() without running the policy
 * @sched: the scheduler of the job's engine
 * @job: the job
 *
 * For a submitter that queues several jobs of a context at once, so that
 * the policy sees them together (they may then run as one batch): it
 * calls tern_sched_kick() after the last one.
 */
void tern_sched_queue(struct tern_sched *sched, struct tern_sched_job *job)
{
	tern_sched_push_feed(sched, job, false);
}

/**
 * tern_sched_kick() - fill the free slots after tern_sched_queue()
 * @sched: the scheduler
 */
void tern_sched_kick(struct tern_sched *sched)
{
	unsigned long flags;

	spin_lock_irqsave(&sched->lock, flags);
	tern_sched_feed(sched);
	tern_sched_check_preempt(sched);
	spin_unlock_irqrestore(&sched->lock, flags);
}

/* tern_sched_push(), running the policy only if @feed */
static void tern_sched_push_feed(struct tern_sched *sched,
				 struct tern_sched_job *job, bool feed)
{
	struct tern_sched_ctx *ctx = job->ctx;
	unsigned long flags;

	spin_lock_irqsave(&sched->lock, flags);
	if (sched->stopped && (ctx->in_slots || ctx->entity.queued ||
			       !list_empty(&ctx->cancelled))) {
		/*
		 * Stopped, but earlier jobs of the context are still to be
		 * cancelled (a PCI remove between its quiesce and its
		 * cancel): after them, in order.
		 */
		job->error = -ENODEV;
		tern_sched_hold(sched, job);
	} else if (sched->stopped) {
		tern_sched_signal(sched, job, -ENODEV);
	} else if (ctx->cancel_error) {
		list_add_tail(&job->pjob.link, &ctx->cancelled);
		tern_sched_flush_cancelled(sched, ctx);
	} else if (job->error && !ctx->in_slots && !ctx->entity.queued) {
		tern_sched_signal(sched, job, job->error);
	} else {
		/*
		 * Not a whole event: retiring DONE slots is the interrupt's
		 * and the watchdog's work, and costs a register read that the
		 * submit path need not pay.
		 */
		tern_policy_push(&sched->policy, &ctx->entity, &job->pjob);
		sched->queued++;
		trace_tern_job_queue(sched->eng->id, ctx->tag, job->seqno,
				     ctx->entity.prio,
				     ctx->entity.weight / TERN_POLICY_WEIGHT_SCALE);
		if (feed) {
			tern_sched_feed(sched);
			tern_sched_check_preempt(sched);
		}
	}
	spin_unlock_irqrestore(&sched->lock, flags);
}

/**
 * tern_sched_ctx_cancel() - stop running the jobs of a context
 * @sctx: the context
 * @error: fence error of its jobs that did not start (e.g. -ECANCELED)
 *
 * Jobs already in a slot finish (or, if preempted, are cancelled then);
 * the others signal @error once those are done, so fences stay in order.
 */
void tern_sched_ctx_cancel(struct tern_sched_ctx *sctx, int error)
{
	struct tern_sched *s = sctx->sched;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	if (!sctx->cancel_error)
		sctx->cancel_error = error;
	tern_sched_drain(s, sctx);
	tern_sched_event(s);
	spin_unlock_irqrestore(&s->lock, flags);
}

/**
 * tern_sched_ctx_init() - bind a context to an engine's scheduler
 * @sched: the scheduler
 * @sctx: the context's scheduling state; @sctx->ops, tag and timeout are
 *	set by the caller
 * @priority: DRM_TERN_PRIORITY_*
 * @weight: share weight, 1 .. DRM_TERN_WEIGHT_MAX
 */
void tern_sched_ctx_init(struct tern_sched *sched, struct tern_sched_ctx *sctx,
			 unsigned int priority, u32 weight)
{
	unsigned long flags;

	sctx->sched = sched;
	INIT_LIST_HEAD(&sctx->cancelled);
	sctx->cancel_error = 0;
	sctx->in_slots = 0;

	spin_lock_irqsave(&sched->lock, flags);
	tern_policy_entity_add(&sched->policy, &sctx->entity, priority,
			       weight * TERN_POLICY_WEIGHT_SCALE);
	spin_unlock_irqrestore(&sched->lock, flags);
}

/**
 * tern_sched_ctx_set_driver() - make a context one of the driver's own
 * @sctx: the context, bound with tern_sched_ctx_init()
 *
 * One of its jobs that faults or hangs fails alone: the context is not
 * cancelled and its other jobs still run (&tern_sched_ctx.kernel).  The
 * policy treats it as any context of its class and weight.
 */
void tern_sched_ctx_set_driver(struct tern_sched_ctx *sctx)
{
	struct tern_sched *s = sctx->sched;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	sctx->kernel = true;
	spin_unlock_irqrestore(&s->lock, flags);
}

/**
 * tern_sched_ctx_set_kernel() - make a context the driver's own queue of
 *	its engine
 * @sctx: the context, bound with tern_sched_ctx_init()
 *
 * Its jobs are picked before any other and preempt the running job, in
 * every policy mode (tern_policy_set_kernel()); one that faults or hangs
 * fails alone, the context is not cancelled (&tern_sched_ctx.kernel).  Its
 * jobs must not be preemptible (no resume record).
 */
void tern_sched_ctx_set_kernel(struct tern_sched_ctx *sctx)
{
	struct tern_sched *s = sctx->sched;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	sctx->kernel = true;
	tern_policy_set_kernel(&s->policy, &sctx->entity);
	spin_unlock_irqrestore(&s->lock, flags);
}

/**
 * tern_sched_ctx_fini() - unbind a context whose jobs are all done
 * @sctx: the context
 */
void tern_sched_ctx_fini(struct tern_sched_ctx *sctx)
{
	struct tern_sched *s = sctx->sched;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	WARN_ON(sctx->in_slots || !list_empty(&sctx->cancelled));
	tern_policy_entity_remove(&s->policy, &sctx->entity);
	spin_unlock_irqrestore(&s->lock, flags);
}

/**
 * tern_sched_get_params() - the scheduler's tunables
 * @sched: the scheduler
 * @params: filled in
 */
void tern_sched_get_params(struct tern_sched *sched,
			   struct tern_sched_params *params)
{
	unsigned long flags;

	spin_lock_irqsave(&sched->lock, flags);
	*params = sched->params;
	spin_unlock_irqrestore(&sched->lock, flags);
}

/**
 * tern_sched_set_params() - change the scheduler's tunables
 * @sched: the scheduler
 * @params: new values, in range
 *
 * Takes effect at the next decision; the queues are kept (both policies
 * share them).  A preemption already requested completes.  The values are
 * kept as given; the policy uses a starvation bound of at least the
 * quantum.
 */
void tern_sched_set_params(struct tern_sched *sched,
			   const struct tern_sched_params *params)
{
	unsigned long flags;

	spin_lock_irqsave(&sched->lock, flags);
	sched->params = *params;
	sched->policy.mode = params->mode;
	sched->policy.quantum_ns = (u64)params->quantum_us * NSEC_PER_USEC;
	sched->policy.starve_ns = max((u64)params->starve_ms * NSEC_PER_MSEC,
				      sched->policy.quantum_ns);
	tern_sched_event(sched);
	spin_unlock_irqrestore(&sched->lock, flags);
}

static bool tern_sched_raw_idle(struct tern_sched *s)
{
	unsigned long flags;
	bool idle;

	spin_lock_irqsave(&s->lock, flags);
	idle = !s->inflight || s->stopped;
	spin_unlock_irqrestore(&s->lock, flags);
	return idle;
}

static bool tern_sched_raw_slot_done(struct tern_sched *s, unsigned int slot)
{
	return TERN_SLOT_STATE_OF(tern_engine_slot_state(s->eng, slot)) ==
	       TERN_SLOT_STATE_DONE || READ_ONCE(s->stopped);
}

/* Wait for @slot to go DONE, retire it; 0, or -errno. */
static int tern_sched_raw_wait(struct tern_sched *s, unsigned int slot)
{
	struct tern_slot_result res;

	if (!wait_event_timeout(s->raw_wait, tern_sched_raw_slot_done(s, slot),
				TERN_RAW_RUN_TIMEOUT))
		return -ETIMEDOUT;
	if (READ_ONCE(s->stopped))
		return -ENODEV;
	tern_engine_slot_result(s->eng, slot,
				tern_engine_slot_state(s->eng, slot), &res);
	tern_engine_slot_ack(s->eng, slot);
	return res.outcome == TERN_OUTCOME_COMPLETED ? 0 : -EIO;
}

/**
 * tern_sched_raw_run() - run buffers on an engine, bypassing the scheduler
 * @sched: the scheduler of the engine
 * @desc: the slot description of a buffer that completes without faults
 *	(a kernel-owned NOP buffer)
 * @count: how many runs
 * @pipelined: keep both slots full and time the whole batch; otherwise run
 *	one at a time and time each (doorbell to waiter woken by the
 *	interrupt)
 * @total_ns: out: time of all runs
 * @sample_ns: out, unless @pipelined: @count round-trip times
 *
 * Measures what the device and the interrupt path cost without the
 * scheduler (debugfs raw_nop, for benchmarks).  Waits for the engine's slots
 * to drain and feeds nothing while it runs; sleeps.
 *
 * Return: 0, -EBUSY if the engine is lent already, -ENODEV if the device
 * is gone, -ERESTARTSYS if a signal came while the slots drained,
 * -ETIMEDOUT or -EIO if a run did not complete (the engine is then reset).
 */
int tern_sched_raw_run(struct tern_sched *sched,
		       const struct tern_slot_desc *desc, unsigned int count,
		       bool pipelined, u64 *total_ns, u64 *sample_ns)
{
	struct tern_slot_desc d = *desc;
	unsigned int started = 0, done = 0, head = 0;
	unsigned long flags;
	u64 t0, start = 0;
	int ret = 0;

	spin_lock_irqsave(&sched->lock, flags);
	if (sched->stopped || sched->raw) {
		ret = sched->stopped ? -ENODEV : -EBUSY;
		spin_unlock_irqrestore(&sched->lock, flags);
		return ret;
	}
	WRITE_ONCE(sched->raw, true);
	spin_unlock_irqrestore(&sched->lock, flags);

	/* the scheduler's jobs finish; no new one starts */
	ret = wait_event_interruptible(sched->raw_wait,
				       tern_sched_raw_idle(sched));
	if (ret)
		goto out;
	if (READ_ONCE(sched->stopped)) {
		ret = -ENODEV;
		goto out;
	}

	t0 = ktime_get_ns();
	while (done < count) {
		while (started < count &&
		       started - done < (pipelined ? TERN_SLOTS_PER_ENGINE : 1)) {
			d.seqno = ++sched->hw_seqno;
			start = ktime_get_ns();
			tern_engine_program_slot(sched->eng,
						 (head + started - done) % 2, &d);
			started++;
		}
		ret = tern_sched_raw_wait(sched, head);
		if (ret)
			break;
		if (!pipelined)
			sample_ns[done] = ktime_get_ns() - start;
		head = !head;
		done++;
	}
	*total_ns = ktime_get_ns() - t0;

	if (ret && ret != -ENODEV) {
		mutex_lock(&sched->tdev->reset_lock);
		if (tern_engine_reset(sched->eng))
			drm_err(&sched->tdev->drm, "engine %u: reset failed\n",
				sched->eng->id);
		mutex_unlock(&sched->tdev->reset_lock);
	}
out:
	spin_lock_irqsave(&sched->lock, flags);
	WRITE_ONCE(sched->raw, false);
	/*
	 * Raw runs, which the scheduler does not retire, add to ENG_BUSY_NS;
	 * once one was issued, the engine is idle here (drained, or reset).
	 * Without one (a signal while the scheduler's jobs drained), they may
	 * still be running and the count is right as it is.
	 */
	if (READ_ONCE(sched->eng->lost))
		tern_sched_engine_lost(sched);
	else if (started)
		tern_sched_resync_busy(sched);
	tern_sched_event(sched);
	spin_unlock_irqrestore(&sched->lock, flags);
	return ret;
}

/**
 * tern_sched_init() - set up the scheduler of one engine
 * @tdev: the device
 * @sched: the scheduler to initialise
 * @eng: its engine, initialised, interrupts masked
 * @ops: drm_sched backend operations of the job layer
 *
 * Return: 0 or a negative errno.
 */
int tern_sched_init(struct tern_device *tdev, struct tern_sched *sched,
		    struct tern_engine *eng,
		    const struct drm_sched_backend_ops *ops)
{
	struct drm_sched_init_args args = {
		.ops = ops,
		.submit_wq = tdev->sched_wq,
		.num_rqs = DRM_SCHED_PRIORITY_COUNT,
		/*
		 * drm_sched never throttles: jobs are bounded per context,
		 * and a client filling every credit would keep others' jobs
		 * from the policy, out of reach of priorities.
		 */
		.credit_limit = INT_MAX,
		.timeout = MAX_SCHEDULE_TIMEOUT,
		.name = "tern",
		.dev = tdev->drm.dev,
	};
	int ret;

	sched->drm = kzalloc(sizeof(*sched->drm), GFP_KERNEL);
	if (!sched->drm)
		return -ENOMEM;
	kref_init(&sched->drm->ref);
	sched->tdev = tdev;
	sched->eng = eng;
	spin_lock_init(&sched->lock);
	/* the engine is idle: the base that retired runs advance */
	sched->run_start_ns = tern_engine_busy_ns(eng);
	tern_sched_default_params(&sched->params);
	tern_policy_init(&sched->policy, sched->params.mode,
			 (u64)sched->params.quantum_us * NSEC_PER_USEC,
			 (u64)sched->params.starve_ms * NSEC_PER_MSEC);
	init_waitqueue_head(&sched->raw_wait);
	INIT_WORK(&sched->done_work, tern_sched_done_work);
	INIT_DELAYED_WORK(&sched->watchdog, tern_sched_watchdog);
	hrtimer_init(&sched->check_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	sched->check_timer.function = tern_sched_check_due;
	atomic_set(&sched->ctx_count, 0);

	tern_engine_set_irq_handler(eng, tern_sched_irq, sched);
	ret = drm_sched_init(&sched->drm->base, &args);
	if (ret) {
		kref_put(&sched->drm->ref, tern_drm_sched_release);
		sched->drm = NULL;
	}
	return ret;
}

/**
 * tern_sched_start() - let the engine interrupt
 * @sched: the scheduler
 */
void tern_sched_start(struct tern_sched *sched)
{
	tern_engine_enable_irqs(sched->eng);
}

/**
 * tern_sched_quiesce() - the device is going away: stop touching the engine
 * @sched: the scheduler
 *
 * Called at PCI remove while the registers are still mapped, after the
 * error interrupt was disabled.  Masks the engine's interrupt and waits for
 * a handler still running, then for the scheduler's work items: afterwards
 * nothing programs the engine any more and jobs pushed later signal -ENODEV
 * at once.  The jobs in the slots and queues are left as they are: the
 * caller resets the device, so that it stops reaching their memory, before
 * tern_sched_cancel_jobs() signals them and lets them be freed.
 */
void tern_sched_quiesce(struct tern_sched *sched)
{
	unsigned long flags;

	tern_engine_disable_irqs(sched->eng);
	spin_lock_irqsave(&sched->lock, flags);
	WRITE_ONCE(sched->stopped, true);
	spin_unlock_irqrestore(&sched->lock, flags);
	synchronize_irq(sched->eng->irq);
	wake_up_all(&sched->raw_wait);

	hrtimer_cancel(&sched->check_timer);
	cancel_work_sync(&sched->done_work);
	cancel_delayed_work_sync(&sched->watchdog);
}

/**
 * tern_sched_cancel_jobs() - signal every job of a quiesced scheduler
 * @sched: the scheduler, quiesced, its engine reset
 * @error: the fence error, e.g. -ENODEV
 *
 * Jobs in the slots and in the queues signal @error, in order per context.
 */
void tern_sched_cancel_jobs(struct tern_sched *sched, int error)
{
	unsigned long flags;

	spin_lock_irqsave(&sched->lock, flags);
	tern_sched_cancel_all(sched, error);
	spin_unlock_irqrestore(&sched->lock, flags);
}

/**
 * tern_sched_fini() - tear down the scheduler's drm_sched
 * @sched: the scheduler, stopped, with no entity left
 *
 * Called when the DRM device is released.  Jobs whose fences signalled may
 * still wait for free_job on the scheduler workqueue: the caller drains that
 * workqueue first.  The drm_sched's memory lives on while hardware fences
 * of its jobs do.
 */
void tern_sched_fini(struct tern_sched *sched)
{
	drm_sched_fini(&sched->drm->base);
	kref_put(&sched->drm->ref, tern_drm_sched_release);
	sched->drm = NULL;
}

static const char *const tern_slot_state_names[] = {
	"free", "pending", "running", "done",
};

/**
 * tern_sched_debugfs_show() - print the scheduler's state
 * @sched: the scheduler
 * @p: where to print
 */
void tern_sched_debugfs_show(struct tern_sched *sched, struct drm_printer *p)
{
	struct tern_sched_preempt_stats *st = &sched->preempt;
	struct tern_sched_job *job;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&sched->lock, flags);
	drm_printf(p, "engine %u: %s%s%s%s%s, %u in slots, %u queued, contexts %d\n",
		   sched->eng->id,
		   sched->eng->class == TERN_ENG_CLASS_COPY ? "copy" : "compute",
		   sched->stopped ? ", stopped" : "",
		   sched->resetting ? ", resetting" : "",
		   sched->preempting ? ", preempting" : "",
		   sched->raw ? ", lent" : "", sched->inflight,
		   sched->queued, atomic_read(&sched->ctx_count));
	drm_printf(p, "  policy %s quantum_us %u starve_ms %u\n",
		   tern_sched_mode_name(sched->params.mode),
		   sched->params.quantum_us, sched->params.starve_ms);
	drm_printf(p, "  run %llu completed %llu faults %llu resets %llu irqs %lld hw_seqno %u\n",
		   sched->jobs_run, sched->jobs_completed, sched->faults,
		   sched->resets, (long long)atomic64_read(&sched->eng->irq_count),
		   sched->hw_seqno);
	drm_printf(p, "  batches %llu batched_jobs %llu\n", sched->batches,
		   sched->batched_jobs);
	drm_printf(p, "  preempt requested %llu served %llu jobs %llu",
		   st->requested, st->served, st->jobs);
	drm_printf(p, " latency_ns last %llu max %llu\n", st->last_ns, st->max_ns);
	if (!sched->stopped) {
		drm_printf(p, "  status 0x%08x progress %u busy_ns %llu writeback %u\n",
			   tern_eng_read(sched->eng, TERN_ENG_STATUS),
			   tern_engine_progress(sched->eng),
			   tern_engine_busy_ns(sched->eng),
			   READ_ONCE(*sched->eng->writeback));
		for (i = 0; i < TERN_SLOTS_PER_ENGINE; i++) {
			u32 state = tern_engine_slot_state(sched->eng, i);

			job = sched->slot[i];
			drm_printf(p, "  slot %u: %s outcome %u", i,
				   tern_slot_state_names[TERN_SLOT_STATE_OF(state) & 3],
				   TERN_SLOT_OUTCOME_OF(state));
			if (job)
				drm_printf(p, " ctx %u job %u hw_seqno %u size %u jobs %u%s",
					   job->ctx->tag, job->seqno,
					   job->desc.seqno, job->desc.buf_size,
					   job->batch_jobs,
					   job->resume ? " resumed" : "");
			drm_printf(p, "\n");
		}
	}
	spin_unlock_irqrestore(&sched->lock, flags);
}

/**
 * tern_sched_debugfs_show_queue() - print the contexts bound to an engine
 * @sched: the scheduler
 * @p: where to print: per context its class, weight, ready jobs, virtual
 *	time, device time charged and share of the device time charged to
 *	the engine's current contexts
 */
void tern_sched_debugfs_show_queue(struct tern_sched *sched,
				   struct drm_printer *p)
{
	struct tern_policy_entity *e;
	unsigned long flags;
	u64 total = 0;

	spin_lock_irqsave(&sched->lock, flags);
	drm_printf(p, "engine %u: %u queued\n", sched->eng->id, sched->queued);
	list_for_each_entry(e, &sched->policy.entities, link)
		total += e->run_ns;
	list_for_each_entry(e, &sched->policy.entities, link) {
		struct tern_sched_ctx *ctx = to_sched_ctx(e);
		struct tern_sched_job *job;
		unsigned int held = 0;

		list_for_each_entry(job, &ctx->cancelled, pjob.link)
			held++;
		drm_printf(p, "  ctx %u prio %u weight %u queued %u vtime %llu",
			   ctx->tag, e->prio, e->weight / TERN_POLICY_WEIGHT_SCALE,
			   e->queued, e->vtime);
		drm_printf(p, " run_ns %llu share_permille %llu in_slots %u held %u%s\n",
			   e->run_ns,
			   total ? div64_u64(e->run_ns * 1000, total) : 0,
			   ctx->in_slots, held, ctx->cancel_error ? " cancelled" : "");
	}
	spin_unlock_irqrestore(&sched->lock, flags);
}

/**
 * tern_sched_debugfs_show_latency() - print the recorded preemption latencies
 * @sched: the scheduler
 * @p: where to print, one "<engine> <ns>" line each, oldest first
 */
void tern_sched_debugfs_show_latency(struct tern_sched *sched,
				     struct drm_printer *p)
{
	struct tern_sched_preempt_stats *st = &sched->preempt;
	unsigned long flags;
	u64 first, i;

	spin_lock_irqsave(&sched->lock, flags);
	first = st->samples > TERN_PREEMPT_LATENCY_SAMPLES ?
		st->samples - TERN_PREEMPT_LATENCY_SAMPLES : 0;
	for (i = first; i < st->samples; i++)
		drm_printf(p, "%u %llu\n", sched->eng->id,
			   st->sample[i % TERN_PREEMPT_LATENCY_SAMPLES]);
	spin_unlock_irqrestore(&sched->lock, flags);
}

/**
 * tern_sched_clear_latency() - forget the recorded preemption latencies
 * @sched: the scheduler
 */
void tern_sched_clear_latency(struct tern_sched *sched)
{
	unsigned long flags;

	spin_lock_irqsave(&sched->lock, flags);
	sched->preempt.samples = 0;
	sched->preempt.last_ns = 0;
	sched->preempt.max_ns = 0;
	spin_unlock_irqrestore(&sched->lock, flags);
}
