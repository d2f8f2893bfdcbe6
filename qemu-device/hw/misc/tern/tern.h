/*
 * tern compute accelerator: internal state of the device model
 *
 * Copyright (c) 2026 The tern authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * docs/hardware.md is the specification this model implements.  The model
 * is split by concern:
 *   tern-pci.c      QOM/PCI device, BARs, MSI-X, global registers, resets
 *   tern-engine.c   engine threads, slots, preemption, engine registers
 *   tern-mmu.c      page-table walk, TLB, accesses to virtual addresses
 *   tern-packets.c  execution of the command packets
 *
 * Locking: each engine has a mutex protecting its registers and slot state;
 * the device has one mutex for the global error/interrupt state.  The order
 * is engine lock, then device lock.  Engine threads never take the BQL:
 * they only access RAM (MemTxAttrs.memory) and hand MSI-X messages to a
 * bottom half that sends them from the main loop.  While the VM is stopped
 * the engines park at their next preemption point and leave guest memory
 * alone; the main loop waits for that (it can: they never wait for it).
 */
#ifndef HW_MISC_TERN_H
#define HW_MISC_TERN_H

#include "hw/pci/pci_device.h"
#include "qemu/thread.h"
#include "system/runstate.h"
#include "qom/object.h"
#include "tern_regs.h"
#include "tern_accel.h"

#define TYPE_TERN "tern"
OBJECT_DECLARE_SIMPLE_TYPE(TernState, TERN)

#define TERN_BUF_SIZE_MAX           (1024 * 1024)
#define TERN_TLB_SIZE               64
#define TERN_CHUNK_BYTES            4096    /* COPY, FILL, PHYS_COPY */
#define TERN_CHUNK_ELEMS            4096    /* VECADD, SAXPY, REDUCE */
#define TERN_SPIN_CHUNK_US          10
#define TERN_WAIT_POLL_US           100
#define TERN_COST_PACKET_NS         100
#define TERN_COST_LOCAL_DIV         4       /* a chunk all in local memory */
#define TERN_PACE_SLACK_NS          1000000 /* may run this far ahead */
#define TERN_INJECT_OP_MAX          TERN_INJECT_RESET_STUCK

typedef struct TernState TernState;

typedef struct TernSlot {
    uint64_t buf;
    uint32_t buf_size;
    uint64_t root;
    uint32_t ctx_tag;
    uint32_t seqno;
    uint32_t flags;
    uint64_t resume;
    uint32_t state;
    uint32_t outcome;
    uint64_t run_ns;
    uint32_t done_seq;
} TernSlot;

typedef struct TernTlbEntry {
    bool valid;
    bool local;
    bool writable;
    uint64_t root;
    uint64_t vpn;
    uint64_t page;
} TernTlbEntry;

/* How the execution of a buffer, a packet or a chunk went on. */
typedef enum TernStep {
    TERN_CONTINUE = 0,
    TERN_STOP_FAULT,        /* run->fault says why */
    TERN_STOP_PREEMPT,      /* stopped at a preemption point */
    TERN_STOP_HANG,         /* injected hang */
    TERN_STOP_ABORT,        /* engine reset or device teardown */
} TernStep;

/* One run of a slot, owned by the engine thread. */
typedef struct TernRun {
    int slot;
    uint64_t buf;
    uint32_t buf_size;
    uint64_t root;          /* address-space root, TERN_PTE_LOCAL encoded */
    uint32_t ctx_tag;
    uint32_t seqno;
    uint32_t flags;
    uint64_t resume;

    uint32_t offset;        /* byte offset of the current packet */
    uint32_t pkt_progress;  /* progress inside it (resume record unit) */
    uint64_t acc;           /* packet state carried across preemption */
    bool resumed_packet;    /* the current packet continues a record */
    int64_t start_ns;       /* device clock (host realtime) at run start */
    uint64_t model_ns;      /* modelled (scaled) time charged so far */
    uint64_t elapsed_base;  /* ELAPSED_NS from the resume record */
    bool chunk_mem;         /* the current chunk read or wrote data */
    bool chunk_sys;         /* some of it in system memory (section 12) */

    uint32_t fault_kind;
    uint64_t fault_addr;
    bool fault_write;
} TernRun;

/* A done record to write once the engine lock is dropped (section 7.1). */
typedef struct TernDoneOut {
    uint64_t addr;
    uint64_t run_ns;
    uint32_t seqno;
    uint32_t info;
} TernDoneOut;

