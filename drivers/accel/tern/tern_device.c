// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/dma-mapping.h>
#include <linux/iopoll.h>
#include <linux/pci.h>

#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "tern_device.h"

/**
 * DOC: device bring-up
 *
 * The device layer owns the PCI side of the device: enabling it, mapping the
 * register BAR, checking the identity and version registers, the whole-device
 * reset and the MSI-X vectors (one per engine plus the error vector).  All
 * of it is device-managed (pcim/devm), so PCI remove undoes it; anything that
 * may outlive the PCI device (files, fences) must not touch @regs after
 * drm_dev_unplug(), which is why register accesses from process context sit
 * inside drm_dev_enter()/drm_dev_exit().
 */

#define TERN_RESET_TIMEOUT_US	200000

/**
 * tern_device_reset() - reset the whole device and wait until it is ready
 * @tdev: the device
 *
 * Return: 0, or -ETIMEDOUT if STATUS.READY did not come up.
 */
int tern_device_reset(struct tern_device *tdev)
{
	unsigned int i;
	u32 status;
	int ret;

	/* the slots' registers read zero after the reset */
	for (i = 0; i < tdev->engine_count; i++)
		memset(tdev->engines[i].slot_regs_valid, 0,
		       sizeof(tdev->engines[i].slot_regs_valid));
	tern_write(tdev, TERN_REG_RESET, TERN_RESET_MAGIC);
	ret = readl_poll_timeout(tdev->regs + TERN_REG_STATUS, status,
				 status & TERN_STATUS_READY, 10,
				 TERN_RESET_TIMEOUT_US);
	if (ret)
		drm_err(&tdev->drm, "device did not become ready after reset\n");
	return ret;
}

/**
 * tern_device_clock_ns() - read the device clock
 * @tdev: the device
 *
 * Return: nanoseconds since the device was reset.
 */
u64 tern_device_clock_ns(struct tern_device *tdev)
{
	return tern_read_counter64(tdev, TERN_REG_CLOCK_LO);
}

/**
 * __tern_device_tlb_invalidate() - invalidate the TLB of every engine
 * @tdev: the device, which the caller keeps (drm_dev_enter())
 *
 * As tern_device_tlb_invalidate(), for a caller already inside
 * drm_dev_enter(): once the device is unplugged, that one does nothing,
 * while the engines may still run until PCI remove resets them, which
 * waits for the caller.
 *
 * Context: process context; may sleep.
 */
void __tern_device_tlb_invalidate(struct tern_device *tdev)
{
	unsigned int i;

	mutex_lock(&tdev->reset_lock);
	for (i = 0; i < tdev->engine_count; i++)
		tern_engine_tlb_invalidate(&tdev->engines[i]);
	mutex_unlock(&tdev->reset_lock);
}

/**
 * tern_device_tlb_invalidate() - invalidate the TLB of every engine
 * @tdev: the device
 *
 * Does nothing once the device is gone.  Serialised against engine resets
 * (&tern_device.reset_lock): a register write to a RESETTING engine is a
 * register error, and the reset flushes the TLB anyway.  Callers that
 * changed or removed a mapping call this once the change is in the tables,
 * before the range may be used again.
 *
 * Context: process context; may sleep.
 */
void tern_device_tlb_invalidate(struct tern_device *tdev)
{
	int idx;

	if (!drm_dev_enter(&tdev->drm, &idx))
		return;
	__tern_device_tlb_invalidate(tdev);
	drm_dev_exit(idx);
}

/* after this long waiting for one engine, the TLB barrier says so */
#define TERN_TLB_BARRIER_WARN_MS	(2 * TERN_MAX_TIMEOUT_MS)

/* Whether an engine in @state may still access memory. */
static bool tern_engine_state_busy(u32 state)
{
	return state == TERN_ENG_STATE_RUNNING ||
	       state == TERN_ENG_STATE_PREEMPTING ||
	       state == TERN_ENG_STATE_RESETTING;
}

