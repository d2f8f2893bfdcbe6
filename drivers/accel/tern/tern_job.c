// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/dma-fence-chain.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>

#include <drm/tern_accel.h>

#include "tern_context.h"
#include "tern_device.h"
#include "tern_drv.h"
#include "tern_job.h"
#include "tern_trace.h"
#include "tern_validate.h"
#include "tern_vm.h"

/**
 * DOC: submission
 *
 * DRM_IOCTL_TERN_SUBMIT turns a user command buffer into a job:
 *
 * 1. the buffer is copied into a kernel-owned DMA buffer (coherent, so the
 *    device reads exactly what was validated) and tern_validate_cmdbuf()
 *    checks every packet of that copy: the user cannot change it afterwards;
 * 2. the BO handles are looked up and referenced until the job is freed;
 * 3. a drm_sched job is set up on the context's entity, with the in-syncobjs
 *    as dependencies;
 * 4. under the context's submit lock the job gets its seqno and hardware
 *    fence, is armed, its finished fence is added to the address space's
 *    reservation object (BOOKKEEP: unmapping waits for it) and to each BO's
 *    (WRITE), and it is pushed to the entity;
 * 5. the out-syncobjs get the finished fence.
 *
 * drm_sched calls tern_job_run() once the dependencies signalled; it hands
 * the job to the engine's scheduler.  tern_job_free() runs after the finished
 * fence signalled and releases the DMA buffer, the BOs and the context.
 * Every failure before step 4 unwinds completely and has its own errno.
 */

/*
 * The DMA buffer holds the command buffer and, after it, the job's resume
 * record: the device writes the record when it preempts the job and reads
 * it when the job resumes.  It lives as long as the job.
 */
static u32 tern_job_resume_offset(const struct tern_job *job)
{
	return ALIGN(job->cmd_size, TERN_RESUME_RECORD_SIZE);
}

static size_t tern_job_dma_size(const struct tern_job *job)
{
	return tern_job_resume_offset(job) + TERN_RESUME_RECORD_SIZE;
}

static struct tern_job *to_tern_job(struct drm_sched_job *sched_job)
{
	return container_of(sched_job, struct tern_job, base);
}

static void tern_job_release(struct tern_job *job)
{
	struct tern_device *tdev = job->ctx->tdev;
	u32 i;

	for (i = 0; i < job->bo_count; i++)
		drm_gem_object_put(job->bos[i]);	/* NULL-safe */
	kvfree(job->bos);
	if (job->cmd)
		dma_free_coherent(tdev->drm.dev, tern_job_dma_size(job), job->cmd,
				  job->cmd_dma);
	if (job->usage) {
		atomic64_sub(job->cmd_size, &job->usage->cmd_bytes);
		tern_file_usage_put(job->usage);
	}
	if (job->hw.fence) {
		if (job->hw.fence->ops)
			dma_fence_put(job->hw.fence);
		else
			kfree(job->hw.fence);
	}
	atomic_dec(&job->ctx->pending);
	tern_context_put(job->ctx);
	kfree(job);
	if (atomic_dec_and_test(&tdev->live_jobs))
		wake_up_all(&tdev->jobs_idle);
}

static struct dma_fence *tern_job_run(struct drm_sched_job *sched_job)
{
	struct tern_job *job = to_tern_job(sched_job);

	/* a failed dependency: do not run, report the error in order */
	job->hw.error = sched_job->s_fence->finished.error;
	dma_fence_get(job->hw.fence);
	tern_sched_push(job->ctx->sched, &job->hw);
	return job->hw.fence;
}

static void tern_job_free(struct drm_sched_job *sched_job)
{
	struct tern_job *job = to_tern_job(sched_job);

	drm_sched_job_cleanup(sched_job);
	tern_job_release(job);
}

static enum drm_gpu_sched_stat tern_job_timedout(struct drm_sched_job *sched_job)
{
	/*
	 * The schedulers are created with MAX_SCHEDULE_TIMEOUT: hangs are
	 * found by the scheduler's progress watchdog, which knows whether a long
	 * job still advances.  drm_sched never calls this.
	 */
	return DRM_GPU_SCHED_STAT_NOMINAL;
}

/* drm_sched backend of the jobs: dependencies resolved -> the scheduler */
const struct drm_sched_backend_ops tern_job_sched_ops = {
	.run_job = tern_job_run,
	.timedout_job = tern_job_timedout,
	.free_job = tern_job_free,
};

/*
 * Lock a set of distinct reservation objects with a ww ticket, backing off
 * on contention.
 */
static int tern_job_lock_resvs(struct dma_resv **resv, unsigned int count,
			       struct ww_acquire_ctx *ticket)
{
	int contended = -1;
	unsigned int i, j;
	int ret;

