// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/lockdep.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gpuvm.h>
#include <drm/drm_print.h>

#include <drm/tern_accel.h>

#include "tern_bind.h"
#include "tern_device.h"
#include "tern_drv.h"
#include "tern_gem.h"
#include "tern_local_mgr.h"
#include "tern_pt.h"
#include "tern_sync.h"
#include "tern_vm.h"
#include "tern_vm_priv.h"

/**
 * DOC: binds
 *
 * A change of an address space is a *bind*: one or more operations (map,
 * unmap), queued by DRM_IOCTL_TERN_VM_BIND_OPS (or DRM_IOCTL_TERN_VM_BIND,
 * a bind of one operation that the ioctl waits for), with in-fences and an
 * out-fence.  The binds of an address space run one at a time, in the
 * order they were queued (&tern_vm.binds), by a work item of the device's
 * bind workqueue (&tern_vm.bind_work).
 *
 * At the ioctl: every operation is checked against the address space as
 * the binds queued before it leave it (the VA tree of &tern_vm.gpuvm is
 * that view), and applied to it: a map's range is taken, an unmap's
 * mappings are removed, and with %DRM_TERN_VM_BIND_CUT those that cross an
 * end of its range are cut there (drm_gpuvm_sm_unmap(): the mapping is
 * replaced by the pieces left outside the range, new mappings of the same
 * BO).  A map with %DRM_TERN_VM_BIND_REPLACE is such an unmap of its range,
 * then the map.
 * So a bad operation fails at the ioctl, with nothing queued.  Everything
 * running the bind takes is allocated there too: the BO's pages pinned,
 * the most page tables the map can need (tern_pt_tables_split() of an
 * empty tree, or the exact count when nothing is queued ahead), the DMA
 * buffer of each update (tern_pt_update_size_max()), its job and fences
 * (tern_bind_prepare()).  The out-fence is made last, under
 * &tern_vm.bind_lock with the rest, and installed in the out-syncs.
 *
 * An unmap (or a map that replaces) depends on the jobs that can reach its
 * range: the fences of the reservation objects of the BOs it unmaps, which
 * the submit path adds
 * every job that lists the BO to.  Jobs that use a range without listing
 * its BO may fault once the bind ran.  DRM_IOCTL_TERN_VM_BIND's unmap
 * keeps its stronger promise by waiting for all the jobs of the file first.
 *
 * The worker (tern_vm_bind_work()) takes the first bind once its in-fences
 * signalled.  A bind queued alone by an ioctl that waits for it
 * (DRM_IOCTL_TERN_VM_BIND, or SYNC) is run by that ioctl instead, up to
 * that bind, which spares the worker's wake-up (tern_vm_binds_run(): one
 * runner at a time).  It is on the fence-signalling side of the binds' fences: it
 * allocates nothing and takes only &tern_vm.lock, the BOs' gpuva_lock
 * under it, and the reset lock.  For
 * each operation it records the change into its update under
 * &tern_vm.lock (tern_pt takes new tables from the bind's pool), runs it
 * on the copy engine (tern_bind_run(), no lock held), and after an unmap
 * invalidates every engine's TLB, before the next operation may map the
 * range again.  The removed tables and mappings are then reaped by
 * &tern_vm.reap_work: once every job that may still hold translations of
 * them finished (tern_vm_reap()), not on the signalling side.
 *
 * Failure leaves the address space as it was.  A bind one of whose
 * in-fences failed does not run: it fails with that error, and every bind
 * queued after it, which was checked against the address space it would
 * have made, is cancelled (-ECANCELED); their operations are undone, the
 * last first, so that the bookkeeping is again what the binds that ran
 * made of it.  The error is kept for DRM_IOCTL_TERN_VM_GET_STATE.  A bind
 * the device fails to make (the copy engine lost, TERN_BIND_TRIES
 * failures) sets &tern_vm.error: the address space takes no other change.
 */

/**
 * struct tern_vm_op - one operation of a bind
 * @op: enum drm_tern_vm_bind_op
 * @flags: its DRM_TERN_VM_BIND_* flags
 * @va: first VA
 * @range: bytes
 * @bo_offset: a map's offset in its BO
 * @bo: a map's BO, referenced
 * @m: a map's mapping, while the operation owns it (not yet run, or
 *	undone)
 * @vm_bo: a map's entry of its BO in the VM, preallocated, until the map
 *	is applied
 * @backing: where the device reaches a map's BO, pinned
 * @pins: pins of @bo's pages the operation holds: its own, until the map
 *	makes the BO's first mapping in the VM, which hands it to the VM;
 *	plus the VM's, which an undo of the BO's last mapping hands back.  A
 *	BO that moves keeps its own until the bind is reaped, and the VM
 *	none
 * @applied: the operation changed the VA tree (and the budget) and is
 *	neither undone nor run: what it changed is still its own
 * @charge: page tables a map is charged for until it ran
 * @removed: the mappings its range took off the VA tree, whole or cut
 *	(&tern_vm_mapping.link)
 * @cleared: it removed something when it ran: the TLBs are invalidated
 *	and its garbage reaped
 * @spare: the pieces of the mappings it cuts, allocated ahead: at most
 *	one mapping crosses each end of the range
 * @cut: entries of @spare in the VA tree, the pieces left of the mappings
 *	it cut, until it ran (then they are the address space's)
 * @pool: a map's page tables, allocated for the worst case
 * @update: the DMA buffer of its change
 * @garbage: what the change took off the address space
 */
struct tern_vm_op {
	u32 op;
	u32 flags;
	u64 va;
	u64 range;
	u64 bo_offset;
	struct tern_bo *bo;
	struct tern_vm_mapping *m;
	struct drm_gpuvm_bo *vm_bo;
	struct tern_bo_backing backing;
	unsigned int pins;
	bool applied;
	u64 charge;
	struct list_head removed;
	bool cleared;
	struct tern_vm_mapping *spare[2];
	u32 cut;
	struct tern_pt_pool pool;
	struct tern_vm_update update;
	struct tern_vm_garbage garbage;
};

/*
 * Whether the operation removes what its range holds: an unmap, or a map
 * that replaces.
 */
static bool tern_vm_op_removes(const struct tern_vm_op *op)
{
	return op->op == DRM_TERN_VM_BIND_OP_UNMAP ||
	       op->flags & DRM_TERN_VM_BIND_REPLACE;
}

/* Whether it may cut the mappings that cross the ends of its range. */
static bool tern_vm_op_cuts(const struct tern_vm_op *op)
{
	return op->flags & (DRM_TERN_VM_BIND_CUT | DRM_TERN_VM_BIND_REPLACE);
}

/**
 * struct tern_vm_fence - the out-fence of a bind
 * @base: the fence; first, for dma_fence_free()
 * @lock: its lock
 */
struct tern_vm_fence {
	struct dma_fence base;
	spinlock_t lock; /* the fence's */
};

/**
 * struct tern_vm_bind - a bind: operations run in order, as one step
 * @refcount: the queue's reference, and a waiting ioctl's
 * @vm: the address space
 * @link: in &tern_vm.binds, then in &tern_vm.done
 * @seqno: its number in the address space, from 1
 * @fence: its out-fence, allocated with it, initialised once it has its
 *	place in the queue
 * @deps: fences it waits for before it runs: the in-syncs', then those of
 *	the users of the BOs it unmaps
 * @nr_deps: entries of @deps
 * @nr_in_deps: the in-syncs' among them: only their errors fail the bind
 * @next_dep: first of @deps not known to have signalled
 * @cb: callback on @deps[@next_dep] while @cb_armed
 * @cb_armed: @cb is on a fence
 * @ready: its ioctl is done with it: the worker may take it
 * @cancelled: it does not run (more): undone, or not to be run further
 * @error: the error its fence signals with
 * @next_op: first operation not run
 * @waited: its ioctl waits for it and reaps its garbage itself
 * @garbage: what the operations that ran removed, for tern_vm_reap()
 * @nr_ops: entries of @ops
 * @ops: the operations
 *
 * Protected by &tern_vm.lock, but for what the worker does with the bind
 * it runs (&tern_vm.executing): nobody else touches that one.
 */
struct tern_vm_bind {
	struct kref refcount;
	struct tern_vm *vm;
	struct list_head link;
	u64 seqno;
	struct tern_vm_fence *fence;
	struct dma_fence **deps;
	u32 nr_deps;
	u32 nr_in_deps;
	u32 next_dep;
	struct dma_fence_cb cb;
	bool cb_armed;
	bool ready;
	bool cancelled;
	int error;
	u32 next_op;
	bool waited;
	struct tern_vm_garbage garbage;
	u32 nr_ops;
	struct tern_vm_op ops[] __counted_by(nr_ops);
};

static const char *tern_vm_fence_driver_name(struct dma_fence *fence)
{
	return "tern";
}

static const char *tern_vm_fence_timeline_name(struct dma_fence *fence)
{
	return "vm-bind";
}

/*
 * A bind's fence outlives the bind, its address space and maybe the
 * device in syncobjs and sync_files: it has a lock of its own and pins the
 * module until its last reference goes.  May run in any context.
 */
static void tern_vm_fence_release(struct dma_fence *fence)
{
	dma_fence_free(fence);
	module_put(THIS_MODULE);
}

