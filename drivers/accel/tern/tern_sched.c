// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/dma-fence.h>
#include <linux/jiffies.h>

#include <drm/drm_print.h>

#include "tern_coredump.h"
#include "tern_device.h"
#include "tern_sched.h"
#include "tern_trace.h"

/**
 * DOC: feeder
 *
 * Each engine has a two-slot hardware queue.  The feeder keeps it full:
 * one &struct tern_sched per engine holds a FIFO of jobs that are ready to
 * run (their dependencies resolved) and the jobs in the two slots, in
 * doorbell order.  Whenever a slot is free and the FIFO is not empty the next
 * job is programmed into the free slot and its doorbell rung, so the device
 * always has the next buffer queued behind the running one.
 *
 * Dependencies are drm_sched's job: each engine has a drm_gpu_scheduler and
 * each context one drm_sched_entity on it; drm_sched calls run_job (in
 * tern_job.c) once a job's in-fences signalled, and run_job hands the job to
 * tern_sched_push().  The credit limit is high, so drm_sched never throttles:
 * what the hardware runs next is decided here only.  The priority and
 * fair-share scheduler that comes later replaces the FIFO policy of
 * tern_sched_feed() and tern_sched_push() and nothing else: the submit path
 * and the completion path stay as they are.
 *
 * Completion: the engine's hard interrupt handler only queues @done_work,
 * which runs on the device's ordered workqueue, reads the slots in doorbell
 * order, acknowledges DONE slots and signals the jobs' hardware fences in
 * that order, then refills the slots.  Since slots complete in doorbell order
 * and a context's jobs enter the FIFO in submission order, the fences of a
 * context signal in seqno order; jobs that must not run (context destroyed,
 * faulted, banned, failed dependency) are cancelled when they reach the head
 * of the FIFO, which keeps that order too.
 *
 * Outcomes: COMPLETED signals the fence; FAULTED signals it with -EIO, tells
 * the context (which stops taking work), cancels the context's queued jobs
 * and takes a devcoredump; CANCELLED (the job queued behind a fault) and
 * PREEMPTED jobs go back to the head of the FIFO and run again.
 *
 * Hangs: @watchdog samples TERN_ENG_PROGRESS every TERN_WATCHDOG_PERIOD while
 * a slot is busy.  When the counter has not moved for the running context's
 * timeout, the engine is reset: the running job's fence signals with
 * -ETIMEDOUT and its context is banned, the job queued behind it (innocent)
 * goes back to the head of the FIFO.  Long jobs that progress are never
 * killed.  The watchdog also processes DONE slots, so a lost interrupt
 * delays a completion by one period at most.
 *
 * @done_work and @watchdog run on the same ordered workqueue and never
 * concurrently.  @lock is taken with interrupts off: it is also the lock of
 * the hardware fences, whose callbacks may be added from any context.
 */

#define TERN_WATCHDOG_PERIOD	msecs_to_jiffies(50)

static const char *tern_fence_get_driver_name(struct dma_fence *fence)
{
	return "tern";
}

static const char *tern_fence_get_timeline_name(struct dma_fence *fence)
{
	return "tern-context";
}

static const struct dma_fence_ops tern_hw_fence_ops = {
	.get_driver_name = tern_fence_get_driver_name,
	.get_timeline_name = tern_fence_get_timeline_name,
};

/**
 * tern_sched_fence_init() - initialise a job's hardware fence
 * @sched: the feeder that will signal it
 * @fence: the fence, allocated by the caller
 * @context: the fence context (one per tern context)
 * @seqno: the job's seqno in that context
 */
void tern_sched_fence_init(struct tern_sched *sched, struct dma_fence *fence,
			   u64 context, u64 seqno)
{
	dma_fence_init(fence, &tern_hw_fence_ops, &sched->lock, context, seqno);
}

static void tern_sched_signal(struct tern_sched *s, struct tern_sched_job *job,
			      int error)
{
	lockdep_assert_held(&s->lock);
	if (error)
		dma_fence_set_error(job->fence, error);
	dma_fence_signal_locked(job->fence);
}

static void tern_sched_arm_watchdog(struct tern_sched *s)
{
	queue_delayed_work(s->tdev->wq, &s->watchdog, TERN_WATCHDOG_PERIOD);
}

