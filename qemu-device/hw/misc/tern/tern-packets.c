/*
 * tern compute accelerator: execution of command packets
 *
 * Copyright (c) 2026 The tern authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The packet format is tern_accel.h; docs/hardware.md section 8 gives each
 * packet's checks and semantics, section 11 its preemption points.  Long
 * packets work chunk by chunk; run->pkt_progress always says how much of
 * the current packet is done, so that a preemption point can save it in
 * the resume record and a resumed run can go on from it.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/range.h"
#include "tern.h"

#define TERN_F32_CHUNK_BYTES    (TERN_CHUNK_ELEMS * 4)

/*
 * IEEE-754 binary32 arithmetic, each operation rounded once and never
 * fused: the operation is done exactly in binary64 and rounded to binary32,
 * which gives the correctly rounded binary32 result for + and * (binary64
 * has more than 2 * 24 + 2 bits), whatever the host's FMA contraction.
 */
static inline float tern_f32_add(float a, float b)
{
    return (float)((double)a + (double)b);
}

static inline float tern_f32_mul(float a, float b)
{
    return (float)((double)a * (double)b);
}

static inline float tern_ldf(const uint8_t *p)
{
    uint32_t v = ldl_le_p(p);
    float f;

    memcpy(&f, &v, sizeof(f));
    return f;
}

static inline void tern_stf(uint8_t *p, float f)
{
    uint32_t v;

    memcpy(&v, &f, sizeof(v));
    stl_le_p(p, v);
}

static inline uint64_t tern_u64(uint32_t lo, uint32_t hi)
{
    return (uint64_t)hi << 32 | lo;
}

static bool tern_is_compute_op(unsigned op)
{
    return op == TERN_OP_VECADD || op == TERN_OP_SAXPY ||
           op == TERN_OP_GEMM || op == TERN_OP_REDUCE;
}

/* Fixed length of @op in dwords; 0 for NOP (any length); -1 if unknown. */
static int tern_op_dwords(unsigned op)
{
    switch (op) {
    case TERN_OP_NOP:
        return 0;
    case TERN_OP_WRITE_IMM:
        return TERN_PKT_DWORDS_WRITE_IMM;
    case TERN_OP_FENCE:
        return TERN_PKT_DWORDS_FENCE;
    case TERN_OP_TIMESTAMP:
        return TERN_PKT_DWORDS_TIMESTAMP;
    case TERN_OP_COPY:
        return TERN_PKT_DWORDS_COPY;
    case TERN_OP_FILL:
        return TERN_PKT_DWORDS_FILL;
    case TERN_OP_SPIN:
        return TERN_PKT_DWORDS_SPIN;
    case TERN_OP_WAIT_MEM:
        return TERN_PKT_DWORDS_WAIT_MEM;
    case TERN_OP_VECADD:
        return TERN_PKT_DWORDS_VECADD;
    case TERN_OP_SAXPY:
        return TERN_PKT_DWORDS_SAXPY;
    case TERN_OP_GEMM:
        return TERN_PKT_DWORDS_GEMM;
    case TERN_OP_REDUCE:
        return TERN_PKT_DWORDS_REDUCE;
    case TERN_OP_TLB_INVALIDATE:
        return TERN_PKT_DWORDS_TLB_INVALIDATE;
    case TERN_OP_PHYS_COPY:
        return TERN_PKT_DWORDS_PHYS_COPY;
    }
    return -1;
}

static TernStep tern_bad_operand(TernRun *run)
{
    return tern_fault(run, TERN_FAULT_BAD_OPERAND, run->offset, false);
}

/*
 * A resumed packet continues from run->pkt_progress, which must be less
 * than the packet's @total (in its resume unit).
 */
static TernStep tern_check_progress(TernRun *run, uint64_t total)
{
    if (run->pkt_progress >= total) {
        return tern_fault(run, TERN_FAULT_BAD_RESUME, 0, false);
    }
    return TERN_CONTINUE;
}

