/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR MIT) */
/*
 * Copyright (c) 2026 The tern authors
 *
 * tern_accel.h - user-space interface of the tern compute accelerator.
 *
 * This header is the one definition of the tern command format: user space
 * builds packets with it, the driver validates them with it and the QEMU
 * device model executes them with it.  docs/hardware.md specifies what each
 * packet does; docs/uapi.md describes the ioctls.
 */
#ifndef _UAPI_TERN_ACCEL_H_
#define _UAPI_TERN_ACCEL_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * DOC: tern command format
 *
 * A command buffer is an array of little-endian 32-bit words (dwords) holding
 * packets back to back.  Every packet starts with a header dword:
 *
 *   bits  7:0   opcode (enum tern_opcode)
 *   bits 15:8   reserved, must be zero
 *   bits 31:16  length of the whole packet in dwords, header included
 *
 * Each opcode has one fixed length (TERN_PKT_DWORDS_*), except NOP, whose
 * length may be anything from 1 to 0xffff (padding).  64-bit operands are
 * split into a _lo and a _hi dword.  Addresses in packets are virtual
 * addresses in the address space of the context that submits the buffer.
 * Opcodes with bit 7 set are privileged: only the kernel driver may emit
 * them; the driver refuses them in user command buffers, and the device
 * faults them in a slot that is not flagged privileged.
 */

/* header encoding */
#define TERN_PKT_HEADER(op, dwords)	((__u32)(op) | ((__u32)(dwords) << 16))
#define TERN_PKT_OPCODE(hdr)		((hdr) & 0xff)
#define TERN_PKT_RESERVED(hdr)		(((hdr) >> 8) & 0xff)
#define TERN_PKT_LENGTH(hdr)		((hdr) >> 16)
#define TERN_PKT_PRIVILEGED		0x80

/**
 * enum tern_opcode - packet opcodes
 * @TERN_OP_NOP: do nothing; any length (padding).
 * @TERN_OP_WRITE_IMM: write a 32-bit value to a VA (struct tern_pkt_write_imm).
 * @TERN_OP_FENCE: after every earlier write of the buffer is visible, write a
 *	32-bit seqno to a VA (struct tern_pkt_fence).
 * @TERN_OP_TIMESTAMP: write the 64-bit device clock in ns to an 8-byte
 *	aligned VA (struct tern_pkt_timestamp).
 * @TERN_OP_COPY: copy bytes between VAs (struct tern_pkt_copy).
 * @TERN_OP_FILL: fill memory with a 32-bit pattern (struct tern_pkt_fill).
 * @TERN_OP_SPIN: stay busy for a number of device microseconds
 *	(struct tern_pkt_spin); for scheduler tests.
 * @TERN_OP_WAIT_MEM: wait until the u32 at a VA is >= a value, with a
 *	device-side timeout (struct tern_pkt_wait_mem).
 * @TERN_OP_VECADD: f32 c[i] = a[i] + b[i] (struct tern_pkt_vecadd).
 * @TERN_OP_SAXPY: f32 y[i] = alpha * x[i] + y[i] (struct tern_pkt_saxpy).
 * @TERN_OP_GEMM: f32 C = A x B, row-major (struct tern_pkt_gemm).
 * @TERN_OP_REDUCE: f32 reduction of a vector to one value
 *	(struct tern_pkt_reduce).
 * @TERN_OP_TLB_INVALIDATE: privileged: invalidate the engine's TLB
 *	(struct tern_pkt_tlb_invalidate).
 * @TERN_OP_PHYS_COPY: privileged: copy between bus addresses or device-local
 *	memory offsets, for paging (struct tern_pkt_phys_copy).
 */
enum tern_opcode {
	TERN_OP_NOP = 0x00,
	TERN_OP_WRITE_IMM = 0x01,
	TERN_OP_FENCE = 0x02,
	TERN_OP_TIMESTAMP = 0x03,
	TERN_OP_COPY = 0x04,
	TERN_OP_FILL = 0x05,
	TERN_OP_SPIN = 0x06,
	TERN_OP_WAIT_MEM = 0x07,
	TERN_OP_VECADD = 0x10,
	TERN_OP_SAXPY = 0x11,
	TERN_OP_GEMM = 0x12,
	TERN_OP_REDUCE = 0x13,
	TERN_OP_TLB_INVALIDATE = 0x80,
	TERN_OP_PHYS_COPY = 0x81,
};

/* packet lengths in dwords, header included */
#define TERN_PKT_DWORDS_WRITE_IMM	4
#define TERN_PKT_DWORDS_FENCE		4
#define TERN_PKT_DWORDS_TIMESTAMP	3
#define TERN_PKT_DWORDS_COPY		6
#define TERN_PKT_DWORDS_FILL		5
#define TERN_PKT_DWORDS_SPIN		2
#define TERN_PKT_DWORDS_WAIT_MEM	5
#define TERN_PKT_DWORDS_VECADD		8
#define TERN_PKT_DWORDS_SAXPY		7
#define TERN_PKT_DWORDS_GEMM		10
#define TERN_PKT_DWORDS_REDUCE		6
#define TERN_PKT_DWORDS_TLB_INVALIDATE	1
#define TERN_PKT_DWORDS_PHYS_COPY	7

/* operand limits the device enforces (TERN_FAULT_BAD_OPERAND otherwise) */
#define TERN_GEMM_DIM_MAX		4096
#define TERN_VECTOR_LEN_MAX		(1u << 26)
#define TERN_WAIT_TIMEOUT_MAX_US	10000000	/* 10 s */

/**
 * struct tern_pkt_write_imm - TERN_OP_WRITE_IMM
 * @header: TERN_PKT_HEADER(TERN_OP_WRITE_IMM, TERN_PKT_DWORDS_WRITE_IMM)
 * @va_lo: low half of the destination VA (4-byte aligned)
 * @va_hi: high half of the destination VA
 * @value: the value written
 */
struct tern_pkt_write_imm {
	__u32 header;
	__u32 va_lo;
	__u32 va_hi;
	__u32 value;
};

/**
 * struct tern_pkt_fence - TERN_OP_FENCE
 * @header: TERN_PKT_HEADER(TERN_OP_FENCE, TERN_PKT_DWORDS_FENCE)
 * @va_lo: low half of the destination VA (4-byte aligned)
 * @va_hi: high half of the destination VA
 * @seqno: the value written once all earlier writes are visible
 */
struct tern_pkt_fence {
	__u32 header;
	__u32 va_lo;
	__u32 va_hi;
	__u32 seqno;
};

/**
 * struct tern_pkt_timestamp - TERN_OP_TIMESTAMP
 * @header: TERN_PKT_HEADER(TERN_OP_TIMESTAMP, TERN_PKT_DWORDS_TIMESTAMP)
 * @va_lo: low half of the destination VA (8-byte aligned)
 * @va_hi: high half of the destination VA
 */
struct tern_pkt_timestamp {
	__u32 header;
	__u32 va_lo;
	__u32 va_hi;
};

/**
 * struct tern_pkt_copy - TERN_OP_COPY
 * @header: TERN_PKT_HEADER(TERN_OP_COPY, TERN_PKT_DWORDS_COPY)
 * @src_lo: low half of the source VA (any alignment)
 * @src_hi: high half of the source VA
 * @dst_lo: low half of the destination VA (any alignment)
 * @dst_hi: high half of the destination VA
 * @size: bytes to copy; the ranges must not overlap
 */
struct tern_pkt_copy {
	__u32 header;
	__u32 src_lo;
	__u32 src_hi;
	__u32 dst_lo;
	__u32 dst_hi;
	__u32 size;
};

/**
 * struct tern_pkt_fill - TERN_OP_FILL
 * @header: TERN_PKT_HEADER(TERN_OP_FILL, TERN_PKT_DWORDS_FILL)
 * @dst_lo: low half of the destination VA (4-byte aligned)
 * @dst_hi: high half of the destination VA
 * @size: bytes to fill, a multiple of 4
 * @value: the 32-bit pattern
 */
struct tern_pkt_fill {
	__u32 header;
	__u32 dst_lo;
	__u32 dst_hi;
	__u32 size;
	__u32 value;
};

/**
 * struct tern_pkt_spin - TERN_OP_SPIN
 * @header: TERN_PKT_HEADER(TERN_OP_SPIN, TERN_PKT_DWORDS_SPIN)
 * @duration_us: device microseconds to stay busy (before time scaling)
 */
struct tern_pkt_spin {
	__u32 header;
	__u32 duration_us;
};

/**
 * struct tern_pkt_wait_mem - TERN_OP_WAIT_MEM
 * @header: TERN_PKT_HEADER(TERN_OP_WAIT_MEM, TERN_PKT_DWORDS_WAIT_MEM)
 * @va_lo: low half of the VA of the u32 to watch (4-byte aligned)
 * @va_hi: high half of that VA
 * @value: wait until the u32 is >= @value (unsigned)
 * @timeout_us: device microseconds before the buffer faults with
 *	TERN_FAULT_WAIT_TIMEOUT; 1 to TERN_WAIT_TIMEOUT_MAX_US
 */
