// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/idr.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include <drm/drm_drv.h>
#include <drm/drm_exec.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gpuvm.h>
#include <drm/drm_print.h>

#include <drm/tern_accel.h>

#include "tern_bind.h"
#include "tern_device.h"
#include "tern_drv.h"
#include "tern_gem.h"
#include "tern_pt.h"
#include "tern_vm.h"
#include "tern_vm_priv.h"

/**
 * DOC: address spaces
 *
 * Each open file of the device has one address space, a &struct tern_vm,
 * shared by all contexts of the file.  It is a tree of device page tables
 * (tern_pt.c) in coherent system memory, whose root goes into the ROOT
 * register of every slot that runs a job of the file, and a &struct
 * drm_gpuvm of the VA ranges in use, [%DRM_TERN_VA_START, 2^48).  Each
 * range is one &struct tern_vm_mapping (a &struct drm_gpuva): a range of
 * one BO, mapped read-write or read-only.  Each BO mapped has one &struct
 * tern_vm_bo (a &struct drm_gpuvm_bo) in the VM, on the BO's list of the
 * address spaces that map it, with the list of its mappings there: the
 * VM holds one pin of the BO's pages for all of them, but of a BO that
 * moves (tern_bo_movable(): its mappings follow it, tern_vm_move.c).  drm_gpuvm also
 * gives the VM its reservation object (a GEM object of its own) and the
 * arithmetic of cutting mappings (drm_gpuvm_sm_unmap()).
 *
 * The address space is changed by binds (tern_vm_bind.c): checked and
 * applied to the VA tree at the ioctl, run in order by a worker that
 * records each change into a DMA buffer of PHYS_COPY packets (tern_pt.c)
 * and runs it on the copy engine (tern_bind.c).  This file holds the
 * address space itself: its tables, its budget, the reaping of what an
 * unmap removed, teardown and PCI remove.
 *
 * Reaping: a job may have translated through entries an unmap cleared
 * before they were cleared, and a chunk already translated may still
 * finish its accesses after the TLBs were invalidated (docs/hardware.md
 * 9.3).  So before what an unmap removed is given back, tern_vm_reap()
 * takes the lock of the VM's reservation object (the submit path adds each
 * job's finished fence to it with %DMA_RESV_USAGE_BOOKKEEP, under that
 * lock, before it pushes the job), copies the fences it holds then and
 * waits for them (not interruptibly: they are jobs of this file, which
 * end).  A job whose fence is not in that copy was pushed after the
 * entries were cleared and the TLBs invalidated: it faults on the range
 * instead of reaching the old pages.  Only then are the tables freed and
 * the mappings unlinked from their BOs; a BO that so loses its last
 * mapping in the VM is unpinned (if the VM pinned it) and its reference
 * dropped.  The copy is taken once,
 * so a thread that keeps submitting cannot hold the reap up for longer
 * than the jobs in it take.
 *
 * An update the device fails to make may leave the tables half-way: the
 * address space then takes no other change and keeps everything the failed
 * change removed, which the device may still reach, until it is released
 * (&tern_vm.limbo).  Jobs still run in it, with the tables as the device
 * left them.
 *
 * Teardown: the VM is reference counted; the file holds one reference and
 * every job another, so the VM outlives the jobs that use it.  Closing the
 * file cancels the binds that have not run (tern_vm_close()).  The last
 * reference waits for the reaping and the remaining fences, frees the
 * tables, invalidates the TLBs (the TLB is keyed by root, and a later VM
 * may get the same root table) and releases the BOs.
 *
 * Budget: what one file can make the kernel hold through its address space
 * is bounded, and charged to the memory cgroup of the task that maps.  The
 * bytes mapped are at most %DRM_TERN_VM_MAX_MAPPED, the mappings (about 250
 * bytes of bookkeeping each) at most %DRM_TERN_VM_MAX_MAPPINGS; the page
 * tables, dead ones not yet freed and those charged to queued maps
 * included, at most %DRM_TERN_VM_MAX_TABLES (one 4 KiB page bound at a
 * 2 MiB stride costs a whole table: the tables are counted, not the bytes
 * mapped); the BOs mapped, each counted once and whole however often it is
 * mapped, at most half of the system's memory (tern_vm_max_pinned(): their
 * pages are pinned).  A map beyond any of them fails with -ENOSPC before it
 * changes anything.  The tables, the CPU bookkeeping of the tree and the
 * mappings are allocated with __GFP_ACCOUNT.  The BOs' pages come from
 * TTM's page pool, which does not charge them to a memory cgroup.
 *
 * Single-use devices (TERN_CAPS_SINGLE_USE) run every job in the address
 * space of TERN_REG_SINGLE_ROOT: there, only one VM may exist at a time, and
 * opening the device a second time fails with -EBUSY.
 *
 * Lock order: tern_vm_list_lock (PCI remove, the release, debugfs, the
 * reaping), then &tern_vm.lock, then a BO's &tern_bo.gpuva_lock (its list
 * of mappings; also taken alone); the device's reset lock (TLB
 * invalidations) is taken with no &tern_vm.lock held, under
 * tern_vm_list_lock by the release; &tern_vm.bind_lock (bind ioctls) comes before
 * &tern_vm.lock and is never taken with tern_vm_list_lock.  PCI remove
 * waits for the bind worker under tern_vm_list_lock, which the worker
 * never takes.  &tern_vm.lock is taken by the bind
 * worker on the fence-signalling side: nothing allocates memory or waits
 * for a fence under it, and it nests no BO reservation lock (pinning and
 * unpinning happen outside of it).  The VM's reservation object and &tern_vm.lock are
 * never held together: the submit path locks the reservation object (with
 * those of the BOs), the memory code takes it only in tern_vm_reap(),
 * alone, after it released &tern_vm.lock; the ordering of the entries'
 * removal before the copy of the fences comes from that sequence, not from
 * nesting.
 */

