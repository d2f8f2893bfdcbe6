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
#include "tern_gem.h"
#include "tern_local_mgr.h"
#include "tern_paging.h"
#include "tern_pt.h"
#include "tern_trace.h"

/**
 * DOC: paging buffers
 *
 * A BO moves between system memory and device-local memory through a
 * *paging buffer*, as the seeds call it: a DMA buffer the driver writes,
 * of privileged ``PHYS_COPY`` packets (docs/hardware.md section 8), one per
 * piece contiguous in both system and local memory (1 MiB at most), which
 * the copy engine runs as jobs of at most 4 MiB of data each, on the
 * driver's paging queue (tern_bind.c): a context of the copy engine at
 * NORMAL priority whose jobs are preemptible at every 4 KiB chunk (each
 * has a resume record), so that a HIGH copy job, or a page-table update,
 * goes first; a job runs again after a failure of its own, and is split
 * between packets when it is longer than the device's BUF_SIZE_MAX.  Its
 * address space is a table of invalid entries: ``PHYS_COPY`` does not
 * translate.
 *
 * Paging in and out copies the BO's pages; new local memory is cleared from
 * a buffer of zeroes in system memory.  The thread that moves the BO (TTM's
 * move callback, with the BO's reservation held) waits for the paging
 * buffer: moves are not pipelined, so no job ever depends on another
 * process's paging.
 */

/* clears copy from this many bytes of zeroes at a time */
#define TERN_PAGING_ZEROES	SZ_64K
/*
 * The buffer a paging buffer is written into, a piece at a time, and after
 * it the resume record of its jobs: four pages in all.
 */
#define TERN_PAGING_ALLOC_BYTES	SZ_16K
#define TERN_PAGING_BUF_BYTES	(TERN_PAGING_ALLOC_BYTES - TERN_RESUME_RECORD_SIZE)
/* the most data of one job: about 4 ms of the copy engine at time-scale 1 */
#define TERN_PAGING_RUN_BYTES	SZ_4M
/* the most data of one packet */
#define TERN_PAGING_PACKET_BYTES	SZ_1M

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

/**
 * struct tern_paging_iter - where the writing of a paging buffer is
 * @kind: what it does
 * @c: the local side: its position in the BO's blocks
 * @sg: the system side of a copy: the DMA segment it is in
 * @sg_off: bytes of @sg done
 * @left: bytes left
 * @zeroes: bus address of the zeroes that clears copy
 */
struct tern_paging_iter {
	enum tern_paging_kind kind;
	struct tern_local_cursor c;
	struct scatterlist *sg;
	u64 sg_off;
	u64 left;
	dma_addr_t zeroes;
};

/*
 * The next packets of the iteration into @cmd: at most @max, and at most
 * TERN_PAGING_RUN_BYTES of data; one per piece contiguous on both sides,
 * of at most TERN_PAGING_PACKET_BYTES.  The dwords written.
 */
