/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The tern authors
 *
 * tern.h - libtern, the user-space compute library of tern accelerators.
 *
 * libtern opens tern devices (/dev/accel/accelN), creates contexts, allocates
 * buffers that both the CPU and the device can use, builds command buffers
 * and submits them, and hands back fences to wait on.  It is a thin layer
 * over the tern uAPI (<drm/tern_accel.h>) and libdrm.  docs/libtern.md is the
 * guide; this header is the reference.
 *
 * Conventions:
 * - Functions that can fail return 0 on success or a negative errno.  After
 *   a failure, tern_last_error() gives a message that says what went wrong
 *   in the terms of the call (which packet, which limit, which device node);
 *   tern_strerror() gives the general meaning of an errno for tern.
 * - Objects are opaque and created by *_create/_open/_alloc functions that
 *   store them through their last argument; each is released by the one
 *   function named for it.  Releasing NULL does nothing.
 * - A device outlives every object created from it: destroy contexts, free
 *   buffers, fences and close the device last.
 *
 * Thread safety: a struct tern_device may be used from any number of threads
 * at once, and so may contexts, buffers, fences and timelines created from
 * it (they hold no mutable state the library does not lock).  Several
 * threads may submit to one context or to different contexts concurrently,
 * and bind (tern_vm_bind(): the binds are queued in the order of the calls).
 * A struct tern_cmdbuf is not locked: build each one in one thread at a time
 * (it may be submitted from any thread once built, and submitted again).
 * Releasing an object while another thread still uses it is a bug of the
 * caller.  tern_last_error() is per thread.  After fork() the child shares
 * the parent's open device (the same DRM file); use it in one process only.
 */
#ifndef TERN_TERN_H
#define TERN_TERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TERN_API __attribute__((visibility("default")))

/** Version of this library, major << 16 | minor. */
#define TERN_LIB_VERSION	((1u << 16) | 7u)

struct tern_device;
struct tern_context;
struct tern_bo;
struct tern_cmdbuf;
struct tern_fence;
struct tern_timeline;

/* ------------------------------------------------------------------ */
/* Errors                                                             */
/* ------------------------------------------------------------------ */

/**
 * tern_strerror() - what a negative errno returned by libtern means
 * @err: a negative (or positive) errno
 *
 * Returns a static string, never NULL.  The meanings are those of the tern
 * uAPI (e.g. -EIO: "the context was faulted or banned"); an errno libtern
 * never returns gets strerror()'s text.
 */
TERN_API const char *tern_strerror(int err);

/**
 * tern_last_error() - the message of the last failed libtern call
 *
 * Returns the message of the last call that failed in the calling thread
 * ("submit: packet at dword 12 (TLB_INVALIDATE) is privileged"), or "" if
 * none has.  The string is owned by libtern and valid until the next libtern
 * call in the same thread.
 */
TERN_API const char *tern_last_error(void);

/* ------------------------------------------------------------------ */
/* Devices                                                            */
/* ------------------------------------------------------------------ */

/** Capabilities in &tern_device_info.caps. */
#define TERN_CAP_SINGLE_USE	(1u << 0)	/* one address space only */
#define TERN_CAP_FAULT_INJECT	(1u << 1)	/* fault-injection block */

/** Engine classes. */
enum tern_engine_class {
	TERN_ENGINE_COMPUTE = 0,	/* runs every packet */
	TERN_ENGINE_COPY = 1,		/* the copy engine */
};

#define TERN_DEVICE_MAX_ENGINES	8

/**
 * struct tern_device_info - what a device is and what it allows
 *
 * Filled once at tern_device_open(); tern_device_info() returns it.
 * The fields mirror struct drm_tern_get_info (see <drm/tern_accel.h>),
 * plus what the library learns about the node.
 */
struct tern_device_info {
	char path[64];			/* device node, e.g. /dev/accel/accel0 */
	char pci_slot[32];		/* PCI address, e.g. 0000:00:03.0, or "" */
	char driver_name[32];		/* "tern" */
	char driver_desc[64];
	int driver_major, driver_minor, driver_patch;	/* DRM_IOCTL_VERSION */
	uint32_t hw_version;		/* major << 16 | minor */
	uint32_t driver_version;	/* uAPI version, major << 16 | minor */
	uint32_t caps;			/* TERN_CAP_* */
	uint32_t engine_count;
	uint32_t compute_engine_count;
	uint32_t engine_class[TERN_DEVICE_MAX_ENGINES];	/* enum tern_engine_class */
	uint32_t buf_size_max;		/* largest command buffer, bytes */
	uint32_t max_contexts;		/* per open device */
	uint32_t max_jobs_per_context;	/* unfinished jobs per context */
	uint32_t max_bos_per_submit;
	uint32_t max_syncs_per_submit;
	uint32_t tlb_entries;
	uint32_t default_timeout_ms;
	uint32_t max_timeout_ms;
	uint32_t va_bits;
	uint64_t local_mem_size;	/* bytes of device-local memory */
	uint64_t max_bo_size;
	uint64_t max_queued_bytes;	/* command-buffer bytes of unfinished
					 * jobs per open device */
};

/**
 * tern_device_count() - number of tern devices in the system
 *
 * Counts the /dev/accel/accelN nodes whose driver is tern.  Returns the
 * count (0 if none), never an error; tern_last_error() says why there is
 * none (no accel node at all, module not loaded, ...) when it returns 0.
 */
TERN_API int tern_device_count(void);

/**
 * tern_device_open() - open the Nth tern device
 * @index: 0 for the first tern device, 1 for the second, ... (in the order
 *	of their accel minor numbers; not necessarily /dev/accel/accel<index>
 *	when other accel drivers are loaded)
 * @devp: out: the device
 *
 * Errors: -ENOENT there is no such device (tern_last_error() tells whether
 * the tern module is loaded at all); -EACCES no permission to open the node;
 * -ENODEV the node is not a tern device; -ENOMEM.
 */
TERN_API int tern_device_open(unsigned int index, struct tern_device **devp);

/**
 * tern_device_open_path() - open a tern device by its node
 * @path: an accel node, e.g. "/dev/accel/accel0"
 * @devp: out: the device
 *
 * Errors as tern_device_open().
 */
TERN_API int tern_device_open_path(const char *path, struct tern_device **devp);

/**
 * tern_device_close() - close a device
 * @dev: the device, or NULL
 *
 * Every context, buffer and fence made from @dev must have been released
 * before.  Work still running on the device is not
 * waited for; the kernel cancels what has not started.
 */
TERN_API void tern_device_close(struct tern_device *dev);