/* Fill the free slots from the FIFO, cancelling jobs that must not run. */
static void tern_sched_feed(struct tern_sched *s)
{
	struct tern_engine *eng = s->eng;

	lockdep_assert_held(&s->lock);

	while (s->inflight < TERN_SLOTS_PER_ENGINE && !s->stopped &&
	       !s->resetting) {
		struct tern_sched_job *job;
		unsigned int slot;
		int error;

		job = list_first_entry_or_null(&s->queue, struct tern_sched_job, link);
		if (!job)
			break;
		list_del_init(&job->link);
		s->queued--;

		error = job->error ?: job->ctx->cancel_error;
		if (error) {
			tern_sched_signal(s, job, error);
			continue;
		}

		if (s->inflight)
			slot = !s->order[0];
		else
			slot = s->slot[0] ? 1 : 0;

		job->desc.seqno = ++s->hw_seqno;
		tern_engine_program_slot(eng, slot, &job->desc);
		s->slot[slot] = job;
		s->order[s->inflight++] = slot;
		s->jobs_run++;
		trace_tern_job_run(eng->id, slot, job->ctx->tag, job->seqno,
				   job->desc.seqno);

		if (s->inflight == 1) {
			s->progress = tern_engine_progress(eng);
			s->progress_stamp = jiffies;
			tern_sched_arm_watchdog(s);
		}
	}
}

static struct tern_sched_job *tern_sched_pop_head(struct tern_sched *s)
{
	struct tern_sched_job *job = s->slot[s->order[0]];

	s->slot[s->order[0]] = NULL;
	s->order[0] = s->order[1];
	s->inflight--;
	if (s->inflight) {
		/* the next slot starts now: measure its progress from here */
		s->progress = tern_engine_progress(s->eng);
		s->progress_stamp = jiffies;
	}
	return job;
}

/* Retire DONE slots in doorbell order, then refill. */
static void tern_sched_process(struct tern_sched *s)
{
	struct tern_engine *eng = s->eng;
	LIST_HEAD(requeue);

	lockdep_assert_held(&s->lock);

	while (s->inflight && !s->stopped && !s->resetting) {
		unsigned int slot = s->order[0];
		struct tern_sched_ctx *ctx;
		struct tern_sched_job *job;
		struct tern_slot_result res;
		struct tern_fault_info fault;

		if (TERN_SLOT_STATE_OF(tern_engine_slot_state(eng, slot)) !=
		    TERN_SLOT_STATE_DONE)
			break;

		tern_engine_slot_result(eng, slot, &res);
		tern_engine_slot_ack(eng, slot);
		job = tern_sched_pop_head(s);
		ctx = job->ctx;

		trace_tern_job_complete(eng->id, slot, ctx->tag, job->seqno,
					res.outcome, res.run_ns);

		switch (res.outcome) {
		case TERN_OUTCOME_COMPLETED:
			s->jobs_completed++;
			ctx->ops->completed(ctx, job, res.run_ns);
			tern_sched_signal(s, job, 0);
			break;
		case TERN_OUTCOME_FAULTED:
			s->faults++;
			tern_engine_read_fault(eng, &fault);
			trace_tern_job_fault(eng->id, ctx->tag, job->seqno,
					     TERN_FAULT_KIND(fault.info),
					     fault.addr,
					     TERN_FAULT_OFFSET(fault.info));
			tern_coredump_capture(s, job, "fault", &fault);
			ctx->ops->faulted(ctx, job, &fault, res.run_ns);
			if (!ctx->cancel_error)
				ctx->cancel_error = -ECANCELED;
			tern_sched_signal(s, job, -EIO);
			break;
		case TERN_OUTCOME_PREEMPTED:
			trace_tern_job_preempt(eng->id, ctx->tag, job->seqno);
			fallthrough;
		case TERN_OUTCOME_CANCELLED:
			/* not (or not wholly) run: run it again, in order */
			list_add_tail(&job->link, &requeue);
			s->queued++;
			break;
		default:
			drm_err_ratelimited(&s->tdev->drm,
					    "engine %u slot %u: DONE with outcome %u\n",
					    eng->id, slot, res.outcome);
			tern_sched_signal(s, job, -EIO);
			break;
		}
	}

	list_splice(&requeue, &s->queue);
	tern_sched_feed(s);
}

static void tern_sched_done_work(struct work_struct *work)
{
	struct tern_sched *s = container_of(work, struct tern_sched, done_work);
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	tern_sched_process(s);
	spin_unlock_irqrestore(&s->lock, flags);
}

static void tern_sched_irq(struct tern_engine *eng, u32 status, void *data)
{
	struct tern_sched *s = data;

	queue_work(s->tdev->wq, &s->done_work);
}

/* Cancel every job of the feeder with @error, in order. */
static void tern_sched_cancel_all(struct tern_sched *s, int error)
{
	struct tern_sched_job *job, *tmp;

	lockdep_assert_held(&s->lock);

	while (s->inflight)
		tern_sched_signal(s, tern_sched_pop_head(s), error);
	list_for_each_entry_safe(job, tmp, &s->queue, link) {
		list_del_init(&job->link);
		tern_sched_signal(s, job, error);
	}
	s->queued = 0;
}