/*
 * The end of one chunk of a long packet, whose progress is now
 * run->pkt_progress out of @total: charge its modelled @cost_ns (a quarter
 * of it, rounded up, if all the data the chunk read and wrote is in local
 * memory: section 12), then either the packet is finished or the engine
 * passes a preemption point.  Returns true when the packet's loop must end,
 * with *@step saying how (TERN_CONTINUE: the packet is finished).
 */
static bool tern_chunk_end(TernEngine *eng, TernRun *run, uint64_t cost_ns,
                           uint64_t total, TernStep *step)
{
    if (run->chunk_mem && !run->chunk_sys) {
        cost_ns = DIV_ROUND_UP(cost_ns, TERN_COST_LOCAL_DIV);
    }
    run->chunk_mem = false;
    run->chunk_sys = false;
    tern_charge(eng, run, cost_ns);
    if (run->pkt_progress == total) {
        *step = TERN_CONTINUE;
        return true;
    }
    *step = tern_checkpoint(eng, run);
    return *step != TERN_CONTINUE;
}

/* [a, a + alen) and [b, b + blen) are equal or disjoint. */
static bool tern_same_or_disjoint(uint64_t a, uint64_t b, uint64_t len)
{
    return a == b || !ranges_overlap(a, len, b, len);
}

/* ---- Memory packets ------------------------------------------------------ */

static TernStep tern_exec_write32(TernEngine *eng, TernRun *run,
                                  const uint32_t *pkt, bool fence)
{
    uint64_t va = tern_u64(pkt[1], pkt[2]);
    uint8_t val[4];

    if (va & 3) {
        return tern_bad_operand(run);
    }
    if (tern_check_progress(run, 1)) {
        return TERN_STOP_FAULT;
    }
    if (fence) {
        /* order the earlier writes of the buffer before the seqno */
        smp_mb();
    }
    stl_le_p(val, pkt[3]);
    return tern_va_write(eng, run, va, val, sizeof(val));
}

static TernStep tern_exec_timestamp(TernEngine *eng, TernRun *run,
                                    const uint32_t *pkt)
{
    uint64_t va = tern_u64(pkt[1], pkt[2]);
    uint8_t val[8];

    if (va & 7) {
        return tern_bad_operand(run);
    }
    if (tern_check_progress(run, 1)) {
        return TERN_STOP_FAULT;
    }
    stq_le_p(val, tern_clock(eng->dev));
    return tern_va_write(eng, run, va, val, sizeof(val));
}

static TernStep tern_exec_copy(TernEngine *eng, TernRun *run,
                               const uint32_t *pkt)
{
    uint64_t src = tern_u64(pkt[1], pkt[2]);
    uint64_t dst = tern_u64(pkt[3], pkt[4]);
    uint32_t size = pkt[5];
    uint8_t buf[TERN_CHUNK_BYTES];
    TernStep step;

    if (!size || ranges_overlap(src, size, dst, size)) {
        return tern_bad_operand(run);
    }
    if (tern_check_progress(run, size)) {
        return TERN_STOP_FAULT;
    }
    for (;;) {
        uint32_t n = MIN(TERN_CHUNK_BYTES, size - run->pkt_progress);

        step = tern_va_read(eng, run, src + run->pkt_progress, buf, n);
        if (step == TERN_CONTINUE) {
            step = tern_va_write(eng, run, dst + run->pkt_progress, buf, n);
        }
        if (step != TERN_CONTINUE) {
            return step;
        }
        run->pkt_progress += n;
        if (tern_chunk_end(eng, run, n, size, &step)) {
            return step;
        }
    }
}

static TernStep tern_exec_fill(TernEngine *eng, TernRun *run,
                               const uint32_t *pkt)
{
    uint64_t dst = tern_u64(pkt[1], pkt[2]);
    uint32_t size = pkt[3];
    uint8_t buf[TERN_CHUNK_BYTES];
    TernStep step;
    unsigned i;

    if ((dst & 3) || !size || (size & 3)) {
        return tern_bad_operand(run);
    }
    if (tern_check_progress(run, size)) {
        return TERN_STOP_FAULT;
    }
    for (i = 0; i < TERN_CHUNK_BYTES; i += 4) {
        stl_le_p(buf + i, pkt[4]);
    }
    for (;;) {
        uint32_t n = MIN(TERN_CHUNK_BYTES, size - run->pkt_progress);

        step = tern_va_write(eng, run, dst + run->pkt_progress, buf, n);
        if (step != TERN_CONTINUE) {
            return step;
        }
        run->pkt_progress += n;
        if (tern_chunk_end(eng, run, n, size, &step)) {
            return step;
        }
    }
}

