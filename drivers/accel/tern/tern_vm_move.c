// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/dma-fence.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/wait_bit.h>

#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_gpuvm.h>

#include "tern_device.h"
#include "tern_gem.h"
#include "tern_vm.h"
#include "tern_vm_priv.h"

/**
 * DOC: moves
 *
 * A LOCAL or LOCAL_PREFERRED BO moves between local and system memory
 * while address spaces map it (tern_bo_movable()): evicted to make room
 * for another, paged back in for a job that lists it.  Its mappings follow
 * it: tern_vm_bo_move_begin() and tern_vm_bo_move_end(), called by the move
 * (tern_ttm.c) once the data is at the new place and before the old one is
 * freed, rewrite the entries
 * of every mapping of the BO in every address space (a *retarget*), then
 * invalidates the TLBs and waits, with __tern_device_tlb_barrier(), until no
 * engine can still use a translation to the old place.  So the old place
 * is never given to another BO while a job could reach it, whether or not
 * the job listed the BO; a job that uses a BO it does not list may lose
 * what it writes while the BO moves under it, nothing else.
 *
 * The change of an address space is recorded and run like a bind's
 * operation (an update on the copy engine, a DMA buffer of PHYS_COPYs) but
 * not queued behind the binds: the mover becomes the address space's
 * runner of the binds (&tern_vm.running) for as long as it records and
 * runs its updates, so that no bind's update is recorded or runs in
 * between, and leaves the binds queued meanwhile to the worker.  A bind
 * that waits for its in-fences, another process's say, does not hold a
 * move up.  Only *live* mappings are rewritten (&tern_vm_mapping.live):
 * those whose entries are in the tables.  A queued map of the BO has none
 * yet, and pins the BO, which then does not move; a queued unmap's
 * mapping is live until its update ran, which is in order either way.
 *
 * Failure is not an option once the address spaces are held: the old place
 * goes once tern_vm_bo_move_end() returns.
 * An update that cannot be allocated, or that the copy engine fails to
 * make, is written by the CPU into the tables instead (the tables are
 * system memory the CPU reaches), under &tern_vm.lock; the TLB
 * invalidation and the barrier that follow make it visible as any other.
 *
 * Locking: called with the BO's reservation held (TTM's move); takes the
 * BO's &tern_bo.gpuva_lock alone to list the address spaces, then for
 * each the runner role and &tern_vm.lock (with gpuva_lock inside it).  A
 * runner never takes a reservation, so waiting for one while holding
 * reservations cannot deadlock.  The address spaces are held by a
 * reference on their gpuvm (memory only); one whose release started
 * (&tern_vm.released) or whose device is gone is skipped: no job runs in
 * it any more.  One whose change failed on the device (&tern_vm.error)
 * refuses the move: its tables may hold entries the driver removed.
 */

/* Become the runner of @vm's binds; false if nothing may change it. */
static bool tern_vm_runner_get(struct tern_vm *vm)
{
	mutex_lock(&vm->lock);
	while (vm->running && !vm->unplugged && !vm->released) {
		mutex_unlock(&vm->lock);
		wait_var_event(&vm->running, !READ_ONCE(vm->running));
		mutex_lock(&vm->lock);
	}
	if (vm->unplugged || vm->released) {
		mutex_unlock(&vm->lock);
		return false;
	}
	WRITE_ONCE(vm->running, true);
	mutex_unlock(&vm->lock);
	return true;
}

static void tern_vm_runner_put(struct tern_vm *vm)
{
	mutex_lock(&vm->lock);
	/* the worker returned at once while this ran: its binds wait */
	if (!list_empty(&vm->binds))
		queue_work(vm->tdev->bind.wq, &vm->bind_work);
	WRITE_ONCE(vm->running, false);
	mutex_unlock(&vm->lock);
	/* wake_up_var() looks for waiters unlocked: order the store first */
	smp_mb();
	wake_up_var(&vm->running);
}

/*
 * Updates a move allocates, at most, for all its address spaces, and the
 * largest: the CPU writes the other mappings.
 */
#define TERN_MOVE_MAX_UPDATES		16
#define TERN_MOVE_MAX_UPDATE_BYTES	SZ_1M

/**
 * struct tern_move_range - a mapping of the moved BO, and its update
 * @va: its first VA
 * @range: its bytes
 * @bo_offset: offset in the BO of its first byte
 * @pte_flags: TERN_PTE_WRITABLE or 0
 * @update: its update, allocated ahead (@update.cpu NULL if that failed)
 * @used: taken for a live mapping
 */
struct tern_move_range {
	u64 va;
	u64 range;
	u64 bo_offset;
	u64 pte_flags;
	struct tern_vm_update update;
	bool used;
};

