// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/err.h>
#include <linux/iosys-map.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_vma_manager.h>

#include <drm/tern_accel.h>

#include "tern_device.h"
#include "tern_gem.h"

/**
 * DOC: buffer objects
 *
 * A tern BO is a GEM shmem object: system memory in shmem pages, allocated
 * on first use (a CPU fault through mmap(), or a mapping into an address
 * space), zeroed by shmem.  The GEM shmem helpers provide mmap through the
 * fake offset of &drm_tern_bo_info.mmap_offset, dma-buf export and import
 * (PRIME), vmap and the sg table; an imported dma-buf becomes a tern BO too
 * (&drm_driver.gem_create_object is tern_gem_create_object()), whose pages
 * belong to the exporter.
 *
 * The device never reaches a BO by itself: it goes through the page tables
 * of an address space (tern_vm.c), and a mapping pins the pages of the BO
 * (tern_bo_pin()) and holds a reference on it until it is unmapped.  DMA
 * buffers and resume records are driver-owned memory, not BOs.
 *
 * The uAPI has a placement field for device-local memory
 * (%DRM_TERN_BO_PLACEMENT_LOCAL).  It is refused with -EOPNOTSUPP until the
 * driver can page BOs in and out of local memory with the copy engine;
 * everything else in the interface already works for it (BO_INFO reports
 * the placement, mappings carry TERN_PTE_LOCAL).
 *
 * fdinfo (drm-total-*, drm-resident-*, drm-shared-*) is computed by the DRM
 * core from tern_gem_status() and tern_gem_rss().
 */

static enum drm_gem_object_status tern_gem_status(struct drm_gem_object *obj)
{
	struct tern_bo *bo = to_tern_bo(obj);

	/* Called under the file's table_lock: no locking, a snapshot is fine. */
	if (obj->import_attach || READ_ONCE(bo->base.pages))
		return DRM_GEM_OBJECT_RESIDENT;
	return 0;
}

static size_t tern_gem_rss(struct drm_gem_object *obj)
{
	return tern_gem_status(obj) & DRM_GEM_OBJECT_RESIDENT ? obj->size : 0;
}

static void tern_gem_free(struct drm_gem_object *obj)
{
	struct tern_bo *bo = to_tern_bo(obj);

	if (bo->accounted)
		atomic64_sub(obj->size, &to_tern_device(obj->dev)->bo_bytes);
	mutex_destroy(&bo->gpuva_lock);
	drm_gem_shmem_object_free(obj);
}

/* A kernel-owned object the process reads only: no writable mapping, ever. */
static int tern_gem_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	if (to_tern_bo(obj)->cpu_read_only) {
		if (vma->vm_flags & VM_WRITE)
			return -EACCES;
		vm_flags_clear(vma, VM_MAYWRITE);
	}
	return drm_gem_shmem_object_mmap(obj, vma);
}

static const struct drm_gem_object_funcs tern_gem_funcs = {
	.free = tern_gem_free,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = tern_gem_mmap,
	.status = tern_gem_status,
	.rss = tern_gem_rss,
	.vm_ops = &drm_gem_shmem_vm_ops,
};

/**
 * tern_gem_create_object() - &drm_driver.gem_create_object of tern
 * @dev: the DRM device
 * @size: size of the object, unused
 *
 * Allocates the &struct tern_bo around the shmem object the GEM shmem
 * helpers create, for new BOs and for imported dma-bufs alike.
 *
 * Return: the embedded &drm_gem_object, or ERR_PTR(-ENOMEM).
 */
struct drm_gem_object *tern_gem_create_object(struct drm_device *dev, size_t size)
{
	struct tern_bo *bo;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return ERR_PTR(-ENOMEM);

	bo->placement = DRM_TERN_BO_PLACEMENT_SYSTEM;
	/* PCI is cache coherent: keep the CPU mappings cached. */
	bo->base.map_wc = false;
	bo->base.base.funcs = &tern_gem_funcs;
	mutex_init(&bo->gpuva_lock);
	drm_gem_gpuva_set_lock(&bo->base.base, &bo->gpuva_lock);
	return &bo->base.base;
}

/**
 * tern_bo_create_ioctl() - DRM_IOCTL_TERN_BO_CREATE
 * @dev: the DRM device
 * @data: &struct drm_tern_bo_create
 * @file: the caller's file
 *
 * Return: 0 or a negative errno, see &struct drm_tern_bo_create.
 */
int tern_bo_create_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_tern_bo_create *args = data;
	struct drm_gem_shmem_object *shmem;
	u32 handle;
	int ret, idx;

	if (args->flags || args->pad || !args->size)
		return -EINVAL;
	switch (args->placement) {
	case DRM_TERN_BO_PLACEMENT_SYSTEM:
		break;
	case DRM_TERN_BO_PLACEMENT_LOCAL:
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
	if (args->size > TERN_MAX_BO_SIZE)
		return -E2BIG;

	if (!drm_dev_enter(dev, &idx))
		return -ENODEV;

	/* Rounds the size up to whole CPU pages (a multiple of 4 KiB). */
	shmem = drm_gem_shmem_create(dev, args->size);
	if (IS_ERR(shmem)) {
		ret = PTR_ERR(shmem);
		goto out_exit;
	}
	to_tern_bo(&shmem->base)->accounted = true;
	atomic64_add(shmem->base.size, &to_tern_device(dev)->bo_bytes);

	ret = drm_gem_handle_create(file, &shmem->base, &handle);
	/* The handle holds the reference from now on (or nothing does). */
	drm_gem_object_put(&shmem->base);
	if (ret)
		goto out_exit;

	args->size = shmem->base.size;
	args->handle = handle;
out_exit:
	drm_dev_exit(idx);
	return ret;
}