/** tern_device_info() - the device's description (owned by @dev). */
TERN_API const struct tern_device_info *tern_device_info(const struct tern_device *dev);

/** tern_device_fd() - the device's file descriptor (owned by @dev). */
TERN_API int tern_device_fd(const struct tern_device *dev);

/**
 * tern_device_clock() - read the device clock
 * @dev: the device
 * @ns: out: nanoseconds since the device was reset, the clock of
 *	TIMESTAMP packets
 */
TERN_API int tern_device_clock(struct tern_device *dev, uint64_t *ns);

/* ------------------------------------------------------------------ */
/* Contexts                                                           */
/* ------------------------------------------------------------------ */

enum tern_priority {
	TERN_PRIORITY_LOW = 0,
	TERN_PRIORITY_NORMAL = 1,
	TERN_PRIORITY_HIGH = 2,		/* needs CAP_SYS_NICE (-EACCES) */
};

/**
 * struct tern_context_params - how to create a context
 * @priority: enum tern_priority
 * @engine_class: enum tern_engine_class; the context runs on one engine of
 *	that class for its whole life (tern_context_engine()): the one the
 *	driver picks (the engine of the class with the fewest contexts), or
 *	the one tern_context_create_on() names
 * @timeout_ms: hang timeout: a job making no progress this long is killed
 *	and the context banned; 0 for the device's default
 * @weight: share of device time against the other contexts of the same
 *	priority on the engine: contexts with work waiting get device time in
 *	proportion to their weights (weight 2 gets twice the time of weight
 *	1).  0 for TERN_WEIGHT_DEFAULT, at most TERN_WEIGHT_MAX; above
 *	TERN_WEIGHT_DEFAULT needs CAP_SYS_NICE.  The driver's ``fifo`` and
 *	``drmfair`` scheduling policies ignore it.
 *
 * Passing NULL to tern_context_create() means NORMAL priority, COMPUTE,
 * default timeout, default weight.  Zero-initialise the structure so that
 * fields added later keep their defaults.
 */
struct tern_context_params {
	uint32_t priority;
	uint32_t engine_class;
	uint32_t timeout_ms;
	uint32_t weight;
};

/** Weight of a context created with weight 0, and the largest weight. */
#define TERN_WEIGHT_DEFAULT	1
#define TERN_WEIGHT_MAX		64

/**
 * tern_context_create() - create a context: a queue of work for one engine
 * @dev: the device
 * @params: parameters, or NULL for the defaults
 * @ctxp: out: the context
 *
 * Errors: -EINVAL priority, class, timeout or weight out of range; -EACCES
 * HIGH priority or a weight above TERN_WEIGHT_DEFAULT without CAP_SYS_NICE
 * (lowering the priority needs nothing); -ENODEV no engine of that class, or the
 * device is gone; -EMFILE the device already has
 * &tern_device_info.max_contexts contexts open; -ENOMEM.
 */
TERN_API int tern_context_create(struct tern_device *dev,
				 const struct tern_context_params *params,
				 struct tern_context **ctxp);

/**
 * tern_context_create_on() - create a context on a chosen engine
 * @dev: the device
 * @params: parameters, or NULL for the defaults
 * @engine: the engine to run on: an index below
 *	&tern_device_info.engine_count whose &tern_device_info.engine_class
 *	entry is @params' engine class
 * @ctxp: out: the context
 *
 * Like tern_context_create(), on @engine rather than where the driver
 * places it (library version 1.1, driver interface 1.1).
 *
 * Errors: those of tern_context_create(), and -EINVAL for an engine the
 * device does not have or of another class.
 */
TERN_API int tern_context_create_on(struct tern_device *dev,
				    const struct tern_context_params *params,
				    uint32_t engine, struct tern_context **ctxp);

/**
 * tern_context_destroy() - destroy a context
 * @ctx: the context, or NULL
 *
 * Jobs that have not started are cancelled (their fences signal with
 * -ECANCELED); jobs already running finish.  Fences of the context stay
 * valid.  Returns 0, or -ENODEV if the device is gone; @ctx is freed
 * either way.
 */
TERN_API int tern_context_destroy(struct tern_context *ctx);

/** tern_context_engine() - the engine the driver placed @ctx on. */
TERN_API uint32_t tern_context_engine(const struct tern_context *ctx);

/** tern_context_handle() - the context's uAPI handle (for raw ioctls). */
TERN_API uint32_t tern_context_handle(const struct tern_context *ctx);

enum tern_context_state {
	TERN_CONTEXT_ACTIVE = 0,	/* usable, nothing happened */
	TERN_CONTEXT_RESET = 1,		/* usable; an innocent job was rerun */
	TERN_CONTEXT_FAULTED = 2,	/* a job faulted: no more work */
	TERN_CONTEXT_BANNED = 3,	/* a job hung: no more work */
};

enum tern_context_reason {
	TERN_REASON_NONE = 0,
	TERN_REASON_FAULT = 1,		/* the device reported a fault */
	TERN_REASON_HANG = 2,		/* no progress for the timeout */
	TERN_REASON_INNOCENT_RESET = 3,	/* engine reset for another context */
	TERN_REASON_DEVICE_LOST = 4,	/* device reset or unplugged */
};

/**
 * struct tern_context_status - what happened to a context
 *
 * Mirrors struct drm_tern_context_get_state.  @fault_kind is one of the
 * device's fault kinds (tern_fault_kind_name() names it), @fault_offset the
 * dword index of the faulting packet in its command buffer, @fault_seqno the
 * guilty job (tern_fence_seqno()).
 */
struct tern_context_status {
	uint32_t state;			/* enum tern_context_state */
	uint32_t reason;		/* enum tern_context_reason */
	uint32_t fault_kind;
	uint32_t fault_offset;
	uint64_t fault_addr;
	uint32_t fault_seqno;
	uint32_t reset_count;
	uint64_t jobs_submitted;
	uint64_t jobs_completed;
	uint64_t busy_ns;		/* device time the context's jobs ran */
	uint64_t preemptions;		/* times a running job of the context
					 * was preempted (it resumed later
					 * where it stopped) */
};

/**
 * tern_context_status() - query what happened to a context
 * @ctx: the context
 * @st: out: its status
 *
 * tern_last_error() is set to a description of a FAULTED, BANNED or RESET
 * state even though the call succeeds, so that a caller that got -EIO from
 * tern_submit() can print why.
 */
TERN_API int tern_context_status(struct tern_context *ctx,
				 struct tern_context_status *st);