/**
 * __tern_device_tlb_barrier() - wait until no engine can still use a
 *	translation it made before the last TLB invalidation
 * @tdev: the device
 *
 * After tern_device_tlb_invalidate(), a chunk an engine translated before
 * may still finish its accesses (docs/hardware.md 9.3).  %TERN_ENG_PROGRESS
 * changes at each chunk boundary and packet start, only once the accesses
 * of the chunk before are done (docs/hardware.md 12); an engine that is
 * IDLE makes none, and a RESETTING one at most those of its chunk in
 * progress, until it is IDLE (docs/hardware.md 15).  So for each busy
 * engine this samples the counter and waits until it moved (RUNNING or
 * PREEMPTING) or the engine is IDLE: then memory the old translations
 * reached may be given to somebody else.  An engine that makes no
 * progress ends the wait through its reset, by the watchdog (the context
 * timeout); the wait has no other bound, not even the device's unplug:
 * the engines run until PCI remove resets them, after it waited for the
 * caller.  Reads only: holds no lock, so that neither the watchdog nor a
 * reset waits for it.
 *
 * Context: process context; may sleep; inside drm_dev_enter().
 */
void __tern_device_tlb_barrier(struct tern_device *tdev)
{
	unsigned int i;

	for (i = 0; i < tdev->engine_count; i++) {
		struct tern_engine *eng = &tdev->engines[i];
		unsigned long warn = jiffies +
				     msecs_to_jiffies(TERN_TLB_BARRIER_WARN_MS);
		unsigned int delay = 10;
		u32 state, progress;
		bool warned = false;

		/* a lost engine runs nothing, and will not come back */
		if (READ_ONCE(eng->lost))
			continue;
		state = TERN_ENG_STATE(tern_eng_read(eng, TERN_ENG_STATUS));
		if (!tern_engine_state_busy(state))
			continue;
		progress = tern_eng_read(eng, TERN_ENG_PROGRESS);
		atomic64_inc(&tdev->paging.tlb_barriers);
		for (;;) {
			state = TERN_ENG_STATE(tern_eng_read(eng, TERN_ENG_STATUS));
			if (!tern_engine_state_busy(state) ||
			    READ_ONCE(eng->lost))
				break;
			if (state != TERN_ENG_STATE_RESETTING &&
			    tern_eng_read(eng, TERN_ENG_PROGRESS) != progress)
				break;
			if (!warned && time_after(jiffies, warn)) {
				drm_warn(&tdev->drm, "engine %u: no progress for the TLB barrier in %u ms\n",
					 i, TERN_TLB_BARRIER_WARN_MS);
				warned = true;
			}
			usleep_range(delay, 2 * delay);
			delay = min(delay * 2, 1000u);
		}
	}
}

/**
 * tern_device_init() - enable, identify and reset the PCI device
 * @tdev: the device, with @pdev set
 *
 * Maps BAR0, checks TERN_REG_ID and the major version, resets the device,
 * reads its configuration, masks the error interrupts and allocates one
 * MSI-X vector per engine plus the error vector.
 *
 * Return: 0 or a negative errno.
 */
