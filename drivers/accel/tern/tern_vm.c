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
#include <linux/rbtree.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_mm.h>
#include <drm/drm_print.h>

#include <drm/tern_accel.h>

#include "tern_bind.h"
#include "tern_device.h"
#include "tern_drv.h"
#include "tern_gem.h"
#include "tern_pt.h"
#include "tern_vm.h"

/**
 * DOC: address spaces
 *
 * Each open file of the device has one address space, a &struct tern_vm,
 * shared by all contexts of the file.  It is a tree of device page tables
 * (tern_pt.c) in coherent system memory, whose root goes into the ROOT
 * register of every slot that runs a job of the file, and a &struct drm_mm
 * of the VA ranges in use, [%DRM_TERN_VA_START, 2^48).  Each range is one
 * &struct tern_vm_mapping: a range of one BO, mapped read-write or
 * read-only.
 *
 * Changes as DMA buffers: the CPU never writes an entry of a table the
 * device may be walking.  Each change (a map, an unmap) is an update of
 * the tree (tern_pt.c): the CPU's view of the tables changes at once,
 * tables the change adds are zeroed and filled by the CPU before anything
 * links them, and the entries of the tables that exist are recorded into a
 * DMA buffer of privileged PHYS_COPY packets, which the copy engine runs
 * as a job of the driver's queue of page-table updates (tern_bind.c).
 * Everything a change can need (its tables, tern_pt_reserve(), and its
 * buffer, tern_pt_update_size()) is allocated before the update opens, so
 * a change either fails with nothing done or is recorded whole.  Changes
 * of one address space run one at a time, in order, from their recording
 * to the end of their run (&tern_vm.bind_lock).
 *
 * Map (DRM_IOCTL_TERN_VM_BIND): the BO's pages are pinned and DMA-mapped
 * (tern_bo_pin()) before the VM lock is taken, then the VA range is
 * reserved in the drm_mm (an overlap is -EEXIST), the entries are recorded
 * and the update runs.  The device TLB caches no invalid entry, so a new
 * mapping needs no invalidation and is visible to every job submitted
 * after the ioctl returned.  The mapping holds a reference on the BO:
 * closing the BO's handle does not free memory the device can still reach.
 *
 * Unmap: the jobs of the file that are queued or running may still use the
 * range, so the unmap first waits for every fence in the VM's reservation
 * object (tern_vm_resv(): the submit path adds each job's finished fence to
 * it with %DMA_RESV_USAGE_BOOKKEEP, under the object's lock, before it
 * pushes the job).  That wait is interruptible and changes nothing.  Then
 * the range leaves the drm_mm, its entries are cleared (a table whose
 * whole span goes is cut off by the one entry that links it) and the
 * tables that became empty are taken off the tree (tern_vm_retire()); the
 * update ends with a TLB_INVALIDATE of the copy engine, and once it ran
 * the TLBs of all engines are invalidated (tern_device_tlb_invalidate()).
 * Nothing is freed yet.
 *
 * Jobs submitted after the first wait may have translated through the old
 * entries before they were cleared, and a chunk already translated may
 * still finish its accesses after the invalidation (docs/hardware.md 9.3).
 * So before anything is given back, tern_vm_reap() takes the reservation
 * object's lock, copies the fences it holds then and waits for them (not
 * interruptibly: the range is already gone, and they are jobs of this file,
 * which end).  A job whose fence is not in that copy added it after the
 * copy, so was pushed, and ran, after the entries were cleared and the TLBs
 * invalidated: it faults on the range instead of reaching the old pages.
 * Only then are the tables freed, the pages unpinned and the BO references
 * dropped.  The copy is taken once, so a thread that keeps submitting
 * cannot hold the unmap up for longer than the jobs in it take.  A map that
 * fails half-way (a BO whose pages are fewer than its size) takes the
 * same path for what it wrote.
 *
 * An update the device fails to make (the copy engine lost, or the same
 * update failing TERN_BIND_TRIES times) may leave the tables half-way:
 * the address space then takes no other change (-EIO from VM_BIND) and
 * keeps everything the failed change removed, which the device may still
 * reach, until it is released (&tern_vm.limbo).  Jobs still run in it,
 * with the tables as the device left them.
 *
 * Teardown: the VM is reference counted; the file holds one reference and
 * every job another, so the VM outlives the jobs that use it.  The last
 * reference waits for the remaining fences, frees the tables, invalidates
 * the TLBs (the TLB is keyed by root, and a later VM may get the same root
 * table) and releases the BOs.
 *
 * Budget: what one file can make the kernel hold through its address space
 * is bounded, and charged to the memory cgroup of the task that maps.  The
 * bytes mapped are at most %DRM_TERN_VM_MAX_MAPPED, the mappings (about 250
 * bytes of bookkeeping each) at most %DRM_TERN_VM_MAX_MAPPINGS; the page
 * tables, dead ones not yet freed included, at most %DRM_TERN_VM_MAX_TABLES
 * (one 4 KiB page bound at a 2 MiB stride costs a whole table: the tables
 * are counted, not the bytes mapped); the BOs mapped, each counted once and
 * whole however often it is mapped, at most half of the system's memory
 * (tern_vm_max_pinned(): their pages are pinned).  A map beyond any of them
 * fails with -ENOSPC before it changes anything (tern_pt_tables_needed()
 * says what it would add).  The tables, the CPU bookkeeping of the tree and
 * the mappings are allocated with __GFP_ACCOUNT; the BOs' pages are shmem
 * pages, charged when they were allocated.
 *
 * Single-use devices (TERN_CAPS_SINGLE_USE) run every job in the address
 * space of TERN_REG_SINGLE_ROOT: there, only one VM may exist at a time, and
 * opening the device a second time fails with -EBUSY.
 *
 * Lock order: tern_vm_list_lock (PCI remove, the release, debugfs), then
 * &tern_vm.bind_lock, then &tern_vm.lock, then the device's reset lock
 * (TLB invalidations).
 * &tern_vm.bind_lock is held across the wait for an update's job, so it is
 * never taken on the fence-signalling side, nor with a reservation object
 * held.  &tern_vm.lock is taken with no other tern lock than those held
 * and nests no BO lock: pinning and unpinning happen outside of it.  The
 * VM's reservation object and &tern_vm.lock are never held together: the
 * submit path locks the reservation object (with those of the BOs), the
 * memory code takes it only in tern_vm_reap(), alone, after it released
 * &tern_vm.lock; the ordering of the entries' removal before the copy of
 * the fences comes from that sequence, not from nesting.
 */