/**
 * struct tern_context_paging - what the residency of a context's jobs cost
 * @bytes_in: bytes paged into device-local memory (or cleared there, for a
 *	buffer that held nothing yet) to make the TERN_BO_LOCAL buffers that
 *	the context's jobs use resident at their submission
 * @bytes_out: bytes paged out of local memory to make room for them
 * @evictions: buffers evicted from local memory to make room for them,
 *	whoever's buffers they were (another process's included)
 * @paging_ns: device time of those moves (the copy engine's paging jobs),
 *	in ns
 *
 * Mirrors the paging counters of struct drm_tern_context_get_state (driver
 * interface 1.7).  They count from the context's creation and only grow;
 * a buffer that was resident already costs nothing.  A separate structure,
 * so that struct tern_context_status keeps its size.
 */
struct tern_context_paging {
	uint64_t bytes_in;
	uint64_t bytes_out;
	uint64_t evictions;
	uint64_t paging_ns;
};

/**
 * tern_context_paging() - what making a context's buffers resident cost
 * @ctx: the context
 * @p: out: its paging counters
 *
 * From driver interface 1.7 on, every TERN_BO_LOCAL buffer a job uses is
 * made resident in device-local memory when the job is submitted: paged
 * in, evicting idle buffers (of any process) when local memory is full.
 * This call reads what that cost, for the jobs of @ctx.  Library version
 * 1.6.
 *
 * On failure *@p is zeroed.  Errors: -EINVAL @ctx or @p is NULL;
 * -EOPNOTSUPP the driver is older than interface 1.7 (it keeps
 * TERN_BO_LOCAL buffers resident from their allocation on and has no such
 * counters: the library does not report zeros it cannot know);
 * -ENOENT no such context; -ENODEV the device is gone.
 */
TERN_API int tern_context_paging(struct tern_context *ctx, struct tern_context_paging *p);

/** Names of states, reasons and fault kinds; never NULL. */
TERN_API const char *tern_context_state_name(uint32_t state);
TERN_API const char *tern_context_reason_name(uint32_t reason);
TERN_API const char *tern_fault_kind_name(uint32_t kind);

/* ------------------------------------------------------------------ */
/* Buffers                                                            */
/* ------------------------------------------------------------------ */

/** Flags of tern_bo_alloc(). */
#define TERN_BO_LOCAL			(1u << 0)	/* place in device-local memory */
#define TERN_BO_DEVICE_READ_ONLY	(1u << 1)	/* device writes fault */
#define TERN_BO_LOCAL_PREFERRED		(1u << 2)	/* local memory if it has room */

/**
 * tern_bo_alloc() - allocate a buffer the CPU and the device share
 * @dev: the device
 * @size: bytes, rounded up to the page size (4 KiB); at most
 *	&tern_device_info.max_bo_size
 * @flags: TERN_BO_* or 0.  TERN_BO_LOCAL places the buffer in device-local
 *	memory (driver interface 1.6): jobs run faster on it, the CPU reaches
 *	it through the device's BAR (write-combined: slow to read).  With
 *	interface 1.6 it stays there while it exists, because the library
 *	keeps it mapped; from interface 1.7 on it is resident while a job
 *	that uses it runs (made so at the job's submission, paging it in and
 *	evicting idle buffers as needed) and may be evicted to system memory
 *	while no unfinished job uses it (tern_context_paging() counts it).
 *	TERN_BO_LOCAL_PREFERRED (libtern 1.5) places it in local memory if it
 *	has room then, in system memory if not, and never fails for want of
 *	local memory.  TERN_BO_DEVICE_READ_ONLY maps the buffer read-only for
 *	the device (the CPU can still write it).
 * @bop: out: the buffer
 *
 * The buffer is zero-filled, mapped into the CPU (tern_bo_map()) and into
 * the device address space of @dev at an address the library chooses
 * (tern_bo_va()), with an unmapped guard page after it so that an overrun
 * by the device faults instead of touching another buffer.  The device
 * mapping is made before the call returns, after the binds of
 * tern_vm_bind() queued before it ran.
 *
 * Errors: -EINVAL size 0 or unknown flags; -E2BIG size above max_bo_size,
 * or TERN_BO_LOCAL and above the local memory's size; -EINVAL
 * TERN_BO_LOCAL with TERN_BO_LOCAL_PREFERRED, or TERN_BO_LOCAL_PREFERRED
 * on a driver before 1.6; -EOPNOTSUPP
 * TERN_BO_LOCAL on a device without local memory or a driver before 1.6;
 * -ENOSPC no room left in the device address space, or TERN_BO_LOCAL and
 * local memory full of other buffers (interface 1.6 only: from 1.7 on the
 * buffer is then placed in system memory until a job uses it); -ENOMEM;
 * -ENODEV the device is gone.
 */
TERN_API int tern_bo_alloc(struct tern_device *dev, uint64_t size,
			   uint32_t flags, struct tern_bo **bop);

/**
 * tern_bo_free() - unmap and release a buffer
 * @bo: the buffer, or NULL
 *
 * The device address range is unbound and given back to the allocator.
 * Unbinding waits until every job submitted before on @bo's device has
 * finished (the kernel guarantees the device never touches freed memory),
 * and the binds of tern_vm_bind() queued before it ran, so freeing can
 * block; free buffers after waiting for their jobs.  Mappings of @bo that
 * tern_vm_bind() made stay, and keep its memory, until a bind unmaps them
 * or the device is closed, but jobs no longer find @bo there: unmap them
 * first.
 */
TERN_API void tern_bo_free(struct tern_bo *bo);

/** tern_bo_map() - CPU pointer to the buffer's first byte (owned by @bo). */
TERN_API void *tern_bo_map(const struct tern_bo *bo);

/**
 * tern_bo_va() - device virtual address of the buffer
 *
 * Packets address memory with these; byte @off of the buffer is at
 * tern_bo_va(bo) + off.
 */
TERN_API uint64_t tern_bo_va(const struct tern_bo *bo);

/** tern_bo_size() - size of the buffer in bytes (after rounding). */
TERN_API uint64_t tern_bo_size(const struct tern_bo *bo);

/** tern_bo_handle() - the GEM handle of the buffer (for raw ioctls). */
TERN_API uint32_t tern_bo_handle(const struct tern_bo *bo);

/**
 * tern_bo_export() - export a buffer as a dma-buf file descriptor
 * @bo: the buffer
 * @fd: out: the dma-buf; the caller owns it and closes it
 */
TERN_API int tern_bo_export(struct tern_bo *bo, int *fd);

