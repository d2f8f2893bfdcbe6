// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * vm_limits: an address space holds at most DRM_TERN_VM_MAX_MAPPED bytes of
 * mappings: mapping one BO over and over reaches the limit, the next map
 * fails with ENOSPC (not ENOMEM, not an OOM), and after one unmap of
 * everything the address space is usable again.
 *
 * tern-vm: timeout=120
 */
#include <time.h>

#include "mem_test.h"

#define BO_SIZE	(64ull << 20)
#define BASE	(1ull << 40)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	const uint64_t count = DRM_TERN_VM_MAX_MAPPED / BO_SIZE;
	uint64_t i, mapped = 0;
	double t0;
	uint32_t h;
	int fd, ret = 0;

	fd = tern_test_open();
	if (fd < 0 || bo_create(fd, BO_SIZE, &h)) {
		tap_ok(false, "open the device and create a 64 MiB BO");
		return tap_exit_status();
	}

	t0 = now_s();
	for (i = 0; i < count && !ret; i++) {
		ret = vm_map(fd, h, BASE + i * BO_SIZE, 0, BO_SIZE);
		if (!ret)
			mapped++;
	}
	tap_ok(!ret && mapped == count,
	       "map the BO %llu times, %llu GiB in all (%llu mapped, %s, %.1f s)",
	       (unsigned long long)count,
	       (unsigned long long)(DRM_TERN_VM_MAX_MAPPED >> 30),
	       (unsigned long long)mapped, ret ? strerror(-ret) : "ok",
	       now_s() - t0);
	tap_errno(vm_map(fd, h, BASE + count * BO_SIZE, 0, BO_SIZE), -ENOSPC,
		  "one more map goes over DRM_TERN_VM_MAX_MAPPED");
	tap_errno(vm_map(fd, h, BASE + count * BO_SIZE, 0, PAGE4K), -ENOSPC,
		  "even a single page");

	t0 = now_s();
	tap_errno(vm_unmap(fd, BASE, count * BO_SIZE), 0, "one unmap removes them all");
	tap_diag("unmap took %.1f s", now_s() - t0);
	tap_errno(vm_map(fd, h, BASE, 0, BO_SIZE), 0, "the address space is usable again");
	tap_errno(vm_unmap(fd, BASE, BO_SIZE), 0, "and unmaps");

	close(fd);
	tap_done();
	return tap_exit_status();
}