/* The list of all VMs, for single-use devices and debugging. */
static DEFINE_MUTEX(tern_vm_list_lock);
static LIST_HEAD(tern_vm_list);
static DEFINE_IDA(tern_vm_ida);

/**
 * struct tern_vm_table - one page-table page
 * @cpu: its CPU address
 * @dma: its bus address
 * @link: entry in &tern_vm.dead_tables once unlinked
 */
struct tern_vm_table {
	void *cpu;
	dma_addr_t dma;
	struct list_head link;
};

void tern_vm_garbage_init(struct tern_vm_garbage *g)
{
	INIT_LIST_HEAD(&g->tables);
	INIT_LIST_HEAD(&g->mappings);
	INIT_LIST_HEAD(&g->link);
}

/*
 * Bytes of BOs one address space may keep pinned: half of the memory, the
 * share of system memory TTM lets GPUs hold for their own use.
 */
u64 tern_vm_max_pinned(void)
{
	return min_t(u64, DRM_TERN_VM_MAX_MAPPED,
		     (u64)totalram_pages() << (PAGE_SHIFT - 1));
}

/**
 * tern_vm_mapping_bo() - the BO of a mapping
 * @m: the mapping
 *
 * Return: the BO, referenced by the mapping's &struct tern_vm_bo while the
 * mapping is linked to it.
 */
struct tern_bo *tern_vm_mapping_bo(struct tern_vm_mapping *m)
{
	return to_tern_bo(m->va.gem.obj);
}

/* Whether @bo is mapped in @vm already, or fits the pinned budget. */
bool tern_vm_pin_budget(struct tern_vm *vm, struct tern_bo *bo)
{
	struct drm_gpuvm_bo *vm_bo;
	bool mapped;

	lockdep_assert_held(&vm->lock);
	mutex_lock(&bo->gpuva_lock);
	vm_bo = drm_gpuvm_bo_find(&vm->gpuvm, tern_bo_obj(bo));
	mapped = vm_bo && to_tern_vm_bo(vm_bo)->mappings;
	/*
	 * The entry lives while a mapping is linked to it, which changes
	 * under this lock only: this cannot be its last reference.
	 */
	drm_gpuvm_bo_put(vm_bo);
	mutex_unlock(&bo->gpuva_lock);
	/* no overflow: both are far below 2^63 */
	return mapped || vm->pinned + tern_bo_size(bo) <= tern_vm_max_pinned();
}