struct tern_pkt_wait_mem {
	__u32 header;
	__u32 va_lo;
	__u32 va_hi;
	__u32 value;
	__u32 timeout_us;
};

/**
 * struct tern_pkt_vecadd - TERN_OP_VECADD
 * @header: TERN_PKT_HEADER(TERN_OP_VECADD, TERN_PKT_DWORDS_VECADD)
 * @a_lo: low half of the VA of a[] (f32, 4-byte aligned)
 * @a_hi: high half
 * @b_lo: low half of the VA of b[]
 * @b_hi: high half
 * @c_lo: low half of the VA of c[] (may equal a or b)
 * @c_hi: high half
 * @count: number of elements, 1 to TERN_VECTOR_LEN_MAX
 */
struct tern_pkt_vecadd {
	__u32 header;
	__u32 a_lo;
	__u32 a_hi;
	__u32 b_lo;
	__u32 b_hi;
	__u32 c_lo;
	__u32 c_hi;
	__u32 count;
};

/**
 * struct tern_pkt_saxpy - TERN_OP_SAXPY
 * @header: TERN_PKT_HEADER(TERN_OP_SAXPY, TERN_PKT_DWORDS_SAXPY)
 * @x_lo: low half of the VA of x[] (f32, 4-byte aligned)
 * @x_hi: high half
 * @y_lo: low half of the VA of y[], read and written
 * @y_hi: high half
 * @count: number of elements, 1 to TERN_VECTOR_LEN_MAX
 * @alpha: the scalar, as the bits of an IEEE-754 binary32
 */
struct tern_pkt_saxpy {
	__u32 header;
	__u32 x_lo;
	__u32 x_hi;
	__u32 y_lo;
	__u32 y_hi;
	__u32 count;
	__u32 alpha;
};

/**
 * struct tern_pkt_gemm - TERN_OP_GEMM
 * @header: TERN_PKT_HEADER(TERN_OP_GEMM, TERN_PKT_DWORDS_GEMM)
 * @a_lo: low half of the VA of A, m x k f32 row-major
 * @a_hi: high half
 * @b_lo: low half of the VA of B, k x n f32 row-major
 * @b_hi: high half
 * @c_lo: low half of the VA of C, m x n f32 row-major; must not overlap A or B
 * @c_hi: high half
 * @m: rows of A and C, 1 to TERN_GEMM_DIM_MAX
 * @n: columns of B and C, 1 to TERN_GEMM_DIM_MAX
 * @k: columns of A and rows of B, 1 to TERN_GEMM_DIM_MAX
 *
 * Each element of C is the sum over p = 0..k-1, in that order, of
 * A[i][p] * B[p][j], accumulated in f32; results are bit-exact with a CPU
 * loop doing the same.  The device computes C a row at a time.
 */
struct tern_pkt_gemm {
	__u32 header;
	__u32 a_lo;
	__u32 a_hi;
	__u32 b_lo;
	__u32 b_hi;
	__u32 c_lo;
	__u32 c_hi;
	__u32 m;
	__u32 n;
	__u32 k;
};

/**
 * enum tern_reduce_op - reductions of TERN_OP_REDUCE
 * @TERN_REDUCE_SUM: sum, accumulated in f32 in index order
 * @TERN_REDUCE_MIN: minimum
 * @TERN_REDUCE_MAX: maximum
 */
enum tern_reduce_op {
	TERN_REDUCE_SUM = 0,
	TERN_REDUCE_MIN = 1,
	TERN_REDUCE_MAX = 2,
};

/**
 * struct tern_pkt_reduce - TERN_OP_REDUCE
 * @header: TERN_PKT_HEADER(TERN_OP_REDUCE, TERN_PKT_DWORDS_REDUCE)
 * @src_lo: low half of the VA of the f32 vector
 * @src_hi: high half
 * @dst_lo: low half of the VA of the f32 result
 * @dst_hi: high half
 * @count_op: bits 27:0 element count (1 to TERN_VECTOR_LEN_MAX), bits 31:28
 *	the enum tern_reduce_op
 */
struct tern_pkt_reduce {
	__u32 header;
	__u32 src_lo;
	__u32 src_hi;
	__u32 dst_lo;
	__u32 dst_hi;
	__u32 count_op;
};

#define TERN_REDUCE_COUNT_OP(count, op)	((__u32)(count) | ((__u32)(op) << 28))
#define TERN_REDUCE_COUNT(v)		((v) & 0x0fffffff)
#define TERN_REDUCE_OP(v)		((v) >> 28)

/**
 * struct tern_pkt_tlb_invalidate - TERN_OP_TLB_INVALIDATE (privileged)
 * @header: TERN_PKT_HEADER(TERN_OP_TLB_INVALIDATE, TERN_PKT_DWORDS_TLB_INVALIDATE)
 */
struct tern_pkt_tlb_invalidate {
	__u32 header;
};

#define TERN_PHYS_COPY_SRC_LOCAL	(1u << 0)
#define TERN_PHYS_COPY_DST_LOCAL	(1u << 1)

/**
 * struct tern_pkt_phys_copy - TERN_OP_PHYS_COPY (privileged)
 * @header: TERN_PKT_HEADER(TERN_OP_PHYS_COPY, TERN_PKT_DWORDS_PHYS_COPY)
 * @src_lo: low half of the source: a bus address, or an offset into
 *	device-local memory with TERN_PHYS_COPY_SRC_LOCAL
 * @src_hi: high half
 * @dst_lo: low half of the destination, likewise with TERN_PHYS_COPY_DST_LOCAL
 * @dst_hi: high half
 * @size: bytes to copy
 * @flags: TERN_PHYS_COPY_*
 */
struct tern_pkt_phys_copy {
	__u32 header;
	__u32 src_lo;
	__u32 src_hi;
	__u32 dst_lo;
	__u32 dst_hi;
	__u32 size;
	__u32 flags;
};

/*
 * ---- ioctls: device information, contexts, submission (driver core) ----
 */

/**
 * DOC: tern ioctls
 *
 * The ioctl numbers are fixed; each ioctl takes one struct whose fields
 * are all naturally aligned __u32/__u64.  Every flags and pad field must be
 * zero (-EINVAL otherwise), so that later versions can give them a meaning.
 * User pointers are passed as __u64.  On a device that was unplugged every
 * ioctl fails with -ENODEV.
 */
#define DRM_TERN_GET_INFO		0x00
#define DRM_TERN_BO_CREATE		0x01
#define DRM_TERN_BO_INFO		0x02
#define DRM_TERN_VM_BIND		0x03
#define DRM_TERN_CONTEXT_CREATE		0x04
#define DRM_TERN_CONTEXT_DESTROY	0x05
#define DRM_TERN_CONTEXT_GET_STATE	0x06
#define DRM_TERN_SUBMIT			0x07
#define DRM_TERN_WAIT			0x08
#define DRM_TERN_SUBMIT_MANY		0x09
#define DRM_TERN_VM_BIND_OPS		0x0a
#define DRM_TERN_VM_GET_STATE		0x0b
#define DRM_TERN_JOB_FENCE		0x0c

/** DRM_TERN_MAX_ENGINES - size of &drm_tern_get_info.engine_class */
#define DRM_TERN_MAX_ENGINES		8

/**
 * enum drm_tern_engine_class - kinds of engines
 * @DRM_TERN_ENGINE_CLASS_COMPUTE: a compute engine (all packets)
 * @DRM_TERN_ENGINE_CLASS_COPY: the copy engine
 */
enum drm_tern_engine_class {
	DRM_TERN_ENGINE_CLASS_COMPUTE = 0,
	DRM_TERN_ENGINE_CLASS_COPY = 1,
};

/** DRM_TERN_CAP_SINGLE_USE - the device has only one address space */
#define DRM_TERN_CAP_SINGLE_USE		(1u << 0)
/** DRM_TERN_CAP_FAULT_INJECT - the device has the fault-injection block */
#define DRM_TERN_CAP_FAULT_INJECT	(1u << 1)

/**
 * struct drm_tern_get_info - DRM_IOCTL_TERN_GET_INFO: describe the device
 * @flags: in: must be 0
 * @hw_version: out: the device's version, major << 16 | minor
 * @driver_version: out: the driver's interface version, major << 16 | minor
 * @caps: out: DRM_TERN_CAP_* bits
 * @engine_count: out: number of engines (compute engines and the copy engine)
 * @compute_engine_count: out: how many of them are compute engines; they
 *	are numbered 0 to @compute_engine_count - 1, the copy engine follows
 * @engine_class: out: enum drm_tern_engine_class of each engine; entries
 *	from @engine_count on are 0
 * @buf_size_max: out: largest command buffer in bytes (&drm_tern_submit.cmdbuf_size)
 * @max_contexts: out: most contexts one open file may have at a time
 * @max_jobs_per_context: out: most jobs of one context that may be
 *	submitted and not yet finished; more fail with -EAGAIN
 * @max_bos_per_submit: out: largest &drm_tern_submit.bo_count
 * @max_syncs_per_submit: out: largest &drm_tern_submit.in_sync_count and
 *	&drm_tern_submit.out_sync_count
 * @tlb_entries: out: TLB entries per engine
 * @default_timeout_ms: out: the hang timeout of a context created with
 *	&drm_tern_context_create.timeout_ms 0
 * @max_timeout_ms: out: largest &drm_tern_context_create.timeout_ms
 * @local_mem_size: out: bytes of device-local memory
 * @max_bo_size: out: largest buffer object in bytes
 * @va_bits: out: width of the device virtual addresses
 * @pad: must be 0
 * @device_clock_ns: out: the device clock (ns since the device was reset),
 *	read during the ioctl
 * @max_queued_bytes: out: most bytes of memory that the kernel copies of
 *	the command buffers of one open file's unfinished jobs may hold; each
 *	job counts what its copy takes: its size rounded up to a power of two
 *	pages, plus 64 bytes of resume record when the record does not fit in
 *	those pages after the buffer; submissions beyond it fail with -EAGAIN
 */
