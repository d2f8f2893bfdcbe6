/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The tern authors
 *
 * internal.h - what the files of libtern share and the public header does
 * not show.  Nothing here is exported from libtern.so.
 */
#ifndef TERN_INTERNAL_H
#define TERN_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "tern/tern.h"
#include "va.h"

#define TERN_LIB_PAGE_SIZE		4096u
/* The first device VA the library hands out: 0 and the page after stay unmapped. */
#define TERN_LIB_VA_START		(1ull << 20)

/* binary syncobjs of freed fences kept for the next ones, per device */
#define TERN_FENCE_POOL_MAX	64

/* A range of device VAs tern_va_reserve() handed out. */
struct tern_va_rsv {
	uint64_t va;
	uint64_t size;			/* as reserved; a guard page follows */
};

/*
 * A mapping of tern_vm_bind(), as the binds queued leave the address space.
 * An unmap with TERN_BIND_CUT (or a TERN_BIND_REPLACE map) that cuts a
 * mapping leaves its parts outside the range as mappings of their own,
 * with their offsets.
 */
struct tern_vm_map {
	uint64_t va;
	uint64_t range;
	struct tern_bo *bo;		/* NULL: its buffer was freed */
	uint64_t bo_offset;		/* of @va in @bo */
};

/* bind.c: mappings sorted by va, none overlapping another. */
struct tern_vm_view {
	struct tern_vm_map *maps;
	size_t count, cap;
};

/* bind.c: one change of a view: @map added, or removed. */
struct tern_bind_change {
	bool added;
	struct tern_vm_map map;
};

/* bind.c: the changes an operation or a bind made to a view, in order. */
struct tern_bind_changes {
	struct tern_bind_change *c;
	size_t n, cap;
};

/* bind.c: a bind queued and not known to be done. */
struct tern_bind_rec {
	struct tern_bind_rec *prev, *next;
	uint64_t seqno;
	struct tern_fence *fence;	/* the bind's, the library's own */
	bool suspect;			/* may have been cancelled: ask it */
	int status;			/* once done: 0 or its error */
	struct tern_bind_op *ops;	/* as asked (bo NULL once freed) */
	unsigned int nops;
	struct tern_bind_changes changes;	/* what it did to the view */
};

struct tern_device {
	int fd;
	struct tern_device_info info;
	/* protects va, bos, fence_pool, rsv, maps and the bind records */
	pthread_mutex_t lock;
	struct tern_va_space va;	/* device VAs handed out */
	struct tern_bo **bos;		/* live buffers, sorted by va */
	size_t bo_count, bo_cap;
	/* freed fences, each with its binary syncobj, for the next ones */
	struct tern_fence *fence_pool[TERN_FENCE_POOL_MAX];
	unsigned int fence_pooled;
	/*
	 * bind.c: serialises tern_vm_bind() and the reconciliation of its
	 * view with the kernel's (taken before @lock), so that the binds
	 * recorded are in the kernel's order.
	 */
	pthread_mutex_t bind_lock;
	struct tern_va_rsv *rsv;	/* tern_va_reserve()'s ranges, sorted */
	size_t rsv_count, rsv_cap;
	struct tern_vm_view view;	/* tern_vm_bind()'s mappings */
	struct tern_bind_rec *binds;	/* binds not known to be done, in order */
	struct tern_bind_rec *binds_last;
	/* the bind whose ioctl runs (dev->bind_lock): tern_bo_free() sees it */
	struct tern_bind_rec *bind_inflight;
	uint64_t bind_faults_seen;	/* failed + cancelled at the last look */
};

struct drm_tern_progress;

/*
 * A mapped progress page, shared by a context and its fences, and the
 * lazy fences of the context's jobs (lazy.c).
 */