typedef struct TernEngine {
    TernState *dev;
    unsigned index;
    bool copy;              /* the copy engine */

    QemuThread thread;
    QemuMutex lock;
    QemuCond cond;
    QemuCond parked;        /* signalled when working becomes false */

    /* Protected by lock. */
    TernSlot slot[TERN_SLOTS_PER_ENGINE];
    int running;            /* RUNNING slot or -1 */
    int pending;            /* PENDING slot or -1 */
    int64_t run_start_ns;   /* when the RUNNING slot started */
    bool preempt_req;
    bool reset_req;
    bool device_reset;      /* the reset is part of a device reset */
    bool exit_req;
    bool pause_req;         /* the VM is stopped: park */
    bool working;           /* running a buffer or DMA, not parked */
    bool hung;
    uint32_t inject;        /* armed injections, bit (1 << op) */
    uint32_t irq_status;
    uint32_t irq_mask;
    uint64_t writeback;
    uint64_t done_record;
    /*
     * Done records made under the lock and the engine message that must
     * follow them: written and sent by tern_engine_flush_locked(), with
     * the lock dropped, as the engine does all its DMA, so that register
     * accesses never wait behind guest memory.
     */
    TernDoneOut done_out[TERN_SLOTS_PER_ENGINE];
    unsigned done_out_count;
    uint32_t done_out_msg;  /* status bits whose message waits for them */
    uint32_t done_out_err;  /* ERR_IRQ_STATUS bits waiting for them */
    unsigned flushing;      /* flushes writing records, lock dropped */
    uint32_t progress;
    uint32_t cur_offset;
    uint64_t busy_ns;
    uint64_t fault_addr;
    uint32_t fault_info;
    uint32_t fault_ctx_tag;
    uint32_t done_count;

    /* Engine thread only, apart from the atomics. */
    TernTlbEntry tlb[TERN_TLB_SIZE];
    unsigned tlb_next;
    bool tlb_flush_req;     /* atomic: set by ENG_TLB_INVALIDATE */
    uint32_t tlb_misses;    /* atomic */
} TernEngine;

struct TernState {
    PCIDevice parent_obj;

    MemoryRegion regs;
    MemoryRegion local_mem;
    uint8_t *local_ptr;

    /* properties */
    uint32_t compute_engines;
    uint64_t local_mem_size;
    uint32_t time_scale;
    bool single_use;
    bool fault_inject;
    bool done_records;

    unsigned num_engines;
    TernEngine engine[TERN_MAX_ENGINES];

    /* Protected by lock. */
    QemuMutex lock;
    QemuCond reset_done;
    uint32_t err_irq_status;
    uint32_t err_irq_mask;
    uint32_t reg_error_addr;
    uint64_t single_root;
    unsigned resets_pending;    /* engines still resetting for RESET */

    /* Main loop (BQL) only. */
    uint32_t scratch;
    bool latch_valid;
    hwaddr latch_off;           /* _HI register latched by a _LO read */
    uint32_t latch_val;

    int64_t clock_base;         /* atomic (qatomic_*_i64) */
    uint32_t irq_pending;       /* atomic: vectors to notify */
    QEMUBH *irq_bh;
    VMChangeStateEntry *vm_state;
};

/* tern-pci.c */
int64_t tern_now_ns(void);
uint64_t tern_clock(TernState *s);
void tern_send_msg(TernState *s, TernEngine *eng, unsigned vector);
void tern_raise_error(TernState *s, TernEngine *eng, uint32_t bits);
void tern_reg_error(TernState *s, hwaddr addr, const char *why);
uint64_t tern_single_root(TernState *s);
void tern_engine_reset_done(TernState *s, bool device_reset);
bool tern_dma_valid(TernState *s, uint64_t addr, uint64_t len, bool write);
bool tern_dma(TernState *s, uint64_t addr, void *buf, uint64_t len,
              bool write);
bool tern_dma_ldq(TernState *s, uint64_t addr, uint64_t *val);
bool tern_dma_stq(TernState *s, uint64_t addr, uint64_t val);
bool tern_dma_stl(TernState *s, uint64_t addr, uint32_t val);

/* tern-engine.c */
void tern_engine_init(TernState *s, unsigned index, bool paused);
void tern_engine_fini(TernEngine *eng);
void tern_engine_pause(TernEngine *eng, bool pause);
void tern_engine_request_reset(TernEngine *eng, bool device_reset);
uint32_t tern_engine_read(TernEngine *eng, hwaddr off, hwaddr addr);
void tern_engine_write(TernEngine *eng, hwaddr off, hwaddr addr,
                       uint32_t val);
bool tern_engine_inject(TernEngine *eng, unsigned op);
bool tern_engine_inject_armed(TernEngine *eng);
TernStep tern_checkpoint(TernEngine *eng, TernRun *run);
bool tern_engine_aborting(TernEngine *eng);
void tern_charge(TernEngine *eng, TernRun *run, uint64_t ns);
TernStep tern_fault(TernRun *run, uint32_t kind, uint64_t addr, bool write);

/* tern-mmu.c */
void tern_tlb_flush(TernEngine *eng);
TernStep tern_va_read(TernEngine *eng, TernRun *run, uint64_t va,
                      void *buf, uint64_t len);
TernStep tern_va_write(TernEngine *eng, TernRun *run, uint64_t va,
                       const void *buf, uint64_t len);

/* tern-packets.c */
TernStep tern_exec_buffer(TernEngine *eng, TernRun *run);

#endif /* HW_MISC_TERN_H */
