// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bo_prime: a BO exported as a dma-buf (PRIME) and imported into another
 * open file shares its pages, survives the exporter's handle and file,
 * imports back as the same handle in its own file, and can be mapped into
 * the importer's address space.
 *
 * tern-vm: timeout=60
 */
#include "mem_test.h"

int main(void)
{
	uint32_t h, h_self = 0, h_imp = 0, h_imp2 = 0;
	uint64_t size = 0, isize = 0;
	uint32_t *p, *q;
	int fd, fd2, dmabuf = -1, ret;

	fd = tern_test_open();
	fd2 = tern_test_open();
	if (fd < 0 || fd2 < 0 || bo_create(fd, 3 * 4096, &h)) {
		tap_ok(false, "open the device twice and create a BO");
		return tap_exit_status();
	}
	p = bo_mmap(fd, h, &size);
	tap_ok(p != NULL, "mmap the BO in the exporting file");
	if (!p)
		return tap_exit_status();
	p[0] = 0x11111111;
	p[3 * 1024 - 1] = 0x22222222;

	ret = drmPrimeHandleToFD(fd, h, DRM_CLOEXEC | DRM_RDWR, &dmabuf);
	tap_ok(!ret && dmabuf >= 0, "export the BO as a dma-buf");

	ret = drmPrimeFDToHandle(fd, dmabuf, &h_self);
	tap_ok(!ret && h_self == h, "importing into the exporting file gives the same handle");

	ret = drmPrimeFDToHandle(fd2, dmabuf, &h_imp);
	tap_ok(!ret && h_imp, "import the dma-buf into another file");
	ret = drmPrimeFDToHandle(fd2, dmabuf, &h_imp2);
	tap_ok(!ret && h_imp2 == h_imp, "importing twice gives the same handle");

	{
		struct drm_tern_bo_info in = { .handle = h_imp };

		ret = mem_ioctl(fd2, DRM_IOCTL_TERN_BO_INFO, &in);
		tap_ok(!ret && in.size == size, "BO_INFO of the import: size %llu",
		       (unsigned long long)in.size);
	}

	q = bo_mmap(fd2, h_imp, &isize);
	tap_ok(q && q[0] == 0x11111111 && q[3 * 1024 - 1] == 0x22222222,
	       "the importer sees the exporter's data");
	if (q) {
		q[5] = 0x33333333;
		tap_ok(p[5] == 0x33333333, "the exporter sees the importer's writes");
	} else {
		tap_ok(false, "the exporter sees the importer's writes");
	}

	/* The importer can map the BO into its address space. */
	tap_errno(vm_map(fd2, h_imp, 0x100000, 0, size), 0,
		  "VM_BIND maps the imported BO");
	tap_errno(vm_map(fd2, h_imp, 0x200000, 4096, 4096), 0,
		  "VM_BIND maps one page of the imported BO at an offset");
	tap_errno(vm_map(fd2, h_imp, 0x300000, 0, size + 4096), -EINVAL,
		  "VM_BIND refuses a range past the end of the imported BO");

	/* The exporter lets go of everything; the import lives on. */
	munmap(p, size);
	bo_close(fd, h);
	close(fd);
	close(dmabuf);
	tap_ok(q && q[0] == 0x11111111 && q[5] == 0x33333333,
	       "the import keeps the pages after the exporter closed everything");
	tap_errno(vm_unmap(fd2, 0x100000, size), 0, "unmap the imported BO");
	tap_errno(vm_unmap(fd2, 0x200000, 4096), 0, "unmap the one-page mapping");
	if (q)
		munmap(q, isize);
	tap_errno(bo_close(fd2, h_imp), 0, "close the imported handle");

	ret = drmPrimeFDToHandle(fd2, 0, &h_imp);
	tap_ok(ret != 0, "importing a file descriptor that is no dma-buf fails");
	ret = drmPrimeFDToHandle(fd2, -1, &h_imp);
	tap_ok(ret != 0, "importing a bad file descriptor fails");
	ret = drmPrimeHandleToFD(fd2, 0xdead, DRM_CLOEXEC, &dmabuf);
	tap_ok(ret != 0, "exporting a bad handle fails");

	close(fd2);
	tap_done();
	return tap_exit_status();
}
