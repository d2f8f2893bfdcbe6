/*
 * QTest testcases for the tern compute accelerator
 *
 * Copyright (c) 2026 The tern authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Each test boots a machine with one tern device, builds command buffers
 * and page tables in guest memory, drives the device through its
 * registers and checks memory, registers and MSI-X messages against
 * docs/hardware.md.  MSI-X vector v is programmed to write a marker to a
 * cell of guest RAM, so a test sees exactly which messages were sent.
 * Every wait is bounded.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "libqtest.h"
#include "libqos/libqos-pc.h"
#include "libqos/pci.h"
#include "hw/pci/pci_regs.h"
#include "../../hw/misc/tern/tern_regs.h"
#include "../../hw/misc/tern/tern_accel.h"

#define WAIT_US             (10 * G_USEC_PER_SEC)
#define ARENA_SIZE          (48 * 1024 * 1024)
#define VA_BASE             0x0000123400000000ull
#define MSI_DATA(v)         (0x7e700000u | (v))
#define PAGE                4096ull

typedef struct Tern {
    QOSState *qs;
    QTestState *qts;
    QPCIDevice *dev;
    QPCIBar bar0;
    QPCIBar bar2;
    uint64_t bar2_size;
    unsigned engines;       /* total, the copy engine is the last */
    uint64_t arena;
    uint64_t brk;
    uint64_t msi;           /* MSI cells, 4 bytes per vector */
} Tern;

/* ---- Machine ------------------------------------------------------------- */

static void save_fn(QPCIDevice *dev, int devfn, void *data)
{
    QPCIDevice **pdev = data;

    *pdev = dev;
}

static uint32_t rd(Tern *t, uint32_t off)
{
    return qpci_io_readl(t->dev, t->bar0, off);
}

static void wr(Tern *t, uint32_t off, uint32_t val)
{
    qpci_io_writel(t->dev, t->bar0, off, val);
}

static uint32_t er(Tern *t, unsigned e, uint32_t off)
{
    return rd(t, TERN_ENGINE_BASE(e) + off);
}

static void ew(Tern *t, unsigned e, uint32_t off, uint32_t val)
{
    wr(t, TERN_ENGINE_BASE(e) + off, val);
}

static uint32_t sr(Tern *t, unsigned e, unsigned s, uint32_t off)
{
    return er(t, e, TERN_SLOT_BASE(s) + off);
}

static void sw(Tern *t, unsigned e, unsigned s, uint32_t off, uint32_t val)
{
    ew(t, e, TERN_SLOT_BASE(s) + off, val);
}

static uint64_t t_alloc(Tern *t, uint64_t size)
{
    uint64_t a = QEMU_ALIGN_UP(t->brk, PAGE);

    size = QEMU_ALIGN_UP(size, PAGE);
    g_assert_cmpuint(a + size, <=, t->arena + ARENA_SIZE);
    t->brk = a + size;
    qtest_memset(t->qts, a, 0, size);
    return a;
}

static void msi_clear(Tern *t)
{
    qtest_memset(t->qts, t->msi, 0, 4 * (t->engines + 1));
}

static bool msi_seen(Tern *t, unsigned vector)
{
    uint32_t v = qtest_readl(t->qts, t->msi + 4 * vector);

    if (v) {
        g_assert_cmphex(v, ==, MSI_DATA(vector));
    }
    return v != 0;
}

static void tern_boot_machine(Tern *t, const char *machine,
                              const char *props)
{
    unsigned v, e;
    uint64_t size;

    memset(t, 0, sizeof(*t));
    t->qs = qtest_pc_boot("%s -device tern%s%s", machine, props ? "," : "",
                          props ? props : "");
    t->qts = t->qs->qts;
    qpci_device_foreach(t->qs->pcibus, TERN_PCI_VENDOR_ID,
                        TERN_PCI_DEVICE_ID, save_fn, &t->dev);
    g_assert(t->dev);
    t->bar0 = qpci_iomap(t->dev, TERN_BAR_REGS, &size);
    g_assert_cmpuint(size, ==, TERN_REGS_SIZE);
    qpci_msix_enable(t->dev);       /* maps BAR4 before the big BAR2 */
    t->bar2 = qpci_iomap(t->dev, TERN_BAR_LOCAL_MEM, &t->bar2_size);
    qpci_device_enable(t->dev);
    t->engines = TERN_ENGINES_TOTAL(rd(t, TERN_REG_ENGINES));

    t->arena = guest_alloc(&t->qs->alloc, ARENA_SIZE + PAGE);
    t->brk = t->arena;
    t->msi = t_alloc(t, PAGE);
    for (v = 0; v <= t->engines; v++) {
        uint64_t entry = t->dev->msix_table_off + v * PCI_MSIX_ENTRY_SIZE;

        qpci_io_writel(t->dev, t->dev->msix_table_bar,
                       entry + PCI_MSIX_ENTRY_LOWER_ADDR, t->msi + 4 * v);
        qpci_io_writel(t->dev, t->dev->msix_table_bar,
                       entry + PCI_MSIX_ENTRY_UPPER_ADDR, 0);
        qpci_io_writel(t->dev, t->dev->msix_table_bar,
                       entry + PCI_MSIX_ENTRY_DATA, MSI_DATA(v));
        qpci_io_writel(t->dev, t->dev->msix_table_bar,
                       entry + PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
    }
    for (e = 0; e < t->engines; e++) {
        ew(t, e, TERN_ENG_IRQ_MASK, 0);
    }
    wr(t, TERN_REG_ERR_IRQ_MASK, 0);
}

static void tern_boot(Tern *t, const char *props)
{
    tern_boot_machine(t, "", props);
}

static void tern_shutdown(Tern *t)
{
    g_free(t->dev);
    qtest_shutdown(t->qs);
}

#define WAIT_FOR(cond)                                                  \
    do {                                                                \
        gint64 deadline_ = g_get_monotonic_time() + WAIT_US;            \
        while (!(cond)) {                                               \
            g_assert_cmpint(g_get_monotonic_time(), <, deadline_);      \
            g_usleep(1000);                                             \
        }                                                               \
    } while (0)

/* ---- Address spaces ------------------------------------------------------ */

static uint64_t as_new(Tern *t)
{
    return t_alloc(t, PAGE);
}

static void as_map(Tern *t, uint64_t root, uint64_t va, uint64_t pa,
                   uint64_t flags)
{
    uint64_t table = root & TERN_PTE_ADDR_MASK;
    int level;

    for (level = TERN_PT_LEVELS - 1; level > 0; level--) {
        uint64_t slot = table + TERN_PT_INDEX(va, level) * 8;
        uint64_t pte = qtest_readq(t->qts, slot);

        if (!(pte & TERN_PTE_VALID)) {
            pte = t_alloc(t, PAGE) | TERN_PTE_VALID;
            qtest_writeq(t->qts, slot, pte);
        }
        table = pte & TERN_PTE_ADDR_MASK;
    }
    qtest_writeq(t->qts, table + TERN_PT_INDEX(va, 0) * 8,
                 pa | TERN_PTE_VALID | flags);
}

/* Back [va, va + size) with fresh zeroed guest pages; returns their base. */
static uint64_t as_map_buf(Tern *t, uint64_t root, uint64_t va, uint64_t size,
                           bool writable)
{
    uint64_t pa = t_alloc(t, size), off;

    for (off = 0; off < size; off += PAGE) {
        as_map(t, root, va + off, pa + off,
               writable ? TERN_PTE_WRITABLE : 0);
    }
    return pa;
}

/* ---- Command buffers ----------------------------------------------------- */

typedef struct Cmd {
    GArray *dw;
} Cmd;

static void c_init(Cmd *c)
{
    c->dw = g_array_new(false, false, sizeof(uint32_t));
}

static void c_free(Cmd *c)
{
    g_array_free(c->dw, true);
}

static uint32_t c_off(Cmd *c)
{
    return c->dw->len * 4;
}

static void c_dw(Cmd *c, uint32_t v)
{
    g_array_append_val(c->dw, v);
}

static void c_va(Cmd *c, uint64_t va)
{
    c_dw(c, (uint32_t)va);
    c_dw(c, va >> 32);
}

static void c_hdr(Cmd *c, unsigned op, unsigned dwords)
{
    c_dw(c, TERN_PKT_HEADER(op, dwords));
}

static void c_nop(Cmd *c, unsigned dwords)
{
    c_hdr(c, TERN_OP_NOP, dwords);
    while (--dwords) {
        c_dw(c, 0xdeadbeef);
    }
}

static void c_write_imm(Cmd *c, uint64_t va, uint32_t val)
{
    c_hdr(c, TERN_OP_WRITE_IMM, TERN_PKT_DWORDS_WRITE_IMM);
    c_va(c, va);
    c_dw(c, val);
}

static void c_fence(Cmd *c, uint64_t va, uint32_t seqno)
{
    c_hdr(c, TERN_OP_FENCE, TERN_PKT_DWORDS_FENCE);
    c_va(c, va);
    c_dw(c, seqno);
}

static void c_timestamp(Cmd *c, uint64_t va)
{
    c_hdr(c, TERN_OP_TIMESTAMP, TERN_PKT_DWORDS_TIMESTAMP);
    c_va(c, va);
}

static void c_copy(Cmd *c, uint64_t src, uint64_t dst, uint32_t size)
{
    c_hdr(c, TERN_OP_COPY, TERN_PKT_DWORDS_COPY);
    c_va(c, src);
    c_va(c, dst);
    c_dw(c, size);
}

static void c_fill(Cmd *c, uint64_t dst, uint32_t size, uint32_t val)
{
    c_hdr(c, TERN_OP_FILL, TERN_PKT_DWORDS_FILL);
    c_va(c, dst);
    c_dw(c, size);
    c_dw(c, val);
}

static void c_spin(Cmd *c, uint32_t us)
{
    c_hdr(c, TERN_OP_SPIN, TERN_PKT_DWORDS_SPIN);
    c_dw(c, us);
}

static void c_wait_mem(Cmd *c, uint64_t va, uint32_t val, uint32_t timeout)
{
    c_hdr(c, TERN_OP_WAIT_MEM, TERN_PKT_DWORDS_WAIT_MEM);
    c_va(c, va);
    c_dw(c, val);
    c_dw(c, timeout);
}

static void c_vecadd(Cmd *c, uint64_t a, uint64_t b, uint64_t out,
                     uint32_t count)
{
    c_hdr(c, TERN_OP_VECADD, TERN_PKT_DWORDS_VECADD);
    c_va(c, a);
    c_va(c, b);
    c_va(c, out);
    c_dw(c, count);
}

static void c_saxpy(Cmd *c, uint64_t x, uint64_t y, uint32_t count,
                    float alpha)
{
    uint32_t bits;

    memcpy(&bits, &alpha, 4);
    c_hdr(c, TERN_OP_SAXPY, TERN_PKT_DWORDS_SAXPY);
    c_va(c, x);
    c_va(c, y);
    c_dw(c, count);
    c_dw(c, bits);
}

static void c_gemm(Cmd *c, uint64_t a, uint64_t b, uint64_t out,
                   uint32_t m, uint32_t n, uint32_t k)
{
    c_hdr(c, TERN_OP_GEMM, TERN_PKT_DWORDS_GEMM);
    c_va(c, a);
    c_va(c, b);
    c_va(c, out);
    c_dw(c, m);
    c_dw(c, n);
    c_dw(c, k);
}

static void c_reduce(Cmd *c, uint64_t src, uint64_t dst, uint32_t count,
                     unsigned op)
{
    c_hdr(c, TERN_OP_REDUCE, TERN_PKT_DWORDS_REDUCE);
    c_va(c, src);
    c_va(c, dst);
    c_dw(c, TERN_REDUCE_COUNT_OP(count, op));
}

static void c_tlb_invalidate(Cmd *c)
{
    c_hdr(c, TERN_OP_TLB_INVALIDATE, TERN_PKT_DWORDS_TLB_INVALIDATE);
}

static void c_phys_copy(Cmd *c, uint64_t src, uint64_t dst, uint32_t size,
                        uint32_t flags)
{
    c_hdr(c, TERN_OP_PHYS_COPY, TERN_PKT_DWORDS_PHYS_COPY);
    c_va(c, src);
    c_va(c, dst);
    c_dw(c, size);
    c_dw(c, flags);
}

/* Copy the buffer to guest memory; returns its bus address. */
static uint64_t c_upload(Tern *t, Cmd *c)
{
    uint64_t size = c_off(c), pa = t_alloc(t, size), i;
    g_autofree uint8_t *raw = g_malloc(size);

    for (i = 0; i < c->dw->len; i++) {
        stl_le_p(raw + i * 4, g_array_index(c->dw, uint32_t, i));
    }
    qtest_memwrite(t->qts, pa, raw, size);
    return pa;
}

/* ---- Slots --------------------------------------------------------------- */

typedef struct Job {
    uint64_t buf;
    uint32_t size;
    uint64_t root;
    uint32_t ctx_tag;
    uint32_t seqno;
    uint32_t flags;
    uint64_t resume;
} Job;

static void slot_program(Tern *t, unsigned e, unsigned s, const Job *j)
{
    sw(t, e, s, TERN_SLOT_BUF_LO, j->buf);
    sw(t, e, s, TERN_SLOT_BUF_HI, j->buf >> 32);
    sw(t, e, s, TERN_SLOT_BUF_SIZE, j->size);
    sw(t, e, s, TERN_SLOT_ROOT_LO, j->root);
    sw(t, e, s, TERN_SLOT_ROOT_HI, j->root >> 32);
    sw(t, e, s, TERN_SLOT_CTX_TAG, j->ctx_tag);
    sw(t, e, s, TERN_SLOT_SEQNO, j->seqno);
    sw(t, e, s, TERN_SLOT_FLAGS, j->flags);
    sw(t, e, s, TERN_SLOT_RESUME_LO, j->resume);
    sw(t, e, s, TERN_SLOT_RESUME_HI, j->resume >> 32);
}

static void submit(Tern *t, unsigned e, unsigned s, const Job *j)
{
    slot_program(t, e, s, j);
    ew(t, e, TERN_ENG_DOORBELL, s);
}

static Job job_of(Tern *t, Cmd *c, uint64_t root, uint32_t seqno)
{
    Job j = {
        .buf = c_upload(t, c),
        .size = c_off(c),
        .root = root,
        .ctx_tag = 0xc0de0000 | seqno,
        .seqno = seqno,
    };
    return j;
}

static uint32_t slot_state(Tern *t, unsigned e, unsigned s)
{
    return TERN_SLOT_STATE_OF(sr(t, e, s, TERN_SLOT_STATE));
}

static uint32_t slot_outcome(Tern *t, unsigned e, unsigned s)
{
    return TERN_SLOT_OUTCOME_OF(sr(t, e, s, TERN_SLOT_STATE));
}

static uint32_t wait_done(Tern *t, unsigned e, unsigned s)
{
    WAIT_FOR(slot_state(t, e, s) == TERN_SLOT_STATE_DONE);
    return slot_outcome(t, e, s);
}

static void ack(Tern *t, unsigned e, unsigned s)
{
    sw(t, e, s, TERN_SLOT_ACK, 1);
    g_assert_cmpuint(slot_state(t, e, s), ==, TERN_SLOT_STATE_FREE);
}

/* Run a job in slot 0 of engine e to its end; returns the outcome. */
static uint32_t run_job(Tern *t, unsigned e, const Job *j)
{
    uint32_t outcome;

    submit(t, e, 0, j);
    outcome = wait_done(t, e, 0);
    ack(t, e, 0);
    ew(t, e, TERN_ENG_IRQ_STATUS, ~0u);
    return outcome;
}

static uint32_t run_cmd(Tern *t, unsigned e, Cmd *c, uint64_t root,
                        uint32_t flags)
{
    Job j = job_of(t, c, root, 1);

    j.flags = flags;
    return run_job(t, e, &j);
}

static uint64_t slot_run_ns(Tern *t, unsigned e, unsigned s)
{
    uint64_t lo = sr(t, e, s, TERN_SLOT_RUN_NS_LO);

    return lo | (uint64_t)sr(t, e, s, TERN_SLOT_RUN_NS_HI) << 32;
}

static uint64_t busy_ns(Tern *t, unsigned e)
{
    uint64_t lo = er(t, e, TERN_ENG_BUSY_NS_LO);

    return lo | (uint64_t)er(t, e, TERN_ENG_BUSY_NS_HI) << 32;
}

static uint64_t fault_addr(Tern *t, unsigned e)
{
    return er(t, e, TERN_ENG_FAULT_ADDR_LO) |
           (uint64_t)er(t, e, TERN_ENG_FAULT_ADDR_HI) << 32;
}

static void check_fault(Tern *t, unsigned e, unsigned kind, uint64_t addr,
                        bool write, uint32_t pkt_offset)
{
    uint32_t info = er(t, e, TERN_ENG_FAULT_INFO);

    g_assert_cmpuint(TERN_FAULT_KIND(info), ==, kind);
    g_assert_cmphex(fault_addr(t, e), ==, addr);
    g_assert_cmpuint(!!(info & TERN_FAULT_WRITE), ==, write);
    g_assert_cmpuint(TERN_FAULT_OFFSET(info), ==, pkt_offset / 4);
    g_assert_cmphex(rd(t, TERN_REG_ERR_IRQ_STATUS) &
                    TERN_ERR_IRQ_ENGINE(e), ==, TERN_ERR_IRQ_ENGINE(e));
    wr(t, TERN_REG_ERR_IRQ_STATUS, ~0u);
}

static uint64_t rd64(Tern *t, uint32_t lo)
{
    uint64_t v = rd(t, lo);

    return v | (uint64_t)rd(t, lo + 4) << 32;
}

/* ---- f32 reference ------------------------------------------------------- */

/* Each operation rounded once to binary32, never fused (hardware.md 8.2). */
static float f32_add(float a, float b)
{
    return (float)((double)a + (double)b);
}

static float f32_mul(float a, float b)
{
    return (float)((double)a * (double)b);
}

static void fill_random(float *v, size_t n, uint32_t seed)
{
    GRand *r = g_rand_new_with_seed(seed);
    size_t i;

    for (i = 0; i < n; i++) {
        v[i] = (float)g_rand_double_range(r, -8.0, 8.0);
    }
    g_rand_free(r);
}

static void put_f32(Tern *t, uint64_t pa, const float *v, size_t n)
{
    g_autofree uint8_t *raw = g_malloc(n * 4);
    size_t i;

    for (i = 0; i < n; i++) {
        uint32_t bits;

        memcpy(&bits, &v[i], 4);
        stl_le_p(raw + i * 4, bits);
    }
    qtest_memwrite(t->qts, pa, raw, n * 4);
}

static void get_f32(Tern *t, uint64_t pa, float *v, size_t n)
{
    g_autofree uint8_t *raw = g_malloc(n * 4);
    size_t i;

    qtest_memread(t->qts, pa, raw, n * 4);
    for (i = 0; i < n; i++) {
        uint32_t bits = ldl_le_p(raw + i * 4);

        memcpy(&v[i], &bits, 4);
    }
}

static void ref_gemm(const float *a, const float *b, float *c,
                     unsigned m, unsigned n, unsigned k)
{
    unsigned i, j, p;

    for (i = 0; i < m; i++) {
        for (j = 0; j < n; j++) {
            float acc = 0.0f;

            for (p = 0; p < k; p++) {
                acc = f32_add(acc, f32_mul(a[i * k + p], b[p * n + j]));
            }
            c[i * n + j] = acc;
        }
    }
}

static float ref_reduce(const float *v, unsigned n, unsigned op)
{
    float acc = op == TERN_REDUCE_SUM ? 0.0f : v[0];
    unsigned i;

    for (i = 0; i < n; i++) {
        if (op == TERN_REDUCE_SUM) {
            acc = f32_add(acc, v[i]);
        } else if (op == TERN_REDUCE_MIN ? v[i] < acc : v[i] > acc) {
            acc = v[i];
        }
    }
    return acc;
}

static void assert_f32_equal(const float *got, const float *want, size_t n)
{
    g_assert_cmpmem(got, n * 4, want, n * 4);
}

/* ---- Tests: identity ----------------------------------------------------- */

static void test_ids_and_bar_sizes(void)
{
    Tern t;
    unsigned e;

    tern_boot(&t, NULL);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_VENDOR_ID), ==,
                    TERN_PCI_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_DEVICE_ID), ==,
                    TERN_PCI_DEVICE_ID);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_CLASS_DEVICE), ==,
                    TERN_PCI_CLASS);
    g_assert_cmphex(qpci_config_readb(t.dev, PCI_REVISION_ID), ==,
                    TERN_PCI_REVISION);
    g_assert_cmpuint(t.bar2_size, ==, 256 * 1024 * 1024);
    g_assert_cmpuint(qpci_msix_table_size(t.dev), ==, t.engines + 1);

    g_assert_cmphex(rd(&t, TERN_REG_ID), ==, TERN_ID_MAGIC);
    g_assert_cmphex(rd(&t, TERN_REG_VERSION), ==, TERN_HW_VERSION);
    g_assert_cmphex(rd(&t, TERN_REG_CAPS), ==,
                    TERN_CAPS_FAULT_INJECT | TERN_CAPS_DONE_RECORDS);
    g_assert_cmpuint(TERN_ENGINES_TOTAL(rd(&t, TERN_REG_ENGINES)), ==, 3);
    g_assert_cmpuint(TERN_ENGINES_COMPUTE(rd(&t, TERN_REG_ENGINES)), ==, 2);
    g_assert_cmpuint(rd64(&t, TERN_REG_LOCAL_MEM_SIZE_LO), ==,
                     256 * 1024 * 1024);
    g_assert_cmpuint(rd(&t, TERN_REG_BUF_SIZE_MAX), ==, 1024 * 1024);
    g_assert_cmpuint(rd(&t, TERN_REG_TLB_ENTRIES), ==, 64);
    g_assert_cmphex(rd(&t, TERN_REG_STATUS), ==, TERN_STATUS_READY);
    for (e = 0; e < t.engines; e++) {
        g_assert_cmpuint(TERN_ENG_CLASS(er(&t, e, TERN_ENG_CAPS)), ==,
                         e == 2 ? TERN_ENG_CLASS_COPY
                                : TERN_ENG_CLASS_COMPUTE);
        g_assert_cmpuint(TERN_ENG_STATE(er(&t, e, TERN_ENG_STATUS)), ==,
                         TERN_ENG_STATE_IDLE);
    }
    /* BAR2 is plain memory, readable and writable by the CPU. */
    qpci_io_writel(t.dev, t.bar2, 0x1000, 0x12345678);
    g_assert_cmphex(qpci_io_readl(t.dev, t.bar2, 0x1000), ==, 0x12345678);

    /* a conventional PCI device on the i440FX bus, PCI Express on q35 */
    g_assert_cmphex(qpci_find_capability(t.dev, PCI_CAP_ID_EXP, 0), ==, 0);
    g_assert_cmphex(qpci_find_capability(t.dev, PCI_CAP_ID_MSIX, 0), !=, 0);
    g_assert_cmphex(qpci_config_readb(t.dev, PCI_INTERRUPT_PIN), ==, 0);
    tern_shutdown(&t);

    tern_boot_machine(&t, "-machine q35", "local-mem-size=16M");
    g_assert_cmphex(qpci_find_capability(t.dev, PCI_CAP_ID_EXP, 0), !=, 0);
    g_assert_cmphex(rd(&t, TERN_REG_ID), ==, TERN_ID_MAGIC);
    tern_shutdown(&t);

    tern_boot(&t, "compute-engines=5,local-mem-size=4M");
    g_assert_cmpuint(t.bar2_size, ==, 4 * 1024 * 1024);
    g_assert_cmpuint(t.engines, ==, 6);
    g_assert_cmpuint(qpci_msix_table_size(t.dev), ==, 7);
    g_assert_cmpuint(TERN_ENG_CLASS(er(&t, 5, TERN_ENG_CAPS)), ==,
                     TERN_ENG_CLASS_COPY);
    tern_shutdown(&t);
}

