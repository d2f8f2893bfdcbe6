// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/dma-fence.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include <drm/tern_accel.h>

#include "tern_bind.h"
#include "tern_device.h"

/**
 * DOC: page-table updates
 *
 * The CPU does not write an entry of a page table the device may be
 * walking (but for the retarget of a moved BO that the copy engine failed,
 * or that needed more updates than a move allocates, tern_vm_move.c).  A
 * change to an address space is recorded by tern_pt into a DMA buffer of
 * privileged PHYS_COPY packets (and a TLB_INVALIDATE) and run by the copy
 * engine as a job of the driver's own queue, &struct tern_bind_queue: one
 * per device, a context of the copy engine's scheduler at
 * %DRM_TERN_PRIORITY_HIGH with the largest weight, which the policy treats
 * apart in every mode (tern_policy_set_kernel()): an update is picked
 * first and preempts the running copy job of an application, so it waits
 * for no more than a preemption; after TERN_POLICY_KERNEL_STREAK updates in
 * a row while other work waits, one pick goes to that work.
 *
 * An update job is not preemptible (its slot has no resume record), short
 * (a few PHYS_COPY packets of at most 4 KiB each) and idempotent: it
 * writes the entries as the CPU's view of the tree says they are after it.
 * So a reset of the copy engine for another job's hang runs it again from
 * its start, and a job that fails on its own (an injected fault or hang:
 * tern_pt writes only valid bus addresses) is run again, up to
 * TERN_BIND_TRIES times, without stopping the queue for the other address
 * spaces; &tern_sched_ctx.kernel tells the scheduler so.  Updates of one
 * address space run one at a time in the order they were recorded (by the
 * one runner of the address space's binds, tern_vm_bind.c), so running one again never
 * undoes a later one.
 *
 * The paging buffers that move BOs between system and local memory
 * (tern_paging.c) run on a second queue, &tern_device.paging_queue: a
 * context of the copy engine at %DRM_TERN_PRIORITY_NORMAL with the largest
 * weight, which the policy treats as any other.  Its jobs have a resume
 * record, so they are preemptible at every 4 KiB chunk like an
 * application's copy: in ``fair`` mode a HIGH copy job, or a page-table
 * update, preempts a paging buffer and waits no longer than that, whoever
 * caused the paging; under a stream of HIGH copy work, paging advances as
 * any NORMAL work does (a quantum per starvation bound).  ``fifo`` and
 * ``drmfair`` do not preempt for priority: there a paging job would wait
 * for the copy jobs queued before it, so it runs on the queue of the
 * updates instead, first and not preemptible.  Like an update, a paging
 * job is idempotent (a copy, or a clear), and one that faults or hangs
 * fails alone and runs again; a job is at most 4 MiB of data (a few ms of
 * the copy engine at time-scale 1).
 *
 * tern_bind_run() pushes a job and waits for it: its caller, the runner
 * of an address space's binds or a BO's move, holds no lock the scheduler
 * or a fence callback takes (a move holds BO reservations, which no job
 * waits for).  A buffer longer than the device's BUF_SIZE_MAX is run as
 * several jobs, split between packets.
 */

/* runs of one update after failures of its own, the first included */
#define TERN_BIND_TRIES		3
/* an update job makes progress every chunk: this is far beyond it */
#define TERN_BIND_TIMEOUT_MS	2000

/**
 * struct tern_bind_job - one run of (part of) an update or paging buffer
 * @hw: the scheduler's view; @hw.fence is the run's hardware fence
 * @run_ns: device time of the run, all its slots (a paging job may be
 *	preempted and resumed), added up before the fence signals
 */
struct tern_bind_job {
	struct tern_sched_job hw;
	u64 run_ns;
};

static struct tern_bind_queue *to_bind_queue(struct tern_sched_ctx *sctx)
{
	return container_of(sctx, struct tern_bind_queue, sctx);
}

static void tern_bind_completed(struct tern_sched_ctx *sctx,
				struct tern_sched_job *job, u64 run_ns)
{
	struct tern_bind_queue *bq = to_bind_queue(sctx);