/* The list of all VMs, for single-use devices and debugging. */
static DEFINE_MUTEX(tern_vm_list_lock);
static LIST_HEAD(tern_vm_list);
static DEFINE_IDA(tern_vm_ida);

#define TERN_VA_END		BIT_ULL(TERN_VA_BITS)
/* page addresses handed to tern_pt_map() at a time */
#define TERN_VM_MAP_CHUNK	512

/**
 * struct tern_vm_garbage - what a removal gives back once no job can use it
 * @tables: page tables unlinked from the tree (&tern_vm_table.link)
 * @mappings: mappings removed from the drm_mm (&tern_vm_mapping.link)
 * @link: in &tern_vm.reaping while its owner waits for the jobs
 */
struct tern_vm_garbage {
	struct list_head tables;
	struct list_head mappings;
	struct list_head link;
};

/**
 * struct tern_vm - one address space
 * @refcount: references: the file, each job
 * @tdev: the device (a reference on its drm_device is held)
 * @id: unique number, for debugfs and fdinfo
 * @link: entry in tern_vm_list
 * @lock: protects @mm, @pt, @tables, @dead_tables, @nr_tables, @mapped,
 *	@nr_mappings, @bos and @pinned
 * @mm: the VA ranges mapped
 * @pt: the page tables
 * @tables: bus address >> TERN_PAGE_SHIFT -> &struct tern_vm_table
 * @dead_tables: tables unlinked from @pt, not yet retired (tern_vm_retire())
 * @nr_tables: tables allocated and not yet freed, including the unlinked
 *	ones a removal still holds: at most %DRM_TERN_VM_MAX_TABLES
 * @mapped: bytes mapped, at most %DRM_TERN_VM_MAX_MAPPED
 * @nr_mappings: mappings, including removed ones not yet reaped: at most
 *	%DRM_TERN_VM_MAX_MAPPINGS
 * @bos: the BOs mapped, &struct tern_vm_bo by BO address
 * @pinned: bytes of the BOs in @bos, at most tern_vm_max_pinned()
 * @resv: fences of the jobs that use the VM
 * @bind_lock: serialises the changes of the address space, from their
 *	recording to the end of their run on the device; taken before @lock
 * @unplugged: the device is gone and @pt with it (protected by @lock)
 * @error: a change failed on the device: the device's tables may differ
 *	from @pt, so no other change is made (protected by @bind_lock)
 * @limbo: what the failed changes removed: the device may still reach it,
 *	so it is kept until the VM is released (protected by @bind_lock)
 * @update_ns: device time of the address space's page-table updates,
 *	charged to the file (fdinfo)
 * @reaping: garbage whose owner waits for the jobs that may still use it
 *	(&tern_vm_garbage.link; protected by @lock): PCI remove frees its
 *	tables, DMA memory of the device, if it comes first
 */
struct tern_vm {
	struct kref refcount;
	struct tern_device *tdev;
	unsigned int id;
	struct list_head link;

	struct mutex lock; /* see above */
	struct drm_mm mm;
	struct tern_pt pt;
	struct xarray tables;
	struct list_head dead_tables;
	u64 nr_tables;
	u64 mapped;
	u64 nr_mappings;
	struct rb_root bos;
	u64 pinned;

	struct dma_resv resv;

