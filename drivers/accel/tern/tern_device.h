/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_DEVICE_H__
#define __TERN_DEVICE_H__

#include <linux/bits.h>
#include <linux/io.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <drm/drm_device.h>
#include <drm/ttm/ttm_device.h>
#include <drm/ttm/ttm_resource.h>

#include "tern_engine.h"
#include "tern_local_mgr.h"
#include "tern_paging.h"
#include "tern_bind.h"
#include "tern_sched.h"
#include "tern_regs.h"

/* limits the driver enforces (reported by DRM_IOCTL_TERN_GET_INFO) */
#define TERN_MAX_CONTEXTS_PER_FILE	64
#define TERN_MAX_JOBS_PER_CONTEXT	256
#define TERN_MAX_BOS_PER_SUBMIT		256
#define TERN_MAX_SYNCS_PER_SUBMIT	64
#define TERN_DEFAULT_TIMEOUT_MS		2000
#define TERN_MAX_TIMEOUT_MS		60000
#define TERN_MAX_BO_SIZE		BIT_ULL(32)
#define TERN_MAX_QUEUED_BYTES_PER_FILE	(64ull << 20)
#define TERN_MAX_HELD_BYTES_PER_FILE	(2 * TERN_MAX_QUEUED_BYTES_PER_FILE)
#define TERN_RELEASE_DELAY_MAX_US	1000000
/*
 * Smallest BUF_SIZE_MAX the driver works with: its page-table updates run
 * in pieces of whole PHYS_COPY packets, two at least (tern_bind.c).
 */
#define TERN_BUF_SIZE_MAX_MIN		64
/* block of &tern_device.cmd_pool: a command copy and its resume record */
#define TERN_CMD_POOL_BLOCK		PAGE_SIZE

/**
 * struct tern_device - one tern PCI device
 * @drm: the DRM device, embedded (devm-managed)
 * @pdev: the PCI device
 * @regs: BAR0, the register block
 * @hw_version: TERN_REG_VERSION
 * @caps: TERN_REG_CAPS
 * @buf_size_max: TERN_REG_BUF_SIZE_MAX, bytes
 * @tlb_entries: TERN_REG_TLB_ENTRIES
 * @engine_count: number of engines
 * @compute_count: number of compute engines (the copy engine follows them)
 * @local_mem_size: bytes of device-local memory (BAR2)
 * @irq_count: MSI-X vectors allocated (engine_count + 1)
 * @err_irq: Linux IRQ number of the error vector
 * @wq: the driver's workqueue: interrupt bottom halves and watchdogs (the
 *	scheduler thread; it signals fences and must not allocate memory)
 * @dump_wq: formats devcoredumps
 * @sched_wq: ordered workqueue shared by the engines' drm_sched instances
 * @engines: the engines
 * @sched: the scheduler of each engine
 * @contexts: every context of the device, for debugfs
 * @contexts_lock: protects @contexts, and makes placing a new context on
 *	the engine with the fewest contexts one step
 * @next_ctx_tag: last context tag handed out
 * @latch_lock: serialises reads of latching 64-bit counters (CLOCK,
 *	BUSY_NS, RUN_NS), which share one latch in the device
 * @free_jobs: finished jobs that did not go through drm_sched, to release
 *	by the next submission (tern_job_reap())
 * @free_work: releases @free_jobs when no submission came within
 *	TERN_JOB_FREE_DELAY (tern_job_free_work())
 * @jobs_reaped: jobs released by a submission, for debugfs
 * @jobs_freed_by_work: jobs released by @free_work, for debugfs
 * @free_work_runs: times @free_work ran, for debugfs
 * @cmd_pool: blocks of TERN_CMD_POOL_BLOCK coherent bytes for the command
 *	copies (and resume records) of jobs that fit, instead of a
 *	dma_alloc_coherent() each; destroyed at PCI remove once no job is
 *	left, else with the DRM device, which every job holds
 * @release_delay_us: debugfs knob: @free_work first sleeps this long (at
 *	most TERN_RELEASE_DELAY_MAX_US), widening for tests the window
 *	between a job's fence and its release
 * @live_jobs: jobs submitted and not yet freed
 * @releasing_contexts: contexts whose last reference went with a job, being
 *	freed from a work item
 * @jobs_idle: woken when @live_jobs or @releasing_contexts drops to zero
 * @reset_lock: serialises engine resets against each other
 * @device_resets: count of engine resets, for debugfs
 * @sched_params_lock: serialises changes of the schedulers' tunables
 * @raw_nop: state of the debugfs raw_nop file (tern_debugfs.c)
 * @bo_bytes: size of the BOs created on the device and not yet freed
 *	(sysfs tern_memory_utilization)
 * @system_bytes: bytes of system pages allocated for the device's BOs
 *	(tern_ttm.c; debugfs memory)
 * @bos: BOs of the device not yet destroyed, imported and kernel-owned
 *	ones included (debugfs memory)
 * @ttm: the memory manager's device (tern_ttm.c)
 * @tt_mgr: TTM's manager of %TTM_PL_TT, system memory the device reaches
 * @tt_dma: the pages of BOs mapped for DMA by the device (tern_ttm.c)
 * @tt_dma_list_lock: protects the links of @tt_dma
 * @tt_dma_sem: held for reading while a BO's pages are mapped or unmapped
 *	(inside the BO's reservation, which orders those of one BO), for
 *	writing while PCI remove unmaps them all and sets @tt_dma_gone
 * @tt_dma_gone: the device was removed: nothing is mapped for it any more
 * @paging: the paging buffers (tern_paging.c)
 * @local_mgr: the manager of local memory (tern_local_mgr.c)
 * @bind: the queue of page-table updates (tern_bind.c)
 * @paging_queue: the queue of paging buffers (tern_bind.c, tern_paging.c)
 * @movers: validations whose moves are counted for somebody
 *	(&tern_ttm_mover.link)
 * @movers_lock: protects @movers
 * @residency_lock: serialises the validations that move LOCAL BOs into
 *	local memory (tern_residency.c): one at a time takes local memory,
 *	so that two jobs cannot evict each other's BOs in turn forever
 */
