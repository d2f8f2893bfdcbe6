/*
 * tern compute accelerator: page-table walk, TLB and virtual accesses
 *
 * Copyright (c) 2026 The tern authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * An address space is a 4-level table of 64-bit entries (docs/hardware.md
 * section 9).  Tables and pages live in system RAM (bus addresses) or in
 * device-local memory (TERN_PTE_LOCAL).  The TLB is private to the engine
 * thread; ENG_TLB_INVALIDATE only sets a flag the thread honours before its
 * next translation.
 */

#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/bswap.h"
#include "tern.h"

#define TERN_WRITE_SEGS_MAX     8

typedef struct TernXlate {
    uint64_t addr;      /* bus address or local offset of the byte */
    bool local;
} TernXlate;

void tern_tlb_flush(TernEngine *eng)
{
    memset(eng->tlb, 0, sizeof(eng->tlb));
    eng->tlb_next = 0;
}

static bool tern_pt_read(TernEngine *eng, uint64_t table, bool local,
                         unsigned index, uint64_t *pte)
{
    TernState *s = eng->dev;
    uint64_t addr = table + index * 8;

    if (local) {
        if (table >= s->local_mem_size) {
            return false;
        }
        *pte = ldq_le_p(s->local_ptr + addr);
        return true;
    }
    /* one access: a PHYS_COPY may be rewriting the entry (section 8.2) */
    return tern_dma_ldq(s, addr, pte);
}

static TernStep tern_walk(TernEngine *eng, TernRun *run, uint64_t va,
                          bool write, TernTlbEntry *out)
{
    uint64_t table = run->root & TERN_PTE_ADDR_MASK;
    bool local = run->root & TERN_PTE_LOCAL;
    uint64_t pte = 0;
    int level;

    qatomic_inc(&eng->tlb_misses);
    for (level = TERN_PT_LEVELS - 1; level >= 0; level--) {
        if (!tern_pt_read(eng, table, local, TERN_PT_INDEX(va, level),
                          &pte)) {
            return tern_fault(run, TERN_FAULT_PAGE_TABLE, va, write);
        }
        if (!(pte & TERN_PTE_VALID)) {
            return tern_fault(run, TERN_FAULT_NOT_PRESENT, va, write);
        }
        table = pte & TERN_PTE_ADDR_MASK;
        local = pte & TERN_PTE_LOCAL;
    }
    out->valid = true;
    out->local = local;
    out->writable = pte & TERN_PTE_WRITABLE;
    out->root = run->root;
    out->vpn = va >> TERN_PAGE_SHIFT;
    out->page = table;
    return TERN_CONTINUE;
}

/* Translate the byte at @va for an access of the run. */
static TernStep tern_translate(TernEngine *eng, TernRun *run, uint64_t va,
                               bool write, TernXlate *x)
{
    uint64_t vpn = va >> TERN_PAGE_SHIFT;
    TernTlbEntry *e = NULL;
    TernStep step;
    unsigned i;

    if (va >> TERN_VA_BITS) {
        return tern_fault(run, TERN_FAULT_NOT_PRESENT, va, write);
    }
    if (qatomic_xchg(&eng->tlb_flush_req, false)) {
        tern_tlb_flush(eng);
    }
    for (i = 0; i < TERN_TLB_SIZE; i++) {
        if (eng->tlb[i].valid && eng->tlb[i].vpn == vpn &&
            eng->tlb[i].root == run->root) {
            e = &eng->tlb[i];
            break;
        }
    }
    if (!e) {
        TernTlbEntry fill;

        step = tern_walk(eng, run, va, write, &fill);
        if (step != TERN_CONTINUE) {
            return step;
        }
        e = &eng->tlb[eng->tlb_next];
        eng->tlb_next = (eng->tlb_next + 1) % TERN_TLB_SIZE;
        *e = fill;
    }
    if (write && !e->writable) {
        return tern_fault(run, TERN_FAULT_WRITE_PROTECT, va, write);
    }
    if (e->local && e->page >= eng->dev->local_mem_size) {
        return tern_fault(run, TERN_FAULT_BUS_ERROR, va, write);
    }
    x->addr = e->page + (va & (TERN_PAGE_SIZE - 1));
    x->local = e->local;
    return TERN_CONTINUE;
}

static uint64_t tern_page_left(uint64_t va, uint64_t len)
{
    return MIN(len, TERN_PAGE_SIZE - (va & (TERN_PAGE_SIZE - 1)));
}

TernStep tern_va_read(TernEngine *eng, TernRun *run, uint64_t va,
                      void *buf, uint64_t len)
{
    TernState *s = eng->dev;
    uint8_t *p = buf;

    while (len) {
        uint64_t n = tern_page_left(va, len);
        TernXlate x;
        TernStep step = tern_translate(eng, run, va, false, &x);

        if (step != TERN_CONTINUE) {
            return step;
        }
        run->chunk_mem = true;
        run->chunk_sys |= !x.local;
        if (x.local) {
            memcpy(p, s->local_ptr + x.addr, n);
        } else if (!tern_dma(s, x.addr, p, n, false)) {
            return tern_fault(run, TERN_FAULT_BUS_ERROR, va, false);
        }
        p += n;
        va += n;
        len -= n;
    }
    return TERN_CONTINUE;
}

/*
 * Write @len bytes (at most a chunk) to @va: every page is translated and
 * checked first, so a fault leaves nothing of this write in memory.
 */
TernStep tern_va_write(TernEngine *eng, TernRun *run, uint64_t va,
                       const void *buf, uint64_t len)
{
    TernState *s = eng->dev;
    TernXlate seg[TERN_WRITE_SEGS_MAX];
    uint64_t segva[TERN_WRITE_SEGS_MAX], seglen[TERN_WRITE_SEGS_MAX];
    const uint8_t *p = buf;
    unsigned n = 0, i;

    while (len) {
        uint64_t l = tern_page_left(va, len);
        TernStep step;

        assert(n < TERN_WRITE_SEGS_MAX);
        step = tern_translate(eng, run, va, true, &seg[n]);
        if (step != TERN_CONTINUE) {
            return step;
        }
        if (!seg[n].local &&
            !tern_dma_valid(s, seg[n].addr, l, true)) {
            return tern_fault(run, TERN_FAULT_BUS_ERROR, va, true);
        }
        run->chunk_mem = true;
        run->chunk_sys |= !seg[n].local;
        segva[n] = va;
        seglen[n] = l;
        n++;
        va += l;
        len -= l;
    }
    for (i = 0; i < n; i++) {
        if (seg[i].local) {
            memcpy(s->local_ptr + seg[i].addr, p, seglen[i]);
        } else if (!tern_dma(s, seg[i].addr, (void *)p, seglen[i], true)) {
            return tern_fault(run, TERN_FAULT_BUS_ERROR, segva[i], true);
        }
        p += seglen[i];
    }
    return TERN_CONTINUE;
}