/**
 * struct tern_move_vm - an address space a move holds still
 * @vm: the address space (a reference on its gpuvm)
 * @ranges: the mappings of the BO in it, as listed before the move held
 *	it, each with its update
 * @nr_ranges: entries of @ranges
 * @held: the move is its runner of the binds
 */
struct tern_move_vm {
	struct tern_vm *vm;
	struct tern_move_range *ranges;
	u32 nr_ranges;
	bool held;
};

/*
 * List the mappings of @bo in @vm, live or not, into @ranges (at most
 * @max).  Return: how many there are.
 */
static u32 tern_vm_move_list(struct tern_vm *vm, struct tern_bo *bo,
			     struct tern_move_range *ranges, u32 max)
{
	struct drm_gpuvm_bo *vm_bo;
	struct drm_gpuva *va;
	u32 n = 0;

	mutex_lock(&bo->gpuva_lock);
	vm_bo = drm_gpuvm_bo_find(&vm->gpuvm, tern_bo_obj(bo));
	if (vm_bo) {
		drm_gpuvm_bo_for_each_va(va, vm_bo) {
			struct tern_vm_mapping *m = to_tern_vm_mapping(va);

			if (n < max) {
				ranges[n].va = va->va.addr;
				ranges[n].range = va->va.range;
				ranges[n].bo_offset = va->gem.offset;
				ranges[n].pte_flags = m->read_only ? 0 :
						      TERN_PTE_WRITABLE;
			}
			n++;
		}
		/* drm_gpuvm_bo_find() took a reference: never the last one */
		drm_gpuvm_bo_put(vm_bo);
	}
	mutex_unlock(&bo->gpuva_lock);
	return n;
}

/*
 * Allocate, before the address space is held, an update for each mapping
 * of @bo in it: holding it holds up its binds' fences, so nothing is
 * allocated then.  What fails here is written by the CPU later, and so
 * are the mappings beyond the move's @budget of updates (whatever
 * processes make of their mappings, a move costs at most
 * %TERN_MOVE_MAX_UPDATES of them) and those whose update would be larger
 * than %TERN_MOVE_MAX_UPDATE_BYTES.  The large allocations do not retry
 * reclaim.
 */
static void tern_vm_move_prepare(struct tern_move_vm *mvm, struct tern_bo *bo,
				 u32 *budget)
{
	const gfp_t gfp = GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN;
	u32 n, listed, i;

	if (READ_ONCE(mvm->vm->released))
		return;
	n = tern_vm_move_list(mvm->vm, bo, NULL, 0);
	if (!n || n > *budget)
		return;
	mvm->ranges = kcalloc(n, sizeof(*mvm->ranges), gfp);
	if (!mvm->ranges)
		return;
	/* a cut may have added pieces meanwhile: they go by the CPU */
	listed = tern_vm_move_list(mvm->vm, bo, mvm->ranges, n);
	mvm->nr_ranges = min(n, listed);
	for (i = 0; i < mvm->nr_ranges; i++) {
		struct tern_move_range *r = &mvm->ranges[i];
		struct tern_pt_update_room room;

		tern_pt_retarget_size(r->va, r->range / TERN_PAGE_SIZE, &room);
		if (room.cmd_bytes + room.staging_bytes > TERN_MOVE_MAX_UPDATE_BYTES)
			continue;
		if (tern_vm_update_alloc_room(mvm->vm, &r->update, &room, gfp))
			break;
		(*budget)--;
	}
}

static void tern_vm_move_release(struct tern_move_vm *mvm)
{
	u32 i;

	for (i = 0; i < mvm->nr_ranges; i++)
		tern_vm_update_free(mvm->vm, &mvm->ranges[i].update);
	kfree(mvm->ranges);
	mvm->ranges = NULL;
	mvm->nr_ranges = 0;
}

/* An update prepared for [va, va + range), not yet used, or NULL. */
static struct tern_move_range *tern_vm_move_find(struct tern_move_vm *mvm,
						 u64 va, u64 range)
{
	u32 i;

	for (i = 0; i < mvm->nr_ranges; i++) {
		struct tern_move_range *r = &mvm->ranges[i];

		if (!r->used && r->update.cpu && r->va == va && r->range == range) {
			r->used = true;
			return r;
		}
	}
	return NULL;
}

/*
 * Rewrite the live mappings of @bo in the held address space to @to: each
 * by its update on the copy engine, or by the CPU.  On the signalling side
 * of the address space's binds: allocates nothing.
 */