struct drm_tern_get_info {
	__u32 flags;
	__u32 hw_version;
	__u32 driver_version;
	__u32 caps;
	__u32 engine_count;
	__u32 compute_engine_count;
	__u32 engine_class[DRM_TERN_MAX_ENGINES];
	__u32 buf_size_max;
	__u32 max_contexts;
	__u32 max_jobs_per_context;
	__u32 max_bos_per_submit;
	__u32 max_syncs_per_submit;
	__u32 tlb_entries;
	__u32 default_timeout_ms;
	__u32 max_timeout_ms;
	__u64 local_mem_size;
	__u64 max_bo_size;
	__u32 va_bits;
	__u32 pad;
	__u64 device_clock_ns;
	__u64 max_queued_bytes;
};

/**
 * enum drm_tern_priority - priority of a context
 * @DRM_TERN_PRIORITY_LOW: background work
 * @DRM_TERN_PRIORITY_NORMAL: the default
 * @DRM_TERN_PRIORITY_HIGH: latency-sensitive work; needs CAP_SYS_NICE
 *
 * Raising a context above the defaults, %DRM_TERN_PRIORITY_NORMAL and
 * %DRM_TERN_WEIGHT_DEFAULT, takes device time from every other user of the
 * engine, so, as raising a task's CPU priority does, it needs CAP_SYS_NICE
 * in the task that calls DRM_IOCTL_TERN_CONTEXT_CREATE (whichever task
 * opened the file); lowering (%DRM_TERN_PRIORITY_LOW) is free.
 */
enum drm_tern_priority {
	DRM_TERN_PRIORITY_LOW = 0,
	DRM_TERN_PRIORITY_NORMAL = 1,
	DRM_TERN_PRIORITY_HIGH = 2,
};

/**
 * DRM_TERN_CONTEXT_CREATE_ENGINE - &drm_tern_context_create.flags: place the
 * context on the engine named by &drm_tern_context_create.engine instead of
 * letting the driver choose
 */
#define DRM_TERN_CONTEXT_CREATE_ENGINE	(1u << 0)

/**
 * DRM_TERN_CONTEXT_CREATE_PROGRESS - &drm_tern_context_create.flags: give
 * the context a progress page that the process can map
 * (&drm_tern_context_create.progress_offset, struct drm_tern_progress)
 */
#define DRM_TERN_CONTEXT_CREATE_PROGRESS	(1u << 1)

/**
 * DRM_TERN_CONTEXT_CREATE_PROGRESS_VA - &drm_tern_context_create.flags,
 * with %DRM_TERN_CONTEXT_CREATE_PROGRESS: also map the progress page, read
 * only, into the file's address space at &drm_tern_context_create.progress_va,
 * so that jobs (of any context of the file) can read it, e.g. wait for a
 * job of this context with a WAIT_MEM on &drm_tern_progress.completed
 */
#define DRM_TERN_CONTEXT_CREATE_PROGRESS_VA	(1u << 2)

/**
 * struct drm_tern_context_create - DRM_IOCTL_TERN_CONTEXT_CREATE
 * @flags: in: 0, or %DRM_TERN_CONTEXT_CREATE_ENGINE,
 *	%DRM_TERN_CONTEXT_CREATE_PROGRESS and
 *	%DRM_TERN_CONTEXT_CREATE_PROGRESS_VA
 * @priority: in: enum drm_tern_priority
 * @engine_class: in: enum drm_tern_engine_class; the context runs on one
 *	engine of that class for its whole life: the one @engine names with
 *	%DRM_TERN_CONTEXT_CREATE_ENGINE, else the one of the class that has
 *	the fewest contexts (of any file) when the context is created
 * @timeout_ms: in: hang timeout: a job of this context that makes no
 *	progress (the engine's progress counter does not move) for this long
 *	is declared hung, the engine is reset and the context banned.  Long
 *	jobs that keep progressing are never killed.  0 picks
 *	&drm_tern_get_info.default_timeout_ms; at most
 *	&drm_tern_get_info.max_timeout_ms.
 * @handle: out: the context's handle, non-zero, valid in this file only;
 *	since interface 1.2 the file does not hand out a handle again until
 *	the 32-bit handles wrap around
 * @engine: in: with %DRM_TERN_CONTEXT_CREATE_ENGINE, the engine to run on:
 *	an index below &drm_tern_get_info.engine_count whose
 *	&drm_tern_get_info.engine_class entry is @engine_class; without the
 *	flag, ignored.  out: the engine the context runs on (the same
 *	numbering)
 * @weight: in: share of engine time against the other contexts of the same
 *	priority on the engine: contexts with work waiting get device time in
 *	proportion to their weights (a context of weight 2 gets twice the
 *	time of one of weight 1).  0 picks %DRM_TERN_WEIGHT_DEFAULT; at most
 *	%DRM_TERN_WEIGHT_MAX; above %DRM_TERN_WEIGHT_DEFAULT needs
 *	CAP_SYS_NICE.  Ignored by the ``fifo`` and ``drmfair`` scheduling
 *	policies.
 * @pad: must be 0
 * @progress_offset: out: with %DRM_TERN_CONTEXT_CREATE_PROGRESS, the offset
 *	to pass to mmap() on the device file to map the context's progress
 *	page (%DRM_TERN_PROGRESS_SIZE bytes, PROT_READ only, MAP_SHARED); else
 *	0.  Added in interface version 1.2
 *	(&drm_tern_get_info.driver_version) at the end of the struct: a program built
 *	against an older header passes a shorter struct and never sees it.
 * @progress_va: in: with %DRM_TERN_CONTEXT_CREATE_PROGRESS_VA, the device
 *	VA to map the progress page at (%DRM_TERN_PROGRESS_SIZE bytes, read
 *	only: a job that writes there faults).  The rules of
 *	DRM_IOCTL_TERN_VM_BIND apply: the range must be free, aligned and
 *	inside the address space.  The mapping is the file's, like one made
 *	with VM_BIND: it stays when the context is destroyed (the page then
 *	no longer changes) and goes when the file unmaps it with VM_BIND or is
 *	closed.  The device reads the page the CPU writes directly, as it
 *	reads BOs (coherent DMA).  A WAIT_MEM on it for a job of a context on
 *	the same engine can only pass if the scheduler preempts the waiting
 *	job (the ``fair`` policy does; under ``fifo`` and ``drmfair`` it holds
 *	the engine until its timeout).  Else must be 0.  Added in interface
 *	version 1.3 at the end of the struct.
 *
 * Errors: -EINVAL unknown flags, priority, engine class, timeout or weight
 * out of range, pad not 0, or with %DRM_TERN_CONTEXT_CREATE_ENGINE an
 * @engine the device does not have or of another class than @engine_class,
 * %DRM_TERN_CONTEXT_CREATE_PROGRESS_VA without
 * %DRM_TERN_CONTEXT_CREATE_PROGRESS, @progress_va not 0 without it or not
 * a multiple of %DRM_TERN_PAGE_SIZE; -ERANGE @progress_va outside the
 * address space; -EEXIST something is mapped there already; -ENOSPC the
 * address space's budgets (see "DOC: tern memory") are used up;
 * -EACCES %DRM_TERN_PRIORITY_HIGH, or @weight above %DRM_TERN_WEIGHT_DEFAULT,
 * and the caller lacks CAP_SYS_NICE (the range checks come first);
 * -ENODEV no engine of that class (or every one of them was lost: an
 * engine reset that did not end), or the device is gone; -EMFILE the file
 * already has &drm_tern_get_info.max_contexts contexts; -ENOMEM.  With
 * %DRM_TERN_CONTEXT_CREATE_PROGRESS_VA, the page is mapped like
 * DRM_IOCTL_TERN_VM_BIND maps: after the binds of the file queued before
 * it, so also -EINTR/-ERESTARTSYS a signal arrived while it waited for
 * them, and -EIO the address space takes no change any more.
 */
struct drm_tern_context_create {
	__u32 flags;
	__u32 priority;
	__u32 engine_class;
	__u32 timeout_ms;
	__u32 handle;
	__u32 engine;
	__u32 weight;
	__u32 pad;
	__u64 progress_offset;
	__u64 progress_va;
};

/* Weight of a context created with weight 0. */
#define DRM_TERN_WEIGHT_DEFAULT	1
/* Largest weight of a context. */
#define DRM_TERN_WEIGHT_MAX	64

