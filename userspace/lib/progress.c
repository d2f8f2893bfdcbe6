// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * progress.c - a context's progress page: whether a job finished, and how,
 * read from memory the kernel writes (struct drm_tern_progress), and
 * DRM_IOCTL_TERN_WAIT when the caller must sleep.
 *
 * The page is mapped once per context and shared by the context and its
 * fences, which may outlive it: the last of them unmaps it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <xf86drm.h>

#include "internal.h"
#include "tern_accel.h"

int tern_progress_map(struct tern_device *dev, uint64_t offset, struct tern_progress **progp)
{
	struct tern_progress *prog;
	void *page;

	*progp = NULL;
	prog = calloc(1, sizeof(*prog));
	if (!prog)
		return -ENOMEM;
	page = mmap(NULL, DRM_TERN_PROGRESS_SIZE, PROT_READ, MAP_SHARED, dev->fd,
		    (off_t)offset);
	if (page == MAP_FAILED) {
		int ret = -errno;

		free(prog);
		return ret;
	}
	prog->page = page;
	atomic_init(&prog->refs, 1);
	atomic_init(&prog->destroyed, false);
	pthread_mutex_init(&prog->submit_lock, NULL);
	pthread_mutex_init(&prog->lock, NULL);
	*progp = prog;
	return 0;
}

struct tern_progress *tern_progress_get(struct tern_progress *prog)
{
	if (prog)
		atomic_fetch_add_explicit(&prog->refs, 1, memory_order_relaxed);
	return prog;
}

void tern_progress_put(struct tern_progress *prog)
{
	if (!prog || atomic_fetch_sub_explicit(&prog->refs, 1, memory_order_acq_rel) != 1)
		return;
	munmap((void *)prog->page, DRM_TERN_PROGRESS_SIZE);
	pthread_mutex_destroy(&prog->lock);
	pthread_mutex_destroy(&prog->submit_lock);
	free(prog);
}

static bool seqno_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

static uint32_t load_acquire(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static uint32_t load_relaxed(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/*
 * One pass of the uAPI's reading rule ("DOC: tern progress pages"): 0 with
 * *error set, -EBUSY not finished, -ENODATA not on the page, -EAGAIN the
 * entries changed under the reader.
 */
static int outcome_once(const struct drm_tern_progress *p, uint32_t seqno, int *error)
{
	uint32_t n, kept, k, again;
	int ret = -ENODATA;

	*error = 0;
	if (seqno_after(seqno, load_acquire(&p->completed)))
		return -EBUSY;
	n = load_acquire(&p->error_count);
	kept = n < DRM_TERN_PROGRESS_KEPT ? n : DRM_TERN_PROGRESS_KEPT;
	if (n <= DRM_TERN_PROGRESS_KEPT)
		ret = 0;
	for (k = 1; k <= kept; k++) {
		const struct drm_tern_progress_error *e =
			&p->errors[(n - k) % DRM_TERN_PROGRESS_ERRORS];
		uint32_t s = load_relaxed(&e->seqno);

		if (s == seqno) {
			*error = __atomic_load_n(&e->error, __ATOMIC_RELAXED);
			ret = 0;
			break;
		}
		if (seqno_after(seqno, s)) {	/* newest first: older cannot be it */
			ret = 0;
			break;
		}
	}
	/* failures written since may have reused the slots just read */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	again = load_relaxed(&p->error_count) - n;
	if (again + kept >= DRM_TERN_PROGRESS_ERRORS)
		return -EAGAIN;
	return ret;
}

int tern_progress_outcome(const struct tern_progress *prog, uint32_t seqno, int *error)
{
	int tries, ret = -EAGAIN;

	for (tries = 0; tries < 8 && ret == -EAGAIN; tries++)
		ret = outcome_once(prog->page, seqno, error);
	return ret == -EAGAIN ? -ENODATA : ret;
}

/*
 * The context is destroyed: its handle may name another context, so its
 * fences no longer ask DRM_IOCTL_TERN_WAIT (the kernel does not reuse
 * handles soon, but this holds with any kernel).
 */
void tern_progress_destroyed(struct tern_progress *prog)
{
	if (prog)
		atomic_store(&prog->destroyed, true);
}

bool tern_progress_closed(const struct tern_progress *prog)
{
	return load_acquire(&prog->page->flags) & DRM_TERN_PROGRESS_CLOSED;
}

int tern_progress_wait(struct tern_device *dev, uint32_t context, uint32_t seqno,
		       int64_t deadline_ns, int *error)
{
	struct drm_tern_wait args = {
		.context = context,
		.seqno = seqno,
		.timeout_ns = deadline_ns,
	};
	int ret;

	*error = 0;
	do {
		ret = ioctl(dev->fd, DRM_IOCTL_TERN_WAIT, &args);
	} while (ret == -1 && errno == EINTR);
	if (ret)
		return -errno;
	*error = args.error;
	return 0;
}