	bq->jobs++;
	bq->busy_ns += run_ns;
	container_of(job, struct tern_bind_job, hw)->run_ns += run_ns;
}

static void tern_bind_faulted(struct tern_sched_ctx *sctx,
			      struct tern_sched_job *job,
			      const struct tern_fault_info *fault, u64 run_ns)
{
	to_bind_queue(sctx)->busy_ns += run_ns;
	container_of(job, struct tern_bind_job, hw)->run_ns += run_ns;
}

/* A hang or a reset needs nothing of the queue: the job runs again. */
static void tern_bind_no_op(struct tern_sched_ctx *sctx,
			    struct tern_sched_job *job)
{
}

/*
 * A job with a resume record (a paging job) resumes later where it
 * stopped: charge what it ran.  One without (an update, or a paging job
 * on the update queue) cannot be preempted.
 */
static void tern_bind_preempted(struct tern_sched_ctx *sctx,
				struct tern_sched_job *job, u64 run_ns)
{
	struct tern_bind_queue *bq = to_bind_queue(sctx);

	WARN_ONCE(!job->desc.resume,
		  "tern: a kernel copy-engine job without a resume record was preempted\n");
	bq->preemptions++;
	bq->busy_ns += run_ns;
	container_of(job, struct tern_bind_job, hw)->run_ns += run_ns;
}

static void tern_bind_finished(struct tern_sched_ctx *sctx, u32 seqno,
			       int error)
{
}

/* the ops of both queues, the updates' and the paging buffers' */
static const struct tern_sched_ctx_ops tern_bind_sched_ops = {
	.completed = tern_bind_completed,
	.faulted = tern_bind_faulted,
	.hung = tern_bind_no_op,
	.reset = tern_bind_no_op,
	.preempted = tern_bind_preempted,
	.finished = tern_bind_finished,
};

static struct tern_sched *tern_bind_sched(struct tern_device *tdev)
{
	/* the copy engine follows the compute engines */
	return &tdev->sched[tdev->compute_count];
}

static void tern_bind_fini(struct drm_device *drm, void *data)
{
	struct tern_bind_queue *bq = data;

	/* every file was closed, every bind ran: none is left */
	if (bq->wq)
		destroy_workqueue(bq->wq);
	tern_sched_ctx_fini(&bq->sctx);
}

/* One of the driver's queues on the copy engine, as its class says. */
static int tern_bind_queue_init(struct tern_device *tdev,
				struct tern_bind_queue *bq, u32 prio)
{
	int ret;

	ret = drmm_mutex_init(&tdev->drm, &bq->lock);
	if (ret)
		return ret;
	bq->fence_context = dma_fence_context_alloc(1);
	bq->sctx.ops = &tern_bind_sched_ops;
	bq->sctx.tag = atomic_inc_return(&tdev->next_ctx_tag);
	bq->sctx.timeout_ns = (u64)TERN_BIND_TIMEOUT_MS * NSEC_PER_MSEC;
	tern_sched_ctx_init(tern_bind_sched(tdev), &bq->sctx, prio,
			    DRM_TERN_WEIGHT_MAX);
	return drmm_add_action_or_reset(&tdev->drm, tern_bind_fini, bq);
}

/**
 * tern_bind_init() - set up the queues of page-table updates and paging
 *	buffers
 * @tdev: the device, its schedulers initialised
 *
 * Context: probe.
 * Return: 0 or a negative errno.
 */
int tern_bind_init(struct tern_device *tdev)
{
	struct tern_bind_queue *bq = &tdev->bind;
	int ret;

	ret = tern_bind_queue_init(tdev, bq, DRM_TERN_PRIORITY_HIGH);
	if (ret)
		return ret;
	bq->wq = alloc_workqueue("tern-bind", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!bq->wq)
		return -ENOMEM;
	tern_sched_ctx_set_kernel(&bq->sctx);

	bq = &tdev->paging_queue;
	ret = tern_bind_queue_init(tdev, bq, DRM_TERN_PRIORITY_NORMAL);
	if (ret)
		return ret;
	tern_sched_ctx_set_driver(&bq->sctx);
	return 0;
}

