// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/module.h>
#include <linux/pci.h>

#include <drm/drm_accel.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_print.h>

#include <drm/tern_accel.h>

#include "tern_device.h"
#include "tern_drv.h"

static int tern_get_info_ioctl(struct drm_device *drm, void *data,
			       struct drm_file *file)
{
	struct tern_device *tdev = to_tern_device(drm);
	struct drm_tern_get_info *args = data;
	unsigned int i;
	int idx;

	if (args->flags)
		return -EINVAL;
	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;

	memset(args, 0, sizeof(*args));
	args->hw_version = tdev->hw_version;
	args->driver_version = TERN_DRIVER_MAJOR << 16 | TERN_DRIVER_MINOR;
	args->caps = tdev->caps & (DRM_TERN_CAP_SINGLE_USE | DRM_TERN_CAP_FAULT_INJECT);
	args->engine_count = tdev->engine_count;
	args->compute_engine_count = tdev->compute_count;
	for (i = 0; i < tdev->engine_count; i++)
		args->engine_class[i] = tdev->engines[i].class;
	args->buf_size_max = tdev->buf_size_max;
	args->max_contexts = TERN_MAX_CONTEXTS_PER_FILE;
	args->max_jobs_per_context = TERN_MAX_JOBS_PER_CONTEXT;
	args->max_bos_per_submit = TERN_MAX_BOS_PER_SUBMIT;
	args->max_syncs_per_submit = TERN_MAX_SYNCS_PER_SUBMIT;
	args->tlb_entries = tdev->tlb_entries;
	args->default_timeout_ms = TERN_DEFAULT_TIMEOUT_MS;
	args->max_timeout_ms = TERN_MAX_TIMEOUT_MS;
	args->local_mem_size = tdev->local_mem_size;
	args->max_bo_size = TERN_MAX_BO_SIZE;
	args->va_bits = TERN_VA_BITS;
	args->device_clock_ns = tern_device_clock_ns(tdev);

	drm_dev_exit(idx);
	return 0;
}

static int tern_open(struct drm_device *drm, struct drm_file *file)
{
	struct tern_device *tdev = to_tern_device(drm);
	struct tern_file *tfile;

	tfile = kzalloc(sizeof(*tfile), GFP_KERNEL);
	if (!tfile)
		return -ENOMEM;

	tfile->tdev = tdev;
	tfile->client_id = file->client_id;
	mutex_init(&tfile->lock);
	xa_init_flags(&tfile->contexts, XA_FLAGS_ALLOC1);
	file->driver_priv = tfile;
	return 0;
}

static void tern_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct tern_file *tfile = to_tern_file(file);

	xa_destroy(&tfile->contexts);
	mutex_destroy(&tfile->lock);
	kfree(tfile);
}

static const struct drm_ioctl_desc tern_ioctls[] = {
	DRM_IOCTL_DEF_DRV(TERN_GET_INFO, tern_get_info_ioctl, DRM_RENDER_ALLOW),
};

DEFINE_DRM_ACCEL_FOPS(tern_fops);

static const struct drm_driver tern_drm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_COMPUTE_ACCEL |
			   DRIVER_SYNCOBJ | DRIVER_SYNCOBJ_TIMELINE,
	.open = tern_open,
	.postclose = tern_postclose,
	.ioctls = tern_ioctls,
	.num_ioctls = ARRAY_SIZE(tern_ioctls),
	.fops = &tern_fops,
	.name = TERN_DRIVER_NAME,
	.desc = TERN_DRIVER_DESC,
	.major = TERN_DRIVER_MAJOR,
	.minor = TERN_DRIVER_MINOR,
};

static int tern_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct tern_device *tdev;
	unsigned int i;
	int ret;

	tdev = devm_drm_dev_alloc(&pdev->dev, &tern_drm_driver,
				  struct tern_device, drm);
	if (IS_ERR(tdev))
		return PTR_ERR(tdev);
	tdev->pdev = pdev;
	pci_set_drvdata(pdev, tdev);

	ret = tern_device_init(tdev);
	if (ret)
		return ret;

	for (i = 0; i < tdev->engine_count; i++) {
		ret = tern_engine_init(tdev, &tdev->engines[i], i);
		if (ret)
			return ret;
	}

	ret = drm_dev_register(&tdev->drm, 0);
	if (ret)
		return ret;

	drm_info(&tdev->drm, "tern %u.%u: %u engines (%u compute), %llu MiB local memory\n",
		 TERN_VERSION_MAJOR(tdev->hw_version),
		 TERN_VERSION_MINOR(tdev->hw_version), tdev->engine_count,
		 tdev->compute_count, tdev->local_mem_size >> 20);
	return 0;
}

static void tern_remove(struct pci_dev *pdev)
{
	struct tern_device *tdev = pci_get_drvdata(pdev);

	drm_dev_unplug(&tdev->drm);
	tern_device_fini(tdev);
}

static const struct pci_device_id tern_pci_ids[] = {
	{ PCI_DEVICE(TERN_PCI_VENDOR_ID, TERN_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, tern_pci_ids);

static struct pci_driver tern_pci_driver = {
	.name = KBUILD_MODNAME,
	.id_table = tern_pci_ids,
	.probe = tern_probe,
	.remove = tern_remove,
};
module_pci_driver(tern_pci_driver);

MODULE_DESCRIPTION("tern compute accelerator driver");
MODULE_AUTHOR("The tern authors");
MODULE_LICENSE("Dual MIT/GPL");