/**
 * tern_vm_link_new() - make a mapping one of its BO's in the VM
 * @vm: the VM, its lock held
 * @m: the mapping of a map, its range and BO set
 * @prealloc: a &struct drm_gpuvm_bo preallocated for the BO
 *	(drm_gpuvm_bo_create()), whose reference this takes over: it becomes
 *	the BO's entry in the VM, or is freed if the BO has one already
 *
 * Allocates nothing.  Return: whether @m is the BO's first mapping in the
 * VM: the caller then gives the VM a pin of the BO's pages, and counts the
 * BO in &tern_vm.pinned.
 */
bool tern_vm_link_new(struct tern_vm *vm, struct tern_vm_mapping *m,
		      struct drm_gpuvm_bo *prealloc)
{
	struct tern_bo *bo = tern_vm_mapping_bo(m);
	struct drm_gpuvm_bo *vm_bo;
	bool first;

	lockdep_assert_held(&vm->lock);
	mutex_lock(&bo->gpuva_lock);
	vm_bo = drm_gpuvm_bo_obtain_prealloc(prealloc);
	drm_gpuva_link(&m->va, vm_bo);
	first = !to_tern_vm_bo(vm_bo)->mappings++;
	/* the mapping holds a reference of its own */
	drm_gpuvm_bo_put(vm_bo);
	mutex_unlock(&bo->gpuva_lock);
	return first;
}

/**
 * tern_vm_link_piece() - make a piece of a cut mapping one of its BO's
 * @vm: the VM, its lock held
 * @piece: the piece, its range and BO set
 * @vm_bo: the BO's entry in the VM, that of the mapping it was cut from,
 *	which is linked to it still: the BO's pin in the VM serves the piece
 *
 * Allocates nothing.
 */
void tern_vm_link_piece(struct tern_vm *vm, struct tern_vm_mapping *piece,
			struct drm_gpuvm_bo *vm_bo)
{
	struct tern_bo *bo = tern_vm_mapping_bo(piece);

	lockdep_assert_held(&vm->lock);
	mutex_lock(&bo->gpuva_lock);
	WARN_ON(!to_tern_vm_bo(vm_bo)->mappings);
	drm_gpuva_link(&piece->va, vm_bo);
	to_tern_vm_bo(vm_bo)->mappings++;
	mutex_unlock(&bo->gpuva_lock);
}

/**
 * tern_vm_unlink() - a mapping is no longer one of its BO's in the VM
 * @vm: the VM, its lock held
 * @m: the mapping, out of the VA tree
 *
 * The caller holds a reference on the BO of @m: the BO's entry in the VM,
 * and its reference, may go with the mapping.  Allocates nothing.
 *
 * Return: whether it was the BO's last mapping in the VM: the caller then
 * takes the VM's pin of the BO's pages over, and uncounts the BO from
 * &tern_vm.pinned.
 */
bool tern_vm_unlink(struct tern_vm *vm, struct tern_vm_mapping *m)
{
	struct tern_bo *bo = tern_vm_mapping_bo(m);
	bool last;

	lockdep_assert_held(&vm->lock);
	mutex_lock(&bo->gpuva_lock);
	last = !--to_tern_vm_bo(m->va.vm_bo)->mappings;
	drm_gpuva_unlink(&m->va);
	mutex_unlock(&bo->gpuva_lock);
	return last;
}

static struct drm_gpuvm_bo *tern_vm_bo_alloc(void)
{
	struct tern_vm_bo *vbo = kzalloc(sizeof(*vbo), GFP_KERNEL_ACCOUNT);

	return vbo ? &vbo->base : NULL;
}

static void tern_vm_bo_free(struct drm_gpuvm_bo *vm_bo)
{
	kfree(to_tern_vm_bo(vm_bo));
}

/*
 * The last reference on the gpuvm: after tern_vm_release(), or on the
 * error path of tern_vm_create().
 */