/**
 * struct drm_tern_context_destroy - DRM_IOCTL_TERN_CONTEXT_DESTROY
 * @handle: in: the context
 * @pad: must be 0
 *
 * Jobs of the context that have not started are cancelled (their fences
 * signal with -ECANCELED); jobs already on the engine finish.  A job that
 * still waits for its in-fences is cancelled the same way once those
 * signalled, in the context's order.  The ioctl waits for none of them.
 * Closing the file destroys all its contexts the same way.
 *
 * Errors: -EINVAL pad not 0; -ENOENT no such context.
 */
struct drm_tern_context_destroy {
	__u32 handle;
	__u32 pad;
};

/**
 * enum drm_tern_context_state - what happened to a context
 * @DRM_TERN_CONTEXT_ACTIVE: usable, nothing happened to it
 * @DRM_TERN_CONTEXT_RESET: usable; an engine reset caused by another
 *	context interrupted one of its jobs, which was run again from the start
 * @DRM_TERN_CONTEXT_FAULTED: one of its jobs faulted (see the fault_*
 *	fields); the context takes no more work (-EIO at submit)
 * @DRM_TERN_CONTEXT_BANNED: one of its jobs hung and the engine was reset;
 *	the context takes no more work (-EIO at submit)
 */
enum drm_tern_context_state {
	DRM_TERN_CONTEXT_ACTIVE = 0,
	DRM_TERN_CONTEXT_RESET = 1,
	DRM_TERN_CONTEXT_FAULTED = 2,
	DRM_TERN_CONTEXT_BANNED = 3,
};

/**
 * enum drm_tern_context_reason - why a context left the ACTIVE state
 * @DRM_TERN_REASON_NONE: it did not
 * @DRM_TERN_REASON_FAULT: the device reported a fault in one of its jobs
 * @DRM_TERN_REASON_HANG: one of its jobs made no progress for the timeout
 * @DRM_TERN_REASON_INNOCENT_RESET: the engine was reset for another context
 * @DRM_TERN_REASON_DEVICE_LOST: the whole device was reset.  This version
 *	of the driver never resets the whole device while it is in use, so it
 *	does not report this reason; an unplugged device is not reported here
 *	either: every ioctl of its files fails with -ENODEV.
 */
enum drm_tern_context_reason {
	DRM_TERN_REASON_NONE = 0,
	DRM_TERN_REASON_FAULT = 1,
	DRM_TERN_REASON_HANG = 2,
	DRM_TERN_REASON_INNOCENT_RESET = 3,
	DRM_TERN_REASON_DEVICE_LOST = 4,
};

/**
 * struct drm_tern_context_get_state - DRM_IOCTL_TERN_CONTEXT_GET_STATE
 * @handle: in: the context
 * @flags: in: must be 0
 * @state: out: enum drm_tern_context_state
 * @reason: out: enum drm_tern_context_reason
 * @fault_kind: out: for FAULTED, the device's fault kind (TERN_FAULT_* of
 *	docs/hardware.md: 1 not present, 2 write protect, ...), else 0
 * @fault_offset: out: for FAULTED, dword index of the faulting packet in
 *	its command buffer
 * @fault_addr: out: for FAULTED, the faulting VA (or offset, per kind)
 * @fault_seqno: out: for FAULTED or BANNED, seqno of the guilty job
 *	(&drm_tern_submit.seqno)
 * @reset_count: out: engine resets that hit this context (guilty or not)
 * @jobs_submitted: out: jobs submitted on the context
 * @jobs_completed: out: jobs of the context that completed on the device
 * @busy_ns: out: device time the context's jobs ran, in ns
 * @preemptions: out: times a running job of the context was preempted
 *	(each resumed later where it stopped)
 * @paging_bytes_in: out: bytes the residency of the context's jobs paged
 *	into device-local memory (or cleared there): each LOCAL BO a job
 *	lists is made resident at its SUBMIT (interface 1.7)
 * @paging_bytes_out: out: bytes paged out of local memory to make room
 *	for them (interface 1.7)
 * @evictions: out: BOs evicted from local memory to make room for them,
 *	whoever's BOs they were (interface 1.7)
 * @paging_ns: out: device time of the paging buffers of those moves, in
 *	ns (interface 1.7)
 *
 * Fields added later sit at the end: a program built against an older
 * header passes the shorter struct, and gets its fields only.
 *
 * Errors: -EINVAL flags not 0; -ENOENT no such context.
 */
struct drm_tern_context_get_state {
	__u32 handle;
	__u32 flags;
	__u32 state;
	__u32 reason;
	__u32 fault_kind;
	__u32 fault_offset;
	__u64 fault_addr;
	__u32 fault_seqno;
	__u32 reset_count;
	__u64 jobs_submitted;
	__u64 jobs_completed;
	__u64 busy_ns;
	__u64 preemptions;
	__u64 paging_bytes_in;
	__u64 paging_bytes_out;
	__u64 evictions;
	__u64 paging_ns;
};

/**
 * struct drm_tern_sync - a syncobj to wait on or to signal
 * @handle: the drm_syncobj handle
 * @flags: must be 0
 * @point: 0 for a binary syncobj, else the timeline point
 */
struct drm_tern_sync {
	__u32 handle;
	__u32 flags;
	__u64 point;
};

/**
 * struct drm_tern_submit - DRM_IOCTL_TERN_SUBMIT: queue a command buffer
 * @context: in: the context
 * @flags: in: must be 0
 * @cmdbuf: in: user pointer to the command buffer (see the command format)
 * @cmdbuf_size: in: its size in bytes: a non-zero multiple of 4, at most
 *	&drm_tern_get_info.buf_size_max
 * @bo_count: in: entries of @bo_handles, at most
 *	&drm_tern_get_info.max_bos_per_submit
 * @bo_handles: in: user pointer to an array of __u32 GEM handles: the
 *	buffer objects the job uses, its allocation list.  They are kept alive
 *	until the job's fence signals, and the fence is added to each of their
 *	reservation objects (as a write) so that importers of a shared buffer
 *	can wait for the job.  The LOCAL ones are made resident in local
 *	memory before the job is queued, and stay there until it ends
 *	(interface 1.7; see &enum drm_tern_bo_placement).
 * @in_syncs: in: user pointer to an array of struct drm_tern_sync: the job
 *	starts only after all of them signalled
 * @out_syncs: in: user pointer to an array of struct drm_tern_sync: they
 *	get the job's fence (replaced for a binary syncobj, added at @point of
 *	a timeline)
 * @in_sync_count: in: entries of @in_syncs
 * @out_sync_count: in: entries of @out_syncs
 * @seqno: out: the job's number in its context, counting from 1
 * @error_offset: out: when the command buffer is refused, the dword index
 *	of the refused packet; else 0
 * @error_opcode: out: when the command buffer is refused, its opcode
 * @pad: must be 0
 *
 * The command buffer is copied into a kernel buffer and validated there, so
 * changing it after the ioctl returned changes nothing.  The ioctl returns
 * once the job is queued; its completion is reported through @out_syncs.
 * The fence of a job signals only after the device completed its buffer; it
 * carries an error if the job did not complete: -EIO it faulted, -ETIMEDOUT
 * it hung, -ECANCELED it was cancelled (the context was destroyed, faulted
 * or banned before the job started), -ENODEV the device went away.  A job
 * one of whose @in_syncs signalled with an error does not run: its fence
 * signals with that error (after the context's earlier jobs, like any other),
 * and the context stays usable.  For a timeline point, the fence added at
 * that point counts.
 *
 * Errors:
 * -EINVAL flags/pad not 0, @cmdbuf_size 0 or not a multiple of 4, counts
 * above the limits, a sync with flags, or a packet operand the validator
 * refuses (counts, dimensions, alignment, timeout, reduction op);
 * -E2BIG @cmdbuf_size above buf_size_max;
 * -EPERM the buffer holds a privileged packet;
 * -ENOEXEC the buffer holds an unknown opcode, or a compute packet (VECADD,
 * SAXPY, GEMM, REDUCE) on a copy-engine context;
 * -EBADMSG a packet header has reserved bits set, a wrong length, or runs
 * past the end of the buffer;
 * -EFAULT a user pointer cannot be read;
 * -ENOENT no such context, BO handle or in-syncobj (or a timeline point
 * that has no fence yet, with @point);
 * -EIO the context was faulted or banned (see DRM_IOCTL_TERN_CONTEXT_GET_STATE);
 * -ENOSPC the LOCAL BOs of @bo_handles are together larger than local
 * memory (interface 1.7);
 * -EBUSY a LOCAL BO of @bo_handles is held in system memory by a dma-buf
 * attachment of another device, or is mapped in an address space whose
 * change failed on the device (interface 1.7);
 * -EAGAIN the context already has &drm_tern_get_info.max_jobs_per_context
 * unfinished jobs, or the file's unfinished jobs hold
 * &drm_tern_get_info.max_queued_bytes of command buffers, or (interface
 * 1.7) its LOCAL BOs found no room in local memory for a second, held by
 * BOs that unfinished jobs list or that are pinned: wait for a fence
 * and retry (libdrm's
 * drmIoctl() retries -EAGAIN at once, in a loop: issue this ioctl with
 * ioctl() to see it);
 * -ENOMEM; -EINTR/-ERESTARTSYS a signal arrived; -ENODEV the device is gone.
 */
