/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_VM_PRIV_H__
#define __TERN_VM_PRIV_H__

/*
 * What tern_vm.c (the address space: tables, budget, teardown) and
 * tern_vm_bind.c (its changes: the queue of binds) share.
 */

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include <drm/drm_gpuvm.h>

#include "tern_bind.h"
#include "tern_gem.h"
#include "tern_pt.h"

struct drm_printer;
struct tern_bo;
struct tern_device;

#define TERN_VA_END		BIT_ULL(TERN_VA_BITS)

/**
 * struct tern_vm_garbage - what a removal gives back once no job can use it
 * @tables: page tables unlinked from the tree (&tern_vm_table.link)
 * @mappings: mappings removed from the VA tree (&tern_vm_mapping.link)
 * @link: in &tern_vm.reaping while it waits for the jobs
 */
struct tern_vm_garbage {
	struct list_head tables;
	struct list_head mappings;
	struct list_head link;
};

/**
 * struct tern_vm - one address space
 * @gpuvm: the VA ranges mapped, as the binds queued so far leave them (its
 *	tree of &struct tern_vm_mapping), the BOs mapped (&struct tern_vm_bo)
 *	and the reservation object of the jobs that use the VM (its resv
 *	object).  Its own reference count keeps the memory: the last one
 *	frees the VM (after tern_vm_release())
 * @refcount: references: the file, each job
 * @tdev: the device (a reference on its drm_device is held)
 * @id: unique number, for debugfs and fdinfo
 * @link: entry in tern_vm_list
 * @lock: protects the bookkeeping: the VA tree of @gpuvm and the mapping
 *	counts of its BOs, @pt, @tables, @dead_tables, @nr_tables,
 *	@tables_pending, @mapped, @nr_mappings, @pinned, and the queue:
 *	@binds, @done, @next_seqno, @done_seqno, @queued_ops, @executing,
 *	@running, @closing, @unplugged, @error and the bind counters.  Taken
 *	by the runners of the binds, on the fence-signalling side: nothing
 *	allocates memory or waits for a fence under it.  The lock of a BO's
 *	list of mappings (&tern_bo.gpuva_lock) nests inside it.
 * @pt: the page tables, as the binds run so far made them
 * @tables: bus address >> TERN_PAGE_SHIFT -> &struct tern_vm_table, for
 *	every table allocated (in the tree, dead or in a bind's pool)
 * @dead_tables: tables unlinked from @pt, not yet retired
 * @nr_tables: tables in @pt and unlinked ones not yet freed
 * @tables_pending: tables charged to the maps queued and not yet run; with
 *	@nr_tables at most %DRM_TERN_VM_MAX_TABLES
 * @mapped: bytes mapped, at most %DRM_TERN_VM_MAX_MAPPED
 * @nr_mappings: mappings, including removed ones not yet reaped: at most
 *	%DRM_TERN_VM_MAX_MAPPINGS
 * @pinned: bytes of the BOs mapped (each counted once), at most
 *	tern_vm_max_pinned()
 * @bind_lock: serialises the bind ioctls of the address space (never
 *	taken by the worker): a call's state checks, its dependencies and
 *	its place in the queue are one step
 * @binds: binds queued, in order, the one running first
 *	(&tern_vm_bind.link)
 * @done: binds done, for @reap_work to clean up
 * @fence_context: dma_fence context of the binds' fences
 * @next_seqno: seqno of the last bind queued
 * @done_seqno: seqno of the last bind done
 * @queued_ops: operations of the binds in @binds, at most
 *	%DRM_TERN_VM_BIND_QUEUE_MAX
 * @executing: a runner of the binds is recording or running one: cancels
 *	leave that one alone
 * @running: a runner of the binds (the worker, an ioctl whose bind is
 *	alone, or the move of a BO the VM maps, tern_vm_move.c) is at work:
 *	another one returns at once (a move waits); PCI remove and close wait
 *	until no bind is queued (each leaves the queue once its DMA memory is
 *	freed), the release until none is
 * @closing: the file is gone: no bind is queued any more
 * @bind_work: runs the binds in order (the device's bind workqueue)
 * @reap_work: cleans up after them
 * @map_addrs: page addresses handed to tern_pt_map() at a time, used by
 *	the runner of the binds only
 * @unplugged: the device is gone and @pt with it
 * @released: the last reference went and the VM's jobs all ended: the VM
 *	is being torn down, and no move of a BO changes it any more
 *	(tern_vm_bo_move_begin())
 * @error: a change failed on the device: the device's tables may differ
 *	from @pt, so no other change is made
 * @bind_error: error of the last bind that failed
 * @bind_error_seqno: its seqno
 * @binds_failed: binds that failed
 * @binds_cancelled: binds cancelled because one before them failed
 * @limbo: what the failed changes removed: the device may still reach it,
 *	so it is kept until the VM is released
 * @update_ns: device time of the address space's page-table updates,
 *	charged to the file (fdinfo)
 * @reaping: garbage that waits for the jobs that may still use it
 *	(&tern_vm_garbage.link): PCI remove frees its tables, DMA memory of
 *	the device, if it comes first
 */
struct tern_vm {
	struct drm_gpuvm gpuvm;
	struct kref refcount;
	struct tern_device *tdev;
	unsigned int id;
	struct list_head link;

	struct mutex lock; /* see above */
	struct tern_pt pt;
	struct xarray tables;
	struct list_head dead_tables;
	u64 nr_tables;
	u64 tables_pending;
	u64 mapped;
	u64 nr_mappings;
	u64 pinned;