static void tern_vm_free(struct drm_gpuvm *gpuvm)
{
	struct tern_vm *vm = to_tern_vm(gpuvm);

	/* the last user may be a move that found it released */
	mutex_destroy(&vm->bind_lock);
	mutex_destroy(&vm->lock);
	kfree(vm);
}

static const struct drm_gpuvm_ops tern_gpuvm_ops = {
	.vm_free = tern_vm_free,
	.vm_bo_alloc = tern_vm_bo_alloc,
	.vm_bo_free = tern_vm_bo_free,
	.sm_step_remap = tern_vm_step_remap,
	.sm_step_unmap = tern_vm_step_unmap,
};

/* The memory of a table no job can reach any more. */
static void tern_vm_table_release(struct tern_vm *vm, struct tern_vm_table *t)
{
	dma_free_coherent(vm->tdev->drm.dev, TERN_PAGE_SIZE, t->cpu, t->dma);
	kfree(t);
}

static void *tern_vm_alloc_table(void *priv, u64 *dev_addr)
{
	struct tern_vm *vm = priv;
	struct tern_vm_table *t;

	/*
	 * Counted in @vm->nr_tables once in the tree: the bind that
	 * allocates it ahead is charged for it (&tern_vm.tables_pending).
	 */
	t = kmalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	if (!t)
		return NULL;
	t->cpu = dma_alloc_coherent(vm->tdev->drm.dev, TERN_PAGE_SIZE, &t->dma,
				    GFP_KERNEL_ACCOUNT);
	if (!t->cpu)
		goto err_free;
	if (xa_insert(&vm->tables, t->dma >> TERN_PAGE_SHIFT, t, GFP_KERNEL_ACCOUNT))
		goto err_free_dma;
	*dev_addr = t->dma;
	return t->cpu;

err_free_dma:
	dma_free_coherent(vm->tdev->drm.dev, TERN_PAGE_SIZE, t->cpu, t->dma);
err_free:
	kfree(t);
	return NULL;
}

static void tern_vm_free_table(void *priv, void *table, u64 dev_addr)
{
	struct tern_vm *vm = priv;
	struct tern_vm_table *t;

	t = xa_erase(&vm->tables, dev_addr >> TERN_PAGE_SHIFT);
	if (WARN_ON(!t || t->cpu != table))
		return;
	/*
	 * The device may still walk it until the TLBs are invalidated and
	 * the jobs that could reach it finished: see tern_vm_reap().
	 */
	list_add_tail(&t->link, &vm->dead_tables);
}

static void tern_vm_discard_table(void *priv, void *table, u64 dev_addr)
{
	struct tern_vm *vm = priv;
	struct tern_vm_table *t;

	t = xa_erase(&vm->tables, dev_addr >> TERN_PAGE_SHIFT);
	if (WARN_ON(!t || t->cpu != table))
		return;
	/* never linked into the tree, never counted: the device never knew it */
	tern_vm_table_release(vm, t);
}

static const struct tern_pt_ops tern_vm_pt_ops = {
	.alloc_table = tern_vm_alloc_table,
	.free_table = tern_vm_free_table,
	.discard_table = tern_vm_discard_table,
};

/* Free page tables for good; no job can reach them any more. */
static void tern_vm_free_tables(struct tern_vm *vm, struct list_head *tables)
{
	struct tern_vm_table *t, *next;
	u64 freed = 0;

	list_for_each_entry_safe(t, next, tables, link) {
		tern_vm_table_release(vm, t);
		freed++;
	}
	INIT_LIST_HEAD(tables);
	mutex_lock(&vm->lock);
	vm->nr_tables -= freed;
	mutex_unlock(&vm->lock);
}

/*
 * After an update that unlinked tables was recorded: move the tables it
 * unlinked to @g.  Nothing is freed: the update has yet to run, and then
 * jobs may still be using what they translated before (see
 * tern_vm_reap()).
 */
void tern_vm_retire(struct tern_vm *vm, struct tern_vm_garbage *g)
{
	lockdep_assert_held(&vm->lock);
	list_splice_tail_init(&vm->dead_tables, &g->tables);
}

