// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <drm/drm_gem.h>
#include <drm/ttm/ttm_bo.h>
#include <drm/ttm/ttm_device.h>
#include <drm/ttm/ttm_resource.h>

#include "tern_device.h"
#include "tern_gem.h"
#include "tern_residency.h"
#include "tern_ttm.h"
#include "tern_vm.h"

/**
 * DOC: residency
 *
 * The seeds' residency is per DMA buffer: the memory manager makes every
 * allocation of a DMA buffer's list resident before the scheduler may run
 * it, paging what must move with paging buffers, evicting what must make
 * room.  In tern the allocation list is a job's BOs
 * (&drm_tern_submit.bo_handles), and the submit makes them resident, with
 * their reservations held (the job's drm_exec transaction, which its
 * fence then joins, so that nothing moves them until the job ends):
 *
 * - a LOCAL BO goes to local memory: paged in (or cleared there) if it is
 *   in system memory, after idle BOs were evicted to make room;
 * - a LOCAL_PREFERRED BO goes there only if local memory has room without
 *   evicting, and is not busy; else it stays in system memory;
 * - a SYSTEM BO is left alone: its mappings pin it.
 *
 * Moves are synchronous (tern_ttm.c): when this returns, the data is in
 * place and every address space that maps a moved BO maps its new place.
 * Victims are idle BOs only: one a queued, running or preempted job lists
 * is busy, so a job's BOs stay resident until it ends, and no job waits
 * for another process's paging.  The listed BOs go to the tail of TTM's
 * LRU list, so that the least recently used are evicted first.
 *
 * The submits that must move LOCAL BOs in take local memory one at a time
 * (&tern_device.residency_lock, outside the reservations), and so do the
 * maps of LOCAL BOs: otherwise two jobs whose BOs fit local memory only
 * one job at a time could each page theirs in, evicting the other's, for
 * ever.  One that waits for room keeps the lock, so that what it paged in
 * meanwhile stays.
 *
 * A job whose LOCAL BOs cannot fit local memory together fails with
 * -ENOSPC.  A LOCAL BO that a map still in flight pins in system memory
 * (a map that found local memory full, whose bind has not run yet) stays
 * there for the job, and so does one busy there (a job runs with it so):
 * a submit never waits for another job with local memory locked.  If the
 * BOs could fit but local memory is held by busy or pinned BOs, or by
 * another transaction, this returns -EAGAIN and the submit tries again,
 * its reservations dropped, for up to %TERN_RESIDENCY_RETRY_MS; then the
 * ioctl fails with -EAGAIN.  A LOCAL BO pinned in system memory by
 * another device's dma-buf attachment cannot move: -EBUSY.
 */

/* LOCAL and LOCAL_PREFERRED BOs are made resident; others are not. */
static struct tern_bo *tern_residency_bo(struct drm_gem_object *obj)
{
	struct tern_bo *bo = to_tern_bo(obj);

	return tern_bo_movable(bo) ? bo : NULL;
}

/**
 * tern_residency_needed() - whether a job lists a BO that residency moves
 * @bos: the job's BOs
 * @count: how many
 *
 * Return: true if one of them is a LOCAL or LOCAL_PREFERRED BO.
 */
bool tern_residency_needed(struct drm_gem_object **bos, u32 count)
{
	u32 i;

	for (i = 0; i < count; i++)
		if (tern_residency_bo(bos[i]))
			return true;
	return false;
}

/**
 * tern_residency_must_move() - whether a job's LOCAL BOs must move
 * @bos: the job's BOs, reserved
 * @count: how many
 *
 * Return: true if a LOCAL BO among them is not in local memory: making it
 * resident takes local memory, under &tern_device.residency_lock.
 */
bool tern_residency_must_move(struct drm_gem_object **bos, u32 count)
{
	u32 i;

	for (i = 0; i < count; i++) {
		struct tern_bo *bo = tern_residency_bo(bos[i]);

		if (bo && bo->placement == DRM_TERN_BO_PLACEMENT_LOCAL &&
		    (!bo->tbo.resource ||
		     bo->tbo.resource->mem_type != TERN_PL_LOCAL))
			return true;
	}
	return false;
}

/* Whether @bos[i] is listed before index @i too. */
static bool tern_residency_dup(struct drm_gem_object **bos, u32 i)
{
	u32 j;

	for (j = 0; j < i; j++)
		if (bos[j] == bos[i])
			return true;
	return false;
}