static const struct dma_fence_ops tern_vm_fence_ops = {
	.get_driver_name = tern_vm_fence_driver_name,
	.get_timeline_name = tern_vm_fence_timeline_name,
	.release = tern_vm_fence_release,
};

static void tern_vm_fence_init(struct tern_vm *vm, struct tern_vm_fence *f,
			       u64 seqno)
{
	__module_get(THIS_MODULE);
	spin_lock_init(&f->lock);
	dma_fence_init(&f->base, &tern_vm_fence_ops, &f->lock, vm->fence_context,
		       seqno);
}

/* ---- the updates: allocated at the ioctl, recorded and run by the worker */

/*
 * Allocate the buffer of an update of the room @room needs: the packets,
 * then the staged entries; and its job.
 */
int tern_vm_update_alloc_room(struct tern_vm *vm, struct tern_vm_update *u,
			      const struct tern_pt_update_room *room_in, gfp_t gfp)
{
	struct tern_pt_update_room r = *room_in, *room = &r;
	int ret;

	u->staging = round_up(room->cmd_bytes, 64);
	u->staging_bytes = room->staging_bytes;
	u->size = u->staging + room->staging_bytes;
	u->cpu = dma_alloc_coherent(vm->tdev->drm.dev, u->size, &u->dma, gfp);
	if (!u->cpu)
		return -ENOMEM;
	ret = tern_bind_prepare(vm->tdev, room->cmd_bytes, &u->run);
	if (ret) {
		dma_free_coherent(vm->tdev->drm.dev, u->size, u->cpu, u->dma);
		u->cpu = NULL;
	}
	return ret;
}

static int tern_vm_update_alloc(struct tern_vm *vm, struct tern_vm_update *u,
				u64 va, u64 range)
{
	struct tern_pt_update_room room;

	tern_pt_update_size_max(va, range / TERN_PAGE_SIZE, &room);
	return tern_vm_update_alloc_room(vm, u, &room, GFP_KERNEL_ACCOUNT);
}

/* Idempotent; frees DMA memory of the device, so before PCI remove ends. */
void tern_vm_update_free(struct tern_vm *vm, struct tern_vm_update *u)
{
	if (!u->cpu)
		return;
	tern_bind_release(&u->run);
	dma_free_coherent(vm->tdev->drm.dev, u->size, u->cpu, u->dma);
	u->cpu = NULL;
}

void tern_vm_update_begin(struct tern_vm *vm, struct tern_vm_update *u,
			  u64 va, u64 range)
{
	lockdep_assert_held(&vm->lock);
	u->root = tern_pt_root(&vm->pt);
	tern_pt_update_begin(&vm->pt, va, range / TERN_PAGE_SIZE,
			     u->cpu + u->staging, u->staging_bytes);
}

void tern_vm_update_end(struct tern_vm *vm, struct tern_vm_update *u,
			bool invalidate)
{
	lockdep_assert_held(&vm->lock);
	u->failed = tern_pt_update_end(&vm->pt, u->cpu, u->dma + u->staging,
				       invalidate, &u->dwords) != 0;
}

/*
 * Run the update on the device, no lock held: the VM's other users do not
 * wait for the device.  A failure leaves the device's tables somewhere
 * between before and after.
 */
int tern_vm_update_run(struct tern_vm *vm, struct tern_vm_update *u)
{
	int ret = 0;

	lockdep_assert_not_held(&vm->lock);
	if (u->failed)
		ret = -EIO;
	else if (u->dwords)
		ret = tern_bind_run(vm->tdev, &u->run, u->cpu, u->dma, u->dwords,
				    u->root);
	atomic64_add(u->run.device_ns, &vm->update_ns);
	return ret;
}

/* tern_pt_map(), or tern_pt_retarget() of what is mapped */
static int tern_vm_put_run(struct tern_vm *vm, u64 va, const u64 *addrs, u64 n,
			   u64 pte_flags, bool retarget)
{
	s64 ret;

	if (!retarget)
		return tern_pt_map(&vm->pt, va, addrs, n, pte_flags);
	ret = tern_pt_retarget(&vm->pt, va, addrs, n, pte_flags);
	return ret < 0 ? ret : 0;
}

/**
 * tern_vm_put_pages() - record where the pages of a mapping are
 * @vm: the VM, its lock held
 * @backing: where the device reaches the BO
 * @va: first VA of the range
 * @bo_offset: offset in the BO of the page at @va
 * @range: bytes
 * @pte_flags: TERN_PTE_WRITABLE or 0 (TERN_PTE_LOCAL is added for a BO in
 *	local memory)
 * @retarget: the range is mapped already: point its valid entries at the
 *	pages (tern_pt_retarget()) instead of mapping it
 *
 * Records the entries in chunks of @vm->map_addrs, inside an open update
 * whose tables are in its pool (or with no update open: written at once).
 * Only a map of a BO whose sg table is shorter than it (an exporter's bug)
 * fails, and then what was recorded is unmapped again in the same update;
 * a retarget fails only for a bug (a bad address), and leaves the rest.
 * A BO in local memory is walked block by block.
 *
 * Return: 0 or a negative errno.
 */
