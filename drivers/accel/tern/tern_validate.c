// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/overflow.h>

#include <drm/tern_accel.h>

#include "tern_regs.h"
#include "tern_validate.h"

/**
 * DOC: command-buffer validation
 *
 * Every user command buffer is validated once, after it has been copied into
 * the kernel-owned DMA buffer and before anything of it reaches the device,
 * so that rewriting the user's copy afterwards changes nothing.  The
 * validator is pure logic: it sees the dwords and nothing else, needs no
 * device and no memory map, and is tested by KUnit under UML.
 *
 * It walks the packets in order and refuses the whole buffer at the first
 * packet that breaks a rule.  Each class of error has its own errno, which
 * the submit ioctl returns as is (see DRM_IOCTL_TERN_SUBMIT):
 *
 * -EBADMSG
 *	the packet is malformed: reserved header bits set, a length of zero,
 *	a length that differs from the opcode's fixed length, a packet that
 *	runs past the end of the buffer, or an empty buffer.
 * -EPERM
 *	the opcode is privileged (bit 7 set): only the driver emits those.
 * -ENOEXEC
 *	the opcode is not one the device knows, or it is a compute packet
 *	(VECADD, SAXPY, GEMM, REDUCE) in a buffer for the copy engine.
 * -EINVAL
 *	an operand breaks a rule of docs/hardware.md section 8.2, which the
 *	device would fault with BAD_OPERAND: a size, count or SPIN duration of
 *	zero, a count above its limit, GEMM dimensions, a misaligned VA,
 *	overlapping ranges where the packet forbids them, a WAIT_MEM timeout
 *	outside 1..TERN_WAIT_TIMEOUT_MAX_US, an unknown reduction.  Also a
 *	range that leaves the 48-bit VA space, which the device would fault
 *	as NOT_PRESENT: no such buffer can complete.
 *
 * Whether an address is mapped is not checked here: the device translates
 * every operand through the context's page tables and faults on anything
 * that is not mapped, which is reported to that context only.
 *
 * Privileged packets are refused before unknown ones, so any opcode with
 * bit 7 set gives -EPERM whether or not the device implements it.
 */

#define TERN_VA_LIMIT	BIT_ULL(TERN_VA_BITS)

struct tern_validate_ctx {
	const u32 *pkt;
	struct tern_validate_error *err;
};

static u32 tern_dw(const u32 *dw, u32 i)
{
	/* The buffer is little-endian, as the device reads it. */
	return le32_to_cpu((__force __le32)dw[i]);
}

static u64 tern_dw64(const u32 *dw, u32 lo)
{
	return (u64)tern_dw(dw, lo + 1) << 32 | tern_dw(dw, lo);
}

static int tern_bad_operand(struct tern_validate_ctx *v, const char *reason)
{
	v->err->reason = reason;
	return -EINVAL;
}

/*
 * A range of @size bytes at @va with @align alignment: aligned, and inside
 * the VA space (a zero size is checked by the caller when it matters).
 */
static bool tern_range_ok(u64 va, u64 size, u64 align)
{
	u64 end;

	if (va & (align - 1))
		return false;
	if (check_add_overflow(va, size, &end))
		return false;
	return end <= TERN_VA_LIMIT;
}

static bool tern_ranges_overlap(u64 a, u64 asize, u64 b, u64 bsize)
{
	return a < b + bsize && b < a + asize;
}

/* A naturally aligned scalar of @size bytes at the VA in dwords @lo, @lo + 1. */
static int tern_check_va(struct tern_validate_ctx *v, u32 lo, u64 size)
{
	if (!tern_range_ok(tern_dw64(v->pkt, lo), size, size))
		return tern_bad_operand(v, "misaligned or out-of-range VA");
	return 0;
}

static int tern_check_write_imm(struct tern_validate_ctx *v)
{
	return tern_check_va(v, 1, sizeof(u32));
}

static int tern_check_timestamp(struct tern_validate_ctx *v)
{
	return tern_check_va(v, 1, sizeof(u64));
}

static int tern_check_copy(struct tern_validate_ctx *v)
{
	u64 src = tern_dw64(v->pkt, 1);
	u64 dst = tern_dw64(v->pkt, 3);
	u32 size = tern_dw(v->pkt, 5);

	if (!size)
		return tern_bad_operand(v, "zero-sized copy");
	if (!tern_range_ok(src, size, 1) || !tern_range_ok(dst, size, 1))
		return tern_bad_operand(v, "copy range outside the VA space");
	if (tern_ranges_overlap(src, size, dst, size))
		return tern_bad_operand(v, "overlapping copy");
	return 0;
}