	struct mutex bind_lock; /* see above */
	bool unplugged;
	int error;
	struct tern_vm_garbage limbo;
	atomic64_t update_ns;
	struct list_head reaping;
};

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

/**
 * struct tern_vm_bo - a BO mapped in a VM, for the pinned-memory budget
 * @node: entry in &tern_vm.bos
 * @bo: the BO
 * @mappings: mappings of @bo in the VM, released ones not yet reaped
 *	included
 */
struct tern_vm_bo {
	struct rb_node node;
	struct tern_bo *bo;
	unsigned long mappings;
};

/**
 * struct tern_vm_mapping - a range of a BO mapped in a VM
 * @node: the VA range, in &tern_vm.mm
 * @bo: the BO, referenced and pinned
 * @vbo: the BO's entry in &tern_vm.bos
 * @bo_offset: offset in the BO of the first mapped byte
 * @read_only: mapped without TERN_PTE_WRITABLE
 * @link: entry in a list of mappings being removed
 */
struct tern_vm_mapping {
	struct drm_mm_node node;
	struct tern_bo *bo;
	struct tern_vm_bo *vbo;
	u64 bo_offset;
	bool read_only;
	struct list_head link;
};

static void tern_vm_garbage_init(struct tern_vm_garbage *g)
{
	INIT_LIST_HEAD(&g->tables);
	INIT_LIST_HEAD(&g->mappings);
	INIT_LIST_HEAD(&g->link);
}

/*
 * Bytes of BOs one address space may keep pinned: half of the memory, the
 * share of system memory TTM lets GPUs hold for their own use.
 */
static u64 tern_vm_max_pinned(void)
{
	return min_t(u64, DRM_TERN_VM_MAX_MAPPED,
		     (u64)totalram_pages() << (PAGE_SHIFT - 1));
}

static int tern_vm_bo_cmp(const void *key, const struct rb_node *node)
{
	unsigned long a = (unsigned long)key;
	unsigned long b = (unsigned long)rb_entry(node, struct tern_vm_bo, node)->bo;

	return a < b ? -1 : a > b;
}

static bool tern_vm_bo_less(struct rb_node *a, const struct rb_node *b)
{
	return tern_vm_bo_cmp(rb_entry(a, struct tern_vm_bo, node)->bo, b) < 0;
}

static struct tern_vm_bo *tern_vm_bo_find(struct tern_vm *vm, struct tern_bo *bo)
{
	struct rb_node *node = rb_find(bo, &vm->bos, tern_vm_bo_cmp);

	return node ? rb_entry(node, struct tern_vm_bo, node) : NULL;
}

/* Whether @bo is mapped already or fits the pinned budget. */
static bool tern_vm_pin_budget(struct tern_vm *vm, struct tern_bo *bo)
{
	lockdep_assert_held(&vm->lock);
	/* no overflow: both are far below 2^63 */
	return tern_vm_bo_find(vm, bo) ||
	       vm->pinned + tern_bo_size(bo) <= tern_vm_max_pinned();
}