static TernStep tern_exec_spin(TernEngine *eng, TernRun *run,
                               const uint32_t *pkt)
{
    uint32_t us = pkt[1];
    uint32_t chunks = DIV_ROUND_UP(us, TERN_SPIN_CHUNK_US);
    TernStep step;

    if (!us) {
        return tern_bad_operand(run);
    }
    if (tern_check_progress(run, chunks)) {
        return TERN_STOP_FAULT;
    }
    for (;;) {
        uint64_t done_us = (uint64_t)run->pkt_progress * TERN_SPIN_CHUNK_US;

        run->pkt_progress++;
        if (tern_chunk_end(eng, run,
                           MIN(TERN_SPIN_CHUNK_US, us - done_us) * 1000,
                           chunks, &step)) {
            return step;
        }
    }
}

static TernStep tern_exec_wait_mem(TernEngine *eng, TernRun *run,
                                   const uint32_t *pkt)
{
    uint64_t va = tern_u64(pkt[1], pkt[2]);
    uint32_t timeout_us = pkt[4];
    uint8_t buf[4];
    TernStep step;

    if ((va & 3) || !timeout_us || timeout_us > TERN_WAIT_TIMEOUT_MAX_US) {
        return tern_bad_operand(run);
    }
    if (tern_check_progress(run, DIV_ROUND_UP(timeout_us, TERN_WAIT_POLL_US)
                                 + 1)) {
        return TERN_STOP_FAULT;
    }
    for (;;) {
        step = tern_va_read(eng, run, va, buf, sizeof(buf));
        if (step != TERN_CONTINUE) {
            return step;
        }
        if (ldl_le_p(buf) >= pkt[3]) {
            return TERN_CONTINUE;
        }
        if ((uint64_t)run->pkt_progress * TERN_WAIT_POLL_US >= timeout_us) {
            return tern_fault(run, TERN_FAULT_WAIT_TIMEOUT, run->offset,
                              false);
        }
        g_usleep(TERN_WAIT_POLL_US);
        run->pkt_progress++;
        step = tern_checkpoint(eng, run);
        if (step != TERN_CONTINUE) {
            return step;
        }
    }
}

/* ---- Compute packets ----------------------------------------------------- */

typedef enum {
    TERN_ELEM_VECADD,
    TERN_ELEM_SAXPY,
} TernElemOp;

/*
 * VECADD (out = a + b) and SAXPY (out = alpha * a + b, out == b): one chunk
 * of each input is read, computed and written back at a time.
 */
static TernStep tern_exec_elementwise(TernEngine *eng, TernRun *run,
                                      TernElemOp op, uint64_t a, uint64_t b,
                                      uint64_t out, uint32_t count,
                                      float alpha)
{
    g_autofree uint8_t *abuf = g_malloc(TERN_F32_CHUNK_BYTES);
    g_autofree uint8_t *bbuf = g_malloc(TERN_F32_CHUNK_BYTES);
    TernStep step;

    if (tern_check_progress(run, count)) {
        return TERN_STOP_FAULT;
    }
    for (;;) {
        uint64_t off = (uint64_t)run->pkt_progress * 4;
        uint32_t n = MIN(TERN_CHUNK_ELEMS, count - run->pkt_progress);
        uint32_t i;

        step = tern_va_read(eng, run, a + off, abuf, n * 4);
        if (step == TERN_CONTINUE) {
            step = tern_va_read(eng, run, b + off, bbuf, n * 4);
        }
        if (step != TERN_CONTINUE) {
            return step;
        }
        for (i = 0; i < n; i++) {
            float x = tern_ldf(abuf + i * 4), y = tern_ldf(bbuf + i * 4);

            if (op == TERN_ELEM_SAXPY) {
                x = tern_f32_mul(alpha, x);
            }
            tern_stf(abuf + i * 4, tern_f32_add(x, y));
        }
        step = tern_va_write(eng, run, out + off, abuf, n * 4);
        if (step != TERN_CONTINUE) {
            return step;
        }
        run->pkt_progress += n;
        if (tern_chunk_end(eng, run, n, count, &step)) {
            return step;
        }
    }
}