/*
 * Wait for every job of the VM that could still reach what was retired:
 * the ones whose fences are in the reservation object now.  A job that
 * adds its fence after this copy is pushed after it, so after the entries
 * were cleared and the TLBs invalidated (tern_vm_retire() came before):
 * it cannot reach the old tables and pages.  The copy is taken under the
 * lock the submit path adds its fence under, and once: concurrent submits
 * do not prolong the wait.
 */
static void tern_vm_wait_users(struct tern_vm *vm)
{
	struct dma_fence **fences;
	unsigned int i, count;
	int ret;

	lockdep_assert_not_held(&vm->lock);
	dma_resv_lock(tern_vm_resv(vm), NULL);
	ret = dma_resv_get_fences(tern_vm_resv(vm), DMA_RESV_USAGE_BOOKKEEP,
				  &count, &fences);
	if (ret) {
		/* No memory for the copy: wait with submits held off. */
		dma_resv_wait_timeout(tern_vm_resv(vm), DMA_RESV_USAGE_BOOKKEEP,
				      false, MAX_SCHEDULE_TIMEOUT);
		dma_resv_unlock(tern_vm_resv(vm));
		return;
	}
	dma_resv_unlock(tern_vm_resv(vm));

	for (i = 0; i < count; i++) {
		dma_fence_wait(fences[i], false);
		dma_fence_put(fences[i]);
	}
	kfree(fences);
}

/*
 * Give back what a removal took off the address space, once no job can
 * reach it: the tables, the pins, the BO references.  No lock held.
 */
void tern_vm_reap(struct tern_vm *vm, struct tern_vm_garbage *g)
{
	struct tern_vm_mapping *m, *next;
	LIST_HEAD(tables);

	/* even with nothing in @g: entries may have been cleared in place */
	tern_vm_wait_users(vm);
	/*
	 * Under the list lock: PCI remove (tern_vm_unplug()) frees what is
	 * on @vm->reaping under it, so the tables go either there or here,
	 * never after remove returned.
	 */
	mutex_lock(&tern_vm_list_lock);
	mutex_lock(&vm->lock);
	list_del_init(&g->link);
	list_splice_init(&g->tables, &tables);
	mutex_unlock(&vm->lock);
	tern_vm_free_tables(vm, &tables);
	mutex_unlock(&tern_vm_list_lock);

	list_for_each_entry_safe(m, next, &g->mappings, link) {
		struct tern_bo *bo = tern_vm_mapping_bo(m);
		bool last;

		/* the BO's entry in the VM, and its reference, may go now */
		drm_gem_object_get(tern_bo_obj(bo));
		mutex_lock(&vm->lock);
		last = tern_vm_unlink(vm, m);
		if (last)
			vm->pinned -= tern_bo_size(bo);
		vm->nr_mappings--;
		mutex_unlock(&vm->lock);
		if (last && !tern_bo_movable(bo))
			tern_bo_unpin(bo);
		drm_gem_object_put(tern_bo_obj(bo));
		kfree(m);
	}
	INIT_LIST_HEAD(&g->mappings);
}

static bool tern_vm_single_use(struct tern_device *tdev)
{
	return tdev->caps & TERN_CAPS_SINGLE_USE;
}

static void tern_vm_set_single_root(struct tern_device *tdev, u64 root)
{
	int idx;

	if (!drm_dev_enter(&tdev->drm, &idx))
		return;
	tern_write64(tdev, TERN_REG_SINGLE_ROOT_LO, root);
	drm_dev_exit(idx);
}

/**
 * tern_vm_create() - make an empty address space
 * @tdev: the device
 * @out: receives the VM, with one reference
 *
 * Context: process context; may sleep.
 * Return: 0; -EBUSY on a single-use device that already has an address
 * space; -ENOMEM.
 */
