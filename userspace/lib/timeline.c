// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * timeline.c - timelines: timeline drm_syncobjs whose numbered points jobs
 * and the CPU wait for and signal.
 *
 * Everything is libdrm's drmSyncobj* calls.  A point is moved in or out of
 * a timeline through a temporary binary syncobj (drmSyncobjTransfer()),
 * which is also how a point becomes a struct tern_fence.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

#include "internal.h"

int tern_timeline_create(struct tern_device *dev, struct tern_timeline **tlp)
{
	struct tern_timeline *tl;
	int ret;

	*tlp = NULL;
	tern_clearerr();
	tl = calloc(1, sizeof(*tl));
	if (!tl)
		return tern_seterr(-ENOMEM, "timeline: out of memory");
	tl->dev = dev;
	if (drmSyncobjCreate(dev->fd, 0, &tl->syncobj)) {
		ret = -errno;
		free(tl);
		return tern_seterr(ret, "timeline: cannot create a syncobj: %s", strerror(-ret));
	}
	*tlp = tl;
	return 0;
}

void tern_timeline_free(struct tern_timeline *tl)
{
	if (!tl)
		return;
	drmSyncobjDestroy(tl->dev->fd, tl->syncobj);
	free(tl);
}

uint32_t tern_timeline_syncobj(const struct tern_timeline *tl)
{
	return tl->syncobj;
}

static int query(struct tern_timeline *tl, uint32_t flags, uint64_t *point)
{
	int ret;

	*point = 0;
	if (drmSyncobjQuery2(tl->dev->fd, &tl->syncobj, point, 1, flags)) {
		ret = -errno;
		return tern_seterr(ret, "timeline: query failed: %s", strerror(-ret));
	}
	return 0;
}

int tern_timeline_query(struct tern_timeline *tl, uint64_t *point, uint64_t *submitted)
{
	int ret;

	tern_clearerr();
	ret = query(tl, 0, point);
	if (!ret && submitted)
		ret = query(tl, DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED, submitted);
	return ret;
}

int tern_timeline_check_wait(struct tern_timeline *tl, uint64_t point, const char *what)
{
	uint64_t p = point;
	int ret;

	ret = drmSyncobjTimelineWait(tl->dev->fd, &tl->syncobj, &p, 1, 0,
				     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE, NULL);
	if (!ret)
		return 0;
	ret = -errno;
	if (ret == -ETIME || ret == -EINVAL)	/* -EINVAL: the timeline is empty */
		return tern_seterr(-ENOENT, "%s: nothing was submitted to signal timeline "
				   "point %llu yet", what, (unsigned long long)point);
	return tern_seterr(ret, "%s: cannot look up timeline point %llu: %s", what,
			   (unsigned long long)point, strerror(-ret));
}

int tern_timeline_check_signal(struct tern_timeline *tl, uint64_t point, const char *what)
{
	uint64_t last;
	int ret;

	if (!point)
		return tern_seterr(-EINVAL, "%s: timeline point 0 does not exist (points "
				   "count from 1)", what);
	ret = query(tl, DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED, &last);
	if (ret)
		return ret;
	if (point <= last)
		return tern_seterr(-EINVAL, "%s: timeline point %llu is not above the last "
				   "point submitted on the timeline (%llu): points are "
				   "signalled in increasing order", what,
				   (unsigned long long)point, (unsigned long long)last);
	return 0;
}

