// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * vm_bind: DRM_IOCTL_TERN_VM_BIND maps and unmaps BO ranges in the file's
 * address space, read-write and read-only, and refuses each documented
 * bad argument with its own errno without changing the address space.
 *
 * tern-vm: timeout=60
 */
#include "mem_test.h"

#define MAP	DRM_TERN_VM_BIND_OP_MAP
#define UNMAP	DRM_TERN_VM_BIND_OP_UNMAP
#define RO	DRM_TERN_VM_BIND_READ_ONLY
#define VA_END	(1ull << 48)

int main(void)
{
	const uint64_t bo_size = 16 * PAGE4K;
	const uint64_t va = 0x40000000;
	uint32_t h, h2;
	int fd, fd2;

	fd = tern_test_open();
	if (fd < 0 || bo_create(fd, bo_size, &h) || bo_create(fd, PAGE4K, &h2)) {
		tap_ok(false, "open the device and create BOs");
		return tap_exit_status();
	}

	/* success paths */
	tap_errno(vm_map(fd, h, va, 0, bo_size), 0, "map a whole BO");
	tap_errno(vm_unmap(fd, va, bo_size), 0, "unmap it");
	tap_errno(vm_unmap(fd, va, bo_size), -ENOENT, "unmap it again");
	tap_errno(vm_map(fd, h, va, 0, bo_size), 0, "map it again at the same VA");
	tap_errno(vm_map(fd, h, va + bo_size, 0, bo_size), 0,
		  "map the same BO a second time, right after");
	tap_errno(vm_bind(fd, MAP, RO, h, va + 2 * bo_size, 4 * PAGE4K, 2 * PAGE4K), 0,
		  "map two pages of it read-only at an offset");
	tap_errno(vm_map(fd, h2, DRM_TERN_VA_START, 0, PAGE4K), 0,
		  "map at the lowest VA");
	tap_errno(vm_map(fd, h2, VA_END - PAGE4K, 0, PAGE4K), 0,
		  "map at the highest page");
	tap_errno(vm_map(fd, h2, 1ull << 39, 0, PAGE4K), 0,
		  "map across a new top-level table");
	tap_errno(vm_unmap(fd, va, 2 * bo_size + 2 * PAGE4K), 0,
		  "one unmap removes three mappings");
	tap_errno(vm_unmap(fd, DRM_TERN_VA_START, PAGE4K), 0, "unmap the lowest page");
	tap_errno(vm_unmap(fd, VA_END - PAGE4K, PAGE4K), 0, "unmap the highest page");
	tap_errno(vm_unmap(fd, 0x1000000, (1ull << 40) - 0x1000000), 0,
		  "unmap a huge range that holds one mapping");

	/* A mapping keeps its BO alive after the handle is closed. */
	{
		uint32_t h3;

		tap_errno(bo_create(fd, 4 * PAGE4K, &h3), 0, "create a BO to close");
		tap_errno(vm_map(fd, h3, va, 0, 4 * PAGE4K), 0, "map it");
		tap_errno(bo_close(fd, h3), 0, "close its handle while mapped");
		tap_errno(vm_map(fd, h3, va + 0x100000, 0, PAGE4K), -ENOENT,
			  "the closed handle is gone");
		tap_errno(vm_unmap(fd, va, 4 * PAGE4K), 0,
			  "the mapping is still there and unmaps");
	}

	/* -EINVAL */
	tap_errno(vm_bind(fd, 2, 0, h, va, 0, PAGE4K), -EINVAL, "unknown op");
	tap_errno(vm_bind(fd, MAP, 2, h, va, 0, PAGE4K), -EINVAL, "unknown map flag");
	{
		struct drm_tern_vm_bind b = { .op = MAP, .handle = h, .va = va,
					      .range = PAGE4K, .pad = 1 };

		tap_errno(mem_ioctl(fd, DRM_IOCTL_TERN_VM_BIND, &b), -EINVAL, "pad not 0");
	}
	tap_errno(vm_map(fd, h, va + 1, 0, PAGE4K), -EINVAL, "misaligned VA");
	tap_errno(vm_map(fd, h, va + 2048, 0, PAGE4K), -EINVAL, "VA aligned to 2 KiB only");
	tap_errno(vm_map(fd, h, va, 512, PAGE4K), -EINVAL, "misaligned BO offset");
	tap_errno(vm_map(fd, h, va, 0, PAGE4K + 4), -EINVAL, "misaligned range");
	tap_errno(vm_map(fd, h, va, 0, 0), -EINVAL, "zero range");
	tap_errno(vm_map(fd, h, va, 0, bo_size + PAGE4K), -EINVAL, "range past the BO");
	tap_errno(vm_map(fd, h, va, PAGE4K, bo_size), -EINVAL, "offset + range past the BO");
	tap_errno(vm_map(fd, h, va, bo_size, PAGE4K), -EINVAL, "offset at the end of the BO");
	tap_errno(vm_map(fd, h, va, 1ull << 62, PAGE4K), -EINVAL, "huge offset");
	tap_errno(vm_map(fd, h, va, -PAGE4K, 2 * PAGE4K), -EINVAL,
		  "offset + range that wraps");
	tap_errno(vm_bind(fd, UNMAP, RO, 0, va, 0, PAGE4K), -EINVAL, "flags on an unmap");
	tap_errno(vm_bind(fd, UNMAP, 0, h, va, 0, PAGE4K), -EINVAL, "handle on an unmap");
	tap_errno(vm_bind(fd, UNMAP, 0, 0, va, PAGE4K, PAGE4K), -EINVAL,
		  "BO offset on an unmap");
	tap_errno(vm_map(fd, h, va, 0, bo_size), 0, "map for the unmap checks");
	tap_errno(vm_unmap(fd, va, PAGE4K), -EINVAL, "unmap of the first page only");
	tap_errno(vm_unmap(fd, va + PAGE4K, bo_size), -EINVAL, "unmap of the tail and more");
	tap_errno(vm_unmap(fd, va - PAGE4K, 2 * PAGE4K), -EINVAL,
		  "unmap cutting the start of a mapping");
	tap_errno(vm_unmap(fd, va + 1, bo_size), -EINVAL, "misaligned unmap");

	/* -ERANGE */
	tap_errno(vm_map(fd, h2, 0, 0, PAGE4K), -ERANGE, "VA 0");
	tap_errno(vm_map(fd, h2, DRM_TERN_VA_START - PAGE4K, 0, PAGE4K), -ERANGE,
		  "the page below DRM_TERN_VA_START");
	tap_errno(vm_map(fd, h, DRM_TERN_VA_START - PAGE4K, 0, 2 * PAGE4K), -ERANGE,
		  "a range starting below DRM_TERN_VA_START");
	tap_errno(vm_map(fd, h2, VA_END, 0, PAGE4K), -ERANGE, "VA 2^48");
	tap_errno(vm_map(fd, h, VA_END - PAGE4K, 0, 2 * PAGE4K), -ERANGE,
		  "a range crossing 2^48");
	tap_errno(vm_map(fd, h2, -PAGE4K, 0, PAGE4K), -ERANGE, "the last page of 2^64");
	tap_errno(vm_unmap(fd, VA_END, PAGE4K), -ERANGE, "unmap at 2^48");
	tap_errno(vm_unmap(fd, PAGE4K, -2 * PAGE4K), -ERANGE, "unmap of a wrapping range");

	/* -EEXIST */
	tap_errno(vm_map(fd, h2, va, 0, PAGE4K), -EEXIST, "map over the first page");
	tap_errno(vm_map(fd, h2, va + bo_size - PAGE4K, 0, PAGE4K), -EEXIST,
		  "map over the last page");
	tap_errno(vm_map(fd, h, va - PAGE4K, 0, 2 * PAGE4K), -EEXIST,
		  "map overlapping the start");
	tap_errno(vm_map(fd, h, va - PAGE4K, 0, bo_size), -EEXIST,
		  "map covering all but the end");
	tap_errno(vm_map(fd, h2, va + bo_size, 0, PAGE4K), 0,
		  "map just after the mapping");
	tap_errno(vm_map(fd, h2, va - PAGE4K, 0, PAGE4K), 0,
		  "map just before the mapping");

	/* -ENOENT */
	tap_errno(vm_map(fd, 0, va + 0x1000000, 0, PAGE4K), -ENOENT, "handle 0");
	tap_errno(vm_map(fd, 0xdeadbeef, va + 0x1000000, 0, PAGE4K), -ENOENT, "bad handle");
	tap_errno(vm_unmap(fd, va + 0x1000000, PAGE4K), -ENOENT, "unmap of nothing");
	fd2 = tern_test_open();
	tap_errno(fd2 < 0 ? -EBADF : vm_map(fd2, h, va, 0, PAGE4K), -ENOENT,
		  "a handle of another file");
	tap_errno(fd2 < 0 ? -EBADF : vm_unmap(fd2, va, bo_size), -ENOENT,
		  "another file has its own address space: nothing mapped there");
	tap_errno(fd2 < 0 ? -EBADF : bo_create(fd2, PAGE4K, &h2), 0,
		  "create a BO in the second file");
	tap_errno(fd2 < 0 ? -EBADF : vm_map(fd2, h2, va, 0, PAGE4K), 0,
		  "the same VA is free in the second file's address space");
	if (fd2 >= 0)
		close(fd2);

	/* After all these failures, the mappings are as they were. */
	tap_errno(vm_unmap(fd, va - PAGE4K, bo_size + 2 * PAGE4K), 0,
		  "unmap the three mappings left");
	tap_errno(vm_unmap(fd, DRM_TERN_VA_START, VA_END - DRM_TERN_VA_START), -ENOENT,
		  "nothing is mapped any more");

	/* A file closed with mappings in place tears them down. */
	tap_errno(vm_map(fd, h, va, 0, bo_size), 0, "map before closing the file");
	tap_ok(close(fd) == 0, "close the file with a mapping");
	tap_done();
	return tap_exit_status();
}