int tern_device_init(struct tern_device *tdev)
{
	struct pci_dev *pdev = tdev->pdev;
	struct drm_device *drm = &tdev->drm;
	u32 id, engines;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	pci_set_master(pdev);

	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(52));
	if (ret)
		return ret;

	tdev->regs = pcim_iomap_region(pdev, TERN_BAR_REGS, "tern");
	if (IS_ERR(tdev->regs))
		return PTR_ERR(tdev->regs);
	if (pci_resource_len(pdev, TERN_BAR_REGS) < TERN_REGS_SIZE)
		return -ENODEV;

	id = tern_read(tdev, TERN_REG_ID);
	if (id != TERN_ID_MAGIC) {
		drm_err(drm, "unexpected ID register 0x%08x\n", id);
		return -ENODEV;
	}
	tdev->hw_version = tern_read(tdev, TERN_REG_VERSION);
	if (TERN_VERSION_MAJOR(tdev->hw_version) != TERN_VERSION_MAJOR(TERN_HW_VERSION)) {
		drm_err(drm, "unsupported hardware version %u.%u\n",
			TERN_VERSION_MAJOR(tdev->hw_version),
			TERN_VERSION_MINOR(tdev->hw_version));
		return -ENODEV;
	}

	ret = tern_device_reset(tdev);
	if (ret)
		return ret;

	tdev->caps = tern_read(tdev, TERN_REG_CAPS);
	engines = tern_read(tdev, TERN_REG_ENGINES);
	tdev->engine_count = TERN_ENGINES_TOTAL(engines);
	tdev->compute_count = TERN_ENGINES_COMPUTE(engines);
	if (!tdev->engine_count || tdev->engine_count > TERN_MAX_ENGINES ||
	    tdev->compute_count > tdev->engine_count) {
		drm_err(drm, "bad ENGINES register 0x%08x\n", engines);
		return -ENODEV;
	}
	tdev->local_mem_size = tern_read64(tdev, TERN_REG_LOCAL_MEM_SIZE_LO);
	/*
	 * The CPU reaches local memory through BAR2: a BAR that is not
	 * there, not assigned or too small would map something else: the
	 * device is then used without its local memory.
	 */
	if (tdev->local_mem_size) {
		unsigned long flags = pci_resource_flags(pdev, TERN_BAR_LOCAL_MEM);

		if (!(flags & IORESOURCE_MEM) || (flags & IORESOURCE_UNSET) ||
		    pci_resource_len(pdev, TERN_BAR_LOCAL_MEM) < tdev->local_mem_size) {
			drm_warn(drm, "BAR2 %pR cannot hold %llu bytes of local memory: not used\n",
				 &pdev->resource[TERN_BAR_LOCAL_MEM],
				 tdev->local_mem_size);
			tdev->local_mem_size = 0;
		}
		tdev->local_mem_size = round_down(tdev->local_mem_size, PAGE_SIZE);
	}
	tdev->buf_size_max = tern_read(tdev, TERN_REG_BUF_SIZE_MAX);
	tdev->tlb_entries = tern_read(tdev, TERN_REG_TLB_ENTRIES);
	/* a page-table update runs in pieces of at least two PHYS_COPY */
	if (tdev->buf_size_max < TERN_BUF_SIZE_MAX_MIN) {
		drm_err(drm, "BUF_SIZE_MAX %u is below %u\n", tdev->buf_size_max,
			TERN_BUF_SIZE_MAX_MIN);
		return -ENODEV;
	}

	tern_write(tdev, TERN_REG_ERR_IRQ_MASK, ~0u);
	tern_write(tdev, TERN_REG_ERR_IRQ_STATUS, ~0u);

	tdev->irq_count = tdev->engine_count + 1;
	ret = pci_alloc_irq_vectors(pdev, tdev->irq_count, tdev->irq_count,
				    PCI_IRQ_MSIX);
	if (ret < 0) {
		drm_err(drm, "cannot allocate %u MSI-X vectors: %d\n",
			tdev->irq_count, ret);
		return ret;
	}
	ret = pci_irq_vector(pdev, tdev->engine_count);
	if (ret < 0)
		return ret;
	tdev->err_irq = ret;

	return 0;
}

/**
 * tern_device_fini() - quiesce the device before its resources go away
 * @tdev: the device
 *
 * Masks every interrupt and resets the device so that it stops DMA; called
 * at PCI remove while the registers are still mapped.
 */
void tern_device_fini(struct tern_device *tdev)
{
	unsigned int i;

	tern_write(tdev, TERN_REG_ERR_IRQ_MASK, ~0u);
	for (i = 0; i < tdev->engine_count; i++)
		tern_engine_disable_irqs(&tdev->engines[i]);
	tern_device_reset(tdev);
}
