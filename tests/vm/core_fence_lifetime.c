// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_fence_lifetime: a job's fence may outlive its file, its device and
 * (as far as rmmod is concerned) its module.  A sync_file of a finished job,
 * kept after the file is closed:
 * - keeps tern.ko loaded (rmmod fails with EBUSY, not a later crash);
 * - can still be queried (SYNC_IOC_FILE_INFO reads the fence's timeline
 *   name through drm_sched) after the PCI device is removed and its DRM
 *   device released;
 * - once closed, lets the module be unloaded.
 * The device is rescanned and the module loaded again at the end.
 *
 * tern-vm: timeout=120
 */
#include <linux/sync_file.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "core_test.h"

#define VA	0x100000ull

static int file_info(int sf, struct sync_fence_info *fi)
{
	struct sync_file_info info = {
		.num_fences = 1,
		.sync_fence_info = (uintptr_t)fi,
	};

	memset(fi, 0, sizeof(*fi));
	return ioctl(sf, SYNC_IOC_FILE_INFO, &info) ? -errno : 0;
}

static int try_rmmod(void)
{
	return syscall(SYS_delete_module, "tern", O_NONBLOCK) ? -errno : 0;
}

static bool rmmod_for(int ms)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;

	do {
		if (!try_rmmod())
			return true;
		usleep(50000);
	} while (now_ns() < end);
	return false;
}

int main(void)
{
	char dev[512], path[600], node[320];
	struct sync_fence_info fi;
	uint32_t dw[16], n = 0, ctx = 0, bo = 0, so;
	volatile uint32_t *mem = NULL;
	int fd, sf = -1, ret;

	tap_plan(9);
	fd = tern_test_open();
	if (!tap_ok(fd >= 0 && !ctx_create(fd, DRM_TERN_PRIORITY_NORMAL,
					    DRM_TERN_ENGINE_CLASS_COMPUTE, 0,
					    &ctx) &&
		    !core_bo(fd, 4096, VA, &bo, (void **)&mem) &&
		    core_pci_dev(dev, sizeof(dev)),
		    "open the device, a context, a BO"))
		return tap_exit_status();
	so = syncobj_new(fd);
	pkt_write_imm(dw, &n, VA, 0x1234);
	ret = submit(fd, ctx, dw, n, &bo, 1, 0, so, NULL);
	tap_ok(!ret && !syncobj_wait(fd, so, 10000) &&
	       !drmSyncobjExportSyncFile(fd, so, &sf) && sf >= 0,
	       "a job ran; its fence exported as a sync_file");
	/* a CPU mapping would keep the file, and the module, too */
	munmap((void *)mem, 4096);
	close(fd);

	ret = rmmod_for(2000) ? 0 : try_rmmod();
	tap_ok(ret == -EBUSY || ret == -EWOULDBLOCK,
	       "rmmod is refused while the sync_file holds a fence (%s)",
	       ret ? strerror(-ret) : "unloaded");
	if (!ret)
		return tap_exit_status();

	snprintf(path, sizeof(path), "%s/remove", dev);
	tap_ok(core_write_file(path, "1"), "remove the PCI device");
	usleep(200000);	/* the DRM device is released with the last file */
	ret = file_info(sf, &fi);
	tap_ok(!ret && fi.status == 1,
	       "the sync_file is still queried after the device left (status %d, %s/%s)",
	       fi.status, fi.driver_name, fi.obj_name);
	ret = try_rmmod();
	tap_ok(ret == -EBUSY || ret == -EWOULDBLOCK,
	       "and still keeps the module (%s)", ret ? strerror(-ret) : "unloaded");
	close(sf);
	tap_ok(rmmod_for(10000), "closed, the module unloads");

	ret = system("insmod $TERN_KO 2>/dev/null || insmod /tern/tern.ko");
	tap_ok(core_write_file("/sys/bus/pci/rescan", "1") &&
	       core_find_node(node, sizeof(node), 10000),
	       "the module loads again, a rescan brings the device back (%d)",
	       ret);
	fd = tern_test_open();
	tap_ok(fd >= 0, "and it opens");
	if (fd >= 0)
		close(fd);
	return tap_exit_status();
}