struct drm_tern_submit {
	__u32 context;
	__u32 flags;
	__u64 cmdbuf;
	__u32 cmdbuf_size;
	__u32 bo_count;
	__u64 bo_handles;
	__u64 in_syncs;
	__u64 out_syncs;
	__u32 in_sync_count;
	__u32 out_sync_count;
	__u32 seqno;
	__u32 error_offset;
	__u32 error_opcode;
	__u32 pad;
};

/** DRM_TERN_SUBMIT_MANY_MAX - most entries of one DRM_IOCTL_TERN_SUBMIT_MANY */
#define DRM_TERN_SUBMIT_MANY_MAX	256

/**
 * struct drm_tern_submit_many - DRM_IOCTL_TERN_SUBMIT_MANY: queue several
 *	command buffers with one system call
 * @submits: in: user pointer to an array of @count struct drm_tern_submit,
 *	each exactly as DRM_IOCTL_TERN_SUBMIT takes it (any context of the
 *	file, its own BOs and syncs); the kernel writes each queued entry's
 *	@seqno, and the @error_offset and @error_opcode of the entry refused
 * @count: in: entries of @submits, 1 to %DRM_TERN_SUBMIT_MANY_MAX
 * @stride: in: bytes from one entry of @submits to the next:
 *	sizeof(struct drm_tern_submit).  If struct drm_tern_submit grows, a
 *	kernel that knows the larger size also takes the smaller one (the
 *	new fields then read as zero), and refuses a stride it does not know
 * @flags: in: must be 0
 * @submitted: out: how many entries were queued, from the first
 * @error: out: 0 when all were queued, else the negative errno that entry
 *	@submitted got (as DRM_IOCTL_TERN_SUBMIT would return it)
 * @pad: must be 0
 *
 * The entries are queued in array order, each as if by its own
 * DRM_IOCTL_TERN_SUBMIT, so jobs of one context keep the array's order and
 * an entry may wait (in its in_syncs) for a syncobj an earlier entry
 * signals.  The first entry that cannot be queued ends the call: the ones
 * before it stay queued, it and the ones after it are not.  Like a short
 * write(), the ioctl then still returns 0 when at least one entry was
 * queued, with @submitted and @error saying where and why it stopped (a
 * signal stops it with -EINTR there); it fails only when the first entry
 * was not queued.  Added in interface version 1.3
 * (&drm_tern_get_info.driver_version).
 *
 * A killed process stops between entries (-EINTR in @error).  As for
 * DRM_IOCTL_TERN_SUBMIT, issue it with ioctl(): libdrm's drmIoctl() would
 * retry the call at once, in a loop, when the first entry gets -EAGAIN.
 *
 * Errors: -EINVAL @count 0 or above %DRM_TERN_SUBMIT_MANY_MAX, @stride not
 * sizeof(struct drm_tern_submit), @flags or @pad not 0; -EFAULT @submits
 * cannot be read, or the seqnos cannot be written back: the entries before
 * @submitted were queued even then, and when that is none, -EFAULT stands
 * for the first entry's own error too; else the first entry's error, as
 * DRM_IOCTL_TERN_SUBMIT documents it.
 */
struct drm_tern_submit_many {
	__u64 submits;
	__u32 count;
	__u32 stride;
	__u32 flags;
	__u32 submitted;
	__s32 error;
	__u32 pad;
};

/**
 * DOC: tern progress pages
 *
 * A context created with %DRM_TERN_CONTEXT_CREATE_PROGRESS has a progress
 * page: a struct drm_tern_progress that the kernel updates as the context's
 * jobs finish, and that the process maps read-only (mmap() of
 * &drm_tern_context_create.progress_offset).  It tells whether a job
 * finished, and how, without a system call; DRM_IOCTL_TERN_WAIT sleeps
 * until a job finished when it has not.  This is the progress fence of a
 * hardware queue in the Windows driver model.
 *
 * The kernel writes a failed job's entry in @errors, then stores
 * @error_count with release semantics, then @completed with release
 * semantics; it does that after the job's hardware fence signalled and the
 * job stopped counting against the context's limits.  The fence given to
 * &drm_tern_submit.out_syncs of a job that waited for in-fences is drm_sched's,
 * which may signal a moment after the page moved.  Before it writes the
 * entry of the next failure, the new @error_count is visible.  The entry
 * being written is the slot of the failure %DRM_TERN_PROGRESS_ERRORS
 * before it, so a reader uses only the newest %DRM_TERN_PROGRESS_KEPT.  A
 * reader finds the outcome of job S like this:
 *
 * 1. c = @completed (an acquire load).  If S is after c, (__s32)(S - c) > 0,
 *    the job has not finished.
 * 2. n = @error_count (acquire).  The failures n - k for k = 1 .. kept,
 *    kept = min(n, %DRM_TERN_PROGRESS_KEPT), are in @errors[(n - k) %
 *    %DRM_TERN_PROGRESS_ERRORS], newest first, in decreasing seqno order.
 *    If S is among them, the job failed with that error.  If it is not,
 *    and either n is at most %DRM_TERN_PROGRESS_KEPT or S is after the
 *    oldest of them, the job completed.  Otherwise its outcome is no longer
 *    on the page: ask DRM_IOCTL_TERN_WAIT, which keeps the same window
 *    (-ENODATA).
 * 3. An acquire fence, then n2 = @error_count: if (n2 - n) + kept is
 *    %DRM_TERN_PROGRESS_ERRORS or more, an entry read may have been
 *    rewritten: start again.
 *
 * The page outlives the context while it is mapped: once the context is
 * destroyed and its last job is gone, @flags gets
 * %DRM_TERN_PROGRESS_CLOSED and the page no longer changes; jobs after
 * @completed then never ran (their fences signalled -ECANCELED).  The kernel
 * keeps its own copy of all of this and never reads the page back.
 */

/** DRM_TERN_PROGRESS_SIZE - bytes to map of a progress page */
#define DRM_TERN_PROGRESS_SIZE		4096u
/** DRM_TERN_PROGRESS_ERRORS - entries of the ring of failed jobs */
#define DRM_TERN_PROGRESS_ERRORS	128u
/** DRM_TERN_PROGRESS_KEPT - newest failed jobs whose outcome is kept */
#define DRM_TERN_PROGRESS_KEPT		(DRM_TERN_PROGRESS_ERRORS - 1)
/**
 * DRM_TERN_PROGRESS_CLOSED - &drm_tern_progress.flags: the context is gone;
 * the page does not change any more
 */
#define DRM_TERN_PROGRESS_CLOSED	(1u << 0)

/**
 * struct drm_tern_progress_error - a failed job on a progress page
 * @seqno: the job (&drm_tern_submit.seqno)
 * @error: the negative errno its fence signalled with (the errors of
 *	&drm_tern_submit)
 */
struct drm_tern_progress_error {
	__u32 seqno;
	__s32 error;
};

/**
 * struct drm_tern_progress - a context's progress page (read-only)
 * @completed: seqno of the context's last finished job (0: none yet).
 *	Jobs finish in seqno order, so every job up to it finished, and its
 *	fence signalled.
 * @error_count: jobs of the context that finished with an error
 * @state: enum drm_tern_context_state, as DRM_IOCTL_TERN_CONTEXT_GET_STATE
 *	reports it
 * @flags: %DRM_TERN_PROGRESS_CLOSED
 * @reserved: 0
 * @errors: a ring of the last failures: failure n (counting from 0) is in
 *	@errors[n % %DRM_TERN_PROGRESS_ERRORS]; the newest
 *	%DRM_TERN_PROGRESS_KEPT of them are readable
 *
 * See "DOC: tern progress pages" for how to read it.
 */
struct drm_tern_progress {
	__u32 completed;
	__u32 error_count;
	__u32 state;
	__u32 flags;
	__u32 reserved[12];
	struct drm_tern_progress_error errors[DRM_TERN_PROGRESS_ERRORS];
};

/**
 * struct drm_tern_wait - DRM_IOCTL_TERN_WAIT: wait for a job to finish
 * @context: in: the context
 * @seqno: in: the job (&drm_tern_submit.seqno)
 * @flags: in: must be 0
 * @error: out: 0 if the job completed, else the negative errno its fence
 *	signalled with (see &drm_tern_submit)
 * @timeout_ns: in: absolute CLOCK_MONOTONIC time to give up at; a time
 *	already past (0) only looks
 *
 * Returns once the job finished, with its outcome in @error.  Works on
 * every context, with or without a progress page; the outcome of a job is
 * kept as long as the page would show it (see "DOC: tern progress pages").
 *
 * Errors: -EINVAL flags not 0, @seqno 0 or not of a job of the context
 * (not submitted yet, or 2^31 or more jobs back);
 * -ENOENT no such context (a destroyed context's jobs are on its progress
 * page, or in the fences of &drm_tern_submit.out_syncs); -ETIME the job did
 * not finish by @timeout_ns; -ENODATA the job finished, but at least
 * %DRM_TERN_PROGRESS_KEPT later jobs failed since and its outcome is
 * forgotten; -EINTR/-ERESTARTSYS a signal arrived; -ENODEV the device is gone.
 */