static void tern_vm_move_one(struct tern_move_vm *mvm, struct tern_bo *bo,
			     const struct tern_bo_backing *to)
{
	struct tern_vm *vm = mvm->vm;
	struct tern_paging *pg = &vm->tdev->paging;
	struct drm_gpuvm_bo *vm_bo;
	struct drm_gpuva *va;
	bool cpu = false;

	/*
	 * The runner's: no bind records meanwhile, so the live mappings
	 * stay these (the VA tree may change, but not what is live).
	 */
	mutex_lock(&vm->lock);
	mutex_lock(&bo->gpuva_lock);
	vm_bo = drm_gpuvm_bo_find(&vm->gpuvm, tern_bo_obj(bo));
	if (vm_bo) {
		drm_gpuvm_bo_for_each_va(va, vm_bo) {
			struct tern_vm_mapping *m = to_tern_vm_mapping(va);
			struct tern_move_range *r;

			if (!m->live)
				continue;
			atomic64_inc(&pg->retargets);
			r = tern_vm_move_find(mvm, va->va.addr, va->va.range);
			if (!r) {
				cpu = true;
				continue;
			}
			r->bo_offset = va->gem.offset;
			r->pte_flags = m->read_only ? 0 : TERN_PTE_WRITABLE;
		}
		drm_gpuvm_bo_put(vm_bo);
	}
	mutex_unlock(&bo->gpuva_lock);
	mutex_unlock(&vm->lock);

	/* each update recorded, then run, before the next one begins */
	for (u32 i = 0; i < mvm->nr_ranges; i++) {
		struct tern_move_range *r = &mvm->ranges[i];
		int ret;

		if (!r->used)
			continue;
		mutex_lock(&vm->lock);
		tern_vm_update_begin(vm, &r->update, r->va, r->range);
		ret = tern_vm_put_pages(vm, to, r->va, r->bo_offset, r->range,
					r->pte_flags, true);
		tern_vm_update_end(vm, &r->update, true);
		mutex_unlock(&vm->lock);
		/* recorded: the tree says the new place, whatever happens now */
		if (ret || tern_vm_update_run(vm, &r->update))
			cpu = true;
	}
	if (!cpu)
		return;
	/*
	 * An update failed, or was not there: the CPU writes the entries of
	 * every live mapping, those the device wrote again (the same
	 * values).
	 */
	mutex_lock(&vm->lock);
	mutex_lock(&bo->gpuva_lock);
	vm_bo = drm_gpuvm_bo_find(&vm->gpuvm, tern_bo_obj(bo));
	if (vm_bo && !vm->unplugged) {
		drm_gpuvm_bo_for_each_va(va, vm_bo) {
			struct tern_vm_mapping *m = to_tern_vm_mapping(va);

			if (!m->live)
				continue;
			tern_vm_put_pages(vm, to, va->va.addr, va->gem.offset,
					  va->va.range,
					  m->read_only ? 0 : TERN_PTE_WRITABLE,
					  true);
			atomic64_inc(&pg->retarget_cpu);
			cond_resched();
		}
	}
	if (vm_bo)
		drm_gpuvm_bo_put(vm_bo);
	mutex_unlock(&bo->gpuva_lock);
	mutex_unlock(&vm->lock);
}

static int tern_vm_move_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct tern_move_vm *)a)->vm;
	uintptr_t y = (uintptr_t)((const struct tern_move_vm *)b)->vm;

	return x < y ? -1 : x > y;
}

/* Drop what tern_vm_bo_move_begin() took. */
static void tern_vm_move_put(struct tern_vm_move *mv)
{
	u32 i;

	for (i = 0; i < mv->nr_vms; i++) {
		struct tern_move_vm *mvm = &mv->vms[i];

		/* DMA memory of the device: before PCI remove may go on */
		tern_vm_move_release(mvm);
		if (mvm->held)
			tern_vm_runner_put(mvm->vm);
		drm_gpuvm_put(&mvm->vm->gpuvm);
	}
	kvfree(mv->vms);
	mv->vms = NULL;
	mv->nr_vms = 0;
}

/**
 * tern_vm_bo_stuck() - whether a BO maps in an address space that failed
 * @bo: the BO
 *
 * Such an address space's tables may hold entries the driver removed,
 * which a retarget would miss: its BOs do not move
 * (tern_vm_bo_move_begin() refuses).  A racy look, to avoid paging a BO
 * for nothing; tern_vm_bo_move_begin() has the last word.
 *
 * Return: true if some address space that maps @bo has &tern_vm.error.
 */
bool tern_vm_bo_stuck(struct tern_bo *bo)
{
	struct drm_gpuvm_bo *vm_bo;
	bool stuck = false;

	mutex_lock(&bo->gpuva_lock);
	drm_gem_for_each_gpuvm_bo(vm_bo, tern_bo_obj(bo))
		stuck |= !!READ_ONCE(to_tern_vm(vm_bo->vm)->error);
	mutex_unlock(&bo->gpuva_lock);
	return stuck;
}