/**
 * tern_bo_import() - import a dma-buf exported by tern_bo_export()
 * @dev: the device to import into (may be another open of the same device)
 * @fd: the dma-buf; it stays owned by the caller
 * @bop: out: the buffer, mapped into @dev's address space like
 *	tern_bo_alloc()'s
 *
 * Errors: -EBADF/-EINVAL @fd is not a dma-buf the device can use; -EEXIST
 * the buffer is already allocated on or imported into @dev (a device has
 * one GEM handle per buffer: use the existing struct tern_bo); others as
 * tern_bo_alloc().
 */
TERN_API int tern_bo_import(struct tern_device *dev, int fd, struct tern_bo **bop);

/* ------------------------------------------------------------------ */
/* Command buffers                                                    */
/* ------------------------------------------------------------------ */

/** Default size limit of a command buffer (tern_cmdbuf_create() @max_bytes 0). */
#define TERN_CMDBUF_DEFAULT_MAX	(1u << 20)

enum tern_reduction {
	TERN_REDUCTION_SUM = 0,
	TERN_REDUCTION_MIN = 1,
	TERN_REDUCTION_MAX = 2,
};

/**
 * tern_cmdbuf_create() - create an empty command buffer
 * @max_bytes: the most the buffer may grow to; 0 for
 *	TERN_CMDBUF_DEFAULT_MAX.  Pass tern_device_info(dev)->buf_size_max to
 *	find at build time what tern_submit() would refuse.
 * @cbp: out: the command buffer
 *
 * A command buffer is a growing array of packets in the format of
 * <drm/tern_accel.h>.  It is plain memory, not tied to a device: it can be
 * submitted to any context, any number of times.  It remembers the address
 * ranges its packets use, so tern_submit() can tell the kernel which
 * buffers the job needs.
 *
 * Errors: -EINVAL @max_bytes not a multiple of 4; -ENOMEM.
 */
TERN_API int tern_cmdbuf_create(size_t max_bytes, struct tern_cmdbuf **cbp);

/** tern_cmdbuf_free() - free a command buffer (NULL is ignored). */
TERN_API void tern_cmdbuf_free(struct tern_cmdbuf *cb);

/** tern_cmdbuf_reset() - empty a command buffer, keeping its memory. */
TERN_API void tern_cmdbuf_reset(struct tern_cmdbuf *cb);

/**
 * tern_cmdbuf_data() - the packets built so far
 * @cb: the command buffer
 * @dwords: out, may be NULL: their length in dwords
 *
 * Returns a pointer owned by @cb, valid until the next change to it.
 */
TERN_API const uint32_t *tern_cmdbuf_data(const struct tern_cmdbuf *cb, size_t *dwords);

/*
 * Packet builders.  Each appends one packet, or fails and leaves the buffer
 * unchanged.  Addresses are device virtual addresses (tern_bo_va() + offset).
 * The builders check what the device would refuse, so that a bad operand
 * is reported here with its reason instead of as -EINVAL at submit or a
 * fault on the device:
 *   -EINVAL: an operand out of the device's range (count 0 or above the
 *            vector limit, GEMM dimension 0 or above 4096, misaligned
 *            address, size not a multiple of 4, timeout 0 or above 10 s,
 *            unknown reduction, ranges that must not overlap do);
 *   -E2BIG:  the packet does not fit in the buffer's size limit;
 *   -ENOMEM: growing the buffer failed.
 */
TERN_API int tern_cmd_nop(struct tern_cmdbuf *cb, uint32_t dwords);
/** 32-bit @value to @va (4-byte aligned). */
TERN_API int tern_cmd_write_imm(struct tern_cmdbuf *cb, uint64_t va, uint32_t value);
/** After every earlier write is visible, @seqno to @va (4-byte aligned). */
TERN_API int tern_cmd_fence(struct tern_cmdbuf *cb, uint64_t va, uint32_t seqno);
/** The device clock in ns (u64) to @va (8-byte aligned). */
TERN_API int tern_cmd_timestamp(struct tern_cmdbuf *cb, uint64_t va);
/** Copy @size bytes from @src to @dst; the ranges must not overlap. */
TERN_API int tern_cmd_copy(struct tern_cmdbuf *cb, uint64_t dst, uint64_t src, uint32_t size);
/** Fill @size bytes (multiple of 4) at @dst (4-byte aligned) with @value. */
TERN_API int tern_cmd_fill(struct tern_cmdbuf *cb, uint64_t dst, uint32_t size, uint32_t value);
/** Keep the engine busy for @duration_us device microseconds. */
TERN_API int tern_cmd_spin(struct tern_cmdbuf *cb, uint32_t duration_us);
/** Wait until the u32 at @va is >= @value; fault after @timeout_us. */
TERN_API int tern_cmd_wait_mem(struct tern_cmdbuf *cb, uint64_t va, uint32_t value,
			       uint32_t timeout_us);
/** f32 c[i] = a[i] + b[i] for @count elements (c may equal a or b). */
TERN_API int tern_cmd_vecadd(struct tern_cmdbuf *cb, uint64_t c, uint64_t a, uint64_t b,
			     uint32_t count);
/** f32 y[i] = @alpha * x[i] + y[i] for @count elements. */
TERN_API int tern_cmd_saxpy(struct tern_cmdbuf *cb, uint64_t y, uint64_t x, float alpha,
			    uint32_t count);
/**
 * f32 C = A x B, row-major, A @m x @k, B @k x @n, C @m x @n; C must not
 * overlap A or B.  Bit-exact with a CPU loop summing p = 0..k-1 in order.
 */
TERN_API int tern_cmd_gemm(struct tern_cmdbuf *cb, uint64_t c, uint64_t a, uint64_t b,
			   uint32_t m, uint32_t n, uint32_t k);
/** f32 reduction (enum tern_reduction) of @count elements at @src to @dst. */
TERN_API int tern_cmd_reduce(struct tern_cmdbuf *cb, uint64_t dst, uint64_t src,
			     uint32_t count, uint32_t op);

/**
 * tern_cmd_raw() - append dwords as they are, unchecked
 * @cb: the command buffer
 * @dw: the dwords, in CPU byte order (converted to little-endian)
 * @count: how many
 *
 * For packets this library does not know yet and for testing the driver's
 * validator.  Addresses inside raw dwords are not tracked: the buffers they
 * use are not added to the job's buffer list (mapped buffers stay valid
 * while mapped, but importers of a shared buffer cannot wait for the job).
 * Errors: -E2BIG, -ENOMEM as the packet builders.
 */
