// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/iopoll.h>
#include <linux/pci.h>

#include <drm/drm_print.h>

#include "tern_device.h"
#include "tern_engine.h"

/**
 * DOC: engines
 *
 * The engine layer is the register-level view of one engine: programming and
 * acknowledging its two hardware slots, reading the fault registers, the
 * progress counter, the engine reset and the TLB invalidation, and the hard
 * interrupt handler of the engine's MSI-X vector.  It knows nothing about
 * jobs or contexts: the scheduler (tern_sched.c) installs an interrupt callback
 * with tern_engine_set_irq_handler() and decides what goes into the slots.
 *
 * The hard handler reads TERN_ENG_IRQ_STATUS, writes the bits back to
 * acknowledge them and hands them to the callback (the scheduler retires
 * completed slots there, and queues work for everything else).  On a
 * device with done records (docs/hardware.md 7.1) it reads no register:
 * every completion sends a message whatever the status, and the callback
 * finds completed slots in their records.
 */

#define TERN_ENG_RESET_TIMEOUT_US	100000

static_assert(sizeof(struct tern_done_record) == TERN_DONE_RECORD_SIZE);
static_assert(offsetof(struct tern_done_record, run_ns) == TERN_DONE_OFF_RUN_NS);
static_assert(offsetof(struct tern_done_record, seqno) == TERN_DONE_OFF_SEQNO);
static_assert(offsetof(struct tern_done_record, info) == TERN_DONE_OFF_INFO);

static irqreturn_t tern_engine_irq(int irq, void *arg)
{
	struct tern_engine *eng = arg;
	u32 status;

	if (eng->done) {
		atomic64_inc(&eng->irq_count);
		if (eng->irq_fn)
			eng->irq_fn(eng, TERN_ENG_IRQ_UNREAD, eng->irq_data);
		return IRQ_HANDLED;
	}

	status = tern_eng_read(eng, TERN_ENG_IRQ_STATUS);
	if (!status || status == ~0u)
		return IRQ_NONE;

	/* FAULT halts the engine: the scheduler clears it (tern_engine_clear_fault()) */
	tern_eng_write(eng, TERN_ENG_IRQ_STATUS, status & ~TERN_ENG_IRQ_FAULT);
	atomic64_inc(&eng->irq_count);
	if (eng->irq_fn)
		eng->irq_fn(eng, status, eng->irq_data);

	return IRQ_HANDLED;
}

static irqreturn_t tern_engine_err_irq(int irq, void *arg)
{
	struct tern_device *tdev = arg;
	unsigned int i;
	u32 status;

	status = tern_read(tdev, TERN_REG_ERR_IRQ_STATUS);
	if (!status || status == ~0u)
		return IRQ_NONE;
	tern_write(tdev, TERN_REG_ERR_IRQ_STATUS, status);

	if (status & TERN_ERR_IRQ_REG_ERROR)
		dev_err_ratelimited(&tdev->pdev->dev,
				    "register error at offset 0x%x\n",
				    tern_read(tdev, TERN_REG_REG_ERROR_ADDR));

	for (i = 0; i < tdev->engine_count; i++) {
		struct tern_engine *eng = &tdev->engines[i];
		u32 eng_status;

		if (!(status & TERN_ERR_IRQ_ENGINE(i)))
			continue;
		/*
		 * A fault sets FAULT | SLOT_DONE in the engine's status
		 * without a message on its vector, and halts the engine until
		 * FAULT is cleared: the scheduler clears them once it has
		 * retired the fault (tern_engine_clear_fault()).
		 */
		eng_status = tern_eng_read(eng, TERN_ENG_IRQ_STATUS);
		atomic64_inc(&eng->irq_count);
		if (eng->irq_fn)
			eng->irq_fn(eng, eng_status | TERN_ENG_IRQ_FAULT,
				    eng->irq_data);
	}

	return IRQ_HANDLED;
}

/**
 * tern_engines_request_err_irq() - take the error vector
 * @tdev: the device, with its engines initialised
 *
 * The error vector reports engine faults (handed to the engine's callback
 * with %TERN_ENG_IRQ_FAULT) and register errors (logged).  Its interrupts
 * stay masked until tern_engines_enable_err_irq().
 *
 * Return: 0 or a negative errno.
 */
int tern_engines_request_err_irq(struct tern_device *tdev)
{
	return devm_request_irq(&tdev->pdev->dev, tdev->err_irq,
				tern_engine_err_irq, 0, dev_name(&tdev->pdev->dev),
				tdev);
}

/**
 * tern_engines_enable_err_irq() - unmask the error interrupts
 * @tdev: the device
 */
void tern_engines_enable_err_irq(struct tern_device *tdev)
{
	tern_write(tdev, TERN_REG_ERR_IRQ_MASK, 0);
}

