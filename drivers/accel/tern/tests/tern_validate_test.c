// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * KUnit tests of the command-buffer validator.
 */

#include <kunit/test.h>
#include <linux/module.h>

#include "../tern_validate.c"

#define HDR(op, len)	TERN_PKT_HEADER(TERN_OP_##op, len)
#define PKT(op)		HDR(op, TERN_PKT_DWORDS_##op)
#define LO(va)		((u32)((u64)(va) & 0xffffffff))
#define HI(va)		((u32)((u64)(va) >> 32))

#define VA_END		BIT_ULL(TERN_VA_BITS)
#define MAT		((u64)TERN_GEMM_DIM_MAX * TERN_GEMM_DIM_MAX * 4)

/**
 * struct tern_pkt_case - one packet and the verdict expected for it
 * @name: what the case checks
 * @dw: the packet
 * @ndw: its size in dwords
 * @ret: expected return of tern_validate_cmdbuf()
 */
struct tern_pkt_case {
	const char *name;
	u32 dw[12];
	u32 ndw;
	int ret;
};

#define CASE(_name, _ret, ...) {					\
	.name = _name,							\
	.dw = { __VA_ARGS__ },						\
	.ndw = sizeof((u32[]){ __VA_ARGS__ }) / sizeof(u32),		\
	.ret = _ret,							\
}

static const struct tern_pkt_case tern_valid_cases[] = {
	CASE("nop", 0, HDR(NOP, 1)),
	CASE("nop padding with any content", 0, HDR(NOP, 4), 0xffffffff, 0x80, 0),
	CASE("write_imm", 0, PKT(WRITE_IMM), LO(0x100000), HI(0x100000), 42),
	CASE("write_imm at the top of the VA space", 0,
	     PKT(WRITE_IMM), LO(VA_END - 4), HI(VA_END - 4), 1),
	CASE("fence", 0, PKT(FENCE), LO(0x100004), HI(0x100004), 7),
	CASE("timestamp", 0, PKT(TIMESTAMP), LO(0x100008), HI(0x100008)),
	CASE("timestamp at the top of the VA space", 0,
	     PKT(TIMESTAMP), LO(VA_END - 8), HI(VA_END - 8)),
	CASE("copy", 0, PKT(COPY), LO(0x100000), HI(0x100000),
	     LO(0x200000), HI(0x200000), 0x1000),
	CASE("copy unaligned", 0, PKT(COPY), LO(0x100001), HI(0x100001),
	     LO(0x200003), HI(0x200003), 3),
	CASE("copy adjacent ranges", 0, PKT(COPY), LO(0x1000), HI(0x1000),
	     LO(0x1010), HI(0x1010), 0x10),
	CASE("copy downwards adjacent", 0, PKT(COPY), LO(0x1010), HI(0x1010),
	     LO(0x1000), HI(0x1000), 0x10),
	CASE("fill", 0, PKT(FILL), LO(0x100000), HI(0x100000), 16, 0xdeadbeef),
	CASE("spin", 0, PKT(SPIN), 1000000),
	CASE("wait_mem shortest timeout", 0, PKT(WAIT_MEM), LO(0x100000), HI(0x100000),
	     1, 1),
	CASE("wait_mem longest timeout", 0, PKT(WAIT_MEM), LO(0x100000), HI(0x100000), 1,
	     TERN_WAIT_TIMEOUT_MAX_US),
	CASE("vecadd", 0, PKT(VECADD), LO(0x100000), HI(0x100000),
	     LO(0x200000), HI(0x200000), LO(0x300000), HI(0x300000), 1),
	CASE("vecadd in place", 0, PKT(VECADD), LO(0x100000), HI(0x100000),
	     LO(0x200000), HI(0x200000),
	     LO(0x100000), HI(0x100000), 256),
	CASE("vecadd longest", 0, PKT(VECADD), LO(0), HI(0),
	     LO(0x10000000), HI(0x10000000),
	     LO(0x20000000), HI(0x20000000), TERN_VECTOR_LEN_MAX),
	CASE("saxpy", 0, PKT(SAXPY), LO(0x100000), HI(0x100000),
	     LO(0x200000), HI(0x200000), 64, 0x3f800000),
	CASE("saxpy in place", 0, PKT(SAXPY), LO(0x100000), HI(0x100000),
	     LO(0x100000), HI(0x100000), 64, 0),
	CASE("gemm smallest", 0, PKT(GEMM), LO(0x100000), HI(0x100000),
	     LO(0x200000), HI(0x200000),
	     LO(0x300000), HI(0x300000), 1, 1, 1),
	CASE("gemm largest", 0, PKT(GEMM), LO(0), HI(0), LO(MAT), HI(MAT),
	     LO(2 * MAT), HI(2 * MAT),
	     TERN_GEMM_DIM_MAX, TERN_GEMM_DIM_MAX, TERN_GEMM_DIM_MAX),
	CASE("gemm inputs may overlap each other", 0, PKT(GEMM),
	     LO(0x100000), HI(0x100000),
	     LO(0x100000), HI(0x100000), LO(0x200000), HI(0x200000), 4, 4, 4),
	CASE("reduce sum", 0, PKT(REDUCE), LO(0x100000), HI(0x100000),
	     LO(0x200000), HI(0x200000),
	     TERN_REDUCE_COUNT_OP(100, TERN_REDUCE_SUM)),
	CASE("reduce min", 0, PKT(REDUCE), LO(0x100000), HI(0x100000),
	     LO(0x200000), HI(0x200000),
	     TERN_REDUCE_COUNT_OP(1, TERN_REDUCE_MIN)),
	CASE("reduce max", 0, PKT(REDUCE), LO(0x100000), HI(0x100000),
	     LO(0x200000), HI(0x200000),
	     TERN_REDUCE_COUNT_OP(TERN_VECTOR_LEN_MAX, TERN_REDUCE_MAX)),
};