TERN_API int tern_cmd_raw(struct tern_cmdbuf *cb, const uint32_t *dw, size_t count);

/* ------------------------------------------------------------------ */
/* Submission and fences                                              */
/* ------------------------------------------------------------------ */

/**
 * tern_submit() - run a command buffer on a context
 * @ctx: the context
 * @cb: the command buffer; it is copied by the kernel, so it may be changed
 *	or freed as soon as the call returns
 * @deps: fences the job must wait for before it starts (from the same
 *	struct tern_device, or imported with tern_fence_import_sync_file()),
 *	or NULL
 * @dep_count: entries of @deps
 * @fencep: out, may be NULL: the job's fence
 *
 * The buffers the job uses are found from the addresses in @cb's packets:
 * each address range must lie inside one buffer allocated from (or
 * imported into) @ctx's device, or inside one mapping of tern_vm_bind()
 * on it.  Returns once the job is queued.
 *
 * Errors: those of DRM_IOCTL_TERN_SUBMIT, each with a tern_last_error()
 * naming the refused packet where the kernel gives one: -EINVAL a bad
 * operand or too many buffers or fences; -E2BIG the buffer is larger than
 * buf_size_max; -EPERM a privileged packet; -ENOEXEC an unknown opcode;
 * -EBADMSG a malformed packet header; -EIO the context is faulted or
 * banned (tern_context_status() says why); -EAGAIN the context already has
 * max_jobs_per_context unfinished jobs, or the device's unfinished jobs
 * hold max_queued_bytes of command buffers (wait for a fence and retry);
 * -ENODEV the device is gone; -EINTR; -ENOMEM.  From driver interface 1.7
 * on, where the TERN_BO_LOCAL buffers a job uses are made resident at its
 * submission (nothing is queued when that fails): -ENOSPC those buffers
 * together are larger than local memory; -EAGAIN local memory stayed held
 * by buffers that unfinished jobs use (or that are pinned) for a second of
 * retries: wait for a fence and retry; -EBUSY such a buffer is held in
 * system memory by another device's dma-buf attachment, or is mapped in an
 * address space that failed a change (tern_vm_state()).  Found by the
 * library before the ioctl: -EFAULT an address range is in no buffer of the
 * device; -EINVAL @cb is empty, a dependency is a fence of another open
 * device, or there are more than max_syncs_per_submit dependencies or
 * max_bos_per_submit buffers; -E2BIG @cb is above buf_size_max; -ENOEXEC a
 * compute packet for a copy-engine context.  From driver interface 1.8 on,
 * where a job's fence gets its syncobj only when asked for (docs of
 * tern_fence_syncobj()): -ENOMEM, or another errno of
 * DRM_IOCTL_TERN_JOB_FENCE, the kernel could not take an earlier job's
 * fence that this submission would otherwise let be forgotten (nothing is
 * queued; retry).
 */
TERN_API int tern_submit(struct tern_context *ctx, const struct tern_cmdbuf *cb,
			 struct tern_fence *const *deps, unsigned int dep_count,
			 struct tern_fence **fencep);

/**
 * tern_submit_many() - run several command buffers on a context with one
 *	system call
 * @ctx: the context
 * @cbs: @count command buffers, queued in this order; copied by the kernel
 *	as for tern_submit()
 * @count: entries of @cbs (any number: the library issues one
 *	DRM_IOCTL_TERN_SUBMIT_MANY per 256, or per 64 when it returns fences
 *	on a driver of interface 1.8 or later)
 * @fences: out, may be NULL: @count fences, @fences[i] the fence of @cbs[i],
 *	NULL for a job not queued
 * @submitted: out, may be NULL: how many jobs were queued, from the first
 *
 * The same as calling tern_submit() for each entry in order, without
 * dependencies, stopping at the first that fails; the jobs before it stay
 * queued.  With a driver older than interface 1.3 it does exactly that.
 * Library version 1.2.
 *
 * Errors: 0 when all @count were queued; else the error of job *@submitted,
 * as tern_submit() reports it, with tern_last_error() naming the job (for
 * -EAGAIN: wait for a fence, then queue the rest).
 */
TERN_API int tern_submit_many(struct tern_context *ctx, const struct tern_cmdbuf *const *cbs,
			      unsigned int count, struct tern_fence **fences,
			      unsigned int *submitted);

/**
 * tern_fence_wait() - wait for a job to finish
 * @fence: the fence
 * @timeout_ns: how long to wait at most, in ns; negative waits forever, 0
 *	only checks
 *
 * Returns 0 when the job completed; -ETIME when @timeout_ns passed first;
 * or the job's error: -EIO it faulted, -ETIMEDOUT it hung, -ECANCELED it
 * was cancelled before it started, -ENODEV the device went away.  The
 * fence of a bind gives the bind's outcome (tern_vm_bind()).
 */
TERN_API int tern_fence_wait(struct tern_fence *fence, int64_t timeout_ns);

/**
 * tern_fence_wait_all() - wait for several jobs of one device
 * @fences: the fences (all from the same struct tern_device)
 * @count: how many
 * @timeout_ns: as tern_fence_wait()
 *
 * Returns 0 when all completed, -ETIME on timeout, or the error of the first
 * fence (in array order) whose job failed.
 */
TERN_API int tern_fence_wait_all(struct tern_fence *const *fences, unsigned int count,
				 int64_t timeout_ns);

/**
 * tern_fence_status() - has the job finished?
 *
 * Returns 0 if it completed, -EBUSY if it has not finished, or its error
 * as tern_fence_wait().
 */
TERN_API int tern_fence_status(struct tern_fence *fence);

/**
 * tern_fence_seqno() - the job's number in its context (1, 2, ...)
 *
 * For the fence of a bind (tern_vm_bind()), the bind's number in the
 * device's address space, its low 32 bits.
 */
TERN_API uint32_t tern_fence_seqno(const struct tern_fence *fence);

/**
 * tern_fence_syncobj() - the drm_syncobj handle holding the fence
 *
 * The handle is valid until tern_fence_free(), which destroys it.  A job's
 * fence gets its syncobj when this (or tern_fence_export_sync_file(), or
 * its use as a dependency) first asks for it (driver interface 1.8): the
 * library reads the job's outcome from memory otherwise.  Returns 0, with
 * the thread's error set, if the kernel could not put the fence into the
 * syncobj then (out of memory, the device is gone).
 */
TERN_API uint32_t tern_fence_syncobj(const struct tern_fence *fence);

