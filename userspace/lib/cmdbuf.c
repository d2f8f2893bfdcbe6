// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * cmdbuf.c - the command-buffer builder.
 *
 * Packets are encoded with the definitions of <drm/tern_accel.h>, the one
 * description of the format the driver validates and the device executes.
 * Each builder checks the operand rules of the driver's validator, so a
 * mistake is reported where it is made, with its reason, and records the
 * address ranges the packet touches so that tern_submit() can find the
 * buffers the job needs.  A failing builder leaves the buffer as it was.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tern_accel.h"


_Static_assert((int)TERN_REDUCTION_SUM == TERN_REDUCE_SUM && (int)TERN_REDUCTION_MIN == TERN_REDUCE_MIN &&
	       (int)TERN_REDUCTION_MAX == TERN_REDUCE_MAX, "reductions");

/* The library's hard cap, whatever the caller asks for: 64 MiB. */
#define CMDBUF_HARD_MAX		(64u << 20)

const char *tern_opcode_name(uint32_t opcode)
{
	switch (opcode) {
	case TERN_OP_NOP: return "NOP";
	case TERN_OP_WRITE_IMM: return "WRITE_IMM";
	case TERN_OP_FENCE: return "FENCE";
	case TERN_OP_TIMESTAMP: return "TIMESTAMP";
	case TERN_OP_COPY: return "COPY";
	case TERN_OP_FILL: return "FILL";
	case TERN_OP_SPIN: return "SPIN";
	case TERN_OP_WAIT_MEM: return "WAIT_MEM";
	case TERN_OP_VECADD: return "VECADD";
	case TERN_OP_SAXPY: return "SAXPY";
	case TERN_OP_GEMM: return "GEMM";
	case TERN_OP_REDUCE: return "REDUCE";
	case TERN_OP_TLB_INVALIDATE: return "TLB_INVALIDATE";
	case TERN_OP_PHYS_COPY: return "PHYS_COPY";
	}
	return "unknown";
}

int tern_cmdbuf_create(size_t max_bytes, struct tern_cmdbuf **cbp)
{
	struct tern_cmdbuf *cb;

	*cbp = NULL;
	tern_clearerr();
	if (!max_bytes)
		max_bytes = TERN_CMDBUF_DEFAULT_MAX;
	if (max_bytes % 4)
		return tern_seterr(-EINVAL, "command buffer: limit of %zu bytes is not a "
				   "multiple of 4", max_bytes);
	if (max_bytes > CMDBUF_HARD_MAX)
		max_bytes = CMDBUF_HARD_MAX;
	cb = calloc(1, sizeof(*cb));
	if (!cb)
		return tern_seterr(-ENOMEM, "command buffer: out of memory");
	cb->max = max_bytes / 4;
	cb->first_compute = -1;
	*cbp = cb;
	return 0;
}

void tern_cmdbuf_free(struct tern_cmdbuf *cb)
{
	if (!cb)
		return;
	free(cb->dw);
	free(cb->ranges);
	free(cb);
}

void tern_cmdbuf_reset(struct tern_cmdbuf *cb)
{
	cb->len = 0;
	cb->range_count = 0;
	cb->first_compute = -1;
}

const uint32_t *tern_cmdbuf_data(const struct tern_cmdbuf *cb, size_t *dwords)
{
	if (dwords)
		*dwords = cb->len;
	return cb->dw;
}

/*
 * Make room for a packet of @dwords and @nranges address ranges; the
 * packet is then written without any further failure.
 */
static int cb_reserve(struct tern_cmdbuf *cb, const char *name, size_t dwords,
		      size_t nranges)
{
	if (dwords > cb->max - cb->len)
		return tern_seterr(-E2BIG, "%s: the packet (%zu dwords) does not fit: the "
				   "command buffer holds %zu of at most %zu dwords",
				   name, dwords, cb->len, cb->max);
	if (cb->len + dwords > cb->cap) {
		size_t cap = cb->cap ? cb->cap : 256;
		uint32_t *dw;

		while (cap < cb->len + dwords)
			cap *= 2;
		if (cap > cb->max)
			cap = cb->max;
		dw = realloc(cb->dw, cap * sizeof(*dw));
		if (!dw)
			return tern_seterr(-ENOMEM, "%s: out of memory growing the command "
					   "buffer", name);
		cb->dw = dw;
		cb->cap = cap;
	}
	if (cb->range_count + nranges > cb->range_cap) {
		size_t cap = cb->range_cap ? cb->range_cap * 2 : 32;
		struct tern_cmd_range *r;

		while (cap < cb->range_count + nranges)
			cap *= 2;
		r = realloc(cb->ranges, cap * sizeof(*r));
		if (!r)
			return tern_seterr(-ENOMEM, "%s: out of memory growing the command "
					   "buffer", name);
		cb->ranges = r;
		cb->range_cap = cap;
	}
	return 0;
}