/**
 * tern_engines_disable_err_irq() - mask the error interrupts and wait for
 *	a handler still running
 * @tdev: the device
 */
void tern_engines_disable_err_irq(struct tern_device *tdev)
{
	tern_write(tdev, TERN_REG_ERR_IRQ_MASK, ~0u);
	synchronize_irq(tdev->err_irq);
}

/**
 * tern_engine_init() - discover an engine and take its interrupt
 * @tdev: the device, with MSI-X vectors allocated
 * @eng: the engine to set up
 * @id: its number
 *
 * Allocates the seqno writeback dword and, on a device that has them, the
 * done records, points the engine at them, leaves the engine's interrupts
 * masked and requests its MSI-X vector.  Everything is device-managed.
 *
 * Return: 0 or a negative errno.
 */
int tern_engine_init(struct tern_device *tdev, struct tern_engine *eng,
		     unsigned int id)
{
	struct device *dev = &tdev->pdev->dev;
	int ret;

	eng->tdev = tdev;
	eng->id = id;
	eng->regs = tdev->regs + TERN_ENGINE_BASE(id);
	eng->class = TERN_ENG_CLASS(tern_eng_read(eng, TERN_ENG_CAPS));
	atomic64_set(&eng->irq_count, 0);

	eng->writeback = dmam_alloc_coherent(dev, sizeof(u32),
					     &eng->writeback_dma, GFP_KERNEL);
	if (!eng->writeback)
		return -ENOMEM;

	tern_engine_disable_irqs(eng);
	tern_eng_write(eng, TERN_ENG_IRQ_STATUS, ~0u);
	tern_eng_write(eng, TERN_ENG_WRITEBACK_LO, lower_32_bits(eng->writeback_dma));
	tern_eng_write(eng, TERN_ENG_WRITEBACK_HI, upper_32_bits(eng->writeback_dma));
	if (tdev->caps & TERN_CAPS_DONE_RECORDS) {
		/* zeroed: no slot has gone DONE */
		eng->done = dmam_alloc_coherent(dev, TERN_SLOTS_PER_ENGINE *
						sizeof(*eng->done),
						&eng->done_dma, GFP_KERNEL);
		if (!eng->done)
			return -ENOMEM;
		tern_eng_write(eng, TERN_ENG_DONE_RECORD_LO,
			       lower_32_bits(eng->done_dma));
		tern_eng_write(eng, TERN_ENG_DONE_RECORD_HI,
			       upper_32_bits(eng->done_dma));
	}

	ret = pci_irq_vector(tdev->pdev, id);
	if (ret < 0)
		return ret;
	eng->irq = ret;

	return devm_request_irq(dev, eng->irq, tern_engine_irq, 0,
				dev_name(dev), eng);
}

/**
 * tern_engine_set_irq_handler() - install the scheduler's interrupt callback
 * @eng: the engine
 * @fn: the callback, run in hard-IRQ context
 * @data: its argument
 *
 * Must be called while the engine's interrupts are masked.
 */
void tern_engine_set_irq_handler(struct tern_engine *eng,
				 tern_engine_irq_fn fn, void *data)
{
	eng->irq_data = data;
	WRITE_ONCE(eng->irq_fn, fn);
}

/**
 * tern_engine_enable_irqs() - unmask slot-done, preempt-done and fault
 * @eng: the engine
 */
void tern_engine_enable_irqs(struct tern_engine *eng)
{
	tern_eng_write(eng, TERN_ENG_IRQ_MASK, 0);
}

/**
 * tern_engine_disable_irqs() - mask all interrupts of the engine
 * @eng: the engine
 */
void tern_engine_disable_irqs(struct tern_engine *eng)
{
	if (!READ_ONCE(eng->lost))
		tern_eng_write(eng, TERN_ENG_IRQ_MASK, ~0u);
}

/**
 * tern_engine_program_slot() - fill a FREE slot and ring the doorbell
 * @eng: the engine
 * @slot: 0 or 1, currently FREE
 * @desc: what to run
 *
 * Writes only the registers whose value differs from what the slot holds
 * (each MMIO write is an exit to the device model or a bus transaction;
 * the registers keep their values through ACK, docs/hardware.md 5).  The
 * device starts slots in doorbell order, so the caller rings them in the
 * order it wants them to run.  Callers serialise per engine.
 */