/* dwords of commands one job may run: whole PHYS_COPY packets */
static u32 tern_bind_piece(struct tern_device *tdev)
{
	return rounddown(tdev->buf_size_max / 4, TERN_PKT_DWORDS_PHYS_COPY);
}

/**
 * tern_bind_prepare() - allocate what running an update takes
 * @tdev: the device
 * @cmd_bytes: the most bytes of commands the update may have
 * @run: filled in; released with tern_bind_release()
 *
 * So that running the update, once recorded, allocates nothing.
 *
 * Context: process context; may sleep.
 * Return: 0 or -ENOMEM.
 */
int tern_bind_prepare(struct tern_device *tdev, u64 cmd_bytes,
		      struct tern_bind_run *run)
{
	/* a TLB_INVALIDATE left alone moves a packet to one more piece */
	u64 pieces = DIV_ROUND_UP(cmd_bytes / 4, tern_bind_piece(tdev)) + 1;
	unsigned int i;

	memset(run, 0, sizeof(*run));
	run->job = kzalloc(sizeof(*run->job), GFP_KERNEL);
	run->fences = kcalloc(pieces * TERN_BIND_TRIES, sizeof(*run->fences),
			      GFP_KERNEL);
	if (!run->job || !run->fences)
		goto err;
	for (i = 0; i < pieces * TERN_BIND_TRIES; i++) {
		run->fences[i] = kzalloc(sizeof(*run->fences[i]), GFP_KERNEL);
		if (!run->fences[i])
			goto err;
		run->nr_fences++;
	}
	return 0;

err:
	tern_bind_release(run);
	return -ENOMEM;
}

/**
 * tern_bind_release() - free what tern_bind_prepare() allocated
 * @run: prepared, run or not
 *
 * The fences of the runs are freed with their last reference.
 */
void tern_bind_release(struct tern_bind_run *run)
{
	unsigned int i;

	for (i = run->used; i < run->nr_fences; i++)
		kfree(run->fences[i]);
	kfree(run->fences);
	kfree(run->job);
	memset(run, 0, sizeof(*run));
}

/*
 * Run @bytes of commands at @cmd_dma once on @bq, preemptible with a
 * resume record at @resume_dma; the fence's error.
 */
static int tern_bind_run_once(struct tern_device *tdev,
			      struct tern_bind_queue *bq,
			      struct tern_bind_run *run, const u32 *cmd,
			      dma_addr_t cmd_dma, u32 bytes, u64 root,
			      void *resume_cpu, dma_addr_t resume_dma)
{
	struct tern_sched *sched = tern_bind_sched(tdev);
	struct tern_bind_job *job = run->job;
	struct tern_hw_fence *hw;
	struct dma_fence *fence;
	int ret;

	/* tern_bind_prepare() counted them: a bug otherwise, not retried */
	if (WARN_ON(run->used >= run->nr_fences))
		return -EPROTO;
	hw = run->fences[run->used++];
	memset(job, 0, sizeof(*job));
	job->hw.ctx = &bq->sctx;
	job->hw.cmd = cmd;
	job->hw.own_size = bytes;
	job->hw.batch_jobs = 1;
	job->hw.desc.buf = cmd_dma;
	job->hw.desc.buf_size = bytes;
	job->hw.desc.root = root;
	job->hw.desc.ctx_tag = bq->sctx.tag;
	job->hw.desc.flags = TERN_SLOT_FLAG_PRIVILEGED;
	/* without a resume record, not preemptible */
	job->hw.desc.resume = resume_dma;
	job->hw.resume_cpu = resume_cpu;
	INIT_LIST_HEAD(&job->hw.pjob.link);

	/* a stopped scheduler (device gone, engine lost) fails it at once */
	mutex_lock(&bq->lock);
	job->hw.seqno = ++bq->next_seqno;
	tern_sched_fence_init(sched, hw, bq->fence_context, job->hw.seqno);
	fence = &hw->base;
	job->hw.fence = fence;
	tern_sched_push(sched, &job->hw);
	mutex_unlock(&bq->lock);

	/*
	 * Not interruptible: the CPU's view of the tree already is what the
	 * job makes of it (or a move cannot be left half done).  An update
	 * is short and preempts the running job of the engine in every
	 * policy mode; a paging job runs as its class and the starvation
	 * bound let it; a hang of the engine ends in a reset within the
	 * watchdog's bound.
	 */
	dma_fence_wait(fence, false);
	ret = dma_fence_get_status(fence);
	dma_fence_put(fence);
	run->device_ns += job->run_ns;
	/* signalled: the scheduler is done with the job */
	return ret < 0 ? ret : 0;
}