	ww_acquire_init(ticket, &reservation_ww_class);
retry:
	if (contended >= 0) {
		ret = dma_resv_lock_slow_interruptible(resv[contended], ticket);
		if (ret)
			goto err_fini;
	}
	for (i = 0; i < count; i++) {
		if (i == contended)
			continue;
		ret = dma_resv_lock_interruptible(resv[i], ticket);
		if (!ret)
			continue;

		for (j = 0; j < i; j++)
			if (j != contended)
				dma_resv_unlock(resv[j]);
		if (contended >= 0)
			dma_resv_unlock(resv[contended]);
		if (ret == -EDEADLK) {
			contended = i;
			goto retry;
		}
		goto err_fini;
	}
	ww_acquire_done(ticket);
	return 0;

err_fini:
	ww_acquire_fini(ticket);
	return ret;
}

static void tern_job_unlock_resvs(struct dma_resv **resv, unsigned int count,
				  struct ww_acquire_ctx *ticket)
{
	unsigned int i;

	for (i = 0; i < count; i++)
		dma_resv_unlock(resv[i]);
	ww_acquire_fini(ticket);
}

/**
 * struct tern_resv_set - the reservation objects a job's fence goes into
 * @resv: distinct reservation objects: the VM's first, then the BOs'
 * @usage: how the fence is added to each
 * @count: entries used
 */
struct tern_resv_set {
	struct dma_resv **resv;
	enum dma_resv_usage *usage;
	unsigned int count;
};

static int tern_resv_set_build(struct tern_resv_set *set, struct tern_job *job)
{
	unsigned int i, j;

	set->resv = kmalloc_array(job->bo_count + 1, sizeof(*set->resv),
				  GFP_KERNEL);
	set->usage = kmalloc_array(job->bo_count + 1, sizeof(*set->usage),
				   GFP_KERNEL);
	if (!set->resv || !set->usage) {
		kfree(set->resv);
		kfree(set->usage);
		set->resv = NULL;
		set->usage = NULL;
		return -ENOMEM;
	}

	set->resv[0] = tern_vm_resv(job->ctx->vm);
	set->usage[0] = DMA_RESV_USAGE_BOOKKEEP;
	set->count = 1;
	for (i = 0; i < job->bo_count; i++) {
		struct dma_resv *resv = job->bos[i]->resv;

		for (j = 0; j < set->count; j++)
			if (set->resv[j] == resv)
				break;
		if (j == set->count) {
			set->resv[j] = resv;
			set->count++;
		}
		set->usage[j] = DMA_RESV_USAGE_WRITE;
	}
	return 0;
}

static void tern_resv_set_free(struct tern_resv_set *set)
{
	kfree(set->resv);
	kfree(set->usage);
}

/**
 * struct tern_out_sync - an out-syncobj, looked up before the job is armed
 * @syncobj: the syncobj (a reference)
 * @chain: preallocated chain node for a timeline point, else NULL
 * @point: the timeline point, 0 for binary
 */
struct tern_out_sync {
	struct drm_syncobj *syncobj;
	struct dma_fence_chain *chain;
	u64 point;
};

static void tern_out_syncs_free(struct tern_out_sync *out, u32 count)
{
	u32 i;

	if (!out)
		return;
	for (i = 0; i < count; i++) {
		if (out[i].syncobj)
			drm_syncobj_put(out[i].syncobj);
		dma_fence_chain_free(out[i].chain);
	}
	kvfree(out);
}

static struct drm_tern_sync *tern_copy_syncs(u64 uptr, u32 count)
{
	struct drm_tern_sync *syncs;
	u32 i;

	syncs = kvmalloc_array(count, sizeof(*syncs), GFP_KERNEL);
	if (!syncs)
		return ERR_PTR(-ENOMEM);
	if (copy_from_user(syncs, u64_to_user_ptr(uptr),
			   array_size(count, sizeof(*syncs)))) {
		kvfree(syncs);
		return ERR_PTR(-EFAULT);
	}
	for (i = 0; i < count; i++) {
		if (syncs[i].flags) {
			kvfree(syncs);
			return ERR_PTR(-EINVAL);
		}
	}
	return syncs;
}

static int tern_job_add_in_syncs(struct tern_job *job, struct drm_file *file,
				 const struct drm_tern_submit *args)
{
	struct drm_tern_sync *syncs;
	int ret = 0;
	u32 i;

	if (!args->in_sync_count)
		return 0;
	syncs = tern_copy_syncs(args->in_syncs, args->in_sync_count);
	if (IS_ERR(syncs))
		return PTR_ERR(syncs);
	for (i = 0; i < args->in_sync_count && !ret; i++) {
		ret = drm_sched_job_add_syncobj_dependency(&job->base, file,
							   syncs[i].handle,
							   syncs[i].point);
		/* a timeline point past the last one has no fence (yet) */
		if (ret == -EINVAL)
			ret = -ENOENT;
	}
	kvfree(syncs);
	return ret;
}