/**
 * tern_fence_export_sync_file() - the fence as a sync_file
 * @fence: the fence
 * @fd: out: a sync_file descriptor owned by the caller.  poll() reports it
 *	readable (POLLIN) once the job finished, so it fits any event loop;
 *	other drivers and processes can wait on it or import it.
 *
 * Errors: as tern_fence_syncobj() fails, or the export fails (-EMFILE).
 */
TERN_API int tern_fence_export_sync_file(struct tern_fence *fence, int *fd);

/**
 * tern_fence_import_sync_file() - a fence from a sync_file
 * @dev: the device whose submissions will depend on it
 * @fd: the sync_file; it stays owned by the caller
 * @fencep: out: a fence usable in @deps of tern_submit() on @dev; its
 *	seqno is 0
 */
TERN_API int tern_fence_import_sync_file(struct tern_device *dev, int fd,
					 struct tern_fence **fencep);

/** tern_fence_free() - release a fence (the job is not affected). */
TERN_API void tern_fence_free(struct tern_fence *fence);

/* ------------------------------------------------------------------ */
/* Timelines                                                          */
/* ------------------------------------------------------------------ */

/*
 * A timeline is a timeline drm_syncobj: a sequence of points 1, 2, 3, ...
 * that signal in order.  A job can wait for a point before it starts and
 * signal a point when it finishes (tern_submit_deps()); the CPU can do both
 * too (tern_timeline_wait(), tern_timeline_signal()).  One timeline object
 * replaces a fence per job when a pipeline of jobs, across contexts,
 * devices or processes, hands work down a chain of numbered steps.
 *
 * A point tells when, not whether: it signals when the job that signals it
 * finishes, whatever its outcome.  The job's own fence (tern_submit_deps()
 * @fencep) carries its error.  Points must be signalled in increasing order:
 * signalling a point at or below one already submitted is refused.
 */

/**
 * struct tern_timeline_point - a point of a timeline
 * @timeline: the timeline
 * @point: the point, 1 or more
 */
struct tern_timeline_point {
	struct tern_timeline *timeline;
	uint64_t point;
};

/**
 * tern_timeline_create() - create a timeline on a device
 * @dev: the device whose submissions will use it
 * @tlp: out: the timeline, with no point signalled (tern_timeline_query()
 *	gives 0)
 */
TERN_API int tern_timeline_create(struct tern_device *dev, struct tern_timeline **tlp);

/** tern_timeline_free() - release a timeline (NULL is ignored); jobs are not affected. */
TERN_API void tern_timeline_free(struct tern_timeline *tl);

/** tern_timeline_syncobj() - the timeline drm_syncobj handle (for raw ioctls). */
TERN_API uint32_t tern_timeline_syncobj(const struct tern_timeline *tl);

/**
 * tern_timeline_query() - the last signalled point
 * @tl: the timeline
 * @point: out: the highest point that has signalled (0 if none)
 * @submitted: out, may be NULL: the highest point anything was submitted
 *	to signal (signalled or not)
 */
TERN_API int tern_timeline_query(struct tern_timeline *tl, uint64_t *point,
				 uint64_t *submitted);

/**
 * tern_timeline_wait() - wait for a point from the CPU
 * @tl: the timeline
 * @point: the point, 1 or more
 * @timeout_ns: as tern_fence_wait(); the wait also covers the time until
 *	something is submitted to signal @point
 *
 * Returns 0 once @point signalled, -ETIME when @timeout_ns passed first,
 * -EINVAL for point 0.
 */
TERN_API int tern_timeline_wait(struct tern_timeline *tl, uint64_t point, int64_t timeout_ns);

/**
 * tern_timeline_signal() - signal a point from the CPU
 * @tl: the timeline
 * @point: the point; it must be above every point already submitted
 *
 * Jobs waiting for @point (or a lower point not yet signalled) may start.
 * Errors: -EINVAL @point is 0, or not above the last submitted point (the
 * message gives it).
 */
TERN_API int tern_timeline_signal(struct tern_timeline *tl, uint64_t point);

/**
 * tern_timeline_point_fence() - a fence for one point
 * @tl: the timeline
 * @point: the point; something must have been submitted to signal it
 * @fencep: out: a fence that signals with @point, usable in
 *	&tern_deps.fences, tern_fence_wait() and tern_fence_export_sync_file()
 *	(to hand the point to a driver or a process that knows only sync_files).
 *	Its seqno is 0, and it carries no job error (see above).
 *
 * Errors: -EINVAL point 0; -ENOENT nothing was submitted for @point yet.
 */
TERN_API int tern_timeline_point_fence(struct tern_timeline *tl, uint64_t point,
				       struct tern_fence **fencep);

/**
 * tern_timeline_import_sync_file() - make a sync_file signal a point
 * @tl: the timeline
 * @point: the point, above every point already submitted
 * @fd: the sync_file; it stays owned by the caller
 *
 * @point signals when the sync_file's fence does.
 * Errors: -EINVAL as tern_timeline_signal(), or @fd is not a sync_file.
 */
TERN_API int tern_timeline_import_sync_file(struct tern_timeline *tl, uint64_t point, int fd);

/**
 * tern_timeline_export() - share the whole timeline with another process
 * @tl: the timeline
 * @fd: out: a file descriptor of the syncobj, owned by the caller (pass it
 *	over a UNIX socket); tern_timeline_import() opens it
 */
TERN_API int tern_timeline_export(struct tern_timeline *tl, int *fd);

/**
 * tern_timeline_import() - open a timeline exported by tern_timeline_export()
 * @dev: the device (any open of the same DRM device)
 * @fd: the descriptor; it stays owned by the caller
 * @tlp: out: the timeline; its points are those of the exporter's
 *
 * Errors: -EINVAL/-EBADF @fd is not a syncobj file of this device.
 */
TERN_API int tern_timeline_import(struct tern_device *dev, int fd, struct tern_timeline **tlp);

/**
 * struct tern_deps - what a job waits for and what it signals
 * @fences: fences to wait for, as the @deps of tern_submit()
 * @fence_count: entries of @fences
 * @waits: timeline points to wait for: the job starts after all signalled
 * @wait_count: entries of @waits
 * @signals: timeline points the job signals when it finishes
 * @signal_count: entries of @signals
 *
 * Every timeline and fence must belong to the submitting context's struct
 * tern_device.  @fence_count + @wait_count, and @signal_count + 1 (the
 * job's own fence), are each at most &tern_device_info.max_syncs_per_submit.
 */
struct tern_deps {
	struct tern_fence *const *fences;
	unsigned int fence_count;
	const struct tern_timeline_point *waits;
	unsigned int wait_count;
	const struct tern_timeline_point *signals;
	unsigned int signal_count;
};

