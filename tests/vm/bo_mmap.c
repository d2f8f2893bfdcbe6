// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bo_mmap: a BO mapped through the mmap offset of DRM_IOCTL_TERN_BO_INFO
 * starts zeroed, keeps what is written to it across mappings and file
 * descriptors of the same open file, and a bad offset cannot be mapped.
 *
 * tern-vm: timeout=60
 */
#include "mem_test.h"

static bool all_equal(const uint32_t *p, size_t n, uint32_t v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

int main(void)
{
	const size_t size = 5 * 4096 + 100;
	struct drm_tern_bo_info in;
	uint64_t bo_size = 0;
	uint32_t h, h2, *p, *q;
	size_t n, i;
	bool ok;
	int fd;

	fd = tern_test_open();
	if (fd < 0 || bo_create(fd, size, &h)) {
		tap_ok(false, "open the device and create a BO");
		return tap_exit_status();
	}

	p = bo_mmap(fd, h, &bo_size);
	tap_ok(p && bo_size == 6 * 4096, "mmap a %zu-byte BO (%llu bytes)", size,
	       (unsigned long long)bo_size);
	if (!p)
		return tap_exit_status();
	n = bo_size / 4;
	tap_ok(all_equal(p, n, 0), "a new BO reads as zeroes");

	for (i = 0; i < n; i++)
		p[i] = 0x7e700000u + i;
	tap_ok(munmap(p, bo_size) == 0, "munmap");

	q = bo_mmap(fd, h, &bo_size);
	ok = q != NULL;
	for (i = 0; ok && i < n; i++)
		ok = q[i] == 0x7e700000u + i;
	tap_ok(ok, "a second mmap sees what the first one wrote");

	/* Two mappings of one BO share the pages. */
	p = bo_mmap(fd, h, &bo_size);
	if (p && q) {
		p[17] = 0xcafe;
		tap_ok(q[17] == 0xcafe, "two live mappings share the pages");
		p[17] = 0x7e700000u + 17;
		munmap(p, bo_size);
	} else {
		tap_ok(false, "two live mappings share the pages");
	}

	/* Another BO is separate. */
	if (!bo_create(fd, 4096, &h2) && (p = bo_mmap(fd, h2, &bo_size))) {
		tap_ok(all_equal(p, 1024, 0) && q && q[0] == 0x7e700000u,
		       "a second BO is separate and zeroed");
		munmap(p, bo_size);
		bo_close(fd, h2);
	} else {
		tap_ok(false, "a second BO is separate and zeroed");
	}

	/* The mapping outlives the handle. */
	tap_errno(bo_close(fd, h), 0, "close the handle while it is mmapped");
	ok = q != NULL;
	for (i = 0; ok && i < n; i++)
		ok = q[i] == 0x7e700000u + i;
	tap_ok(ok, "the CPU mapping still works after the handle is closed");
	if (q)
		munmap(q, bo_size);

	/* Offsets that belong to no BO cannot be mapped. */
	if (!bo_create(fd, 4096, &h)) {
		in = (struct drm_tern_bo_info){ .handle = h };
		mem_ioctl(fd, DRM_IOCTL_TERN_BO_INFO, &in);
		p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, in.mmap_offset + (1 << 30));
		tap_ok(p == MAP_FAILED, "mmap at an offset of no BO fails (%s)",
		       p == MAP_FAILED ? strerror(errno) : "mapped");
		if (p != MAP_FAILED)
			munmap(p, 4096);
		p = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, in.mmap_offset);
		tap_ok(p == MAP_FAILED, "mmap of more than the BO fails (%s)",
		       p == MAP_FAILED ? strerror(errno) : "mapped");
		if (p != MAP_FAILED)
			munmap(p, 8192);

		/* Another open file cannot map this file's BO. */
		{
			int fd2 = tern_test_open();

			p = fd2 < 0 ? MAP_FAILED :
			    mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd2, in.mmap_offset);
			tap_ok(p == MAP_FAILED,
			       "another open file cannot mmap the BO's offset");
			if (p != MAP_FAILED)
				munmap(p, 4096);
			if (fd2 >= 0)
				close(fd2);
		}
		bo_close(fd, h);
	} else {
		tap_ok(false, "create a BO for the bad-offset checks");
	}

	close(fd);
	tap_done();
	return tap_exit_status();
}