void tern_engine_program_slot(struct tern_engine *eng, unsigned int slot,
			      const struct tern_slot_desc *desc)
{
	void __iomem *s = eng->regs + TERN_SLOT_BASE(slot);
	u32 *cur = eng->slot_regs[slot];
	const u32 val[TERN_SLOT_RW_REGS] = {
		[TERN_SLOT_BUF_LO / 4] = lower_32_bits(desc->buf),
		[TERN_SLOT_BUF_HI / 4] = upper_32_bits(desc->buf),
		[TERN_SLOT_BUF_SIZE / 4] = desc->buf_size,
		[TERN_SLOT_ROOT_LO / 4] = lower_32_bits(desc->root),
		[TERN_SLOT_ROOT_HI / 4] = upper_32_bits(desc->root),
		[TERN_SLOT_CTX_TAG / 4] = desc->ctx_tag,
		[TERN_SLOT_SEQNO / 4] = desc->seqno,
		[TERN_SLOT_FLAGS / 4] = desc->flags,
		[TERN_SLOT_RESUME_LO / 4] = lower_32_bits(desc->resume),
		[TERN_SLOT_RESUME_HI / 4] = upper_32_bits(desc->resume),
	};
	bool all = !eng->slot_regs_valid[slot];
	unsigned int i;

	/* told from the last DONE; writel() orders it before the doorbell */
	if (eng->done)
		WRITE_ONCE(eng->done[slot].info, 0);
	for (i = 0; i < TERN_SLOT_RW_REGS; i++) {
		if (all || cur[i] != val[i]) {
			writel(val[i], s + i * 4);
			cur[i] = val[i];
		}
	}
	eng->slot_regs_valid[slot] = true;
	tern_eng_write(eng, TERN_ENG_DOORBELL, slot);
}

/**
 * tern_engine_slot_state() - read a slot's TERN_SLOT_STATE register
 * @eng: the engine
 * @slot: 0 or 1
 *
 * Return: the raw register: TERN_SLOT_STATE_OF() and TERN_SLOT_OUTCOME_OF()
 * decode it.
 */
u32 tern_engine_slot_state(struct tern_engine *eng, unsigned int slot)
{
	return tern_eng_read(eng, TERN_SLOT_BASE(slot) + TERN_SLOT_STATE);
}

/**
 * tern_engine_slot_result() - read the outcome of a DONE slot
 * @eng: the engine
 * @slot: 0 or 1, in state DONE
 * @state: its TERN_SLOT_STATE register, as tern_engine_slot_state() read it
 * @res: filled in
 */
void tern_engine_slot_result(struct tern_engine *eng, unsigned int slot,
			     u32 state, struct tern_slot_result *res)
{
	u32 base = TERN_SLOT_BASE(slot);

	res->outcome = TERN_SLOT_OUTCOME_OF(state);
	res->run_ns = tern_read_counter64(eng->tdev, TERN_ENGINE_BASE(eng->id) +
					  base + TERN_SLOT_RUN_NS_LO);
}

/**
 * tern_engine_slot_record() - read a slot's done record
 * @eng: the engine, with done records (&tern_engine.done)
 * @slot: 0 or 1
 * @res: filled in when the record holds a DONE
 * @done_seq: filled in with the low 24 bits of the DONE's DONE_SEQ
 *
 * Reads memory only.  A record shows the last DONE of the slot since
 * tern_engine_program_slot() cleared it, or, written late, the DONE before
 * that (docs/hardware.md 7.1): @done_seq tells them apart.
 *
 * Return: true if the record holds a DONE.
 */
bool tern_engine_slot_record(struct tern_engine *eng, unsigned int slot,
			     struct tern_slot_result *res, u32 *done_seq)
{
	const struct tern_done_record *rec = &eng->done[slot];
	u32 info = le32_to_cpu(READ_ONCE(rec->info));

	if (!TERN_DONE_INFO_OUTCOME(info))
		return false;
	/* the rest of the record was written before INFO */
	dma_rmb();
	res->outcome = TERN_DONE_INFO_OUTCOME(info);
	res->run_ns = le64_to_cpu(READ_ONCE(rec->run_ns));
	res->seqno = le32_to_cpu(READ_ONCE(rec->seqno));
	*done_seq = TERN_DONE_INFO_SEQ(info);
	return true;
}

/**
 * tern_engine_slot_done_seq() - read a DONE slot's DONE_SEQ register
 * @eng: the engine
 * @slot: 0 or 1, in state DONE
 *
 * Return: the low 24 bits, as a done record has them.
 */
u32 tern_engine_slot_done_seq(struct tern_engine *eng, unsigned int slot)
{
	return tern_eng_read(eng, TERN_SLOT_BASE(slot) + TERN_SLOT_DONE_SEQ) &
	       TERN_DONE_SEQ_MASK;
}

/**
 * tern_engine_slot_ack() - return a DONE slot to FREE
 * @eng: the engine
 * @slot: 0 or 1
 */
void tern_engine_slot_ack(struct tern_engine *eng, unsigned int slot)
{
	tern_eng_write(eng, TERN_SLOT_BASE(slot) + TERN_SLOT_ACK, 1);
}