/**
 * tern_submit_deps() - tern_submit() with timeline points
 * @ctx: the context
 * @cb: the command buffer
 * @deps: what the job waits for and signals, or NULL for nothing
 * @fencep: out, may be NULL: the job's fence
 *
 * As tern_submit(), plus: -EINVAL a point is 0, a timeline is NULL or of
 * another open device, a signalled point is not above the last point
 * submitted on its timeline, or there are too many syncs; -ENOENT a
 * waited-for point has nothing submitted to signal it yet (the kernel
 * would not wait for it to appear: submit its signaller first, or wait on
 * the CPU with tern_timeline_wait()).  The checks are made before the
 * ioctl; a point submitted or signalled concurrently by another thread or
 * process between them and the ioctl is the caller's race.
 */
TERN_API int tern_submit_deps(struct tern_context *ctx, const struct tern_cmdbuf *cb,
			      const struct tern_deps *deps, struct tern_fence **fencep);

/* ------------------------------------------------------------------ */
/* Device addresses of your own: reservations and asynchronous binds  */
/* ------------------------------------------------------------------ */

/*
 * tern_bo_alloc() chooses a buffer's device address and binds it before it
 * returns.  A program that manages its own device addresses (one large
 * range holding many buffers, buffers recycled while jobs run, the same
 * buffer at several addresses) reserves ranges with tern_va_reserve() and
 * changes what is mapped in them with tern_vm_bind(): a *bind* of up to
 * TERN_BIND_MAX_OPS map and unmap operations, queued at once and run by
 * the kernel later, after the fences and timeline points it waits for
 * (struct tern_deps, as for a job).  Its fence tells when it ran: jobs
 * that use what it maps take it as a dependency.  The binds of a device
 * run one at a time, in the order they were queued (library version 1.3,
 * driver interface 1.4).
 *
 * Jobs find the buffers behind the addresses they use in the mappings of
 * tern_vm_bind() too: an address range of a packet must lie inside one
 * buffer of tern_bo_alloc() or inside one mapping.  The library's view of
 * the mappings is the address space as the binds queued leave it: a
 * mapping counts from its bind's queuing, and an unmapped range stops
 * counting then.  When the kernel fails a bind because a fence it waited
 * for failed, it cancels the binds queued after it (-ECANCELED) and leaves
 * the address space as the binds before them made it; the library's view
 * follows at the next tern_vm_state() or tern_va_release() (for every
 * bind whose fence signalled), or tern_vm_bind() (for the binds the
 * kernel counts done).
 *
 * tern_bo_alloc(), tern_bo_import() and tern_bo_free() bind synchronously:
 * they wait until the binds queued before them ran.
 */

/**
 * tern_va_reserve() - reserve a range of device addresses
 * @dev: the device
 * @size: bytes, rounded up to the page size (4 KiB)
 * @align: alignment of the range: a power of two; 0 or less than a page
 *	for a page
 * @va: out: the first address of the range
 *
 * The range comes from the allocator tern_bo_alloc() takes its addresses
 * from, so the two never overlap; like a buffer, it is followed by an
 * unmapped guard page.  Nothing is mapped in it until tern_vm_bind() maps
 * it.  Library version 1.3.
 *
 * Errors: -EINVAL @size 0 or @align not a power of two; -ENOSPC no room
 * left in the device address space; -ENOMEM.
 */
TERN_API int tern_va_reserve(struct tern_device *dev, uint64_t size, uint64_t align,
			     uint64_t *va);

/**
 * tern_va_release() - give a range of tern_va_reserve() back
 * @dev: the device
 * @va: the range's first address, as tern_va_reserve() gave it
 * @size: its size, as given to tern_va_reserve()
 *
 * The range must be empty: every mapping in it unmapped by a bind that is
 * done (wait for the unmap's fence).  tern_bo_alloc() may then place
 * buffers there.  Library version 1.3.
 *
 * Errors: -EINVAL not a range tern_va_reserve() gave; -EBUSY a mapping is
 * still there, or a bind of the range is not done yet.
 */
TERN_API int tern_va_release(struct tern_device *dev, uint64_t va, uint64_t size);

/** Operations of struct tern_bind_op. */
enum tern_bind_opcode {
	TERN_BIND_MAP = 0,		/* map a range of a buffer */
	TERN_BIND_UNMAP = 1,		/* remove the mappings in a range */
};

/** Flags of struct tern_bind_op: a read-only map (device writes fault). */
#define TERN_BIND_READ_ONLY	(1u << 0)

/**
 * TERN_BIND_REPLACE - flag of a map: replace what is mapped in its range
 *
 * The map first removes what is mapped in [@va, @va + @range), as an unmap
 * of that range with TERN_BIND_CUT does (cutting the mappings that cross
 * its ends: a map that replaces always cuts, it takes no TERN_BIND_CUT),
 * then maps the buffer there, in one step: no job sees the range empty in
 * between.  The range need not hold anything.  Like an unmap, it waits for
 * the jobs whose packets use the buffers it removes.  Without it, a map
 * over a mapping fails with -EEXIST.  Library version 1.4, driver
 * interface 1.5 (an older driver: -EOPNOTSUPP); not for an unmap
 * (-EINVAL).
 */
#define TERN_BIND_REPLACE	(1u << 1)

/**
 * TERN_BIND_CUT - flag of an unmap: cut the mappings that cross its ends
 *
 * Without it, an unmap removes whole mappings: every mapping that meets
 * [@va, @va + @range) must lie inside it, else the kernel refuses the bind
 * with -EINVAL and nothing changes (as drivers before interface 1.5 did
 * with every such unmap: programs written for them may rely on it).  With
 * it, a mapping that crosses an end of the range is cut there: its part
 * outside stays mapped, as a mapping of its own (same buffer and offsets,
 * same flags), so that a mapping cut in the middle becomes two; mappings
 * inside the range go as without it.  Either way the range must hold at
 * least one mapped page (-ENOENT).  Library version 1.4, driver interface
 * 1.5 (an older driver: -EOPNOTSUPP); not for a map (-EINVAL).
 */
#define TERN_BIND_CUT		(1u << 2)

/** Most operations of one tern_vm_bind(). */
#define TERN_BIND_MAX_OPS	64

