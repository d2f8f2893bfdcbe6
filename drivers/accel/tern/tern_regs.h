/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 *
 * tern_regs.h - the tern accelerator's register map.
 *
 * This is the one definition of the hardware interface shared by the driver
 * and the QEMU device model (which includes this file unchanged), so it uses
 * plain C constants and no kernel-only macros.  docs/hardware.md is the prose
 * specification of every register, field and protocol listed here.
 *
 * All registers live in BAR0, are 32 bits wide and must be accessed with
 * naturally aligned 32-bit loads and stores.  64-bit quantities are split into
 * a _LO register and a _HI register at _LO + 4; reading a _LO register of a
 * counter latches its _HI half.
 */
#ifndef TERN_REGS_H
#define TERN_REGS_H

/*
 * BIT() and BIT_ULL() come from <linux/bits.h> in the kernel and from
 * "qemu/bitops.h" in QEMU; the fallback has the same definition as both.
 */
#ifdef __KERNEL__
#include <linux/bits.h>
#else
#ifndef BIT
#define BIT(nr)		(1UL << (nr))
#endif
#ifndef BIT_ULL
#define BIT_ULL(nr)	(1ULL << (nr))
#endif
#endif

/* PCI identity */
#define TERN_PCI_VENDOR_ID		0x1234
#define TERN_PCI_DEVICE_ID		0x7e70
#define TERN_PCI_CLASS			0x1200	/* processing accelerator */
#define TERN_PCI_REVISION		0x01

#define TERN_BAR_REGS			0	/* 64 KiB of registers */
#define TERN_BAR_LOCAL_MEM		2	/* device-local memory, 64-bit prefetchable */
#define TERN_BAR_MSIX			4	/* MSI-X table and PBA */
#define TERN_REGS_SIZE			0x10000

#define TERN_MAX_ENGINES		8	/* compute engines + the copy engine */
#define TERN_SLOTS_PER_ENGINE		2
/* MSI-X vector e belongs to engine e; vector ENGINE_COUNT is the error vector. */

/* ---- Global registers --------------------------------------------------- */
#define TERN_REG_ID			0x0000	/* RO: TERN_ID_MAGIC */
#define   TERN_ID_MAGIC			0x5445524e	/* "TERN" */
#define TERN_REG_VERSION		0x0004	/* RO: major << 16 | minor */
#define   TERN_VERSION_MAJOR(v)		(((v) >> 16) & 0xffff)
#define   TERN_VERSION_MINOR(v)		((v) & 0xffff)
#define   TERN_HW_VERSION		0x00010001	/* 1.1 */
#define   TERN_HW_VERSION_1_0		0x00010000	/* no done records */
#define TERN_REG_CAPS			0x0008	/* RO */
#define   TERN_CAPS_SINGLE_USE		BIT(0)	/* one address space only */
#define   TERN_CAPS_FAULT_INJECT	BIT(1)	/* debug block present */
#define   TERN_CAPS_DONE_RECORDS	BIT(2)	/* ENG_DONE_RECORD, since 1.1 */
#define TERN_REG_ENGINES		0x000c	/* RO */
#define   TERN_ENGINES_TOTAL(v)		((v) & 0xff)
#define   TERN_ENGINES_COMPUTE(v)	(((v) >> 8) & 0xff)
/* the copy engine is engine number TERN_ENGINES_COMPUTE() (the last one) */
#define TERN_REG_LOCAL_MEM_SIZE_LO	0x0010	/* RO: bytes of device-local memory */
#define TERN_REG_LOCAL_MEM_SIZE_HI	0x0014
#define TERN_REG_CLOCK_LO		0x0018	/* RO: device clock, ns since reset */
#define TERN_REG_CLOCK_HI		0x001c
#define TERN_REG_RESET			0x0020	/* WO: write TERN_RESET_MAGIC */
#define   TERN_RESET_MAGIC		0x52535421	/* "RST!" */
#define TERN_REG_STATUS			0x0024	/* RO */
#define   TERN_STATUS_READY		BIT(0)
#define TERN_REG_BUF_SIZE_MAX		0x0028	/* RO: largest DMA buffer, bytes */
#define TERN_REG_TLB_ENTRIES		0x002c	/* RO: TLB entries per engine */
#define TERN_REG_SCRATCH		0x0030	/* RW: no effect */
#define TERN_REG_ERR_IRQ_STATUS		0x0040	/* RW1C */
#define   TERN_ERR_IRQ_ENGINE(e)	BIT(e)	/* engine e faulted */
#define   TERN_ERR_IRQ_REG_ERROR	BIT(31)	/* bad register access */
#define TERN_REG_ERR_IRQ_MASK		0x0044	/* RW: 1 = masked; reset all 1s */
#define TERN_REG_REG_ERROR_ADDR		0x0048	/* RO: offset of last bad access */
#define TERN_REG_SINGLE_ROOT_LO		0x0050	/* RW: the address space (single-use) */
#define TERN_REG_SINGLE_ROOT_HI		0x0054