	struct mutex bind_lock; /* see above */
	struct list_head binds;
	struct list_head done;
	u64 fence_context;
	u64 next_seqno;
	u64 done_seqno;
	unsigned int queued_ops;
	bool executing;
	bool running;
	bool closing;
	struct work_struct bind_work;
	struct work_struct reap_work;
	u64 *map_addrs;

	bool unplugged;
	bool released;
	int error;
	int bind_error;
	u64 bind_error_seqno;
	u64 binds_failed;
	u64 binds_cancelled;
	struct tern_vm_garbage limbo;
	atomic64_t update_ns;
	struct list_head reaping;
};

/**
 * struct tern_vm_bo - a BO mapped in a VM
 * @base: the gpuvm's (VM, BO) pair, on the BO's list of address spaces
 *	that map it; each mapping linked to it holds a reference
 * @mappings: mappings of the BO in the VM, queued and removed ones not
 *	yet reaped included; while it is not 0, the VM counts the BO in
 *	&tern_vm.pinned and, unless the BO moves (tern_bo_movable()), holds
 *	one pin of its pages.  Under
 *	&tern_vm.lock and &tern_bo.gpuva_lock.
 */
struct tern_vm_bo {
	struct drm_gpuvm_bo base;
	unsigned long mappings;
};

/**
 * struct tern_vm_mapping - a range of a BO mapped in a VM
 * @va: the VA range, the BO and the offset in it of the first mapped
 *	byte; in the VA tree while mapped (or queued), linked to the BO's
 *	&struct tern_vm_bo until reaped
 * @read_only: mapped without TERN_PTE_WRITABLE
 * @live: its entries are in the tables: its map ran and the removal of
 *	its range did not (a piece of a cut mapping is live once the cut
 *	ran).  Set and cleared by the runner of the binds under
 *	&tern_vm.lock; a move of the BO retargets the live mappings only
 * @link: entry in a list of mappings being removed
 */
struct tern_vm_mapping {
	struct drm_gpuva va;
	bool read_only;
	bool live;
	struct list_head link;
};

/**
 * struct tern_vm_update - the DMA buffer of one change of an address space
 * @cpu: its CPU address: the packets, then the staged entries; NULL once
 *	freed
 * @dma: its bus address
 * @size: bytes allocated
 * @staging: offset of the staged entries
 * @staging_bytes: their room
 * @root: root of the tree it changes, for the slot that runs it
 * @dwords: length of the packets, 0 if the device has nothing to do
 * @failed: the change could not be recorded whole (a bug): it must not run
 * @run: what running it takes
 */
struct tern_vm_update {
	void *cpu;
	dma_addr_t dma;
	size_t size;
	size_t staging;
	size_t staging_bytes;
	u64 root;
	u32 dwords;
	bool failed;
	struct tern_bind_run run;
};

static inline struct tern_vm *to_tern_vm(struct drm_gpuvm *gpuvm)
{
	return container_of(gpuvm, struct tern_vm, gpuvm);
}

static inline struct tern_vm_bo *to_tern_vm_bo(struct drm_gpuvm_bo *vm_bo)
{
	return container_of(vm_bo, struct tern_vm_bo, base);
}

static inline struct tern_vm_mapping *to_tern_vm_mapping(struct drm_gpuva *va)
{
	return container_of(va, struct tern_vm_mapping, va);
}

/* page addresses handed to tern_pt_map() at a time */
#define TERN_VM_MAP_CHUNK	512

void tern_vm_garbage_init(struct tern_vm_garbage *g);
u64 tern_vm_max_pinned(void);
struct tern_bo *tern_vm_mapping_bo(struct tern_vm_mapping *m);
bool tern_vm_pin_budget(struct tern_vm *vm, struct tern_bo *bo);
bool tern_vm_link_new(struct tern_vm *vm, struct tern_vm_mapping *m,
		      struct drm_gpuvm_bo *prealloc);
void tern_vm_link_piece(struct tern_vm *vm, struct tern_vm_mapping *piece,
			struct drm_gpuvm_bo *vm_bo);
bool tern_vm_unlink(struct tern_vm *vm, struct tern_vm_mapping *m);
void tern_vm_retire(struct tern_vm *vm, struct tern_vm_garbage *g);
void tern_vm_reap(struct tern_vm *vm, struct tern_vm_garbage *g);

int tern_vm_update_alloc_room(struct tern_vm *vm, struct tern_vm_update *u,
			      const struct tern_pt_update_room *room, gfp_t gfp);
void tern_vm_update_free(struct tern_vm *vm, struct tern_vm_update *u);
void tern_vm_update_begin(struct tern_vm *vm, struct tern_vm_update *u,
			  u64 va, u64 range);
void tern_vm_update_end(struct tern_vm *vm, struct tern_vm_update *u,
			bool invalidate);
int tern_vm_update_run(struct tern_vm *vm, struct tern_vm_update *u);
int tern_vm_put_pages(struct tern_vm *vm, const struct tern_bo_backing *backing,
		      u64 va, u64 bo_offset, u64 range, u64 pte_flags,
		      bool retarget);

void tern_vm_binds_init(struct tern_vm *vm);
void tern_vm_binds_unplug(struct tern_vm *vm);
void tern_vm_binds_print(struct tern_vm *vm, struct drm_printer *p);
int tern_vm_step_remap(struct drm_gpuva_op *o, void *priv);
int tern_vm_step_unmap(struct drm_gpuva_op *o, void *priv);

#endif /* __TERN_VM_PRIV_H__ */