static int tern_check_fill(struct tern_validate_ctx *v)
{
	u64 dst = tern_dw64(v->pkt, 1);
	u32 size = tern_dw(v->pkt, 3);

	if (!size || size % 4)
		return tern_bad_operand(v, "fill size zero or not a multiple of 4");
	if (!tern_range_ok(dst, size, 4))
		return tern_bad_operand(v, "misaligned or out-of-range fill");
	return 0;
}

static int tern_check_wait_mem(struct tern_validate_ctx *v)
{
	u32 timeout = tern_dw(v->pkt, 4);
	int ret;

	ret = tern_check_va(v, 1, sizeof(u32));
	if (ret)
		return ret;
	if (!timeout || timeout > TERN_WAIT_TIMEOUT_MAX_US)
		return tern_bad_operand(v, "WAIT_MEM timeout out of range");
	return 0;
}

static int tern_check_vector(struct tern_validate_ctx *v, u32 count,
			     const u32 *va_lo, unsigned int nva)
{
	unsigned int i;

	if (!count || count > TERN_VECTOR_LEN_MAX)
		return tern_bad_operand(v, "vector length zero or too large");
	for (i = 0; i < nva; i++)
		if (!tern_range_ok(tern_dw64(v->pkt, va_lo[i]), (u64)count * 4, 4))
			return tern_bad_operand(v, "misaligned or out-of-range vector");
	return 0;
}

/* An element-wise output must be its input or lie apart from it. */
static bool tern_same_or_disjoint(u64 a, u64 b, u64 size)
{
	return a == b || !tern_ranges_overlap(a, size, b, size);
}

static int tern_check_vecadd(struct tern_validate_ctx *v)
{
	static const u32 va_lo[] = { 1, 3, 5 };
	u64 size = (u64)tern_dw(v->pkt, 7) * 4;
	u64 c = tern_dw64(v->pkt, 5);
	int ret;

	ret = tern_check_vector(v, tern_dw(v->pkt, 7), va_lo, ARRAY_SIZE(va_lo));
	if (ret)
		return ret;
	if (!tern_same_or_disjoint(c, tern_dw64(v->pkt, 1), size) ||
	    !tern_same_or_disjoint(c, tern_dw64(v->pkt, 3), size))
		return tern_bad_operand(v, "VECADD output partly overlaps an input");
	return 0;
}

static int tern_check_saxpy(struct tern_validate_ctx *v)
{
	static const u32 va_lo[] = { 1, 3 };
	u64 size = (u64)tern_dw(v->pkt, 5) * 4;
	int ret;

	ret = tern_check_vector(v, tern_dw(v->pkt, 5), va_lo, ARRAY_SIZE(va_lo));
	if (ret)
		return ret;
	if (!tern_same_or_disjoint(tern_dw64(v->pkt, 3), tern_dw64(v->pkt, 1), size))
		return tern_bad_operand(v, "SAXPY y partly overlaps x");
	return 0;
}

static int tern_check_spin(struct tern_validate_ctx *v)
{
	if (!tern_dw(v->pkt, 1))
		return tern_bad_operand(v, "zero SPIN duration");
	return 0;
}

static bool tern_gemm_dim_ok(u32 d)
{
	return d && d <= TERN_GEMM_DIM_MAX;
}

static int tern_check_gemm(struct tern_validate_ctx *v)
{
	u64 a = tern_dw64(v->pkt, 1), b = tern_dw64(v->pkt, 3);
	u64 c = tern_dw64(v->pkt, 5);
	u64 m = tern_dw(v->pkt, 7), n = tern_dw(v->pkt, 8);
	u64 k = tern_dw(v->pkt, 9);
	u64 asize, bsize, csize;

	if (!tern_gemm_dim_ok(m) || !tern_gemm_dim_ok(n) || !tern_gemm_dim_ok(k))
		return tern_bad_operand(v, "GEMM dimension zero or too large");

	/* At most 4096 * 4096 * 4 bytes each: no overflow. */
	asize = m * k * 4;
	bsize = k * n * 4;
	csize = m * n * 4;
	if (!tern_range_ok(a, asize, 4) || !tern_range_ok(b, bsize, 4) ||
	    !tern_range_ok(c, csize, 4))
		return tern_bad_operand(v, "misaligned or out-of-range matrix");
	if (tern_ranges_overlap(c, csize, a, asize) ||
	    tern_ranges_overlap(c, csize, b, bsize))
		return tern_bad_operand(v, "GEMM output overlaps an input");
	return 0;
}

