// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * submit.c - submitting command buffers.
 *
 * The job's buffer list is derived from the address ranges the command
 * buffer recorded, looked up among the device's live buffers and the
 * mappings of tern_vm_bind() (bind.c); the job's fence is a fresh binary
 * drm_syncobj the kernel signals, and timeline points it waits for or
 * signals are further in- and out-syncs (tern_deps_prepare(), which binds
 * share).  The ioctl is issued with ioctl() rather than drmIoctl(), which
 * would spin on the -EAGAIN the driver returns when a context is full.
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

/* jobs per DRM_IOCTL_TERN_SUBMIT_MANY; tern_submit_many() takes any count */
#define TERN_SUBMIT_MANY_CHUNK	DRM_TERN_SUBMIT_MANY_MAX

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

		if (!bo)
			bo = tern_vm_map_lookup_locked(dev, r->va, r->size);
		if (!bo) {
			uint32_t op = TERN_PKT_OPCODE(le32toh(cb->dw[r->offset]));

			pthread_mutex_unlock(&dev->lock);
			return tern_seterr(-EFAULT, "submit: %s packet at dword %u uses "
					   "0x%llx..0x%llx, which is not inside one buffer "
					   "of this device (nor one mapping of tern_vm_bind())",
					   tern_opcode_name(op), r->offset,
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

/* Check one timeline point of @deps (@kind 1 wait, 2 signal, entry @i) for @what. */
static int check_point(const struct tern_device *dev, const struct tern_timeline_point *tp,
		       const char *what, int kind, unsigned int i)
{
	if (!tp->timeline)
		return tern_seterr(-EINVAL, "%s: %s %u: no timeline", what, sync_kind[kind], i);
	if (tp->timeline->dev != dev)
		return tern_seterr(-EINVAL, "%s: %s %u: a timeline of another open device: "
				   "share it with tern_timeline_export() and "
				   "tern_timeline_import()", what, sync_kind[kind], i);
	if (!tp->point)
		return tern_seterr(-EINVAL, "%s: %s %u: timeline point 0 does not exist "
				   "(points count from 1)", what, sync_kind[kind], i);
	return 0;
}

int tern_deps_syncs(const struct tern_device *dev, const struct tern_deps *deps,
		    unsigned int out_first, const char *what, struct drm_tern_sync **in,
		    unsigned int *nin, struct drm_tern_sync **out, unsigned int *nout)
{
	static const struct tern_deps none;
	unsigned int max = dev->info.max_syncs_per_submit, i;
	/* what the call's own out-syncs are */
	const char *own = strcmp(what, "submit") ? " and the bind's fences" :
		" and the job's fence";
	int ret;

	*in = NULL;
	*out = NULL;
	if (!deps)
		deps = &none;
	*nin = deps->fence_count + deps->wait_count;
	*nout = out_first + deps->signal_count;
	if (*nin < deps->fence_count || *nin > max)
		return tern_seterr(-EINVAL, "%s: %u dependencies (%u fences, %u timeline "
				   "waits), the device takes at most %u", what, *nin,
				   deps->fence_count, deps->wait_count, max);
	if (*nout < out_first || *nout > max)
		return tern_seterr(-EINVAL, "%s: %u timeline signals%s, the device takes at "
				   "most %u in all", what, deps->signal_count,
				   out_first ? own : "", max);
	for (i = 0; i < deps->fence_count; i++) {
		if (!deps->fences[i])
			return tern_seterr(-EINVAL, "%s: dependency %u: no fence", what, i);
		if (deps->fences[i]->dev != dev)
			return tern_seterr(-EINVAL, "%s: dependency %u is a fence of another "
					   "open device: pass it through "
					   "tern_fence_export_sync_file() and "
					   "tern_fence_import_sync_file()", what, i);
	}
	for (i = 0; i < deps->wait_count; i++) {
		ret = check_point(dev, &deps->waits[i], what, 1, i);
		if (ret)
			return ret;
	}
	for (i = 0; i < deps->signal_count; i++) {
		ret = check_point(dev, &deps->signals[i], what, 2, i);
		if (ret)
			return ret;
	}
	/* a lazy fence waited for needs its syncobj now */
	for (i = 0; i < deps->fence_count; i++) {
		ret = tern_fence_attach(deps->fences[i], what);
		if (ret)
			return ret;
	}
	if (*nin) {
		*in = calloc(*nin, sizeof(**in));
		if (!*in)
			return tern_seterr(-ENOMEM, "%s: out of memory", what);
	}
	if (*nout) {
		*out = calloc(*nout, sizeof(**out));
		if (!*out) {
			free(*in);
			*in = NULL;
			return tern_seterr(-ENOMEM, "%s: out of memory", what);
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
static int check_timelines(const struct tern_deps *deps, const char *what)
{
	char name[32];
	unsigned int i, j;
	int ret;

	for (i = 0; deps && i < deps->wait_count; i++) {
		snprintf(name, sizeof(name), "%s: wait %u", what, i);
		ret = tern_timeline_check_wait(deps->waits[i].timeline, deps->waits[i].point, name);
		if (ret)
			return ret;
	}
	for (i = 0; deps && i < deps->signal_count; i++) {
		const struct tern_timeline_point *s = &deps->signals[i];

		snprintf(name, sizeof(name), "%s: signal %u", what, i);
		ret = tern_timeline_check_signal(s->timeline, s->point, name);
		if (ret)
			return ret;
		/* two signals of one timeline in one job: the same rule */
		for (j = 0; j < i; j++)
			if (deps->signals[j].timeline == s->timeline &&
			    deps->signals[j].point >= s->point)
				return tern_seterr(-EINVAL, "%s: timeline point %llu is not above "
						   "point %llu of signal %u: points are "
						   "signalled in increasing order", name,
						   (unsigned long long)s->point,
						   (unsigned long long)deps->signals[j].point, j);
	}
	return 0;
}

int tern_deps_prepare(const struct tern_device *dev, const struct tern_deps *deps,
		      unsigned int out_first, const char *what, struct drm_tern_sync **in,
		      unsigned int *nin, struct drm_tern_sync **out, unsigned int *nout)
{
	int ret;

	ret = tern_deps_syncs(dev, deps, out_first, what, in, nin, out, nout);
	if (ret)
		return ret;
	ret = check_timelines(deps, what);
	if (ret) {
		free(*in);
		free(*out);
		*in = NULL;
		*out = NULL;
	}
	return ret;
}

/* One job made ready for the ioctl: its arguments and what they point to. */
struct submit_prep {
	struct drm_tern_submit args;
	struct drm_tern_sync *in, *out;
	struct drm_tern_sync own_out;	/* @out of a job without deps */
	uint32_t *handles;
	struct tern_fence *fence;	/* NULL: the caller wants none */
};

/* Free what @p holds; a fence not handed out gives its syncobj back. */
static void submit_prep_release(struct submit_prep *p)
{
	if (p->fence) {
		tern_fence_recycle(p->fence);
		p->fence = NULL;
	}
	if (p->out != &p->own_out)
		free(p->out);
	free(p->in);
	free(p->handles);
	p->out = NULL;
	p->in = NULL;
	p->handles = NULL;
}

/*
 * Check @cb and @deps as far as the library can and build the ioctl's
 * arguments in @p (zeroed by the caller); on error nothing is left held.
 */
static int submit_prepare(struct tern_context *ctx, const struct tern_cmdbuf *cb,
			  const struct tern_deps *deps, bool want_fence, struct submit_prep *p)
{
	struct tern_device *dev = ctx->dev;
	const struct tern_device_info *info = &dev->info;
	unsigned int nbos = 0, nin, nout;
	bool own_out;
	int ret;

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
	/* a lazy fence gets its syncobj later, and only if asked (lazy.c) */
	own_out = want_fence && !(ctx->progress && ctx->progress->lazy);
	if (deps) {
		ret = tern_deps_prepare(dev, deps, own_out ? 1 : 0, "submit", &p->in,
					&nin, &p->out, &nout);
		if (ret)
			return ret;
	} else {
		/* the common case: at most the job's own fence, no allocation */
		nin = 0;
		nout = own_out ? 1 : 0;
		p->out = own_out ? &p->own_out : NULL;
	}

	if (cb->range_count) {
		p->handles = malloc(cb->range_count * sizeof(*p->handles));
		if (!p->handles) {
			ret = tern_seterr(-ENOMEM, "submit: out of memory");
			goto err;
		}
		ret = resolve_bos(dev, cb, p->handles, &nbos);
		if (ret)
			goto err;
		if (nbos > info->max_bos_per_submit) {
			ret = tern_seterr(-EINVAL, "submit: the command buffer uses %u buffers, "
					  "the device takes at most %u per job", nbos,
					  info->max_bos_per_submit);
			goto err;
		}
	}
	if (want_fence) {
		ret = tern_fence_new(dev, "submit", &p->fence);
		if (ret)
			goto err;
		if (own_out)
			p->out[0].handle = p->fence->syncobj;
	}

	p->args.context = ctx->handle;
	p->args.cmdbuf = (uintptr_t)cb->dw;
	p->args.cmdbuf_size = (uint32_t)(cb->len * 4);
	p->args.bo_count = nbos;
	p->args.bo_handles = (uintptr_t)p->handles;
	p->args.in_syncs = (uintptr_t)p->in;
	p->args.in_sync_count = nin;
	p->args.out_syncs = (uintptr_t)p->out;
	p->args.out_sync_count = nout;
	return 0;

err:
	submit_prep_release(p);
	return ret;
}

/* The kernel queued the job of @p: hand its fence out. */
static void submit_commit(struct tern_context *ctx, struct submit_prep *p,
			  struct tern_fence **fencep)
{
	struct tern_fence *f = p->fence;

	if (f) {
		f->seqno = p->args.seqno;
		f->context = ctx->handle;
		f->progress = tern_progress_get(ctx->progress);
		*fencep = f;
		p->fence = NULL;
	}
	tern_lazy_submitted(ctx->progress, p->args.seqno, f);
}

int tern_submit_deps(struct tern_context *ctx, const struct tern_cmdbuf *cb,
		     const struct tern_deps *deps, struct tern_fence **fencep)
{
	struct submit_prep p = { 0 };
	int ret;

	if (fencep)
		*fencep = NULL;
	tern_clearerr();
	ret = submit_prepare(ctx, cb, deps, fencep != NULL, &p);
	if (ret)
		return ret;
	ret = tern_lazy_submit_begin(ctx->progress, 1);
	if (ret) {
		submit_prep_release(&p);
		return ret;
	}
	do {
		ret = ioctl(ctx->dev->fd, DRM_IOCTL_TERN_SUBMIT, &p.args);
	} while (ret == -1 && errno == EINTR);
	if (ret)
		ret = submit_error(ctx, &p.args, -errno);
	else
		submit_commit(ctx, &p, fencep);
	tern_lazy_submit_end(ctx->progress);
	submit_prep_release(&p);
	return ret;
}

/* The ioctl exists from interface 1.3 on. */
static bool have_submit_many(const struct tern_device *dev)
{
	return dev->info.driver_version >= (1u << 16 | 3);
}

/*
 * Queue @p[0..@n) with one DRM_IOCTL_TERN_SUBMIT_MANY (or one SUBMIT each
 * on an older kernel).  Return how many were queued; *@err is 0, or the
 * error of the first one not queued.
 */
static unsigned int submit_chunk(struct tern_context *ctx, struct submit_prep *p,
				 unsigned int n, int *err)
{
	struct drm_tern_submit_many many = { 0 };
	struct drm_tern_submit *arr;
	unsigned int i, done;
	int ret;

	*err = 0;
	if (!have_submit_many(ctx->dev) || n == 1) {
		for (i = 0; i < n; i++) {
			do {
				ret = ioctl(ctx->dev->fd, DRM_IOCTL_TERN_SUBMIT, &p[i].args);
			} while (ret == -1 && errno == EINTR);
			if (ret) {
				*err = -errno;
				break;
			}
		}
		return i;
	}
	arr = malloc(n * sizeof(*arr));
	if (!arr) {
		*err = -ENOMEM;
		return 0;
	}
	for (i = 0; i < n; i++)
		arr[i] = p[i].args;
	many.submits = (uintptr_t)arr;
	many.count = n;
	many.stride = sizeof(*arr);
	do {
		ret = ioctl(ctx->dev->fd, DRM_IOCTL_TERN_SUBMIT_MANY, &many);
	} while (ret == -1 && errno == EINTR);
	if (ret) {
		done = 0;
		*err = -errno;
	} else {
		done = many.submitted < n ? many.submitted : n;
		*err = done < n ? many.error : 0;
	}
	for (i = 0; i < n && i <= done; i++)
		p[i].args = arr[i];
	free(arr);
	return done;
}

/* Say which job of a tern_submit_many() call the error is about. */
static int job_error(int err, unsigned int job, unsigned int count)
{
	const char *prefix = "submit: ";
	char msg[512];
	const char *m = msg;

	snprintf(msg, sizeof(msg), "%s", tern_last_error());
	if (!strncmp(m, prefix, strlen(prefix)))
		m += strlen(prefix);
	return tern_seterr(err, "submit: job %u of %u: %s", job, count, m);
}

int tern_submit_many(struct tern_context *ctx, const struct tern_cmdbuf *const *cbs,
		     unsigned int count, struct tern_fence **fences, unsigned int *submitted)
{
	unsigned int first = 0, chunk, i, n;
	struct submit_prep *p;
	int ret = 0, err, lazy_err;

	tern_clearerr();
	if (submitted)
		*submitted = 0;
	for (i = 0; fences && i < count; i++)
		fences[i] = NULL;
	if (!count)
		return 0;
	for (i = 0; i < count; i++)
		if (!cbs || !cbs[i])
			return tern_seterr(-EINVAL, "submit: job %u of %u: no command buffer",
					   i, count);
	p = calloc(count < TERN_SUBMIT_MANY_CHUNK ? count : TERN_SUBMIT_MANY_CHUNK,
		   sizeof(*p));
	if (!p)
		return tern_seterr(-ENOMEM, "submit: out of memory");

	/* a submission that makes lazy fences holds at most TERN_LAZY_SPAN jobs */
	chunk = fences && ctx->progress && ctx->progress->lazy ? TERN_LAZY_SPAN :
		TERN_SUBMIT_MANY_CHUNK;
	while (first < count && !ret) {
		unsigned int want = count - first, done;

		if (want > chunk)
			want = chunk;
		/* a job the library refuses ends the call where it stands */
		for (n = 0; n < want; n++) {
			memset(&p[n], 0, sizeof(p[n]));
			ret = submit_prepare(ctx, cbs[first + n], NULL, fences != NULL, &p[n]);
			if (ret)
				break;
		}
		done = 0;
		err = 0;
		lazy_err = n ? tern_lazy_submit_begin(ctx->progress, n) : 0;
		if (n && !lazy_err) {
			done = submit_chunk(ctx, p, n, &err);
			for (i = 0; i < done; i++)
				submit_commit(ctx, &p[i], fences ? &fences[first + i] : NULL);
			tern_lazy_submit_end(ctx->progress);
		}
		if (lazy_err) {
			/* nothing queued; the thread's error says why */
			ret = job_error(lazy_err, first, count);
		} else if (done < n && err == -EINTR && done) {
			/* a signal stopped the kernel between entries: go on */
			ret = 0;
		} else if (done < n) {
			ret = job_error(submit_error(ctx, &p[done].args, err), first + done,
					count);
		} else if (ret) {
			ret = job_error(ret, first + n, count);
		}
		for (i = 0; i < n; i++)
			submit_prep_release(&p[i]);
		first += done;
		if (submitted)
			*submitted = first;
	}
	free(p);
	return ret;
}

int tern_submit(struct tern_context *ctx, const struct tern_cmdbuf *cb,
		struct tern_fence *const *deps, unsigned int dep_count,
		struct tern_fence **fencep)
{
	const struct tern_deps d = { .fences = deps, .fence_count = dep_count };

	return tern_submit_deps(ctx, cb, &d, fencep);
}
