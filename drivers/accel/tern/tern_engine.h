/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_ENGINE_H__
#define __TERN_ENGINE_H__

#include <linux/io.h>
#include <linux/types.h>

#include "tern_regs.h"

struct tern_device;
struct tern_engine;

/**
 * struct tern_slot_desc - what the scheduler puts into a hardware slot
 * @buf: bus address of the DMA buffer
 * @buf_size: its size in bytes
 * @root: page-table root for SLOT_ROOT (with TERN_PTE_LOCAL if local)
 * @ctx_tag: opaque tag reported back in faults
 * @seqno: value the device writes back on completion
 * @flags: TERN_SLOT_FLAG_*
 * @resume: bus address of the resume record, 0 if not preemptible
 */
struct tern_slot_desc {
	dma_addr_t buf;
	u32 buf_size;
	u64 root;
	u32 ctx_tag;
	u32 seqno;
	u32 flags;
	dma_addr_t resume;
};

/**
 * struct tern_slot_result - what a DONE slot reports
 * @outcome: TERN_OUTCOME_*
 * @run_ns: device time of the run
 * @seqno: the slot's SEQNO, from a done record only
 */
struct tern_slot_result {
	u32 outcome;
	u64 run_ns;
	u32 seqno;
};

/**
 * struct tern_fault_info - the latched fault registers of an engine
 * @addr: TERN_ENG_FAULT_ADDR
 * @info: TERN_ENG_FAULT_INFO
 * @ctx_tag: TERN_ENG_FAULT_CTX_TAG
 */
struct tern_fault_info {
	u64 addr;
	u32 info;
	u32 ctx_tag;
};

/**
 * typedef tern_engine_irq_fn - called from the hard interrupt handler
 * @engine: the engine that interrupted
 * @status: TERN_ENG_IRQ_* bits that were set (already acknowledged), or
 *	%TERN_ENG_IRQ_UNREAD on an engine with done records, whose handler
 *	reads no register: the callback looks at the records, and reads and
 *	acknowledges the status itself (tern_engine_ack_irqs()) when it needs it
 * @data: the pointer given to tern_engine_set_irq_handler()
 *
 * Runs in hard-IRQ context: it must not sleep.
 */
typedef void (*tern_engine_irq_fn)(struct tern_engine *engine, u32 status,
				   void *data);

/* Not a register bit: the interrupt status was not read. */
#define TERN_ENG_IRQ_UNREAD	BIT(31)

/**
 * struct tern_done_record - a slot's done record (docs/hardware.md 7.1)
 * @run_ns: RUN_NS of the DONE
 * @seqno: the slot's SEQNO
 * @info: outcome and DONE_SEQ (TERN_DONE_INFO_*), written last; 0 until
 *	the slot goes DONE after the driver cleared it
 */
struct tern_done_record {
	__le64 run_ns;
	__le32 seqno;
	__le32 info;
};

/**
 * struct tern_engine - register-level view of one engine
 * @tdev: the device
 * @id: engine number
 * @class: TERN_ENG_CLASS_*
 * @regs: the engine's register block
 * @irq: Linux IRQ number of its MSI-X vector
 * @writeback: CPU address of the seqno writeback dword
 * @writeback_dma: its bus address
 * @done: the two done records, when the device has them (version 1.1,
 *	%TERN_CAPS_DONE_RECORDS), else NULL
 * @done_dma: their bus address
 * @irq_fn: handler installed by the scheduler
 * @irq_data: its argument
 * @irq_count: interrupts taken
 * @slot_regs: the values last written to each slot's RW registers, by
 *	offset / 4 (the registers keep them through ACK)
 * @slot_regs_valid: @slot_regs matches the device (false after a reset)
 * @lost: a reset of the engine did not end: it stays RESETTING, where a
 *	register write is a register error, until a device reset; nothing
 *	writes to it any more
 */
struct tern_engine {
	struct tern_device *tdev;
	unsigned int id;
	u32 class;
	void __iomem *regs;
	int irq;
	u32 *writeback;
	dma_addr_t writeback_dma;
	struct tern_done_record *done;
	dma_addr_t done_dma;
	tern_engine_irq_fn irq_fn;
	void *irq_data;
	atomic64_t irq_count;
	u32 slot_regs[TERN_SLOTS_PER_ENGINE][TERN_SLOT_RW_REGS];
	bool slot_regs_valid[TERN_SLOTS_PER_ENGINE];
	bool lost;
};

static inline u32 tern_eng_read(struct tern_engine *eng, u32 reg)
{
	return readl(eng->regs + reg);
}

static inline void tern_eng_write(struct tern_engine *eng, u32 reg, u32 val)
{
	writel(val, eng->regs + reg);
}

static inline u64 tern_eng_read64(struct tern_engine *eng, u32 reg_lo)
{
	u64 lo = readl(eng->regs + reg_lo);

	return lo | (u64)readl(eng->regs + reg_lo + 4) << 32;
}

int tern_engine_init(struct tern_device *tdev, struct tern_engine *eng,
		     unsigned int id);
int tern_engines_request_err_irq(struct tern_device *tdev);
void tern_engines_enable_err_irq(struct tern_device *tdev);
void tern_engines_disable_err_irq(struct tern_device *tdev);
void tern_engine_set_irq_handler(struct tern_engine *eng,
				 tern_engine_irq_fn fn, void *data);
void tern_engine_enable_irqs(struct tern_engine *eng);
void tern_engine_disable_irqs(struct tern_engine *eng);
void tern_engine_program_slot(struct tern_engine *eng, unsigned int slot,
			      const struct tern_slot_desc *desc);
u32 tern_engine_slot_state(struct tern_engine *eng, unsigned int slot);
void tern_engine_slot_result(struct tern_engine *eng, unsigned int slot,
			     u32 state, struct tern_slot_result *res);
void tern_engine_slot_ack(struct tern_engine *eng, unsigned int slot);
bool tern_engine_slot_record(struct tern_engine *eng, unsigned int slot,
			     struct tern_slot_result *res, u32 *done_seq);
u32 tern_engine_slot_done_seq(struct tern_engine *eng, unsigned int slot);
void tern_engine_read_fault(struct tern_engine *eng,
			    struct tern_fault_info *fault);
u32 tern_engine_ack_irqs(struct tern_engine *eng);
void tern_engine_cancel_halted(struct tern_engine *eng);
void tern_engine_clear_fault(struct tern_engine *eng);
u32 tern_engine_progress(struct tern_engine *eng);
int tern_engine_reset(struct tern_engine *eng);
u64 tern_engine_busy_ns(struct tern_engine *eng);
void tern_engine_tlb_invalidate(struct tern_engine *eng);

#endif /* __TERN_ENGINE_H__ */