struct tern_device {
	struct drm_device drm;
	struct pci_dev *pdev;
	void __iomem *regs;

	u32 hw_version;
	u32 caps;
	u32 buf_size_max;
	u32 tlb_entries;
	unsigned int engine_count;
	unsigned int compute_count;
	u64 local_mem_size;

	unsigned int irq_count;
	int err_irq;

	struct workqueue_struct *wq;
	struct workqueue_struct *dump_wq;
	struct workqueue_struct *sched_wq;

	struct tern_engine engines[TERN_MAX_ENGINES];
	struct tern_sched sched[TERN_MAX_ENGINES];

	struct list_head contexts;
	struct mutex contexts_lock; /* see above */
	atomic_t next_ctx_tag;

	spinlock_t latch_lock; /* see tern_read_counter64() */
	struct llist_head free_jobs;
	struct delayed_work free_work;
	atomic64_t jobs_reaped;
	atomic64_t jobs_freed_by_work;
	atomic64_t free_work_runs;
	struct dma_pool *cmd_pool;
	u32 release_delay_us;
	atomic_t live_jobs;
	atomic_t releasing_contexts;
	wait_queue_head_t jobs_idle;
	struct mutex reset_lock; /* serialises engine resets */
	atomic_t device_resets;
	struct mutex sched_params_lock; /* see above */
	struct tern_raw_nop *raw_nop;
	atomic64_t bo_bytes;
	atomic64_t system_bytes;
	atomic_t bos;
	struct ttm_device ttm;
	struct ttm_resource_manager tt_mgr;
	struct list_head tt_dma;
	spinlock_t tt_dma_list_lock; /* see above */
	struct rw_semaphore tt_dma_sem;
	bool tt_dma_gone;
	struct tern_paging paging;
	struct tern_local_mgr local_mgr;
	struct tern_bind_queue bind;
	struct tern_bind_queue paging_queue;
	struct list_head movers;
	spinlock_t movers_lock; /* protects @movers */
	struct mutex residency_lock; /* see above */
};

struct tern_raw_nop;

#define to_tern_device(dev)	container_of_const(dev, struct tern_device, drm)

static inline u32 tern_read(struct tern_device *tdev, u32 reg)
{
	return readl(tdev->regs + reg);
}

static inline void tern_write(struct tern_device *tdev, u32 reg, u32 val)
{
	writel(val, tdev->regs + reg);
}

/* 64-bit register pair: reading _LO latches _HI */
static inline u64 tern_read64(struct tern_device *tdev, u32 reg_lo)
{
	u64 lo = readl(tdev->regs + reg_lo);

	return lo | (u64)readl(tdev->regs + reg_lo + 4) << 32;
}

/**
 * tern_read_counter64() - read a latching 64-bit counter
 * @tdev: the device
 * @reg_lo: offset of its _LO half (from BAR0)
 *
 * Reading _LO latches _HI in a latch shared by the whole device, so two
 * such reads must not interleave.
 *
 * Return: the counter.
 */
static inline u64 tern_read_counter64(struct tern_device *tdev, u32 reg_lo)
{
	unsigned long flags;
	u64 val;

	spin_lock_irqsave(&tdev->latch_lock, flags);
	val = tern_read64(tdev, reg_lo);
	spin_unlock_irqrestore(&tdev->latch_lock, flags);
	return val;
}

static inline void tern_write64(struct tern_device *tdev, u32 reg_lo, u64 val)
{
	writel(lower_32_bits(val), tdev->regs + reg_lo);
	writel(upper_32_bits(val), tdev->regs + reg_lo + 4);
}

int tern_device_init(struct tern_device *tdev);
void tern_device_fini(struct tern_device *tdev);
int tern_device_reset(struct tern_device *tdev);
u64 tern_device_clock_ns(struct tern_device *tdev);
void __tern_device_tlb_invalidate(struct tern_device *tdev);
void tern_device_tlb_invalidate(struct tern_device *tdev);
void __tern_device_tlb_barrier(struct tern_device *tdev);

#endif /* __TERN_DEVICE_H__ */
