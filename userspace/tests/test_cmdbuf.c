// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * test_cmdbuf: the command-buffer builder encodes every packet byte for byte
 * as the uAPI specifies, records the address ranges each packet uses,
 * refuses what the driver's validator would refuse (leaving the buffer
 * unchanged), grows, and stops at its size limit.
 *
 * The expected encodings are written out as numbers here, not with the
 * uAPI macros, so a wrong macro or a wrong field order fails.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"
#include "tap.h"

#define VA(x)	((uint64_t)(x))

static bool same(const struct tern_cmdbuf *cb, const uint32_t *want, size_t n)
{
	size_t len;
	const uint32_t *dw = tern_cmdbuf_data(cb, &len);

	return len == n && !memcmp(dw, want, n * 4);
}

/* The little-endian bytes of the buffer equal @bytes. */
static bool same_bytes(const struct tern_cmdbuf *cb, const uint8_t *bytes, size_t n)
{
	size_t len;
	const uint32_t *dw = tern_cmdbuf_data(cb, &len);

	return len * 4 == n && !memcmp(dw, bytes, n);
}

static bool range_is(const struct tern_cmdbuf *cb, size_t i, uint64_t va, uint64_t size,
		     uint32_t offset)
{
	return i < cb->range_count && cb->ranges[i].va == va && cb->ranges[i].size == size &&
	       cb->ranges[i].offset == offset;
}

static struct tern_cmdbuf *fresh(void)
{
	struct tern_cmdbuf *cb;

	if (tern_cmdbuf_create(0, &cb))
		abort();
	return cb;
}