static const struct tern_pkt_case tern_invalid_cases[] = {
	/* malformed packets */
	CASE("reserved header bits", -EBADMSG, HDR(NOP, 1) | 0x100),
	CASE("reserved header bits of a real packet", -EBADMSG,
	     PKT(WRITE_IMM) | 0x8000, LO(0x1000), HI(0x1000), 0),
	CASE("zero length nop", -EBADMSG, HDR(NOP, 0)),
	CASE("zero length write_imm", -EBADMSG, HDR(WRITE_IMM, 0),
	     LO(0x1000), HI(0x1000), 0),
	CASE("write_imm too long", -EBADMSG, HDR(WRITE_IMM, 5), LO(0x1000), HI(0x1000),
	     0, 0),
	CASE("write_imm too short", -EBADMSG, HDR(WRITE_IMM, 3), LO(0x1000), HI(0x1000)),
	CASE("gemm too short", -EBADMSG, HDR(GEMM, 9), LO(0), HI(0),
	     LO(0x1000), HI(0x1000),
	     LO(0x2000), HI(0x2000), 1, 1),
	CASE("nop past the end", -EBADMSG, HDR(NOP, 3), 0),
	CASE("write_imm truncated", -EBADMSG, PKT(WRITE_IMM), LO(0x1000), HI(0x1000)),
	CASE("header only", -EBADMSG, PKT(GEMM)),
	/* privileged packets, even well formed */
	CASE("tlb_invalidate", -EPERM, PKT(TLB_INVALIDATE)),
	CASE("phys_copy", -EPERM, PKT(PHYS_COPY), LO(0), HI(0), LO(0x1000), HI(0x1000),
	     0x1000, 0),
	CASE("unknown privileged opcode", -EPERM, HDR(NOP, 1) | 0xff),
	CASE("privileged with a bad length", -EPERM, HDR(TLB_INVALIDATE, 7)),
	/* unknown opcodes */
	CASE("opcode 0x08", -ENOEXEC, 0x08 | 1 << 16),
	CASE("opcode 0x14", -ENOEXEC, 0x14 | 1 << 16),
	CASE("opcode 0x7f", -ENOEXEC, 0x7f | 1 << 16),
	/* operands */
	CASE("write_imm misaligned", -EINVAL, PKT(WRITE_IMM), LO(0x1002), HI(0x1002), 0),
	CASE("write_imm beyond the VA space", -EINVAL, PKT(WRITE_IMM),
	     LO(VA_END), HI(VA_END), 0),
	CASE("write_imm high bits", -EINVAL, PKT(WRITE_IMM), 0, 0xffffffff, 0),
	CASE("fence misaligned", -EINVAL, PKT(FENCE), LO(0x1001), HI(0x1001), 0),
	CASE("timestamp only 4-byte aligned", -EINVAL, PKT(TIMESTAMP),
	     LO(0x1004), HI(0x1004)),
	CASE("timestamp crossing the VA end", -EINVAL, PKT(TIMESTAMP),
	     LO(VA_END - 4), HI(VA_END - 4)),
	CASE("copy of zero bytes", -EINVAL, PKT(COPY), LO(0x1000), HI(0x1000),
	     LO(0x2000), HI(0x2000), 0),
	CASE("copy overlapping", -EINVAL, PKT(COPY), LO(0x1000), HI(0x1000),
	     LO(0x1800), HI(0x1800), 0x1000),
	CASE("copy onto itself", -EINVAL, PKT(COPY), LO(0x1000), HI(0x1000),
	     LO(0x1000), HI(0x1000), 4),
	CASE("copy beyond the VA space", -EINVAL, PKT(COPY),
	     LO(VA_END - 4), HI(VA_END - 4),
	     LO(0x1000), HI(0x1000), 8),
	CASE("fill of zero bytes", -EINVAL, PKT(FILL), LO(0x1000), HI(0x1000), 0, 0),
	CASE("fill size not a multiple of 4", -EINVAL, PKT(FILL),
	     LO(0x1000), HI(0x1000), 6, 0),
	CASE("fill misaligned", -EINVAL, PKT(FILL), LO(0x1002), HI(0x1002), 8, 0),
	CASE("wait_mem zero timeout", -EINVAL, PKT(WAIT_MEM), LO(0x1000), HI(0x1000), 1,
	     0),
	CASE("wait_mem timeout too long", -EINVAL, PKT(WAIT_MEM),
	     LO(0x1000), HI(0x1000), 1,
	     TERN_WAIT_TIMEOUT_MAX_US + 1),
	CASE("wait_mem misaligned", -EINVAL, PKT(WAIT_MEM), LO(0x1003), HI(0x1003), 1, 1),
	CASE("vecadd zero count", -EINVAL, PKT(VECADD), LO(0x1000), HI(0x1000),
	     LO(0x2000), HI(0x2000),
	     LO(0x3000), HI(0x3000), 0),
	CASE("vecadd count too large", -EINVAL, PKT(VECADD), LO(0), HI(0),
	     LO(0x10000000), HI(0x10000000),
	     LO(0x20000000), HI(0x20000000), TERN_VECTOR_LEN_MAX + 1),
	CASE("vecadd b misaligned", -EINVAL, PKT(VECADD), LO(0x1000), HI(0x1000),
	     LO(0x2002), HI(0x2002),
	     LO(0x3000), HI(0x3000), 4),
	CASE("vecadd c past the VA end", -EINVAL, PKT(VECADD), LO(0x1000), HI(0x1000),
	     LO(0x2000), HI(0x2000), LO(VA_END - 8), HI(VA_END - 8), 4),
	CASE("vecadd c partly over a", -EINVAL, PKT(VECADD), LO(0x1000), HI(0x1000),
	     LO(0x2000), HI(0x2000),
	     LO(0x1004), HI(0x1004), 4),
	CASE("vecadd c partly over b", -EINVAL, PKT(VECADD), LO(0x1000), HI(0x1000),
	     LO(0x2000), HI(0x2000),
	     LO(0x1ffc), HI(0x1ffc), 4),
	CASE("saxpy y partly over x", -EINVAL, PKT(SAXPY), LO(0x1000), HI(0x1000),
	     LO(0x1008), HI(0x1008),
	     4, 0),
	CASE("spin of zero", -EINVAL, PKT(SPIN), 0),
	CASE("saxpy zero count", -EINVAL, PKT(SAXPY), LO(0x1000), HI(0x1000),
	     LO(0x2000), HI(0x2000), 0, 0),
	CASE("saxpy y misaligned", -EINVAL, PKT(SAXPY), LO(0x1000), HI(0x1000),
	     LO(0x2001), HI(0x2001), 4, 0),
	CASE("gemm m zero", -EINVAL, PKT(GEMM), LO(0x100000), HI(0x100000),
	     LO(0x200000), HI(0x200000),
	     LO(0x300000), HI(0x300000), 0, 1, 1),
	CASE("gemm n too large", -EINVAL, PKT(GEMM), LO(0x100000), HI(0x100000),
	     LO(0x200000), HI(0x200000),
	     LO(0x300000), HI(0x300000), 1, TERN_GEMM_DIM_MAX + 1, 1),
	CASE("gemm k zero", -EINVAL, PKT(GEMM), LO(0x100000), HI(0x100000),
	     LO(0x200000), HI(0x200000),
	     LO(0x300000), HI(0x300000), 1, 1, 0),
	CASE("gemm a misaligned", -EINVAL, PKT(GEMM), LO(0x100002), HI(0x100002),
	     LO(0x200000), HI(0x200000),
	     LO(0x300000), HI(0x300000), 1, 1, 1),
	CASE("gemm c overlaps a", -EINVAL, PKT(GEMM), LO(0x100000), HI(0x100000),
	     LO(0x200000), HI(0x200000),
	     LO(0x100000 + 60), HI(0x100000 + 60), 4, 4, 4),
	CASE("gemm c overlaps b", -EINVAL, PKT(GEMM), LO(0x100000), HI(0x100000),
	     LO(0x200000), HI(0x200000),
	     LO(0x200000 - 4), HI(0x200000 - 4), 4, 4, 4),
	CASE("gemm b past the VA end", -EINVAL, PKT(GEMM), LO(0x100000), HI(0x100000),
	     LO(VA_END - 12), HI(VA_END - 12), LO(0x300000), HI(0x300000), 2, 2, 2),
	CASE("reduce unknown op", -EINVAL, PKT(REDUCE), LO(0x1000), HI(0x1000),
	     LO(0x2000), HI(0x2000),
	     TERN_REDUCE_COUNT_OP(4, TERN_REDUCE_MAX + 1)),
	CASE("reduce zero count", -EINVAL, PKT(REDUCE), LO(0x1000), HI(0x1000),
	     LO(0x2000), HI(0x2000),
	     TERN_REDUCE_COUNT_OP(0, TERN_REDUCE_SUM)),
	CASE("reduce src misaligned", -EINVAL, PKT(REDUCE), LO(0x1001), HI(0x1001),
	     LO(0x2000), HI(0x2000),
	     TERN_REDUCE_COUNT_OP(4, TERN_REDUCE_SUM)),
	CASE("reduce dst misaligned", -EINVAL, PKT(REDUCE), LO(0x1000), HI(0x1000),
	     LO(0x2002), HI(0x2002),
	     TERN_REDUCE_COUNT_OP(4, TERN_REDUCE_SUM)),
};