struct tern_progress {
	const struct drm_tern_progress *page;
	atomic_uint refs;
	atomic_bool destroyed;		/* the context's handle is gone */
	bool lazy;			/* its jobs' fences have no syncobj until asked */
	/*
	 * with @lazy: held across each submission to the context, from
	 * tern_lazy_submit_begin() to tern_lazy_submit_end(); protects
	 * @last_seqno.  Taken before @lock.
	 */
	pthread_mutex_t submit_lock;
	uint32_t last_seqno;		/* the newest job submitted */
	/* protects the list and the lazy fences' state and links */
	pthread_mutex_t lock;
	struct tern_fence *lazy_first;	/* lazy fences, by seqno */
	struct tern_fence *lazy_last;
};

struct tern_context {
	struct tern_device *dev;
	uint32_t handle;
	uint32_t engine;
	uint32_t engine_class;
	struct tern_progress *progress;	/* NULL: the kernel has no progress pages */
};

struct tern_bo {
	struct tern_device *dev;
	uint32_t handle;
	uint64_t size;			/* GEM object size */
	uint64_t va;
	uint64_t va_span;		/* size + guard page, what the allocator gave */
	void *map;
};

/* What a fence's syncobj holds (lazy.c). */
enum tern_fence_state {
	TERN_FENCE_ATTACHED,		/* the fence */
	TERN_FENCE_LAZY,		/* nothing yet: the page tells the outcome */
	TERN_FENCE_KNOWN,		/* nothing: the job finished, @status is its outcome */
};

struct tern_fence {
	struct tern_device *dev;
	uint32_t syncobj;
	uint32_t seqno;
	atomic_bool exposed;		/* the caller has the handle: not pooled */
	bool bind;			/* a bind's fence (tern_vm_bind()), not a job's */
	uint32_t context;		/* the job's context handle, with @progress */
	struct tern_progress *progress;	/* NULL: an imported fence, or no page */
	atomic_int state;		/* enum tern_fence_state */
	int status;			/* with TERN_FENCE_KNOWN */
	bool listed;			/* in @progress's list (its lock) */
	struct tern_fence *lazy_prev;
	struct tern_fence *lazy_next;
};

struct tern_timeline {
	struct tern_device *dev;
	uint32_t syncobj;
};

/* An address range a command buffer's packets use. */
struct tern_cmd_range {
	uint64_t va;
	uint64_t size;
	uint32_t offset;		/* dword index of the packet */
};

struct tern_cmdbuf {
	uint32_t *dw;
	size_t len, cap;		/* dwords */
	size_t max;			/* dwords */
	struct tern_cmd_range *ranges;
	size_t range_count, range_cap;
	long first_compute;		/* dword of the first compute packet, or -1 */
};