int tern_vm_put_pages(struct tern_vm *vm, const struct tern_bo_backing *backing,
		      u64 va, u64 bo_offset, u64 range, u64 pte_flags,
		      bool retarget)
{
	const unsigned int sub_per_page = PAGE_SIZE / TERN_PAGE_SIZE;
	unsigned int sub = (bo_offset % PAGE_SIZE) / TERN_PAGE_SIZE;
	u64 npages = range / TERN_PAGE_SIZE, done = 0, n = 0;
	u64 *addrs = vm->map_addrs;
	struct sg_dma_page_iter it;
	int ret = 0;

	lockdep_assert_held(&vm->lock);
	if (!backing->sgt) {
		struct tern_local_cursor c;

		pte_flags |= TERN_PTE_LOCAL;
		tern_local_first(&c, backing->local, bo_offset);
		while (done < npages) {
			n = min_t(u64, npages - done, TERN_VM_MAP_CHUNK);
			for (sub = 0; sub < n; sub++) {
				addrs[sub] = c.start;
				tern_local_next(&c, TERN_PAGE_SIZE);
			}
			ret = tern_vm_put_run(vm, va + done * TERN_PAGE_SIZE,
					      addrs, n, pte_flags, retarget);
			if (ret)
				goto err_unmap;
			done += n;
		}
		return 0;
	}

	for_each_sgtable_dma_page(backing->sgt, &it, bo_offset >> PAGE_SHIFT) {
		dma_addr_t addr = sg_page_iter_dma_address(&it);

		for (; sub < sub_per_page && done + n < npages; sub++) {
			addrs[n++] = addr + sub * TERN_PAGE_SIZE;
			if (n < TERN_VM_MAP_CHUNK)
				continue;
			ret = tern_vm_put_run(vm, va + done * TERN_PAGE_SIZE,
					      addrs, n, pte_flags, retarget);
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
		ret = tern_vm_put_run(vm, va + done * TERN_PAGE_SIZE, addrs, n,
				      pte_flags, retarget);
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
	/* tern_pt_map() itself fails only for a bug: the pool is enough */
	WARN_ON(ret != -EINVAL);
	/*
	 * A retarget fails only for a bug too (a bad address): the caller
	 * writes it again by the CPU, where it fails the same way; the
	 * tables are not touched further.
	 */
	if (!retarget)
		tern_pt_unmap(&vm->pt, va, done);
	return ret;
}

/* ---- the bookkeeping, at the ioctl (apply) and on failure (undo) ---- */

/**
 * tern_vm_step_unmap() - &drm_gpuvm_ops.sm_step_unmap: a mapping inside
 *	the range of an operation that removes
 * @o: the step: its mapping
 * @priv: the &struct tern_vm_op
 *
 * Under &tern_vm.lock, at the ioctl: the mapping leaves the VA tree and
 * goes to the operation's list, still linked to its BO.
 *
 * Return: 0.
 */
int tern_vm_step_unmap(struct drm_gpuva_op *o, void *priv)
{
	struct tern_vm_mapping *m = to_tern_vm_mapping(o->unmap.va);
	struct tern_vm *vm = to_tern_vm(m->va.vm);
	struct tern_vm_op *op = priv;

	lockdep_assert_held(&vm->lock);
	vm->mapped -= m->va.va.range;
	drm_gpuva_unmap(&o->unmap);
	list_add_tail(&m->link, &op->removed);
	return 0;
}

/**
 * tern_vm_step_remap() - &drm_gpuvm_ops.sm_step_remap: a mapping that
 *	crosses an end of the range of an operation that removes
 * @o: the step: the mapping, and the pieces of it outside the range
 * @priv: the &struct tern_vm_op
 *
 * Under &tern_vm.lock, at the ioctl: the mapping leaves the VA tree for the
 * operation's list, the pieces (from the operation's spares) take its
 * place, as mappings of the same BO with the same rights.  Allocates
 * nothing.
 *
 * Return: 0; -EINVAL for an unmap without %DRM_TERN_VM_BIND_CUT, which
 * removes whole mappings only (its caller then undoes the steps before);
 * -ENOSPC if the pieces would take the address space above
 * %DRM_TERN_VM_MAX_MAPPINGS (the mapping they replace counts until it is
 * reaped).
 */
int tern_vm_step_remap(struct drm_gpuva_op *o, void *priv)
{
	struct drm_gpuva_op_remap *r = &o->remap;
	struct tern_vm_mapping *m = to_tern_vm_mapping(r->unmap->va);
	struct tern_vm_mapping *prev = NULL, *next = NULL;
	struct tern_vm *vm = to_tern_vm(m->va.vm);
	struct drm_gpuvm_bo *vm_bo = m->va.vm_bo;
	struct tern_vm_op *op = priv;
	u64 kept = 0;

	lockdep_assert_held(&vm->lock);
	if (!tern_vm_op_cuts(op))
		return -EINVAL;
	if (vm->nr_mappings + !!r->prev + !!r->next > DRM_TERN_VM_MAX_MAPPINGS)
		return -ENOSPC;
	/* one piece left of the range's start, one right of its end */
	if (WARN_ON(op->cut + !!r->prev + !!r->next > ARRAY_SIZE(op->spare)))
		return -EINVAL;
	if (r->prev) {
		prev = op->spare[op->cut++];
		prev->read_only = m->read_only;
		kept += r->prev->va.range;
	}
	if (r->next) {
		next = op->spare[op->cut++];
		next->read_only = m->read_only;
		kept += r->next->va.range;
	}
	drm_gpuva_remap(prev ? &prev->va : NULL, next ? &next->va : NULL, r);
	/* the BO is mapped already: one pin serves all its mappings */
	if (prev) {
		tern_vm_link_piece(vm, prev, vm_bo);
		vm->nr_mappings++;
	}
	if (next) {
		tern_vm_link_piece(vm, next, vm_bo);
		vm->nr_mappings++;
	}
	vm->mapped -= m->va.va.range - kept;
	list_add_tail(&m->link, &op->removed);
	return 0;
}

/* Put back what the removal of @op's range took off the VA tree. */
static void tern_vm_op_undo_removal(struct tern_vm *vm, struct tern_vm_op *op)
{
	struct tern_vm_mapping *m;
	bool last;
	int ret;

	lockdep_assert_held(&vm->lock);
	while (op->cut) {
		struct tern_vm_mapping *piece = op->spare[--op->cut];

		drm_gpuva_remove(&piece->va);
		last = tern_vm_unlink(vm, piece);
		/* never the BO's last mapping: the one it was cut from is too */
		WARN_ON(last);
		vm->nr_mappings--;
		vm->mapped -= piece->va.va.range;
		memset(piece, 0, sizeof(*piece));
	}
	list_for_each_entry(m, &op->removed, link) {
		ret = drm_gpuva_insert(&vm->gpuvm, &m->va);
		/* the operations after this one were undone first: it is free */
		WARN_ON(ret);
		vm->mapped += m->va.va.range;
	}
	INIT_LIST_HEAD(&op->removed);
}

static int tern_vm_op_apply_map(struct tern_vm *vm, struct tern_vm_op *op,
				bool exact)
{
	struct tern_vm_mapping *m = op->m;
	u64 charge, leaves;
	int ret;

	lockdep_assert_held(&vm->lock);
	if (!drm_gpuvm_interval_empty(&vm->gpuvm, op->va, op->range))
		return -EEXIST;
	if (op->range > DRM_TERN_VM_MAX_MAPPED - vm->mapped ||
	    vm->nr_mappings >= DRM_TERN_VM_MAX_MAPPINGS)
		return -ENOSPC;
	/*
	 * Nothing queued ahead: the tree is what this map will find, and
	 * the charge is exact.  Else the most any tree can need.
	 */
	charge = tern_pt_tables_split(exact ? &vm->pt : NULL, op->va,
				      op->range / TERN_PAGE_SIZE, &leaves);
	if (!tern_vm_pin_budget(vm, op->bo) ||
	    /* no overflow: each is at most DRM_TERN_VM_MAX_TABLES */
	    charge + vm->nr_tables + vm->tables_pending > DRM_TERN_VM_MAX_TABLES)
		return -ENOSPC;
	drm_gpuva_init(&m->va, op->va, op->range, tern_bo_obj(op->bo),
		       op->bo_offset);
	ret = drm_gpuva_insert(&vm->gpuvm, &m->va);
	if (WARN_ON(ret))
		return ret;
	if (tern_vm_link_new(vm, m, op->vm_bo)) {
		/*
		 * The BO's first mapping in the VM: the VM keeps its pin, but
		 * of a BO that moves (its mappings follow it)
		 */
		vm->pinned += tern_bo_size(op->bo);
		if (!tern_bo_movable(op->bo))
			op->pins--;
	}
	op->vm_bo = NULL;
	vm->nr_mappings++;
	vm->mapped += op->range;
	vm->tables_pending += charge;
	op->charge = charge;
	return 0;
}

static int tern_vm_op_apply(struct tern_vm *vm, struct tern_vm_op *op,
			    bool exact)
{
	int ret = 0;

	lockdep_assert_held(&vm->lock);
	if (tern_vm_op_removes(op)) {
		ret = drm_gpuvm_sm_unmap(&vm->gpuvm, op, op->va, op->range);
		if (!ret && op->op == DRM_TERN_VM_BIND_OP_UNMAP &&
		    list_empty(&op->removed))
			ret = -ENOENT;
		/* the tables it empties are gone only once it ran */
		exact = false;
	}
	if (!ret && op->op == DRM_TERN_VM_BIND_OP_MAP)
		ret = tern_vm_op_apply_map(vm, op, exact);
	if (ret)
		tern_vm_op_undo_removal(vm, op);
	op->applied = !ret;
	return ret;
}

/* Give back what an operation took from the bookkeeping; it did not run. */
static void tern_vm_op_undo(struct tern_vm *vm, struct tern_vm_op *op)
{
	struct tern_vm_mapping *m = op->m;

	lockdep_assert_held(&vm->lock);
	if (!op->applied)
		return;
	op->applied = false;
	if (op->op == DRM_TERN_VM_BIND_OP_MAP) {
		drm_gpuva_remove(&m->va);
		/* @op holds a reference on the BO: its entry may go */
		if (tern_vm_unlink(vm, m)) {
			/* the VM's pin of the BO goes back to the map */
			vm->pinned -= tern_bo_size(op->bo);
			if (!tern_bo_movable(op->bo))
				op->pins++;
		}
		vm->mapped -= op->range;
		vm->tables_pending -= op->charge;
		op->charge = 0;
		vm->nr_mappings--;
	}
	tern_vm_op_undo_removal(vm, op);
}

/* Undo the operations of @bind from @from on, the last first. */
static void tern_vm_bind_undo(struct tern_vm *vm, struct tern_vm_bind *bind,
			      u32 from)
{
	u32 i = bind->nr_ops;

	while (i-- > from)
		tern_vm_op_undo(vm, &bind->ops[i]);
}

/*
 * Cancel every bind queued after @bind, the last first, undoing them:
 * they were checked against what @bind would have made.
 */
static void tern_vm_cancel_after(struct tern_vm *vm, struct tern_vm_bind *bind,
				 int error)
{
	struct tern_vm_bind *b;

	lockdep_assert_held(&vm->lock);
	list_for_each_entry_reverse(b, &vm->binds, link) {
		if (b == bind)
			break;
		if (b->cancelled)
			continue;
		tern_vm_bind_undo(vm, b, 0);
		b->cancelled = true;
		b->error = error;
		vm->binds_cancelled++;
	}
}

/* @bind failed with @error before it ran whole: it and those after it end. */
static void tern_vm_bind_fail(struct tern_vm *vm, struct tern_vm_bind *bind,
			      int error)
{
	lockdep_assert_held(&vm->lock);
	tern_vm_cancel_after(vm, bind, -ECANCELED);
	tern_vm_bind_undo(vm, bind, bind->next_op);
	bind->cancelled = true;
	bind->error = error;
	vm->bind_error = error;
	vm->bind_error_seqno = bind->seqno;
	vm->binds_failed++;
}

/*
 * Cancel every bind not running yet, each with @error, e.g. because the
 * file or the device is gone.
 */
static void tern_vm_cancel_all(struct tern_vm *vm, int error)
{
	struct tern_vm_bind *first;

	lockdep_assert_held(&vm->lock);
	first = list_first_entry_or_null(&vm->binds, struct tern_vm_bind, link);
	if (!first)
		return;
	tern_vm_cancel_after(vm, first, error);
	if (!vm->executing && !first->cancelled) {
		tern_vm_bind_undo(vm, first, 0);
		first->cancelled = true;
		first->error = error;
		vm->binds_cancelled++;
	}
}

/* ---- the worker: the fence-signalling side of the binds' fences ---- */

static void tern_vm_bind_dep_cb(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct tern_vm_bind *bind = container_of(cb, struct tern_vm_bind, cb);

	queue_work(bind->vm->tdev->bind.wq, &bind->vm->bind_work);
}

/*
 * Whether every in-fence of @bind signalled; if not, a callback kicks the
 * worker once the next one does.
 */
static bool tern_vm_bind_deps_done(struct tern_vm_bind *bind)
{
	lockdep_assert_held(&bind->vm->lock);
	while (bind->next_dep < bind->nr_deps) {
		struct dma_fence *fence = bind->deps[bind->next_dep];

		if (bind->cb_armed) {
			if (!dma_fence_is_signaled(fence))
				return false;
			/* under the fence's lock: a callback still running ends */
			dma_fence_remove_callback(fence, &bind->cb);
			bind->cb_armed = false;
		} else if (!dma_fence_add_callback(fence, &bind->cb,
						   tern_vm_bind_dep_cb)) {
			bind->cb_armed = true;
			return false;
		}
		bind->next_dep++;
	}
	return true;
}

/* Record the change of @op into its update; with @vm->lock held. */
static int tern_vm_op_record(struct tern_vm *vm, struct tern_vm_op *op)
{
	struct tern_vm_update *u = &op->update;
	u64 npages = op->range / TERN_PAGE_SIZE, before;
	int ret = 0;

	lockdep_assert_held(&vm->lock);
	tern_vm_update_begin(vm, u, op->va, op->range);
	/* a map that replaces an empty range is a plain map */
	op->cleared = !list_empty(&op->removed);
	if (op->cleared) {
		struct tern_vm_mapping *m;

		/*
		 * The range holds what the operation removed, and the
		 * pieces of cut mappings lie outside it: clearing it whole
		 * cuts off the tables it spans with the fewest entries,
		 * inside the range the buffer was sized for.
		 */
		tern_pt_unmap(&vm->pt, op->va, npages);
		list_for_each_entry(m, &op->removed, link)
			m->live = false;
		list_splice_tail_init(&op->removed, &op->garbage.mappings);
		/*
		 * The pieces are the address space's mappings now, with the
		 * entries of the mappings they were cut from: those ran,
		 * all binds run in order.
		 */
		while (op->cut) {
			op->spare[--op->cut]->live = true;
			op->spare[op->cut] = NULL;
		}
	}
	if (op->op == DRM_TERN_VM_BIND_OP_UNMAP) {
		tern_vm_update_end(vm, u, true);
	} else {
		before = op->pool.nr_spare + op->pool.nr_spare_leaves;
		tern_pt_use_pool(&vm->pt, &op->pool);
		ret = tern_vm_put_pages(vm, &op->backing, op->va, op->bo_offset,
					op->range,
					op->m->read_only ? 0 : TERN_PTE_WRITABLE,
					false);
		op->m->live = !ret;
		tern_pt_use_pool(&vm->pt, NULL);
		tern_vm_update_end(vm, u, op->cleared || ret);
		/*
		 * The tables taken from the pool are in the tree, or dead
		 * (an unmapped failure): counted until they are freed.
		 */
		vm->nr_tables += before - op->pool.nr_spare -
				 op->pool.nr_spare_leaves;
		vm->tables_pending -= op->charge;
		op->charge = 0;
	}
	tern_vm_retire(vm, &op->garbage);
	return ret;
}

/*
 * Run the operations of @bind, in order, each recorded then run on the
 * device.  Return 0 or the error the bind fails with; what did not run is
 * then undone, but what the device failed to make, which stays.
 */
static int tern_vm_bind_run(struct tern_vm *vm, struct tern_vm_bind *bind)
{
	bool invalidate;
	int ret;

	while (bind->next_op < bind->nr_ops) {
		struct tern_vm_op *op = &bind->ops[bind->next_op];

		mutex_lock(&vm->lock);
		if (vm->unplugged) {
			mutex_unlock(&vm->lock);
			return -ENODEV;
		}
		ret = tern_vm_op_record(vm, op);
		/*
		 * The address space's now, even if a map's pages could not
		 * be recorded (a bug: tern_vm_op_prepare() checked them),
		 * when it stays unmapped in the tables and the address
		 * space takes no other change.
		 */
		op->m = NULL;
		op->applied = false;
		mutex_unlock(&vm->lock);

		invalidate = op->cleared || ret;
		if (tern_vm_update_run(vm, &op->update) || ret) {
			mutex_lock(&vm->lock);
			vm->error = drm_dev_is_unplugged(&vm->tdev->drm) ?
				    -ENODEV : -EIO;
			/*
			 * The device may have made part of it, and reach
			 * what it removed: kept until the VM is released.
			 */
			list_splice_tail_init(&op->garbage.tables,
					      &vm->limbo.tables);
			list_splice_tail_init(&op->garbage.mappings,
					      &vm->limbo.mappings);
			bind->next_op++;
			mutex_unlock(&vm->lock);
			return vm->error;
		}
		/*
		 * The update flushed the copy engine's TLB; the other
		 * engines' go now, before the next change may reuse the
		 * range.
		 */
		if (invalidate)
			tern_device_tlb_invalidate(vm->tdev);
		mutex_lock(&vm->lock);
		list_splice_tail_init(&op->garbage.tables, &bind->garbage.tables);
		list_splice_tail_init(&op->garbage.mappings,
				      &bind->garbage.mappings);
		if (list_empty(&bind->garbage.link) && invalidate)
			list_add_tail(&bind->garbage.link, &vm->reaping);
		bind->next_op++;
		mutex_unlock(&vm->lock);
	}
	return 0;
}

/* Free the DMA memory of @bind's operations; idempotent. */
static void tern_vm_bind_free_dma(struct tern_vm *vm, struct tern_vm_bind *bind)
{
	u32 i;

	for (i = 0; i < bind->nr_ops; i++) {
		tern_pt_pool_drain(&vm->pt, &bind->ops[i].pool);
		tern_vm_update_free(vm, &bind->ops[i].update);
	}
}

/*
 * Run the binds at the head of the queue, in order, while they are ready
 * and their in-fences signalled: the bind worker's body, also run by an
 * ioctl that waits for a bind queued alone, which then needs no hop to the
 * worker.  One runner at a time (@vm->running): another one returns at
 * once, and the running one, which looks at the queue again under
 * @vm->lock after each bind, takes what was queued meanwhile.  On the
 * fence-signalling side of the binds' fences: allocates nothing.
 */
static void tern_vm_binds_run(struct tern_vm *vm, struct tern_vm_bind *mine)
{
	struct tern_vm_bind *bind;
	bool cookie, last = false;
	int ret;

	cookie = dma_fence_begin_signalling();
	mutex_lock(&vm->lock);
	if (vm->running) {
		mutex_unlock(&vm->lock);
		dma_fence_end_signalling(cookie);
		return;
	}
	WRITE_ONCE(vm->running, true);
	while (!last) {
		bind = list_first_entry_or_null(&vm->binds, struct tern_vm_bind,
						link);
		if (!bind || !bind->ready ||
		    (!bind->cancelled && !tern_vm_bind_deps_done(bind)))
			break;
		/* an ioctl runs up to its own bind, not other threads' */
		last = bind == mine;
		if (!bind->cancelled) {
			/* the in-syncs' errors; the BOs' users only order it */
			ret = tern_sync_fences_error(bind->deps, bind->nr_in_deps);
			if (ret)
				tern_vm_bind_fail(vm, bind, ret);
		}
		vm->executing = true;
		mutex_unlock(&vm->lock);

		if (bind->cb_armed) {
			/* cancelled while it waited */
			dma_fence_remove_callback(bind->deps[bind->next_dep],
						  &bind->cb);
			bind->cb_armed = false;
		}
		if (!bind->cancelled) {
			ret = tern_vm_bind_run(vm, bind);
			if (ret) {
				mutex_lock(&vm->lock);
				tern_vm_bind_fail(vm, bind, ret);
				mutex_unlock(&vm->lock);
			}
		}
		/*
		 * Done before its fence signals: whoever waited for the
		 * fence finds it in VM_GET_STATE's @done.
		 */
		mutex_lock(&vm->lock);
		vm->done_seqno = bind->seqno;
		mutex_unlock(&vm->lock);
		/* the fence first: once in @vm->done, the bind may be freed */
		if (bind->error)
			dma_fence_set_error(&bind->fence->base, bind->error);
		dma_fence_signal(&bind->fence->base);
		/* before it leaves @vm->binds: PCI remove waits for runners */
		tern_vm_bind_free_dma(vm, bind);

		mutex_lock(&vm->lock);
		list_move_tail(&bind->link, &vm->done);
		vm->queued_ops -= bind->nr_ops;
		vm->executing = false;
		queue_work(system_unbound_wq, &vm->reap_work);
	}
	/*
	 * A bind is made ready under this lock, and a dependency's callback
	 * kicks the worker after its fence signalled, so the last look at the
	 * queue, in the same hold as this, misses nothing.  An ioctl that
	 * stopped after its own bind hands the rest to the worker.
	 */
	if (mine && !list_empty(&vm->binds))
		queue_work(vm->tdev->bind.wq, &vm->bind_work);
	WRITE_ONCE(vm->running, false);
	mutex_unlock(&vm->lock);
	dma_fence_end_signalling(cookie);
	/* wake_up_var() looks for waiters unlocked: order the store first */
	smp_mb();
	wake_up_var(&vm->running);
}

/**
 * tern_vm_bind_work() - run the binds of an address space, in order
 * @work: &tern_vm.bind_work
 */
static void tern_vm_bind_work(struct work_struct *work)
{
	tern_vm_binds_run(container_of(work, struct tern_vm, bind_work), NULL);
}

static void tern_vm_bind_release(struct kref *kref)
{
	struct tern_vm_bind *bind = container_of(kref, struct tern_vm_bind,
						 refcount);
	struct tern_vm *vm = bind->vm;
	u32 i;

	for (i = 0; i < bind->nr_ops; i++) {
		struct tern_vm_op *op = &bind->ops[i];

		tern_pt_pool_drain(&vm->pt, &op->pool);
		tern_vm_update_free(vm, &op->update);
		/*
		 * An operation that still owns a mapping never ran, so the
		 * device never reached it; if it was applied, it was undone.
		 */
		WARN_ON(op->applied || op->cut);
		kfree(op->m);
		kfree(op->spare[0]);
		kfree(op->spare[1]);
		if (op->vm_bo) {
			/* the BO's list of entries is under its lock */
			mutex_lock(&op->bo->gpuva_lock);
			drm_gpuvm_bo_put(op->vm_bo);
			mutex_unlock(&op->bo->gpuva_lock);
		}
		for (; op->pins; op->pins--)
			tern_bo_unpin(op->bo);
		if (op->bo)
			drm_gem_object_put(tern_bo_obj(op->bo));
	}
	while (bind->nr_deps)
		dma_fence_put(bind->deps[--bind->nr_deps]);
	kvfree(bind->deps);
	if (bind->fence && bind->fence->base.ops)
		dma_fence_put(&bind->fence->base);
	else
		kfree(bind->fence);
	kvfree(bind);
}

static void tern_vm_bind_put(struct tern_vm_bind *bind)
{
	kref_put(&bind->refcount, tern_vm_bind_release);
}

/**
 * tern_vm_reap_work() - clean up after the binds that are done
 * @work: &tern_vm.reap_work
 *
 * Waits for the jobs that may still reach what the binds removed, then
 * gives it back (tern_vm_reap()): not on the signalling side.
 */
static void tern_vm_reap_work(struct work_struct *work)
{
	struct tern_vm *vm = container_of(work, struct tern_vm, reap_work);
	struct tern_vm_bind *bind, *next;
	LIST_HEAD(done);

	mutex_lock(&vm->lock);
	list_splice_init(&vm->done, &done);
	mutex_unlock(&vm->lock);
	/*
	 * A BO that moves is pinned by its map only until the map ran (or
	 * will not run): from here its mappings follow it.  Every bind's
	 * first, before the waits for the jobs below, which may be long.
	 */
	list_for_each_entry(bind, &done, link) {
		u32 i;

		for (i = 0; i < bind->nr_ops; i++) {
			struct tern_vm_op *op = &bind->ops[i];

			if (!op->bo || !tern_bo_movable(op->bo))
				continue;
			for (; op->pins; op->pins--)
				tern_bo_unpin(op->bo);
		}
	}
	list_for_each_entry_safe(bind, next, &done, link) {
		list_del_init(&bind->link);
		if (!bind->waited && !list_empty(&bind->garbage.link))
			tern_vm_reap(vm, &bind->garbage);
		tern_vm_bind_put(bind);
	}
}

/* ---- the ioctl side ---- */

static struct tern_vm_bind *tern_vm_bind_alloc(struct tern_vm *vm, u32 nr_ops)
{
	struct tern_vm_bind *bind;
	u32 i;

	bind = kvzalloc(struct_size(bind, ops, nr_ops), GFP_KERNEL_ACCOUNT);
	if (!bind)
		return NULL;
	bind->fence = kzalloc(sizeof(*bind->fence), GFP_KERNEL);
	if (!bind->fence) {
		kvfree(bind);
		return NULL;
	}
	kref_init(&bind->refcount);
	bind->vm = vm;
	INIT_LIST_HEAD(&bind->link);
	tern_vm_garbage_init(&bind->garbage);
	bind->nr_ops = nr_ops;
	for (i = 0; i < nr_ops; i++) {
		INIT_LIST_HEAD(&bind->ops[i].removed);
		tern_pt_pool_init(&bind->ops[i].pool);
		tern_vm_garbage_init(&bind->ops[i].garbage);
	}
	return bind;
}

/*
 * Check the arguments of one operation that need no state, as
 * DRM_IOCTL_TERN_VM_BIND documents them.
 */
static int tern_vm_op_check(const struct drm_tern_vm_bind *args)
{
	if (args->pad)
		return -EINVAL;
	switch (args->op) {
	case DRM_TERN_VM_BIND_OP_MAP:
		if (args->flags & ~(DRM_TERN_VM_BIND_READ_ONLY |
				    DRM_TERN_VM_BIND_REPLACE))
			return -EINVAL;
		break;
	case DRM_TERN_VM_BIND_OP_UNMAP:
		if (args->flags & ~DRM_TERN_VM_BIND_CUT || args->handle ||
		    args->bo_offset)
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
	return 0;
}

/*
 * Whether every bind queued ran (or failed): its fence signalled.  The
 * last one's says so for all: they signal in order.  A bind stays queued a
 * little after its fence signalled, while the worker frees its buffers.
 */
static bool tern_vm_binds_idle(struct tern_vm *vm)
{
	struct tern_vm_bind *last;

	lockdep_assert_held(&vm->lock);
	if (list_empty(&vm->binds))
		return true;
	last = list_last_entry(&vm->binds, struct tern_vm_bind, link);
	return last->ready && dma_fence_is_signaled(&last->fence->base);
}

/*
 * What refuses a whole bind of @count operations (error_index stays
 * @count): the VM gone or failed, another bind queued for one that is to
 * be queued only @alone, or no room in the queue.
 */
static int tern_vm_bind_refused(struct tern_vm *vm, u32 count, bool alone)
{
	lockdep_assert_held(&vm->lock);
	if (vm->unplugged || vm->closing)
		return -ENODEV;
	if (vm->error)
		return vm->error;
	if (alone && !tern_vm_binds_idle(vm))
		return -EINPROGRESS;
	if (count > DRM_TERN_VM_BIND_QUEUE_MAX - vm->queued_ops)
		return -EAGAIN;
	return 0;
}

/*
 * A map's first look at the VM, before its BO is pinned: pinning may
 * allocate pages, or page the BO in and evict others, which a map that is
 * refused anyway should not do (tern_vm_bind_queue() looked at what
 * refuses the whole bind already).  It refuses what tern_vm_op_apply_map()
 * would refuse the map for in the VM as it is now: its pinned budget
 * always; an occupied range or a full VM only when @only_adds (no earlier
 * operation of its bind removes mappings) and the map itself removes
 * none, since those operations would free room first.  A bind refused
 * here may have been queued after a concurrent unmap, or after queued
 * binds that failed were taken back: it lost that race, as it would have
 * later.
 */
static int tern_vm_op_first_look(struct tern_vm *vm, struct tern_vm_op *op,
				 struct tern_bo *bo, bool only_adds)
{
	bool grows = only_adds && !tern_vm_op_removes(op);
	int ret = 0;

	mutex_lock(&vm->lock);
	if (grows && !drm_gpuvm_interval_empty(&vm->gpuvm, op->va, op->range))
		ret = -EEXIST;
	else if (grows && (op->range > DRM_TERN_VM_MAX_MAPPED - vm->mapped ||
			   vm->nr_mappings >= DRM_TERN_VM_MAX_MAPPINGS))
		ret = -ENOSPC;
	else if (!tern_vm_pin_budget(vm, bo))
		ret = -ENOSPC;
	mutex_unlock(&vm->lock);
	return ret;
}

/*
 * Everything an operation takes, before the VM lock: the pieces of the
 * mappings it may cut; a map's mapping, its BO's entry in the VM, its BO
 * pinned (after a first look at the VM, tern_vm_op_first_look()), its
 * tables for the worst case; the update.
 * @bo: a map's BO, whose reference the operation takes over
 * @only_adds: no earlier operation of the bind removes mappings
 */
static int tern_vm_op_prepare(struct tern_vm *vm, struct tern_vm_op *op,
			      const struct drm_tern_vm_bind *args,
			      struct tern_bo *bo, bool only_adds)
{
	u64 npages = args->range / TERN_PAGE_SIZE, tables, leaves;
	int ret;
	u32 i;

	op->op = args->op;
	op->flags = args->flags;
	op->va = args->va;
	op->range = args->range;
	op->bo_offset = args->bo_offset;
	op->bo = bo;
	if (tern_vm_op_cuts(op)) {
		for (i = 0; i < ARRAY_SIZE(op->spare); i++) {
			op->spare[i] = kzalloc(sizeof(*op->spare[i]),
					       GFP_KERNEL_ACCOUNT);
			if (!op->spare[i])
				return -ENOMEM;
		}
	}
	if (op->op == DRM_TERN_VM_BIND_OP_MAP) {
		if (args->bo_offset > tern_bo_size(bo) ||
		    args->range > tern_bo_size(bo) - args->bo_offset)
			return -EINVAL;
		op->m = kzalloc(sizeof(*op->m), GFP_KERNEL_ACCOUNT);
		if (!op->m)
			return -ENOMEM;
		op->m->read_only = args->flags & DRM_TERN_VM_BIND_READ_ONLY;
		op->vm_bo = drm_gpuvm_bo_create(&vm->gpuvm, tern_bo_obj(bo));
		if (!op->vm_bo)
			return -ENOMEM;
		ret = tern_vm_op_first_look(vm, op, bo, only_adds);
		if (ret)
			return ret;
		tables = tern_pt_tables_split(NULL, op->va, npages, &leaves);
		/* not worth allocating for what the budget refuses anyway */
		if (tables > DRM_TERN_VM_MAX_TABLES)
			return -ENOSPC;
		ret = tern_bo_pin(bo, &op->backing);
		if (ret)
			return ret;
		op->pins = 1;
		/* an exporter's sg table shorter than its BO: refused here */
		if (op->backing.sgt &&
		    WARN_ON_ONCE(tern_sgt_dma_bytes(op->backing.sgt) <
				 args->bo_offset + args->range))
			return -EINVAL;
		ret = tern_pt_pool_fill(&vm->pt, &op->pool, tables, leaves);
		if (ret)
			return ret;
	}
	return tern_vm_update_alloc(vm, &op->update, op->va, op->range);
}

static int tern_vm_bo_ptr_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/*
 * Add the fences of the jobs that can reach what @bind's unmaps (and maps
 * that replace) remove:
 * those in the reservation objects of their BOs now, once per BO.  The BOs
 * are looked up under @vm->lock: an earlier bind's failure may undo @bind
 * meanwhile, and then it needs none.  @removed: the most there are.
 */
static int tern_vm_bind_add_users(struct tern_vm *vm, struct tern_vm_bind *bind,
				  u32 removed)
{
	struct tern_vm_mapping *m;
	struct tern_bo **bos;
	u32 i, n = 0;
	int ret = 0;

	bos = kvmalloc_array(removed, sizeof(*bos), GFP_KERNEL);
	if (!bos)
		return -ENOMEM;
	mutex_lock(&vm->lock);
	for (i = 0; !bind->cancelled && i < bind->nr_ops; i++) {
		list_for_each_entry(m, &bind->ops[i].removed, link) {
			if (WARN_ON(n == removed))
				break;
			bos[n] = tern_vm_mapping_bo(m);
			drm_gem_object_get(tern_bo_obj(bos[n++]));
		}
	}
	mutex_unlock(&vm->lock);

	sort(bos, n, sizeof(*bos), tern_vm_bo_ptr_cmp, NULL);
	for (i = 0; !ret && i < n; i++) {
		struct dma_fence *fence;

		if (i && bos[i] == bos[i - 1])
			continue;
		ret = dma_resv_get_singleton(tern_bo_obj(bos[i])->resv,
					     DMA_RESV_USAGE_BOOKKEEP, &fence);
		if (!ret && fence)
			bind->deps[bind->nr_deps++] = fence;
	}
	for (i = 0; i < n; i++)
		drm_gem_object_put(tern_bo_obj(bos[i]));
	kvfree(bos);
	return ret;
}

/**
 * struct tern_vm_bind_args - a bind as an ioctl asks for it
 * @ops: the operations
 * @bos: a map's BO, referenced, for each operation (NULL for an unmap):
 *	tern_vm_bind_queue() takes the references over and clears them
 * @count: entries of @ops
 * @file: for the syncobjs
 * @in_syncs: user pointer to struct drm_tern_sync
 * @in_sync_count: entries
 * @in_fences: the in-syncs' fences, looked up already (and waited for) by
 *	the caller, which keeps its references; then @in_syncs is not read
 * @out: out-syncs, looked up
 * @out_count: entries
 * @users: unmaps also wait for the jobs that listed the BOs they unmap
 * @alone: queue it only if no other bind is queued (else -EINPROGRESS,
 *	which only this internal retry sees: an operation may fail with
 *	-EBUSY of its own), so that it waits for nothing but itself
 * @reap: the caller waits for the bind and reaps its garbage itself
 * @error_index: out: the operation refused, or @count if the error is not
 *	one operation's
 * @seqno: out: the bind's seqno, once queued
 */
struct tern_vm_bind_args {
	const struct drm_tern_vm_bind *ops;
	struct tern_bo **bos;
	u32 count;
	struct drm_file *file;
	u64 in_syncs;
	u32 in_sync_count;
	struct dma_fence **in_fences;
	struct tern_out_sync *out;
	u32 out_count;
	bool users;
	bool alone;
	bool reap;
	u32 error_index;
	u64 seqno;
};

static void tern_vm_bind_args_put_bos(struct tern_vm_bind_args *a, u32 from)
{
	u32 i;

	for (i = from; i < a->count; i++) {
		if (a->bos[i])
			drm_gem_object_put(tern_bo_obj(a->bos[i]));
		a->bos[i] = NULL;
	}
}

/*
 * Whether the maps @bind's operations can need, at least (each needs at
 * most two tables per level below the root less than for an empty tree),
 * fit the budget: refused before their pools are allocated.
 */
static bool tern_vm_bind_may_fit(struct tern_vm *vm,
				 const struct tern_vm_bind_args *a)
{
	u64 least = 0, leaves;
	bool fits;
	u32 i;

	for (i = 0; i < a->count; i++) {
		u64 worst;

		if (a->ops[i].op != DRM_TERN_VM_BIND_OP_MAP)
			continue;
		worst = tern_pt_tables_split(NULL, a->ops[i].va,
					     a->ops[i].range / TERN_PAGE_SIZE,
					     &leaves);
		least += worst - min_t(u64, worst, 2 * (TERN_PT_LEVELS - 1));
	}
	mutex_lock(&vm->lock);
	/* no overflow: each is at most 64 times DRM_TERN_VM_MAX_TABLES */
	fits = least + vm->nr_tables + vm->tables_pending <= DRM_TERN_VM_MAX_TABLES;
	mutex_unlock(&vm->lock);
	return fits;
}

/*
 * Check, prepare and queue a bind; with @held, hold a reference on it
 * there.  Return 0, or a negative errno with nothing queued.
 */
static int tern_vm_bind_queue(struct tern_vm *vm, struct tern_vm_bind_args *a,
			      struct tern_vm_bind **held)
{
	struct tern_vm_bind *bind;
	u32 i, removed = 0;
	bool signalled = true, only_adds = true;
	struct tern_vm_mapping *m;
	int ret;

	a->error_index = a->count;
	bind = tern_vm_bind_alloc(vm, a->count);
	if (!bind) {
		tern_vm_bind_args_put_bos(a, 0);
		return -ENOMEM;
	}
	bind->waited = a->reap;
	if (!tern_vm_bind_may_fit(vm, a)) {
		tern_vm_bind_args_put_bos(a, 0);
		ret = -ENOSPC;
		goto err_put;
	}
	/* the in-syncs first: a bad one queues nothing */
	if (a->in_sync_count) {
		bind->deps = kvmalloc_array(a->in_sync_count, sizeof(*bind->deps),
					    GFP_KERNEL);
		if (!bind->deps)
			ret = -ENOMEM;
		else if (a->in_fences)
			for (ret = 0; bind->nr_deps < a->in_sync_count; bind->nr_deps++)
				bind->deps[bind->nr_deps] =
					dma_fence_get(a->in_fences[bind->nr_deps]);
		else
			ret = tern_sync_in_fences(a->file, a->in_syncs,
						  a->in_sync_count, bind->deps,
						  &bind->nr_deps, &signalled);
		bind->nr_in_deps = bind->nr_deps;
		if (ret) {
			tern_vm_bind_args_put_bos(a, 0);
			goto err_put;
		}
	}
	/* a bind refused whole is, before its maps pin (and page) anything */
	mutex_lock(&vm->lock);
	ret = tern_vm_bind_refused(vm, a->count, a->alone);
	mutex_unlock(&vm->lock);
	if (ret) {
		tern_vm_bind_args_put_bos(a, 0);
		goto err_put;
	}
	for (i = 0; i < a->count; i++) {
		/* the operation takes the BO reference over, even failing */
		ret = tern_vm_op_prepare(vm, &bind->ops[i], &a->ops[i], a->bos[i],
					 only_adds);
		only_adds &= !tern_vm_op_removes(&bind->ops[i]);
		a->bos[i] = NULL;
		if (ret) {
			a->error_index = i;
			tern_vm_bind_args_put_bos(a, i + 1);
			goto err_put;
		}
	}

	ret = mutex_lock_interruptible(&vm->bind_lock);
	if (ret)
		goto err_put;
	mutex_lock(&vm->lock);
	ret = tern_vm_bind_refused(vm, a->count, a->alone);
	for (i = 0; !ret && i < a->count; i++) {
		ret = tern_vm_op_apply(vm, &bind->ops[i],
				       !i && tern_vm_binds_idle(vm));
		if (ret)
			a->error_index = i;
		else
			list_for_each_entry(m, &bind->ops[i].removed, link)
				removed++;
	}
	if (ret) {
		tern_vm_bind_undo(vm, bind, 0);
		mutex_unlock(&vm->lock);
		mutex_unlock(&vm->bind_lock);
		goto err_put;
	}
	/* in order: the worker stops at a bind that is not ready */
	bind->seqno = ++vm->next_seqno;
	list_add_tail(&bind->link, &vm->binds);
	vm->queued_ops += a->count;
	mutex_unlock(&vm->lock);

	/*
	 * The users of what it unmaps, looked up once the bind has its
	 * place.  If that fails (-ENOMEM), the bind is the last one queued
	 * (&vm->bind_lock): undone, it ends as a cancelled bind nobody sees.
	 */
	if (a->users && removed) {
		struct dma_fence **deps;

		deps = kvmalloc_array(bind->nr_deps + removed, sizeof(*deps),
				      GFP_KERNEL);
		if (deps) {
			for (i = 0; i < bind->nr_deps; i++)
				deps[i] = bind->deps[i];
			kvfree(bind->deps);
			bind->deps = deps;
			ret = tern_vm_bind_add_users(vm, bind, removed);
		} else {
			ret = -ENOMEM;
		}
	}
	tern_vm_fence_init(vm, bind->fence, bind->seqno);
	if (!ret) {
		tern_sync_out_signal(a->out, a->out_count, &bind->fence->base);
		a->seqno = bind->seqno;
		if (held) {
			kref_get(&bind->refcount);
			*held = bind;
		}
	}
	mutex_lock(&vm->lock);
	if (ret && !bind->cancelled) {
		tern_vm_bind_undo(vm, bind, 0);
		bind->cancelled = true;
		bind->error = ret;
		vm->binds_cancelled++;
	}
	bind->ready = true;
	mutex_unlock(&vm->lock);
	mutex_unlock(&vm->bind_lock);
	/* a bind queued alone is run by its caller, tern_vm_bind_wait() */
	if (ret || !a->alone)
		queue_work(vm->tdev->bind.wq, &vm->bind_work);
	return ret;

err_put:
	tern_vm_bind_put(bind);
	return ret;
}

/*
 * Wait, interruptibly, until no bind is queued in @vm, so that a bind
 * queued next waits for nothing but its own update.  The caller holds
 * nothing; binds queued meanwhile are waited for too.
 */
static int tern_vm_wait_idle(struct tern_vm *vm)
{
	struct tern_vm_bind *last;
	struct dma_fence *fence;
	long ret;

	for (;;) {
		mutex_lock(&vm->lock);
		if (tern_vm_binds_idle(vm)) {
			mutex_unlock(&vm->lock);
			return 0;
		}
		last = list_last_entry(&vm->binds, struct tern_vm_bind, link);
		fence = last->ready ? dma_fence_get(&last->fence->base) : NULL;
		mutex_unlock(&vm->lock);
		if (!fence) {
			/* an ioctl is queueing it: it is ready soon */
			if (mutex_lock_interruptible(&vm->bind_lock))
				return -ERESTARTSYS;
			mutex_unlock(&vm->bind_lock);
			continue;
		}
		ret = dma_fence_wait(fence, true);
		dma_fence_put(fence);
		if (ret)
			return ret;
	}
}

/*
 * Look up the fences of the in-syncs into @a->in_fences and wait for them,
 * interruptibly: the bind then waits for these very fences, not for what
 * the syncobjs may hold by then.  Free with tern_vm_put_in_fences().
 */
static int tern_vm_wait_in_syncs(struct tern_vm_bind_args *a)
{
	bool signalled = true;
	u32 i, n = 0;
	int ret;

	a->in_fences = kvcalloc(a->in_sync_count, sizeof(*a->in_fences),
				GFP_KERNEL);
	if (!a->in_fences)
		return -ENOMEM;
	ret = tern_sync_in_fences(a->file, a->in_syncs, a->in_sync_count,
				  a->in_fences, &n, &signalled);
	for (i = 0; !ret && i < n; i++)
		ret = dma_fence_wait(a->in_fences[i], true);
	return ret;
}

static void tern_vm_put_in_fences(struct tern_vm_bind_args *a)
{
	u32 i;

	for (i = 0; a->in_fences && i < a->in_sync_count; i++)
		if (a->in_fences[i])
			dma_fence_put(a->in_fences[i]);
	kvfree(a->in_fences);
	a->in_fences = NULL;
}

/*
 * A bind that the caller waits for, as DRM_IOCTL_TERN_VM_BIND makes it and
 * DRM_IOCTL_TERN_VM_BIND_OPS with DRM_TERN_VM_BIND_OPS_SYNC: it waits,
 * interruptibly and with nothing changed, for the in-syncs, for every job
 * of the file if it unmaps (or replaces), and for the binds queued before
 * it; then it is queued alone and waited for, not interruptibly: it waits
 * for nothing but its own update (and a move of a BO under way in the
 * address space, tern_vm_move.c, which is as short).  With @a->reap (DRM_IOCTL_TERN_VM_BIND)
 * its garbage is reaped before it returns.  The caller keeps its
 * references on @a->bos.  The waits are outside drm_dev_enter()
 * (unless the caller is in it): they may wait for fences that a PCI remove
 * ends.
 */
static int tern_vm_bind_wait(struct tern_vm *vm, struct tern_vm_bind_args *a)
{
	struct tern_bo **mine = a->bos, *small[1];
	struct tern_vm_bind *bind;
	bool unmaps = false;
	long timeout;
	int ret = 0, idx;
	u32 i;

	for (i = 0; i < a->count; i++)
		unmaps |= a->ops[i].op == DRM_TERN_VM_BIND_OP_UNMAP ||
			  a->ops[i].flags & DRM_TERN_VM_BIND_REPLACE;
	if (a->in_sync_count)
		ret = tern_vm_wait_in_syncs(a);
	if (!ret && unmaps) {
		/* every job submitted so far may use the range */
		timeout = dma_resv_wait_timeout(tern_vm_resv(vm),
						DMA_RESV_USAGE_BOOKKEEP, true,
						MAX_SCHEDULE_TIMEOUT);
		ret = timeout < 0 ? timeout : 0;
	}
	if (ret)
		goto out_fences;

	/* each try lends the bind references of its own */
	a->bos = a->count == 1 ? small :
		 kvmalloc_array(a->count, sizeof(*a->bos), GFP_KERNEL);
	if (!a->bos) {
		a->bos = mine;
		ret = -ENOMEM;
		goto out_fences;
	}
	a->alone = true;
	for (;;) {
		/*
		 * Another thread may queue a bind waiting for a fence of its
		 * own meanwhile: this one must not wait for it uninterruptibly.
		 */
		ret = tern_vm_wait_idle(vm);
		if (ret)
			goto out;
		if (!drm_dev_enter(&vm->tdev->drm, &idx)) {
			ret = -ENODEV;
			goto out;
		}
		for (i = 0; i < a->count; i++) {
			a->bos[i] = mine[i];
			if (mine[i])
				drm_gem_object_get(tern_bo_obj(mine[i]));
		}
		ret = tern_vm_bind_queue(vm, a, &bind);
		drm_dev_exit(idx);
		if (ret != -EINPROGRESS)
			break;
	}
	if (ret)
		goto out;
	/*
	 * Alone in the queue, its in-fences signalled: run it here rather
	 * than wake the worker for it (unless a runner is at work already,
	 * which then runs it), outside drm_dev_enter().
	 */
	lockdep_assert_none_held_once();
	tern_vm_binds_run(vm, bind);
	/*
	 * Not interruptible: the address space already is what the bind
	 * makes of it, and its update preempts the copy engine's work.
	 */
	dma_fence_wait(&bind->fence->base, false);
	ret = bind->fence->base.error;
	/*
	 * DRM_IOCTL_TERN_VM_BIND: jobs submitted while it ran may still
	 * reach what it removed; it gives it back before it returns.
	 */
	if (a->reap && !list_empty(&bind->garbage.link))
		tern_vm_reap(vm, &bind->garbage);
	tern_vm_bind_put(bind);
out:
	if (a->bos != small)
		kvfree(a->bos);
	a->bos = mine;
out_fences:
	tern_vm_put_in_fences(a);
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
 * until the file unmaps it or is closed.  Called with no tern lock held,
 * outside drm_dev_enter(): it waits for the binds queued before it.
 *
 * Return: 0; -EINVAL, -ERANGE, -EEXIST or -ENOSPC as VM_BIND returns them;
 * -ENOMEM; -EINTR/-ERESTARTSYS; -ENODEV.
 */
int tern_vm_map_read_only(struct tern_vm *vm, struct tern_bo *bo, u64 va,
			  u64 range)
{
	struct drm_tern_vm_bind op = {
		.op = DRM_TERN_VM_BIND_OP_MAP,
		.flags = DRM_TERN_VM_BIND_READ_ONLY,
		.va = va,
		.range = range,
	};
	struct tern_vm_bind_args a = {
		.ops = &op,
		.bos = &bo,
		.count = 1,
		.reap = true,
	};
	int ret;

	ret = tern_vm_op_check(&op);
	if (ret)
		return ret;
	return tern_vm_bind_wait(vm, &a);
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
	struct drm_tern_vm_bind *args = data;
	struct tern_bo *bo = NULL;
	struct tern_vm_bind_args a = {
		.ops = args,
		.bos = &bo,
		.count = 1,
		.reap = true,
	};
	struct drm_gem_object *obj;
	int ret;

	ret = tern_vm_op_check(args);
	if (ret)
		return ret;
	if (drm_dev_is_unplugged(dev))
		return -ENODEV;
	if (args->op == DRM_TERN_VM_BIND_OP_MAP) {
		obj = drm_gem_object_lookup(file, args->handle);
		if (!obj)
			return -ENOENT;
		bo = to_tern_bo(obj);
	}
	ret = tern_vm_bind_wait(to_tern_file(file)->vm, &a);
	if (bo)
		drm_gem_object_put(tern_bo_obj(bo));
	return ret;
}

/* The ops of DRM_IOCTL_TERN_VM_BIND_OPS, checked, and their BOs. */
static int tern_vm_bind_ops_get(struct drm_file *file,
				const struct drm_tern_vm_bind_ops *args,
				struct tern_vm_bind_args *a)
{
	struct drm_tern_vm_bind *ops;
	struct drm_gem_object *obj;
	u32 i;
	int ret;

	a->error_index = args->count;
	ops = kvmalloc_array(args->count, sizeof(*ops), GFP_KERNEL);
	a->bos = kvcalloc(args->count, sizeof(*a->bos), GFP_KERNEL);
	a->ops = ops;
	a->count = args->count;
	if (!ops || !a->bos)
		return -ENOMEM;
	for (i = 0; i < args->count; i++) {
		a->error_index = i;
		/* a larger entry's tail must be zero: -E2BIG otherwise */
		ret = copy_struct_from_user(&ops[i], sizeof(ops[i]),
					    u64_to_user_ptr(args->ops +
							    (u64)i * args->stride),
					    args->stride);
		if (!ret)
			ret = tern_vm_op_check(&ops[i]);
		if (ret)
			return ret;
		if (ops[i].op != DRM_TERN_VM_BIND_OP_MAP)
			continue;
		obj = drm_gem_object_lookup(file, ops[i].handle);
		if (!obj)
			return -ENOENT;
		a->bos[i] = to_tern_bo(obj);
	}
	a->error_index = args->count;
	return 0;
}

/**
 * tern_vm_bind_ops_ioctl() - DRM_IOCTL_TERN_VM_BIND_OPS
 * @dev: the DRM device
 * @data: &struct drm_tern_vm_bind_ops
 * @file: the caller's file, whose address space is changed
 *
 * Return: 0 or a negative errno, see &struct drm_tern_vm_bind_ops.
 */
int tern_vm_bind_ops_ioctl(struct drm_device *dev, void *data,
			   struct drm_file *file)
{
	struct tern_out_sync small_out[TERN_SYNC_INLINE] = {};
	struct drm_tern_vm_bind_ops *args = data;
	struct tern_vm *vm = to_tern_file(file)->vm;
	struct tern_vm_bind_args a = {
		.file = file,
		.in_syncs = args->in_syncs,
		.in_sync_count = args->in_sync_count,
		.out_count = args->out_sync_count,
		.users = !(args->flags & DRM_TERN_VM_BIND_OPS_SYNC),
	};
	int ret, idx;

	args->seqno = 0;
	args->error_index = args->count;
	if (args->flags & ~DRM_TERN_VM_BIND_OPS_SYNC || args->pad || args->pad2)
		return -EINVAL;
	if (!args->count || args->count > DRM_TERN_VM_BIND_OPS_MAX ||
	    args->stride < sizeof(struct drm_tern_vm_bind) ||
	    args->stride > DRM_TERN_VM_BIND_STRIDE_MAX ||
	    args->in_sync_count > TERN_MAX_SYNCS_PER_SUBMIT ||
	    args->out_sync_count > TERN_MAX_SYNCS_PER_SUBMIT)
		return -EINVAL;
	if (drm_dev_is_unplugged(dev))
		return -ENODEV;

	ret = tern_vm_bind_ops_get(file, args, &a);
	if (!ret) {
		a.out = tern_sync_out_get(file, args->out_syncs,
					  args->out_sync_count, small_out);
		if (IS_ERR(a.out)) {
			ret = PTR_ERR(a.out);
			a.out = NULL;
		}
	}
	if (!ret && args->flags & DRM_TERN_VM_BIND_OPS_SYNC) {
		ret = tern_vm_bind_wait(vm, &a);
	} else if (!ret) {
		if (drm_dev_enter(dev, &idx)) {
			ret = tern_vm_bind_queue(vm, &a, NULL);
			drm_dev_exit(idx);
		} else {
			ret = -ENODEV;
		}
	}
	args->error_index = a.error_index;
	args->seqno = a.seqno;
	if (a.bos)
		tern_vm_bind_args_put_bos(&a, 0);
	tern_sync_out_free(a.out, args->out_sync_count, small_out);
	kvfree(a.bos);
	kvfree(a.ops);
	return ret;
}

/**
 * tern_vm_get_state_ioctl() - DRM_IOCTL_TERN_VM_GET_STATE
 * @dev: the DRM device
 * @data: &struct drm_tern_vm_get_state
 * @file: the caller's file, whose address space is described
 *
 * Return: 0 or -EINVAL, see &struct drm_tern_vm_get_state.
 */
int tern_vm_get_state_ioctl(struct drm_device *dev, void *data,
			    struct drm_file *file)
{
	struct tern_vm *vm = to_tern_file(file)->vm;
	struct drm_tern_vm_get_state *args = data;

	if (args->flags || args->pad)
		return -EINVAL;
	mutex_lock(&vm->lock);
	args->error = vm->unplugged ? -ENODEV : vm->error;
	args->bind_error = vm->bind_error;
	args->queued = vm->next_seqno;
	args->done = vm->done_seqno;
	args->bind_error_seqno = vm->bind_error_seqno;
	args->binds_failed = vm->binds_failed;
	args->binds_cancelled = vm->binds_cancelled;
	args->mapped = vm->mapped;
	mutex_unlock(&vm->lock);
	args->update_ns = tern_vm_update_ns(vm);
	return 0;
}

/**
 * tern_vm_binds_init() - set up the queue of binds of a new address space
 * @vm: the address space
 */
void tern_vm_binds_init(struct tern_vm *vm)
{
	INIT_LIST_HEAD(&vm->binds);
	INIT_LIST_HEAD(&vm->done);
	vm->fence_context = dma_fence_context_alloc(1);
	INIT_WORK(&vm->bind_work, tern_vm_bind_work);
	INIT_WORK(&vm->reap_work, tern_vm_reap_work);
}

/*
 * No bind is queued any more (@unplug: the device is gone; else the file
 * is closed): cancel the queued ones with @error, let the worker end them
 * all and wait for it.
 */
static void tern_vm_binds_stop(struct tern_vm *vm, bool unplug, int error)
{
	mutex_lock(&vm->lock);
	if (unplug)
		vm->unplugged = true;
	else
		vm->closing = true;
	tern_vm_cancel_all(vm, error);
	mutex_unlock(&vm->lock);
	/*
	 * The worker returns at once while another runner is at work: an
	 * ioctl that runs binds itself, or the move of a BO (tern_vm_move.c),
	 * which hands what is queued back to the worker when it is done.
	 * Until the queue is empty (a bind leaves it once its DMA memory
	 * is freed).
	 */
	for (;;) {
		bool idle;

		queue_work(vm->tdev->bind.wq, &vm->bind_work);
		flush_work(&vm->bind_work);
		/* a bind leaves the queue once its DMA memory is freed */
		mutex_lock(&vm->lock);
		idle = list_empty(&vm->binds);
		mutex_unlock(&vm->lock);
		if (idle)
			break;
		wait_var_event(&vm->running, !READ_ONCE(vm->running));
	}
}

/**
 * tern_vm_close() - the file of an address space is closed
 * @vm: the address space
 *
 * The binds not running yet are cancelled (their fences signal
 * -ECANCELED), the one running ends; their garbage is reaped by the time
 * the address space is released.
 *
 * Context: process context; may sleep.
 */
void tern_vm_close(struct tern_vm *vm)
{
	tern_vm_binds_stop(vm, false, -ECANCELED);
}

/**
 * tern_vm_binds_unplug() - the device of an address space is gone
 * @vm: the address space
 *
 * The binds not running yet fail with -ENODEV; the one running ends (its
 * update's job is cancelled) and frees its buffers: when this returns, no
 * bind holds DMA memory of the device.  Called by PCI remove, after every
 * ioctl left drm_dev_enter().
 */
void tern_vm_binds_unplug(struct tern_vm *vm)
{
	tern_vm_binds_stop(vm, true, -ENODEV);
}

/**
 * tern_vm_binds_print() - the queue of binds, for debugfs
 * @vm: the address space, its lock held
 * @p: where to print
 */
void tern_vm_binds_print(struct tern_vm *vm, struct drm_printer *p)
{
	lockdep_assert_held(&vm->lock);
	drm_printf(p, "  binds: %llu queued, %llu done, %u operations waiting,",
		   vm->next_seqno, vm->done_seqno, vm->queued_ops);
	drm_printf(p, " %llu failed, %llu cancelled", vm->binds_failed,
		   vm->binds_cancelled);
	drm_printf(p, ", last error %d (bind %llu)%s\n", vm->bind_error,
		   vm->bind_error_seqno, vm->error ? ", takes no change" : "");
}
