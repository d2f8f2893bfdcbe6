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

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_TERN_ACCEL_H_ */