struct drm_tern_wait {
	__u32 context;
	__u32 seqno;
	__u32 flags;
	__s32 error;
	__s64 timeout_ns;
};

/**
 * struct drm_tern_job_fence - DRM_IOCTL_TERN_JOB_FENCE: put a job's fence
 *	into a syncobj (interface 1.8)
 * @context: in: the context
 * @seqno: in: the job (&drm_tern_submit.seqno)
 * @syncobj: in: the syncobj handle to put the fence into
 * @flags: in: must be 0
 * @point: in: 0 for a binary syncobj (its fence is replaced), else the
 *	timeline point to add the fence at
 *
 * The syncobj gets the job's fence, so a job needs no out-syncobj until
 * something must wait for it through one (another job, another driver,
 * poll() on a sync_file).  A job that has not finished, or only just
 * finished, gives the fence &drm_tern_submit.out_syncs would have got.
 * A job that finished earlier gives a new fence, already signalled with
 * the job's outcome, while that is kept: as for DRM_IOCTL_TERN_WAIT, as
 * long as the progress page would show it.
 *
 * Errors: -EINVAL flags not 0, @seqno 0 or not of a job of the context
 * (not submitted yet, or 2^31 or more jobs back);
 * -ENOENT no such context or syncobj (a destroyed context's jobs are on
 * its progress page); -ENODATA the job finished, but at least
 * %DRM_TERN_PROGRESS_KEPT later jobs failed since and its outcome is
 * forgotten; -ENOMEM; -EINTR/-ERESTARTSYS a signal arrived; -ENODEV the
 * device is gone.
 */
struct drm_tern_job_fence {
	__u32 context;
	__u32 seqno;
	__u32 syncobj;
	__u32 flags;
	__u64 point;
};

#define DRM_IOCTL_TERN_GET_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TERN_GET_INFO, struct drm_tern_get_info)
#define DRM_IOCTL_TERN_CONTEXT_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TERN_CONTEXT_CREATE, struct drm_tern_context_create)
#define DRM_IOCTL_TERN_CONTEXT_DESTROY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TERN_CONTEXT_DESTROY, struct drm_tern_context_destroy)
#define DRM_IOCTL_TERN_CONTEXT_GET_STATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TERN_CONTEXT_GET_STATE, struct drm_tern_context_get_state)
#define DRM_IOCTL_TERN_SUBMIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TERN_SUBMIT, struct drm_tern_submit)
#define DRM_IOCTL_TERN_WAIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TERN_WAIT, struct drm_tern_wait)
#define DRM_IOCTL_TERN_SUBMIT_MANY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TERN_SUBMIT_MANY, struct drm_tern_submit_many)
#define DRM_IOCTL_TERN_JOB_FENCE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TERN_JOB_FENCE, struct drm_tern_job_fence)

/* ---- end of the driver core's ioctls ---- */

/*
 * ---- ioctls: buffer objects and address spaces (memory management) ----
 */

/**
 * DOC: tern memory
 *
 * Memory is allocated as buffer objects (BOs), named by GEM handles local
 * to the open file.  A BO is used by the device only through the address
 * space of the file: each open file of the device has its own, with its own
 * page tables, and DRM_IOCTL_TERN_VM_BIND maps a range of a BO at a virtual
 * address (VA) of it.  All contexts of a file share its address space.  VAs
 * are 48 bits (&drm_tern_get_info.va_bits); the first
 * %DRM_TERN_VA_START bytes are never mapped, so that a zero or small VA
 * always faults.  Every size, offset and VA of these ioctls is a multiple of
 * %DRM_TERN_PAGE_SIZE.
 *
 * A BO's pages stay allocated and pinned while it is mapped; a mapping keeps
 * the BO alive after its handle is closed, until it is unmapped or the file
 * is closed.  DRM_IOCTL_TERN_VM_BIND's unmap waits until every job
 * submitted before it on the file has finished; an unmap queued with
 * DRM_IOCTL_TERN_VM_BIND_OPS waits for the jobs that listed its BO, and
 * the pages go once no job can reach them: the device never touches memory
 * that was given back.
 *
 * BOs are shared between files and processes with dma-buf (PRIME:
 * DRM_IOCTL_PRIME_HANDLE_TO_FD and DRM_IOCTL_PRIME_FD_TO_HANDLE), and mapped
 * into the CPU with mmap() on the device file at &drm_tern_bo_info.mmap_offset.
 * The DRM core's global names (DRM_IOCTL_GEM_FLINK, DRM_IOCTL_GEM_OPEN) work
 * too, but only in files opened with CAP_SYS_ADMIN (-EACCES otherwise): an
 * accel node has no DRM master to authenticate other files.  Use PRIME.
 */

/** DRM_TERN_PAGE_SIZE - granule of BO sizes, offsets and VAs */
#define DRM_TERN_PAGE_SIZE		4096ull
/** DRM_TERN_VA_START - lowest VA that can be mapped */
#define DRM_TERN_VA_START		0x10000ull

/**
 * enum drm_tern_bo_placement - where the memory of a BO lives
 * @DRM_TERN_BO_PLACEMENT_SYSTEM: system memory, reached by the device over
 *	PCI through the page tables
 * @DRM_TERN_BO_PLACEMENT_LOCAL: device-local memory (interface 1.6;
 *	before, creating one fails with -EOPNOTSUPP).  The BO is in local
 *	memory whenever a job that lists it in &drm_tern_submit.bo_handles
 *	runs: the submit makes it resident there (its data paged in, or local
 *	memory cleared for it, by the copy engine), evicting BOs no unfinished
 *	job lists to make room, and it stays there until the job ended.  In
 *	between, mapped or not, it may be evicted to system memory to make
 *	room for another (interface 1.7; from 1.6 to 1.7 it stayed in local
 *	memory, pinned, from its map to its unmap).  Wherever it moves, its
 *	mappings in every address space follow it before its old place is
 *	given to anything else, so a job that uses it without listing it
 *	still reaches its data, in system memory if it was evicted; but what
 *	such a job writes while the BO moves may be lost: list the BOs a job
 *	uses.  A map places it in local memory (evicting idle BOs), or in
 *	system memory if local memory is full of BOs in use.  The CPU reaches
 *	it through mmap() wherever it is (in local memory, write-combined
 *	through the device's BAR).  A dma-buf attachment of another device
 *	needs it in system memory: it fails with -EBUSY while the BO is
 *	mapped, and while attached, mapping the BO fails with -EBUSY.
 * @DRM_TERN_BO_PLACEMENT_LOCAL_PREFERRED: device-local memory when it has
 *	room, system memory otherwise (interface 1.6): as LOCAL, but neither
 *	a map nor a submit evicts another BO for it, waits for it or fails
 *	for want of local memory, and the BO may be of any size up to
 *	&drm_tern_get_info.max_bo_size.  A map or a submit that lists it
 *	moves it to local memory if local memory has room then and the BO is
 *	idle and not attached to another device; a job may run with it in
 *	system memory.
 */
enum drm_tern_bo_placement {
	DRM_TERN_BO_PLACEMENT_SYSTEM = 0,
	DRM_TERN_BO_PLACEMENT_LOCAL = 1,
	DRM_TERN_BO_PLACEMENT_LOCAL_PREFERRED = 2,
};

/**
 * struct drm_tern_bo_create - DRM_IOCTL_TERN_BO_CREATE: allocate a BO
 * @size: in: size in bytes, 1 to &drm_tern_get_info.max_bo_size; out: the
 *	size rounded up to a multiple of %DRM_TERN_PAGE_SIZE
 * @flags: in: must be 0
 * @placement: in: enum drm_tern_bo_placement
 * @handle: out: GEM handle of the new BO, non-zero
 * @pad: must be 0
 *
 * The BO's memory is zeroed and allocated when it is first used (mapped
 * into the device or touched through mmap()).  Close the handle with
 * DRM_IOCTL_GEM_CLOSE.
 *
 * Errors: -EINVAL flags or pad not 0, @size 0, or an unknown @placement;
 * -E2BIG @size above &drm_tern_get_info.max_bo_size, or a LOCAL BO larger
 * than &drm_tern_get_info.local_mem_size; -EOPNOTSUPP
 * %DRM_TERN_BO_PLACEMENT_LOCAL on a device without local memory (or a
 * driver before interface 1.6); -ENOMEM; -ENODEV the device is gone.
 */
struct drm_tern_bo_create {
	__u64 size;
	__u32 flags;
	__u32 placement;
	__u32 handle;
	__u32 pad;
};

/**
 * struct drm_tern_bo_info - DRM_IOCTL_TERN_BO_INFO: describe a BO
 * @handle: in: GEM handle of the BO
 * @flags: in: must be 0
 * @size: out: size in bytes
 * @mmap_offset: out: offset to pass to mmap() on the device file to map the
 *	BO into the CPU (MAP_SHARED, any protection)
 * @placement: out: enum drm_tern_bo_placement
 * @pad: in: must be 0
 *
 * Errors: -EINVAL flags or pad not 0; -ENOENT no such handle; -ENOMEM;
 * -ENODEV the device is gone.
 */