/* The running job made no progress for its timeout: reset the engine. */
static void tern_sched_recover(struct tern_sched *s)
{
	struct tern_sched_job *guilty, *innocent = NULL;
	struct tern_engine *eng = s->eng;
	unsigned long flags;
	int ret;

	mutex_lock(&s->tdev->reset_lock);
	ret = tern_engine_reset(eng);
	mutex_unlock(&s->tdev->reset_lock);

	spin_lock_irqsave(&s->lock, flags);
	s->resets++;
	atomic_inc(&s->tdev->device_resets);
	guilty = tern_sched_pop_head(s);
	if (s->inflight)
		innocent = tern_sched_pop_head(s);

	trace_tern_engine_reset(eng->id, guilty->ctx->tag, guilty->seqno);
	drm_warn(&s->tdev->drm,
		 "engine %u: job %u of context tag %u made no progress, engine reset\n",
		 eng->id, guilty->seqno, guilty->ctx->tag);
	tern_coredump_capture(s, guilty, "hang", NULL);
	guilty->ctx->ops->hung(guilty->ctx, guilty);
	if (!guilty->ctx->cancel_error)
		guilty->ctx->cancel_error = -ECANCELED;
	tern_sched_signal(s, guilty, -ETIMEDOUT);

	if (innocent) {
		innocent->ctx->ops->reset(innocent->ctx, innocent);
		list_add(&innocent->link, &s->queue);
		s->queued++;
	}

	s->resetting = false;
	if (ret) {
		drm_err(&s->tdev->drm, "engine %u lost: cancelling its work\n",
			eng->id);
		s->stopped = true;
		tern_sched_cancel_all(s, -EIO);
	}
	tern_sched_feed(s);
	spin_unlock_irqrestore(&s->lock, flags);
}

static void tern_sched_watchdog(struct work_struct *work)
{
	struct tern_sched *s = container_of(work, struct tern_sched,
					    watchdog.work);
	struct tern_sched_job *head;
	unsigned long flags;
	bool hang = false;
	u32 progress;

	spin_lock_irqsave(&s->lock, flags);
	/* catches completions whose interrupt was lost */
	tern_sched_process(s);
	if (s->stopped || s->resetting || !s->inflight)
		goto out;

	head = s->slot[s->order[0]];
	progress = tern_engine_progress(s->eng);
	if (progress != s->progress) {
		s->progress = progress;
		s->progress_stamp = jiffies;
	} else if (time_after(jiffies, s->progress_stamp + head->ctx->timeout)) {
		hang = true;
		s->resetting = true;
	}
	if (!hang)
		tern_sched_arm_watchdog(s);
out:
	spin_unlock_irqrestore(&s->lock, flags);

	if (hang)
		tern_sched_recover(s);
}

/**
 * tern_sched_push() - hand a ready job to its engine
 * @sched: the feeder of the job's engine
 * @job: the job; its fence, context and slot description are set
 *
 * Called from drm_sched's run_job.  The job joins the tail of the FIFO and
 * starts as soon as a slot is free.  A job with @job->error set, or whose
 * context is cancelled, is not run: its fence signals with the error once
 * the jobs before it are done, so fences keep their order.
 */
void tern_sched_push(struct tern_sched *sched, struct tern_sched_job *job)
{
	unsigned long flags;

	spin_lock_irqsave(&sched->lock, flags);
	if (sched->stopped) {
		tern_sched_signal(sched, job, -ENODEV);
	} else {
		list_add_tail(&job->link, &sched->queue);
		sched->queued++;
		tern_sched_feed(sched);
	}
	spin_unlock_irqrestore(&sched->lock, flags);
}

/**
 * tern_sched_ctx_cancel() - stop running the jobs of a context
 * @sctx: the context
 * @error: fence error of its jobs that did not start (e.g. -ECANCELED)
 *
 * Jobs already in a slot finish; the others are cancelled when they reach
 * the head of the FIFO, after the jobs before them, so fences stay in order.
 */
void tern_sched_ctx_cancel(struct tern_sched_ctx *sctx, int error)
{
	struct tern_sched *s = sctx->sched;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	if (!sctx->cancel_error)
		sctx->cancel_error = error;
	tern_sched_feed(s);
	spin_unlock_irqrestore(&s->lock, flags);
}

/**
 * tern_sched_init() - set up the feeder of one engine
 * @tdev: the device
 * @sched: the feeder to initialise
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
		.credit_limit = TERN_MAX_CONTEXTS_PER_FILE * TERN_MAX_JOBS_PER_CONTEXT,
		.timeout = MAX_SCHEDULE_TIMEOUT,
		.name = "tern",
		.dev = tdev->drm.dev,
	};

	sched->tdev = tdev;
	sched->eng = eng;
	spin_lock_init(&sched->lock);
	INIT_LIST_HEAD(&sched->queue);
	INIT_WORK(&sched->done_work, tern_sched_done_work);
	INIT_DELAYED_WORK(&sched->watchdog, tern_sched_watchdog);
	atomic_set(&sched->ctx_count, 0);

	tern_engine_set_irq_handler(eng, tern_sched_irq, sched);
	return drm_sched_init(&sched->drm, &args);
}

/**
 * tern_sched_start() - let the engine interrupt
 * @sched: the feeder
 */