static void test_encodings(void)
{
	struct tern_cmdbuf *cb = fresh();
	float alpha = 2.5f;

	ok(tern_cmd_write_imm(cb, VA(0x123456789abcull), 0xdeadbeef) == 0 &&
	   same(cb, (const uint32_t[]){ 0x00040001, 0x56789abc, 0x1234, 0xdeadbeef }, 4),
	   "WRITE_IMM encodes header 0x00040001, va lo/hi, value");
	ok(range_is(cb, 0, 0x123456789abcull, 4, 0), "WRITE_IMM records 4 bytes at its VA");
	tern_cmdbuf_reset(cb);

	ok(tern_cmd_fence(cb, VA(0x10000), 7) == 0 &&
	   same(cb, (const uint32_t[]){ 0x00040002, 0x10000, 0, 7 }, 4),
	   "FENCE encodes header 0x00040002, va, seqno");
	tern_cmdbuf_reset(cb);

	ok(tern_cmd_timestamp(cb, VA(0x200000008ull)) == 0 &&
	   same(cb, (const uint32_t[]){ 0x00030003, 0x8, 0x2 }, 3),
	   "TIMESTAMP encodes header 0x00030003, va");
	ok(range_is(cb, 0, 0x200000008ull, 8, 0), "TIMESTAMP records 8 bytes");
	tern_cmdbuf_reset(cb);

	ok(tern_cmd_copy(cb, VA(0x2000), VA(0x1000), 100) == 0 &&
	   same(cb, (const uint32_t[]){ 0x00060004, 0x1000, 0, 0x2000, 0, 100 }, 6),
	   "COPY encodes src before dst, then size");
	ok(range_is(cb, 0, 0x1000, 100, 0) && range_is(cb, 1, 0x2000, 100, 0),
	   "COPY records the source and the destination");
	tern_cmdbuf_reset(cb);

	ok(tern_cmd_fill(cb, VA(0x3000), 64, 0xa5a5a5a5) == 0 &&
	   same(cb, (const uint32_t[]){ 0x00050005, 0x3000, 0, 64, 0xa5a5a5a5 }, 5),
	   "FILL encodes dst, size, value");
	tern_cmdbuf_reset(cb);

	ok(tern_cmd_spin(cb, 1500) == 0 && same(cb, (const uint32_t[]){ 0x00020006, 1500 }, 2),
	   "SPIN encodes the duration");
	ok(cb->range_count == 0, "SPIN records no address");
	tern_cmdbuf_reset(cb);

	ok(tern_cmd_wait_mem(cb, VA(0x4004), 3, 1000) == 0 &&
	   same(cb, (const uint32_t[]){ 0x00050007, 0x4004, 0, 3, 1000 }, 5),
	   "WAIT_MEM encodes va, value, timeout");
	tern_cmdbuf_reset(cb);

	ok(tern_cmd_vecadd(cb, VA(0x7000), VA(0x5000), VA(0x6000), 16) == 0 &&
	   same(cb, (const uint32_t[]){ 0x00080010, 0x5000, 0, 0x6000, 0, 0x7000, 0, 16 }, 8),
	   "VECADD encodes a, b, c, count");
	ok(range_is(cb, 0, 0x5000, 64, 0) && range_is(cb, 1, 0x6000, 64, 0) &&
	   range_is(cb, 2, 0x7000, 64, 0), "VECADD records a, b and c (count * 4 bytes)");
	tern_cmdbuf_reset(cb);

	ok(tern_cmd_saxpy(cb, VA(0x9000), VA(0x8000), alpha, 10) == 0 &&
	   same(cb, (const uint32_t[]){ 0x00070011, 0x8000, 0, 0x9000, 0, 10, 0x40200000 }, 7),
	   "SAXPY encodes x, y, count, alpha as IEEE-754 bits (2.5 = 0x40200000)");
	tern_cmdbuf_reset(cb);

	ok(tern_cmd_gemm(cb, VA(0xc000), VA(0xa000), VA(0xb000), 2, 3, 4) == 0 &&
	   same(cb, (const uint32_t[]){ 0x000a0012, 0xa000, 0, 0xb000, 0, 0xc000, 0, 2, 3, 4 },
		10), "GEMM encodes a, b, c, m, n, k");
	ok(range_is(cb, 0, 0xa000, 2 * 4 * 4, 0) && range_is(cb, 1, 0xb000, 4 * 3 * 4, 0) &&
	   range_is(cb, 2, 0xc000, 2 * 3 * 4, 0), "GEMM records A (m*k), B (k*n), C (m*n)");
	tern_cmdbuf_reset(cb);

	ok(tern_cmd_reduce(cb, VA(0xe000), VA(0xd000), 100, TERN_REDUCTION_MAX) == 0 &&
	   same(cb, (const uint32_t[]){ 0x00060013, 0xd000, 0, 0xe000, 0, 0x20000064 }, 6),
	   "REDUCE encodes src, dst, count | op << 28");
	tern_cmdbuf_reset(cb);

	ok(tern_cmd_nop(cb, 3) == 0 && same(cb, (const uint32_t[]){ 0x00030000, 0, 0 }, 3),
	   "NOP of 3 dwords is a header and two zero dwords");
	tern_cmdbuf_reset(cb);

	ok(tern_cmd_write_imm(cb, VA(0x0102030405060708ull), 0x11223344) == 0 &&
	   same_bytes(cb, (const uint8_t[]){ 0x01, 0x00, 0x04, 0x00, 0x08, 0x07, 0x06, 0x05,
					    0x04, 0x03, 0x02, 0x01, 0x44, 0x33, 0x22, 0x11 },
		      16), "packets are little-endian in memory, byte for byte");
	tern_cmdbuf_reset(cb);

	/* offsets of ranges follow the packets */
	tern_cmd_spin(cb, 1);
	tern_cmd_fill(cb, VA(0x1000), 4, 0);
	tern_cmd_timestamp(cb, VA(0x2000));
	ok(range_is(cb, 0, 0x1000, 4, 2) && range_is(cb, 1, 0x2000, 8, 7),
	   "ranges carry the dword offset of their packet");
	ok(cb->first_compute == -1, "no compute packet is noted when there is none");
	tern_cmd_reduce(cb, VA(0x3000), VA(0x4000), 1, 0);
	ok(cb->first_compute == 10, "the first compute packet is noted (dword 10)");
	tern_cmdbuf_reset(cb);

	ok(tern_cmd_raw(cb, (const uint32_t[]){ 0x00010080, 0x12345678 }, 2) == 0 &&
	   same(cb, (const uint32_t[]){ 0x00010080, 0x12345678 }, 2) && cb->range_count == 0,
	   "raw dwords are appended as they are, untracked");
	tern_cmdbuf_free(cb);
}