static int tern_residency_local(struct tern_bo *bo, struct tern_ttm_mover *m)
{
	struct ttm_buffer_object *tbo = &bo->tbo;
	int ret;

	if (tbo->resource && tbo->resource->mem_type == TERN_PL_LOCAL)
		return 0;
	if (tbo->pin_count) {
		/*
		 * An attachment keeps it in system memory.  A map still in
		 * flight pins it until the map ran, maybe after the in-fences
		 * of its bind, which this job may wait for: the job runs with
		 * it where it is, in system memory.
		 */
		return bo->attach_pins ? -EBUSY : 0;
	}
	/*
	 * Busy in system memory: a job runs (or waits to) with it there,
	 * placed so for the exception above.  This one does too, rather
	 * than wait for that one with local memory locked for everybody.
	 */
	if (!dma_resv_test_signaled(tbo->base.resv, DMA_RESV_USAGE_BOOKKEEP))
		return 0;
	/* mapped where a change failed: it stays, don't evict for it */
	if (tern_vm_bo_stuck(bo))
		return -EBUSY;
	ret = ttm_bo_validate(tbo, &tern_placement_local, &m->ctx);
	/*
	 * TTM says -ENOMEM when it found no room even after evicting what
	 * it could, and when it backed off from another transaction.
	 */
	if (ret == -ENOMEM || ret == -ENOSPC)
		return -EAGAIN;
	return ret;
}

static void tern_residency_preferred(struct tern_device *tdev,
				     struct tern_bo *bo, bool serial,
				     struct tern_ttm_mover *m)
{
	struct ttm_buffer_object *tbo = &bo->tbo;

	/*
	 * Where it is will do: never wait nor evict for it, nor take the
	 * room a submit that waits for local memory made.
	 */
	if ((!serial && mutex_is_locked(&tdev->residency_lock)) ||
	    tbo->pin_count ||
	    (tbo->resource && tbo->resource->mem_type == TERN_PL_LOCAL) ||
	    !dma_resv_test_signaled(tbo->base.resv, DMA_RESV_USAGE_BOOKKEEP))
		return;
	/*
	 * A page-in that fails (no room, no memory for the paging buffer)
	 * leaves it where it was, which is fine too.
	 */
	ttm_bo_validate(tbo, &tern_placement_local_preferred, &m->ctx);
}

/**
 * tern_residency_validate() - make the BOs of a job resident
 * @tdev: the device
 * @bos: the job's BOs (the same one may be listed twice), all reserved in
 *	the caller's drm_exec transaction
 * @count: how many
 * @m: the mover, registered (tern_ttm_mover_begin()): counts the paging
 * @serial: the caller holds &tern_device.residency_lock
 *
 * See "DOC: residency".
 *
 * Return: 0; -ENOSPC the LOCAL BOs are larger than local memory together;
 * -EAGAIN try again in a new transaction; -EBUSY a LOCAL BO is pinned in
 * system memory by an attachment, or maps in an address space that failed
 * a change; -ERESTARTSYS, -EINTR; another errno of a move (-ENOMEM, -EIO
 * the copy engine lost, -ENODEV the device gone).
 */
int tern_residency_validate(struct tern_device *tdev,
			    struct drm_gem_object **bos, u32 count,
			    struct tern_ttm_mover *m, bool serial)
{
	struct ttm_resource_manager *man = ttm_manager_type(&tdev->ttm,
							    TERN_PL_LOCAL);
	u64 local = 0;
	u32 i;
	int ret;

	for (i = 0; i < count; i++) {
		struct tern_bo *bo = tern_residency_bo(bos[i]);

		if (bo && bo->placement == DRM_TERN_BO_PLACEMENT_LOCAL &&
		    !tern_residency_dup(bos, i))
			local += tern_bo_size(bo);
	}
	if (local && (!man || local > man->size))
		return -ENOSPC;
	/* what must be in local memory first, then what may */
	for (i = 0; i < count; i++) {
		struct tern_bo *bo = tern_residency_bo(bos[i]);

		if (!bo || bo->placement != DRM_TERN_BO_PLACEMENT_LOCAL)
			continue;
		ret = tern_residency_local(bo, m);
		if (ret)
			return ret;
	}
	for (i = 0; i < count; i++) {
		struct tern_bo *bo = tern_residency_bo(bos[i]);

		if (bo && bo->placement == DRM_TERN_BO_PLACEMENT_LOCAL_PREFERRED)
			tern_residency_preferred(tdev, bo, serial, m);
	}
	/* used now: the last to be evicted */
	spin_lock(&tdev->ttm.lru_lock);
	for (i = 0; i < count; i++) {
		struct tern_bo *bo = tern_residency_bo(bos[i]);

		if (bo && !bo->tbo.pin_count)
			ttm_bo_move_to_lru_tail(&bo->tbo);
	}
	spin_unlock(&tdev->ttm.lru_lock);
	return 0;
}