/**
 * struct tern_bind_op - one operation of a bind
 * @op: enum tern_bind_opcode
 * @flags: for a map, TERN_BIND_READ_ONLY, TERN_BIND_REPLACE, both or 0;
 *	for an unmap, TERN_BIND_CUT or 0
 * @bo: a map's buffer, of the same device; NULL for an unmap
 * @bo_offset: a map's offset in @bo of the first byte mapped; 0 for an unmap
 * @va: first address of the range
 * @range: bytes
 *
 * @va, @bo_offset and @range are multiples of the page size (4 KiB), and
 * [@va, @va + @range) lies inside one range of tern_va_reserve().  A map
 * needs [@bo_offset, @bo_offset + @range) inside @bo, and the range free
 * (as the binds queued before leave it) unless it has TERN_BIND_REPLACE.
 * An unmap removes the mappings in the range, which must hold at least
 * one mapped page.  Without TERN_BIND_CUT they must lie inside it: an
 * unmap that would cut a mapping is refused (-EINVAL); with it, a mapping
 * that crosses an end of the range is cut there and its part outside
 * stays mapped (see TERN_BIND_CUT).
 */
struct tern_bind_op {
	uint32_t op;
	uint32_t flags;
	struct tern_bo *bo;
	uint64_t bo_offset;
	uint64_t va;
	uint64_t range;
};

/**
 * tern_vm_bind() - change the device address space: map and unmap ranges
 * @dev: the device
 * @ops: the operations, run in this order, as one bind
 * @count: entries of @ops, 1 to TERN_BIND_MAX_OPS
 * @deps: what the bind waits for before it runs (fences, timeline points)
 *	and the timeline points it signals once it ran, as for
 *	tern_submit_deps(); or NULL.  @signal_count + 2 are at most
 *	&tern_device_info.max_syncs_per_submit (the bind's fences).
 * @fencep: out: the bind's fence; NULL to wait for the bind
 *
 * With @fencep, returns once the bind is queued; the fence signals once it
 * ran: the mappings it made can be used, and after an unmap the device no
 * longer reaches the range.  It is a fence like a job's: tern_fence_wait(),
 * tern_fence_status(), tern_fence_export_sync_file(), and a dependency of
 * jobs (&tern_deps.fences) and of other binds; tern_fence_seqno() gives
 * the bind's number in the address space (1, 2, ..., binds of
 * tern_bo_alloc() and tern_bo_free() counted too).  Its error, if the bind
 * did not run: that of a fence it waited for (-EIO a job faulted, ...),
 * -ECANCELED a bind queued before it failed, -EIO the device failed to
 * make it (then the address space takes no more changes), -ENODEV the
 * device is gone.  Without @fencep, returns once the bind ran, with that
 * result.
 *
 * The bind runs after the binds queued before it and once everything in
 * @deps signalled.  Jobs that use a mapping wait for the bind's fence (or
 * a point it signals).  An unmap, and a map with TERN_BIND_REPLACE, waits
 * for the jobs submitted before it whose command buffers use the buffers
 * it unmaps (the library lists them for the kernel), not for the device's
 * other jobs; a job submitted after it may fault on the range once it
 * ran.  If a fence the bind waits
 * for fails, the bind fails with its error and the binds queued after it
 * are cancelled; the address space is left as the binds before them made
 * it.  tern_vm_state() counts failures.
 *
 * Errors, found before the ioctl, nothing queued: -EINVAL @count 0 or
 * above TERN_BIND_MAX_OPS, an unknown op, a flag the operation does not
 * take (TERN_BIND_CUT on a map, TERN_BIND_REPLACE on an unmap, ...), a map
 * without a buffer or with a buffer of another open device, an unmap with
 * a buffer or an offset, an address, offset or size not a multiple of the
 * page size or 0, a map beyond its buffer, or @deps as tern_submit_deps()
 * refuses them;
 * -ERANGE an operation's range is not inside one range of
 * tern_va_reserve(); -ENOENT a timeline point waited for has nothing
 * submitted to signal it yet; -EOPNOTSUPP the driver is older than
 * interface 1.4, or TERN_BIND_REPLACE or TERN_BIND_CUT with one older than
 * 1.5.  From the kernel, nothing queued, tern_last_error() naming the
 * operation: -EEXIST a map over a mapping (without TERN_BIND_REPLACE);
 * -ENOENT an unmap of a range with nothing mapped; -EINVAL an unmap that
 * would cut a mapping, without TERN_BIND_CUT; -ENOSPC the address space
 * would map more than it may: bytes, page tables, or mappings (the pieces
 * an unmap with TERN_BIND_CUT or a TERN_BIND_REPLACE map leaves count at
 * once, the mappings it removes until the jobs that may use them ended: at
 * the limit such a bind fails, an unmap of whole mappings does not); -EAGAIN
 * too many operations queued (wait for a bind's fence and retry); -EIO the
 * address space takes no more changes; -ENODEV; -ENOMEM.
 */
TERN_API int tern_vm_bind(struct tern_device *dev, const struct tern_bind_op *ops,
			  unsigned int count, const struct tern_deps *deps,
			  struct tern_fence **fencep);

/**
 * struct tern_vm_state - the state of a device's address space
 *
 * Mirrors struct drm_tern_vm_get_state.  @error is 0 while the address
 * space takes changes, -EIO once the device failed to make one (every
 * later bind fails), -ENODEV once the device is gone.  @queued and @done
 * are bind seqnos (tern_fence_seqno() of a bind's fence, in full): the
 * last bind queued, and the last done (ran, failed or cancelled; binds are
 * done in order).  @bind_error is the error of the last bind that failed
 * (a fence it waited for, or the device), 0 if none did, and
 * @bind_error_seqno that bind.  @binds_failed and @binds_cancelled count
 * them.  @mapped is the bytes mapped as the binds queued leave the address
 * space, buffers of tern_bo_alloc() included; @update_ns the device time
 * the address space's page-table updates took.
 */
struct tern_vm_state {
	int32_t error;
	int32_t bind_error;
	uint64_t bind_error_seqno;
	uint64_t queued;
	uint64_t done;
	uint64_t binds_failed;
	uint64_t binds_cancelled;
	uint64_t mapped;
	uint64_t update_ns;
};

/**
 * tern_vm_state() - query the state of the device's address space
 * @dev: the device
 * @st: out: the state
 *
 * Like tern_context_status(), sets tern_last_error() to a description of a
 * failure (the last bind that failed, or the address space's error) even
 * though the call succeeds.  Library version 1.3.
 *
 * Errors: -EOPNOTSUPP the driver is older than interface 1.4; -ENODEV.
 */
TERN_API int tern_vm_state(struct tern_device *dev, struct tern_vm_state *st);

#ifdef __cplusplus
}
#endif

#endif /* TERN_TERN_H */