static void cb_emit(struct tern_cmdbuf *cb, uint32_t v)
{
	cb->dw[cb->len++] = htole32(v);
}

static void cb_emit64(struct tern_cmdbuf *cb, uint64_t v)
{
	cb_emit(cb, (uint32_t)v);
	cb_emit(cb, (uint32_t)(v >> 32));
}

static void cb_header(struct tern_cmdbuf *cb, uint32_t op, uint32_t dwords)
{
	bool compute = op >= TERN_OP_VECADD && op <= TERN_OP_REDUCE;

	if (compute && cb->first_compute < 0)
		cb->first_compute = (long)cb->len;
	cb_emit(cb, TERN_PKT_HEADER(op, dwords));
}

/* Record that the packet starting now uses [va, va + size). */
static void cb_range(struct tern_cmdbuf *cb, uint64_t va, uint64_t size)
{
	struct tern_cmd_range *r = &cb->ranges[cb->range_count++];

	r->va = va;
	r->size = size;
	r->offset = (uint32_t)cb->len;
}

static bool overlap(uint64_t a, uint64_t asize, uint64_t b, uint64_t bsize)
{
	return a < b + bsize && b < a + asize;
}

static bool wraps(uint64_t va, uint64_t size)
{
	return va + size < va;
}

static int check_addr(const char *name, const char *what, uint64_t va, uint64_t size,
		      uint64_t align)
{
	if (va & (align - 1))
		return tern_seterr(-EINVAL, "%s: %s 0x%llx is not %llu-byte aligned", name,
				   what, (unsigned long long)va, (unsigned long long)align);
	if (wraps(va, size))
		return tern_seterr(-EINVAL, "%s: %s 0x%llx + %llu bytes wraps around",
				   name, what, (unsigned long long)va,
				   (unsigned long long)size);
	return 0;
}

static int check_count(const char *name, uint32_t count)
{
	if (!count || count > TERN_VECTOR_LEN_MAX)
		return tern_seterr(-EINVAL, "%s: %u elements: the device takes 1 to %u",
				   name, count, TERN_VECTOR_LEN_MAX);
	return 0;
}

int tern_cmd_nop(struct tern_cmdbuf *cb, uint32_t dwords)
{
	int ret;

	if (!dwords || dwords > 0xffff)
		return tern_seterr(-EINVAL, "NOP: length %u dwords: 1 to 65535", dwords);
	ret = cb_reserve(cb, "NOP", dwords, 0);
	if (ret)
		return ret;
	cb_header(cb, TERN_OP_NOP, dwords);
	while (--dwords)
		cb_emit(cb, 0);
	return 0;
}

static int write32(struct tern_cmdbuf *cb, const char *name, uint32_t op, uint64_t va,
		   uint32_t value)
{
	int ret;

	ret = check_addr(name, "address", va, 4, 4);
	if (!ret)
		ret = cb_reserve(cb, name, 4, 1);
	if (ret)
		return ret;
	cb_range(cb, va, 4);
	cb_header(cb, op, 4);
	cb_emit64(cb, va);
	cb_emit(cb, value);
	return 0;
}

int tern_cmd_write_imm(struct tern_cmdbuf *cb, uint64_t va, uint32_t value)
{
	_Static_assert((int)TERN_PKT_DWORDS_WRITE_IMM == 4, "WRITE_IMM length");
	return write32(cb, "WRITE_IMM", TERN_OP_WRITE_IMM, va, value);
}

int tern_cmd_fence(struct tern_cmdbuf *cb, uint64_t va, uint32_t seqno)
{
	_Static_assert((int)TERN_PKT_DWORDS_FENCE == 4, "FENCE length");
	return write32(cb, "FENCE", TERN_OP_FENCE, va, seqno);
}

int tern_cmd_timestamp(struct tern_cmdbuf *cb, uint64_t va)
{
	int ret;

	ret = check_addr("TIMESTAMP", "address", va, 8, 8);
	if (!ret)
		ret = cb_reserve(cb, "TIMESTAMP", TERN_PKT_DWORDS_TIMESTAMP, 1);
	if (ret)
		return ret;
	cb_range(cb, va, 8);
	cb_header(cb, TERN_OP_TIMESTAMP, TERN_PKT_DWORDS_TIMESTAMP);
	cb_emit64(cb, va);
	return 0;
}