/* A mapping of @vbo was reaped: the last one gives the BO's budget back. */
static void tern_vm_bo_put(struct tern_vm *vm, struct tern_vm_bo *vbo)
{
	lockdep_assert_held(&vm->lock);
	if (--vbo->mappings)
		return;
	rb_erase(&vbo->node, &vm->bos);
	vm->pinned -= tern_bo_size(vbo->bo);
	kfree(vbo);
}

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

	/* tern_vm_map() checked the budget: this is a bug, not a refusal */
	if (WARN_ON_ONCE(vm->nr_tables >= DRM_TERN_VM_MAX_TABLES))
		return NULL;
	t = kmalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	if (!t)
		return NULL;
	t->cpu = dma_alloc_coherent(vm->tdev->drm.dev, TERN_PAGE_SIZE, &t->dma,
				    GFP_KERNEL_ACCOUNT);
	if (!t->cpu)
		goto err_free;
	if (xa_insert(&vm->tables, t->dma >> TERN_PAGE_SHIFT, t, GFP_KERNEL_ACCOUNT))
		goto err_free_dma;
	vm->nr_tables++;
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

	/* under the lock tern_pt is used under: the tree's owner's */
	lockdep_assert_held(&vm->lock);
	t = xa_erase(&vm->tables, dev_addr >> TERN_PAGE_SHIFT);
	if (WARN_ON(!t || t->cpu != table))
		return;
	/* never linked into the tree: the device never knew it */
	tern_vm_table_release(vm, t);
	vm->nr_tables--;
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
static void tern_vm_retire(struct tern_vm *vm, struct tern_vm_garbage *g)
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
	dma_resv_lock(&vm->resv, NULL);
	ret = dma_resv_get_fences(&vm->resv, DMA_RESV_USAGE_BOOKKEEP, &count,
				  &fences);
	if (ret) {
		/* No memory for the copy: wait with submits held off. */
		dma_resv_wait_timeout(&vm->resv, DMA_RESV_USAGE_BOOKKEEP, false,
				      MAX_SCHEDULE_TIMEOUT);
		dma_resv_unlock(&vm->resv);
		return;
	}
	dma_resv_unlock(&vm->resv);

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
static void tern_vm_reap(struct tern_vm *vm, struct tern_vm_garbage *g)
{
	struct tern_vm_mapping *m, *next;
	LIST_HEAD(tables);

	/* even with nothing in @g: entries may have been cleared in place */
	tern_vm_wait_users(vm);
	/* unless PCI remove freed them meanwhile (tern_vm_unplug()) */
	mutex_lock(&vm->lock);
	list_del_init(&g->link);
	list_splice_init(&g->tables, &tables);
	mutex_unlock(&vm->lock);
	tern_vm_free_tables(vm, &tables);

	list_for_each_entry(m, &g->mappings, link)
		tern_bo_unpin(m->bo);
	mutex_lock(&vm->lock);
	list_for_each_entry(m, &g->mappings, link) {
		tern_vm_bo_put(vm, m->vbo);
		vm->nr_mappings--;
	}
	mutex_unlock(&vm->lock);
	list_for_each_entry_safe(m, next, &g->mappings, link) {
		drm_gem_object_put(&m->bo->base.base);
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
	struct tern_vm *vm;
	int ret;

	vm = kzalloc(sizeof(*vm), GFP_KERNEL);
	if (!vm)
		return -ENOMEM;

	kref_init(&vm->refcount);
	vm->tdev = tdev;
	mutex_init(&vm->lock);
	mutex_init(&vm->bind_lock);
	tern_vm_garbage_init(&vm->limbo);
	INIT_LIST_HEAD(&vm->reaping);
	drm_mm_init(&vm->mm, DRM_TERN_VA_START, TERN_VA_END - DRM_TERN_VA_START);
	xa_init(&vm->tables);
	INIT_LIST_HEAD(&vm->dead_tables);
	vm->bos = RB_ROOT;
	dma_resv_init(&vm->resv);

	ret = ida_alloc_min(&tern_vm_ida, 1, GFP_KERNEL);
	if (ret < 0)
		goto err_free;
	vm->id = ret;

	ret = tern_pt_init(&vm->pt, &tern_vm_pt_ops, vm);
	if (ret)
		goto err_ida;

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
	dma_resv_fini(&vm->resv);
	xa_destroy(&vm->tables);
	drm_mm_takedown(&vm->mm);
	mutex_destroy(&vm->bind_lock);
	mutex_destroy(&vm->lock);
	kfree(vm);
	return ret;
}

static void tern_vm_release(struct kref *kref)
{
	struct tern_vm *vm = container_of(kref, struct tern_vm, refcount);
	struct tern_device *tdev = vm->tdev;
	struct drm_mm_node *node, *next;
	struct tern_vm_garbage garbage;

	tern_vm_garbage_init(&garbage);
	/* Holders of job references are gone, but fences may be pending. */
	dma_resv_wait_timeout(&vm->resv, DMA_RESV_USAGE_BOOKKEEP, false,
			      MAX_SCHEDULE_TIMEOUT);

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
	drm_mm_for_each_node_safe(node, next, &vm->mm) {
		struct tern_vm_mapping *m =
			container_of(node, struct tern_vm_mapping, node);

		drm_mm_remove_node(node);
		list_add_tail(&m->link, &garbage.mappings);
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

	WARN_ON(!xa_empty(&vm->tables) || vm->nr_tables || vm->nr_mappings ||
		vm->pinned || !RB_EMPTY_ROOT(&vm->bos));
	xa_destroy(&vm->tables);
	drm_mm_takedown(&vm->mm);
	dma_resv_fini(&vm->resv);
	mutex_destroy(&vm->bind_lock);
	mutex_destroy(&vm->lock);
	ida_free(&tern_vm_ida, vm->id);
	kfree(vm);
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
	return &vm->resv;
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
		 * A change in progress frees its update's buffer before it
		 * releases this lock; its update's job was cancelled, so it
		 * does not wait for the device.  Garbage waiting for jobs (some
		 * may wait for foreign fences for long) is in @vm->reaping:
		 * its tables go now, the rest when its owner is done.
		 */
		mutex_lock(&vm->bind_lock);
		mutex_lock(&vm->lock);
		vm->unplugged = true;
		tern_pt_fini(&vm->pt);
		/* no TLB to invalidate: the device was reset */
		list_splice_tail_init(&vm->dead_tables, &g.tables);
		list_splice_tail_init(&vm->limbo.tables, &g.tables);
		list_for_each_entry(r, &vm->reaping, link)
			list_splice_tail_init(&r->tables, &g.tables);
		mutex_unlock(&vm->lock);
		tern_vm_free_tables(vm, &g.tables);
		mutex_unlock(&vm->bind_lock);
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
	struct drm_mm_node *node;

	mutex_lock(&vm->lock);
	drm_printf(p, "vm %u: root %#llx, %llu bytes mapped, %llu page tables\n",
		   vm->id, vm->pt.root ? tern_pt_root(&vm->pt) : 0, vm->mapped,
		   vm->pt.nr_tables);
	drm_printf(p, "  budget: %llu of %u tables, %llu of %u mappings,",
		   vm->nr_tables, DRM_TERN_VM_MAX_TABLES, vm->nr_mappings,
		   DRM_TERN_VM_MAX_MAPPINGS);
	drm_printf(p, " %llu of %llu bytes of BOs pinned\n", vm->pinned,
		   tern_vm_max_pinned());
	drm_mm_for_each_node(node, &vm->mm) {
		struct tern_vm_mapping *m =
			container_of(node, struct tern_vm_mapping, node);

		drm_printf(p, "  %#014llx-%#014llx %s bo %zu bytes%s at offset %#llx\n",
			   node->start, node->start + node->size,
			   m->read_only ? "ro" : "rw", tern_bo_size(m->bo),
			   m->bo->base.base.import_attach ? " (imported)" : "",
			   m->bo_offset);
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

/**
 * struct tern_vm_update - the DMA buffer of one change of an address space
 * @cpu: its CPU address: the packets, then the staged entries
 * @dma: its bus address
 * @size: bytes allocated
 * @staging: offset of the staged entries
 * @root: the root of the tree it changes
 * @dwords: length of the packets, 0 if the device has nothing to do
 * @failed: the change could not be recorded whole (a bug): it must not run
 * @run: what running it takes
 */
struct tern_vm_update {
	void *cpu;
	dma_addr_t dma;
	size_t size;
	size_t staging;
	u64 root;
	u32 dwords;
	bool failed;
	struct tern_bind_run run;
};

/*
 * Allocate the buffer of a change of [va, va + range) and what running it
 * takes, then open the update of the tree: from here on nothing can fail.
 */
static int tern_vm_update_begin(struct tern_vm *vm, u64 va, u64 range,
				struct tern_vm_update *u)
{
	struct tern_pt_update_room room;
	int ret;

	lockdep_assert_held(&vm->bind_lock);
	lockdep_assert_held(&vm->lock);
	tern_pt_update_size(&vm->pt, va, range / TERN_PAGE_SIZE, &room);
	u->staging = round_up(room.cmd_bytes, 64);
	u->size = u->staging + room.staging_bytes;
	u->cpu = dma_alloc_coherent(vm->tdev->drm.dev, u->size, &u->dma,
				    GFP_KERNEL);
	if (!u->cpu)
		return -ENOMEM;
	ret = tern_bind_prepare(vm->tdev, room.cmd_bytes, &u->run);
	if (ret) {
		dma_free_coherent(vm->tdev->drm.dev, u->size, u->cpu, u->dma);
		u->cpu = NULL;
		return ret;
	}
	u->root = tern_pt_root(&vm->pt);
	tern_pt_update_begin(&vm->pt, va, range / TERN_PAGE_SIZE,
			     u->cpu + u->staging, room.staging_bytes);
	return 0;
}

/* Close the update and write its buffer. */
static void tern_vm_update_end(struct tern_vm *vm, struct tern_vm_update *u,
			       bool invalidate)
{
	lockdep_assert_held(&vm->bind_lock);
	lockdep_assert_held(&vm->lock);
	u->failed = tern_pt_update_end(&vm->pt, u->cpu, u->dma + u->staging,
				       invalidate, &u->dwords) != 0;
}

/*
 * Run the update on the device and free its buffer; @vm->lock not held,
 * so that the VM's other users do not wait for the device.  A failure
 * leaves the device's tables somewhere between before and after: the VM
 * takes no other change (@vm->error).
 */
static int tern_vm_update_run(struct tern_vm *vm, struct tern_vm_update *u)
{
	int ret = 0;

	lockdep_assert_held(&vm->bind_lock);
	lockdep_assert_not_held(&vm->lock);
	if (u->failed)
		ret = -EIO;
	else if (u->dwords)
		ret = tern_bind_run(vm->tdev, &u->run, u->cpu, u->dma, u->dwords,
				    u->root);
	atomic64_add(u->run.device_ns, &vm->update_ns);
	tern_bind_release(&u->run);
	dma_free_coherent(vm->tdev->drm.dev, u->size, u->cpu, u->dma);
	u->cpu = NULL;
	if (ret)
		vm->error = drm_dev_is_unplugged(&vm->tdev->drm) ? -ENODEV : -EIO;
	return ret ? vm->error : 0;
}

/*
 * What a change removed, before @vm->bind_lock goes.  If the change did not
 * run, the device may still reach all of it: it stays with the address
 * space until it is released, and the return is false.  Otherwise every
 * engine's TLB is invalidated, before another change may reuse the range,
 * and the garbage is put where PCI remove finds its tables
 * (tern_vm_unplug()), for the caller to reap once it released
 * @vm->bind_lock: the return is true.
 */
static bool tern_vm_give_back(struct tern_vm *vm, struct tern_vm_garbage *g,
			      bool ran)
{
	lockdep_assert_held(&vm->bind_lock);
	if (!ran) {
		/*
		 * Even if remove has begun: until it reset the device, jobs
		 * may run on the entries the update did not clear.  Remove
		 * frees the tables (tern_vm_unplug()), the release the rest.
		 */
		list_splice_tail_init(&g->tables, &vm->limbo.tables);
		list_splice_tail_init(&g->mappings, &vm->limbo.mappings);
		return false;
	}
	/*
	 * The update flushed the copy engine's TLB; the other engines' go
	 * now, before another change of the address space may reuse the
	 * range.
	 */
	tern_device_tlb_invalidate(vm->tdev);
	mutex_lock(&vm->lock);
	list_add_tail(&g->link, &vm->reaping);
	mutex_unlock(&vm->lock);
	return true;
}

/*
 * Record the PTEs of [va, va + range) for the BO pages from @bo_offset, in
 * chunks of @addrs (TERN_VM_MAP_CHUNK entries), inside an open update
 * whose tables are reserved: only a BO whose sg table is shorter than it
 * (an exporter's bug) fails, and then what was recorded is unmapped again
 * in the same update.
 */
static int tern_vm_map_pages(struct tern_vm *vm, struct sg_table *sgt, u64 va,
			     u64 bo_offset, u64 range, u64 pte_flags, u64 *addrs)
{
	const unsigned int sub_per_page = PAGE_SIZE / TERN_PAGE_SIZE;
	unsigned int sub = (bo_offset % PAGE_SIZE) / TERN_PAGE_SIZE;
	u64 npages = range / TERN_PAGE_SIZE, done = 0, n = 0;
	struct sg_dma_page_iter it;
	int ret = 0;

	for_each_sgtable_dma_page(sgt, &it, bo_offset >> PAGE_SHIFT) {
		dma_addr_t addr = sg_page_iter_dma_address(&it);

		for (; sub < sub_per_page && done + n < npages; sub++) {
			addrs[n++] = addr + sub * TERN_PAGE_SIZE;
			if (n < TERN_VM_MAP_CHUNK)
				continue;
			ret = tern_pt_map(&vm->pt, va + done * TERN_PAGE_SIZE,
					  addrs, n, pte_flags);
			if (ret)
				goto err_unmap;
			done += n;
			n = 0;
		}
		sub = 0;
		if (done + n == npages)
			break;
	}
	if (n) {
		ret = tern_pt_map(&vm->pt, va + done * TERN_PAGE_SIZE, addrs, n,
				  pte_flags);
		if (ret)
			goto err_unmap;
		done += n;
	}
	/* The sg table is shorter than the BO: an exporter's bug. */
	if (WARN_ON(done != npages)) {
		ret = -EINVAL;
		goto err_unmap;
	}
	return 0;

err_unmap:
	/* tern_pt_map() itself fails only for a bug: tables are reserved */
	WARN_ON(ret != -EINVAL);
	tern_pt_unmap(&vm->pt, va, done);
	return ret;
}

static int tern_vm_map(struct tern_vm *vm, struct tern_bo *bo, u64 va,
		       u64 bo_offset, u64 range, bool read_only)
{
	struct tern_vm_update update = {};
	struct tern_vm_bo *vbo, *new_vbo;
	struct tern_vm_garbage garbage;
	struct tern_vm_mapping *m;
	struct sg_table *sgt;
	u64 needed, *addrs;
	int ret, err;

	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	new_vbo = kzalloc(sizeof(*new_vbo), GFP_KERNEL_ACCOUNT);
	addrs = kmalloc_array(TERN_VM_MAP_CHUNK, sizeof(*addrs), GFP_KERNEL);
	if (!m || !new_vbo || !addrs) {
		ret = -ENOMEM;
		goto err_free;
	}

	/*
	 * A BO that cannot fit the pinned budget is refused before pinning
	 * allocates its pages; checked again below, under the lock.
	 */
	mutex_lock(&vm->lock);
	ret = tern_vm_pin_budget(vm, bo) ? 0 : -ENOSPC;
	mutex_unlock(&vm->lock);
	if (ret)
		goto err_free;

	sgt = tern_bo_pin(bo);
	if (IS_ERR(sgt)) {
		ret = PTR_ERR(sgt);
		goto err_free;
	}

	ret = mutex_lock_interruptible(&vm->bind_lock);
	if (ret)
		goto err_unpin;
	ret = vm->error;
	if (ret)
		goto err_unlock_bind;
	mutex_lock(&vm->lock);
	if (vm->unplugged) {
		ret = -ENODEV;
		goto err_unlock;
	}
	if (range > DRM_TERN_VM_MAX_MAPPED - vm->mapped ||
	    vm->nr_mappings >= DRM_TERN_VM_MAX_MAPPINGS) {
		ret = -ENOSPC;
		goto err_unlock;
	}
	m->node.start = va;
	m->node.size = range;
	ret = drm_mm_reserve_node(&vm->mm, &m->node);
	if (ret) {
		/* -ENOSPC from drm_mm means the range is (partly) taken. */
		if (ret == -ENOSPC)
			ret = -EEXIST;
		goto err_unlock;
	}
	/* The budgets, before anything changes. */
	vbo = tern_vm_bo_find(vm, bo);
	needed = tern_pt_tables_needed(&vm->pt, va, range / TERN_PAGE_SIZE);
	if (!tern_vm_pin_budget(vm, bo) ||
	    needed > DRM_TERN_VM_MAX_TABLES - vm->nr_tables) {
		ret = -ENOSPC;
		goto err_remove;
	}
	/* Everything the update needs, so that it cannot fail half-way. */
	ret = tern_pt_reserve(&vm->pt, va, range / TERN_PAGE_SIZE);
	if (!ret)
		ret = tern_vm_update_begin(vm, va, range, &update);
	if (ret) {
		tern_pt_unreserve(&vm->pt);
		goto err_remove;
	}

	if (!vbo) {
		vbo = new_vbo;
		new_vbo = NULL;
		vbo->bo = bo;
		rb_add(&vbo->node, &vm->bos, tern_vm_bo_less);
		vm->pinned += tern_bo_size(bo);
	}
	vbo->mappings++;
	vm->nr_mappings++;
	m->bo = bo;
	m->vbo = vbo;
	m->bo_offset = bo_offset;
	m->read_only = read_only;
	vm->mapped += range;

	ret = tern_vm_map_pages(vm, sgt, va, bo_offset, range,
				read_only ? 0 : TERN_PTE_WRITABLE, addrs);
	tern_vm_update_end(vm, &update, ret != 0);
	tern_pt_unreserve(&vm->pt);
	mutex_unlock(&vm->lock);

	err = tern_vm_update_run(vm, &update);
	if (ret || err) {
		/*
		 * The mapping keeps a BO reference of its own: the caller
		 * drops the one it lent when this fails.
		 */
		drm_gem_object_get(&bo->base.base);
	}
	if (ret && !err) {
		/*
		 * The update mapped part of the range and unmapped it again,
		 * and ran: take the mapping down like an unmap.  If the
		 * update failed instead, the device may have made part of
		 * it: the mapping then stays with the address space until it
		 * is released.
		 */
		tern_vm_garbage_init(&garbage);
		mutex_lock(&vm->lock);
		vm->mapped -= range;
		drm_mm_remove_node(&m->node);
		list_add_tail(&m->link, &garbage.mappings);
		tern_vm_retire(vm, &garbage);
		mutex_unlock(&vm->lock);
		tern_vm_give_back(vm, &garbage, true);
	}
	mutex_unlock(&vm->bind_lock);
	if (ret && !err)
		tern_vm_reap(vm, &garbage);
	kfree(addrs);
	kfree(new_vbo);
	/* a failed run says more than what it ran for */
	return err ?: ret;

err_remove:
	drm_mm_remove_node(&m->node);
err_unlock:
	mutex_unlock(&vm->lock);
err_unlock_bind:
	mutex_unlock(&vm->bind_lock);
err_unpin:
	tern_bo_unpin(bo);
err_free:
	kfree(addrs);
	kfree(new_vbo);
	kfree(m);
	return ret;
}

static int tern_vm_unmap(struct tern_vm *vm, u64 va, u64 range)
{
	struct tern_vm_update update = {};
	struct tern_vm_garbage garbage;
	struct tern_vm_mapping *m;
	struct drm_mm_node *node;
	long timeout;
	bool reap;
	int ret = 0;

	/* Every job submitted so far may use the range: let them finish. */
	timeout = dma_resv_wait_timeout(&vm->resv, DMA_RESV_USAGE_BOOKKEEP, true,
					MAX_SCHEDULE_TIMEOUT);
	if (timeout < 0)
		return timeout;

	tern_vm_garbage_init(&garbage);
	ret = mutex_lock_interruptible(&vm->bind_lock);
	if (ret)
		return ret;
	ret = vm->error;
	if (ret)
		goto out_unlock_bind;
	mutex_lock(&vm->lock);
	if (vm->unplugged) {
		ret = -ENODEV;
		goto out_unlock;
	}
	drm_mm_for_each_node_in_range(node, &vm->mm, va, va + range) {
		if (node->start < va || node->start + node->size > va + range) {
			ret = -EINVAL;
			goto out_unlock;
		}
		list_add_tail(&container_of(node, struct tern_vm_mapping, node)->link,
			      &garbage.mappings);
	}
	if (list_empty(&garbage.mappings)) {
		ret = -ENOENT;
		goto out_unlock;
	}
	ret = tern_vm_update_begin(vm, va, range, &update);
	if (ret)
		goto out_unlock;

	/*
	 * The range holds these mappings and nothing else: unmapping it
	 * whole cuts off the tables it spans with the fewest entries, and
	 * keeps the update inside the range its buffer was sized for.
	 */
	tern_pt_unmap(&vm->pt, va, range / TERN_PAGE_SIZE);
	list_for_each_entry(m, &garbage.mappings, link) {
		vm->mapped -= m->node.size;
		drm_mm_remove_node(&m->node);
	}
	tern_vm_update_end(vm, &update, true);
	tern_vm_retire(vm, &garbage);
	mutex_unlock(&vm->lock);

	ret = tern_vm_update_run(vm, &update);
	reap = tern_vm_give_back(vm, &garbage, !ret);
	mutex_unlock(&vm->bind_lock);
	/* jobs submitted since the first wait may still reach the range */
	if (reap)
		tern_vm_reap(vm, &garbage);
	return ret;

out_unlock:
	INIT_LIST_HEAD(&garbage.mappings);
	mutex_unlock(&vm->lock);
out_unlock_bind:
	mutex_unlock(&vm->bind_lock);
	return ret;
}

/**
 * tern_vm_map_read_only() - map a BO the kernel made read-only for the
 *	device, as DRM_IOCTL_TERN_VM_BIND would map it
 * @vm: the address space
 * @bo: the BO (the mapping takes a reference of its own)
 * @va: where, with the alignment and range VM_BIND requires
 * @range: bytes from the BO's start, a multiple of %DRM_TERN_PAGE_SIZE
 *
 * The mapping then belongs to the address space like any other: it lasts
 * until the file unmaps it with VM_BIND or is closed.  Called with no tern
 * lock held.
 *
 * Return: 0; -EINVAL, -ERANGE, -EEXIST or -ENOSPC as VM_BIND returns them;
 * -ENOMEM.
 */
int tern_vm_map_read_only(struct tern_vm *vm, struct tern_bo *bo, u64 va,
			  u64 range)
{
	int ret;

	if (!range || !IS_ALIGNED(va, DRM_TERN_PAGE_SIZE) ||
	    !IS_ALIGNED(range, DRM_TERN_PAGE_SIZE) || range > tern_bo_size(bo))
		return -EINVAL;
	if (va < DRM_TERN_VA_START || va >= TERN_VA_END ||
	    range > TERN_VA_END - va)
		return -ERANGE;
	drm_gem_object_get(&bo->base.base);
	ret = tern_vm_map(vm, bo, va, 0, range, true);
	if (ret)
		drm_gem_object_put(&bo->base.base);
	return ret;
}

/**
 * tern_vm_bind_ioctl() - DRM_IOCTL_TERN_VM_BIND
 * @dev: the DRM device
 * @data: &struct drm_tern_vm_bind
 * @file: the caller's file, whose address space is changed
 *
 * Return: 0 or a negative errno, see &struct drm_tern_vm_bind.
 */
int tern_vm_bind_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct tern_vm *vm = to_tern_file(file)->vm;
	struct drm_tern_vm_bind *args = data;
	struct drm_gem_object *obj;
	int ret, idx;

	if (args->pad)
		return -EINVAL;
	switch (args->op) {
	case DRM_TERN_VM_BIND_OP_MAP:
		if (args->flags & ~DRM_TERN_VM_BIND_READ_ONLY)
			return -EINVAL;
		break;
	case DRM_TERN_VM_BIND_OP_UNMAP:
		if (args->flags || args->handle || args->bo_offset)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (!args->range || !IS_ALIGNED(args->va, DRM_TERN_PAGE_SIZE) ||
	    !IS_ALIGNED(args->bo_offset, DRM_TERN_PAGE_SIZE) ||
	    !IS_ALIGNED(args->range, DRM_TERN_PAGE_SIZE))
		return -EINVAL;
	if (args->va < DRM_TERN_VA_START || args->va >= TERN_VA_END ||
	    args->range > TERN_VA_END - args->va)
		return -ERANGE;

	if (args->op == DRM_TERN_VM_BIND_OP_UNMAP) {
		/*
		 * Not inside drm_dev_enter(): the wait for the jobs must not
		 * hold up an unplug, which is what ends them.
		 */
		if (drm_dev_is_unplugged(dev))
			return -ENODEV;
		return tern_vm_unmap(vm, args->va, args->range);
	}

	if (!drm_dev_enter(dev, &idx))
		return -ENODEV;

	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj) {
		ret = -ENOENT;
		goto out_exit;
	}
	if (args->bo_offset > obj->size || args->range > obj->size - args->bo_offset) {
		ret = -EINVAL;
		goto out_put;
	}
	/* On success the mapping keeps the lookup's reference. */
	ret = tern_vm_map(vm, to_tern_bo(obj), args->va, args->bo_offset,
			  args->range, args->flags & DRM_TERN_VM_BIND_READ_ONLY);
	if (!ret)
		goto out_exit;
out_put:
	drm_gem_object_put(obj);
out_exit:
	drm_dev_exit(idx);
	return ret;
}