struct drm_tern_bo_info {
	__u32 handle;
	__u32 flags;
	__u64 size;
	__u64 mmap_offset;
	__u32 placement;
	__u32 pad;
};

/**
 * enum drm_tern_vm_bind_op - what DRM_IOCTL_TERN_VM_BIND does
 * @DRM_TERN_VM_BIND_OP_MAP: map @range bytes of the BO at @bo_offset to
 *	[@va, @va + @range)
 * @DRM_TERN_VM_BIND_OP_UNMAP: remove the mappings inside [@va, @va + @range);
 *	with %DRM_TERN_VM_BIND_CUT, also cut the mappings that cross an end
 *	of the range there, keeping their parts outside it
 */
enum drm_tern_vm_bind_op {
	DRM_TERN_VM_BIND_OP_MAP = 0,
	DRM_TERN_VM_BIND_OP_UNMAP = 1,
};

/** DRM_TERN_VM_BIND_READ_ONLY - map read-only: device writes fault */
#define DRM_TERN_VM_BIND_READ_ONLY	(1u << 0)

/**
 * DRM_TERN_VM_BIND_CUT - an unmap that cuts the mappings crossing its ends
 *
 * Added in interface version 1.5.  Without it, every mapping that
 * intersects an unmap's range must lie inside it (else -EINVAL, nothing
 * changed).  With it, a mapping that crosses an end of the range is cut
 * there: its part outside the range stays mapped, as a mapping of its own
 * that keeps the BO, the BO offsets and the rights it had.  The page-table
 * entries outside the range are not touched.  Only for an unmap.
 */
#define DRM_TERN_VM_BIND_CUT		(1u << 2)

/**
 * DRM_TERN_VM_BIND_REPLACE - a map that replaces what is mapped in its range
 *
 * Added in interface version 1.5.  Without it, a map over a range that
 * holds a mapping fails with -EEXIST.  With it, the map first removes what
 * is mapped in [@va, @va + @range), as an unmap of the same range with
 * %DRM_TERN_VM_BIND_CUT would, then maps the BO there, in
 * one step: a job that uses the range meanwhile, listing the BOs or not,
 * translates each page to the old or to the new mapping, never to none
 * (if a page was mapped before).  Like an unmap, it waits for the jobs
 * that can reach what it removes (DRM_IOCTL_TERN_VM_BIND and
 * %DRM_TERN_VM_BIND_OPS_SYNC: for every job of the file), and if it
 * removed something the device TLBs are invalidated before its bind's
 * fence signals.  The range need not hold anything.
 */
#define DRM_TERN_VM_BIND_REPLACE	(1u << 1)

/**
 * DRM_TERN_VM_MAX_MAPPED - most bytes mapped in one address space at a time
 *
 * Counted per mapping (a BO mapped twice counts twice): a map beyond it
 * fails with -ENOSPC.
 */
#define DRM_TERN_VM_MAX_MAPPED		(1ull << 36)

/**
 * DRM_TERN_VM_MAX_TABLES - most page tables of one address space
 *
 * The device's page tables are 4 KiB each, and a mapping needs whole
 * tables: one leaf table per 2 MiB of VA it touches, one more per GiB and
 * per 512 GiB.  Mapping a single 4 KiB page every 2 MiB thus costs a table
 * per page.  An address space holds at most this many tables (129 MiB),
 * enough for %DRM_TERN_VM_MAX_MAPPED bytes mapped in large ranges; a map
 * that would need more fails with -ENOSPC and changes nothing.  Unmapping
 * gives the tables that become empty back.
 */
#define DRM_TERN_VM_MAX_TABLES		33024u

/**
 * DRM_TERN_VM_MAX_MAPPINGS - most mappings in one address space at a time
 *
 * Each mapping costs the kernel some bookkeeping, whatever its size: a map
 * beyond this many fails with -ENOSPC.  A mapping an unmap (or a map with
 * %DRM_TERN_VM_BIND_REPLACE) removes counts until its memory is given back,
 * once the jobs that may still use it finished; the pieces of a mapping it
 * cuts count at once.  So at the limit such an unmap or map fails with
 * -ENOSPC too, but an unmap of whole mappings.
 */
#define DRM_TERN_VM_MAX_MAPPINGS	(1u << 18)

/**
 * struct drm_tern_vm_bind - DRM_IOCTL_TERN_VM_BIND: map or unmap a BO range
 * @op: in: enum drm_tern_vm_bind_op
 * @flags: in: for a map, %DRM_TERN_VM_BIND_READ_ONLY and
 *	%DRM_TERN_VM_BIND_REPLACE (interface 1.5); for an unmap,
 *	%DRM_TERN_VM_BIND_CUT (interface 1.5) or 0
 * @handle: in: for a map, GEM handle of the BO; for an unmap, 0
 * @pad: in: must be 0
 * @va: in: first VA of the range, a multiple of %DRM_TERN_PAGE_SIZE
 * @bo_offset: in: for a map, offset in the BO of the first mapped byte, a
 *	multiple of %DRM_TERN_PAGE_SIZE; for an unmap, 0
 * @range: in: bytes, a non-zero multiple of %DRM_TERN_PAGE_SIZE
 *
 * The device's page tables are changed by the device itself: the kernel
 * records the change as a DMA buffer that its own queue runs on the copy
 * engine (it preempts a running copy job), and returns once it ran.  The
 * change is a bind of one operation (see DRM_IOCTL_TERN_VM_BIND_OPS): it
 * runs after the binds of the file queued before it, which the ioctl first
 * waits for, interruptibly.
 *
 * A map does not replace an existing mapping: the range must be free,
 * unless %DRM_TERN_VM_BIND_REPLACE is given (then it is an unmap of the
 * range and a map, in one step).  The address space holds a reference on
 * each BO it maps and keeps its pages pinned until its last mapping is
 * removed.  The new mapping can be used by jobs submitted after the ioctl
 * returns.
 *
 * The BOs mapped in one address space, each counted once and whole however
 * often it is mapped, take at most half of the system's memory: their pages
 * are pinned while they are mapped.
 *
 * An unmap removes whole mappings: every mapping that intersects the range
 * must lie inside it, and at least one must; with %DRM_TERN_VM_BIND_CUT
 * the mappings that cross an end of the range are cut instead, and the
 * range must hold at least one mapped page.  It first waits (interruptibly)
 * for every job submitted on the file before it to finish, then removes the
 * translations and invalidates the device TLBs, then waits (not
 * interruptibly) for the jobs submitted on the file while it ran, which may
 * have used the range until then, and only then releases the pages.  A job
 * submitted while the unmap runs that uses the range may fault.
 *
 * Errors:
 * -EINVAL unknown op or flags, pad not 0, a handle, an offset or a flag
 * other than %DRM_TERN_VM_BIND_CUT given to an unmap, %DRM_TERN_VM_BIND_CUT
 * given to a map, an unmap range that cuts a mapping without
 * %DRM_TERN_VM_BIND_CUT, @va/@bo_offset/@range not multiples of
 * %DRM_TERN_PAGE_SIZE, @range 0, or [@bo_offset, @bo_offset + @range) not
 * inside the BO;
 * -ERANGE [@va, @va + @range) is not inside [%DRM_TERN_VA_START, 2^va_bits);
 * -EEXIST a map range overlaps an existing mapping (without
 * %DRM_TERN_VM_BIND_REPLACE);
 * -ENOENT no such BO handle, or nothing mapped in an unmap range;
 * -ENOSPC the map would take the address space above %DRM_TERN_VM_MAX_MAPPED
 * bytes mapped, %DRM_TERN_VM_MAX_MAPPINGS mappings (also an unmap that
 * cuts, or a map that replaces: see %DRM_TERN_VM_MAX_MAPPINGS) or
 * %DRM_TERN_VM_MAX_TABLES page tables, or its BO (if not
 * mapped yet) above half of the system's memory in BOs mapped (nothing was
 * changed);
 * -EBUSY a LOCAL BO that a dma-buf attachment of another device holds in
 * system memory;
 * -ENOMEM; -EINTR/-ERESTARTSYS a signal arrived while an unmap waited for
 * the jobs, or a call for the binds queued before it (nothing was
 * changed); -ENODEV the device is gone;
 * -EIO the device could not make the change (its copy engine was lost, or
 * the change failed repeatedly): the page tables may hold part of it, the
 * address space keeps the mapping (a map) or what it removed (an unmap)
 * until the file is closed, and every later VM_BIND on the file fails with
 * -EIO; jobs still run in the address space as the device left it.
 */
struct drm_tern_vm_bind {
	__u32 op;
	__u32 flags;
	__u32 handle;
	__u32 pad;
	__u64 va;
	__u64 bo_offset;
	__u64 range;
};

/** DRM_TERN_VM_BIND_OPS_MAX - most operations of one DRM_IOCTL_TERN_VM_BIND_OPS */
#define DRM_TERN_VM_BIND_OPS_MAX	64

