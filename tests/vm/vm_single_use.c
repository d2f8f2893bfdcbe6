// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * vm_single_use: on a single-use device (one address space for the whole
 * device) the first open file gets the address space, a second open is
 * refused with EBUSY, and the address space is free again once the first
 * file is closed.
 *
 * tern-vm: device=single-use=on timeout=60
 */
#include "mem_test.h"

int main(void)
{
	struct drm_tern_get_info gi = { 0 };
	int fd, fd2, fd3;
	uint32_t h = 0;

	fd = tern_test_open();
	tap_ok(fd >= 0, "the first open succeeds");
	if (fd < 0)
		return tap_exit_status();
	tap_ok(!mem_ioctl(fd, DRM_IOCTL_TERN_GET_INFO, &gi) &&
	       (gi.caps & DRM_TERN_CAP_SINGLE_USE),
	       "GET_INFO reports DRM_TERN_CAP_SINGLE_USE");

	fd2 = open(TERN_TEST_NODE, O_RDWR | O_CLOEXEC);
	tap_ok(fd2 < 0 && errno == EBUSY, "a second open fails with EBUSY (%s)",
	       fd2 < 0 ? strerror(errno) : "opened");
	if (fd2 >= 0)
		close(fd2);

	tap_errno(bo_create(fd, PAGE4K, &h), 0, "the first file creates a BO");
	tap_errno(vm_map(fd, h, 0x100000, 0, PAGE4K), 0, "and maps it");
	close(fd);

	fd3 = tern_test_open();
	tap_ok(fd3 >= 0, "after the first file is closed, the device opens again");
	if (fd3 >= 0) {
		tap_errno(vm_unmap(fd3, 0x100000, PAGE4K), -ENOENT,
			  "with a fresh, empty address space");
		close(fd3);
	}
	tap_done();
	return tap_exit_status();
}
