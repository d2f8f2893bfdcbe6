// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * submit.c - submitting command buffers.
 *
 * The job's buffer list is derived from the address ranges the command
 * buffer recorded, looked up among the device's live buffers; the job's
 * fence is a fresh binary drm_syncobj the kernel signals, and timeline
 * points it waits for or signals are further in- and out-syncs.  The ioctl is
 * issued with ioctl() rather than drmIoctl(), which would spin on the
 * -EAGAIN the driver returns when a context is full.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <xf86drm.h>

#include "internal.h"
#include "tern_accel.h"

/* Append @h to the set @handles[0..*n) unless it is there already. */
static void add_handle(uint32_t *handles, unsigned int *n, uint32_t h)
{
	unsigned int i;

	for (i = 0; i < *n; i++)
		if (handles[i] == h)
			return;
	handles[(*n)++] = h;
}

/*
 * The GEM handles of the buffers @cb's packets use, into @handles (room for
 * @cb->range_count entries); their count into *@n.
 */
static int resolve_bos(struct tern_device *dev, const struct tern_cmdbuf *cb,
		       uint32_t *handles, unsigned int *n)
{
	size_t i;

	*n = 0;
	pthread_mutex_lock(&dev->lock);
	for (i = 0; i < cb->range_count; i++) {
		const struct tern_cmd_range *r = &cb->ranges[i];
		struct tern_bo *bo = tern_bo_lookup_locked(dev, r->va, r->size);

		if (!bo) {
			uint32_t op = TERN_PKT_OPCODE(le32toh(cb->dw[r->offset]));

			pthread_mutex_unlock(&dev->lock);
			return tern_seterr(-EFAULT, "submit: %s packet at dword %u uses "
					   "0x%llx..0x%llx, which is not inside one buffer "
					   "of this device", tern_opcode_name(op), r->offset,
					   (unsigned long long)r->va,
					   (unsigned long long)(r->va + r->size - 1));
		}
		add_handle(handles, n, bo->handle);
	}
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

/* The kernel refused the job: say why, as precisely as it told us. */
static int submit_error(struct tern_context *ctx, const struct drm_tern_submit *args,
			int err)
{
	const char *msg = tern_ioctl_errmsg(TERN_IOC_SUBMIT, err);
	struct tern_context_status st;

	if (!msg)
		msg = strerror(-err);
	switch (-err) {
	case EINVAL:
	case EPERM:
	case ENOEXEC:
	case EBADMSG:
		if (args->error_offset || args->error_opcode)
			return tern_seterr(err, "submit: %s: packet at dword %u (%s, opcode "
					   "0x%02x)", msg, args->error_offset,
					   tern_opcode_name(args->error_opcode),
					   args->error_opcode);
		break;
	case EIO:
		if (!tern_context_status(ctx, &st)) {
			char why[400];

			snprintf(why, sizeof(why), "%s", tern_last_error());
			return tern_seterr(err, "submit: %s: %s", msg, why);
		}
		break;
	}
	return tern_seterr(err, "submit: %s", msg);
}

static const char *const sync_kind[] = { "fence", "wait", "signal" };

/* Check one timeline point of @deps (@kind 1 wait, 2 signal, entry @i). */
static int check_point(const struct tern_device *dev, const struct tern_timeline_point *tp,
		       int kind, unsigned int i)
{
	if (!tp->timeline)
		return tern_seterr(-EINVAL, "submit: %s %u: no timeline", sync_kind[kind], i);
	if (tp->timeline->dev != dev)
		return tern_seterr(-EINVAL, "submit: %s %u: a timeline of another open device: "
				   "share it with tern_timeline_export() and "
				   "tern_timeline_import()", sync_kind[kind], i);
	if (!tp->point)
		return tern_seterr(-EINVAL, "submit: %s %u: timeline point 0 does not exist "
				   "(points count from 1)", sync_kind[kind], i);
	return 0;
}

int tern_deps_syncs(const struct tern_device *dev, const struct tern_deps *deps,
		    unsigned int out_first, struct drm_tern_sync **in, unsigned int *nin,
		    struct drm_tern_sync **out, unsigned int *nout)
{
	static const struct tern_deps none;
	unsigned int max = dev->info.max_syncs_per_submit, i;
	int ret;

	*in = NULL;
	*out = NULL;
	if (!deps)
		deps = &none;
	*nin = deps->fence_count + deps->wait_count;
	*nout = out_first + deps->signal_count;
	if (*nin < deps->fence_count || *nin > max)
		return tern_seterr(-EINVAL, "submit: %u dependencies (%u fences, %u timeline "
				   "waits), the device takes at most %u", *nin,
				   deps->fence_count, deps->wait_count, max);
	if (*nout < out_first || *nout > max)
		return tern_seterr(-EINVAL, "submit: %u timeline signals%s, the device takes at "
				   "most %u in all", deps->signal_count,
				   out_first ? " and the job's fence" : "", max);
	for (i = 0; i < deps->fence_count; i++) {
		if (!deps->fences[i])
			return tern_seterr(-EINVAL, "submit: dependency %u: no fence", i);
		if (deps->fences[i]->dev != dev)
			return tern_seterr(-EINVAL, "submit: dependency %u is a fence of another "
					   "open device: pass it through "
					   "tern_fence_export_sync_file() and "
					   "tern_fence_import_sync_file()", i);
	}
	for (i = 0; i < deps->wait_count; i++) {
		ret = check_point(dev, &deps->waits[i], 1, i);
		if (ret)
			return ret;
	}
	for (i = 0; i < deps->signal_count; i++) {
		ret = check_point(dev, &deps->signals[i], 2, i);
		if (ret)
			return ret;
	}
	if (*nin) {
		*in = calloc(*nin, sizeof(**in));
		if (!*in)
			return tern_seterr(-ENOMEM, "submit: out of memory");
	}
	if (*nout) {
		*out = calloc(*nout, sizeof(**out));
		if (!*out) {
			free(*in);
			*in = NULL;
			return tern_seterr(-ENOMEM, "submit: out of memory");
		}
	}
	for (i = 0; i < deps->fence_count; i++)
		(*in)[i].handle = deps->fences[i]->syncobj;
	for (i = 0; i < deps->wait_count; i++) {
		(*in)[deps->fence_count + i].handle = deps->waits[i].timeline->syncobj;
		(*in)[deps->fence_count + i].point = deps->waits[i].point;
	}
	for (i = 0; i < deps->signal_count; i++) {
		(*out)[out_first + i].handle = deps->signals[i].timeline->syncobj;
		(*out)[out_first + i].point = deps->signals[i].point;
	}
	return 0;
}

/* The checks of timeline points that need the kernel's view of them. */
static int check_timelines(const struct tern_deps *deps)
{
	char what[32];
	unsigned int i, j;
	int ret;

	for (i = 0; deps && i < deps->wait_count; i++) {
		snprintf(what, sizeof(what), "submit: wait %u", i);
		ret = tern_timeline_check_wait(deps->waits[i].timeline, deps->waits[i].point, what);
		if (ret)
			return ret;
	}
	for (i = 0; deps && i < deps->signal_count; i++) {
		const struct tern_timeline_point *s = &deps->signals[i];

		snprintf(what, sizeof(what), "submit: signal %u", i);
		ret = tern_timeline_check_signal(s->timeline, s->point, what);
		if (ret)
			return ret;
		/* two signals of one timeline in one job: the same rule */
		for (j = 0; j < i; j++)
			if (deps->signals[j].timeline == s->timeline &&
			    deps->signals[j].point >= s->point)
				return tern_seterr(-EINVAL, "%s: timeline point %llu is not above "
						   "point %llu of signal %u: points are "
						   "signalled in increasing order", what,
						   (unsigned long long)s->point,
						   (unsigned long long)deps->signals[j].point, j);
	}
	return 0;
}

int tern_submit_deps(struct tern_context *ctx, const struct tern_cmdbuf *cb,
		     const struct tern_deps *deps, struct tern_fence **fencep)
{
	struct tern_device *dev = ctx->dev;
	const struct tern_device_info *info = &dev->info;
	struct drm_tern_submit args = { 0 };
	struct drm_tern_sync *in = NULL, *out = NULL;
	struct tern_fence *fence = NULL;
	unsigned int nbos = 0, nin, nout;
	uint32_t *handles = NULL;
	int ret;

	if (fencep)
		*fencep = NULL;
	tern_clearerr();
	if (!cb->len)
		return tern_seterr(-EINVAL, "submit: the command buffer is empty");
	if (cb->len * 4 > info->buf_size_max)
		return tern_seterr(-E2BIG, "submit: the command buffer has %zu bytes, the "
				   "device takes at most %u", cb->len * 4, info->buf_size_max);
	if (ctx->engine_class == TERN_ENGINE_COPY && cb->first_compute >= 0)
		return tern_seterr(-ENOEXEC, "submit: %s packet at dword %ld: the copy "
				   "engine runs no compute packets",
				   tern_opcode_name(TERN_PKT_OPCODE(le32toh(cb->dw[cb->first_compute]))),
				   cb->first_compute);
	ret = tern_deps_syncs(dev, deps, fencep ? 1 : 0, &in, &nin, &out, &nout);
	if (ret)
		return ret;
	ret = check_timelines(deps);
	if (ret)
		goto out;

	if (cb->range_count) {
		handles = malloc(cb->range_count * sizeof(*handles));
		if (!handles) {
			ret = tern_seterr(-ENOMEM, "submit: out of memory");
			goto out;
		}
		ret = resolve_bos(dev, cb, handles, &nbos);
		if (ret)
			goto out;
		if (nbos > info->max_bos_per_submit) {
			ret = tern_seterr(-EINVAL, "submit: the command buffer uses %u buffers, "
					  "the device takes at most %u per job", nbos,
					  info->max_bos_per_submit);
			goto out;
		}
	}
	if (fencep) {
		fence = calloc(1, sizeof(*fence));
		if (!fence) {
			ret = tern_seterr(-ENOMEM, "submit: out of memory");
			goto out;
		}
		fence->dev = dev;
		ret = tern_syncobj_get(dev, &fence->syncobj);
		if (ret) {
			tern_seterr(ret, "submit: cannot create a syncobj for the fence: %s",
				    strerror(-ret));
			free(fence);
			fence = NULL;
			goto out;
		}
		out[0].handle = fence->syncobj;
	}

	args.context = ctx->handle;
	args.cmdbuf = (uintptr_t)cb->dw;
	args.cmdbuf_size = (uint32_t)(cb->len * 4);
	args.bo_count = nbos;
	args.bo_handles = (uintptr_t)handles;
	args.in_syncs = (uintptr_t)in;
	args.in_sync_count = nin;
	args.out_syncs = (uintptr_t)out;
	args.out_sync_count = nout;
	do {
		ret = ioctl(dev->fd, DRM_IOCTL_TERN_SUBMIT, &args);
	} while (ret == -1 && errno == EINTR);
	if (ret) {
		ret = submit_error(ctx, &args, -errno);
		goto out;
	}
	if (fence) {
		fence->seqno = args.seqno;
		fence->context = ctx->handle;
		fence->progress = tern_progress_get(ctx->progress);
		*fencep = fence;
		fence = NULL;
	}
	ret = 0;
out:
	if (fence) {
		tern_syncobj_put(dev, fence->syncobj);
		free(fence);
	}
	free(out);
	free(in);
	free(handles);
	return ret;
}

int tern_submit(struct tern_context *ctx, const struct tern_cmdbuf *cb,
		struct tern_fence *const *deps, unsigned int dep_count,
		struct tern_fence **fencep)
{
	const struct tern_deps d = { .fences = deps, .fence_count = dep_count };

	return tern_submit_deps(ctx, cb, &d, fencep);
}