void tern_sched_start(struct tern_sched *sched)
{
	tern_engine_enable_irqs(sched->eng);
}

/**
 * tern_sched_stop() - the device is going away: cancel everything
 * @sched: the feeder
 *
 * Called at PCI remove while the registers are still mapped.  After it,
 * the feeder never touches the device again; jobs pushed later signal
 * -ENODEV at once.  Fences of jobs in the FIFO or in slots signal -ENODEV.
 */
void tern_sched_stop(struct tern_sched *sched)
{
	unsigned long flags;

	tern_engine_disable_irqs(sched->eng);
	spin_lock_irqsave(&sched->lock, flags);
	sched->stopped = true;
	spin_unlock_irqrestore(&sched->lock, flags);

	cancel_work_sync(&sched->done_work);
	cancel_delayed_work_sync(&sched->watchdog);

	spin_lock_irqsave(&sched->lock, flags);
	tern_sched_cancel_all(sched, -ENODEV);
	spin_unlock_irqrestore(&sched->lock, flags);
}

/**
 * tern_sched_fini() - tear down the feeder's drm_sched
 * @sched: the feeder, stopped, with no entity left
 *
 * Called when the DRM device is released.  Jobs whose fences signalled may
 * still wait for free_job on the scheduler workqueue: the caller drains that
 * workqueue first.
 */
void tern_sched_fini(struct tern_sched *sched)
{
	drm_sched_fini(&sched->drm);
}

static const char *const tern_slot_state_names[] = {
	"free", "pending", "running", "done",
};

/**
 * tern_sched_debugfs_show() - print the feeder's state
 * @sched: the feeder
 * @p: where to print
 */
void tern_sched_debugfs_show(struct tern_sched *sched, struct drm_printer *p)
{
	struct tern_sched_job *job;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&sched->lock, flags);
	drm_printf(p, "engine %u: %s%s%s, %u in slots, %u queued, contexts %d\n",
		   sched->eng->id,
		   sched->eng->class == TERN_ENG_CLASS_COPY ? "copy" : "compute",
		   sched->stopped ? ", stopped" : "",
		   sched->resetting ? ", resetting" : "", sched->inflight,
		   sched->queued, atomic_read(&sched->ctx_count));
	drm_printf(p, "  run %llu completed %llu faults %llu resets %llu irqs %lld hw_seqno %u\n",
		   sched->jobs_run, sched->jobs_completed, sched->faults,
		   sched->resets, (long long)atomic64_read(&sched->eng->irq_count),
		   sched->hw_seqno);
	if (!sched->stopped) {
		drm_printf(p, "  status 0x%08x progress %u busy_ns %llu writeback %u\n",
			   tern_eng_read(sched->eng, TERN_ENG_STATUS),
			   tern_engine_progress(sched->eng),
			   tern_engine_busy_ns(sched->eng),
			   READ_ONCE(*sched->eng->writeback));
		for (i = 0; i < TERN_SLOTS_PER_ENGINE; i++) {
			u32 st = tern_engine_slot_state(sched->eng, i);

			job = sched->slot[i];
			drm_printf(p, "  slot %u: %s outcome %u", i,
				   tern_slot_state_names[TERN_SLOT_STATE_OF(st) & 3],
				   TERN_SLOT_OUTCOME_OF(st));
			if (job)
				drm_printf(p, " ctx %u job %u hw_seqno %u size %u",
					   job->ctx->tag, job->seqno,
					   job->desc.seqno, job->desc.buf_size);
			drm_printf(p, "\n");
		}
	}
	spin_unlock_irqrestore(&sched->lock, flags);
}

/**
 * tern_sched_debugfs_show_queue() - print the jobs waiting in the FIFO
 * @sched: the feeder
 * @p: where to print
 */
void tern_sched_debugfs_show_queue(struct tern_sched *sched,
				   struct drm_printer *p)
{
	struct tern_sched_job *job;
	unsigned long flags;

	spin_lock_irqsave(&sched->lock, flags);
	drm_printf(p, "engine %u: %u queued\n", sched->eng->id, sched->queued);
	list_for_each_entry(job, &sched->queue, link)
		drm_printf(p, "  ctx %u job %u size %u%s\n",
			   job->ctx->tag, job->seqno, job->desc.buf_size,
			   job->error || job->ctx->cancel_error ? " (cancel)" : "");
	spin_unlock_irqrestore(&sched->lock, flags);
}