/* ---- Fault injection (debug) block, present if TERN_CAPS_FAULT_INJECT ---- */
#define TERN_REG_INJECT			0x0f00	/* WO */
#define   TERN_INJECT_ENGINE(e)		((e) & 0xff)
#define   TERN_INJECT_OP(op)		(((op) & 0xff) << 8)
#define   TERN_INJECT_NONE		0	/* clear injections on the engine */
#define   TERN_INJECT_HANG		1	/* stop making progress until reset */
#define   TERN_INJECT_DROP_IRQ		2	/* lose the next MSI-X message */
#define   TERN_INJECT_FAULT		3	/* fault the running/next buffer */
#define   TERN_INJECT_RESET_STUCK	4	/* the next engine reset never ends */
#define TERN_REG_INJECT_STATUS		0x0f04	/* RO: bit e: injection armed on e */

/* ---- Engine registers: block of 0x100 bytes per engine ------------------ */
#define TERN_ENGINE_BASE(e)		(0x1000 + (e) * 0x100)
#define TERN_ENG_CAPS			0x00	/* RO */
#define   TERN_ENG_CLASS(v)		((v) & 0xff)
#define   TERN_ENG_CLASS_COMPUTE	0
#define   TERN_ENG_CLASS_COPY		1
#define TERN_ENG_STATUS			0x04	/* RO */
#define   TERN_ENG_STATE(v)		((v) & 0xf)
#define   TERN_ENG_STATE_IDLE		0
#define   TERN_ENG_STATE_RUNNING	1
#define   TERN_ENG_STATE_PREEMPTING	2
#define   TERN_ENG_STATE_RESETTING	3
#define   TERN_ENG_STATUS_RUN_SLOT(v)	(((v) >> 4) & 0x1)	/* valid if RUNNING */
#define TERN_ENG_DOORBELL		0x08	/* WO: slot number to start */
#define TERN_ENG_PREEMPT		0x0c	/* WO: write 1 */
#define TERN_ENG_RESET			0x10	/* WO: write 1 */
#define TERN_ENG_TLB_INVALIDATE		0x14	/* WO: write 1 */
#define TERN_ENG_IRQ_STATUS		0x18	/* RW1C */
#define   TERN_ENG_IRQ_SLOT_DONE	BIT(0)
#define   TERN_ENG_IRQ_PREEMPT_DONE	BIT(1)
#define   TERN_ENG_IRQ_FAULT		BIT(2)
#define TERN_ENG_IRQ_MASK		0x1c	/* RW: 1 = masked; reset all 1s */
#define TERN_ENG_WRITEBACK_LO		0x20	/* RW: bus address of the seqno writeback */
#define TERN_ENG_WRITEBACK_HI		0x24
#define TERN_ENG_PROGRESS		0x28	/* RO: grows while work advances */
#define TERN_ENG_CUR_OFFSET		0x2c	/* RO: offset of the current packet */
#define TERN_ENG_BUSY_NS_LO		0x30	/* RO: device time spent executing */
#define TERN_ENG_BUSY_NS_HI		0x34
#define TERN_ENG_FAULT_ADDR_LO		0x38	/* RO: faulting VA (or offset) */
#define TERN_ENG_FAULT_ADDR_HI		0x3c
#define TERN_ENG_FAULT_INFO		0x40	/* RO */
#define   TERN_FAULT_KIND(v)		((v) & 0xff)
#define   TERN_FAULT_SLOT(v)		(((v) >> 8) & 0x1)
#define   TERN_FAULT_WRITE		BIT(9)	/* the access was a write */
#define   TERN_FAULT_OFFSET(v)		((v) >> 12)	/* dword index of the packet */
#define TERN_ENG_FAULT_CTX_TAG		0x44	/* RO: context tag of the faulting slot */
#define TERN_ENG_TLB_MISSES		0x48	/* RO: page walks since reset */
#define TERN_ENG_DONE_RECORD_LO		0x4c	/* RW: bus address of the done records */
#define TERN_ENG_DONE_RECORD_HI		0x50