static void tern_pkt_case_desc(const struct tern_pkt_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tern_valid, tern_valid_cases, tern_pkt_case_desc);
KUNIT_ARRAY_PARAM(tern_invalid, tern_invalid_cases, tern_pkt_case_desc);

/* A single valid packet passes, alone and between two NOPs. */
static void tern_validate_valid_packet(struct kunit *test)
{
	const struct tern_pkt_case *c = test->param_value;
	struct tern_validate_error err = { };
	u32 buf[14];

	KUNIT_EXPECT_EQ(test, tern_validate_cmdbuf(c->dw, c->ndw, &err), 0);

	buf[0] = HDR(NOP, 1);
	memcpy(&buf[1], c->dw, c->ndw * sizeof(u32));
	buf[c->ndw + 1] = HDR(NOP, 1);
	KUNIT_EXPECT_EQ(test, tern_validate_cmdbuf(buf, c->ndw + 2, &err), 0);
}

/*
 * A bad packet is refused with its own errno, alone and behind two valid
 * packets, and the error names its offset and opcode.
 */
static void tern_validate_invalid_packet(struct kunit *test)
{
	const struct tern_pkt_case *c = test->param_value;
	struct tern_validate_error err = { };
	u32 buf[20] = {
		PKT(WRITE_IMM), LO(0x1000), HI(0x1000), 1,
		HDR(NOP, 2), 0,
	};
	const u32 prefix = 6;

	KUNIT_EXPECT_EQ(test, tern_validate_cmdbuf(c->dw, c->ndw, &err), c->ret);
	KUNIT_EXPECT_EQ(test, err.offset, 0);
	KUNIT_EXPECT_EQ(test, err.opcode, TERN_PKT_OPCODE(c->dw[0]));
	KUNIT_EXPECT_NOT_NULL(test, err.reason);

	memcpy(&buf[prefix], c->dw, c->ndw * sizeof(u32));
	KUNIT_EXPECT_EQ(test, tern_validate_cmdbuf(buf, prefix + c->ndw, &err),
			c->ret);
	KUNIT_EXPECT_EQ(test, err.offset, prefix);
	KUNIT_EXPECT_EQ(test, err.opcode, TERN_PKT_OPCODE(c->dw[0]));
}