/**
 * tern_vm_bo_move_begin() - hold still every address space that maps a BO
 * @bo: the BO, reserved, a movable one (tern_bo_movable()), whose data is
 *	at its new place already
 * @mv: out: what is held, for tern_vm_bo_move_end()
 *
 * Allocates the updates of the mappings of @bo, then becomes the runner
 * of the binds of every address space that maps it (in the order of
 * their addresses, so that two moves cannot wait for each other), so
 * that none of them changes until the move ends.  From there to the end
 * of tern_vm_bo_move_end() the binds' fences wait for the move: a
 * fence-signalling section.  Within drm_dev_enter(): PCI remove waits for
 * the move, whose updates are DMA memory of the device.
 *
 * Return: 0; -EBUSY if one of them failed a change on the device
 * (&tern_vm.error): the device's tables may hold entries the driver
 * removed, which a retarget would miss, so the BO stays where it is;
 * -ENODEV the device is gone (nothing to follow the move); -ENOMEM.  On
 * error nothing is held.
 */
int tern_vm_bo_move_begin(struct tern_bo *bo, struct tern_vm_move *mv)
{
	struct tern_device *tdev = to_tern_device(tern_bo_obj(bo)->dev);
	struct drm_gpuvm_bo *vm_bo;
	u32 n, i, budget;

	dma_resv_assert_held(tern_bo_obj(bo)->resv);
	mv->vms = NULL;
	mv->nr_vms = 0;
	if (!drm_dev_enter(&tdev->drm, &mv->idx))
		return -ENODEV;
	/*
	 * Nothing can add an address space meanwhile: a map pins the BO
	 * first, under the reservation the caller holds.
	 */
	mutex_lock(&bo->gpuva_lock);
	n = 0;
	drm_gem_for_each_gpuvm_bo(vm_bo, tern_bo_obj(bo))
		n++;
	mutex_unlock(&bo->gpuva_lock);
	if (n) {
		mv->vms = kvcalloc(n, sizeof(*mv->vms), GFP_KERNEL);
		if (!mv->vms) {
			drm_dev_exit(mv->idx);
			return -ENOMEM;
		}
	}
	mutex_lock(&bo->gpuva_lock);
	drm_gem_for_each_gpuvm_bo(vm_bo, tern_bo_obj(bo)) {
		if (mv->nr_vms == n)
			break;
		mv->vms[mv->nr_vms++].vm = to_tern_vm(drm_gpuvm_get(vm_bo->vm));
	}
	mutex_unlock(&bo->gpuva_lock);

	for (i = 0, budget = TERN_MOVE_MAX_UPDATES; i < mv->nr_vms; i++)
		tern_vm_move_prepare(&mv->vms[i], bo, &budget);
	sort(mv->vms, mv->nr_vms, sizeof(*mv->vms), tern_vm_move_cmp, NULL);
	mv->cookie = dma_fence_begin_signalling();
	for (i = 0; i < mv->nr_vms; i++) {
		struct tern_move_vm *mvm = &mv->vms[i];

		/* not held: nothing to change there, no job runs in it */
		mvm->held = tern_vm_runner_get(mvm->vm);
		/* a runner is the only one to set it: stable from here */
		if (mvm->held && READ_ONCE(mvm->vm->error)) {
			tern_vm_move_put(mv);
			dma_fence_end_signalling(mv->cookie);
			drm_dev_exit(mv->idx);
			return -EBUSY;
		}
	}
	return 0;
}

/**
 * tern_vm_bo_move_end() - make every mapping of a BO follow its move
 * @bo: the BO, reserved
 * @to: where its data is now: its pages mapped for DMA, or its blocks of
 *	local memory
 * @mv: what tern_vm_bo_move_begin() held
 *
 * See "DOC: moves".  When this returns, every address space that maps
 * @bo maps @to, and no engine can reach the old place through a
 * translation made before: the caller may free it.  Does not fail.
 *
 * Context: process context; may sleep; the BO's reservation held, no
 * &tern_vm.lock nor &tern_bo.gpuva_lock.
 */
void tern_vm_bo_move_end(struct tern_bo *bo, const struct tern_bo_backing *to,
			 struct tern_vm_move *mv)
{
	struct tern_device *tdev = to_tern_device(tern_bo_obj(bo)->dev);
	bool changed = false;
	u32 i;

	for (i = 0; i < mv->nr_vms; i++) {
		if (!mv->vms[i].held)
			continue;
		tern_vm_move_one(&mv->vms[i], bo, to);
		changed = true;
	}
	tern_vm_move_put(mv);
	dma_fence_end_signalling(mv->cookie);
	if (changed) {
		/*
		 * Each update flushed the copy engine's TLB; the other
		 * engines' go now, then wait for the chunks they translated
		 * before.
		 */
		__tern_device_tlb_invalidate(tdev);
		__tern_device_tlb_barrier(tdev);
	}
	drm_dev_exit(mv->idx);
}