int tern_vm_create(struct tern_device *tdev, struct tern_vm **out)
{
	struct drm_gem_object *resv_obj;
	struct tern_vm *vm;
	int ret;

	vm = kzalloc(sizeof(*vm), GFP_KERNEL);
	if (!vm)
		return -ENOMEM;
	resv_obj = drm_gpuvm_resv_object_alloc(&tdev->drm);
	if (!resv_obj) {
		kfree(vm);
		return -ENOMEM;
	}
	/* from here the gpuvm's last reference frees @vm */
	drm_gpuvm_init(&vm->gpuvm, "tern", 0, &tdev->drm, resv_obj,
		       DRM_TERN_VA_START, TERN_VA_END - DRM_TERN_VA_START, 0, 0,
		       &tern_gpuvm_ops);
	drm_gem_object_put(resv_obj);

	kref_init(&vm->refcount);
	vm->tdev = tdev;
	mutex_init(&vm->lock);
	mutex_init(&vm->bind_lock);
	tern_vm_binds_init(vm);
	tern_vm_garbage_init(&vm->limbo);
	INIT_LIST_HEAD(&vm->reaping);
	xa_init(&vm->tables);
	INIT_LIST_HEAD(&vm->dead_tables);

	ret = ida_alloc_min(&tern_vm_ida, 1, GFP_KERNEL);
	if (ret < 0)
		goto err_free;
	vm->id = ret;

	vm->map_addrs = kmalloc_array(TERN_VM_MAP_CHUNK, sizeof(*vm->map_addrs),
				      GFP_KERNEL);
	if (!vm->map_addrs) {
		ret = -ENOMEM;
		goto err_ida;
	}
	ret = tern_pt_init(&vm->pt, &tern_vm_pt_ops, vm);
	if (ret)
		goto err_ida;
	vm->nr_tables = vm->pt.nr_tables;

	mutex_lock(&tern_vm_list_lock);
	if (tern_vm_single_use(tdev)) {
		struct tern_vm *other;

		list_for_each_entry(other, &tern_vm_list, link) {
			if (other->tdev == tdev) {
				mutex_unlock(&tern_vm_list_lock);
				ret = -EBUSY;
				goto err_pt;
			}
		}
		tern_vm_set_single_root(tdev, tern_pt_root(&vm->pt));
	}
	list_add_tail(&vm->link, &tern_vm_list);
	mutex_unlock(&tern_vm_list_lock);

	drm_dev_get(&tdev->drm);
	*out = vm;
	return 0;

err_pt:
	tern_pt_fini(&vm->pt);
err_ida:
	/* Frees the tables tern_pt gave back, if any: never used by a job. */
	tern_vm_free_tables(vm, &vm->dead_tables);
	ida_free(&tern_vm_ida, vm->id);
err_free:
	kfree(vm->map_addrs);
	xa_destroy(&vm->tables);
	drm_gpuvm_put(&vm->gpuvm);
	return ret;
}

static void tern_vm_release(struct kref *kref)
{
	struct tern_vm *vm = container_of(kref, struct tern_vm, refcount);
	struct tern_device *tdev = vm->tdev;
	struct drm_gpuva *va, *next;
	struct tern_vm_garbage garbage;

	tern_vm_garbage_init(&garbage);
	/* tern_vm_close() ran every bind: what they left to clean up */
	flush_work(&vm->reap_work);
	WARN_ON(!list_empty(&vm->binds) || !list_empty(&vm->done));
	/* Holders of job references are gone, but fences may be pending. */
	dma_resv_wait_timeout(tern_vm_resv(vm), DMA_RESV_USAGE_BOOKKEEP, false,
			      MAX_SCHEDULE_TIMEOUT);
	/*
	 * A move of a BO may be rewriting the tables (it holds the runner
	 * role and a reference on the gpuvm, not on the VM): no job runs in
	 * the VM any more, so none starts after this, and the one at work
	 * ends first (and hands nothing to the worker: no bind is queued).
	 */
	mutex_lock(&vm->lock);
	vm->released = true;
	mutex_unlock(&vm->lock);
	wait_var_event(&vm->running, !READ_ONCE(vm->running));
	flush_work(&vm->bind_work);

	/*
	 * Off the list and the tables freed in one step: PCI remove
	 * (tern_vm_unplug()) either frees them itself, before, or waits
	 * here, so that they never go after remove returned.
	 */
	mutex_lock(&tern_vm_list_lock);
	list_del(&vm->link);
	if (tern_vm_single_use(tdev))
		tern_vm_set_single_root(tdev, 0);
	mutex_lock(&vm->lock);
	drm_gpuvm_for_each_va_safe(va, next, &vm->gpuvm) {
		drm_gpuva_remove(va);
		list_add_tail(&to_tern_vm_mapping(va)->link, &garbage.mappings);
	}
	tern_pt_fini(&vm->pt);
	tern_vm_retire(vm, &garbage);
	list_splice_tail_init(&vm->limbo.tables, &garbage.tables);
	list_splice_tail_init(&vm->limbo.mappings, &garbage.mappings);
	mutex_unlock(&vm->lock);
	/* the TLB is keyed by root, and a later VM may get this root table */
	tern_device_tlb_invalidate(tdev);
	tern_vm_free_tables(vm, &garbage.tables);
	mutex_unlock(&tern_vm_list_lock);
	/* No job is left to wait for: this only unpins and frees. */
	tern_vm_reap(vm, &garbage);

	WARN_ON(!xa_empty(&vm->tables) || vm->nr_tables || vm->tables_pending ||
		vm->nr_mappings || vm->pinned);
	kfree(vm->map_addrs);
	xa_destroy(&vm->tables);
	/* the locks go with the memory: a mover may still look (released) */
	ida_free(&tern_vm_ida, vm->id);
	/* the last one: every mapping and BO entry went with the reaping */
	drm_gpuvm_put(&vm->gpuvm);
	drm_dev_put(&tdev->drm);
}

