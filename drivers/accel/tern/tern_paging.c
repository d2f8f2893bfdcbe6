// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/dma-mapping.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include <drm/tern_accel.h>

#include "tern_bind.h"
#include "tern_device.h"
#include "tern_local_mgr.h"
#include "tern_paging.h"
#include "tern_trace.h"

/**
 * DOC: paging buffers
 *
 * A BO moves between system memory and device-local memory through a
 * *paging buffer*, as the seeds call it: a DMA buffer the driver writes,
 * of privileged ``PHYS_COPY`` packets (docs/hardware.md section 8), one per
 * piece contiguous in both system and local memory, which the copy engine
 * runs as a job of
 * the driver's kernel queue (tern_bind.c), the queue of the page-table
 * updates: it is picked before any application's job and preempts the
 * running copy job, is not preemptible itself, runs again after a failure
 * of its own, and is split between packets when it is longer than the
 * device's BUF_SIZE_MAX.  Its address space is a table of invalid entries:
 * ``PHYS_COPY`` does not translate.
 *
 * Paging in and out copies the BO's pages; new local memory is cleared from
 * a buffer of zeroes in system memory.  The thread that moves the BO (TTM's
 * move callback, with the BO's reservation held) waits for the paging
 * buffer: moves are not pipelined, so no job ever depends on another
 * process's paging.
 */

/* clears copy from this many bytes of zeroes at a time */
#define TERN_PAGING_ZEROES	SZ_64K

/**
 * tern_paging_unplug() - free what the paging buffers need, at PCI remove
 * @tdev: the device, unplugged: no paging buffer runs any more
 *
 * Coherent memory goes before remove returns, while the device (and its
 * IOMMU domain) still exists.  Idempotent.
 */
void tern_paging_unplug(struct tern_device *tdev)
{
	struct tern_paging *pg = &tdev->paging;
	struct device *dev = tdev->drm.dev;

	if (pg->zeroes)
		dma_free_coherent(dev, TERN_PAGING_ZEROES, pg->zeroes,
				  pg->zeroes_dma);
	if (pg->null_root)
		dma_free_coherent(dev, TERN_PAGE_SIZE, pg->null_root,
				  pg->null_root_dma);
	pg->zeroes = NULL;
	pg->null_root = NULL;
}

/* A probe that failed, or a device released without remove. */
static void tern_paging_fini(struct drm_device *drm, void *data)
{
	tern_paging_unplug(to_tern_device(drm));
}

/**
 * tern_paging_init() - what the paging buffers need
 * @tdev: the device
 *
 * Freed at PCI remove (tern_paging_unplug()), or when the DRM device is
 * released if probing failed.
 *
 * Return: 0 or -ENOMEM.
 */
int tern_paging_init(struct tern_device *tdev)
{
	struct tern_paging *pg = &tdev->paging;
	struct device *dev = tdev->drm.dev;

	spin_lock_init(&pg->lock);
	pg->null_root = dma_alloc_coherent(dev, TERN_PAGE_SIZE,
					   &pg->null_root_dma, GFP_KERNEL);
	if (!pg->null_root)
		return -ENOMEM;
	pg->zeroes = dma_alloc_coherent(dev, TERN_PAGING_ZEROES,
					&pg->zeroes_dma, GFP_KERNEL);
	if (!pg->zeroes) {
		dma_free_coherent(dev, TERN_PAGE_SIZE, pg->null_root,
				  pg->null_root_dma);
		return -ENOMEM;
	}
	return drmm_add_action_or_reset(&tdev->drm, tern_paging_fini, NULL);
}

/* One PHYS_COPY at @cmd, or only counted when @cmd is NULL. */
static u32 tern_paging_emit(u32 *cmd, u64 src, u64 dst, u32 size, u32 flags)
{
	struct tern_pkt_phys_copy pkt = {
		.header = TERN_PKT_HEADER(TERN_OP_PHYS_COPY,
					  TERN_PKT_DWORDS_PHYS_COPY),
		.src_lo = lower_32_bits(src),
		.src_hi = upper_32_bits(src),
		.dst_lo = lower_32_bits(dst),
		.dst_hi = upper_32_bits(dst),
		.size = size,
		.flags = flags,
	};

	if (cmd)
		memcpy(cmd, &pkt, sizeof(pkt));
	return TERN_PKT_DWORDS_PHYS_COPY;
}

/*
 * The packets that copy @size bytes between the local blocks of @local
 * and the DMA segments of @sys, one per piece that is contiguous on both
 * sides; counted only when @cmd is NULL.  0 if @sys is too short.
 */
static u32 tern_paging_emit_copy(u32 *cmd, struct sg_table *sys,
				 struct ttm_resource *local, u64 size,
				 enum tern_paging_kind kind)
{
	struct tern_local_cursor c;
	struct scatterlist *sg;
	u64 done = 0;
	u32 dwords = 0;
	unsigned int i;

	tern_local_first(&c, local, 0);
	for_each_sgtable_dma_sg(sys, sg, i) {
		u64 addr = sg_dma_address(sg);
		u64 len = min_t(u64, sg_dma_len(sg), size - done);

		while (len) {
			u32 n = min(len, c.size);

			if (kind == TERN_PAGING_IN)
				dwords += tern_paging_emit(cmd ? cmd + dwords : NULL,
							   addr, c.start, n,
							   TERN_PHYS_COPY_DST_LOCAL);
			else
				dwords += tern_paging_emit(cmd ? cmd + dwords : NULL,
							   c.start, addr, n,
							   TERN_PHYS_COPY_SRC_LOCAL);
			tern_local_next(&c, n);
			addr += n;
			len -= n;
			done += n;
		}
		if (done == size)
			break;
	}
	return done == size ? dwords : 0;
}

