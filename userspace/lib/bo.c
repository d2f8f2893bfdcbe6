// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * bo.c - buffers shared by the CPU and the device.
 *
 * A buffer is a GEM buffer object mapped twice: into the process with
 * mmap() and into the device address space of the open device with
 * VM_BIND, at an address taken from the device's VA allocator (va.c) so
 * callers never manage device addresses.  Each buffer is followed by an
 * unmapped guard page.  The device keeps its live buffers sorted by address
 * so that tern_submit() can find the buffers a command buffer touches.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xf86drm.h>

#include "internal.h"
#include "tern_accel.h"

_Static_assert(TERN_LIB_PAGE_SIZE == DRM_TERN_PAGE_SIZE, "page size");
_Static_assert(TERN_LIB_VA_START >= DRM_TERN_VA_START, "first VA");

/* Index of the first buffer whose VA is above @va.  dev->lock held. */
static size_t bo_upper(struct tern_device *dev, uint64_t va)
{
	size_t lo = 0, hi = dev->bo_count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dev->bos[mid]->va <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct tern_bo *tern_bo_lookup_locked(struct tern_device *dev, uint64_t va, uint64_t size)
{
	size_t i = bo_upper(dev, va);
	struct tern_bo *bo;

	if (!i)
		return NULL;
	bo = dev->bos[i - 1];
	if (va - bo->va >= bo->size || size > bo->size - (va - bo->va))
		return NULL;
	return bo;
}

static int bo_track(struct tern_device *dev, struct tern_bo *bo)
{
	size_t i;

	pthread_mutex_lock(&dev->lock);
	if (dev->bo_count == dev->bo_cap) {
		size_t cap = dev->bo_cap ? dev->bo_cap * 2 : 64;
		struct tern_bo **bos = realloc(dev->bos, cap * sizeof(*bos));

		if (!bos) {
			pthread_mutex_unlock(&dev->lock);
			return -ENOMEM;
		}
		dev->bos = bos;
		dev->bo_cap = cap;
	}
	i = bo_upper(dev, bo->va);
	memmove(&dev->bos[i + 1], &dev->bos[i], (dev->bo_count - i) * sizeof(dev->bos[0]));
	dev->bos[i] = bo;
	dev->bo_count++;
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

static void bo_untrack(struct tern_device *dev, struct tern_bo *bo)
{
	size_t i;

	pthread_mutex_lock(&dev->lock);
	i = bo_upper(dev, bo->va);
	if (i && dev->bos[i - 1] == bo) {
		memmove(&dev->bos[i - 1], &dev->bos[i],
			(dev->bo_count - i) * sizeof(dev->bos[0]));
		dev->bo_count--;
	}
	/* jobs no longer find it where tern_vm_bind() mapped it either */
	tern_vm_forget_bo_locked(dev, bo);
	pthread_mutex_unlock(&dev->lock);
}

static bool handle_in_use(struct tern_device *dev, uint32_t handle)
{
	bool found = false;
	size_t i;

	pthread_mutex_lock(&dev->lock);
	for (i = 0; i < dev->bo_count && !found; i++)
		found = dev->bos[i]->handle == handle;
	pthread_mutex_unlock(&dev->lock);
	return found;
}

static int vm_unbind(struct tern_device *dev, uint64_t va, uint64_t range)
{
	struct drm_tern_vm_bind args = {
		.op = DRM_TERN_VM_BIND_OP_UNMAP,
		.va = va,
		.range = range,
	};

	return tern_ioctl(dev, DRM_IOCTL_TERN_VM_BIND, &args, TERN_IOC_VM_BIND,
			  "unmapping a buffer from the device");
}

/*
 * Give @bo, whose handle and size are set, a CPU mapping and a device VA,
 * and track it.  On failure nothing of that is left; the handle stays.
 */
static int bo_map(struct tern_device *dev, struct tern_bo *bo, uint32_t vm_flags)
{
	struct drm_tern_bo_info info = { .handle = bo->handle };
	struct drm_tern_vm_bind bind = { .op = DRM_TERN_VM_BIND_OP_MAP };
	int ret;

	ret = tern_ioctl(dev, DRM_IOCTL_TERN_BO_INFO, &info, TERN_IOC_BO_INFO,
			 "querying a buffer");
	if (ret)
		return ret;
	bo->size = info.size;
	bo->map = mmap(NULL, bo->size, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd,
		       (off_t)info.mmap_offset);
	if (bo->map == MAP_FAILED) {
		ret = -errno;
		bo->map = NULL;
		return tern_seterr(ret, "mapping a %llu-byte buffer into the process: %s",
				   (unsigned long long)bo->size, strerror(-ret));
	}

	bo->va_span = bo->size + TERN_LIB_PAGE_SIZE;	/* the guard page */
	pthread_mutex_lock(&dev->lock);
	ret = tern_va_alloc(&dev->va, bo->va_span, TERN_LIB_PAGE_SIZE, &bo->va);
	pthread_mutex_unlock(&dev->lock);
	if (ret) {
		tern_seterr(ret, "no room for %llu bytes in the device address space "
			    "(%u-bit): free some buffers", (unsigned long long)bo->size,
			    dev->info.va_bits);
		goto err_unmap;
	}

	bind.flags = vm_flags;
	bind.handle = bo->handle;
	bind.va = bo->va;
	bind.range = bo->size;
	ret = tern_ioctl(dev, DRM_IOCTL_TERN_VM_BIND, &bind, TERN_IOC_VM_BIND,
			 "mapping a buffer into the device");
	if (ret)
		goto err_va;
	ret = bo_track(dev, bo);
	if (ret) {
		tern_seterr(ret, "out of memory tracking a buffer");
		vm_unbind(dev, bo->va, bo->size);
		goto err_va;
	}
	return 0;

err_va:
	pthread_mutex_lock(&dev->lock);
	tern_va_free(&dev->va, bo->va, bo->va_span);
	pthread_mutex_unlock(&dev->lock);
err_unmap:
	munmap(bo->map, bo->size);
	bo->map = NULL;
	return ret;
}

int tern_bo_alloc(struct tern_device *dev, uint64_t size, uint32_t flags,
		  struct tern_bo **bop)
{
	struct drm_tern_bo_create args = { 0 };
	struct tern_bo *bo;
	uint32_t vm_flags = 0;
	int ret;

	*bop = NULL;
	tern_clearerr();
	if (!size)
		return tern_seterr(-EINVAL, "buffer: size 0");
	if (flags & ~(TERN_BO_LOCAL | TERN_BO_LOCAL_PREFERRED | TERN_BO_DEVICE_READ_ONLY))
		return tern_seterr(-EINVAL, "buffer: unknown flags 0x%x",
				   flags & ~(TERN_BO_LOCAL | TERN_BO_LOCAL_PREFERRED |
					     TERN_BO_DEVICE_READ_ONLY));
	if ((flags & TERN_BO_LOCAL) && (flags & TERN_BO_LOCAL_PREFERRED))
		return tern_seterr(-EINVAL, "buffer: TERN_BO_LOCAL and TERN_BO_LOCAL_PREFERRED "
				   "together");
	if (dev->info.max_bo_size && size > dev->info.max_bo_size)
		return tern_seterr(-E2BIG, "buffer: %llu bytes is more than the device's "
				   "largest buffer (%llu bytes)", (unsigned long long)size,
				   (unsigned long long)dev->info.max_bo_size);
	if (flags & TERN_BO_DEVICE_READ_ONLY)
		vm_flags |= DRM_TERN_VM_BIND_READ_ONLY;

	bo = calloc(1, sizeof(*bo));
	if (!bo)
		return tern_seterr(-ENOMEM, "buffer: out of memory");
	bo->dev = dev;
	args.size = size;
	args.placement = (flags & TERN_BO_LOCAL) ? DRM_TERN_BO_PLACEMENT_LOCAL :
		(flags & TERN_BO_LOCAL_PREFERRED) ? DRM_TERN_BO_PLACEMENT_LOCAL_PREFERRED :
		DRM_TERN_BO_PLACEMENT_SYSTEM;
	ret = tern_ioctl(dev, DRM_IOCTL_TERN_BO_CREATE, &args, TERN_IOC_BO_CREATE,
			 "allocating a buffer");
	if (ret)
		goto err_free;
	bo->handle = args.handle;
	ret = bo_map(dev, bo, vm_flags);
	if (ret)
		goto err_close;
	*bop = bo;
	return 0;

err_close:
	drmCloseBufferHandle(dev->fd, bo->handle);
err_free:
	free(bo);
	return ret;
}

void tern_bo_free(struct tern_bo *bo)
{
	struct tern_device *dev;
	int ret;

	if (!bo)
		return;
	dev = bo->dev;
	bo_untrack(dev, bo);
	/* waits for the jobs submitted before that may use the buffer */
	ret = vm_unbind(dev, bo->va, bo->size);
	munmap(bo->map, bo->size);
	drmCloseBufferHandle(dev->fd, bo->handle);
	/* if the unmap failed, the range may still be mapped: never reuse it */
	if (!ret) {
		pthread_mutex_lock(&dev->lock);
		tern_va_free(&dev->va, bo->va, bo->va_span);
		pthread_mutex_unlock(&dev->lock);
	}
	free(bo);
}

void *tern_bo_map(const struct tern_bo *bo)
{
	return bo->map;
}

uint64_t tern_bo_va(const struct tern_bo *bo)
{
	return bo->va;
}

uint64_t tern_bo_size(const struct tern_bo *bo)
{
	return bo->size;
}

uint32_t tern_bo_handle(const struct tern_bo *bo)
{
	return bo->handle;
}

int tern_bo_export(struct tern_bo *bo, int *fd)
{
	int ret;

	*fd = -1;
	ret = drmPrimeHandleToFD(bo->dev->fd, bo->handle, DRM_CLOEXEC | DRM_RDWR, fd);
	if (ret) {
		ret = -errno;
		return tern_seterr(ret, "exporting a buffer as a dma-buf: %s", strerror(-ret));
	}
	return 0;
}

int tern_bo_import(struct tern_device *dev, int fd, struct tern_bo **bop)
{
	struct tern_bo *bo;
	uint32_t handle;
	int ret;

	*bop = NULL;
	tern_clearerr();
	if (drmPrimeFDToHandle(dev->fd, fd, &handle)) {
		ret = -errno;
		return tern_seterr(ret, "importing dma-buf fd %d: %s", fd,
				   ret == -EBADF ? "not an open file" :
				   ret == -EINVAL ? "not a dma-buf this device can use" :
				   strerror(-ret));
	}
	/* importing a buffer this device already has gives back its handle */
	if (handle_in_use(dev, handle))
		return tern_seterr(-EEXIST, "importing dma-buf fd %d: the buffer is already "
				   "allocated or imported on this device: use that one", fd);
	bo = calloc(1, sizeof(*bo));
	if (!bo) {
		drmCloseBufferHandle(dev->fd, handle);
		return tern_seterr(-ENOMEM, "importing a buffer: out of memory");
	}
	bo->dev = dev;
	bo->handle = handle;
	ret = bo_map(dev, bo, 0);
	if (ret) {
		drmCloseBufferHandle(dev->fd, handle);
		free(bo);
		return ret;
	}
	*bop = bo;
	return 0;
}