static int tern_check_reduce(struct tern_validate_ctx *v)
{
	static const u32 va_lo[] = { 1 };
	u32 count_op = tern_dw(v->pkt, 5);
	int ret;

	if (TERN_REDUCE_OP(count_op) > TERN_REDUCE_MAX)
		return tern_bad_operand(v, "unknown reduction");
	ret = tern_check_vector(v, TERN_REDUCE_COUNT(count_op), va_lo,
				ARRAY_SIZE(va_lo));
	if (ret)
		return ret;
	return tern_check_va(v, 3, sizeof(u32));
}

/**
 * struct tern_packet_desc - what the validator knows of one opcode
 * @dwords: the fixed packet length, 0 for any length (NOP)
 * @compute: the packet runs on compute engines only
 * @check: operand checks, NULL if the packet has no operand rule
 */
struct tern_packet_desc {
	u16 dwords;
	bool compute;
	int (*check)(struct tern_validate_ctx *v);
};

static const struct tern_packet_desc tern_packets[TERN_PKT_PRIVILEGED] = {
	[TERN_OP_NOP] = { 0, false, NULL },
	[TERN_OP_WRITE_IMM] = { TERN_PKT_DWORDS_WRITE_IMM, false, tern_check_write_imm },
	[TERN_OP_FENCE] = { TERN_PKT_DWORDS_FENCE, false, tern_check_write_imm },
	[TERN_OP_TIMESTAMP] = { TERN_PKT_DWORDS_TIMESTAMP, false, tern_check_timestamp },
	[TERN_OP_COPY] = { TERN_PKT_DWORDS_COPY, false, tern_check_copy },
	[TERN_OP_FILL] = { TERN_PKT_DWORDS_FILL, false, tern_check_fill },
	[TERN_OP_SPIN] = { TERN_PKT_DWORDS_SPIN, false, tern_check_spin },
	[TERN_OP_WAIT_MEM] = { TERN_PKT_DWORDS_WAIT_MEM, false, tern_check_wait_mem },
	[TERN_OP_VECADD] = { TERN_PKT_DWORDS_VECADD, true, tern_check_vecadd },
	[TERN_OP_SAXPY] = { TERN_PKT_DWORDS_SAXPY, true, tern_check_saxpy },
	[TERN_OP_GEMM] = { TERN_PKT_DWORDS_GEMM, true, tern_check_gemm },
	[TERN_OP_REDUCE] = { TERN_PKT_DWORDS_REDUCE, true, tern_check_reduce },
};

static bool tern_opcode_known(u32 op)
{
	return op == TERN_OP_NOP || tern_packets[op].dwords;
}

static int tern_refuse(struct tern_validate_error *err, int errno,
		       const char *reason)
{
	err->reason = reason;
	return errno;
}

/**
 * tern_validate_cmdbuf_class() - check a command buffer for an engine class
 * @dw: the command buffer, in kernel memory, little-endian dwords
 * @ndw: number of dwords in @dw
 * @engine_class: TERN_ENG_CLASS_* of the engine that will run it
 * @err: filled with the position and opcode of the refused packet
 *
 * See "command-buffer validation" above for the rules.  On top of them,
 * compute packets are refused with -ENOEXEC for the copy engine, which
 * cannot execute them.
 *
 * Return: 0 if every packet is valid, -EBADMSG for a malformed packet,
 * -EPERM for a privileged packet, -ENOEXEC for an unknown opcode (or one the
 * engine class cannot run) or -EINVAL for a bad operand.
 */
int tern_validate_cmdbuf_class(const u32 *dw, u32 ndw, u32 engine_class,
			       struct tern_validate_error *err)
{
	struct tern_validate_ctx v = { .err = err };
	u32 i = 0;

	err->offset = 0;
	err->opcode = 0;
	if (!ndw)
		return tern_refuse(err, -EBADMSG, "empty command buffer");