/* Each call must fail with @err, leave the buffer as it was and say why. */
#define REFUSED(call, err, word, what) do {					\
	size_t before_ = cb->len, ranges_ = cb->range_count;			\
	int r_ = (call);							\
	ok(r_ == (err) && cb->len == before_ && cb->range_count == ranges_ &&	\
	   strstr(tern_last_error(), word), "%s is refused with %s (\"%s\")", what,	\
	   #err, tern_last_error());						\
} while (0)

static void test_refusals(void)
{
	struct tern_cmdbuf *cb = fresh();

	tern_cmd_spin(cb, 5);	/* something to keep intact */
	REFUSED(tern_cmd_write_imm(cb, VA(0x1002), 1), -EINVAL, "aligned", "WRITE_IMM at an unaligned VA");
	REFUSED(tern_cmd_fence(cb, VA(0x1001), 1), -EINVAL, "aligned", "FENCE at an unaligned VA");
	REFUSED(tern_cmd_timestamp(cb, VA(0x1004)), -EINVAL, "8-byte", "TIMESTAMP at a 4- but not 8-byte aligned VA");
	REFUSED(tern_cmd_copy(cb, VA(0x2000), VA(0x1000), 0), -EINVAL, "zero", "COPY of 0 bytes");
	REFUSED(tern_cmd_copy(cb, VA(0x1800), VA(0x1000), 0x1000), -EINVAL, "overlap", "COPY between overlapping ranges");
	REFUSED(tern_cmd_copy(cb, VA(0x1000), VA(UINT64_MAX - 10), 100), -EINVAL, "wraps", "COPY whose source wraps around");
	REFUSED(tern_cmd_fill(cb, VA(0x1000), 6, 0), -EINVAL, "multiple of 4", "FILL of 6 bytes");
	REFUSED(tern_cmd_fill(cb, VA(0x1000), 0, 0), -EINVAL, "multiple of 4", "FILL of 0 bytes");
	REFUSED(tern_cmd_fill(cb, VA(0x1002), 8, 0), -EINVAL, "aligned", "FILL at an unaligned VA");
	REFUSED(tern_cmd_spin(cb, 0), -EINVAL, "zero", "SPIN of 0 us");
	REFUSED(tern_cmd_wait_mem(cb, VA(0x1000), 1, 0), -EINVAL, "timeout", "WAIT_MEM with timeout 0");
	REFUSED(tern_cmd_wait_mem(cb, VA(0x1000), 1, 10000001), -EINVAL, "timeout", "WAIT_MEM with timeout above 10 s");
	ok(tern_cmd_wait_mem(cb, VA(0x1000), 1, 10000000) == 0, "WAIT_MEM with timeout of exactly 10 s is taken");
	REFUSED(tern_cmd_vecadd(cb, VA(0x3000), VA(0x1000), VA(0x2000), 0), -EINVAL, "elements", "VECADD of 0 elements");
	REFUSED(tern_cmd_vecadd(cb, VA(0x3000), VA(0x1000), VA(0x2000), (1u << 26) + 1), -EINVAL, "elements", "VECADD above the vector limit");
	REFUSED(tern_cmd_vecadd(cb, VA(0x1004), VA(0x1000), VA(0x2000), 4), -EINVAL, "overlaps", "VECADD whose c partly overlaps a");
	ok(tern_cmd_vecadd(cb, VA(0x1000), VA(0x1000), VA(0x2000), 4) == 0, "VECADD with c == a is taken");
	REFUSED(tern_cmd_saxpy(cb, VA(0x1004), VA(0x1000), 1.0f, 4), -EINVAL, "overlaps", "SAXPY whose y partly overlaps x");
	REFUSED(tern_cmd_saxpy(cb, VA(0x2000), VA(0x1002), 1.0f, 4), -EINVAL, "aligned", "SAXPY with an unaligned x");
	REFUSED(tern_cmd_gemm(cb, VA(0x9000), VA(0x1000), VA(0x2000), 0, 1, 1), -EINVAL, "dimension", "GEMM with m = 0");
	REFUSED(tern_cmd_gemm(cb, VA(0x9000), VA(0x1000), VA(0x2000), 1, 4097, 1), -EINVAL, "dimension", "GEMM with n = 4097");
	REFUSED(tern_cmd_gemm(cb, VA(0x1000), VA(0x1000), VA(0x8000), 2, 2, 2), -EINVAL, "overlaps", "GEMM whose C overlaps A");
	REFUSED(tern_cmd_gemm(cb, VA(0x8008), VA(0x1000), VA(0x8000), 2, 2, 2), -EINVAL, "overlaps", "GEMM whose C overlaps B");
	ok(tern_cmd_gemm(cb, VA(0x100000), VA(0x1000), VA(0x80000), 4096, 1, 1) == 0, "GEMM with m = 4096 is taken");
	REFUSED(tern_cmd_reduce(cb, VA(0x2000), VA(0x1000), 4, 3), -EINVAL, "reduction", "REDUCE with an unknown op");
	REFUSED(tern_cmd_reduce(cb, VA(0x2000), VA(0x1000), 0, 0), -EINVAL, "elements", "REDUCE of 0 elements");
	REFUSED(tern_cmd_reduce(cb, VA(0x2002), VA(0x1000), 4, 0), -EINVAL, "aligned", "REDUCE to an unaligned dst");
	REFUSED(tern_cmd_nop(cb, 0), -EINVAL, "1 to 65535", "NOP of 0 dwords");
	REFUSED(tern_cmd_nop(cb, 0x10000), -EINVAL, "1 to 65535", "NOP of 65536 dwords");
	ok(cb->dw[0] == 0x00020006 && cb->dw[1] == 5, "earlier packets are intact after the refusals");
	tern_cmdbuf_free(cb);
}