/* error.c: the calling thread's last error message. */
int tern_seterr(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int tern_vseterr(int err, const char *fmt, va_list ap);
void tern_clearerr(void);

/*
 * error.c: the meaning of @err as returned by the uAPI call @ioctl (one of
 * the DRM_TERN_* ioctl numbers), or NULL when the uAPI does not document it
 * for that call.
 */
const char *tern_ioctl_errmsg(unsigned int ioctl, int err);

/* The tern ioctl numbers, for tern_ioctl_errmsg(). */
enum {
	TERN_IOC_GET_INFO,
	TERN_IOC_BO_CREATE,
	TERN_IOC_BO_INFO,
	TERN_IOC_VM_BIND,
	TERN_IOC_CONTEXT_CREATE,
	TERN_IOC_CONTEXT_DESTROY,
	TERN_IOC_CONTEXT_GET_STATE,
	TERN_IOC_SUBMIT,
	TERN_IOC_OPEN,			/* opening the node */
	TERN_IOC_FENCE_WAIT,		/* a job's fence error */
	TERN_IOC_VM_BIND_OPS,
	TERN_IOC_VM_GET_STATE,
	TERN_IOC_BIND_FENCE,		/* a bind's fence error */
	TERN_IOC_COUNT
};

/*
 * tern_ioctl() - drmIoctl() on the device, returning 0 or -errno and, on
 * failure, setting the thread's error to "<what>: <the uAPI meaning>".
 */
int tern_ioctl(struct tern_device *dev, unsigned long request, void *arg,
	       unsigned int ioc, const char *what);

/* bo.c: the live buffer holding [va, va + size), or NULL.  dev->lock held. */
struct tern_bo *tern_bo_lookup_locked(struct tern_device *dev, uint64_t va, uint64_t size);

/*
 * bind.c: the buffer a mapping of tern_vm_bind() holding [va, va + size)
 * maps, or NULL.  dev->lock held.
 */
struct tern_bo *tern_vm_map_lookup_locked(struct tern_device *dev, uint64_t va, uint64_t size);

/* bind.c: @bo is being freed: forget its mappings.  dev->lock held. */
void tern_vm_forget_bo_locked(struct tern_device *dev, const struct tern_bo *bo);

/*
 * bind.c: apply the operation @op to @view as the kernel does (a map, with
 * TERN_BIND_REPLACE or not, first removes what is in its range, cutting
 * the mappings that cross an end; an unmap removes the mappings in its
 * range and, with TERN_BIND_CUT, cuts those that cross an end; without it,
 * an unmap that would cut changes nothing, as the kernel refuses it),
 * appending what changed to @ch.  0, or -ENOMEM with nothing changed.
 */
int tern_vm_view_apply(struct tern_vm_view *view, const struct tern_bind_op *op,
		       struct tern_bind_changes *ch);

/* bind.c: take the changes @ch made to @view back, the last first. */
void tern_vm_view_undo(struct tern_vm_view *view, const struct tern_bind_changes *ch);

/*
 * bind.c: the kernel failed or cancelled binds from @first_failed on (a
 * record of dev->binds; each done one has its status): take every bind
 * from it on back from the view and make again, in order, those whose
 * status is 0, as the kernel ran them.  0, or -ENOMEM with nothing changed.
 * dev->lock held.
 */
int tern_vm_rebuild_locked(struct tern_device *dev, struct tern_bind_rec *first_failed);

/* bind.c: free what tern_vm_bind() and tern_va_reserve() keep, at close. */
void tern_vm_fini(struct tern_device *dev);

/*
 * fence.c: CLOCK_MONOTONIC deadline in ns, @timeout_ns from now (negative:
 * never), for drmSyncobjWait().
 */
int64_t tern_abs_timeout(int64_t timeout_ns);

/*
 * fence.c: a new fence of @dev with a binary syncobj, from the pool of
 * freed fences or new, for a job or a bind to signal (or an import, a
 * transfer, to replace its fence); on failure the thread's error names
 * @what.  tern_fence_recycle() gives one that was never handed out back;
 * tern_fence_pool_fini() frees the pool at close.
 */
int tern_fence_new(struct tern_device *dev, const char *what, struct tern_fence **fencep);
void tern_fence_recycle(struct tern_fence *fence);
void tern_fence_pool_fini(struct tern_device *dev);

/*
 * fence.c: wait until the CLOCK_MONOTONIC @deadline for @fence: 0 with
 * *@status its outcome (0 or its error), or a negative errno of the wait
 * with the thread's error set.
 */
int tern_fence_outcome(struct tern_fence *fence, int64_t deadline, int *status);

/* fence.c: the outcome @status (0 or an error) of @fence, as tern_fence_wait() returns it. */
int tern_fence_result(const struct tern_fence *fence, int status);

/*
 * progress.c: map a context's progress page (0 or -errno); references;
 * the outcome of job @seqno from the page: 0 (*@error: 0 or the job's
 * negative errno), -EBUSY not finished, -ENODATA not on the page any more;
 * whether the context is gone and the page final; DRM_IOCTL_TERN_WAIT
 * until the CLOCK_MONOTONIC @deadline_ns (0 or -errno of the ioctl).
 */
int tern_progress_map(struct tern_device *dev, uint64_t offset, struct tern_progress **progp);
struct tern_progress *tern_progress_get(struct tern_progress *prog);
void tern_progress_put(struct tern_progress *prog);
int tern_progress_outcome(const struct tern_progress *prog, uint32_t seqno, int *error);
bool tern_progress_closed(const struct tern_progress *prog);
void tern_progress_destroyed(struct tern_progress *prog);
int tern_progress_wait(struct tern_device *dev, uint32_t context, uint32_t seqno,
		       int64_t deadline_ns, int *error);

/*
 * lazy.c: fences of jobs submitted without an out-syncobj (interface 1.8).
 * tern_lazy_supported(): the kernel has DRM_IOCTL_TERN_JOB_FENCE.
 * TERN_LAZY_SPAN: the most jobs one submission of lazy fences may hold.
 * tern_fence_state(): enum tern_fence_state, an acquire load.
 * tern_lazy_submit_begin() before a submission of @jobs jobs (at most
 * TERN_LAZY_SPAN) to the context of @prog (NULL, or a context whose
 * fences are not lazy: nothing to do) settles the lazy fences the
 * submission could make forgettable (0, or -errno with the thread's error
 * set, and then no submission); on success the caller submits, calls
 * tern_lazy_submitted() for each job queued, with its fence or NULL, and
 * tern_lazy_submit_end() after, whatever the outcome.
 * tern_lazy_context_destroy() settles every lazy fence it can and marks
 * the context destroyed.  tern_lazy_forget() takes a fence being freed off
 * the list.  tern_fence_attach() puts the fence into its syncobj, if it is
 * not there yet (0, or -errno with the thread's error set naming @what).
 */
#define TERN_LAZY_SPAN		64
bool tern_lazy_supported(const struct tern_device *dev);
int tern_fence_state(const struct tern_fence *f);
int tern_lazy_submit_begin(struct tern_progress *prog, unsigned int jobs);
void tern_lazy_submitted(struct tern_progress *prog, uint32_t seqno, struct tern_fence *f);
void tern_lazy_submit_end(struct tern_progress *prog);
void tern_lazy_context_destroy(struct tern_progress *prog);
void tern_lazy_forget(struct tern_fence *f);
int tern_fence_attach(struct tern_fence *f, const char *what);

struct drm_tern_sync;

/*
 * submit.c: the in- and out-syncs of a job (or a bind: @what names the
 * call in messages, "submit" or "bind") of @dev with @deps (NULL: none),
 * in arrays allocated here (NULL when empty; the caller frees both): the
 * fences, then the waited-for points in *@in; the signalled points in *@out,
 * after @out_first free entries (for the job's own fence).  Checks what needs
 * no ioctl (NULL or foreign timelines and fences, point 0, the device's
 * limits) and sets the thread's error.  Returns 0 or a negative errno.
 */
int tern_deps_syncs(const struct tern_device *dev, const struct tern_deps *deps,
		    unsigned int out_first, const char *what, struct drm_tern_sync **in,
		    unsigned int *nin, struct drm_tern_sync **out, unsigned int *nout);

/*
 * submit.c: tern_deps_syncs(), then the checks of its timeline points that
 * ask the kernel (a waited-for point must have a signaller, a signalled
 * point must be above the timeline's last); on failure nothing is left
 * allocated.
 */
int tern_deps_prepare(const struct tern_device *dev, const struct tern_deps *deps,
		      unsigned int out_first, const char *what, struct drm_tern_sync **in,
		      unsigned int *nin, struct drm_tern_sync **out, unsigned int *nout);

/*
 * timeline.c: 0 if something was submitted to signal @point of @tl, else
 * -ENOENT (or another negative errno), with the thread's error set naming
 * @what ("submit: wait 0").
 */
int tern_timeline_check_wait(struct tern_timeline *tl, uint64_t point, const char *what);

/* timeline.c: 0 if @point is above every point submitted on @tl, else -EINVAL. */
int tern_timeline_check_signal(struct tern_timeline *tl, uint64_t point, const char *what);

/* cmdbuf.c: name of an opcode ("GEMM"), or "unknown". */
const char *tern_opcode_name(uint32_t opcode);

#endif /* TERN_INTERNAL_H */