static struct tern_out_sync *tern_job_get_out_syncs(struct drm_file *file,
						    const struct drm_tern_submit *args)
{
	struct drm_tern_sync *syncs;
	struct tern_out_sync *out;
	int ret = 0;
	u32 i;

	if (!args->out_sync_count)
		return NULL;
	syncs = tern_copy_syncs(args->out_syncs, args->out_sync_count);
	if (IS_ERR(syncs))
		return ERR_CAST(syncs);

	out = kvcalloc(args->out_sync_count, sizeof(*out), GFP_KERNEL);
	if (!out) {
		kvfree(syncs);
		return ERR_PTR(-ENOMEM);
	}
	for (i = 0; i < args->out_sync_count; i++) {
		out[i].syncobj = drm_syncobj_find(file, syncs[i].handle);
		if (!out[i].syncobj) {
			ret = -ENOENT;
			break;
		}
		out[i].point = syncs[i].point;
		if (out[i].point) {
			out[i].chain = dma_fence_chain_alloc();
			if (!out[i].chain) {
				ret = -ENOMEM;
				break;
			}
		}
	}
	kvfree(syncs);
	if (ret) {
		tern_out_syncs_free(out, args->out_sync_count);
		return ERR_PTR(ret);
	}
	return out;
}

static int tern_submit_check_args(struct tern_device *tdev,
				  const struct drm_tern_submit *args)
{
	if (args->flags || args->pad)
		return -EINVAL;
	if (!args->cmdbuf_size || args->cmdbuf_size % 4)
		return -EINVAL;
	if (args->cmdbuf_size > tdev->buf_size_max)
		return -E2BIG;
	if (args->bo_count > TERN_MAX_BOS_PER_SUBMIT ||
	    args->in_sync_count > TERN_MAX_SYNCS_PER_SUBMIT ||
	    args->out_sync_count > TERN_MAX_SYNCS_PER_SUBMIT)
		return -EINVAL;
	return 0;
}

/**
 * tern_submit_ioctl() - DRM_IOCTL_TERN_SUBMIT
 * @drm: the DRM device
 * @data: struct drm_tern_submit
 * @file: the DRM file
 *
 * See "DOC: submission".
 *
 * Return: 0 or a negative errno, as documented in the uAPI.
 */