/**
 * DRM_TERN_VM_BIND_QUEUE_MAX - most operations queued in one address space
 *
 * Counted from the ioctl that queues them to the end of their run: a
 * DRM_IOCTL_TERN_VM_BIND_OPS beyond it fails with -EAGAIN.
 */
#define DRM_TERN_VM_BIND_QUEUE_MAX	1024

/** DRM_TERN_VM_BIND_STRIDE_MAX - largest &drm_tern_vm_bind_ops.stride */
#define DRM_TERN_VM_BIND_STRIDE_MAX	4096

/** DRM_TERN_VM_BIND_OPS_SYNC - the ioctl returns once the bind is done */
#define DRM_TERN_VM_BIND_OPS_SYNC	(1u << 0)

/**
 * struct drm_tern_vm_bind_ops - DRM_IOCTL_TERN_VM_BIND_OPS: queue a bind,
 *	a change of the caller's address space made of several operations
 * @ops: in: user pointer to an array of @count struct drm_tern_vm_bind,
 *	@stride bytes apart, each an operation as DRM_IOCTL_TERN_VM_BIND
 *	takes it
 * @count: in: entries of @ops, 1 to %DRM_TERN_VM_BIND_OPS_MAX
 * @stride: in: bytes from one entry of @ops to the next, at least
 *	sizeof(struct drm_tern_vm_bind), at most %DRM_TERN_VM_BIND_STRIDE_MAX.
 *	The kernel reads @stride bytes of each entry: beyond
 *	sizeof(struct drm_tern_vm_bind) they must be 0, so
 *	that a program built with a larger struct of a later version fails
 *	(-E2BIG) rather than having its new fields ignored.
 * @flags: in: %DRM_TERN_VM_BIND_OPS_SYNC or 0
 * @in_sync_count: in: entries of @in_syncs, at most
 *	&drm_tern_get_info.max_syncs_per_submit
 * @in_syncs: in: user pointer to struct drm_tern_sync: the bind runs once
 *	all of them signalled
 * @out_syncs: in: user pointer to struct drm_tern_sync: they get the bind's
 *	fence (replaced for a binary syncobj, added at the point of a
 *	timeline)
 * @out_sync_count: in: entries of @out_syncs, at most
 *	&drm_tern_get_info.max_syncs_per_submit
 * @error_index: out: when an operation is refused, its index in @ops; on
 *	success, or an error that is no operation's, @count
 * @seqno: out: the bind's number in the address space, counting from 1
 *	(DRM_IOCTL_TERN_VM_BIND's binds count too); 0 if it was not queued
 * @pad: must be 0
 * @pad2: must be 0
 *
 * Added in interface version 1.4.
 *
 * The ioctl checks every operation and returns at once: the bind runs
 * later, after the binds of the address space queued before it (by this
 * ioctl or DRM_IOCTL_TERN_VM_BIND) and once its in-syncs signalled.  Its
 * operations run in the order of @ops, and its fence signals once all of
 * them ran: the device's page tables changed and, after an unmap (or a map
 * with %DRM_TERN_VM_BIND_REPLACE that removed something), every
 * engine's TLB invalidated.  A job that uses a mapping the bind makes
 * waits for that fence like for any other in-sync.
 *
 * Each operation is checked at the ioctl against the address space as the
 * binds queued before it, and the operations before it in @ops, leave it,
 * with the errors of DRM_IOCTL_TERN_VM_BIND: a map over a range in use is
 * -EEXIST, an unmap of a range with no mapping -ENOENT, and so on.  If
 * one is refused, nothing is queued.
 *
 * An unmap (and a map with %DRM_TERN_VM_BIND_REPLACE) waits for the jobs
 * that listed the BOs it unmaps in
 * &drm_tern_submit.bo_handles, submitted before the ioctl (and, for a
 * shared BO, for the other users of its reservation object); it does not
 * wait for the other jobs of the file.  A job that uses the range without
 * listing its BO, or that is submitted after the ioctl, may fault on it
 * once the bind ran.  The pages and page tables the unmap removes are
 * given back once the jobs that may still reach them finished, after the
 * fence signalled.
 *
 * A bind one of whose in-syncs signalled with an error does not run: its
 * fence signals with that error, and every bind queued after it, which
 * was checked against the address space it would have made, is cancelled:
 * its fence signals with -ECANCELED.  The address space is left as the
 * binds before them made it, DRM_IOCTL_TERN_VM_GET_STATE reports the
 * failure, and later binds are taken as usual.  If the device fails to make
 * a bind (its fence signals -EIO), the address space takes no other change
 * (see DRM_IOCTL_TERN_VM_BIND's -EIO).  Binds not run when the file is
 * closed are cancelled; when the device is removed they fail with -ENODEV.
 *
 * With %DRM_TERN_VM_BIND_OPS_SYNC the ioctl behaves as
 * DRM_IOCTL_TERN_VM_BIND does, for all the operations: it first waits,
 * interruptibly and with nothing changed, for the in-syncs, for the binds
 * queued before it and, if it unmaps, for every job of the file submitted
 * before it (not only those that listed the BOs); then it queues the bind,
 * waits for it and returns its result (0, or an error above; an in-sync
 * that failed fails it).  The bind waits for the fences the in-syncs held
 * when the ioctl looked them up.  A signal during the first waits gives
 * -EINTR or -ERESTARTSYS and queues nothing, so the ioctl can be
 * restarted; the last wait, for its own update, is not interruptible.  The
 * memory it unmapped is given back once no job can reach it, maybe after
 * the ioctl returned.
 *
 * Errors: -EINVAL @flags, @pad or @pad2, @count 0 or above the maximum,
 * @stride too small or too large, sync counts above the maximum, a sync with flags, or
 * an operation DRM_IOCTL_TERN_VM_BIND refuses with -EINVAL; -E2BIG an
 * entry of @ops has non-zero bytes beyond sizeof(struct drm_tern_vm_bind); -ERANGE, -EEXIST,
 * -ENOENT (also: no such syncobj, or a timeline in-point with no fence yet)
 * and -ENOSPC as DRM_IOCTL_TERN_VM_BIND returns them, @error_index telling
 * which operation; -EAGAIN the address space already has
 * %DRM_TERN_VM_BIND_QUEUE_MAX operations queued: wait for a bind's fence
 * and retry; -EIO the address space takes no change any more; -EFAULT;
 * -ENOMEM; -EINTR/-ERESTARTSYS a signal arrived before the bind was
 * queued (nothing was); -ENODEV the device is gone.  Only @error_index and
 * @seqno are written.
 */
struct drm_tern_vm_bind_ops {
	__u64 ops;
	__u32 count;
	__u32 stride;
	__u32 flags;
	__u32 in_sync_count;
	__u64 in_syncs;
	__u64 out_syncs;
	__u32 out_sync_count;
	__u32 error_index;
	__u64 seqno;
	__u32 pad;
	__u32 pad2;
};

/**
 * struct drm_tern_vm_get_state - DRM_IOCTL_TERN_VM_GET_STATE: the state of
 *	the caller's address space, independent of any context
 * @flags: in: must be 0
 * @error: out: 0 while the address space takes changes; -EIO once the
 *	device failed to make one (every later bind fails with it), -ENODEV
 *	once the device is gone
 * @queued: out: seqno of the last bind queued
 * @done: out: seqno of the last bind done (ran, failed or cancelled): its
 *	fence signalled; binds are done in order, so every bind up to it is
 * @bind_error: out: error of the last bind that failed (an in-sync's
 *	error, or the device's), 0 if none did
 * @pad: must be 0
 * @bind_error_seqno: out: seqno of that bind
 * @binds_failed: out: binds that failed
 * @binds_cancelled: out: binds cancelled because one before them failed
 *	(their fences signalled -ECANCELED), or because the device went away
 *	(-ENODEV)
 * @mapped: out: bytes mapped, as the binds queued leave the address space
 * @update_ns: out: device time of the address space's page-table updates
 *
 * Added in interface version 1.4.
 *
 * Errors: -EINVAL @flags or @pad not 0.
 */
struct drm_tern_vm_get_state {
	__u32 flags;
	__s32 error;
	__u64 queued;
	__u64 done;
	__s32 bind_error;
	__u32 pad;
	__u64 bind_error_seqno;
	__u64 binds_failed;
	__u64 binds_cancelled;
	__u64 mapped;
	__u64 update_ns;
};

#define DRM_IOCTL_TERN_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TERN_BO_CREATE, struct drm_tern_bo_create)
#define DRM_IOCTL_TERN_BO_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TERN_BO_INFO, struct drm_tern_bo_info)
#define DRM_IOCTL_TERN_VM_BIND \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TERN_VM_BIND, struct drm_tern_vm_bind)
#define DRM_IOCTL_TERN_VM_BIND_OPS \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TERN_VM_BIND_OPS, struct drm_tern_vm_bind_ops)
#define DRM_IOCTL_TERN_VM_GET_STATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TERN_VM_GET_STATE, struct drm_tern_vm_get_state)

/* ---- end of the memory ioctls ---- */

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_TERN_ACCEL_H_ */