static u32 tern_paging_emit_some(struct tern_paging_iter *it, u32 *cmd,
				 u32 max)
{
	u64 bytes = 0;
	u32 n = 0;

	while (it->left && n < max && bytes < TERN_PAGING_RUN_BYTES) {
		u64 len = min3(it->c.size, it->left, (u64)TERN_PAGING_PACKET_BYTES);
		u32 *pkt = cmd + n * TERN_PKT_DWORDS_PHYS_COPY;

		len = min_t(u64, len, TERN_PAGING_RUN_BYTES - bytes);
		/* blocks shorter than the BO: a bug; the packet would be refused */
		if (WARN_ON(!len))
			return 0;

		if (it->kind == TERN_PAGING_CLEAR) {
			len = min_t(u64, len, TERN_PAGING_ZEROES);
			tern_pt_emit_phys_copy(pkt, it->zeroes, it->c.start, len,
					       TERN_PHYS_COPY_DST_LOCAL);
		} else {
			u64 addr = sg_dma_address(it->sg) + it->sg_off;

			len = min_t(u64, len, sg_dma_len(it->sg) - it->sg_off);
			if (it->kind == TERN_PAGING_IN)
				tern_pt_emit_phys_copy(pkt, addr, it->c.start,
						       len,
						       TERN_PHYS_COPY_DST_LOCAL);
			else
				tern_pt_emit_phys_copy(pkt, it->c.start, addr,
						       len,
						       TERN_PHYS_COPY_SRC_LOCAL);
			it->sg_off += len;
			if (it->sg_off == sg_dma_len(it->sg) && it->left > len) {
				it->sg = sg_next(it->sg);
				it->sg_off = 0;
			}
		}
		tern_local_next(&it->c, len);
		it->left -= len;
		bytes += len;
		n++;
	}
	return n * TERN_PKT_DWORDS_PHYS_COPY;
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

/*
 * Write the paging buffer a piece at a time into one bounded buffer and
 * run each piece; the thread sleeps until the copy engine ran them all
 * (or one failed).
 */
static int tern_paging_run(struct tern_device *tdev, struct sg_table *sys,
			   struct ttm_resource *local, u64 size,
			   enum tern_paging_kind kind, u64 *ns)
{
	struct tern_paging *pg = &tdev->paging;
	struct device *dev = tdev->drm.dev;
	struct tern_paging_iter it = {
		.kind = kind,
		.left = size,
		.zeroes = pg->zeroes_dma,
	};
	u32 max = TERN_PAGING_BUF_BYTES / sizeof(struct tern_pkt_phys_copy);
	u64 local_start, device_ns = 0;
	struct tern_bind_run run;
	u32 dwords, *cmd, packets = 0;
	dma_addr_t cmd_dma;
	int ret = 0, idx;

	/* the pages cover the BO: anything else is a bug */
	if (WARN_ON(!size || (sys && tern_sgt_dma_bytes(sys) < size)))
		return -EINVAL;
	tern_local_first(&it.c, local, 0);
	local_start = it.c.start;
	if (sys)
		it.sg = sys->sgl;

	if (!drm_dev_enter(&tdev->drm, &idx))
		return -ENODEV;

	cmd = dma_alloc_coherent(dev, TERN_PAGING_ALLOC_BYTES, &cmd_dma,
				 GFP_KERNEL);
	if (!cmd) {
		ret = -ENOMEM;
		goto out_exit;
	}
	if (sys && kind == TERN_PAGING_IN)
		dma_sync_sgtable_for_device(dev, sys, DMA_BIDIRECTIONAL);
	while (it.left && !ret) {
		/* PCI remove waits for this section: leave it at once */
		if (drm_dev_is_unplugged(&tdev->drm)) {
			ret = -ENODEV;
			break;
		}
		ret = tern_bind_prepare(tdev, TERN_PAGING_BUF_BYTES, &run);
		if (ret)
			break;
		dwords = tern_paging_emit_some(&it, cmd, max);
		if (!dwords) {
			tern_bind_release(&run);
			ret = -EINVAL;
			break;
		}
		packets += dwords / TERN_PKT_DWORDS_PHYS_COPY;
		ret = tern_bind_run_paging(tdev, &run, cmd, cmd_dma, dwords,
					   pg->null_root_dma,
					   (void *)cmd + TERN_PAGING_BUF_BYTES,
					   cmd_dma + TERN_PAGING_BUF_BYTES);
		device_ns += run.device_ns;
		tern_bind_release(&run);
	}
	if (sys && kind == TERN_PAGING_OUT)
		dma_sync_sgtable_for_cpu(dev, sys, DMA_BIDIRECTIONAL);
	tern_paging_count(tdev, kind, size, device_ns, ret);
	*ns += device_ns;
	trace_tern_paging(kind, local_start, size, packets, device_ns, ret);
	dma_free_coherent(dev, TERN_PAGING_ALLOC_BYTES, cmd, cmd_dma);
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
 * @device_ns: the device time of its jobs is added here
 *
 * Context: process context, no lock the scheduler or a fence callback
 * takes (a BO's reservation is fine); sleeps until the copy ran.
 * Return: 0, or the error of tern_bind_run(): the destination may then
 * hold part of the data.
 */
int tern_paging_copy(struct tern_device *tdev, struct sg_table *sys,
		     struct ttm_resource *local, u64 size,
		     enum tern_paging_kind kind, u64 *device_ns)
{
	return tern_paging_run(tdev, sys, local, size, kind, device_ns);
}

/**
 * tern_paging_clear() - zero the local memory of a BO
 * @tdev: the device
 * @local: its local memory
 * @size: the BO's size
 * @device_ns: the device time of its jobs is added here
 *
 * Context: as tern_paging_copy().
 * Return: 0 or a negative errno.
 */
int tern_paging_clear(struct tern_device *tdev, struct ttm_resource *local,
		      u64 size, u64 *device_ns)
{
	return tern_paging_run(tdev, NULL, local, size, TERN_PAGING_CLEAR,
			       device_ns);
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
		drm_printf(p, "paging_%s: %llu buffers %llu bytes\n", names[i],
			   jobs[i], bytes[i]);
	drm_printf(p, "paging_failures: %llu\npaging_device_ns: %llu\n",
		   failures, ns);
	drm_printf(p, "evictions: %lld\nretargets: %lld\nretarget_cpu: %lld\n",
		   atomic64_read(&pg->evictions), atomic64_read(&pg->retargets),
		   atomic64_read(&pg->retarget_cpu));
	drm_printf(p, "residency_retries: %lld\ntlb_barriers: %lld\n",
		   atomic64_read(&pg->residency_retries),
		   atomic64_read(&pg->tlb_barriers));
	tern_bind_debugfs_show_paging(tdev, p);
}