int tern_submit_ioctl(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct tern_device *tdev = to_tern_device(drm);
	struct tern_file *tfile = to_tern_file(file);
	struct drm_tern_submit *args = data;
	struct tern_out_sync *out = NULL;
	struct tern_validate_error verr = {};
	struct tern_resv_set resvs = {};
	struct ww_acquire_ctx ticket;
	struct dma_fence *finished;
	struct tern_context *ctx;
	struct tern_job *job;
	bool sched_init = false;
	unsigned long flags;
	unsigned int i;
	int ret, idx;

	args->seqno = 0;
	args->error_offset = 0;
	args->error_opcode = 0;
	ret = tern_submit_check_args(tdev, args);
	if (ret)
		return ret;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;

	ctx = tern_context_lookup(tfile, args->context);
	if (!ctx) {
		ret = -ENOENT;
		goto out_exit;
	}
	if (!tern_context_usable(ctx)) {
		ret = -EIO;
		goto out_put_ctx;
	}
	if (atomic_inc_return(&ctx->pending) > TERN_MAX_JOBS_PER_CONTEXT) {
		atomic_dec(&ctx->pending);
		ret = -EAGAIN;
		goto out_put_ctx;
	}

	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job) {
		atomic_dec(&ctx->pending);
		ret = -ENOMEM;
		goto out_put_ctx;
	}
	job->ctx = ctx;	/* the job owns the reference and the pending count now */
	atomic_inc(&tdev->live_jobs);

	job->cmd_size = args->cmdbuf_size;
	if (atomic64_add_return(job->cmd_size, &tfile->usage->cmd_bytes) >
	    TERN_MAX_QUEUED_BYTES_PER_FILE) {
		atomic64_sub(job->cmd_size, &tfile->usage->cmd_bytes);
		ret = -EAGAIN;
		goto out_release;
	}
	kref_get(&tfile->usage->ref);
	job->usage = tfile->usage;	/* charged: uncharged when released */
	job->cmd = dma_alloc_coherent(drm->dev, tern_job_dma_size(job), &job->cmd_dma,
				      GFP_KERNEL | __GFP_NOWARN);
	if (!job->cmd) {
		ret = -ENOMEM;
		goto out_release;
	}
	if (copy_from_user(job->cmd, u64_to_user_ptr(args->cmdbuf),
			   job->cmd_size)) {
		ret = -EFAULT;
		goto out_release;
	}
	ret = tern_validate_cmdbuf_class(job->cmd, job->cmd_size / 4,
					 ctx->sched->eng->class, &verr);
	if (ret) {
		args->error_offset = verr.offset;
		args->error_opcode = verr.opcode;
		drm_dbg(drm, "command buffer refused at dword %u (opcode 0x%02x): %s\n",
			verr.offset, verr.opcode, verr.reason ?: "invalid");
		goto out_release;
	}

	if (args->bo_count) {
		ret = drm_gem_objects_lookup(file, u64_to_user_ptr(args->bo_handles),
					     args->bo_count, &job->bos);
		/*
		 * Even when a handle is bad, the objects found before it are
		 * referenced in the (zeroed) array: release puts those.
		 */
		if (job->bos)
			job->bo_count = args->bo_count;
		if (ret)
			goto out_release;
	}

	job->hw.fence = kzalloc(sizeof(*job->hw.fence), GFP_KERNEL);
	if (!job->hw.fence) {
		ret = -ENOMEM;
		goto out_release;
	}

	ret = drm_sched_job_init(&job->base, &ctx->entity, 1, tfile,
				 tfile->client_id);
	if (ret)
		goto out_release;
	sched_init = true;

	ret = tern_job_add_in_syncs(job, file, args);
	if (ret)
		goto out_cleanup;

	out = tern_job_get_out_syncs(file, args);
	if (IS_ERR(out)) {
		ret = PTR_ERR(out);
		out = NULL;
		goto out_cleanup;
	}

	ret = tern_resv_set_build(&resvs, job);
	if (ret)
		goto out_cleanup;
	ret = tern_job_lock_resvs(resvs.resv, resvs.count, &ticket);
	if (ret)
		goto out_cleanup;
	for (i = 0; i < resvs.count; i++) {
		ret = dma_resv_reserve_fences(resvs.resv[i], 1);
		if (ret) {
			tern_job_unlock_resvs(resvs.resv, resvs.count, &ticket);
			goto out_cleanup;
		}
	}

	/* point of no return: nothing below fails */
	mutex_lock(&ctx->submit_lock);
	job->hw.seqno = ++ctx->next_seqno;
	tern_sched_fence_init(ctx->sched, job->hw.fence, ctx->fence_context,
			      job->hw.seqno);
	job->hw.ctx = &ctx->sctx;
	job->hw.cmd = job->cmd;
	job->hw.desc.buf = job->cmd_dma;
	job->hw.desc.buf_size = job->cmd_size;
	job->hw.desc.resume = job->cmd_dma + tern_job_resume_offset(job);
	job->hw.desc.root = tern_vm_root(ctx->vm);
	job->hw.desc.ctx_tag = ctx->sctx.tag;
	INIT_LIST_HEAD(&job->hw.pjob.link);

	drm_sched_job_arm(&job->base);
	finished = dma_fence_get(&job->base.s_fence->finished);
	/*
	 * A job that depends on this one must wait for it to finish, not
	 * only to reach the engine: the scheduler reorders work of
	 * different contexts on an engine by priority and share.
	 */
	set_bit(DRM_SCHED_FENCE_DONT_PIPELINE, &finished->flags);
	for (i = 0; i < resvs.count; i++)
		dma_resv_add_fence(resvs.resv[i], finished, resvs.usage[i]);
	tern_job_unlock_resvs(resvs.resv, resvs.count, &ticket);

	spin_lock_irqsave(&ctx->state_lock, flags);
	ctx->jobs_submitted++;
	spin_unlock_irqrestore(&ctx->state_lock, flags);

	trace_tern_job_submit(ctx->sctx.tag, job->hw.seqno, ctx->sched->eng->id,
			      job->cmd_size, job->bo_count);
	args->seqno = job->hw.seqno;
	drm_sched_entity_push_job(&job->base);
	mutex_unlock(&ctx->submit_lock);

	for (i = 0; i < args->out_sync_count; i++) {
		if (out[i].chain) {
			drm_syncobj_add_point(out[i].syncobj, out[i].chain,
					      finished, out[i].point);
			out[i].chain = NULL;
		} else {
			drm_syncobj_replace_fence(out[i].syncobj, finished);
		}
	}
	tern_out_syncs_free(out, args->out_sync_count);
	dma_fence_put(finished);
	tern_resv_set_free(&resvs);
	drm_dev_exit(idx);
	return 0;

out_cleanup:
	tern_resv_set_free(&resvs);
	tern_out_syncs_free(out, args->out_sync_count);
out_release:
	if (sched_init)
		drm_sched_job_cleanup(&job->base);
	tern_job_release(job);
	drm_dev_exit(idx);
	return ret;

out_put_ctx:
	tern_context_put(ctx);
out_exit:
	drm_dev_exit(idx);
	return ret;
}
