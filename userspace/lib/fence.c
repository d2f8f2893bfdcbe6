// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * fence.c - fences: a job's completion, held in a binary drm_syncobj and,
 * for a job of a context with a progress page (interface 1.2), on that page.
 * A bind's fence (bind.c) is a syncobj only, and its messages speak of the
 * bind.
 *
 * With a page, whether the job finished and how is read from memory
 * (progress.c), and a wait that must sleep is one DRM_IOCTL_TERN_WAIT.
 * Otherwise waiting is drmSyncobjWait(); a syncobj does not tell whether its
 * fence signalled with an error, so the error of a finished job is then read
 * from a sync_file exported from the syncobj (SYNC_IOC_FILE_INFO status).
 * The syncobj stays: it is what other jobs and processes wait on.
 *
 * Freed fences are kept with their syncobjs, up to TERN_FENCE_POOL_MAX per
 * device, for the next fences (not one whose handle tern_fence_syncobj()
 * gave out: its syncobj is destroyed with it, as tern.h says): a job's
 * fence then costs no allocation and no syncobj create and destroy calls.
 * Whatever gives a pooled syncobj to a new fence replaces the fence it
 * held (the submit's out-sync, an import, a transfer); closing the device
 * frees the pool, and the syncobjs with its file.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/sync_file.h>
#include <xf86drm.h>

#include "internal.h"

/* A finished job's (or bind's) outcome: 0, or its error with the thread's error set. */
int tern_fence_result(const struct tern_fence *f, int status)
{
	const char *msg;

	if (!status)
		return 0;
	msg = tern_ioctl_errmsg(f->bind ? TERN_IOC_BIND_FENCE : TERN_IOC_FENCE_WAIT, status);
	return tern_seterr(status, "%s %u: %s", f->bind ? "bind" : "job", f->seqno,
			   msg ? msg : strerror(-status));
}

/*
 * The status of the fence in the syncobj, from a sync_file exported from it:
 * 0 signalled (*@status: 0 or its error), -EBUSY not signalled, or a
 * negative errno with the thread's error set.
 */
static int syncobj_status(struct tern_fence *f, int *status)
{
	struct sync_file_info info = { 0 };
	int fd, ret;

	*status = 0;
	if (drmSyncobjExportSyncFile(f->dev->fd, f->syncobj, &fd)) {
		ret = -errno;
		return tern_seterr(ret, "fence: cannot read the job's status: %s",
				   strerror(-ret));
	}
	ret = ioctl(fd, SYNC_IOC_FILE_INFO, &info);
	if (ret)
		ret = -errno;
	close(fd);
	if (ret)
		return tern_seterr(ret, "fence: cannot read the job's status: %s",
				   strerror(-ret));
	if (info.status == 0)
		return -EBUSY;
	if (info.status < 0)
		*status = info.status;
	return 0;
}

/* A fence of @dev with nothing in it yet: its syncobj holds what it holds. */
static void fence_init(struct tern_fence *f, struct tern_device *dev)
{
	memset(f, 0, sizeof(*f));
	f->dev = dev;
	atomic_init(&f->exposed, false);
	atomic_init(&f->state, TERN_FENCE_ATTACHED);
}

int tern_fence_new(struct tern_device *dev, const char *what, struct tern_fence **fencep)
{
	struct tern_fence *f = NULL;
	uint32_t handle;
	int ret;

	*fencep = NULL;
	pthread_mutex_lock(&dev->lock);
	if (dev->fence_pooled)
		f = dev->fence_pool[--dev->fence_pooled];
	pthread_mutex_unlock(&dev->lock);
	if (f) {
		handle = f->syncobj;
		fence_init(f, dev);
		f->syncobj = handle;
		*fencep = f;
		return 0;
	}
	f = malloc(sizeof(*f));
	if (!f)
		return tern_seterr(-ENOMEM, "%s: out of memory", what);
	fence_init(f, dev);
	if (drmSyncobjCreate(dev->fd, 0, &f->syncobj)) {
		ret = -errno;
		free(f);
		return tern_seterr(ret, "%s: cannot create a syncobj for the fence: %s", what,
				   strerror(-ret));
	}
	*fencep = f;
	return 0;
}

void tern_fence_recycle(struct tern_fence *fence)
{
	struct tern_device *dev = fence->dev;

	if (!atomic_load(&fence->exposed)) {
		pthread_mutex_lock(&dev->lock);
		if (dev->fence_pooled < TERN_FENCE_POOL_MAX) {
			dev->fence_pool[dev->fence_pooled++] = fence;
			pthread_mutex_unlock(&dev->lock);
			return;
		}
		pthread_mutex_unlock(&dev->lock);
	}
	drmSyncobjDestroy(dev->fd, fence->syncobj);
	free(fence);
}

void tern_fence_pool_fini(struct tern_device *dev)
{
	while (dev->fence_pooled)
		free(dev->fence_pool[--dev->fence_pooled]);
}

int64_t tern_abs_timeout(int64_t timeout_ns)
{
	struct timespec ts;
	int64_t now;

	if (timeout_ns < 0)
		return INT64_MAX;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	return timeout_ns > INT64_MAX - now ? INT64_MAX : now + timeout_ns;
}

static int wait_syncobj(struct tern_fence *f, int64_t deadline)
{
	int ret;

	ret = drmSyncobjWait(f->dev->fd, &f->syncobj, 1, deadline,
			     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
	if (ret == -ETIME)
		return tern_seterr(-ETIME, "fence: %s",
				   tern_ioctl_errmsg(f->bind ? TERN_IOC_BIND_FENCE :
						     TERN_IOC_FENCE_WAIT, ETIME));
	if (ret == -ENODEV)
		return tern_seterr(ret, "fence: the device is gone (unplugged or the driver "
				   "was unbound)");
	if (ret)
		return tern_seterr(ret, "fence: waiting failed: %s", strerror(-ret));
	return 0;
}

/*
 * A lazy fence of a destroyed context that the kernel could not take
 * (lazy.c): its handle is gone, but its page becomes final once the last
 * job is gone; a job after its last completed one then never ran.  Poll it.
 */
static int orphan_outcome(struct tern_fence *f, int *status)
{
	int ret = tern_progress_outcome(f->progress, f->seqno, status);

	if (ret != -EBUSY || !tern_progress_closed(f->progress))
		return ret;
	/* final now: read once more, it may have finished just before */
	ret = tern_progress_outcome(f->progress, f->seqno, status);
	if (ret == -EBUSY) {
		*status = -ECANCELED;
		ret = 0;
	}
	return ret;
}

static int poll_orphan(struct tern_fence *f, int64_t deadline, int *status)
{
	const struct timespec tick = { .tv_nsec = 1000000 };
	struct timespec ts;
	int ret;

	for (;;) {
		ret = orphan_outcome(f, status);
		if (ret != -EBUSY)
			return ret;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if ((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec >= deadline)
			return -ETIME;
		nanosleep(&tick, NULL);
	}
}

/*
 * The page could not tell the outcome (it moved under every read, or the
 * context went): a lazy fence asks the kernel for its fence.  0 with
 * *@status if the outcome is known now, 1 if the syncobj holds the fence,
 * or a negative errno with the thread's error set.
 */
static int fence_settled(struct tern_fence *f, int *status)
{
	int ret;

	if (tern_fence_state(f) == TERN_FENCE_LAZY) {
		ret = tern_fence_attach(f, "fence");
		if (ret)
			return ret;
	}
	if (tern_fence_state(f) != TERN_FENCE_KNOWN)
		return 1;
	*status = f->status;
	return 0;
}

/*
 * Wait until the CLOCK_MONOTONIC @deadline for the job (or bind) to finish:
 * 0 with *@status its outcome (0 or its error), or a negative errno of the
 * wait with the thread's error set.
 *
 * A fence of a context with a progress page is read from the page, with
 * no system call when the job finished; DRM_IOCTL_TERN_WAIT sleeps
 * otherwise.  The syncobj answers what the page cannot: the outcome of a
 * job too many failures ago, or a job of a context destroyed since.
 */
int tern_fence_outcome(struct tern_fence *f, int64_t deadline, int *status)
{
	int ret;

	if (f->progress) {
		if (tern_fence_state(f) == TERN_FENCE_KNOWN) {
			*status = f->status;
			return 0;
		}
		ret = tern_progress_outcome(f->progress, f->seqno, status);
		if (ret == -EBUSY && !atomic_load(&f->progress->destroyed))
			ret = tern_progress_wait(f->dev, f->context, f->seqno, deadline, status);
		else if (ret == -EBUSY && tern_fence_state(f) == TERN_FENCE_LAZY)
			ret = poll_orphan(f, deadline, status);
		if (!ret)
			return 0;
		if (ret == -ETIME)
			return tern_seterr(-ETIME, "fence: %s",
					   tern_ioctl_errmsg(TERN_IOC_FENCE_WAIT, ETIME));
		ret = fence_settled(f, status);
		if (ret <= 0)
			return ret;
	}
	ret = wait_syncobj(f, deadline);
	if (ret)
		return ret;
	return syncobj_status(f, status);
}

int tern_fence_wait(struct tern_fence *fence, int64_t timeout_ns)
{
	int ret, status;

	tern_clearerr();
	ret = tern_fence_outcome(fence, tern_abs_timeout(timeout_ns), &status);
	if (ret)
		return ret;
	return tern_fence_result(fence, status);
}

int tern_fence_wait_all(struct tern_fence *const *fences, unsigned int count,
			int64_t timeout_ns)
{
	int64_t deadline = tern_abs_timeout(timeout_ns);
	struct tern_fence *failed = NULL;
	int failed_status = 0;
	unsigned int i;
	int ret, status;

	tern_clearerr();
	for (i = 1; i < count; i++)
		if (fences[i]->dev != fences[0]->dev)
			return tern_seterr(-EINVAL, "fence: fence %u is of another open device", i);
	/* one deadline for all: waiting for each in turn waits for all */
	for (i = 0; i < count; i++) {
		ret = tern_fence_outcome(fences[i], deadline, &status);
		if (ret)
			return ret;
		if (status && !failed) {
			failed = fences[i];
			failed_status = status;
		}
	}
	return failed ? tern_fence_result(failed, failed_status) : 0;
}

int tern_fence_status(struct tern_fence *fence)
{
	int ret, status;

	tern_clearerr();
	if (fence->progress) {
		if (tern_fence_state(fence) == TERN_FENCE_KNOWN)
			return tern_fence_result(fence, fence->status);
		/* a lazy fence its destroyed context left: as poll_orphan() */
		if (tern_fence_state(fence) == TERN_FENCE_LAZY &&
		    atomic_load(&fence->progress->destroyed))
			ret = orphan_outcome(fence, &status);
		else
			ret = tern_progress_outcome(fence->progress, fence->seqno, &status);
		if (ret == -EBUSY)
			return -EBUSY;
		if (!ret)
			return tern_fence_result(fence, status);
		ret = fence_settled(fence, &status);
		if (ret < 0)
			return ret;
		if (!ret)
			return tern_fence_result(fence, status);
	}
	ret = drmSyncobjWait(fence->dev->fd, &fence->syncobj, 1, 0, 0, NULL);
	if (ret == -ETIME || ret == -EINVAL)	/* -EINVAL: no fence attached yet */
		return -EBUSY;
	if (ret)
		return tern_seterr(ret, "fence: %s", strerror(-ret));
	ret = syncobj_status(fence, &status);
	if (ret)
		return ret;
	return tern_fence_result(fence, status);
}

uint32_t tern_fence_seqno(const struct tern_fence *fence)
{
	return fence->seqno;
}

uint32_t tern_fence_syncobj(const struct tern_fence *fence)
{
	/* the object is the library's: tern_fence is never const where it was made */
	struct tern_fence *f = (struct tern_fence *)fence;

	tern_clearerr();
	if (tern_fence_attach(f, "fence"))
		return 0;
	/*
	 * The caller may keep or export the handle: destroy it with the
	 * fence rather than give it to another fence.
	 */
	atomic_store(&f->exposed, true);
	return f->syncobj;
}

int tern_fence_export_sync_file(struct tern_fence *fence, int *fd)
{
	int ret;

	*fd = -1;
	tern_clearerr();
	ret = tern_fence_attach(fence, "fence");
	if (ret)
		return ret;
	if (drmSyncobjExportSyncFile(fence->dev->fd, fence->syncobj, fd)) {
		ret = -errno;
		*fd = -1;
		return tern_seterr(ret, "fence: exporting a sync_file failed: %s",
				   strerror(-ret));
	}
	return 0;
}

int tern_fence_import_sync_file(struct tern_device *dev, int fd, struct tern_fence **fencep)
{
	struct tern_fence *f;
	int ret;

	*fencep = NULL;
	tern_clearerr();
	ret = tern_fence_new(dev, "fence", &f);
	if (ret)
		return ret;
	if (drmSyncobjImportSyncFile(dev->fd, f->syncobj, fd)) {
		ret = -errno;
		tern_fence_recycle(f);
		return tern_seterr(ret, "fence: fd %d is not a sync_file: %s", fd,
				   strerror(-ret));
	}
	*fencep = f;
	return 0;
}

void tern_fence_free(struct tern_fence *fence)
{
	if (!fence)
		return;
	tern_lazy_forget(fence);
	tern_progress_put(fence->progress);
	tern_fence_recycle(fence);
}