static void tern_bind_count(struct tern_device *tdev, u64 *counter)
{
	struct tern_sched *s = tern_bind_sched(tdev);
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	(*counter)++;
	spin_unlock_irqrestore(&s->lock, flags);
}

/*
 * tern_bind_run() on @bq, with the resume record of a preemptible job;
 * @what names the buffer in the log.
 */
static int tern_bind_run_on(struct tern_device *tdev,
			    struct tern_bind_queue *bq, const char *what,
			    struct tern_bind_run *run, const u32 *cmd,
			    dma_addr_t cmd_dma, u32 dwords, u64 root,
			    void *resume_cpu, dma_addr_t resume_dma)
{
	struct tern_sched *sched = tern_bind_sched(tdev);
	u32 piece = tern_bind_piece(tdev), done = 0;
	int ret = 0;

	while (done < dwords) {
		u32 n = min(dwords - done, piece);
		int tries;

		/* a TLB_INVALIDATE left alone ends the last piece */
		if (dwords - done - n == TERN_PKT_DWORDS_TLB_INVALIDATE)
			n -= TERN_PKT_DWORDS_PHYS_COPY;
		/* at least two packets per piece (TERN_BUF_SIZE_MAX_MIN) */
		if (WARN_ON(!n))
			return -EPROTO;
		for (tries = 1; ; tries++) {
			ret = tern_bind_run_once(tdev, bq, run, cmd + done,
						 cmd_dma + done * 4, n * 4, root,
						 resume_cpu, resume_dma);
			if (ret != -EIO && ret != -ETIMEDOUT)
				break;
			/* a lost engine cancels with -EIO: no use trying */
			if (tries == TERN_BIND_TRIES || READ_ONCE(sched->stopped))
				break;
			tern_bind_count(tdev, &bq->retries);
		}
		if (ret)
			break;
		done += n;
	}
	if (ret && !drm_dev_is_unplugged(&tdev->drm)) {
		tern_bind_count(tdev, &bq->failures);
		drm_err_ratelimited(&tdev->drm, "%s failed on the copy engine (%d)\n",
				    what, ret);
	}
	return ret;
}

/**
 * tern_bind_run() - run a page-table update and wait for it
 * @tdev: the device
 * @run: from tern_bind_prepare() with room for @dwords
 * @cmd: CPU address of the update's buffer (tern_pt_update_end())
 * @cmd_dma: its bus address
 * @dwords: its length
 * @root: a valid address-space root for the slot (the updated tree's)
 *
 * A buffer longer than the device's BUF_SIZE_MAX runs as several jobs, in
 * order, split between packets.  A job that fails on its own (-EIO: a
 * fault; -ETIMEDOUT: a hang) runs again, up to TERN_BIND_TRIES times.
 *
 * Context: process context, with no lock the scheduler or a fence
 * callback takes; sleeps until the update ran.
 * Return: 0 once the device made the update; -ENODEV if the device is
 * gone or the copy engine was lost before the update was pushed, -EIO if
 * it was lost with the update queued; -EIO or -ETIMEDOUT if the update
 * failed TERN_BIND_TRIES times.  The tables may then hold part of it.
 */
int tern_bind_run(struct tern_device *tdev, struct tern_bind_run *run,
		  const u32 *cmd, dma_addr_t cmd_dma, u32 dwords, u64 root)
{
	return tern_bind_run_on(tdev, &tdev->bind, "page-table update", run,
				cmd, cmd_dma, dwords, root, NULL, 0);
}