/* ---- Done records (docs/hardware.md 7.1): 16 bytes per slot, in memory ---- */
#define TERN_DONE_RECORD_SIZE		16
#define TERN_DONE_RECORD_ALIGN		16
#define TERN_DONE_OFF_RUN_NS		0x0	/* u64 */
#define TERN_DONE_OFF_SEQNO		0x8	/* u32 */
#define TERN_DONE_OFF_INFO		0xc	/* u32, written last */
#define   TERN_DONE_INFO_OUTCOME(v)	((v) & 0xf)	/* TERN_OUTCOME_*, 0: not DONE */
#define   TERN_DONE_INFO_SEQ_SHIFT	8
#define   TERN_DONE_INFO_SEQ(v)		((v) >> 8)	/* DONE_SEQ, low 24 bits */
#define   TERN_DONE_SEQ_MASK		0xffffff

/* fault kinds (TERN_FAULT_KIND) */
#define TERN_FAULT_NONE			0
#define TERN_FAULT_NOT_PRESENT		1	/* VA not mapped */
#define TERN_FAULT_WRITE_PROTECT	2	/* write to a read-only page */
#define TERN_FAULT_BAD_OPCODE		3
#define TERN_FAULT_BAD_LENGTH		4	/* length wrong for opcode / past end */
#define TERN_FAULT_PRIVILEGED		5	/* privileged packet, unprivileged slot */
#define TERN_FAULT_BAD_OPERAND		6	/* misaligned or out-of-range operand */
#define TERN_FAULT_WAIT_TIMEOUT		7	/* WAIT_MEM timed out */
#define TERN_FAULT_BAD_RESUME		8	/* resume record invalid */
#define TERN_FAULT_PAGE_TABLE		9	/* table address outside memory */
#define TERN_FAULT_BUS_ERROR		10	/* DMA to buffer/record failed */
#define TERN_FAULT_INJECTED		11	/* TERN_INJECT_FAULT */

