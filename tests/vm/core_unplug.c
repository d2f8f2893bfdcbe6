// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_unplug: removing the PCI device while a file has jobs queued and
 * running signals their fences at once, makes every ioctl of the open file
 * fail with ENODEV, lets the file be closed cleanly, and a rescan brings
 * the device back in working order.
 *
 * tern-vm: timeout=120
 */
#include <poll.h>

#include "core_test.h"

#define VA	0x100000ull

int main(void)
{
	struct drm_tern_get_info info;
	uint32_t dw[16], n, ctx = 0, bo = 0, so, i;
	struct pollfd pfd;
	int sync_fd = -1;
	char dev[512], remove[600];
	void *mem;
	int64_t t0, dt;
	int fd, ret;

	tap_plan(9);
	fd = tern_test_open();
	if (!tap_ok(fd >= 0 && core_pci_dev(dev, sizeof(dev)),
		    "open the device and find its PCI function") ||
	    ctx_create(fd, 1, 0, 0, &ctx) || core_bo(fd, 4096, VA, &bo, &mem))
		return tap_exit_status();
	so = syncobj_new(fd);
	for (i = 0; i < 10; i++) {
		n = 0;
		pkt_spin(dw, &n, 500000);
		submit(fd, ctx, dw, n, &bo, 1, 0, so, NULL);
	}
	tap_errno(syncobj_wait(fd, so, 100), -ETIME,
		  "5 s of work queued and running");
	/* ioctls fail after the unplug: watch the last fence as a sync_file */
	drmSyncobjExportSyncFile(fd, so, &sync_fd);
	/* the CPU mapping would keep the file, and the old device, alive */
	munmap(mem, 4096);

	snprintf(remove, sizeof(remove), "%s/remove", dev);
	t0 = now_ns();
	tap_ok(core_write_file(remove, "1"), "remove the PCI device");
	pfd.fd = sync_fd;
	pfd.events = POLLIN;
	ret = poll(&pfd, 1, 3000);
	dt = now_ns() - t0;
	tap_ok(sync_fd >= 0 && ret == 1 && dt < 3000000000ll,
	       "the last job's fence signals at once (%lld ms)",
	       (long long)(dt / 1000000));
	tap_errno(core_get_info(fd, &info), -ENODEV, "GET_INFO on the open file");
	n = 0;
	pkt_spin(dw, &n, 1);
	tap_errno(submit(fd, ctx, dw, n, &bo, 1, 0, 0, NULL), -ENODEV,
		  "SUBMIT on the open file");
	tap_ok(!close(fd), "close the file");
	close(sync_fd);

	tap_ok(core_write_file("/sys/bus/pci/rescan", "1"), "rescan the bus");
	for (i = 0; i < 100 && access(TERN_TEST_NODE, F_OK); i++)
		usleep(20000);
	fd = tern_test_open();
	tap_ok(fd >= 0 && !core_get_info(fd, &info) && !ctx_create(fd, 1, 0, 0, &ctx),
	       "the device is back and works");
	close(fd);
	return tap_exit_status();
}