static void tern_validate_empty(struct kunit *test)
{
	struct tern_validate_error err = { .offset = 99 };
	u32 dw = HDR(NOP, 1);

	KUNIT_EXPECT_EQ(test, tern_validate_cmdbuf(&dw, 0, &err), -EBADMSG);
	KUNIT_EXPECT_EQ(test, err.offset, 0);
}

/* Every opcode below 0x80 is either known or refused with -ENOEXEC. */
static void tern_validate_all_opcodes(struct kunit *test)
{
	static const u32 known[] = {
		TERN_OP_NOP, TERN_OP_WRITE_IMM, TERN_OP_FENCE, TERN_OP_TIMESTAMP,
		TERN_OP_COPY, TERN_OP_FILL, TERN_OP_SPIN, TERN_OP_WAIT_MEM,
		TERN_OP_VECADD, TERN_OP_SAXPY, TERN_OP_GEMM, TERN_OP_REDUCE,
	};
	struct tern_validate_error err;
	u32 buf[16] = { };
	unsigned int nknown = 0;
	u32 op, i;

	for (op = 0; op < 0x100; op++) {
		bool is_known = false;
		int ret;

		for (i = 0; i < ARRAY_SIZE(known); i++)
			is_known |= known[i] == op;
		/* As many dwords as the buffer has: right for no fixed opcode. */
		buf[0] = TERN_PKT_HEADER(op, ARRAY_SIZE(buf));
		ret = tern_validate_cmdbuf(buf, ARRAY_SIZE(buf), &err);
		if (op & TERN_PKT_PRIVILEGED) {
			KUNIT_EXPECT_EQ_MSG(test, ret, -EPERM, "opcode %#x", op);
		} else if (!is_known) {
			KUNIT_EXPECT_EQ_MSG(test, ret, -ENOEXEC, "opcode %#x", op);
		} else {
			nknown++;
			/* NOP takes any length; the others have a fixed one. */
			KUNIT_EXPECT_EQ_MSG(test, ret, op == TERN_OP_NOP ? 0 : -EBADMSG,
					    "opcode %#x", op);
		}
	}
	KUNIT_EXPECT_EQ(test, nknown, ARRAY_SIZE(known));
}