static TernStep tern_exec_vecadd(TernEngine *eng, TernRun *run,
                                 const uint32_t *pkt)
{
    uint64_t a = tern_u64(pkt[1], pkt[2]);
    uint64_t b = tern_u64(pkt[3], pkt[4]);
    uint64_t c = tern_u64(pkt[5], pkt[6]);
    uint32_t count = pkt[7];
    uint64_t len = (uint64_t)count * 4;

    if (((a | b | c) & 3) || !count || count > TERN_VECTOR_LEN_MAX ||
        !tern_same_or_disjoint(a, c, len) ||
        !tern_same_or_disjoint(b, c, len)) {
        return tern_bad_operand(run);
    }
    return tern_exec_elementwise(eng, run, TERN_ELEM_VECADD, a, b, c, count,
                                 0);
}

static TernStep tern_exec_saxpy(TernEngine *eng, TernRun *run,
                                const uint32_t *pkt)
{
    uint64_t x = tern_u64(pkt[1], pkt[2]);
    uint64_t y = tern_u64(pkt[3], pkt[4]);
    uint32_t count = pkt[5];
    uint32_t alpha_bits = pkt[6];
    float alpha;

    if (((x | y) & 3) || !count || count > TERN_VECTOR_LEN_MAX ||
        !tern_same_or_disjoint(x, y, (uint64_t)count * 4)) {
        return tern_bad_operand(run);
    }
    memcpy(&alpha, &alpha_bits, sizeof(alpha));
    return tern_exec_elementwise(eng, run, TERN_ELEM_SAXPY, x, y, y, count,
                                 alpha);
}

static TernStep tern_exec_gemm(TernEngine *eng, TernRun *run,
                               const uint32_t *pkt)
{
    uint64_t a = tern_u64(pkt[1], pkt[2]);
    uint64_t b = tern_u64(pkt[3], pkt[4]);
    uint64_t c = tern_u64(pkt[5], pkt[6]);
    uint32_t m = pkt[7], n = pkt[8], k = pkt[9];
    g_autofree uint8_t *arow = NULL;
    g_autofree uint8_t *brow = NULL;
    g_autofree float *acc = NULL;
    TernStep step;

    if (((a | b | c) & 3) ||
        !m || m > TERN_GEMM_DIM_MAX || !n || n > TERN_GEMM_DIM_MAX ||
        !k || k > TERN_GEMM_DIM_MAX ||
        ranges_overlap(c, (uint64_t)m * n * 4, a, (uint64_t)m * k * 4) ||
        ranges_overlap(c, (uint64_t)m * n * 4, b, (uint64_t)k * n * 4)) {
        return tern_bad_operand(run);
    }
    if (tern_check_progress(run, m)) {
        return TERN_STOP_FAULT;
    }
    arow = g_malloc((size_t)k * 4);
    brow = g_malloc((size_t)n * 4);
    acc = g_new(float, n);
    for (;;) {
        uint32_t i = run->pkt_progress, p, j;

        step = tern_va_read(eng, run, a + (uint64_t)i * k * 4, arow, k * 4);
        if (step != TERN_CONTINUE) {
            return step;
        }
        for (j = 0; j < n; j++) {
            acc[j] = 0.0f;
        }
        for (p = 0; p < k; p++) {
            float aip = tern_ldf(arow + p * 4);
            float prod;

            /* a reset must not wait for a whole row of a huge GEMM */
            if (p % 64 == 63 && tern_engine_aborting(eng)) {
                return TERN_STOP_ABORT;
            }
            step = tern_va_read(eng, run, b + (uint64_t)p * n * 4, brow,
                                n * 4);
            if (step != TERN_CONTINUE) {
                return step;
            }
            for (j = 0; j < n; j++) {
                prod = tern_f32_mul(aip, tern_ldf(brow + j * 4));
                acc[j] = tern_f32_add(acc[j], prod);
            }
        }
        for (j = 0; j < n; j++) {
            tern_stf(brow + j * 4, acc[j]);
        }
        step = tern_va_write(eng, run, c + (uint64_t)i * n * 4, brow, n * 4);
        if (step != TERN_CONTINUE) {
            return step;
        }
        run->pkt_progress++;
        if (tern_chunk_end(eng, run, (uint64_t)n * k, m, &step)) {
            return step;
        }
    }
}