/**
 * tern_engine_read_fault() - read the latched fault registers
 * @eng: the engine
 * @fault: filled in
 */
void tern_engine_read_fault(struct tern_engine *eng,
			    struct tern_fault_info *fault)
{
	fault->addr = tern_eng_read64(eng, TERN_ENG_FAULT_ADDR_LO);
	fault->info = tern_eng_read(eng, TERN_ENG_FAULT_INFO);
	fault->ctx_tag = tern_eng_read(eng, TERN_ENG_FAULT_CTX_TAG);
}

/**
 * tern_engine_ack_irqs() - acknowledge the engine's interrupt status
 * @eng: the engine
 *
 * For a driver that found work done without an interrupt: a message the
 * engine did not send (lost, or dropped by fault injection) leaves its
 * status bits set, and a bit that stays set sends no message when its
 * event happens again.  Clearing them lets the next event interrupt.
 *
 * Return: the TERN_ENG_IRQ_* bits that were set.
 */
u32 tern_engine_ack_irqs(struct tern_engine *eng)
{
	u32 status = tern_eng_read(eng, TERN_ENG_IRQ_STATUS);

	if (status == ~0u)
		return 0;
	/* not FAULT: it halts the engine until the fault is retired */
	if (status & ~TERN_ENG_IRQ_FAULT)
		tern_eng_write(eng, TERN_ENG_IRQ_STATUS,
			       status & ~TERN_ENG_IRQ_FAULT);
	return status;
}

/**
 * tern_engine_cancel_halted() - cancel the slot queued on a halted engine
 * @eng: the engine, halted by a fault (ENG_IRQ_STATUS.FAULT set)
 *
 * A slot rung after the fault, before the driver saw it, is PENDING and
 * must not run: the preemption request a halted engine serves before the
 * write completes makes it DONE/CANCELLED (docs/hardware.md 10).
 */
void tern_engine_cancel_halted(struct tern_engine *eng)
{
	tern_eng_write(eng, TERN_ENG_PREEMPT, 1);
}

/**
 * tern_engine_clear_fault() - end the halt that a fault started
 * @eng: the engine, its faulted slot retired
 *
 * Clears the status bits the fault (and a preemption it served) left, so
 * that the engine starts work again and the next events interrupt.
 */
void tern_engine_clear_fault(struct tern_engine *eng)
{
	tern_eng_write(eng, TERN_ENG_IRQ_STATUS, TERN_ENG_IRQ_FAULT |
		       TERN_ENG_IRQ_SLOT_DONE | TERN_ENG_IRQ_PREEMPT_DONE);
}

/**
 * tern_engine_progress() - read the engine's progress counter
 * @eng: the engine
 *
 * Return: TERN_ENG_PROGRESS, which grows while work advances.
 */
u32 tern_engine_progress(struct tern_engine *eng)
{
	return tern_eng_read(eng, TERN_ENG_PROGRESS);
}

/**
 * tern_engine_reset() - reset one engine
 * @eng: the engine
 *
 * Abandons whatever the slots hold (they return to FREE with outcome NONE,
 * no writeback, no message) and waits until the engine is IDLE again.  The
 * interrupt mask, writeback address and progress counter survive the reset.
 *
 * Return: 0, or -ETIMEDOUT if the engine did not come back.
 */
int tern_engine_reset(struct tern_engine *eng)
{
	u32 status;
	int ret;

	/* the slots' registers read zero after the reset */
	memset(eng->slot_regs_valid, 0, sizeof(eng->slot_regs_valid));
	tern_eng_write(eng, TERN_ENG_RESET, 1);
	ret = readl_poll_timeout(eng->regs + TERN_ENG_STATUS, status,
				 TERN_ENG_STATE(status) == TERN_ENG_STATE_IDLE,
				 10, TERN_ENG_RESET_TIMEOUT_US);
	if (ret) {
		drm_err(&eng->tdev->drm, "engine %u did not come back from reset\n",
			eng->id);
		WRITE_ONCE(eng->lost, true);
	}
	return ret;
}

/**
 * tern_engine_busy_ns() - device time the engine spent running slots
 * @eng: the engine
 *
 * Return: TERN_ENG_BUSY_NS.
 */
u64 tern_engine_busy_ns(struct tern_engine *eng)
{
	return tern_read_counter64(eng->tdev, TERN_ENGINE_BASE(eng->id) +
				   TERN_ENG_BUSY_NS_LO);
}

/**
 * tern_engine_tlb_invalidate() - drop every cached translation of an engine
 * @eng: the engine
 */
void tern_engine_tlb_invalidate(struct tern_engine *eng)
{
	/* a lost engine runs nothing: its TLB is flushed by the next reset */
	if (!READ_ONCE(eng->lost))
		tern_eng_write(eng, TERN_ENG_TLB_INVALIDATE, 1);
}