	while (i < ndw) {
		u32 hdr = tern_dw(dw, i);
		u32 op = TERN_PKT_OPCODE(hdr);
		u32 len = TERN_PKT_LENGTH(hdr);
		const struct tern_packet_desc *desc;
		int ret;

		err->offset = i;
		err->opcode = op;

		if (TERN_PKT_RESERVED(hdr))
			return tern_refuse(err, -EBADMSG, "reserved header bits set");
		if (op & TERN_PKT_PRIVILEGED)
			return tern_refuse(err, -EPERM, "privileged packet");
		if (!tern_opcode_known(op))
			return tern_refuse(err, -ENOEXEC, "unknown opcode");

		desc = &tern_packets[op];
		if (desc->compute && engine_class == TERN_ENG_CLASS_COPY)
			return tern_refuse(err, -ENOEXEC,
					   "compute packet for the copy engine");
		if (!len || (desc->dwords && len != desc->dwords))
			return tern_refuse(err, -EBADMSG, "wrong packet length");
		if (len > ndw - i)
			return tern_refuse(err, -EBADMSG, "packet runs past the end");

		if (desc->check) {
			v.pkt = &dw[i];
			ret = desc->check(&v);
			if (ret)
				return ret;
		}
		i += len;
	}

	return 0;
}

/**
 * tern_validate_cmdbuf() - check every packet of a user command buffer
 * @dw: the command buffer, in kernel memory, little-endian dwords
 * @ndw: number of dwords in @dw
 * @err: filled with the position and opcode of the refused packet
 *
 * The same as tern_validate_cmdbuf_class() for a compute engine.
 *
 * Return: 0 if every packet is valid, -EBADMSG for a malformed packet,
 * -EPERM for a privileged packet, -ENOEXEC for an unknown opcode or -EINVAL
 * for a bad operand.
 */
int tern_validate_cmdbuf(const u32 *dw, u32 ndw, struct tern_validate_error *err)
{
	return tern_validate_cmdbuf_class(dw, ndw, TERN_ENG_CLASS_COMPUTE, err);
}

/* Limits of a job that may follow another in a batch (tern_sched.c). */
#define TERN_BATCH_SPIN_US	100
#define TERN_BATCH_BYTES	65536
#define TERN_BATCH_ELEMS	16384
#define TERN_BATCH_MACS		BIT(18)

/**
 * tern_validate_batchable() - whether a validated buffer is short work
 * @dw: the command buffer, already accepted by tern_validate_cmdbuf_class()
 * @ndw: number of dwords in @dw
 *
 * The fences of the jobs ahead of it in a batch wait until it ends: it
 * must be short, and wait for nothing (a WAIT_MEM may wait for a word the
 * CPU writes once those fences signalled).  Short: no WAIT_MEM, SPINs of
 * at most TERN_BATCH_SPIN_US, copies and fills of at most
 * TERN_BATCH_BYTES, vectors of at most TERN_BATCH_ELEMS elements, GEMMs of
 * at most TERN_BATCH_MACS multiply-adds.
 *
 * Return: true if the buffer may follow another job in a batch.
 */
bool tern_validate_batchable(const u32 *dw, u32 ndw)
{
	u32 i = 0;

	while (i < ndw) {
		u32 hdr = tern_dw(dw, i), len = TERN_PKT_LENGTH(hdr);
		const u32 *pkt = &dw[i];
		u64 macs;

		switch (TERN_PKT_OPCODE(hdr)) {
		case TERN_OP_NOP:
		case TERN_OP_WRITE_IMM:
		case TERN_OP_FENCE:
		case TERN_OP_TIMESTAMP:
			break;
		case TERN_OP_SPIN:
			if (tern_dw(pkt, 1) > TERN_BATCH_SPIN_US)
				return false;
			break;
		case TERN_OP_COPY:
			if (tern_dw(pkt, 5) > TERN_BATCH_BYTES)
				return false;
			break;
		case TERN_OP_FILL:
			if (tern_dw(pkt, 3) > TERN_BATCH_BYTES)
				return false;
			break;
		case TERN_OP_VECADD:
			if (tern_dw(pkt, 7) > TERN_BATCH_ELEMS)
				return false;
			break;
		case TERN_OP_SAXPY:
			if (tern_dw(pkt, 5) > TERN_BATCH_ELEMS)
				return false;
			break;
		case TERN_OP_REDUCE:
			if (TERN_REDUCE_COUNT(tern_dw(pkt, 5)) > TERN_BATCH_ELEMS)
				return false;
			break;
		case TERN_OP_GEMM:
			macs = (u64)tern_dw(pkt, 7) * tern_dw(pkt, 8) * tern_dw(pkt, 9);
			if (macs > TERN_BATCH_MACS)
				return false;
			break;
		default:	/* WAIT_MEM, and anything else */
			return false;
		}
		if (!len)
			return false;
		i += len;
	}
	return true;
}