/* The packets that zero @local's blocks, from the buffer of zeroes. */
static u32 tern_paging_emit_clear(struct tern_paging *pg, u32 *cmd,
				  struct ttm_resource *local, u64 size)
{
	struct tern_local_cursor c;
	u32 dwords = 0;
	u64 done = 0;

	tern_local_first(&c, local, 0);
	while (done < size) {
		u32 n = min3(c.size, size - done, (u64)TERN_PAGING_ZEROES);

		dwords += tern_paging_emit(cmd ? cmd + dwords : NULL,
					   pg->zeroes_dma, c.start, n,
					   TERN_PHYS_COPY_DST_LOCAL);
		tern_local_next(&c, n);
		done += n;
	}
	return dwords;
}

static void tern_paging_count(struct tern_device *tdev,
			      enum tern_paging_kind kind, u64 bytes,
			      u64 device_ns, int ret)
{
	struct tern_paging *pg = &tdev->paging;

	spin_lock(&pg->lock);
	if (ret) {
		pg->failures++;
	} else {
		pg->jobs[kind]++;
		pg->bytes[kind] += bytes;
	}
	pg->device_ns += device_ns;
	spin_unlock(&pg->lock);
}

static u32 tern_paging_emit_any(struct tern_paging *pg, u32 *cmd,
				struct sg_table *sys, struct ttm_resource *local,
				u64 size, enum tern_paging_kind kind)
{
	if (kind == TERN_PAGING_CLEAR)
		return tern_paging_emit_clear(pg, cmd, local, size);
	return tern_paging_emit_copy(cmd, sys, local, size, kind);
}

/*
 * Write the paging buffer and run it; the thread sleeps until the copy
 * engine ran it (or gave up).
 */
static int tern_paging_run(struct tern_device *tdev, struct sg_table *sys,
			   struct ttm_resource *local, u64 size,
			   enum tern_paging_kind kind)
{
	struct tern_paging *pg = &tdev->paging;
	struct device *dev = tdev->drm.dev;
	struct tern_local_cursor run_pos;
	struct tern_bind_run run;
	u32 dwords, *cmd;
	dma_addr_t cmd_dma;
	int ret, idx;

	dwords = tern_paging_emit_any(pg, NULL, sys, local, size, kind);
	/* the pages cover the BO: anything else is a bug */
	if (WARN_ON(!dwords))
		return -EINVAL;

	if (!drm_dev_enter(&tdev->drm, &idx))
		return -ENODEV;

	cmd = dma_alloc_coherent(dev, dwords * 4, &cmd_dma, GFP_KERNEL);
	if (!cmd) {
		ret = -ENOMEM;
		goto out_exit;
	}
	tern_paging_emit_any(pg, cmd, sys, local, size, kind);

	ret = tern_bind_prepare(tdev, dwords * 4, &run);
	if (ret)
		goto out_free;
	ret = tern_bind_run(tdev, &run, cmd, cmd_dma, dwords,
			    pg->null_root_dma);
	tern_paging_count(tdev, kind, size, run.device_ns, ret);
	tern_local_first(&run_pos, local, 0);
	trace_tern_paging(kind, run_pos.start, size,
			  dwords / TERN_PKT_DWORDS_PHYS_COPY, run.device_ns, ret);
	tern_bind_release(&run);
out_free:
	dma_free_coherent(dev, dwords * 4, cmd, cmd_dma);
out_exit:
	drm_dev_exit(idx);
	return ret;
}

/**
 * tern_paging_copy() - page a BO in or out
 * @tdev: the device
 * @sys: its pages in system memory, mapped for DMA by the device
 * @local: its local memory
 * @size: the BO's size
 * @kind: %TERN_PAGING_IN (to @local) or %TERN_PAGING_OUT (to @sys)
 *
 * Context: process context, no lock the scheduler or a fence callback
 * takes (a BO's reservation is fine); sleeps until the copy ran.
 * Return: 0, or the error of tern_bind_run(): the destination may then
 * hold part of the data.
 */
int tern_paging_copy(struct tern_device *tdev, struct sg_table *sys,
		     struct ttm_resource *local, u64 size,
		     enum tern_paging_kind kind)
{
	return tern_paging_run(tdev, sys, local, size, kind);
}

/**
 * tern_paging_clear() - zero the local memory of a BO
 * @tdev: the device
 * @local: its local memory
 * @size: the BO's size
 *
 * Context: as tern_paging_copy().
 * Return: 0 or a negative errno.
 */
int tern_paging_clear(struct tern_device *tdev, struct ttm_resource *local,
		      u64 size)
{
	return tern_paging_run(tdev, NULL, local, size, TERN_PAGING_CLEAR);
}

/**
 * tern_paging_debugfs_show() - the paging buffers run, for debugfs
 * @tdev: the device
 * @p: where to print
 */
void tern_paging_debugfs_show(struct tern_device *tdev, struct drm_printer *p)
{
	static const char * const names[] = { "in", "out", "clear" };
	struct tern_paging *pg = &tdev->paging;
	u64 jobs[TERN_PAGING_KINDS], bytes[TERN_PAGING_KINDS], failures, ns;
	int i;

	spin_lock(&pg->lock);
	memcpy(jobs, pg->jobs, sizeof(jobs));
	memcpy(bytes, pg->bytes, sizeof(bytes));
	failures = pg->failures;
	ns = pg->device_ns;
	spin_unlock(&pg->lock);
	for (i = 0; i < TERN_PAGING_KINDS; i++)
		drm_printf(p, "paging_%s: %llu jobs %llu bytes\n", names[i],
			   jobs[i], bytes[i]);
	drm_printf(p, "paging_failures: %llu\npaging_device_ns: %llu\n",
		   failures, ns);
}