int tern_timeline_wait(struct tern_timeline *tl, uint64_t point, int64_t timeout_ns)
{
	uint64_t p = point;
	int ret;

	tern_clearerr();
	if (!point)
		return tern_seterr(-EINVAL, "timeline wait: point 0 does not exist (points "
				   "count from 1)");
	ret = drmSyncobjTimelineWait(tl->dev->fd, &tl->syncobj, &p, 1, tern_abs_timeout(timeout_ns),
				     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
	if (!ret)
		return 0;
	ret = -errno;
	if (ret == -ETIME)
		return tern_seterr(ret, "timeline wait: point %llu has not signalled within "
				   "the timeout", (unsigned long long)point);
	return tern_seterr(ret, "timeline wait: point %llu: %s", (unsigned long long)point,
			   ret == -ENODEV ? "the device is gone" : strerror(-ret));
}

int tern_timeline_signal(struct tern_timeline *tl, uint64_t point)
{
	int ret;

	tern_clearerr();
	ret = tern_timeline_check_signal(tl, point, "timeline signal");
	if (ret)
		return ret;
	if (drmSyncobjTimelineSignal(tl->dev->fd, &tl->syncobj, &point, 1)) {
		ret = -errno;
		return tern_seterr(ret, "timeline signal: point %llu: %s",
				   (unsigned long long)point, strerror(-ret));
	}
	return 0;
}

int tern_timeline_point_fence(struct tern_timeline *tl, uint64_t point,
			      struct tern_fence **fencep)
{
	struct tern_device *dev = tl->dev;
	struct tern_fence *f;
	int ret;

	*fencep = NULL;
	tern_clearerr();
	if (!point)
		return tern_seterr(-EINVAL, "timeline fence: point 0 does not exist (points "
				   "count from 1)");
	ret = tern_timeline_check_wait(tl, point, "timeline fence");
	if (ret)
		return ret;
	ret = tern_fence_new(dev, "timeline fence", &f);
	if (ret)
		return ret;
	if (drmSyncobjTransfer(dev->fd, f->syncobj, 0, tl->syncobj, point, 0)) {
		ret = -errno;
		tern_fence_free(f);
		return tern_seterr(ret, "timeline fence: point %llu: %s",
				   (unsigned long long)point, strerror(-ret));
	}
	*fencep = f;
	return 0;
}

int tern_timeline_import_sync_file(struct tern_timeline *tl, uint64_t point, int fd)
{
	struct tern_device *dev = tl->dev;
	uint32_t tmp;
	int ret;

	tern_clearerr();
	ret = tern_timeline_check_signal(tl, point, "timeline import");
	if (ret)
		return ret;
	if (drmSyncobjCreate(dev->fd, 0, &tmp)) {
		ret = -errno;
		return tern_seterr(ret, "timeline import: cannot create a syncobj: %s",
				   strerror(-ret));
	}
	if (drmSyncobjImportSyncFile(dev->fd, tmp, fd)) {
		ret = -errno;
		tern_seterr(ret, "timeline import: fd %d is not a sync_file: %s", fd,
			    strerror(-ret));
	} else if (drmSyncobjTransfer(dev->fd, tl->syncobj, point, tmp, 0, 0)) {
		ret = -errno;
		tern_seterr(ret, "timeline import: point %llu: %s", (unsigned long long)point,
			    strerror(-ret));
	}
	drmSyncobjDestroy(dev->fd, tmp);
	return ret;
}

int tern_timeline_export(struct tern_timeline *tl, int *fd)
{
	int ret;

	*fd = -1;
	tern_clearerr();
	if (drmSyncobjHandleToFD(tl->dev->fd, tl->syncobj, fd)) {
		ret = -errno;
		*fd = -1;
		return tern_seterr(ret, "timeline export: %s", strerror(-ret));
	}
	return 0;
}

int tern_timeline_import(struct tern_device *dev, int fd, struct tern_timeline **tlp)
{
	struct tern_timeline *tl;
	int ret;

	*tlp = NULL;
	tern_clearerr();
	tl = calloc(1, sizeof(*tl));
	if (!tl)
		return tern_seterr(-ENOMEM, "timeline import: out of memory");
	tl->dev = dev;
	if (drmSyncobjFDToHandle(dev->fd, fd, &tl->syncobj)) {
		ret = -errno;
		free(tl);
		return tern_seterr(ret, "timeline import: fd %d is not a syncobj of this "
				   "device: %s", fd, strerror(-ret));
	}
	*tlp = tl;
	return 0;
}