/* ---- Tests: packets ------------------------------------------------------ */

static void test_packet_effects(void)
{
    Tern t;
    Cmd c;
    uint64_t root, pa, t0, t1, ts;
    uint8_t src[6000], dst[6000];
    unsigned i;

    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    pa = as_map_buf(&t, root, VA_BASE, 8 * PAGE, true);
    for (i = 0; i < sizeof(src); i++) {
        src[i] = i * 7 + 3;
    }
    qtest_memwrite(t.qts, pa + 0x10, src, sizeof(src));

    c_init(&c);
    c_nop(&c, 1);
    c_write_imm(&c, VA_BASE + 0x4000, 0xcafef00d);
    c_nop(&c, 5);
    c_fence(&c, VA_BASE + 0x4004, 77);
    c_timestamp(&c, VA_BASE + 0x4008);
    /* unaligned copy across pages */
    c_copy(&c, VA_BASE + 0x10, VA_BASE + 0x5003, sizeof(src));
    c_fill(&c, VA_BASE + 0x4100, 0x204, 0xa5a5a5a5);
    c_spin(&c, 25);
    c_write_imm(&c, VA_BASE + 0x4400, 5);
    c_wait_mem(&c, VA_BASE + 0x4400, 5, 1000);

    t0 = rd64(&t, TERN_REG_CLOCK_LO);
    g_assert_cmpuint(run_cmd(&t, 0, &c, root, 0), ==,
                     TERN_OUTCOME_COMPLETED);
    t1 = rd64(&t, TERN_REG_CLOCK_LO);

    g_assert_cmphex(qtest_readl(t.qts, pa + 0x4000), ==, 0xcafef00d);
    g_assert_cmpuint(qtest_readl(t.qts, pa + 0x4004), ==, 77);
    ts = qtest_readq(t.qts, pa + 0x4008);
    g_assert_cmpuint(ts, >=, t0);
    g_assert_cmpuint(ts, <=, t1);
    qtest_memread(t.qts, pa + 0x5003, dst, sizeof(dst));
    g_assert_cmpmem(dst, sizeof(dst), src, sizeof(src));
    for (i = 0; i < 0x204; i += 4) {
        g_assert_cmphex(qtest_readl(t.qts, pa + 0x4100 + i), ==, 0xa5a5a5a5);
    }
    /* FILL stopped at its size */
    g_assert_cmphex(qtest_readl(t.qts, pa + 0x4100 + 0x204), ==, 0);
    /* the device time covers at least the SPIN */
    g_assert_cmpuint(t1 - t0, >=, 25000);
    c_free(&c);
    tern_shutdown(&t);
}

static void test_gemm_matches_cpu(void)
{
    const unsigned m = 19, n = 37, k = 53;
    g_autofree float *a = g_new(float, m * k);
    g_autofree float *b = g_new(float, k * n);
    g_autofree float *want = g_new(float, m * n);
    g_autofree float *got = g_new(float, m * n);
    uint64_t root, pa, pb, pc;
    Tern t;
    Cmd c;

    fill_random(a, m * k, 1);
    fill_random(b, k * n, 2);
    ref_gemm(a, b, want, m, n, k);

    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    pa = as_map_buf(&t, root, VA_BASE, m * k * 4, false);
    pb = as_map_buf(&t, root, VA_BASE + 0x100000, k * n * 4, false);
    pc = as_map_buf(&t, root, VA_BASE + 0x200000, m * n * 4, true);
    put_f32(&t, pa, a, m * k);
    put_f32(&t, pb, b, k * n);
    c_init(&c);
    c_gemm(&c, VA_BASE, VA_BASE + 0x100000, VA_BASE + 0x200000, m, n, k);
    g_assert_cmpuint(run_cmd(&t, 1, &c, root, 0), ==,
                     TERN_OUTCOME_COMPLETED);
    get_f32(&t, pc, got, m * n);
    assert_f32_equal(got, want, m * n);
    c_free(&c);
    tern_shutdown(&t);
}

static void test_saxpy_and_vecadd_match_cpu(void)
{
    const unsigned n = 10000;       /* three chunks */
    const float alpha = 1.7f;
    g_autofree float *x = g_new(float, n);
    g_autofree float *y = g_new(float, n);
    g_autofree float *want = g_new(float, n);
    g_autofree float *sum = g_new(float, n);
    g_autofree float *got = g_new(float, n);
    uint64_t root, px, py, pz;
    unsigned i;
    Tern t;
    Cmd c;

    fill_random(x, n, 3);
    fill_random(y, n, 4);
    for (i = 0; i < n; i++) {
        want[i] = f32_add(f32_mul(alpha, x[i]), y[i]);
        sum[i] = f32_add(x[i], want[i]);
    }
    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    px = as_map_buf(&t, root, VA_BASE, n * 4, true);
    py = as_map_buf(&t, root, VA_BASE + 0x100000, n * 4, true);
    pz = as_map_buf(&t, root, VA_BASE + 0x200000, n * 4, true);
    put_f32(&t, px, x, n);
    put_f32(&t, py, y, n);
    c_init(&c);
    c_saxpy(&c, VA_BASE, VA_BASE + 0x100000, n, alpha);
    c_vecadd(&c, VA_BASE, VA_BASE + 0x100000, VA_BASE + 0x200000, n);
    /* in place: x = x + x */
    c_vecadd(&c, VA_BASE, VA_BASE, VA_BASE, n);
    g_assert_cmpuint(run_cmd(&t, 0, &c, root, 0), ==,
                     TERN_OUTCOME_COMPLETED);
    get_f32(&t, py, got, n);
    assert_f32_equal(got, want, n);
    get_f32(&t, pz, got, n);
    assert_f32_equal(got, sum, n);
    get_f32(&t, px, got, n);
    for (i = 0; i < n; i++) {
        want[i] = f32_add(x[i], x[i]);
    }
    assert_f32_equal(got, want, n);
    c_free(&c);
    tern_shutdown(&t);
}

static void test_reduce_matches_cpu(void)
{
    const unsigned n = 9001;
    g_autofree float *v = g_new(float, n);
    uint64_t root, pv, pr;
    unsigned op;
    Tern t;
    Cmd c;

    fill_random(v, n, 5);
    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    pv = as_map_buf(&t, root, VA_BASE, n * 4, false);
    pr = as_map_buf(&t, root, VA_BASE + 0x100000, PAGE, true);
    put_f32(&t, pv, v, n);
    c_init(&c);
    for (op = TERN_REDUCE_SUM; op <= TERN_REDUCE_MAX; op++) {
        c_reduce(&c, VA_BASE, VA_BASE + 0x100000 + op * 4, n, op);
    }
    g_assert_cmpuint(run_cmd(&t, 0, &c, root, 0), ==,
                     TERN_OUTCOME_COMPLETED);
    for (op = TERN_REDUCE_SUM; op <= TERN_REDUCE_MAX; op++) {
        float got, want = ref_reduce(v, n, op);

        get_f32(&t, pr + op * 4, &got, 1);
        g_assert_cmpmem(&got, 4, &want, 4);
    }
    c_free(&c);
    tern_shutdown(&t);
}

/* ---- Tests: slots -------------------------------------------------------- */

/*
 * Two jobs, seqnos 100 and 101: the first writes 1 at VA_BASE + 4, then
 * waits until the word at VA_BASE is 1; the second writes 2 at VA_BASE + 8.
 */
static void gated_pair(Tern *t, uint64_t root, Cmd *c0, Cmd *c1, Job *j0,
                       Job *j1)
{
    c_init(c0);
    c_write_imm(c0, VA_BASE + 4, 1);
    c_wait_mem(c0, VA_BASE, 1, 5000000);
    c_init(c1);
    c_write_imm(c1, VA_BASE + 8, 2);
    *j0 = job_of(t, c0, root, 100);
    *j1 = job_of(t, c1, root, 101);
}