int tern_cmd_copy(struct tern_cmdbuf *cb, uint64_t dst, uint64_t src, uint32_t size)
{
	int ret;

	if (!size)
		return tern_seterr(-EINVAL, "COPY: zero bytes");
	ret = check_addr("COPY", "source", src, size, 1);
	if (!ret)
		ret = check_addr("COPY", "destination", dst, size, 1);
	if (ret)
		return ret;
	if (overlap(src, size, dst, size))
		return tern_seterr(-EINVAL, "COPY: source 0x%llx and destination 0x%llx "
				   "overlap (%u bytes)", (unsigned long long)src,
				   (unsigned long long)dst, size);
	ret = cb_reserve(cb, "COPY", TERN_PKT_DWORDS_COPY, 2);
	if (ret)
		return ret;
	cb_range(cb, src, size);
	cb_range(cb, dst, size);
	cb_header(cb, TERN_OP_COPY, TERN_PKT_DWORDS_COPY);
	cb_emit64(cb, src);
	cb_emit64(cb, dst);
	cb_emit(cb, size);
	return 0;
}

int tern_cmd_fill(struct tern_cmdbuf *cb, uint64_t dst, uint32_t size, uint32_t value)
{
	int ret;

	if (!size || size % 4)
		return tern_seterr(-EINVAL, "FILL: %u bytes: must be a non-zero multiple of 4",
				   size);
	ret = check_addr("FILL", "destination", dst, size, 4);
	if (!ret)
		ret = cb_reserve(cb, "FILL", TERN_PKT_DWORDS_FILL, 1);
	if (ret)
		return ret;
	cb_range(cb, dst, size);
	cb_header(cb, TERN_OP_FILL, TERN_PKT_DWORDS_FILL);
	cb_emit64(cb, dst);
	cb_emit(cb, size);
	cb_emit(cb, value);
	return 0;
}

int tern_cmd_spin(struct tern_cmdbuf *cb, uint32_t duration_us)
{
	int ret;

	if (!duration_us)
		return tern_seterr(-EINVAL, "SPIN: zero duration");
	ret = cb_reserve(cb, "SPIN", TERN_PKT_DWORDS_SPIN, 0);
	if (ret)
		return ret;
	cb_header(cb, TERN_OP_SPIN, TERN_PKT_DWORDS_SPIN);
	cb_emit(cb, duration_us);
	return 0;
}

int tern_cmd_wait_mem(struct tern_cmdbuf *cb, uint64_t va, uint32_t value,
		      uint32_t timeout_us)
{
	int ret;

	if (!timeout_us || timeout_us > TERN_WAIT_TIMEOUT_MAX_US)
		return tern_seterr(-EINVAL, "WAIT_MEM: timeout %u us: the device takes 1 to %u",
				   timeout_us, TERN_WAIT_TIMEOUT_MAX_US);
	ret = check_addr("WAIT_MEM", "address", va, 4, 4);
	if (!ret)
		ret = cb_reserve(cb, "WAIT_MEM", TERN_PKT_DWORDS_WAIT_MEM, 1);
	if (ret)
		return ret;
	cb_range(cb, va, 4);
	cb_header(cb, TERN_OP_WAIT_MEM, TERN_PKT_DWORDS_WAIT_MEM);
	cb_emit64(cb, va);
	cb_emit(cb, value);
	cb_emit(cb, timeout_us);
	return 0;
}

/* An element-wise output must be its input or lie apart from it. */
static bool same_or_disjoint(uint64_t a, uint64_t b, uint64_t size)
{
	return a == b || !overlap(a, size, b, size);
}

int tern_cmd_vecadd(struct tern_cmdbuf *cb, uint64_t c, uint64_t a, uint64_t b,
		    uint32_t count)
{
	uint64_t size = (uint64_t)count * 4;
	int ret;

	ret = check_count("VECADD", count);
	if (!ret)
		ret = check_addr("VECADD", "a", a, size, 4);
	if (!ret)
		ret = check_addr("VECADD", "b", b, size, 4);
	if (!ret)
		ret = check_addr("VECADD", "c", c, size, 4);
	if (ret)
		return ret;
	if (!same_or_disjoint(c, a, size) || !same_or_disjoint(c, b, size))
		return tern_seterr(-EINVAL, "VECADD: c partly overlaps a or b (it may only "
				   "equal one of them)");
	ret = cb_reserve(cb, "VECADD", TERN_PKT_DWORDS_VECADD, 3);
	if (ret)
		return ret;
	cb_range(cb, a, size);
	cb_range(cb, b, size);
	cb_range(cb, c, size);
	cb_header(cb, TERN_OP_VECADD, TERN_PKT_DWORDS_VECADD);
	cb_emit64(cb, a);
	cb_emit64(cb, b);
	cb_emit64(cb, c);
	cb_emit(cb, count);
	return 0;
}