/**
 * tern_vm_get() - take a reference on a VM
 * @vm: the VM
 *
 * Return: @vm.
 */
struct tern_vm *tern_vm_get(struct tern_vm *vm)
{
	kref_get(&vm->refcount);
	return vm;
}

/**
 * tern_vm_put() - drop a reference on a VM
 * @vm: the VM, or NULL
 *
 * The last reference waits for the VM's remaining job fences and frees
 * everything, so it must be dropped where sleeping is allowed, e.g. not in
 * a fence callback.
 *
 * Context: process context; may sleep.
 */
void tern_vm_put(struct tern_vm *vm)
{
	might_sleep();
	if (vm)
		kref_put(&vm->refcount, tern_vm_release);
}

/**
 * tern_vm_root() - value for a slot's ROOT register
 * @vm: the VM
 *
 * Return: bus address of the root table (TERN_PTE_LOCAL clear: the tables
 * are in system memory).  Constant for the life of the VM.
 */
u64 tern_vm_root(struct tern_vm *vm)
{
	return tern_pt_root(&vm->pt);
}

/**
 * tern_vm_resv() - the reservation object of a VM's jobs
 * @vm: the VM
 *
 * The submit path adds the finished fence of each job that runs in @vm with
 * %DMA_RESV_USAGE_BOOKKEEP, under the object's lock.  Unmapping and
 * teardown wait for all of them.
 *
 * Return: the reservation object, valid for the life of the VM.
 */
struct dma_resv *tern_vm_resv(struct tern_vm *vm)
{
	return drm_gpuvm_resv(&vm->gpuvm);
}

/**
 * tern_vm_lock_resv() - lock a VM's reservation object with others
 * @vm: the VM
 * @exec: the locking transaction of a submission
 * @num_fences: fence slots to reserve in it
 *
 * Return: 0, or an error of drm_exec_prepare_obj() (-EDEADLK: the caller
 * retries the transaction).
 */
int tern_vm_lock_resv(struct tern_vm *vm, struct drm_exec *exec,
		      unsigned int num_fences)
{
	return drm_gpuvm_prepare_vm(&vm->gpuvm, exec, num_fences);
}

/**
 * tern_vm_update_ns() - device time of a VM's page-table updates
 * @vm: the VM
 *
 * The copy engine runs them for the file that owns @vm: its fdinfo counts
 * them with its copy work.
 *
 * Return: nanoseconds of device time, failed runs included.
 */
u64 tern_vm_update_ns(struct tern_vm *vm)
{
	return atomic64_read(&vm->update_ns);
}

/**
 * tern_vm_id() - a VM's unique number
 * @vm: the VM
 *
 * Return: a number, non-zero, not reused while the VM lives.
 */