/**
 * tern_bo_info_ioctl() - DRM_IOCTL_TERN_BO_INFO
 * @dev: the DRM device
 * @data: &struct drm_tern_bo_info
 * @file: the caller's file
 *
 * Return: 0 or a negative errno, see &struct drm_tern_bo_info.
 */
int tern_bo_info_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_tern_bo_info *args = data;
	struct drm_gem_object *obj;
	int ret, idx;

	if (args->flags || args->pad)
		return -EINVAL;

	if (!drm_dev_enter(dev, &idx))
		return -ENODEV;

	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj) {
		ret = -ENOENT;
		goto out_exit;
	}

	ret = drm_gem_create_mmap_offset(obj);
	if (ret)
		goto out_put;

	args->size = obj->size;
	args->mmap_offset = drm_vma_node_offset_addr(&obj->vma_node);
	args->placement = to_tern_bo(obj)->placement;
out_put:
	drm_gem_object_put(obj);
out_exit:
	drm_dev_exit(idx);
	return ret;
}

/**
 * tern_bo_pin() - keep a BO's pages in place for the device
 * @bo: the BO
 *
 * Allocates the pages of a BO if needed, pins them (they are neither
 * released nor moved until tern_bo_unpin()) and maps them for DMA by the
 * device.  An imported BO's pages are the exporter's, pinned by the
 * attachment for as long as the BO exists.  Takes the BO's reservation
 * lock: do not call it with the lock held.
 *
 * Return: the DMA-mapped sg table of the whole BO, owned by the BO, or an
 * ERR_PTR.
 */
struct sg_table *tern_bo_pin(struct tern_bo *bo)
{
	struct sg_table *sgt;
	int ret;

	if (bo->base.base.import_attach)
		return bo->base.sgt;

	ret = drm_gem_shmem_pin(&bo->base);
	if (ret)
		return ERR_PTR(ret);

	sgt = drm_gem_shmem_get_pages_sgt(&bo->base);
	if (IS_ERR(sgt))
		drm_gem_shmem_unpin(&bo->base);
	return sgt;
}

/**
 * tern_bo_unpin() - undo one tern_bo_pin()
 * @bo: the BO
 *
 * Takes the BO's reservation lock.
 */
void tern_bo_unpin(struct tern_bo *bo)
{
	if (!bo->base.base.import_attach)
		drm_gem_shmem_unpin(&bo->base);
}

/**
 * tern_bo_create_kernel() - a kernel-owned BO that a file may map read-only
 * @dev: the DRM device
 * @file: the file allowed to map it
 * @size: its size in bytes, a multiple of PAGE_SIZE
 * @vaddr: out: the kernel mapping of its pages, which stay allocated and
 *	pinned until tern_bo_free_kernel()
 * @offset: out: the offset for mmap() on @file
 *
 * The BO has no handle: it cannot be shared, bound or closed by the
 * process, only mapped for reading.  A mapping keeps the object alive after
 * tern_bo_free_kernel().
 *
 * Return: the BO, or an ERR_PTR.
 */
struct tern_bo *tern_bo_create_kernel(struct drm_device *dev,
				      struct drm_file *file, size_t size,
				      void **vaddr, u64 *offset)
{
	struct drm_gem_shmem_object *shmem;
	struct iosys_map map;
	int ret;

	shmem = drm_gem_shmem_create(dev, size);
	if (IS_ERR(shmem))
		return ERR_CAST(shmem);
	to_tern_bo(&shmem->base)->cpu_read_only = true;
	ret = drm_gem_vmap_unlocked(&shmem->base, &map);
	if (ret)
		goto err_put;
	if (map.is_iomem) {	/* never for shmem pages */
		ret = -EINVAL;
		goto err_vunmap;
	}
	ret = drm_gem_create_mmap_offset(&shmem->base);
	if (ret)
		goto err_vunmap;
	ret = drm_vma_node_allow(&shmem->base.vma_node, file);
	if (ret)
		goto err_vunmap;
	*vaddr = map.vaddr;
	*offset = drm_vma_node_offset_addr(&shmem->base.vma_node);
	return to_tern_bo(&shmem->base);

err_vunmap:
	drm_gem_vunmap_unlocked(&shmem->base, &map);
err_put:
	drm_gem_object_put(&shmem->base);
	return ERR_PTR(ret);
}

/**
 * tern_bo_revoke_file() - a file may no longer map a kernel-owned BO
 * @bo: the BO, from tern_bo_create_kernel()
 * @file: the file given there
 *
 * Mappings made before stay.  Call it before @file is freed: the
 * permission is recorded by the file's address.
 */
void tern_bo_revoke_file(struct tern_bo *bo, struct drm_file *file)
{
	drm_vma_node_revoke(&bo->base.base.vma_node, file);
}

/**
 * tern_bo_free_kernel() - drop a kernel-owned BO
 * @bo: the BO, from tern_bo_create_kernel()
 * @vaddr: its kernel mapping
 */
void tern_bo_free_kernel(struct tern_bo *bo, void *vaddr)
{
	struct iosys_map map;

	iosys_map_set_vaddr(&map, vaddr);
	drm_gem_vunmap_unlocked(&bo->base.base, &map);
	drm_gem_object_put(&bo->base.base);
}
