// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * submit.c - submitting command buffers.
 *
 * The job's buffer list is derived from the address ranges the command
 * buffer recorded, looked up among the device's live buffers; the job's
 * fence is a fresh binary drm_syncobj the kernel signals.  The ioctl is
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

int tern_submit(struct tern_context *ctx, const struct tern_cmdbuf *cb,
		struct tern_fence *const *deps, unsigned int dep_count,
		struct tern_fence **fencep)
{
	struct tern_device *dev = ctx->dev;
	const struct tern_device_info *info = &dev->info;
	struct drm_tern_submit args = { 0 };
	struct drm_tern_sync out = { 0 };
	struct drm_tern_sync *in = NULL;
	struct tern_fence *fence = NULL;
	uint32_t *handles = NULL;
	unsigned int nbos = 0, i;
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
	if (dep_count > info->max_syncs_per_submit)
		return tern_seterr(-EINVAL, "submit: %u dependencies, the device takes at "
				   "most %u", dep_count, info->max_syncs_per_submit);

	if (cb->range_count) {
		handles = malloc(cb->range_count * sizeof(*handles));
		if (!handles)
			return tern_seterr(-ENOMEM, "submit: out of memory");
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
	if (dep_count) {
		in = calloc(dep_count, sizeof(*in));
		if (!in) {
			ret = tern_seterr(-ENOMEM, "submit: out of memory");
			goto out;
		}
		for (i = 0; i < dep_count; i++) {
			if (deps[i]->dev != dev) {
				ret = tern_seterr(-EINVAL, "submit: dependency %u is a fence of "
						  "another open device: pass it through "
						  "tern_fence_export_sync_file() and "
						  "tern_fence_import_sync_file()", i);
				goto out;
			}
			in[i].handle = deps[i]->syncobj;
		}
	}
	if (fencep) {
		fence = calloc(1, sizeof(*fence));
		if (!fence) {
			ret = tern_seterr(-ENOMEM, "submit: out of memory");
			goto out;
		}
		fence->dev = dev;
		if (drmSyncobjCreate(dev->fd, 0, &fence->syncobj)) {
			ret = -errno;
			tern_seterr(ret, "submit: cannot create a syncobj for the fence: %s",
				    strerror(-ret));
			free(fence);
			fence = NULL;
			goto out;
		}
		out.handle = fence->syncobj;
		args.out_syncs = (uintptr_t)&out;
		args.out_sync_count = 1;
	}

	args.context = ctx->handle;
	args.cmdbuf = (uintptr_t)cb->dw;
	args.cmdbuf_size = (uint32_t)(cb->len * 4);
	args.bo_count = nbos;
	args.bo_handles = (uintptr_t)handles;
	args.in_syncs = (uintptr_t)in;
	args.in_sync_count = dep_count;
	do {
		ret = ioctl(dev->fd, DRM_IOCTL_TERN_SUBMIT, &args);
	} while (ret == -1 && errno == EINTR);
	if (ret) {
		ret = submit_error(ctx, &args, -errno);
		goto out;
	}
	if (fence) {
		fence->seqno = args.seqno;
		*fencep = fence;
		fence = NULL;
	}
	ret = 0;
out:
	if (fence) {
		drmSyncobjDestroy(dev->fd, fence->syncobj);
		free(fence);
	}
	free(in);
	free(handles);
	return ret;
}