unsigned int tern_vm_id(struct tern_vm *vm)
{
	return vm->id;
}

/**
 * tern_vm_unplug() - free the page tables of a removed device's address
 *	spaces
 * @tdev: the device, its engines reset and its jobs signalled
 *
 * Called by PCI remove once the hardware can no longer reach memory.  The
 * page tables are coherent DMA memory of the device: they must go while
 * the device still has its DMA mappings (behind an IOMMU, freeing them
 * after remove returned faults), not when the files that hold the address
 * spaces are closed, maybe much later.  The address spaces keep their VA
 * ranges, pins and BO references until they are released; no job can run
 * in them any more.
 */
void tern_vm_unplug(struct tern_device *tdev)
{
	struct tern_vm_garbage g, *r;
	struct tern_vm *vm;

	mutex_lock(&tern_vm_list_lock);
	list_for_each_entry(vm, &tern_vm_list, link) {
		if (vm->tdev != tdev)
			continue;
		tern_vm_garbage_init(&g);
		/*
		 * The bind running now ends (its update's job was
		 * cancelled) and frees its buffer; the queued ones free
		 * theirs now, and fail.  Garbage waiting for jobs (some may
		 * wait for foreign fences for long) is in @vm->reaping: its
		 * tables go now, the rest when its owner is done.
		 */
		tern_vm_binds_unplug(vm);
		mutex_lock(&vm->lock);
		tern_pt_fini(&vm->pt);
		/* no TLB to invalidate: the device was reset */
		list_splice_tail_init(&vm->dead_tables, &g.tables);
		list_splice_tail_init(&vm->limbo.tables, &g.tables);
		list_for_each_entry(r, &vm->reaping, link)
			list_splice_tail_init(&r->tables, &g.tables);
		mutex_unlock(&vm->lock);
		tern_vm_free_tables(vm, &g.tables);
	}
	mutex_unlock(&tern_vm_list_lock);
}

/**
 * tern_vm_print() - describe a VM and its mappings, for debugfs
 * @vm: the VM
 * @p: where to print
 */
void tern_vm_print(struct tern_vm *vm, struct drm_printer *p)
{
	struct drm_gpuva *va;

	mutex_lock(&vm->lock);
	drm_printf(p, "vm %u: root %#llx, %llu bytes mapped, %llu page tables\n",
		   vm->id, vm->pt.root ? tern_pt_root(&vm->pt) : 0, vm->mapped,
		   vm->pt.nr_tables);
	drm_printf(p, "  budget: %llu of %u tables, %llu of %u mappings,",
		   vm->nr_tables, DRM_TERN_VM_MAX_TABLES, vm->nr_mappings,
		   DRM_TERN_VM_MAX_MAPPINGS);
	drm_printf(p, " %llu of %llu bytes of BOs pinned\n", vm->pinned,
		   tern_vm_max_pinned());
	tern_vm_binds_print(vm, p);
	drm_gpuvm_for_each_va(va, &vm->gpuvm) {
		struct tern_vm_mapping *m = to_tern_vm_mapping(va);

		drm_printf(p, "  %#014llx-%#014llx %s bo %zu bytes%s at offset %#llx\n",
			   va->va.addr, va->va.addr + va->va.range,
			   m->read_only ? "ro" : "rw", va->gem.obj->size,
			   va->gem.obj->import_attach ? " (imported)" : "",
			   va->gem.offset);
	}
	mutex_unlock(&vm->lock);
}

/**
 * tern_vm_debugfs_show() - describe every address space of a device
 * @tdev: the device
 * @p: where to print
 *
 * For a debugfs file: each VM with its root, size and mappings, including
 * VMs of closed files that jobs still hold.
 */
void tern_vm_debugfs_show(struct tern_device *tdev, struct drm_printer *p)
{
	struct tern_vm *vm;

	tern_bind_debugfs_show(tdev, p);
	mutex_lock(&tern_vm_list_lock);
	list_for_each_entry(vm, &tern_vm_list, link)
		if (vm->tdev == tdev)
			tern_vm_print(vm, p);
	mutex_unlock(&tern_vm_list_lock);
}