static void test_growth_and_limits(void)
{
	struct tern_cmdbuf *cb = fresh(), *small;
	size_t len, i;
	const uint32_t *dw;
	bool good = true;
	int ret = 0, n = 0;

	for (i = 0; i < 20000 && !ret; i++)
		ret = tern_cmd_write_imm(cb, VA(0x10000 + i * 4), (uint32_t)i);
	dw = tern_cmdbuf_data(cb, &len);
	ok(!ret && len == 80000, "20000 packets grow the buffer to 80000 dwords");
	for (i = 0; i < 20000; i++)
		good &= dw[i * 4] == 0x00040001 && dw[i * 4 + 1] == 0x10000 + i * 4 &&
			dw[i * 4 + 3] == i;
	ok(good, "every packet survived the growth");
	ok(cb->range_count == 20000, "and every range (%zu)", cb->range_count);
	ret = 0;
	for (i = 0; i < (1u << 20) / 4 && !ret; i++)
		ret = tern_cmd_nop(cb, 1);
	ok(ret == -E2BIG && cb->len == (1u << 20) / 4,
	   "the default limit stops the buffer at exactly 1 MiB (%zu dwords)", cb->len);
	tern_cmdbuf_free(cb);

	ok(tern_cmdbuf_create(10, &small) == -EINVAL && !small,
	   "a limit that is not a multiple of 4 is refused");
	ok(tern_cmdbuf_create(64, &small) == 0, "a 64-byte buffer can be made");
	while (!(ret = tern_cmd_fill(small, VA(0x1000), 4, (uint32_t)n)))
		n++;
	ok(ret == -E2BIG && n == 3 && small->len == 15,
	   "three 5-dword FILLs fit in 16 dwords, the fourth is -E2BIG (%d fit)", n);
	ok(strstr(tern_last_error(), "does not fit") != NULL, "with a message (\"%s\")",
	   tern_last_error());
	ok(tern_cmd_nop(small, 1) == 0 && small->len == 16, "a 1-dword NOP still fits");
	ok(tern_cmd_nop(small, 1) == -E2BIG && small->len == 16, "then the buffer is full");
	tern_cmdbuf_reset(small);
	ok(small->len == 0 && small->range_count == 0 && tern_cmd_spin(small, 1) == 0,
	   "reset empties the buffer and it can be reused");
	tern_cmdbuf_free(small);
	tern_cmdbuf_free(NULL);
	ok(true, "freeing NULL does nothing");
}

int main(void)
{
	test_encodings();
	test_refusals();
	test_growth_and_limits();
	return tap_end();
}