int tern_cmd_saxpy(struct tern_cmdbuf *cb, uint64_t y, uint64_t x, float alpha,
		   uint32_t count)
{
	uint64_t size = (uint64_t)count * 4;
	uint32_t alpha_bits;
	int ret;

	ret = check_count("SAXPY", count);
	if (!ret)
		ret = check_addr("SAXPY", "x", x, size, 4);
	if (!ret)
		ret = check_addr("SAXPY", "y", y, size, 4);
	if (ret)
		return ret;
	if (!same_or_disjoint(y, x, size))
		return tern_seterr(-EINVAL, "SAXPY: y partly overlaps x");
	ret = cb_reserve(cb, "SAXPY", TERN_PKT_DWORDS_SAXPY, 2);
	if (ret)
		return ret;
	memcpy(&alpha_bits, &alpha, sizeof(alpha_bits));
	cb_range(cb, x, size);
	cb_range(cb, y, size);
	cb_header(cb, TERN_OP_SAXPY, TERN_PKT_DWORDS_SAXPY);
	cb_emit64(cb, x);
	cb_emit64(cb, y);
	cb_emit(cb, count);
	cb_emit(cb, alpha_bits);
	return 0;
}

int tern_cmd_gemm(struct tern_cmdbuf *cb, uint64_t c, uint64_t a, uint64_t b,
		  uint32_t m, uint32_t n, uint32_t k)
{
	uint64_t asize = (uint64_t)m * k * 4, bsize = (uint64_t)k * n * 4;
	uint64_t csize = (uint64_t)m * n * 4;
	int ret;

	if (!m || !n || !k || m > TERN_GEMM_DIM_MAX || n > TERN_GEMM_DIM_MAX ||
	    k > TERN_GEMM_DIM_MAX)
		return tern_seterr(-EINVAL, "GEMM: %ux%ux%u (m x n x k): each dimension "
				   "must be 1 to %u", m, n, k, TERN_GEMM_DIM_MAX);
	ret = check_addr("GEMM", "A", a, asize, 4);
	if (!ret)
		ret = check_addr("GEMM", "B", b, bsize, 4);
	if (!ret)
		ret = check_addr("GEMM", "C", c, csize, 4);
	if (ret)
		return ret;
	if (overlap(c, csize, a, asize) || overlap(c, csize, b, bsize))
		return tern_seterr(-EINVAL, "GEMM: C overlaps A or B");
	ret = cb_reserve(cb, "GEMM", TERN_PKT_DWORDS_GEMM, 3);
	if (ret)
		return ret;
	cb_range(cb, a, asize);
	cb_range(cb, b, bsize);
	cb_range(cb, c, csize);
	cb_header(cb, TERN_OP_GEMM, TERN_PKT_DWORDS_GEMM);
	cb_emit64(cb, a);
	cb_emit64(cb, b);
	cb_emit64(cb, c);
	cb_emit(cb, m);
	cb_emit(cb, n);
	cb_emit(cb, k);
	return 0;
}

int tern_cmd_reduce(struct tern_cmdbuf *cb, uint64_t dst, uint64_t src, uint32_t count,
		    uint32_t op)
{
	uint64_t size = (uint64_t)count * 4;
	int ret;

	if (op > TERN_REDUCTION_MAX)
		return tern_seterr(-EINVAL, "REDUCE: unknown reduction %u (0 sum, 1 min, "
				   "2 max)", op);
	ret = check_count("REDUCE", count);
	if (!ret)
		ret = check_addr("REDUCE", "source", src, size, 4);
	if (!ret)
		ret = check_addr("REDUCE", "destination", dst, 4, 4);
	if (!ret)
		ret = cb_reserve(cb, "REDUCE", TERN_PKT_DWORDS_REDUCE, 2);
	if (ret)
		return ret;
	cb_range(cb, src, size);
	cb_range(cb, dst, 4);
	cb_header(cb, TERN_OP_REDUCE, TERN_PKT_DWORDS_REDUCE);
	cb_emit64(cb, src);
	cb_emit64(cb, dst);
	cb_emit(cb, TERN_REDUCE_COUNT_OP(count, op));
	return 0;
}

int tern_cmd_raw(struct tern_cmdbuf *cb, const uint32_t *dw, size_t count)
{
	size_t i;
	int ret;

	ret = cb_reserve(cb, "raw dwords", count, 0);
	if (ret)
		return ret;
	for (i = 0; i < count; i++)
		cb_emit(cb, dw[i]);
	return 0;
}