/* ---- Slot registers: two per engine, 0x40 bytes each -------------------- */
#define TERN_SLOT_BASE(s)		(0x80 + (s) * 0x40)	/* inside the engine block */
#define TERN_SLOT_BUF_LO		0x00	/* RW: bus address of the DMA buffer */
#define TERN_SLOT_BUF_HI		0x04
#define TERN_SLOT_BUF_SIZE		0x08	/* RW: bytes, multiple of 4 */
#define TERN_SLOT_ROOT_LO		0x0c	/* RW: page-table root | TERN_PTE_LOCAL */
#define TERN_SLOT_ROOT_HI		0x10
#define TERN_SLOT_CTX_TAG		0x14	/* RW: opaque, reported in faults */
#define TERN_SLOT_SEQNO			0x18	/* RW: written back on completion */
#define TERN_SLOT_FLAGS			0x1c	/* RW */
#define   TERN_SLOT_FLAG_PRIVILEGED	BIT(0)
#define   TERN_SLOT_FLAG_RESUME		BIT(1)
#define TERN_SLOT_RESUME_LO		0x20	/* RW: bus address of the resume record */
#define TERN_SLOT_RESUME_HI		0x24
#define TERN_SLOT_RW_REGS		(TERN_SLOT_RESUME_HI / 4 + 1)
#define TERN_SLOT_STATE			0x28	/* RO */
#define   TERN_SLOT_STATE_FREE		0
#define   TERN_SLOT_STATE_PENDING	1	/* doorbell rung, not started */
#define   TERN_SLOT_STATE_RUNNING	2
#define   TERN_SLOT_STATE_DONE		3	/* outcome valid until ACK */
#define   TERN_SLOT_STATE_OF(v)		((v) & 0xf)
#define   TERN_SLOT_OUTCOME_OF(v)	(((v) >> 4) & 0xf)
#define TERN_SLOT_ACK			0x2c	/* WO: write 1: DONE -> FREE */
#define TERN_SLOT_RUN_NS_LO		0x30	/* RO: device time this run took */
#define TERN_SLOT_RUN_NS_HI		0x34
#define TERN_SLOT_DONE_SEQ		0x38	/* RO: engine-wide order of DONE */

/* slot outcomes (TERN_SLOT_OUTCOME_OF) */
#define TERN_OUTCOME_NONE		0
#define TERN_OUTCOME_COMPLETED		1
#define TERN_OUTCOME_PREEMPTED		2
#define TERN_OUTCOME_CANCELLED		3
#define TERN_OUTCOME_FAULTED		4

/* ---- Resume record: 64 bytes in memory at the slot's RESUME address ----- */
#define TERN_RESUME_MAGIC		0x4d535254	/* "TRSM" */
#define TERN_RESUME_RECORD_SIZE		64
/* little-endian layout, byte offsets */
#define TERN_RESUME_OFF_MAGIC		0	/* u32 */
#define TERN_RESUME_OFF_SEQNO		4	/* u32: the slot's seqno */
#define TERN_RESUME_OFF_OFFSET		8	/* u32: byte offset of the packet */
#define TERN_RESUME_OFF_PROGRESS	12	/* u32: progress inside the packet */
#define TERN_RESUME_OFF_ACC		16	/* u64: packet state (e.g. reduction) */
#define TERN_RESUME_OFF_ELAPSED_NS	24	/* u64: device time run so far */

/* ---- Page tables --------------------------------------------------------- */
/*
 * Four levels of 512 64-bit entries (4 KiB per table), 48-bit virtual
 * addresses, 4 KiB pages.  Level 3 (the root) is indexed by VA[47:39],
 * level 2 by VA[38:30], level 1 by VA[29:21], level 0 by VA[20:12].
 */
#define TERN_VA_BITS			48
#define TERN_PAGE_SHIFT			12
#define TERN_PAGE_SIZE			BIT_ULL(TERN_PAGE_SHIFT)
#define TERN_PT_LEVELS			4
#define TERN_PT_ENTRIES			512
#define TERN_PT_SHIFT(level)		(TERN_PAGE_SHIFT + 9 * (level))
#define TERN_PT_INDEX(va, level)	(((va) >> TERN_PT_SHIFT(level)) & 0x1ff)
#define TERN_PTE_VALID			BIT_ULL(0)
#define TERN_PTE_WRITABLE		BIT_ULL(1)	/* leaf entries only */
#define TERN_PTE_LOCAL			BIT_ULL(2)	/* address is in local memory */
#define TERN_PTE_ADDR_MASK		0x000ffffffffff000ull	/* bits 51:12 */

#endif /* TERN_REGS_H */
