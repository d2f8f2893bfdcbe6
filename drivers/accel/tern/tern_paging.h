/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_PAGING_H__
#define __TERN_PAGING_H__

#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct drm_printer;
struct sg_table;
struct ttm_resource;
struct tern_device;

/**
 * enum tern_paging_kind - what a paging buffer does
 * @TERN_PAGING_IN: system memory to local memory
 * @TERN_PAGING_OUT: local memory to system memory
 * @TERN_PAGING_CLEAR: zeroes of local memory
 */
enum tern_paging_kind {
	TERN_PAGING_IN,
	TERN_PAGING_OUT,
	TERN_PAGING_CLEAR,
	TERN_PAGING_KINDS
};

/**
 * struct tern_paging - the device's paging buffers
 * @null_root: a page table of invalid entries, the address space of the
 *	paging jobs: they make no access through page tables
 * @null_root_dma: its bus address
 * @zeroes: system memory of zeroes, the source of clears
 * @zeroes_dma: its bus address
 * @lock: protects the counters
 * @jobs: paging buffers run (one per move, run as one job per 4 MiB), per
 *	&enum tern_paging_kind
 * @bytes: bytes they moved (or cleared), per kind
 * @failures: paging buffers that failed
 * @device_ns: device time they took
 * @evictions: BOs moved out of local memory to make room for others
 * @retargets: updates of an address space that followed a BO's move
 * @retarget_cpu: of those, the ones the CPU wrote (no memory for the
 *	update, or the copy engine failed it)
 * @residency_retries: submits that backed off and tried again to make
 *	their BOs resident
 * @tlb_barriers: engines waited for by __tern_device_tlb_barrier()
 */
struct tern_paging {
	void *null_root;
	dma_addr_t null_root_dma;
	void *zeroes;
	dma_addr_t zeroes_dma;
	spinlock_t lock; /* see above */
	u64 jobs[TERN_PAGING_KINDS];
	u64 bytes[TERN_PAGING_KINDS];
	u64 failures;
	u64 device_ns;
	atomic64_t evictions;
	atomic64_t retargets;
	atomic64_t retarget_cpu;
	atomic64_t residency_retries;
	atomic64_t tlb_barriers;
};

int tern_paging_init(struct tern_device *tdev);
void tern_paging_unplug(struct tern_device *tdev);
int tern_paging_copy(struct tern_device *tdev, struct sg_table *sys,
		     struct ttm_resource *local, u64 size,
		     enum tern_paging_kind kind, u64 *device_ns);
int tern_paging_clear(struct tern_device *tdev, struct ttm_resource *local,
		      u64 size, u64 *device_ns);
void tern_paging_debugfs_show(struct tern_device *tdev, struct drm_printer *p);

#endif /* __TERN_PAGING_H__ */