/* Each fixed-length packet is refused when cut short by any amount. */
static void tern_validate_truncated(struct kunit *test)
{
	const struct tern_pkt_case *c;
	struct tern_validate_error err;
	unsigned int i;
	u32 n;

	for (i = 0; i < ARRAY_SIZE(tern_valid_cases); i++) {
		c = &tern_valid_cases[i];
		for (n = 1; n < c->ndw; n++) {
			KUNIT_EXPECT_EQ_MSG(test, tern_validate_cmdbuf(c->dw, n, &err),
					    -EBADMSG, "%s cut to %u dwords",
					    c->name, n);
			KUNIT_EXPECT_EQ(test, err.offset, 0);
		}
	}
}

/* A NOP of the largest length fits exactly; one dword less does not. */
static void tern_validate_longest_nop(struct kunit *test)
{
	struct tern_validate_error err;
	u32 *buf;

	buf = kunit_kzalloc(test, 0xffff * sizeof(u32), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	buf[0] = HDR(NOP, 0xffff);
	KUNIT_EXPECT_EQ(test, tern_validate_cmdbuf(buf, 0xffff, &err), 0);
	KUNIT_EXPECT_EQ(test, tern_validate_cmdbuf(buf, 0xfffe, &err), -EBADMSG);
}

/* A whole buffer of every valid packet passes; the first bad one stops it. */
static void tern_validate_stream(struct kunit *test)
{
	struct tern_validate_error err;
	unsigned int i, n = 0, bad_at;
	u32 *buf;

	buf = kunit_kcalloc(test, ARRAY_SIZE(tern_valid_cases) * 12 + 8,
			    sizeof(u32), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(tern_valid_cases); i++) {
		memcpy(&buf[n], tern_valid_cases[i].dw,
		       tern_valid_cases[i].ndw * sizeof(u32));
		n += tern_valid_cases[i].ndw;
	}
	KUNIT_EXPECT_EQ(test, tern_validate_cmdbuf(buf, n, &err), 0);

	/* A privileged packet at the end, then a bad operand before it. */
	bad_at = n;
	buf[n++] = PKT(TLB_INVALIDATE);
	KUNIT_EXPECT_EQ(test, tern_validate_cmdbuf(buf, n, &err), -EPERM);
	KUNIT_EXPECT_EQ(test, err.offset, bad_at);
	KUNIT_EXPECT_EQ(test, err.opcode, TERN_OP_TLB_INVALIDATE);

	/* The second packet of the stream, a 4-dword NOP, becomes a FILL. */
	buf[1] = PKT(FILL);
	buf[2] = 0x1001;
	KUNIT_EXPECT_EQ(test, tern_validate_cmdbuf(buf, n, &err), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.offset, 1);
	KUNIT_EXPECT_EQ(test, err.opcode, TERN_OP_FILL);
}

/* The copy engine refuses compute packets and takes everything else. */
/*
 * Which valid buffers may follow another job in a batch: short work that
 * waits for nothing, each limit on its edge and one past it.
 */
static void tern_validate_batchable_edges(struct kunit *test)
{
	static const struct {
		const char *name;
		u32 dw[12];
		u32 ndw;
		bool batchable;
	} cases[] = {
		{ "NOP", { HDR(NOP, 1) }, 1, true },
		{ "WRITE_IMM", { PKT(WRITE_IMM), LO(0x1000), 0, 7 }, 4, true },
		{ "WAIT_MEM", { PKT(WAIT_MEM), LO(0x1000), 0, 1, 10 }, 5, false },
		{ "SPIN 100 us", { PKT(SPIN), 100 }, 2, true },
		{ "SPIN 101 us", { PKT(SPIN), 101 }, 2, false },
		{ "COPY 64 KiB", { PKT(COPY), LO(0x100000), 0, LO(0x200000), 0, 65536 },
		  6, true },
		{ "COPY 64 KiB + 1", { PKT(COPY), LO(0x100000), 0, LO(0x200000), 0, 65537 },
		  6, false },
		{ "FILL 64 KiB + 4", { PKT(FILL), LO(0x100000), 0, 65540, 0 }, 5, false },
		{ "VECADD 16384", { PKT(VECADD), LO(0x100000), 0, LO(0x200000), 0,
				    LO(0x300000), 0, 16384 }, 8, true },
		{ "SAXPY 16385", { PKT(SAXPY), LO(0x100000), 0, LO(0x200000), 0, 16385, 0 },
		  7, false },
		{ "GEMM 64x64x64", { PKT(GEMM), LO(0x100000), 0, LO(0x200000), 0,
				     LO(0x300000), 0, 64, 64, 64 }, 10, true },
		{ "GEMM 64x64x65", { PKT(GEMM), LO(0x100000), 0, LO(0x200000), 0,
				     LO(0x300000), 0, 64, 64, 65 }, 10, false },
	};
	struct tern_validate_error err = {};
	u32 buf[14];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		KUNIT_ASSERT_EQ_MSG(test, tern_validate_cmdbuf(cases[i].dw, cases[i].ndw, &err),
				    0, "%s", cases[i].name);
		KUNIT_EXPECT_EQ_MSG(test, tern_validate_batchable(cases[i].dw, cases[i].ndw),
				    cases[i].batchable, "%s", cases[i].name);
		/* behind a NOP: the whole buffer is judged */
		buf[0] = HDR(NOP, 1);
		memcpy(&buf[1], cases[i].dw, cases[i].ndw * 4);
		KUNIT_EXPECT_EQ_MSG(test, tern_validate_batchable(buf, cases[i].ndw + 1),
				    cases[i].batchable, "NOP then %s", cases[i].name);
	}
}