static void test_in_order_completion_and_writeback(void)
{
    uint64_t root, pa, wb;
    Job j0, j1;
    Tern t;
    Cmd c0, c1;

    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    pa = as_map_buf(&t, root, VA_BASE, PAGE, true);
    wb = t_alloc(&t, PAGE);
    ew(&t, 0, TERN_ENG_WRITEBACK_LO, wb);
    ew(&t, 0, TERN_ENG_WRITEBACK_HI, wb >> 32);

    /* slot 0 runs until the test sets the flag; slot 1 queued behind */
    gated_pair(&t, root, &c0, &c1, &j0, &j1);
    msi_clear(&t);
    submit(&t, 0, 0, &j0);
    submit(&t, 0, 1, &j1);
    g_assert_cmpuint(slot_state(&t, 0, 0), ==, TERN_SLOT_STATE_RUNNING);
    g_assert_cmpuint(slot_state(&t, 0, 1), ==, TERN_SLOT_STATE_PENDING);
    g_assert_cmpuint(er(&t, 0, TERN_ENG_STATUS), ==,
                     TERN_ENG_STATE_RUNNING | (0 << 4));
    WAIT_FOR(qtest_readl(t.qts, pa + 4) == 1);
    g_usleep(20000);
    /* slot 1 has not overtaken slot 0 */
    g_assert_cmpuint(qtest_readl(t.qts, pa + 8), ==, 0);
    g_assert_cmpuint(slot_state(&t, 0, 1), ==, TERN_SLOT_STATE_PENDING);
    g_assert_cmpuint(qtest_readl(t.qts, wb), ==, 0);
    g_assert_false(msi_seen(&t, 0));

    qtest_writel(t.qts, pa, 1);
    g_assert_cmpuint(wait_done(&t, 0, 1), ==, TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(slot_outcome(&t, 0, 0), ==, TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(sr(&t, 0, 0, TERN_SLOT_DONE_SEQ), ==, 1);
    g_assert_cmpuint(sr(&t, 0, 1, TERN_SLOT_DONE_SEQ), ==, 2);
    g_assert_cmpuint(qtest_readl(t.qts, pa + 8), ==, 2);
    g_assert_cmpuint(qtest_readl(t.qts, wb), ==, 101);
    WAIT_FOR(msi_seen(&t, 0));
    g_assert_false(msi_seen(&t, t.engines));
    g_assert_cmphex(er(&t, 0, TERN_ENG_IRQ_STATUS), ==,
                    TERN_ENG_IRQ_SLOT_DONE);

    /* DONE slots stay DONE until acknowledged; then FREE and reusable */
    ack(&t, 0, 0);
    ack(&t, 0, 1);
    ew(&t, 0, TERN_ENG_IRQ_STATUS, TERN_ENG_IRQ_SLOT_DONE);
    g_assert_cmphex(er(&t, 0, TERN_ENG_IRQ_STATUS), ==, 0);

    /* the writeback follows submission order for a stream of jobs */
    for (unsigned i = 0; i < 8; i++) {
        Job j = job_of(&t, &c1, root, 200 + i);
        unsigned s = i & 1;

        submit(&t, 0, s, &j);
        g_assert_cmpuint(wait_done(&t, 0, s), ==, TERN_OUTCOME_COMPLETED);
        g_assert_cmpuint(qtest_readl(t.qts, wb), ==, 200 + i);
        ack(&t, 0, s);
        j1 = j;
    }

    /*
     * ACK keeps the RW registers: a driver rewrites only what changes.
     * Slot 1 last ran c1 (j1) with seqno 207: a new SEQNO and a doorbell
     * run the same buffer again.
     */
    g_assert_cmphex(sr(&t, 0, 1, TERN_SLOT_BUF_LO), ==, (uint32_t)j1.buf);
    g_assert_cmpuint(sr(&t, 0, 1, TERN_SLOT_BUF_SIZE), ==, j1.size);
    g_assert_cmphex(sr(&t, 0, 1, TERN_SLOT_ROOT_LO), ==, (uint32_t)root);
    g_assert_cmpuint(sr(&t, 0, 1, TERN_SLOT_SEQNO), ==, 207);
    qtest_writel(t.qts, pa + 8, 0);
    sw(&t, 0, 1, TERN_SLOT_SEQNO, 300);
    ew(&t, 0, TERN_ENG_DOORBELL, 1);
    g_assert_cmpuint(wait_done(&t, 0, 1), ==, TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(qtest_readl(t.qts, pa + 8), ==, 2);
    g_assert_cmpuint(qtest_readl(t.qts, wb), ==, 300);
    ack(&t, 0, 1);
    c_free(&c0);
    c_free(&c1);
    tern_shutdown(&t);
}

static void expect_reg_error(Tern *t, uint32_t off);

/* A done record (docs/hardware.md 7.1) of slot s at rec. */
typedef struct DoneRec {
    uint64_t run_ns;
    uint32_t seqno;
    uint32_t outcome;
    uint32_t done_seq;
} DoneRec;

static DoneRec done_rec(Tern *t, uint64_t rec, unsigned s)
{
    uint64_t a = rec + s * TERN_DONE_RECORD_SIZE;
    uint32_t info = qtest_readl(t->qts, a + TERN_DONE_OFF_INFO);
    DoneRec r = {
        .run_ns = qtest_readq(t->qts, a + TERN_DONE_OFF_RUN_NS),
        .seqno = qtest_readl(t->qts, a + TERN_DONE_OFF_SEQNO),
        .outcome = TERN_DONE_INFO_OUTCOME(info),
        .done_seq = TERN_DONE_INFO_SEQ(info),
    };

    g_assert_cmphex(info & 0xf0, ==, 0);
    return r;
}

static void done_rec_clear(Tern *t, uint64_t rec, unsigned s)
{
    qtest_writel(t->qts, rec + s * TERN_DONE_RECORD_SIZE + TERN_DONE_OFF_INFO,
                 0);
}

/* The record of slot s says what its registers say. */
static void check_done_rec(Tern *t, uint64_t rec, unsigned s, uint32_t seqno,
                           uint32_t outcome)
{
    DoneRec r;

    WAIT_FOR(done_rec(t, rec, s).outcome != TERN_OUTCOME_NONE);
    r = done_rec(t, rec, s);
    g_assert_cmpuint(slot_state(t, 0, s), ==, TERN_SLOT_STATE_DONE);
    g_assert_cmpuint(r.outcome, ==, outcome);
    g_assert_cmpuint(r.outcome, ==, slot_outcome(t, 0, s));
    g_assert_cmpuint(r.seqno, ==, seqno);
    g_assert_cmpuint(r.run_ns, ==, slot_run_ns(t, 0, s));
    g_assert_cmpuint(r.done_seq, ==, sr(t, 0, s, TERN_SLOT_DONE_SEQ));
}

static void test_done_records(void)
{
    uint64_t root, pa, rec, resume;
    Tern t;
    Cmd c0, c1, cf;
    Job j0, j1, jf;

    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    pa = as_map_buf(&t, root, VA_BASE, PAGE, true);
    rec = t_alloc(&t, PAGE);
    resume = t_alloc(&t, PAGE);
    /* read back as written; bits 3:0 are not used (checked by the runs) */
    ew(&t, 0, TERN_ENG_DONE_RECORD_LO, rec | 0xf);
    ew(&t, 0, TERN_ENG_DONE_RECORD_HI, rec >> 32);
    g_assert_cmphex(er(&t, 0, TERN_ENG_DONE_RECORD_LO), ==,
                    (uint32_t)rec | 0xf);

    /* in order, each with its seqno, outcome, RUN_NS and DONE_SEQ */
    gated_pair(&t, root, &c0, &c1, &j0, &j1);
    submit(&t, 0, 0, &j0);
    submit(&t, 0, 1, &j1);
    WAIT_FOR(qtest_readl(t.qts, pa + 4) == 1);
    g_usleep(20000);
    g_assert_cmpuint(done_rec(&t, rec, 0).outcome, ==, TERN_OUTCOME_NONE);
    g_assert_cmpuint(done_rec(&t, rec, 1).outcome, ==, TERN_OUTCOME_NONE);
    msi_clear(&t);
    qtest_writel(t.qts, pa, 1);
    check_done_rec(&t, rec, 0, 100, TERN_OUTCOME_COMPLETED);
    check_done_rec(&t, rec, 1, 101, TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(done_rec(&t, rec, 0).done_seq, ==, 1);
    g_assert_cmpuint(done_rec(&t, rec, 1).done_seq, ==, 2);
    g_assert_cmpuint(qtest_readl(t.qts, pa + 8), ==, 2);
    WAIT_FOR(msi_seen(&t, 0));
    g_assert_cmphex(er(&t, 0, TERN_ENG_IRQ_STATUS), ==,
                    TERN_ENG_IRQ_SLOT_DONE);

    /*
     * A message for every completion: SLOT_DONE is never cleared, yet each
     * job interrupts.  The driver clears INFO before it rings the slot.
     */
    ack(&t, 0, 0);
    ack(&t, 0, 1);
    for (unsigned i = 0; i < 6; i++) {
        Job j = job_of(&t, &c1, root, 200 + i);
        unsigned s = i & 1;

        done_rec_clear(&t, rec, s);
        msi_clear(&t);
        submit(&t, 0, s, &j);
        /* the message comes after the record */
        WAIT_FOR(msi_seen(&t, 0));
        g_assert_cmpuint(done_rec(&t, rec, s).outcome, ==,
                         TERN_OUTCOME_COMPLETED);
        check_done_rec(&t, rec, s, 200 + i, TERN_OUTCOME_COMPLETED);
        g_assert_cmpuint(done_rec(&t, rec, s).done_seq, ==, 3 + i);
        g_assert_cmphex(er(&t, 0, TERN_ENG_IRQ_STATUS), ==,
                        TERN_ENG_IRQ_SLOT_DONE);
        ack(&t, 0, s);
    }
    /* masked: no message, the record all the same */
    ew(&t, 0, TERN_ENG_IRQ_MASK, TERN_ENG_IRQ_SLOT_DONE);
    done_rec_clear(&t, rec, 0);
    msi_clear(&t);
    j0 = job_of(&t, &c1, root, 300);
    submit(&t, 0, 0, &j0);
    check_done_rec(&t, rec, 0, 300, TERN_OUTCOME_COMPLETED);
    g_usleep(20000);
    g_assert_false(msi_seen(&t, 0));
    ack(&t, 0, 0);
    ew(&t, 0, TERN_ENG_IRQ_MASK, 0);
    ew(&t, 0, TERN_ENG_IRQ_STATUS, ~0u);

    /* preemption: PREEMPTED, then the pending slot CANCELLED, in order */
    c_init(&cf);
    c_spin(&cf, 5000000);
    j0 = job_of(&t, &cf, root, 400);
    j0.resume = resume;
    j1 = job_of(&t, &c1, root, 401);
    done_rec_clear(&t, rec, 0);
    done_rec_clear(&t, rec, 1);
    submit(&t, 0, 0, &j0);
    submit(&t, 0, 1, &j1);
    g_usleep(20000);
    msi_clear(&t);
    ew(&t, 0, TERN_ENG_PREEMPT, 1);
    check_done_rec(&t, rec, 0, 400, TERN_OUTCOME_PREEMPTED);
    check_done_rec(&t, rec, 1, 401, TERN_OUTCOME_CANCELLED);
    g_assert_cmpuint(done_rec(&t, rec, 1).done_seq, ==,
                     done_rec(&t, rec, 0).done_seq + 1);
    g_assert_cmpuint(done_rec(&t, rec, 1).run_ns, ==, 0);
    WAIT_FOR(msi_seen(&t, 0));
    ew(&t, 0, TERN_ENG_IRQ_STATUS, ~0u);
    ack(&t, 0, 0);
    ack(&t, 0, 1);

    /* a fault: FAULTED, no message on the engine vector */
    c_free(&cf);
    c_init(&cf);
    c_write_imm(&cf, VA_BASE + 64 * PAGE, 1);
    jf = job_of(&t, &cf, root, 500);
    done_rec_clear(&t, rec, 0);
    msi_clear(&t);
    submit(&t, 0, 0, &jf);
    /* the error vector's message too comes after the record */
    WAIT_FOR(msi_seen(&t, t.engines));
    g_assert_cmpuint(done_rec(&t, rec, 0).outcome, ==, TERN_OUTCOME_FAULTED);
    check_done_rec(&t, rec, 0, 500, TERN_OUTCOME_FAULTED);
    g_assert_false(msi_seen(&t, 0));
    ack(&t, 0, 0);
    wr(&t, TERN_REG_ERR_IRQ_STATUS, ~0u);
    ew(&t, 0, TERN_ENG_IRQ_STATUS, ~0u);

    /* an engine reset writes no record */
    c_free(&cf);
    c_init(&cf);
    c_spin(&cf, 5000000);
    j0 = job_of(&t, &cf, root, 600);
    done_rec_clear(&t, rec, 0);
    submit(&t, 0, 0, &j0);
    g_usleep(10000);
    ew(&t, 0, TERN_ENG_RESET, 1);
    WAIT_FOR(TERN_ENG_STATE(er(&t, 0, TERN_ENG_STATUS)) ==
             TERN_ENG_STATE_IDLE);
    g_usleep(10000);
    g_assert_cmpuint(done_rec(&t, rec, 0).outcome, ==, TERN_OUTCOME_NONE);
    g_assert_cmphex(er(&t, 0, TERN_ENG_DONE_RECORD_LO), ==,
                    (uint32_t)rec | 0xf);

    /* the device reset clears the register */
    wr(&t, TERN_REG_RESET, TERN_RESET_MAGIC);
    WAIT_FOR(rd(&t, TERN_REG_STATUS) & TERN_STATUS_READY);
    g_assert_cmphex(er(&t, 0, TERN_ENG_DONE_RECORD_LO), ==, 0);
    c_free(&c0);
    c_free(&c1);
    c_free(&cf);
    tern_shutdown(&t);

    /* done-records=off: a 1.0 device, without the register */
    tern_boot(&t, "local-mem-size=16M,done-records=off");
    g_assert_cmphex(rd(&t, TERN_REG_VERSION), ==, TERN_HW_VERSION_1_0);
    g_assert_cmphex(rd(&t, TERN_REG_CAPS) & TERN_CAPS_DONE_RECORDS, ==, 0);
    msi_clear(&t);
    er(&t, 0, TERN_ENG_DONE_RECORD_LO);
    expect_reg_error(&t, TERN_ENGINE_BASE(0) + TERN_ENG_DONE_RECORD_LO);
    ew(&t, 0, TERN_ENG_DONE_RECORD_HI, 1);
    expect_reg_error(&t, TERN_ENGINE_BASE(0) + TERN_ENG_DONE_RECORD_HI);
    tern_shutdown(&t);
}

/* ---- Tests: address spaces ----------------------------------------------- */

static void test_page_walk_permissions_and_faults(void)
{
    uint64_t root, pa, ro, misses;
    Tern t;
    Cmd c;
    uint32_t off;

    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    pa = as_map_buf(&t, root, VA_BASE, PAGE, true);
    ro = as_map_buf(&t, root, VA_BASE + PAGE, PAGE, false);
    qtest_writel(t.qts, ro, 0x1111);

    /* a read-only page can be read ... */
    c_init(&c);
    c_copy(&c, VA_BASE + PAGE, VA_BASE + 0x10, 4);
    misses = er(&t, 0, TERN_ENG_TLB_MISSES);
    g_assert_cmpuint(run_cmd(&t, 0, &c, root, 0), ==,
                     TERN_OUTCOME_COMPLETED);
    g_assert_cmphex(qtest_readl(t.qts, pa + 0x10), ==, 0x1111);
    g_assert_cmpuint(er(&t, 0, TERN_ENG_TLB_MISSES), ==, misses + 2);
    c_free(&c);

    /* ... but not written: fault, nothing written, error vector */
    c_init(&c);
    c_write_imm(&c, VA_BASE + 0x20, 1);
    off = c_off(&c);
    c_write_imm(&c, VA_BASE + PAGE + 8, 0xbad);
    c_write_imm(&c, VA_BASE + 0x24, 1);
    msi_clear(&t);
    {
        Job j = job_of(&t, &c, root, 5);

        j.ctx_tag = 0xabcd;
        submit(&t, 0, 0, &j);
        g_assert_cmpuint(wait_done(&t, 0, 0), ==, TERN_OUTCOME_FAULTED);
    }
    g_assert_cmphex(er(&t, 0, TERN_ENG_IRQ_STATUS), ==,
                    TERN_ENG_IRQ_FAULT | TERN_ENG_IRQ_SLOT_DONE);
    g_assert_cmphex(er(&t, 0, TERN_ENG_FAULT_CTX_TAG), ==, 0xabcd);
    WAIT_FOR(msi_seen(&t, t.engines));
    g_assert_false(msi_seen(&t, 0));
    check_fault(&t, 0, TERN_FAULT_WRITE_PROTECT, VA_BASE + PAGE + 8, true,
                off);
    g_assert_cmpuint(TERN_FAULT_SLOT(er(&t, 0, TERN_ENG_FAULT_INFO)), ==, 0);
    g_assert_cmphex(qtest_readl(t.qts, ro + 8), ==, 0);
    g_assert_cmpuint(qtest_readl(t.qts, pa + 0x20), ==, 1);
    g_assert_cmpuint(qtest_readl(t.qts, pa + 0x24), ==, 0);
    ack(&t, 0, 0);
    ew(&t, 0, TERN_ENG_IRQ_STATUS, ~0u);
    c_free(&c);

    /* the engine accepts new work after a fault */
    c_init(&c);
    c_write_imm(&c, VA_BASE + 0x28, 3);
    g_assert_cmpuint(run_cmd(&t, 0, &c, root, 0), ==,
                     TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(qtest_readl(t.qts, pa + 0x28), ==, 3);
    c_free(&c);

    /* unmapped VA (read), VA beyond 48 bits */
    c_init(&c);
    c_copy(&c, VA_BASE + 5 * PAGE + 12, VA_BASE, 4);
    g_assert_cmpuint(run_cmd(&t, 0, &c, root, 0), ==, TERN_OUTCOME_FAULTED);
    check_fault(&t, 0, TERN_FAULT_NOT_PRESENT, VA_BASE + 5 * PAGE + 12,
                false, 0);
    c_free(&c);
    c_init(&c);
    c_write_imm(&c, 1ull << 48, 1);
    g_assert_cmpuint(run_cmd(&t, 0, &c, root, 0), ==, TERN_OUTCOME_FAULTED);
    check_fault(&t, 0, TERN_FAULT_NOT_PRESENT, 1ull << 48, true, 0);
    c_free(&c);

    /* a COPY whose destination crosses into a read-only page */
    c_init(&c);
    c_fill(&c, VA_BASE + PAGE - 8, 16, 0x77777777);
    g_assert_cmpuint(run_cmd(&t, 0, &c, root, 0), ==, TERN_OUTCOME_FAULTED);
    check_fault(&t, 0, TERN_FAULT_WRITE_PROTECT, VA_BASE + PAGE, true, 0);
    g_assert_cmphex(qtest_readl(t.qts, pa + PAGE - 8), ==, 0);
    c_free(&c);

    /* a table outside RAM: the root points into the PCI hole */
    c_init(&c);
    c_write_imm(&c, VA_BASE, 1);
    g_assert_cmpuint(run_cmd(&t, 0, &c, 0xc0000000ull, 0), ==,
                     TERN_OUTCOME_FAULTED);
    check_fault(&t, 0, TERN_FAULT_PAGE_TABLE, VA_BASE, true, 0);
    /* a local table beyond local memory */
    g_assert_cmpuint(run_cmd(&t, 0, &c, (32ull << 20) | TERN_PTE_LOCAL, 0),
                     ==, TERN_OUTCOME_FAULTED);
    check_fault(&t, 0, TERN_FAULT_PAGE_TABLE, VA_BASE, true, 0);
    c_free(&c);
    tern_shutdown(&t);
}

static void lm_writeq(Tern *t, uint64_t off, uint64_t v)
{
    qpci_io_writel(t->dev, t->bar2, off, v);
    qpci_io_writel(t->dev, t->bar2, off + 4, v >> 32);
}

/*
 * After a fault the engine is halted until FAULT is cleared: a buffer
 * queued meanwhile stays PENDING and does not run; a preemption request
 * cancels it at once; clearing FAULT starts it.
 */
static void test_fault_halts_engine(void)
{
    uint64_t root, pa;
    Tern t;
    Cmd bad, mark, mark2;

    tern_boot(&t, NULL);
    root = as_new(&t);
    pa = as_map_buf(&t, root, VA_BASE, PAGE, true);
    c_init(&bad);
    c_write_imm(&bad, VA_BASE + 8 * PAGE, 0xbad);     /* not mapped */
    c_init(&mark);
    c_write_imm(&mark, VA_BASE + 0x10, 0x600d);
    c_init(&mark2);
    c_write_imm(&mark2, VA_BASE + 0x14, 0x600d);

    {
        Job jb = job_of(&t, &bad, root, 1);
        Job jm = job_of(&t, &mark, root, 2);

        submit(&t, 0, 0, &jb);
        g_assert_cmpuint(wait_done(&t, 0, 0), ==, TERN_OUTCOME_FAULTED);
        /* queued after the fault, before the driver saw it */
        submit(&t, 0, 1, &jm);
    }
    g_usleep(50 * 1000);
    g_assert_cmpuint(slot_state(&t, 0, 1), ==, TERN_SLOT_STATE_PENDING);
    g_assert_cmpuint(er(&t, 0, TERN_ENG_STATUS) & 0xf, ==,
                     TERN_ENG_STATE_IDLE);
    g_assert_cmphex(qtest_readl(t.qts, pa + 0x10), ==, 0);
    /* the fault registers still describe the first fault */
    check_fault(&t, 0, TERN_FAULT_NOT_PRESENT, VA_BASE + 8 * PAGE, true, 0);

    /* a preemption request cancels it before the write completes */
    ew(&t, 0, TERN_ENG_PREEMPT, 1);
    g_assert_cmpuint(sr(&t, 0, 1, TERN_SLOT_STATE), ==,
                     TERN_SLOT_STATE_DONE | TERN_OUTCOME_CANCELLED << 4);
    g_assert_cmpuint(sr(&t, 0, 1, TERN_SLOT_DONE_SEQ), ==,
                     sr(&t, 0, 0, TERN_SLOT_DONE_SEQ) + 1);
    g_assert_cmphex(er(&t, 0, TERN_ENG_IRQ_STATUS) & TERN_ENG_IRQ_PREEMPT_DONE,
                    ==, TERN_ENG_IRQ_PREEMPT_DONE);
    ack(&t, 0, 0);
    ack(&t, 0, 1);
    g_usleep(20 * 1000);
    g_assert_cmphex(qtest_readl(t.qts, pa + 0x10), ==, 0);

    /* still halted: clearing FAULT starts what was queued */
    {
        Job jm = job_of(&t, &mark2, root, 3);

        submit(&t, 0, 0, &jm);
    }
    g_usleep(20 * 1000);
    g_assert_cmpuint(slot_state(&t, 0, 0), ==, TERN_SLOT_STATE_PENDING);
    ew(&t, 0, TERN_ENG_IRQ_STATUS, ~0u);
    g_assert_cmpuint(wait_done(&t, 0, 0), ==, TERN_OUTCOME_COMPLETED);
    g_assert_cmphex(qtest_readl(t.qts, pa + 0x14), ==, 0x600d);
    ack(&t, 0, 0);
    ew(&t, 0, TERN_ENG_IRQ_STATUS, ~0u);

    /* not halted any more: a doorbell starts at once */
    {
        Job jm = job_of(&t, &mark, root, 4);

        g_assert_cmpuint(run_job(&t, 0, &jm), ==, TERN_OUTCOME_COMPLETED);
    }
    g_assert_cmphex(qtest_readl(t.qts, pa + 0x10), ==, 0x600d);
    c_free(&bad);
    c_free(&mark);
    c_free(&mark2);
    tern_shutdown(&t);
}

static void test_page_tables_in_local_memory(void)
{
    /* tables at local 0x1000..0x4000, one data page at local 0x10000 */
    uint64_t va = VA_BASE + 0x5000, sys;
    Tern t;
    Cmd c;

    tern_boot(&t, "local-mem-size=16M");
    lm_writeq(&t, 0x1000 + TERN_PT_INDEX(va, 3) * 8,
              0x2000 | TERN_PTE_VALID | TERN_PTE_LOCAL);
    lm_writeq(&t, 0x2000 + TERN_PT_INDEX(va, 2) * 8,
              0x3000 | TERN_PTE_VALID | TERN_PTE_LOCAL);
    lm_writeq(&t, 0x3000 + TERN_PT_INDEX(va, 1) * 8,
              0x4000 | TERN_PTE_VALID | TERN_PTE_LOCAL);
    lm_writeq(&t, 0x4000 + TERN_PT_INDEX(va, 0) * 8,
              0x10000 | TERN_PTE_VALID | TERN_PTE_LOCAL | TERN_PTE_WRITABLE);
    /* and a system-RAM page mapped from the same local tables */
    sys = t_alloc(&t, PAGE);
    lm_writeq(&t, 0x4000 + TERN_PT_INDEX(va + PAGE, 0) * 8,
              sys | TERN_PTE_VALID | TERN_PTE_WRITABLE);

    c_init(&c);
    c_write_imm(&c, va + 0x40, 0x600d);
    c_copy(&c, va + 0x40, va + PAGE + 0x80, 4);
    g_assert_cmpuint(run_cmd(&t, 2, &c, 0x1000 | TERN_PTE_LOCAL, 0), ==,
                     TERN_OUTCOME_COMPLETED);
    g_assert_cmphex(qpci_io_readl(t.dev, t.bar2, 0x10040), ==, 0x600d);
    g_assert_cmphex(qtest_readl(t.qts, sys + 0x80), ==, 0x600d);
    c_free(&c);
    tern_shutdown(&t);
}

static void test_tlb_invalidation(void)
{
    uint64_t root, pa, pb, scratch;
    Tern t;
    Cmd c;

    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    pa = as_map_buf(&t, root, VA_BASE, PAGE, true);
    pb = t_alloc(&t, PAGE);
    scratch = as_map_buf(&t, root, VA_BASE + 0x100000, PAGE, true);

    c_init(&c);
    c_write_imm(&c, VA_BASE, 1);
    g_assert_cmpuint(run_cmd(&t, 0, &c, root, 0), ==,
                     TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(qtest_readl(t.qts, pa), ==, 1);

    /* remap VA_BASE to page B without invalidating: the TLB still says A */
    as_map(&t, root, VA_BASE, pb, TERN_PTE_WRITABLE);
    g_assert_cmpuint(run_cmd(&t, 0, &c, root, 0), ==,
                     TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(qtest_readl(t.qts, pb), ==, 0);
    /* the TLB is per engine: engine 1 walks and sees B */
    g_assert_cmpuint(run_cmd(&t, 1, &c, root, 0), ==,
                     TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(qtest_readl(t.qts, pb), ==, 1);

    /* the register invalidation makes engine 0 see B */
    qtest_writel(t.qts, pb, 0);
    ew(&t, 0, TERN_ENG_TLB_INVALIDATE, 1);
    c_free(&c);
    c_init(&c);
    c_write_imm(&c, VA_BASE, 2);
    g_assert_cmpuint(run_cmd(&t, 0, &c, root, 0), ==,
                     TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(qtest_readl(t.qts, pb), ==, 2);
    g_assert_cmpuint(qtest_readl(t.qts, pa), ==, 1);
    c_free(&c);

    /* the privileged packet, ordered inside a buffer */
    as_map(&t, root, VA_BASE, pa, TERN_PTE_WRITABLE);
    c_init(&c);
    c_write_imm(&c, VA_BASE, 3);          /* still B (cached) */
    c_tlb_invalidate(&c);
    c_write_imm(&c, VA_BASE, 4);          /* A */
    g_assert_cmpuint(run_cmd(&t, 0, &c, root, TERN_SLOT_FLAG_PRIVILEGED),
                     ==, TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(qtest_readl(t.qts, pb), ==, 3);
    g_assert_cmpuint(qtest_readl(t.qts, pa), ==, 4);
    c_free(&c);

    /* no negative caching: a fault, then mapping the page is enough */
    c_init(&c);
    c_write_imm(&c, VA_BASE + 0x200000, 9);
    g_assert_cmpuint(run_cmd(&t, 0, &c, root, 0), ==, TERN_OUTCOME_FAULTED);
    check_fault(&t, 0, TERN_FAULT_NOT_PRESENT, VA_BASE + 0x200000, true, 0);
    as_map(&t, root, VA_BASE + 0x200000, scratch, TERN_PTE_WRITABLE);
    g_assert_cmpuint(run_cmd(&t, 0, &c, root, 0), ==,
                     TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(qtest_readl(t.qts, scratch), ==, 9);
    c_free(&c);
    tern_shutdown(&t);
}

/* One privileged PHYS_COPY on the copy engine, maybe with a TLB_INVALIDATE */
static void phys_copy_run(Tern *t, uint64_t root, uint64_t src, uint64_t dst,
                          uint32_t size, bool invalidate)
{
    Cmd c;

    c_init(&c);
    c_phys_copy(&c, src, dst, size, 0);
    if (invalidate) {
        c_tlb_invalidate(&c);
    }
    g_assert_cmpuint(run_cmd(t, 2, &c, root, TERN_SLOT_FLAG_PRIVILEGED),
                     ==, TERN_OUTCOME_COMPLETED);
    c_free(&c);
}

/* A WRITE_IMM of @val at @va on engine @e; its outcome. */
static uint32_t write_imm_run(Tern *t, unsigned e, uint64_t root, uint64_t va,
                              uint32_t val)
{
    uint32_t outcome;
    Cmd c;

    c_init(&c);
    c_write_imm(&c, va, val);
    outcome = run_cmd(t, e, &c, root, 0);
    c_free(&c);
    return outcome;
}

/* Bus address of the table of @level that translates @va (below the root). */
static uint64_t as_table(Tern *t, uint64_t root, uint64_t va, int level)
{
    uint64_t table = root & TERN_PTE_ADDR_MASK;
    int l;

    for (l = TERN_PT_LEVELS - 1; l > level; l--) {
        table = qtest_readq(t->qts, table + TERN_PT_INDEX(va, l) * 8) &
                TERN_PTE_ADDR_MASK;
    }
    return table;
}

/*
 * Page tables changed by the device itself (docs/hardware.md 8.2), as the
 * driver does: a privileged PHYS_COPY on the copy engine from a staging
 * array into the leaf table retargets a mapping, links a new table and
 * clears an entry; jobs on a compute engine then translate through the new
 * entries (after a TLB invalidation for the changed one).  An 8-byte
 * aligned copy and an unaligned one both copy exactly their bytes.
 */
static void test_page_tables_by_phys_copy(void)
{
    uint64_t root, pa, pb, leaf, l1, staging, stage2, newleaf, pc, src, dst;
    Tern t;
    Cmd c;

    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    pa = as_map_buf(&t, root, VA_BASE, PAGE, true);
    pb = t_alloc(&t, PAGE);
    l1 = as_table(&t, root, VA_BASE, 1);
    leaf = as_table(&t, root, VA_BASE, 0);

    /* warm engine 0's TLB with A */
    g_assert_cmpuint(write_imm_run(&t, 0, root, VA_BASE, 1), ==,
                     TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(qtest_readl(t.qts, pa), ==, 1);

    /* retarget VA_BASE to B by PHYS_COPY, ending with a TLB_INVALIDATE */
    staging = t_alloc(&t, PAGE);
    qtest_writeq(t.qts, staging, pb | TERN_PTE_VALID | TERN_PTE_WRITABLE);
    qtest_writeq(t.qts, staging + 8, 0);
    phys_copy_run(&t, root, staging, leaf + TERN_PT_INDEX(VA_BASE, 0) * 8, 8,
                  true);
    /* engine 0's TLB is its own: invalidated by register, it walks to B */
    ew(&t, 0, TERN_ENG_TLB_INVALIDATE, 1);
    g_assert_cmpuint(write_imm_run(&t, 0, root, VA_BASE, 2), ==,
                     TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(qtest_readl(t.qts, pb), ==, 2);
    g_assert_cmpuint(qtest_readl(t.qts, pa), ==, 1);

    /* link a new leaf table (filled first) for the next 2 MiB: no TLB work */
    newleaf = t_alloc(&t, PAGE);
    pc = t_alloc(&t, PAGE);
    qtest_writeq(t.qts, newleaf, pc | TERN_PTE_VALID | TERN_PTE_WRITABLE);
    stage2 = t_alloc(&t, PAGE);
    qtest_writeq(t.qts, stage2, newleaf | TERN_PTE_VALID);
    phys_copy_run(&t, root, stage2,
                  l1 + TERN_PT_INDEX(VA_BASE + 0x200000, 1) * 8, 8, false);
    g_assert_cmpuint(write_imm_run(&t, 0, root, VA_BASE + 0x200000, 3), ==,
                     TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(qtest_readl(t.qts, pc), ==, 3);

    /* clear VA_BASE's entry (copy from a zero word) and invalidate: a fault */
    phys_copy_run(&t, root, staging + 8, leaf + TERN_PT_INDEX(VA_BASE, 0) * 8,
                  8, false);
    ew(&t, 0, TERN_ENG_TLB_INVALIDATE, 1);
    g_assert_cmpuint(write_imm_run(&t, 0, root, VA_BASE, 4), ==,
                     TERN_OUTCOME_FAULTED);
    check_fault(&t, 0, TERN_FAULT_NOT_PRESENT, VA_BASE, true, 0);

    /* bus to bus, 8-byte words and an unaligned size: exactly their bytes */
    src = t_alloc(&t, PAGE);
    dst = t_alloc(&t, PAGE);
    qtest_writeq(t.qts, src, 0x1122334455667788ull);
    qtest_writeq(t.qts, src + 8, 0x99aabbccddeeff00ull);
    qtest_writeq(t.qts, dst + 32, ~0ull);
    c_init(&c);
    c_phys_copy(&c, src, dst, 16, 0);
    c_phys_copy(&c, src, dst + 20, 12, 0);
    g_assert_cmpuint(run_cmd(&t, 2, &c, root, TERN_SLOT_FLAG_PRIVILEGED),
                     ==, TERN_OUTCOME_COMPLETED);
    c_free(&c);
    g_assert_cmphex(qtest_readq(t.qts, dst), ==, 0x1122334455667788ull);
    g_assert_cmphex(qtest_readq(t.qts, dst + 8), ==, 0x99aabbccddeeff00ull);
    g_assert_cmphex(qtest_readl(t.qts, dst + 20), ==, 0x55667788);
    g_assert_cmphex(qtest_readq(t.qts, dst + 24), ==, 0xddeeff0011223344ull);
    g_assert_cmphex(qtest_readl(t.qts, dst + 32), ==, 0xffffffff);
    tern_shutdown(&t);
}

/* ---- Tests: preemption --------------------------------------------------- */

static void read_record(Tern *t, uint64_t rec, uint32_t *seqno,
                        uint32_t *offset, uint32_t *progress, uint64_t *acc,
                        uint64_t *elapsed)
{
    g_assert_cmphex(qtest_readl(t->qts, rec + TERN_RESUME_OFF_MAGIC), ==,
                    TERN_RESUME_MAGIC);
    *seqno = qtest_readl(t->qts, rec + TERN_RESUME_OFF_SEQNO);
    *offset = qtest_readl(t->qts, rec + TERN_RESUME_OFF_OFFSET);
    *progress = qtest_readl(t->qts, rec + TERN_RESUME_OFF_PROGRESS);
    *acc = qtest_readq(t->qts, rec + TERN_RESUME_OFF_ACC);
    *elapsed = qtest_readq(t->qts, rec + TERN_RESUME_OFF_ELAPSED_NS);
}

/* Preempt the job running in slot 0 of engine e; checks the interrupt. */
static void preempt_and_wait(Tern *t, unsigned e)
{
    msi_clear(t);
    ew(t, e, TERN_ENG_PREEMPT, 1);
    g_assert_cmpuint(wait_done(t, e, 0), ==, TERN_OUTCOME_PREEMPTED);
    WAIT_FOR(msi_seen(t, e));
    g_assert_cmphex(er(t, e, TERN_ENG_IRQ_STATUS), ==,
                    TERN_ENG_IRQ_SLOT_DONE | TERN_ENG_IRQ_PREEMPT_DONE);
    ew(t, e, TERN_ENG_IRQ_STATUS, ~0u);
    WAIT_FOR(TERN_ENG_STATE(er(t, e, TERN_ENG_STATUS)) ==
             TERN_ENG_STATE_IDLE);
    ack(t, e, 0);
}

#define WRITES_NPKT     100
#define WRITES_PKT_BYTES (TERN_PKT_DWORDS_WRITE_IMM * 4)

/* A buffer of WRITES_NPKT WRITE_IMMs, value i + 1 to word i at VA_BASE. */
typedef struct WritesRun {
    Tern t;
    Cmd c;
    Job j;
    uint64_t pa, rec, wb;
    uint32_t offset;    /* the record's OFFSET after the preemption */
    unsigned done;      /* packets that ran before it */
} WritesRun;

/*
 * Boot a device where each WRITE_IMM lasts 10 ms (100 ns * 100000; it is
 * not preemptible inside), run the buffer on engine 0 with a writeback
 * (engines 0 and 1) and @seqno, and preempt it once word @after is
 * written: the record's OFFSET and the packets done are in @w.
 */
static void writes_run_preempted(WritesRun *w, uint32_t seqno, unsigned after)
{
    uint64_t root;
    unsigned i;

    tern_boot(&w->t, "local-mem-size=16M,time-scale=100000");
    root = as_new(&w->t);
    w->pa = as_map_buf(&w->t, root, VA_BASE, WRITES_NPKT * 4, true);
    w->rec = t_alloc(&w->t, PAGE);
    w->wb = t_alloc(&w->t, PAGE);
    ew(&w->t, 0, TERN_ENG_WRITEBACK_LO, w->wb);
    ew(&w->t, 1, TERN_ENG_WRITEBACK_LO, w->wb);
    c_init(&w->c);
    for (i = 0; i < WRITES_NPKT; i++) {
        c_write_imm(&w->c, VA_BASE + i * 4, i + 1);
    }
    w->j = job_of(&w->t, &w->c, root, seqno);
    w->j.resume = w->rec;
    submit(&w->t, 0, 0, &w->j);
    WAIT_FOR(qtest_readl(w->t.qts, w->pa + after * 4) != 0);
    preempt_and_wait(&w->t, 0);
    w->offset = qtest_readl(w->t.qts, w->rec + TERN_RESUME_OFF_OFFSET);
    w->done = w->offset / WRITES_PKT_BYTES;
    g_assert_cmpuint(w->done, >, after);
    g_assert_cmpuint(w->done, <, WRITES_NPKT);
}

/* The packets that ran are marked, so that a resumed run redoing them shows. */
static void writes_mark_done(WritesRun *w)
{
    unsigned i;

    for (i = 0; i < w->done; i++) {
        qtest_writel(w->t.qts, w->pa + i * 4, 0xdead);
    }
}

/* The resumed run on engine @e completed, each packet ran once. */
static void writes_check_resumed(WritesRun *w, unsigned e, uint32_t seqno)
{
    unsigned i;

    g_assert_cmpuint(wait_done(&w->t, e, 0), ==, TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(qtest_readl(w->t.qts, w->wb), ==, seqno);
    for (i = 0; i < WRITES_NPKT; i++) {
        g_assert_cmpuint(qtest_readl(w->t.qts, w->pa + i * 4), ==,
                         i < w->done ? 0xdead : i + 1);
    }
    c_free(&w->c);
    tern_shutdown(&w->t);
}

static void test_preempt_at_packet_boundary(void)
{
    uint64_t acc, elapsed;
    uint32_t seqno, offset, progress;
    WritesRun w;
    unsigned i;

    writes_run_preempted(&w, 42, 2);
    g_assert_cmpuint(qtest_readl(w.t.qts, w.wb), ==, 0);

    read_record(&w.t, w.rec, &seqno, &offset, &progress, &acc, &elapsed);
    g_assert_cmpuint(seqno, ==, 42);
    g_assert_cmpuint(offset % WRITES_PKT_BYTES, ==, 0);
    g_assert_cmpuint(progress, ==, 0);
    g_assert_cmpuint(acc, ==, 0);
    g_assert_cmpuint(w.done, >=, 3);
    g_assert_cmpuint(elapsed, >=, (w.done - 1) * 10000000ull - 1000000);
    g_assert_cmpuint(er(&w.t, 0, TERN_ENG_CUR_OFFSET), ==, offset);
    /* exactly the packets before the record's offset ran */
    for (i = 0; i < WRITES_NPKT; i++) {
        g_assert_cmpuint(qtest_readl(w.t.qts, w.pa + i * 4), ==,
                         i < w.done ? i + 1 : 0);
    }
    writes_mark_done(&w);

    /* resume on the other compute engine: the rest runs, then writeback */
    w.j.flags = TERN_SLOT_FLAG_RESUME;
    submit(&w.t, 1, 0, &w.j);
    writes_check_resumed(&w, 1, 42);
}

/*
 * A preempted run resumed from a later start (docs/hardware.md 11.3): the
 * buffer's first packets dropped, BUF and BUF_SIZE moved, a copy of the
 * record elsewhere with OFFSET moved by as much.  The rest runs exactly
 * once; the dropped bytes are not read (they are overwritten with garbage).
 */
static void test_preempt_resume_later_start(void)
{
    uint64_t rec2;
    uint32_t cut;
    uint8_t raw[64];
    WritesRun w;
    unsigned i;

    writes_run_preempted(&w, 77, 3);
    g_assert_cmpuint(w.done, >=, 4);

    /* drop the first done - 1 packets: start at a boundary before OFFSET */
    cut = (w.done - 1) * WRITES_PKT_BYTES;
    rec2 = t_alloc(&w.t, PAGE);
    qtest_memread(w.t.qts, w.rec, raw, sizeof(raw));
    stl_le_p(raw + TERN_RESUME_OFF_OFFSET, w.offset - cut);
    qtest_memwrite(w.t.qts, rec2, raw, sizeof(raw));
    for (i = 0; i < cut / 4; i++) {
        qtest_writel(w.t.qts, w.j.buf + i * 4, 0xffffffff);
    }
    writes_mark_done(&w);
    w.j.buf += cut;
    w.j.size -= cut;
    w.j.resume = rec2;
    w.j.flags = TERN_SLOT_FLAG_RESUME;
    submit(&w.t, 0, 0, &w.j);
    writes_check_resumed(&w, 0, 77);
}

static void test_preempt_inside_packet_and_resume(void)
{
    const unsigned m = 48, n = 64, k = 64, vn = 100000;
    g_autofree float *a = g_new(float, m * k);
    g_autofree float *b = g_new(float, k * n);
    g_autofree float *want = g_new(float, m * n);
    g_autofree float *got = g_new(float, m * n);
    g_autofree float *v = g_new(float, vn);
    uint64_t root, pa, pb, pc, pv, pr, rec, wb, acc, elapsed, elapsed1;
    uint32_t seqno, offset, progress, gemm_off;
    float sum, want_sum;
    Tern t;
    Cmd c;
    Job j;

    fill_random(a, m * k, 6);
    fill_random(b, k * n, 7);
    fill_random(v, vn, 8);
    ref_gemm(a, b, want, m, n, k);
    want_sum = ref_reduce(v, vn, TERN_REDUCE_SUM);

    /* one row of C: 4096 MACs * 2000 = 8 ms; 48 rows = 390 ms */
    tern_boot(&t, "local-mem-size=16M,time-scale=2000");
    root = as_new(&t);
    pa = as_map_buf(&t, root, VA_BASE, m * k * 4, false);
    pb = as_map_buf(&t, root, VA_BASE + 0x100000, k * n * 4, false);
    pc = as_map_buf(&t, root, VA_BASE + 0x200000, m * n * 4, true);
    pv = as_map_buf(&t, root, VA_BASE + 0x400000, vn * 4, false);
    pr = as_map_buf(&t, root, VA_BASE + 0x600000, PAGE, true);
    put_f32(&t, pa, a, m * k);
    put_f32(&t, pb, b, k * n);
    put_f32(&t, pv, v, vn);
    rec = t_alloc(&t, PAGE);
    wb = t_alloc(&t, PAGE);
    ew(&t, 0, TERN_ENG_WRITEBACK_LO, wb);

    c_init(&c);
    c_write_imm(&c, VA_BASE + 0x600010, 1);
    gemm_off = c_off(&c);
    c_gemm(&c, VA_BASE, VA_BASE + 0x100000, VA_BASE + 0x200000, m, n, k);
    c_reduce(&c, VA_BASE + 0x400000, VA_BASE + 0x600000, vn,
             TERN_REDUCE_SUM);
    j = job_of(&t, &c, root, 7);
    j.resume = rec;

    /* preempt inside GEMM, after a few rows of C */
    submit(&t, 0, 0, &j);
    g_usleep(60000);
    preempt_and_wait(&t, 0);
    read_record(&t, rec, &seqno, &offset, &progress, &acc, &elapsed);
    g_assert_cmpuint(seqno, ==, 7);
    g_assert_cmpuint(offset, ==, gemm_off);
    g_assert_cmpuint(progress, >, 0);
    g_assert_cmpuint(progress, <, m);
    /* a preemption request cuts short the wait for the last row */
    g_assert_cmpuint(elapsed + 4096 * 2000 + 1000000, >=,
                     progress * 4096ull * 2000);
    /* rows before progress are final, the rest untouched */
    get_f32(&t, pc, got, m * n);
    assert_f32_equal(got, want, progress * n);
    for (unsigned i = progress * n; i < m * n; i++) {
        g_assert_cmpfloat(got[i], ==, 0.0f);
    }

    /* resume; preempt again inside REDUCE (chunk: 4096 * 2000 = 8 ms) */
    j.flags = TERN_SLOT_FLAG_RESUME;
    submit(&t, 0, 0, &j);
    WAIT_FOR(er(&t, 0, TERN_ENG_CUR_OFFSET) > gemm_off);
    g_usleep(50000);
    preempt_and_wait(&t, 0);
    elapsed1 = elapsed;
    read_record(&t, rec, &seqno, &offset, &progress, &acc, &elapsed);
    g_assert_cmpuint(offset, ==, gemm_off + TERN_PKT_DWORDS_GEMM * 4);
    g_assert_cmpuint(progress % 4096, ==, 0);
    g_assert_cmpuint(progress, >, 0);
    g_assert_cmpuint(progress, <, vn);
    g_assert_cmphex(acc >> 32, ==, 0);
    g_assert_cmphex(acc, !=, 0);
    g_assert_cmpuint(elapsed, >, elapsed1);
    /* the partial sum is the CPU's partial sum */
    {
        float partial = ref_reduce(v, progress, TERN_REDUCE_SUM);
        uint32_t bits = acc;

        g_assert_cmpmem(&bits, 4, &partial, 4);
    }
    g_assert_cmpuint(qtest_readl(t.qts, wb), ==, 0);

    /* resume to the end: results identical to an uninterrupted run */
    submit(&t, 0, 0, &j);
    g_assert_cmpuint(wait_done(&t, 0, 0), ==, TERN_OUTCOME_COMPLETED);
    ack(&t, 0, 0);
    g_assert_cmpuint(qtest_readl(t.qts, wb), ==, 7);
    get_f32(&t, pc, got, m * n);
    assert_f32_equal(got, want, m * n);
    get_f32(&t, pr, &sum, 1);
    g_assert_cmpmem(&sum, 4, &want_sum, 4);
    c_free(&c);
    tern_shutdown(&t);
}

/*
 * A request to an idle engine is served at once (docs/hardware.md 11.1):
 * PREEMPT_DONE, and nothing outstanding that could stop a run the driver
 * starts next.  The driver writes such requests whenever the run it meant
 * to preempt ended just before; a slot rung right after must then run to
 * its end, each of many times (the engine thread must not get the chance
 * to apply the old request to the new run).
 */
static void test_preempt_idle_served_at_write(void)
{
    uint64_t root, rec;
    unsigned i;
    Tern t;
    Cmd c;
    Job j;

    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    as_map_buf(&t, root, VA_BASE, PAGE, true);
    rec = t_alloc(&t, PAGE);
    c_init(&c);
    c_spin(&c, 200);                        /* preemptible inside */
    c_write_imm(&c, VA_BASE, 1);
    j = job_of(&t, &c, root, 7);
    j.resume = rec;
    for (i = 0; i < 50; i++) {
        ew(&t, 0, TERN_ENG_IRQ_STATUS, ~0u);
        ew(&t, 0, TERN_ENG_PREEMPT, 1);
        /* served before the write completed, nothing left outstanding */
        g_assert_cmphex(er(&t, 0, TERN_ENG_IRQ_STATUS) &
                        TERN_ENG_IRQ_PREEMPT_DONE, ==,
                        TERN_ENG_IRQ_PREEMPT_DONE);
        g_assert_cmpuint(TERN_ENG_STATE(er(&t, 0, TERN_ENG_STATUS)), ==,
                         TERN_ENG_STATE_IDLE);
        j.seqno = 7 + i;
        submit(&t, 0, 0, &j);
        g_assert_cmpuint(wait_done(&t, 0, 0), ==, TERN_OUTCOME_COMPLETED);
        ack(&t, 0, 0);
    }
    ew(&t, 0, TERN_ENG_IRQ_STATUS, ~0u);
    c_free(&c);
    tern_shutdown(&t);
}

static void test_preempt_spin_and_bad_resume(void)
{
    uint64_t root, pa, rec, acc, elapsed;
    uint32_t seqno, offset, progress;
    Tern t;
    Cmd c;
    Job j;

    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    pa = as_map_buf(&t, root, VA_BASE, PAGE, true);
    rec = t_alloc(&t, PAGE);
    c_init(&c);
    c_spin(&c, 5000000);                    /* 5 s */
    c_write_imm(&c, VA_BASE, 1);
    j = job_of(&t, &c, root, 9);
    j.resume = rec;
    submit(&t, 0, 0, &j);
    g_usleep(50000);
    preempt_and_wait(&t, 0);
    read_record(&t, rec, &seqno, &offset, &progress, &acc, &elapsed);
    g_assert_cmpuint(offset, ==, 0);
    g_assert_cmpuint(progress, >, 0);
    g_assert_cmpuint(progress, <, 5000000 / 10);
    g_assert_cmpuint(qtest_readl(t.qts, pa), ==, 0);
    /* the preempted run took far less than the 5 s of the SPIN */
    g_assert_cmpuint(elapsed, <, 2000000000ull);

    /* wrong seqno, wrong magic, offset not on a packet boundary */
    j.flags = TERN_SLOT_FLAG_RESUME;
    j.seqno = 10;
    g_assert_cmpuint(run_job(&t, 0, &j), ==, TERN_OUTCOME_FAULTED);
    check_fault(&t, 0, TERN_FAULT_BAD_RESUME, 0, false, 0);
    j.seqno = 9;
    qtest_writel(t.qts, rec + TERN_RESUME_OFF_OFFSET, 4);
    g_assert_cmpuint(run_job(&t, 0, &j), ==, TERN_OUTCOME_FAULTED);
    check_fault(&t, 0, TERN_FAULT_BAD_RESUME, 0, false, 0);
    qtest_writel(t.qts, rec + TERN_RESUME_OFF_OFFSET, 0);
    qtest_writel(t.qts, rec + TERN_RESUME_OFF_PROGRESS, 500000);
    g_assert_cmpuint(run_job(&t, 0, &j), ==, TERN_OUTCOME_FAULTED);
    check_fault(&t, 0, TERN_FAULT_BAD_RESUME, 0, false, 0);
    qtest_writel(t.qts, rec + TERN_RESUME_OFF_PROGRESS, 499990);
    qtest_writel(t.qts, rec + TERN_RESUME_OFF_MAGIC, 0);
    g_assert_cmpuint(run_job(&t, 0, &j), ==, TERN_OUTCOME_FAULTED);
    check_fault(&t, 0, TERN_FAULT_BAD_RESUME, 0, false, 0);
    /* a valid record near the end of the SPIN: finishes quickly */
    qtest_writel(t.qts, rec + TERN_RESUME_OFF_MAGIC, TERN_RESUME_MAGIC);
    g_assert_cmpuint(run_job(&t, 0, &j), ==, TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(qtest_readl(t.qts, pa), ==, 1);
    c_free(&c);
    tern_shutdown(&t);
}

static void test_cancel_of_second_slot(void)
{
    uint64_t root, pa, rec, wb;
    Tern t;
    Cmd c0, c1;
    Job j0, j1;

    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    pa = as_map_buf(&t, root, VA_BASE, PAGE, true);
    rec = t_alloc(&t, PAGE);
    wb = t_alloc(&t, PAGE);
    ew(&t, 0, TERN_ENG_WRITEBACK_LO, wb);
    c_init(&c0);
    c_spin(&c0, 5000000);
    c_init(&c1);
    c_write_imm(&c1, VA_BASE, 1);
    j0 = job_of(&t, &c0, root, 1);
    j0.resume = rec;
    j1 = job_of(&t, &c1, root, 2);

    /* preemptible running slot: PREEMPTED, then the pending one CANCELLED */
    submit(&t, 0, 0, &j0);
    submit(&t, 0, 1, &j1);
    g_usleep(20000);
    msi_clear(&t);
    ew(&t, 0, TERN_ENG_PREEMPT, 1);
    g_assert_cmpuint(wait_done(&t, 0, 1), ==, TERN_OUTCOME_CANCELLED);
    g_assert_cmpuint(slot_outcome(&t, 0, 0), ==, TERN_OUTCOME_PREEMPTED);
    g_assert_cmpuint(sr(&t, 0, 1, TERN_SLOT_DONE_SEQ), ==,
                     sr(&t, 0, 0, TERN_SLOT_DONE_SEQ) + 1);
    g_assert_cmpuint(sr(&t, 0, 1, TERN_SLOT_RUN_NS_LO), ==, 0);
    WAIT_FOR(msi_seen(&t, 0));
    g_assert_cmphex(er(&t, 0, TERN_ENG_IRQ_STATUS), ==,
                    TERN_ENG_IRQ_SLOT_DONE | TERN_ENG_IRQ_PREEMPT_DONE);
    g_usleep(20000);
    g_assert_cmpuint(qtest_readl(t.qts, pa), ==, 0);
    g_assert_cmpuint(qtest_readl(t.qts, wb), ==, 0);
    g_assert_cmpuint(TERN_ENG_STATE(er(&t, 0, TERN_ENG_STATUS)), ==,
                     TERN_ENG_STATE_IDLE);
    ack(&t, 0, 0);
    ack(&t, 0, 1);
    ew(&t, 0, TERN_ENG_IRQ_STATUS, ~0u);

    /* RESUME = 0: the running slot finishes, the pending one is cancelled */
    c_free(&c0);
    c_init(&c0);
    c_spin(&c0, 100000);
    c_write_imm(&c0, VA_BASE + 4, 5);
    j0 = job_of(&t, &c0, root, 3);
    submit(&t, 0, 0, &j0);
    submit(&t, 0, 1, &j1);
    ew(&t, 0, TERN_ENG_PREEMPT, 1);
    g_assert_cmpuint(TERN_ENG_STATE(er(&t, 0, TERN_ENG_STATUS)), ==,
                     TERN_ENG_STATE_PREEMPTING);
    g_assert_cmpuint(wait_done(&t, 0, 1), ==, TERN_OUTCOME_CANCELLED);
    g_assert_cmpuint(slot_outcome(&t, 0, 0), ==, TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(sr(&t, 0, 0, TERN_SLOT_RUN_NS_LO), >=, 100000000);
    g_assert_cmpuint(qtest_readl(t.qts, pa + 4), ==, 5);
    g_assert_cmpuint(qtest_readl(t.qts, pa), ==, 0);
    g_assert_cmpuint(qtest_readl(t.qts, wb), ==, 3);
    g_assert_cmphex(er(&t, 0, TERN_ENG_IRQ_STATUS), ==,
                    TERN_ENG_IRQ_SLOT_DONE | TERN_ENG_IRQ_PREEMPT_DONE);
    ack(&t, 0, 0);
    ack(&t, 0, 1);
    ew(&t, 0, TERN_ENG_IRQ_STATUS, ~0u);

    /* PREEMPT on an idle engine: PREEMPT_DONE alone */
    msi_clear(&t);
    ew(&t, 0, TERN_ENG_PREEMPT, 1);
    WAIT_FOR(msi_seen(&t, 0));
    g_assert_cmphex(er(&t, 0, TERN_ENG_IRQ_STATUS), ==,
                    TERN_ENG_IRQ_PREEMPT_DONE);
    c_free(&c0);
    c_free(&c1);
    tern_shutdown(&t);
}

/* ---- Tests: resets ------------------------------------------------------- */

static void test_engine_reset(void)
{
    uint64_t root, pa, wb;
    Tern t;
    Cmd c0, c1;
    Job j0, j1;

    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    pa = as_map_buf(&t, root, VA_BASE, PAGE, true);
    wb = t_alloc(&t, PAGE);
    ew(&t, 0, TERN_ENG_WRITEBACK_LO, wb);
    ew(&t, 1, TERN_ENG_WRITEBACK_LO, wb + 4);
    c_init(&c0);
    c_spin(&c0, 5000000);
    c_write_imm(&c0, VA_BASE, 1);
    c_init(&c1);
    c_spin(&c1, 200000);
    c_write_imm(&c1, VA_BASE + 4, 2);
    j0 = job_of(&t, &c0, root, 11);
    j1 = job_of(&t, &c1, root, 12);
    submit(&t, 0, 0, &j0);
    submit(&t, 0, 1, &j0);
    submit(&t, 1, 0, &j1);
    g_usleep(20000);
    msi_clear(&t);
    ew(&t, 0, TERN_ENG_RESET, 1);
    WAIT_FOR(TERN_ENG_STATE(er(&t, 0, TERN_ENG_STATUS)) ==
             TERN_ENG_STATE_IDLE);
    g_assert_cmpuint(slot_state(&t, 0, 0), ==, TERN_SLOT_STATE_FREE);
    g_assert_cmpuint(slot_state(&t, 0, 1), ==, TERN_SLOT_STATE_FREE);
    g_assert_cmpuint(slot_outcome(&t, 0, 0), ==, TERN_OUTCOME_NONE);
    g_assert_cmpuint(sr(&t, 0, 0, TERN_SLOT_BUF_LO), ==, 0);
    g_assert_cmphex(er(&t, 0, TERN_ENG_IRQ_STATUS), ==, 0);
    /* configuration survives an engine reset */
    g_assert_cmphex(er(&t, 0, TERN_ENG_WRITEBACK_LO), ==, (uint32_t)wb);
    g_assert_cmphex(er(&t, 0, TERN_ENG_IRQ_MASK), ==, 0);
    /* the other engine is not disturbed */
    g_assert_cmpuint(wait_done(&t, 1, 0), ==, TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(qtest_readl(t.qts, pa + 4), ==, 2);
    g_assert_cmpuint(qtest_readl(t.qts, wb + 4), ==, 12);
    g_usleep(20000);
    g_assert_cmpuint(qtest_readl(t.qts, pa), ==, 0);
    g_assert_cmpuint(qtest_readl(t.qts, wb), ==, 0);
    g_assert_false(msi_seen(&t, 0));
    /* and the reset engine runs new work */
    c_free(&c0);
    c_init(&c0);
    c_write_imm(&c0, VA_BASE + 8, 3);
    g_assert_cmpuint(run_cmd(&t, 0, &c0, root, 0), ==,
                     TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(qtest_readl(t.qts, pa + 8), ==, 3);
    c_free(&c0);
    c_free(&c1);
    tern_shutdown(&t);
}

/* Map [va, va + size) to one physical page, leaf tables written whole. */
static void as_map_alias(Tern *t, uint64_t root, uint64_t va, uint64_t size,
                         uint64_t pa)
{
    g_autofree uint64_t *leaf = g_new(uint64_t, TERN_PT_ENTRIES);
    uint64_t off, table;
    unsigned i;

    g_assert_cmpuint(va % (TERN_PT_ENTRIES * PAGE), ==, 0);
    for (i = 0; i < TERN_PT_ENTRIES; i++) {
        leaf[i] = cpu_to_le64(pa | TERN_PTE_VALID);
    }
    for (off = 0; off < size; off += TERN_PT_ENTRIES * PAGE) {
        /* create the path with one mapping, then overwrite the table */
        as_map(t, root, va + off, pa, 0);
        table = root;
        for (int level = TERN_PT_LEVELS - 1; level > 0; level--) {
            table = qtest_readq(t->qts, table +
                                TERN_PT_INDEX(va + off, level) * 8) &
                    TERN_PTE_ADDR_MASK;
        }
        qtest_memwrite(t->qts, table, leaf, TERN_PT_ENTRIES * 8);
    }
}

static void test_engine_reset_inside_huge_gemm(void)
{
    const uint32_t n = 4096, k = 4096;
    uint64_t root, zero, row_us;
    gint64 t0, dt;
    Tern t;
    Cmd c;
    Job j;

    /*
     * Each row of C is 16M multiply-adds over a 64 MiB B (tens of ms on a
     * fast host): the reset must not wait for the end of the row.
     */
    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    zero = t_alloc(&t, PAGE);
    as_map_alias(&t, root, VA_BASE, 8ull * k * 4, zero);
    as_map_alias(&t, root, VA_BASE + 0x40000000, (uint64_t)k * n * 4, zero);
    as_map_buf(&t, root, VA_BASE + 0x80000000, 8ull * n * 4, true);
    /* how long one row takes on this host */
    c_init(&c);
    c_gemm(&c, VA_BASE, VA_BASE + 0x40000000, VA_BASE + 0x80000000, 1, n, k);
    j = job_of(&t, &c, root, 1);
    submit(&t, 0, 0, &j);
    g_assert_cmpuint(wait_done(&t, 0, 0), ==, TERN_OUTCOME_COMPLETED);
    row_us = slot_run_ns(&t, 0, 0) / 1000;
    ack(&t, 0, 0);
    c_free(&c);

    c_init(&c);
    c_gemm(&c, VA_BASE, VA_BASE + 0x40000000, VA_BASE + 0x80000000, 8, n, k);
    j = job_of(&t, &c, root, 2);
    submit(&t, 0, 0, &j);
    g_usleep(30000);
    g_assert_cmpuint(slot_state(&t, 0, 0), ==, TERN_SLOT_STATE_RUNNING);
    t0 = g_get_monotonic_time();
    ew(&t, 0, TERN_ENG_RESET, 1);
    WAIT_FOR(TERN_ENG_STATE(er(&t, 0, TERN_ENG_STATUS)) ==
             TERN_ENG_STATE_IDLE);
    dt = g_get_monotonic_time() - t0;
    g_test_message("engine reset inside a GEMM row of %" PRIu64 " us: %"
                   PRId64 " us", row_us, dt);
    g_assert_cmpint(dt, <, row_us / 2);
    g_assert_cmpuint(slot_state(&t, 0, 0), ==, TERN_SLOT_STATE_FREE);
    c_free(&c);
    tern_shutdown(&t);
}

static void test_device_reset(void)
{
    uint64_t root, clk;
    Tern t;
    Cmd c;
    Job j;

    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    as_map_buf(&t, root, VA_BASE, PAGE, true);
    qpci_io_writel(t.dev, t.bar2, 0x8000, 0x5a5a1234);
    wr(&t, TERN_REG_SCRATCH, 0x1234);
    ew(&t, 1, TERN_ENG_WRITEBACK_LO, 0x1000);
    c_init(&c);
    c_spin(&c, 5000000);
    j = job_of(&t, &c, root, 1);
    submit(&t, 0, 0, &j);
    submit(&t, 1, 0, &j);
    g_usleep(300000);
    g_assert_cmpuint(rd64(&t, TERN_REG_CLOCK_LO), >=, 300000000);

    wr(&t, TERN_REG_RESET, TERN_RESET_MAGIC);
    WAIT_FOR(rd(&t, TERN_REG_STATUS) & TERN_STATUS_READY);
    clk = rd64(&t, TERN_REG_CLOCK_LO);
    g_assert_cmpuint(clk, <, 300000000);
    for (unsigned e = 0; e < t.engines; e++) {
        g_assert_cmpuint(er(&t, e, TERN_ENG_STATUS), ==, 0);
        g_assert_cmphex(er(&t, e, TERN_ENG_IRQ_MASK), ==, ~0u);
        g_assert_cmphex(er(&t, e, TERN_ENG_WRITEBACK_LO), ==, 0);
        g_assert_cmphex(er(&t, e, TERN_ENG_PROGRESS), ==, 0);
        g_assert_cmpuint(slot_state(&t, e, 0), ==, TERN_SLOT_STATE_FREE);
    }
    g_assert_cmphex(rd(&t, TERN_REG_SCRATCH), ==, 0);
    g_assert_cmphex(rd(&t, TERN_REG_ERR_IRQ_MASK), ==, ~0u);
    g_assert_cmphex(rd(&t, TERN_REG_ERR_IRQ_STATUS), ==, 0);
    /* local memory keeps its contents */
    g_assert_cmphex(qpci_io_readl(t.dev, t.bar2, 0x8000), ==, 0x5a5a1234);
    /* the clock runs again from 0 */
    g_usleep(10000);
    g_assert_cmpuint(rd64(&t, TERN_REG_CLOCK_LO), >, clk);
    c_free(&c);
    tern_shutdown(&t);
}

/* ---- Tests: parallelism -------------------------------------------------- */

static void test_engines_run_in_parallel(void)
{
    uint64_t root, pa;
    gint64 t0, dt;
    Tern t;
    Cmd c0, c1, c2;
    Job j0, j1, j2;
    unsigned e;

    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    pa = as_map_buf(&t, root, VA_BASE, PAGE, true);

    /*
     * Engine 0 waits for a flag that engine 1 sets: this completes only if
     * both run at once.  The copy engine spins meanwhile.
     */
    c_init(&c0);
    c_wait_mem(&c0, VA_BASE, 1, 5000000);
    c_write_imm(&c0, VA_BASE + 4, 0x10);
    c_init(&c1);
    c_spin(&c1, 300000);
    c_write_imm(&c1, VA_BASE, 1);
    c_init(&c2);
    c_spin(&c2, 300000);
    c_write_imm(&c2, VA_BASE + 8, 0x30);
    j0 = job_of(&t, &c0, root, 1);
    j1 = job_of(&t, &c1, root, 2);
    j2 = job_of(&t, &c2, root, 3);
    t0 = g_get_monotonic_time();
    submit(&t, 0, 0, &j0);
    submit(&t, 1, 0, &j1);
    submit(&t, 2, 0, &j2);
    for (e = 0; e < 3; e++) {
        g_assert_cmpuint(TERN_ENG_STATE(er(&t, e, TERN_ENG_STATUS)), ==,
                         TERN_ENG_STATE_RUNNING);
    }
    for (e = 0; e < 3; e++) {
        g_assert_cmpuint(wait_done(&t, e, 0), ==, TERN_OUTCOME_COMPLETED);
    }
    dt = g_get_monotonic_time() - t0;
    /* three 300 ms jobs back to back would take 900 ms */
    g_assert_cmpint(dt, <, 850000);
    g_assert_cmpuint(qtest_readl(t.qts, pa + 4), ==, 0x10);
    g_assert_cmpuint(qtest_readl(t.qts, pa + 8), ==, 0x30);
    for (e = 0; e < 3; e++) {
        uint64_t busy = er(&t, e, TERN_ENG_BUSY_NS_LO);

        busy |= (uint64_t)er(&t, e, TERN_ENG_BUSY_NS_HI) << 32;
        g_assert_cmpuint(busy, >=, e == 0 ? 250000000 : 300000000);
    }
    c_free(&c0);
    c_free(&c1);
    c_free(&c2);
    tern_shutdown(&t);
}

static void test_progress_counter(void)
{
    uint64_t root;
    uint32_t p0, p1;
    Tern t;
    Cmd c;
    Job j;

    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    c_init(&c);
    c_nop(&c, 1);
    c_spin(&c, 400000);
    j = job_of(&t, &c, root, 1);
    p0 = er(&t, 0, TERN_ENG_PROGRESS);
    g_usleep(20000);
    g_assert_cmpuint(er(&t, 0, TERN_ENG_PROGRESS), ==, p0);   /* idle */
    submit(&t, 0, 0, &j);
    g_usleep(50000);
    p1 = er(&t, 0, TERN_ENG_PROGRESS);
    g_assert_cmpuint(p1, >, p0);
    g_assert_cmpuint(er(&t, 0, TERN_ENG_CUR_OFFSET), ==, 4);
    g_usleep(50000);
    g_assert_cmpuint(er(&t, 0, TERN_ENG_PROGRESS), >, p1);
    g_assert_cmpuint(wait_done(&t, 0, 0), ==, TERN_OUTCOME_COMPLETED);
    /* two packets + one per 10 us chunk of the SPIN */
    g_assert_cmpuint(er(&t, 0, TERN_ENG_PROGRESS) - p0, ==, 2 + 40000 - 1);
    c_free(&c);
    tern_shutdown(&t);
}

static void test_cost_model_and_time_scale(void)
{
    const uint32_t size = 256 * 1024;
    uint64_t root, model, run, busy0;
    Tern t;
    Cmd c;
    Job j;

    /* COPY: (100 + 1 per byte) ns, times time-scale */
    tern_boot(&t, "local-mem-size=16M,time-scale=200");
    root = as_new(&t);
    as_map_buf(&t, root, VA_BASE, 2 * size, true);
    c_init(&c);
    c_copy(&c, VA_BASE, VA_BASE + size, size);
    j = job_of(&t, &c, root, 1);
    busy0 = busy_ns(&t, 0);
    submit(&t, 0, 0, &j);
    g_assert_cmpuint(wait_done(&t, 0, 0), ==, TERN_OUTCOME_COMPLETED);
    model = (100ull + size) * 200;
    run = slot_run_ns(&t, 0, 0);
    g_assert_cmpuint(run, >=, model);
    g_assert_cmpuint(run, <, model + 2000000000ull);
    g_assert_cmpuint(busy_ns(&t, 0) - busy0, ==, run);
    ack(&t, 0, 0);
    c_free(&c);

    /* GEMM: (100 + m * n * k) ns, times time-scale */
    c_init(&c);
    c_gemm(&c, VA_BASE, VA_BASE + 0x10000, VA_BASE + 0x20000, 16, 16, 16);
    j = job_of(&t, &c, root, 2);
    submit(&t, 1, 0, &j);
    g_assert_cmpuint(wait_done(&t, 1, 0), ==, TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(slot_run_ns(&t, 1, 0), >=, (100ull + 4096) * 200);
    ack(&t, 1, 0);
    c_free(&c);
    tern_shutdown(&t);

    /* SPIN scales too: 2 ms at time-scale 50 is 100 ms */
    tern_boot(&t, "local-mem-size=16M,time-scale=50");
    root = as_new(&t);
    c_init(&c);
    c_spin(&c, 2000);
    j = job_of(&t, &c, root, 1);
    submit(&t, 0, 0, &j);
    g_assert_cmpuint(wait_done(&t, 0, 0), ==, TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(slot_run_ns(&t, 0, 0), >=, (100ull + 2000000) * 50);
    c_free(&c);
    tern_shutdown(&t);
}

/* Run @c on slot 0 of engine @e; returns its RUN_NS (it must complete). */
static uint64_t timed_run(Tern *t, unsigned e, Cmd *c, uint64_t root,
                          uint32_t flags)
{
    Job j = job_of(t, c, root, 1);
    uint64_t run;

    j.flags = flags;
    submit(t, e, 0, &j);
    g_assert_cmpuint(wait_done(t, e, 0), ==, TERN_OUTCOME_COMPLETED);
    run = slot_run_ns(t, e, 0);
    ack(t, e, 0);
    ew(t, e, TERN_ENG_IRQ_STATUS, ~0u);
    return run;
}

/*
 * Section 12: a chunk whose data is all in local memory costs a quarter;
 * one that touches system memory, all of it.  At time-scale 2000 the
 * modelled times dwarf the host's own work.
 */
static void test_cost_model_local_memory(void)
{
    const uint32_t size = 64 * 1024, scale = 2000;
    const uint64_t sys_model = (100ull + size) * scale;
    const uint64_t local_model = (100ull + size / 4) * scale;
    uint64_t root, va_sys = VA_BASE, va_loc = VA_BASE + 0x1000000, off, run;
    uint64_t sys;
    Tern t;
    Cmd c;

    tern_boot(&t, "local-mem-size=16M,time-scale=2000");
    root = as_new(&t);
    sys = as_map_buf(&t, root, va_sys, 2 * size, true);
    for (off = 0; off < 2 * size; off += PAGE) {
        as_map(&t, root, va_loc + off, 0x100000 + off,
               TERN_PTE_LOCAL | TERN_PTE_WRITABLE);
    }

    /* COPY within local memory: a quarter of the per-byte cost */
    c_init(&c);
    c_copy(&c, va_loc, va_loc + size, size);
    run = timed_run(&t, 0, &c, root, 0);
    g_assert_cmpuint(run, >=, local_model);
    g_assert_cmpuint(run, <, sys_model * 3 / 4);
    c_free(&c);

    /* local to system: the chunk touches system memory, full cost */
    c_init(&c);
    c_copy(&c, va_loc, va_sys, size);
    g_assert_cmpuint(timed_run(&t, 0, &c, root, 0), >=, sys_model);
    c_free(&c);

    /* GEMM 32 x 32 x 32, all three matrices local: 100 + 32768 / 4 */
    c_init(&c);
    c_gemm(&c, va_loc, va_loc + 0x1000, va_loc + 0x2000, 32, 32, 32);
    run = timed_run(&t, 0, &c, root, 0);
    g_assert_cmpuint(run, >=, (100ull + 32768 / 4) * scale);
    g_assert_cmpuint(run, <, (100ull + 32768) * scale * 3 / 4);
    c_free(&c);

    /* the same GEMM writing its result to system memory: full cost */
    c_init(&c);
    c_gemm(&c, va_loc, va_loc + 0x1000, va_sys, 32, 32, 32);
    g_assert_cmpuint(timed_run(&t, 0, &c, root, 0), >=,
                     (100ull + 32768) * scale);
    c_free(&c);

    /* PHYS_COPY: local to local a quarter, system to local all of it */
    c_init(&c);
    c_phys_copy(&c, 0x200000, 0x200000 + size, size,
                TERN_PHYS_COPY_SRC_LOCAL | TERN_PHYS_COPY_DST_LOCAL);
    run = timed_run(&t, 2, &c, root, TERN_SLOT_FLAG_PRIVILEGED);
    g_assert_cmpuint(run, >=, local_model);
    g_assert_cmpuint(run, <, sys_model * 3 / 4);
    c_free(&c);
    c_init(&c);
    c_phys_copy(&c, sys, 0x200000, size, TERN_PHYS_COPY_DST_LOCAL);
    g_assert_cmpuint(timed_run(&t, 2, &c, root, TERN_SLOT_FLAG_PRIVILEGED),
                     >=, sys_model);
    c_free(&c);
    tern_shutdown(&t);
}

static void test_engine_interrupt_mask(void)
{
    uint64_t root;
    Tern t;
    Cmd c;
    Job j;

    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    c_init(&c);
    c_nop(&c, 1);
    j = job_of(&t, &c, root, 1);

    /* masked: the status bit is set, no message */
    ew(&t, 0, TERN_ENG_IRQ_MASK, TERN_ENG_IRQ_SLOT_DONE);
    msi_clear(&t);
    submit(&t, 0, 0, &j);
    g_assert_cmpuint(wait_done(&t, 0, 0), ==, TERN_OUTCOME_COMPLETED);
    g_assert_cmphex(er(&t, 0, TERN_ENG_IRQ_STATUS), ==,
                    TERN_ENG_IRQ_SLOT_DONE);
    g_usleep(20000);
    g_assert_false(msi_seen(&t, 0));
    /* unmasking a set status bit sends the message */
    ew(&t, 0, TERN_ENG_IRQ_MASK, 0);
    WAIT_FOR(msi_seen(&t, 0));
    ack(&t, 0, 0);

    /* a status bit still set (not cleared) gives no new edge */
    msi_clear(&t);
    submit(&t, 0, 0, &j);
    g_assert_cmpuint(wait_done(&t, 0, 0), ==, TERN_OUTCOME_COMPLETED);
    g_usleep(20000);
    g_assert_false(msi_seen(&t, 0));
    ack(&t, 0, 0);
    /* cleared, the next completion interrupts again */
    ew(&t, 0, TERN_ENG_IRQ_STATUS, TERN_ENG_IRQ_SLOT_DONE);
    submit(&t, 0, 0, &j);
    g_assert_cmpuint(wait_done(&t, 0, 0), ==, TERN_OUTCOME_COMPLETED);
    WAIT_FOR(msi_seen(&t, 0));
    /* only engine 0's vector */
    g_assert_false(msi_seen(&t, 1));
    g_assert_false(msi_seen(&t, t.engines));
    c_free(&c);
    tern_shutdown(&t);
}

/* ---- Tests: fault injection ---------------------------------------------- */

static void test_fault_injection(void)
{
    uint64_t root, pa;
    uint32_t p0;
    Tern t;
    Cmd c;
    Job j;

    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    pa = as_map_buf(&t, root, VA_BASE, PAGE, true);

    /* HANG: progress freezes, preemption is not served, reset recovers */
    c_init(&c);
    c_spin(&c, 3000000);
    j = job_of(&t, &c, root, 1);
    j.resume = t_alloc(&t, PAGE);
    submit(&t, 0, 0, &j);
    g_usleep(10000);
    wr(&t, TERN_REG_INJECT, TERN_INJECT_ENGINE(0) |
       TERN_INJECT_OP(TERN_INJECT_HANG));
    g_assert_cmphex(rd(&t, TERN_REG_INJECT_STATUS), ==, 1);
    g_usleep(20000);
    p0 = er(&t, 0, TERN_ENG_PROGRESS);
    ew(&t, 0, TERN_ENG_PREEMPT, 1);
    g_usleep(100000);
    g_assert_cmpuint(er(&t, 0, TERN_ENG_PROGRESS), ==, p0);
    g_assert_cmpuint(slot_state(&t, 0, 0), ==, TERN_SLOT_STATE_RUNNING);
    g_assert_cmphex(rd(&t, TERN_REG_INJECT_STATUS), ==, 1);
    ew(&t, 0, TERN_ENG_RESET, 1);
    WAIT_FOR(TERN_ENG_STATE(er(&t, 0, TERN_ENG_STATUS)) ==
             TERN_ENG_STATE_IDLE);
    g_assert_cmphex(rd(&t, TERN_REG_INJECT_STATUS), ==, 0);
    c_free(&c);

    /* DROP_IRQ: the next message is lost, status still set */
    c_init(&c);
    c_write_imm(&c, VA_BASE, 1);
    j = job_of(&t, &c, root, 2);
    wr(&t, TERN_REG_INJECT, TERN_INJECT_ENGINE(1) |
       TERN_INJECT_OP(TERN_INJECT_DROP_IRQ));
    msi_clear(&t);
    submit(&t, 1, 0, &j);
    g_assert_cmpuint(wait_done(&t, 1, 0), ==, TERN_OUTCOME_COMPLETED);
    g_assert_cmphex(er(&t, 1, TERN_ENG_IRQ_STATUS), ==,
                    TERN_ENG_IRQ_SLOT_DONE);
    g_usleep(50000);
    g_assert_false(msi_seen(&t, 1));
    g_assert_cmphex(rd(&t, TERN_REG_INJECT_STATUS), ==, 0);
    ack(&t, 1, 0);
    ew(&t, 1, TERN_ENG_IRQ_STATUS, ~0u);
    submit(&t, 1, 0, &j);
    g_assert_cmpuint(wait_done(&t, 1, 0), ==, TERN_OUTCOME_COMPLETED);
    WAIT_FOR(msi_seen(&t, 1));
    ack(&t, 1, 0);
    c_free(&c);

    /* FAULT: the next buffer faults INJECTED */
    c_init(&c);
    c_write_imm(&c, VA_BASE + 4, 1);
    wr(&t, TERN_REG_INJECT, TERN_INJECT_ENGINE(2) |
       TERN_INJECT_OP(TERN_INJECT_FAULT));
    g_assert_cmphex(rd(&t, TERN_REG_INJECT_STATUS), ==, 4);
    g_assert_cmpuint(run_cmd(&t, 2, &c, root, 0), ==, TERN_OUTCOME_FAULTED);
    check_fault(&t, 2, TERN_FAULT_INJECTED, 0, false, 0);
    g_assert_cmpuint(qtest_readl(t.qts, pa + 4), ==, 0);
    g_assert_cmpuint(run_cmd(&t, 2, &c, root, 0), ==,
                     TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(qtest_readl(t.qts, pa + 4), ==, 1);

    /* NONE disarms */
    wr(&t, TERN_REG_INJECT, TERN_INJECT_ENGINE(2) |
       TERN_INJECT_OP(TERN_INJECT_FAULT));
    wr(&t, TERN_REG_INJECT, TERN_INJECT_ENGINE(2) |
       TERN_INJECT_OP(TERN_INJECT_NONE));
    g_assert_cmphex(rd(&t, TERN_REG_INJECT_STATUS), ==, 0);
    g_assert_cmpuint(run_cmd(&t, 2, &c, root, 0), ==,
                     TERN_OUTCOME_COMPLETED);
    c_free(&c);
    tern_shutdown(&t);

    /* without the debug block the registers do not exist */
    tern_boot(&t, "local-mem-size=16M,fault-inject=off");
    g_assert_cmphex(rd(&t, TERN_REG_CAPS) & TERN_CAPS_FAULT_INJECT, ==, 0);
    wr(&t, TERN_REG_INJECT, 0);
    g_assert_cmphex(rd(&t, TERN_REG_REG_ERROR_ADDR), ==, TERN_REG_INJECT);
    tern_shutdown(&t);
}

/*
 * RESET_STUCK: the next engine reset abandons the work, as any reset does,
 * but never ends; the engine stays RESETTING, its registers refuse writes,
 * and only a device reset brings it back.
 */
static void test_reset_stuck(void)
{
    uint64_t root, pa;
    uint32_t p0;
    Tern t;
    Cmd c;
    Job j;

    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    pa = as_map_buf(&t, root, VA_BASE, PAGE, true);

    /* a run that would write after a long SPIN */
    c_init(&c);
    c_spin(&c, 300000);
    c_write_imm(&c, VA_BASE, 7);
    j = job_of(&t, &c, root, 1);
    submit(&t, 0, 0, &j);
    g_usleep(10000);
    wr(&t, TERN_REG_INJECT, TERN_INJECT_ENGINE(0) |
       TERN_INJECT_OP(TERN_INJECT_RESET_STUCK));
    g_assert_cmphex(rd(&t, TERN_REG_INJECT_STATUS), ==, 1);
    ew(&t, 0, TERN_ENG_RESET, 1);
    g_usleep(100000);
    g_assert_cmpuint(TERN_ENG_STATE(er(&t, 0, TERN_ENG_STATUS)), ==,
                     TERN_ENG_STATE_RESETTING);
    p0 = er(&t, 0, TERN_ENG_PROGRESS);
    g_usleep(400000);
    /* abandoned: no progress, the write after the SPIN never happens */
    g_assert_cmpuint(er(&t, 0, TERN_ENG_PROGRESS), ==, p0);
    g_assert_cmpuint(qtest_readl(t.qts, pa), ==, 0);
    g_assert_cmpuint(TERN_ENG_STATE(er(&t, 0, TERN_ENG_STATUS)), ==,
                     TERN_ENG_STATE_RESETTING);
    /* still RESETTING: a write, another reset too, is a register error */
    ew(&t, 0, TERN_ENG_RESET, 1);
    g_assert_cmphex(rd(&t, TERN_REG_REG_ERROR_ADDR), ==,
                    TERN_ENGINE_BASE(0) + TERN_ENG_RESET);
    /* the other engines are not affected */
    g_assert_cmpuint(run_cmd(&t, 1, &c, root, 0), ==,
                     TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(qtest_readl(t.qts, pa), ==, 7);

    /* a device reset ends it */
    wr(&t, TERN_REG_RESET, TERN_RESET_MAGIC);
    WAIT_FOR(rd(&t, TERN_REG_STATUS) & TERN_STATUS_READY);
    g_assert_cmpuint(TERN_ENG_STATE(er(&t, 0, TERN_ENG_STATUS)), ==,
                     TERN_ENG_STATE_IDLE);
    g_assert_cmpuint(slot_state(&t, 0, 0), ==, TERN_SLOT_STATE_FREE);
    g_assert_cmphex(rd(&t, TERN_REG_INJECT_STATUS), ==, 0);
    qtest_writel(t.qts, pa, 0);
    g_assert_cmpuint(run_cmd(&t, 0, &c, root, 0), ==,
                     TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(qtest_readl(t.qts, pa), ==, 7);

    /* an op above RESET_STUCK is a register error */
    wr(&t, TERN_REG_INJECT, TERN_INJECT_ENGINE(0) | TERN_INJECT_OP(5));
    g_assert_cmphex(rd(&t, TERN_REG_REG_ERROR_ADDR), ==, TERN_REG_INJECT);
    c_free(&c);
    tern_shutdown(&t);
}

/* ---- Tests: misuse ------------------------------------------------------- */

static void expect_fault(Tern *t, unsigned e, Cmd *c, uint64_t root,
                         uint32_t flags, unsigned kind, uint64_t addr,
                         uint32_t pkt_offset)
{
    g_assert_cmpuint(run_cmd(t, e, c, root, flags), ==,
                     TERN_OUTCOME_FAULTED);
    check_fault(t, e, kind, addr, false, pkt_offset);
    c_free(c);
    c_init(c);
}

static void test_malformed_packets(void)
{
    uint64_t root, pa, local;
    uint32_t off;
    Tern t;
    Cmd c;
    Job j;

    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    pa = as_map_buf(&t, root, VA_BASE, 4 * PAGE, true);
    c_init(&c);

    c_nop(&c, 2);
    off = c_off(&c);
    c_dw(&c, TERN_PKT_HEADER(0x42, 1));
    expect_fault(&t, 0, &c, root, 0, TERN_FAULT_BAD_OPCODE, off, off);

    c_dw(&c, TERN_PKT_HEADER(TERN_OP_NOP, 1) | 0x100);
    expect_fault(&t, 0, &c, root, 0, TERN_FAULT_BAD_LENGTH, 0, 0);

    c_dw(&c, TERN_PKT_HEADER(TERN_OP_NOP, 0));
    expect_fault(&t, 0, &c, root, 0, TERN_FAULT_BAD_LENGTH, 0, 0);

    c_hdr(&c, TERN_OP_WRITE_IMM, 3);
    c_va(&c, VA_BASE);
    expect_fault(&t, 0, &c, root, 0, TERN_FAULT_BAD_LENGTH, 0, 0);

    c_nop(&c, 1);
    c_hdr(&c, TERN_OP_WRITE_IMM, TERN_PKT_DWORDS_WRITE_IMM);
    c_va(&c, VA_BASE);              /* value missing: past the end */
    expect_fault(&t, 0, &c, root, 0, TERN_FAULT_BAD_LENGTH, 4, 4);

    c_tlb_invalidate(&c);
    expect_fault(&t, 0, &c, root, 0, TERN_FAULT_PRIVILEGED, 0, 0);

    c_write_imm(&c, VA_BASE + 2, 1);
    expect_fault(&t, 0, &c, root, 0, TERN_FAULT_BAD_OPERAND, 0, 0);

    c_timestamp(&c, VA_BASE + 4);
    expect_fault(&t, 0, &c, root, 0, TERN_FAULT_BAD_OPERAND, 0, 0);

    c_vecadd(&c, VA_BASE, VA_BASE + 0x100, VA_BASE + 4, 0);
    expect_fault(&t, 0, &c, root, 0, TERN_FAULT_BAD_OPERAND, 0, 0);

    /* c partially overlapping a */
    c_vecadd(&c, VA_BASE, VA_BASE + 0x1000, VA_BASE + 4, 16);
    expect_fault(&t, 0, &c, root, 0, TERN_FAULT_BAD_OPERAND, 0, 0);

    c_gemm(&c, VA_BASE, VA_BASE + 0x1000, VA_BASE + 0x80, 8, 8, 8);
    expect_fault(&t, 0, &c, root, 0, TERN_FAULT_BAD_OPERAND, 0, 0);

    c_gemm(&c, VA_BASE, VA_BASE + 0x1000, VA_BASE + 0x2000, 4097, 1, 1);
    expect_fault(&t, 0, &c, root, 0, TERN_FAULT_BAD_OPERAND, 0, 0);

    c_copy(&c, VA_BASE, VA_BASE + 8, 16);
    expect_fault(&t, 0, &c, root, 0, TERN_FAULT_BAD_OPERAND, 0, 0);

    c_fill(&c, VA_BASE, 6, 0);
    expect_fault(&t, 0, &c, root, 0, TERN_FAULT_BAD_OPERAND, 0, 0);

    c_reduce(&c, VA_BASE, VA_BASE + 0x100, 4, 3);
    expect_fault(&t, 0, &c, root, 0, TERN_FAULT_BAD_OPERAND, 0, 0);

    c_wait_mem(&c, VA_BASE, 1, 0);
    expect_fault(&t, 0, &c, root, 0, TERN_FAULT_BAD_OPERAND, 0, 0);

    c_spin(&c, 0);
    expect_fault(&t, 0, &c, root, 0, TERN_FAULT_BAD_OPERAND, 0, 0);

    c_wait_mem(&c, VA_BASE, 1, 2000);
    expect_fault(&t, 0, &c, root, 0, TERN_FAULT_WAIT_TIMEOUT, 0, 0);

    /* compute packets do not run on the copy engine */
    c_vecadd(&c, VA_BASE, VA_BASE + 0x100, VA_BASE + 0x200, 4);
    expect_fault(&t, 2, &c, root, 0, TERN_FAULT_BAD_OPCODE, 0, 0);

    /* PHYS_COPY: privileged slot, bounds-checked */
    local = 16 * 1024 * 1024 - PAGE;
    qtest_writel(t.qts, pa, 0xfeedface);
    c_phys_copy(&c, pa, local, PAGE, TERN_PHYS_COPY_DST_LOCAL);
    c_phys_copy(&c, local, pa + PAGE + 4, 8, TERN_PHYS_COPY_SRC_LOCAL);
    g_assert_cmpuint(run_cmd(&t, 2, &c, root, TERN_SLOT_FLAG_PRIVILEGED),
                     ==, TERN_OUTCOME_COMPLETED);
    g_assert_cmphex(qpci_io_readl(t.dev, t.bar2, local), ==, 0xfeedface);
    g_assert_cmphex(qtest_readl(t.qts, pa + PAGE + 4), ==, 0xfeedface);
    c_free(&c);
    c_init(&c);
    c_phys_copy(&c, pa, local + 8, PAGE, TERN_PHYS_COPY_DST_LOCAL);
    g_assert_cmpuint(run_cmd(&t, 2, &c, root, TERN_SLOT_FLAG_PRIVILEGED),
                     ==, TERN_OUTCOME_FAULTED);
    check_fault(&t, 2, TERN_FAULT_BAD_OPERAND, 0, false, 0);
    c_free(&c);
    c_init(&c);

    /* bad BUF_SIZE and a buffer outside RAM */
    c_nop(&c, 1);
    j = job_of(&t, &c, root, 1);
    j.size = 6;
    g_assert_cmpuint(run_job(&t, 0, &j), ==, TERN_OUTCOME_FAULTED);
    check_fault(&t, 0, TERN_FAULT_BAD_LENGTH, 0, false, 0);
    j.size = 4;
    j.buf = 0xc0000000ull;
    g_assert_cmpuint(run_job(&t, 0, &j), ==, TERN_OUTCOME_FAULTED);
    check_fault(&t, 0, TERN_FAULT_BUS_ERROR, 0xc0000000ull, false, 0);

    /* a fault cancels the pending slot */
    c_free(&c);
    c_init(&c);
    c_spin(&c, 50000);
    c_dw(&c, 0xff);
    {
        Cmd ok;
        Job j0 = job_of(&t, &c, root, 1), j1;

        c_init(&ok);
        c_write_imm(&ok, VA_BASE + 0x40, 1);
        j1 = job_of(&t, &ok, root, 2);
        submit(&t, 0, 0, &j0);
        submit(&t, 0, 1, &j1);
        g_assert_cmpuint(wait_done(&t, 0, 1), ==, TERN_OUTCOME_CANCELLED);
        g_assert_cmpuint(slot_outcome(&t, 0, 0), ==, TERN_OUTCOME_FAULTED);
        check_fault(&t, 0, TERN_FAULT_BAD_OPCODE, 8, false, 8);
        g_assert_cmpuint(qtest_readl(t.qts, pa + 0x40), ==, 0);
        c_free(&ok);
    }
    c_free(&c);
    tern_shutdown(&t);
}

/* An operand VA: anywhere, or inside the small mapped window. */
static uint64_t random_va(GRand *r)
{
    if (g_rand_boolean(r)) {
        return ((uint64_t)g_rand_int(r) << 32 | g_rand_int(r)) &
               (g_rand_boolean(r) ? ~0ull : 0xffffffffffffull);
    }
    return VA_BASE + g_rand_int_range(r, 0, 16 * PAGE);
}

static uint32_t random_count(GRand *r)
{
    switch (g_rand_int_range(r, 0, 4)) {
    case 0:
        return g_rand_int(r);
    case 1:
        return 0;
    default:
        return g_rand_int_range(r, 1, 5000);
    }
}

static void test_random_buffers_never_escape(void)
{
    static const unsigned ops[] = {
        TERN_OP_NOP, TERN_OP_WRITE_IMM, TERN_OP_FENCE, TERN_OP_TIMESTAMP,
        TERN_OP_COPY, TERN_OP_FILL, TERN_OP_SPIN, TERN_OP_WAIT_MEM,
        TERN_OP_VECADD, TERN_OP_SAXPY, TERN_OP_GEMM, TERN_OP_REDUCE,
        TERN_OP_TLB_INVALIDATE, TERN_OP_PHYS_COPY, 0x08, 0x7f,
    };
    GRand *r = g_rand_new_with_seed(0x7e70);
    uint64_t root, canary, off;
    unsigned i, p, d, completed = 0, faulted = 0;
    Tern t;

    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    /* 16 pages: writable, read-only and unmapped ones */
    for (off = 0; off < 16 * PAGE; off += PAGE) {
        if (off % (4 * PAGE) != 3 * PAGE) {
            as_map(&t, root, VA_BASE + off, t_alloc(&t, PAGE),
                   off % (4 * PAGE) == 2 * PAGE ? 0 : TERN_PTE_WRITABLE);
        }
    }
    canary = t_alloc(&t, 4 * PAGE);
    qtest_memset(t.qts, canary, 0x5c, 4 * PAGE);

    for (i = 0; i < 300; i++) {
        unsigned e = g_rand_int_range(r, 0, t.engines), kind;
        uint32_t outcome;
        Cmd c;

        c_init(&c);
        for (p = g_rand_int_range(r, 1, 6); p; p--) {
            unsigned op = ops[g_rand_int_range(r, 0, G_N_ELEMENTS(ops))];
            int len = op == TERN_OP_NOP ? g_rand_int_range(r, 1, 4) :
                      op == TERN_OP_WRITE_IMM ? 4 : op == TERN_OP_FENCE ? 4 :
                      op == TERN_OP_TIMESTAMP ? 3 : op == TERN_OP_COPY ? 6 :
                      op == TERN_OP_FILL ? 5 : op == TERN_OP_SPIN ? 2 :
                      op == TERN_OP_WAIT_MEM ? 5 : op == TERN_OP_VECADD ? 8 :
                      op == TERN_OP_SAXPY ? 7 : op == TERN_OP_GEMM ? 10 :
                      op == TERN_OP_REDUCE ? 6 : op == TERN_OP_PHYS_COPY ? 7 :
                      1;

            if (g_rand_int_range(r, 0, 10) == 0) {
                len = g_rand_int_range(r, 0, 12);
            }
            c_hdr(&c, op, len);
            for (d = 1; d < len; d += 2) {
                uint64_t va = random_va(r);

                if (op == TERN_OP_SPIN) {
                    c_dw(&c, g_rand_int_range(r, 0, 200));
                    continue;
                }
                if (op == TERN_OP_WAIT_MEM && d == 3) {
                    c_dw(&c, g_rand_int(r));
                    c_dw(&c, g_rand_int_range(r, 0, 1000));
                    break;
                }
                if ((op == TERN_OP_GEMM && d >= 7) ||
                    (d + 1 == (unsigned)len)) {
                    c_dw(&c, random_count(r));
                    d--;
                    continue;
                }
                c_va(&c, va);
            }
        }
        if (g_rand_int_range(r, 0, 10) == 0) {
            c_dw(&c, g_rand_int(r));            /* trailing garbage */
        }
        outcome = run_cmd(&t, e, &c, root, 0);
        if (outcome == TERN_OUTCOME_FAULTED) {
            kind = TERN_FAULT_KIND(er(&t, e, TERN_ENG_FAULT_INFO));
            g_assert_cmpuint(kind, >=, TERN_FAULT_NOT_PRESENT);
            g_assert_cmpuint(kind, <=, TERN_FAULT_WAIT_TIMEOUT);
            wr(&t, TERN_REG_ERR_IRQ_STATUS, ~0u);
            faulted++;
        } else {
            g_assert_cmpuint(outcome, ==, TERN_OUTCOME_COMPLETED);
            completed++;
        }
        c_free(&c);
    }
    /* both outcomes happened, and nothing outside the mappings changed */
    g_assert_cmpuint(completed, >, 0);
    g_assert_cmpuint(faulted, >, 10);
    for (off = 0; off < 4 * PAGE; off += 4) {
        g_assert_cmphex(qtest_readl(t.qts, canary + off), ==, 0x5c5c5c5c);
    }
    g_assert_cmphex(rd(&t, TERN_REG_ID), ==, TERN_ID_MAGIC);
    g_rand_free(r);
    tern_shutdown(&t);
}

static void expect_reg_error(Tern *t, uint32_t off)
{
    g_assert_cmphex(rd(t, TERN_REG_REG_ERROR_ADDR), ==, off);
    g_assert_cmphex(rd(t, TERN_REG_ERR_IRQ_STATUS), ==,
                    TERN_ERR_IRQ_REG_ERROR);
    WAIT_FOR(msi_seen(t, t->engines));
    wr(t, TERN_REG_ERR_IRQ_STATUS, TERN_ERR_IRQ_REG_ERROR);
    g_assert_cmphex(rd(t, TERN_REG_ERR_IRQ_STATUS), ==, 0);
    msi_clear(t);
}

static void test_bad_register_accesses(void)
{
    uint64_t root;
    Tern t;
    Cmd c;
    Job j;

    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    msi_clear(&t);

    g_assert_cmphex(rd(&t, 0x0ffc), ==, 0);
    expect_reg_error(&t, 0x0ffc);
    wr(&t, 0x0ffc, 1);
    expect_reg_error(&t, 0x0ffc);
    wr(&t, TERN_REG_ID, 1);
    expect_reg_error(&t, TERN_REG_ID);
    g_assert_cmphex(rd(&t, TERN_REG_ID), ==, TERN_ID_MAGIC);
    wr(&t, TERN_REG_RESET, 1);
    expect_reg_error(&t, TERN_REG_RESET);
    /* engine 3 does not exist */
    g_assert_cmphex(er(&t, 3, TERN_ENG_CAPS), ==, 0);
    expect_reg_error(&t, TERN_ENGINE_BASE(3));
    ew(&t, 0, TERN_ENG_PROGRESS, 5);
    expect_reg_error(&t, TERN_ENGINE_BASE(0) + TERN_ENG_PROGRESS);
    ew(&t, 0, TERN_ENG_DOORBELL, 2);
    expect_reg_error(&t, TERN_ENGINE_BASE(0) + TERN_ENG_DOORBELL);
    ew(&t, 0, TERN_ENG_PREEMPT, 2);
    expect_reg_error(&t, TERN_ENGINE_BASE(0) + TERN_ENG_PREEMPT);
    sw(&t, 0, 0, TERN_SLOT_FLAGS, 4);
    expect_reg_error(&t, TERN_ENGINE_BASE(0) + TERN_SLOT_BASE(0) +
                     TERN_SLOT_FLAGS);
    sw(&t, 0, 1, TERN_SLOT_ACK, 1);
    expect_reg_error(&t, TERN_ENGINE_BASE(0) + TERN_SLOT_BASE(1) +
                     TERN_SLOT_ACK);
    wr(&t, TERN_REG_INJECT, TERN_INJECT_ENGINE(7));
    expect_reg_error(&t, TERN_REG_INJECT);
    wr(&t, TERN_REG_SINGLE_ROOT_LO, 0x1000);
    expect_reg_error(&t, TERN_REG_SINGLE_ROOT_LO);

    /* slot registers are frozen while the slot is busy; doorbell too */
    c_init(&c);
    c_spin(&c, 200000);
    j = job_of(&t, &c, root, 1);
    submit(&t, 0, 0, &j);
    sw(&t, 0, 0, TERN_SLOT_BUF_SIZE, 8);
    expect_reg_error(&t, TERN_ENGINE_BASE(0) + TERN_SLOT_BASE(0) +
                     TERN_SLOT_BUF_SIZE);
    g_assert_cmpuint(sr(&t, 0, 0, TERN_SLOT_BUF_SIZE), ==, j.size);
    ew(&t, 0, TERN_ENG_DOORBELL, 0);
    expect_reg_error(&t, TERN_ENGINE_BASE(0) + TERN_ENG_DOORBELL);
    g_assert_cmpuint(wait_done(&t, 0, 0), ==, TERN_OUTCOME_COMPLETED);
    ack(&t, 0, 0);
    c_free(&c);

    /* other access sizes are rejected by the bus and not latched */
    qpci_io_writeb(t.dev, t.bar0, TERN_REG_SCRATCH, 0xff);
    qpci_io_writew(t.dev, t.bar0, TERN_REG_SCRATCH, 0xffff);
    g_assert_cmphex(rd(&t, TERN_REG_SCRATCH), ==, 0);
    g_assert_cmphex(rd(&t, TERN_REG_ERR_IRQ_STATUS), ==, 0);
    wr(&t, TERN_REG_SCRATCH, 0x55aa);
    g_assert_cmphex(rd(&t, TERN_REG_SCRATCH), ==, 0x55aa);

    /* masked: status set, no message; unmasking sends it */
    wr(&t, TERN_REG_ERR_IRQ_MASK, ~0u);
    wr(&t, 0x0ffc, 0);
    g_assert_cmphex(rd(&t, TERN_REG_ERR_IRQ_STATUS), ==,
                    TERN_ERR_IRQ_REG_ERROR);
    g_usleep(20000);
    g_assert_false(msi_seen(&t, t.engines));
    wr(&t, TERN_REG_ERR_IRQ_MASK, 0);
    WAIT_FOR(msi_seen(&t, t.engines));
    tern_shutdown(&t);
}

static void test_single_use_mode(void)
{
    uint64_t root, pa;
    Tern t;
    Cmd c;

    tern_boot(&t, "local-mem-size=16M,single-use=on");
    g_assert_cmphex(rd(&t, TERN_REG_CAPS) & TERN_CAPS_SINGLE_USE, ==,
                    TERN_CAPS_SINGLE_USE);
    root = as_new(&t);
    pa = as_map_buf(&t, root, VA_BASE, PAGE, true);
    wr(&t, TERN_REG_SINGLE_ROOT_LO, root);
    wr(&t, TERN_REG_SINGLE_ROOT_HI, root >> 32);
    g_assert_cmphex(rd(&t, TERN_REG_SINGLE_ROOT_LO), ==, (uint32_t)root);
    c_init(&c);
    c_write_imm(&c, VA_BASE, 0x51);
    /* the slot's root is ignored: an empty table would fault */
    g_assert_cmpuint(run_cmd(&t, 0, &c, as_new(&t), 0), ==,
                     TERN_OUTCOME_COMPLETED);
    g_assert_cmphex(qtest_readl(t.qts, pa), ==, 0x51);
    c_free(&c);
    tern_shutdown(&t);
}

static void test_hot_unplug_with_busy_engines(void)
{
    uint64_t root;
    Tern t, hp;
    Cmd c;
    Job j;

    /*
     * Unplugging joins the engine threads: it must not wait for a long
     * SPIN, a hung engine or a WAIT_MEM that nothing will satisfy.
     */
    tern_boot(&t, "local-mem-size=16M");
    qtest_qmp_device_add(t.qts, "tern", "tern_hp",
                         "{'addr': '0x06', 'local-mem-size': 1048576}");
    hp = t;
    hp.dev = qpci_device_find(t.qs->pcibus, QPCI_DEVFN(0x06, 0));
    g_assert(hp.dev);
    hp.bar0 = qpci_iomap(hp.dev, TERN_BAR_REGS, NULL);
    qpci_device_enable(hp.dev);
    g_assert_cmphex(rd(&hp, TERN_REG_ID), ==, TERN_ID_MAGIC);

    root = as_new(&t);
    as_map_buf(&t, root, VA_BASE, PAGE, true);
    c_init(&c);
    c_spin(&c, 10000000);
    j = job_of(&t, &c, root, 1);
    submit(&hp, 0, 0, &j);
    c_free(&c);
    c_init(&c);
    c_wait_mem(&c, VA_BASE, 1, 10000000);
    j = job_of(&t, &c, root, 2);
    submit(&hp, 1, 0, &j);
    submit(&hp, 2, 0, &j);
    wr(&hp, TERN_REG_INJECT, TERN_INJECT_ENGINE(2) |
       TERN_INJECT_OP(TERN_INJECT_HANG));
    g_usleep(20000);
    g_assert_cmpuint(slot_state(&hp, 0, 0), ==, TERN_SLOT_STATE_RUNNING);
    g_assert_cmpuint(slot_state(&hp, 1, 0), ==, TERN_SLOT_STATE_RUNNING);

    qpci_unplug_acpi_device_test(t.qts, "tern_hp", 0x06);
    g_free(hp.dev);
    /* the first device is still alive */
    g_assert_cmphex(rd(&t, TERN_REG_ID), ==, TERN_ID_MAGIC);
    c_free(&c);
    tern_shutdown(&t);
}

/* A job: SPIN for @us (none if 0), then WRITE_IMM @val at VA_BASE. */
static Job spin_then_write(Tern *t, uint64_t root, uint32_t us, uint32_t val)
{
    Job j;
    Cmd c;

    c_init(&c);
    if (us) {
        c_spin(&c, us);
    }
    c_write_imm(&c, VA_BASE, val);
    j = job_of(t, &c, root, 1);
    c_free(&c);
    return j;
}

static void test_vm_stop_parks_engines(void)
{
    uint32_t progress;
    uint64_t root, pa;
    Tern t;
    Job j;

    /*
     * While the VM is stopped the engines leave guest memory alone: a
     * running job stops where it is and goes on when the VM runs again;
     * a job submitted meanwhile waits too.
     */
    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    pa = as_map_buf(&t, root, VA_BASE, PAGE, true);
    j = spin_then_write(&t, root, 300000, 0x5707);
    submit(&t, 0, 0, &j);
    WAIT_FOR(er(&t, 0, TERN_ENG_PROGRESS) > 2);
    qtest_qmp_assert_success(t.qts, "{'execute': 'stop'}");
    progress = er(&t, 0, TERN_ENG_PROGRESS);
    j = spin_then_write(&t, root, 0, 0x5708);
    submit(&t, 1, 0, &j);
    g_usleep(500000);       /* longer than the whole job */
    g_assert_cmpuint(er(&t, 0, TERN_ENG_PROGRESS), ==, progress);
    g_assert_cmpuint(slot_state(&t, 0, 0), ==, TERN_SLOT_STATE_RUNNING);
    g_assert_cmpuint(slot_state(&t, 1, 0), ==, TERN_SLOT_STATE_RUNNING);
    g_assert_cmphex(qtest_readl(t.qts, pa), ==, 0);

    qtest_qmp_assert_success(t.qts, "{'execute': 'cont'}");
    g_assert_cmpuint(wait_done(&t, 0, 0), ==, TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(wait_done(&t, 1, 0), ==, TERN_OUTCOME_COMPLETED);
    g_assert_cmpuint(er(&t, 0, TERN_ENG_PROGRESS), >, progress);
    WAIT_FOR(qtest_readl(t.qts, pa) != 0);
    tern_shutdown(&t);
}

static void test_bus_master_disable_while_running(void)
{
    uint16_t cmd;
    uint64_t root, pa;
    uint32_t outcome, kind;
    Tern t;
    Job j;

    /* Without Bus Master Enable every access to memory fails (section 2). */
    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    pa = as_map_buf(&t, root, VA_BASE, PAGE, true);
    cmd = qpci_config_readw(t.dev, PCI_COMMAND);
    j = spin_then_write(&t, root, 200000, 0xb1);
    submit(&t, 0, 0, &j);
    WAIT_FOR(er(&t, 0, TERN_ENG_PROGRESS) > 2);
    qpci_config_writew(t.dev, PCI_COMMAND, cmd & ~PCI_COMMAND_MASTER);
    outcome = wait_done(&t, 0, 0);
    kind = TERN_FAULT_KIND(er(&t, 0, TERN_ENG_FAULT_INFO));
    g_assert_cmpuint(outcome, ==, TERN_OUTCOME_FAULTED);
    g_assert_true(kind == TERN_FAULT_BUS_ERROR ||
                  kind == TERN_FAULT_PAGE_TABLE);
    g_assert_cmphex(qtest_readl(t.qts, pa), ==, 0);
    ack(&t, 0, 0);

    /* enabled again, the same job runs */
    qpci_config_writew(t.dev, PCI_COMMAND, cmd);
    ew(&t, 0, TERN_ENG_RESET, 1);
    WAIT_FOR(TERN_ENG_STATE(er(&t, 0, TERN_ENG_STATUS)) ==
             TERN_ENG_STATE_IDLE);
    wr(&t, TERN_REG_ERR_IRQ_STATUS, ~0u);
    j = spin_then_write(&t, root, 0, 0xb2);
    g_assert_cmpuint(run_job(&t, 0, &j), ==, TERN_OUTCOME_COMPLETED);
    g_assert_cmphex(qtest_readl(t.qts, pa), ==, 0xb2);
    tern_shutdown(&t);
}

static void test_bars_unmapped_while_running(void)
{
    uint64_t root, pa;
    uint16_t cmd;
    unsigned i;
    Tern t;
    Job j;

    /*
     * Switching memory decoding off and on (BAR sizing does) takes the
     * BARs and the MSI-X table out of the memory map and back: the
     * engines go on and the registers read the same afterwards.
     */
    tern_boot(&t, "local-mem-size=16M");
    root = as_new(&t);
    pa = as_map_buf(&t, root, VA_BASE, PAGE, true);
    cmd = qpci_config_readw(t.dev, PCI_COMMAND);
    j = spin_then_write(&t, root, 200000, 0xd1);
    submit(&t, 0, 0, &j);
    for (i = 0; i < 50; i++) {
        qpci_config_writew(t.dev, PCI_COMMAND, cmd & ~PCI_COMMAND_MEMORY);
        qpci_config_writew(t.dev, PCI_COMMAND, cmd);
        g_assert_cmphex(rd(&t, TERN_REG_ID), ==, TERN_ID_MAGIC);
    }
    g_assert_cmpuint(wait_done(&t, 0, 0), ==, TERN_OUTCOME_COMPLETED);
    g_assert_cmphex(qtest_readl(t.qts, pa), ==, 0xd1);
    WAIT_FOR(msi_seen(&t, 0));
    tern_shutdown(&t);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/tern/ids-and-bar-sizes", test_ids_and_bar_sizes);
    qtest_add_func("/tern/slots/done-records", test_done_records);
    qtest_add_func("/tern/packets/effects-in-memory", test_packet_effects);
    qtest_add_func("/tern/packets/gemm-matches-cpu", test_gemm_matches_cpu);
    qtest_add_func("/tern/packets/saxpy-vecadd-match-cpu",
                   test_saxpy_and_vecadd_match_cpu);
    qtest_add_func("/tern/packets/reduce-matches-cpu",
                   test_reduce_matches_cpu);
    qtest_add_func("/tern/packets/malformed", test_malformed_packets);
    qtest_add_func("/tern/packets/random-buffers-never-escape",
                   test_random_buffers_never_escape);
    qtest_add_func("/tern/slots/in-order-completion-and-writeback",
                   test_in_order_completion_and_writeback);
    qtest_add_func("/tern/mmu/walk-permissions-faults",
                   test_page_walk_permissions_and_faults);
    qtest_add_func("/tern/mmu/tables-in-local-memory",
                   test_page_tables_in_local_memory);
    qtest_add_func("/tern/mmu/tlb-invalidation", test_tlb_invalidation);
    qtest_add_func("/tern/mmu/page-tables-by-phys-copy",
                   test_page_tables_by_phys_copy);
    qtest_add_func("/tern/faults/halt-until-cleared", test_fault_halts_engine);
    qtest_add_func("/tern/preempt/resume-later-start",
                   test_preempt_resume_later_start);
    qtest_add_func("/tern/preempt/at-packet-boundary",
                   test_preempt_at_packet_boundary);
    qtest_add_func("/tern/preempt/idle-served-at-write",
                   test_preempt_idle_served_at_write);
    qtest_add_func("/tern/preempt/inside-packet-and-resume",
                   test_preempt_inside_packet_and_resume);
    qtest_add_func("/tern/preempt/spin-and-bad-resume",
                   test_preempt_spin_and_bad_resume);
    qtest_add_func("/tern/preempt/cancel-second-slot",
                   test_cancel_of_second_slot);
    qtest_add_func("/tern/reset/engine", test_engine_reset);
    qtest_add_func("/tern/reset/device", test_device_reset);
    qtest_add_func("/tern/reset/engine-inside-huge-gemm",
                   test_engine_reset_inside_huge_gemm);
    qtest_add_func("/tern/engines-run-in-parallel",
                   test_engines_run_in_parallel);
    qtest_add_func("/tern/progress-counter", test_progress_counter);
    qtest_add_func("/tern/cost-model-and-time-scale",
                   test_cost_model_and_time_scale);
    qtest_add_func("/tern/cost-model/local-memory",
                   test_cost_model_local_memory);
    qtest_add_func("/tern/interrupts/engine-mask",
                   test_engine_interrupt_mask);
    qtest_add_func("/tern/fault-injection", test_fault_injection);
    qtest_add_func("/tern/fault-injection/reset-stuck", test_reset_stuck);
    qtest_add_func("/tern/registers/bad-accesses",
                   test_bad_register_accesses);
    qtest_add_func("/tern/single-use-mode", test_single_use_mode);
    qtest_add_func("/tern/hot-unplug-with-busy-engines",
                   test_hot_unplug_with_busy_engines);
    qtest_add_func("/tern/vm-stop-parks-engines", test_vm_stop_parks_engines);
    qtest_add_func("/tern/bus-master-disable-while-running",
                   test_bus_master_disable_while_running);
    qtest_add_func("/tern/bars-unmapped-while-running",
                   test_bars_unmapped_while_running);

    return g_test_run();
}