/**
 * tern_bind_run_paging() - run a paging buffer and wait for it
 * @tdev: the device
 * @run: from tern_bind_prepare() with room for @dwords
 * @cmd: CPU address of the buffer
 * @cmd_dma: its bus address
 * @dwords: its length, whole PHYS_COPY packets
 * @root: a valid address-space root for the slot
 * @resume_cpu: CPU address of a resume record (TERN_RESUME_RECORD_SIZE
 *	bytes, aligned), which the buffer's jobs use one at a time
 * @resume_dma: its bus address
 *
 * As tern_bind_run(), on the paging queue, where the jobs are preemptible,
 * while the copy engine's policy is fair; in the other modes on the queue
 * of the updates.
 *
 * Context: as tern_bind_run().
 * Return: as tern_bind_run(); the destination may hold part of the copy
 * after a failure.
 */
int tern_bind_run_paging(struct tern_device *tdev, struct tern_bind_run *run,
			 const u32 *cmd, dma_addr_t cmd_dma, u32 dwords,
			 u64 root, void *resume_cpu, dma_addr_t resume_dma)
{
	struct tern_sched_params params;

	/*
	 * Only fair preempts for priority.  In fifo and drmfair a paging
	 * job of the paging queue would wait for every copy job queued
	 * before it, however long, with a BO's reservation held: there it
	 * runs on the kernel queue, first and not preemptible, as an update.
	 * The mode is read once per job: a job already on the paging queue
	 * when the mode leaves fair waits for the jobs queued before it in
	 * the new mode's order; the next job reads the new mode.
	 */
	tern_sched_get_params(tern_bind_sched(tdev), &params);
	if (params.mode != TERN_POLICY_FAIR)
		return tern_bind_run_on(tdev, &tdev->bind, "paging buffer", run,
					cmd, cmd_dma, dwords, root, NULL, 0);
	return tern_bind_run_on(tdev, &tdev->paging_queue, "paging buffer",
				run, cmd, cmd_dma, dwords, root, resume_cpu,
				resume_dma);
}

/* The counters of a queue, copied for debugfs */
struct tern_bind_stats {
	u64 jobs;
	u64 retries;
	u64 failures;
	u64 preemptions;
	u64 busy_ns;
};

/* A copy of @bq's counters, taken under the scheduler's lock. */
static struct tern_bind_stats tern_bind_counters(struct tern_device *tdev,
						 struct tern_bind_queue *bq)
{
	struct tern_sched *s = tern_bind_sched(tdev);
	struct tern_bind_stats c;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	c.jobs = bq->jobs;
	c.retries = bq->retries;
	c.failures = bq->failures;
	c.preemptions = bq->preemptions;
	c.busy_ns = bq->busy_ns;
	spin_unlock_irqrestore(&s->lock, flags);
	return c;
}

/**
 * tern_bind_debugfs_show() - the queue of page-table updates, for debugfs
 * @tdev: the device
 * @p: where to print
 */
void tern_bind_debugfs_show(struct tern_device *tdev, struct drm_printer *p)
{
	struct tern_bind_stats c = tern_bind_counters(tdev, &tdev->bind);

	drm_printf(p, "bind queue: engine %u ctx tag %u jobs %llu retries %llu",
		   tern_bind_sched(tdev)->eng->id, tdev->bind.sctx.tag, c.jobs,
		   c.retries);
	drm_printf(p, " failures %llu busy_ns %llu\n", c.failures, c.busy_ns);
}

/**
 * tern_bind_debugfs_show_paging() - the paging queue, for debugfs "memory"
 * @tdev: the device
 * @p: where to print
 */
void tern_bind_debugfs_show_paging(struct tern_device *tdev,
				   struct drm_printer *p)
{
	struct tern_bind_stats c = tern_bind_counters(tdev, &tdev->paging_queue);

	drm_printf(p, "paging_queue_engine: %u\npaging_queue_ctx: %u\n",
		   tern_bind_sched(tdev)->eng->id, tdev->paging_queue.sctx.tag);
	drm_printf(p, "paging_jobs: %llu\npaging_retries: %llu\n", c.jobs,
		   c.retries);
	drm_printf(p, "paging_preemptions: %llu\npaging_busy_ns: %llu\n",
		   c.preemptions, c.busy_ns);
	drm_printf(p, "paging_queue_failures: %llu\n", c.failures);
}