static void tern_validate_copy_engine(struct kunit *test)
{
	struct tern_validate_error err;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tern_valid_cases); i++) {
		const struct tern_pkt_case *c = &tern_valid_cases[i];
		u32 op = TERN_PKT_OPCODE(c->dw[0]);
		bool compute = op == TERN_OP_VECADD || op == TERN_OP_SAXPY ||
			       op == TERN_OP_GEMM || op == TERN_OP_REDUCE;

		KUNIT_EXPECT_EQ_MSG(test,
				    tern_validate_cmdbuf_class(c->dw, c->ndw,
							       TERN_ENG_CLASS_COPY,
							       &err),
				    compute ? -ENOEXEC : 0, "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test,
				    tern_validate_cmdbuf_class(c->dw, c->ndw,
							       TERN_ENG_CLASS_COMPUTE,
							       &err),
				    0, "%s", c->name);
	}
}

static u32 tern_rand(u64 *state)
{
	/* xorshift64*: deterministic, so a failure can be replayed */
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return (*state * 0x2545f4914f6cdd1dull) >> 32;
}

/*
 * Random buffers, mostly made of plausible headers: whatever the verdict,
 * it is one of the documented errnos, an accepted buffer is a whole number
 * of packets with no privileged or unknown opcode, and a refused one names
 * a packet boundary inside the buffer.
 */