static TernStep tern_exec_reduce(TernEngine *eng, TernRun *run,
                                 const uint32_t *pkt)
{
    uint64_t src = tern_u64(pkt[1], pkt[2]);
    uint64_t dst = tern_u64(pkt[3], pkt[4]);
    uint32_t count = TERN_REDUCE_COUNT(pkt[5]);
    uint32_t op = TERN_REDUCE_OP(pkt[5]);
    g_autofree uint8_t *buf = g_malloc(TERN_F32_CHUNK_BYTES);
    uint32_t acc_bits = run->acc;
    uint8_t out[4];
    TernStep step;
    float acc;

    if (((src | dst) & 3) || !count || count > TERN_VECTOR_LEN_MAX ||
        op > TERN_REDUCE_MAX) {
        return tern_bad_operand(run);
    }
    if (tern_check_progress(run, count)) {
        return TERN_STOP_FAULT;
    }
    memcpy(&acc, &acc_bits, sizeof(acc));
    if (run->pkt_progress == 0) {
        acc = 0.0f;
    }
    for (;;) {
        uint32_t base = run->pkt_progress, i;
        uint32_t n = MIN(TERN_CHUNK_ELEMS, count - base);

        step = tern_va_read(eng, run, src + (uint64_t)base * 4, buf, n * 4);
        if (step != TERN_CONTINUE) {
            return step;
        }
        for (i = 0; i < n; i++) {
            float x = tern_ldf(buf + i * 4);

            if (op == TERN_REDUCE_SUM) {
                acc = tern_f32_add(acc, x);
            } else if (base + i == 0) {
                acc = x;
            } else if (op == TERN_REDUCE_MIN ? x < acc : x > acc) {
                acc = x;
            }
        }
        run->pkt_progress += n;
        memcpy(&acc_bits, &acc, sizeof(acc_bits));
        run->acc = acc_bits;
        if (tern_chunk_end(eng, run, n, count, &step)) {
            if (step != TERN_CONTINUE) {
                return step;
            }
            break;
        }
    }
    tern_stf(out, acc);
    return tern_va_write(eng, run, dst, out, sizeof(out));
}

/* ---- Privileged packets -------------------------------------------------- */

static TernStep tern_exec_phys_copy(TernEngine *eng, TernRun *run,
                                    const uint32_t *pkt)
{
    TernState *s = eng->dev;
    uint64_t src = tern_u64(pkt[1], pkt[2]);
    uint64_t dst = tern_u64(pkt[3], pkt[4]);
    uint32_t size = pkt[5], flags = pkt[6];
    bool src_local = flags & TERN_PHYS_COPY_SRC_LOCAL;
    bool dst_local = flags & TERN_PHYS_COPY_DST_LOCAL;
    uint8_t buf[TERN_CHUNK_BYTES];
    TernStep step;

    if (!size ||
        (flags & ~(TERN_PHYS_COPY_SRC_LOCAL | TERN_PHYS_COPY_DST_LOCAL)) ||
        (src_local && (src > s->local_mem_size ||
                       size > s->local_mem_size - src)) ||
        (dst_local && (dst > s->local_mem_size ||
                       size > s->local_mem_size - dst)) ||
        (src_local == dst_local && ranges_overlap(src, size, dst, size))) {
        return tern_bad_operand(run);
    }
    if (tern_check_progress(run, size)) {
        return TERN_STOP_FAULT;
    }
    for (;;) {
        uint32_t n = MIN(TERN_CHUNK_BYTES, size - run->pkt_progress);
        uint64_t from = src + run->pkt_progress, to = dst + run->pkt_progress;

        if (src_local) {
            memcpy(buf, s->local_ptr + from, n);
        } else if (!tern_dma(s, from, buf, n, false)) {
            return tern_fault(run, TERN_FAULT_BUS_ERROR, from, false);
        }
        if (dst_local) {
            memcpy(s->local_ptr + to, buf, n);
        } else if (!((to | n) & 7)) {
            /* aligned words one access each, ascending (section 8.2) */
            uint32_t i;

            if (!tern_dma_valid(s, to, n, true)) {
                return tern_fault(run, TERN_FAULT_BUS_ERROR, to, true);
            }
            for (i = 0; i < n; i += 8) {
                if (!tern_dma_stq(s, to + i, ldq_le_p(buf + i))) {
                    return tern_fault(run, TERN_FAULT_BUS_ERROR, to, true);
                }
            }
        } else if (!tern_dma(s, to, buf, n, true)) {
            return tern_fault(run, TERN_FAULT_BUS_ERROR, to, true);
        }
        run->chunk_mem = true;
        run->chunk_sys = !src_local || !dst_local;
        run->pkt_progress += n;
        if (tern_chunk_end(eng, run, n, size, &step)) {
            return step;
        }
    }
}