static void tern_validate_fuzz(struct kunit *test)
{
	static const u32 ops[] = {
		TERN_OP_NOP, TERN_OP_WRITE_IMM, TERN_OP_FENCE, TERN_OP_TIMESTAMP,
		TERN_OP_COPY, TERN_OP_FILL, TERN_OP_SPIN, TERN_OP_WAIT_MEM,
		TERN_OP_VECADD, TERN_OP_SAXPY, TERN_OP_GEMM, TERN_OP_REDUCE,
		TERN_OP_TLB_INVALIDATE, TERN_OP_PHYS_COPY, 0x08, 0x7f,
	};
	struct tern_validate_error err;
	unsigned int accepted = 0, round;
	u64 state = 0x7e70c0ffee;
	u32 buf[64];

	for (round = 0; round < 20000; round++) {
		u32 ndw = tern_rand(&state) % ARRAY_SIZE(buf) + 1;
		u32 i, pos, op, len;
		int ret;

		for (i = 0; i < ndw; i++)
			buf[i] = tern_rand(&state) & 0x3ffffc;	/* small aligned VAs */
		/* Lay headers out as a packet stream, with some damage. */
		for (i = 0; i < ndw; i += len) {
			u32 r = tern_rand(&state);

			op = ops[r % ARRAY_SIZE(ops)];
			len = op < TERN_PKT_PRIVILEGED && tern_packets[op].dwords ?
			      tern_packets[op].dwords : r % 4 + 1;
			if (r % 97 == 0)
				len = r % 7;
			buf[i] = TERN_PKT_HEADER(op, len);
			if (r % 89 == 0)
				buf[i] |= 0x100;
			if (!len)
				break;
		}

		ret = tern_validate_cmdbuf(buf, ndw, &err);
		KUNIT_ASSERT_TRUE_MSG(test, ret == 0 || ret == -EBADMSG || ret == -EPERM ||
				      ret == -ENOEXEC || ret == -EINVAL,
				      "round %u: unexpected %d", round, ret);

		/* Walk the packets again: the verdict must match the walk. */
		for (pos = 0; pos < ndw; pos += TERN_PKT_LENGTH(buf[pos])) {
			if (ret && pos == err.offset)
				break;
			op = TERN_PKT_OPCODE(buf[pos]);
			KUNIT_ASSERT_FALSE_MSG(test, op & TERN_PKT_PRIVILEGED,
					       "round %u: privileged op passed at %u",
					       round, pos);
			KUNIT_ASSERT_TRUE_MSG(test, tern_opcode_known(op),
					      "round %u: unknown op passed at %u",
					      round, pos);
			KUNIT_ASSERT_NE_MSG(test, TERN_PKT_LENGTH(buf[pos]), 0,
					    "round %u: zero length passed at %u", round, pos);
		}
		if (ret) {
			KUNIT_ASSERT_EQ_MSG(test, pos, err.offset,
					    "round %u: error offset %u is no packet boundary",
					    round, err.offset);
			KUNIT_ASSERT_LT(test, err.offset, ndw);
			KUNIT_ASSERT_EQ(test, err.opcode, TERN_PKT_OPCODE(buf[pos]));
		} else {
			KUNIT_ASSERT_EQ_MSG(test, pos, ndw,
					    "round %u: accepted a packet past the end", round);
			accepted++;
		}
	}
	/* The generator must exercise both verdicts. */
	KUNIT_EXPECT_GT(test, accepted, 20);
	KUNIT_EXPECT_LT(test, accepted, 19900);
}

static struct kunit_case tern_validate_cases[] = {
	KUNIT_CASE_PARAM(tern_validate_valid_packet, tern_valid_gen_params),
	KUNIT_CASE_PARAM(tern_validate_invalid_packet, tern_invalid_gen_params),
	KUNIT_CASE(tern_validate_empty),
	KUNIT_CASE(tern_validate_all_opcodes),
	KUNIT_CASE(tern_validate_batchable_edges),
	KUNIT_CASE(tern_validate_truncated),
	KUNIT_CASE(tern_validate_longest_nop),
	KUNIT_CASE(tern_validate_stream),
	KUNIT_CASE(tern_validate_copy_engine),
	KUNIT_CASE(tern_validate_fuzz),
	{}
};

static struct kunit_suite tern_validate_suite = {
	.name = "tern_validate",
	.test_cases = tern_validate_cases,
};

kunit_test_suite(tern_validate_suite);

MODULE_DESCRIPTION("KUnit tests of the tern driver");
MODULE_LICENSE("Dual MIT/GPL");