/* ---- Buffer -------------------------------------------------------------- */

static TernStep tern_read_buf(TernEngine *eng, TernRun *run, uint32_t off,
                              void *dst, uint32_t len)
{
    if (!tern_dma(eng->dev, run->buf + off, dst, len, false)) {
        return tern_fault(run, TERN_FAULT_BUS_ERROR, run->buf + off, false);
    }
    return TERN_CONTINUE;
}

/* Check and execute the packet at run->offset; *dwords gets its length. */
static TernStep tern_exec_packet(TernEngine *eng, TernRun *run,
                                 uint32_t *dwords)
{
    uint32_t pkt[TERN_PKT_DWORDS_GEMM];
    uint8_t raw[sizeof(pkt)];
    unsigned op, len, i;
    int fixed;
    TernStep step;

    step = tern_read_buf(eng, run, run->offset, raw, 4);
    if (step != TERN_CONTINUE) {
        return step;
    }
    pkt[0] = ldl_le_p(raw);
    op = TERN_PKT_OPCODE(pkt[0]);
    len = TERN_PKT_LENGTH(pkt[0]);
    fixed = tern_op_dwords(op);
    if (fixed < 0 || (eng->copy && tern_is_compute_op(op))) {
        return tern_fault(run, TERN_FAULT_BAD_OPCODE, run->offset, false);
    }
    if ((op & TERN_PKT_PRIVILEGED) &&
        !(run->flags & TERN_SLOT_FLAG_PRIVILEGED)) {
        return tern_fault(run, TERN_FAULT_PRIVILEGED, run->offset, false);
    }
    if (TERN_PKT_RESERVED(pkt[0]) || !len || (fixed && len != fixed) ||
        (uint64_t)len * 4 > run->buf_size - run->offset) {
        return tern_fault(run, TERN_FAULT_BAD_LENGTH, run->offset, false);
    }
    *dwords = len;
    tern_charge(eng, run, TERN_COST_PACKET_NS);
    if (op == TERN_OP_NOP) {
        return tern_check_progress(run, 1);
    }
    step = tern_read_buf(eng, run, run->offset + 4, raw + 4, (len - 1) * 4);
    if (step != TERN_CONTINUE) {
        return step;
    }
    for (i = 1; i < len; i++) {
        pkt[i] = ldl_le_p(raw + i * 4);
    }
    /* what the packet before it touched is not this one's first chunk's */
    run->chunk_mem = false;
    run->chunk_sys = false;

    switch (op) {
    case TERN_OP_WRITE_IMM:
        return tern_exec_write32(eng, run, pkt, false);
    case TERN_OP_FENCE:
        return tern_exec_write32(eng, run, pkt, true);
    case TERN_OP_TIMESTAMP:
        return tern_exec_timestamp(eng, run, pkt);
    case TERN_OP_COPY:
        return tern_exec_copy(eng, run, pkt);
    case TERN_OP_FILL:
        return tern_exec_fill(eng, run, pkt);
    case TERN_OP_SPIN:
        return tern_exec_spin(eng, run, pkt);
    case TERN_OP_WAIT_MEM:
        return tern_exec_wait_mem(eng, run, pkt);
    case TERN_OP_VECADD:
        return tern_exec_vecadd(eng, run, pkt);
    case TERN_OP_SAXPY:
        return tern_exec_saxpy(eng, run, pkt);
    case TERN_OP_GEMM:
        return tern_exec_gemm(eng, run, pkt);
    case TERN_OP_REDUCE:
        return tern_exec_reduce(eng, run, pkt);
    case TERN_OP_TLB_INVALIDATE:
        if (tern_check_progress(run, 1)) {
            return TERN_STOP_FAULT;
        }
        tern_tlb_flush(eng);
        return TERN_CONTINUE;
    case TERN_OP_PHYS_COPY:
        return tern_exec_phys_copy(eng, run, pkt);
    }
    g_assert_not_reached();
}

/* Read and check the resume record; position the run where it stopped. */
static TernStep tern_load_resume(TernEngine *eng, TernRun *run)
{
    uint8_t rec[TERN_RESUME_RECORD_SIZE], raw[4];
    uint32_t offset, pos = 0;

    if (!run->resume) {
        return tern_fault(run, TERN_FAULT_BAD_RESUME, 0, false);
    }
    if (!tern_dma(eng->dev, run->resume, rec, sizeof(rec), false)) {
        return tern_fault(run, TERN_FAULT_BUS_ERROR, run->resume, false);
    }
    offset = ldl_le_p(rec + TERN_RESUME_OFF_OFFSET);
    if (ldl_le_p(rec + TERN_RESUME_OFF_MAGIC) != TERN_RESUME_MAGIC ||
        ldl_le_p(rec + TERN_RESUME_OFF_SEQNO) != run->seqno ||
        offset >= run->buf_size || (offset & 3)) {
        return tern_fault(run, TERN_FAULT_BAD_RESUME, 0, false);
    }
    /* The offset must be a packet boundary: follow the lengths to it. */
    while (pos < offset) {
        uint32_t len;

        if (tern_read_buf(eng, run, pos, raw, 4) != TERN_CONTINUE) {
            return TERN_STOP_FAULT;
        }
        len = TERN_PKT_LENGTH(ldl_le_p(raw));
        if (!len) {
            break;
        }
        pos += len * 4;
    }
    if (pos != offset) {
        return tern_fault(run, TERN_FAULT_BAD_RESUME, 0, false);
    }
    run->offset = offset;
    run->pkt_progress = ldl_le_p(rec + TERN_RESUME_OFF_PROGRESS);
    run->acc = ldq_le_p(rec + TERN_RESUME_OFF_ACC);
    run->elapsed_base = ldq_le_p(rec + TERN_RESUME_OFF_ELAPSED_NS);
    return TERN_CONTINUE;
}

TernStep tern_exec_buffer(TernEngine *eng, TernRun *run)
{
    TernStep step;

    if (run->buf & 3) {
        return tern_fault(run, TERN_FAULT_BAD_OPERAND, 0, false);
    }
    if (run->buf_size < 4 || (run->buf_size & 3) ||
        run->buf_size > TERN_BUF_SIZE_MAX) {
        return tern_fault(run, TERN_FAULT_BAD_LENGTH, 0, false);
    }
    if (run->flags & TERN_SLOT_FLAG_RESUME) {
        step = tern_load_resume(eng, run);
        if (step != TERN_CONTINUE) {
            return step;
        }
    }
    while (run->offset < run->buf_size) {
        uint32_t dwords = 0;

        step = tern_checkpoint(eng, run);
        if (step == TERN_CONTINUE) {
            step = tern_exec_packet(eng, run, &dwords);
        }
        if (step != TERN_CONTINUE) {
            return step;
        }
        run->offset += dwords * 4;
        run->pkt_progress = 0;
        run->acc = 0;
    }
    return TERN_CONTINUE;
}
