// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * vm_unmap_unplug: the PCI device is removed while processes map and unmap
 * with jobs in flight, so that removal meets address-space changes at every
 * step: recording, their update's job on the copy engine, the wait for the
 * jobs that may still use a removed range, and a failed change's leftovers.
 *
 * The rule checked is the one PCI remove keeps for page tables: they are
 * DMA memory of the device and go before remove returns, never after (in
 * the IOMMU configuration a late free of a table faults or is reported).
 * Each process's calls end with success or ENODEV (nothing else), every
 * process exits, the files close, and after a rescan the device works and
 * maps again.  A debugfs delay on the release of finished jobs holds the
 * unmaps in their wait for the jobs while remove runs.
 *
 * tern-vm: timeout=150
 */
#include <sys/wait.h>

#include "core_test.h"

#define PROCS		4
#define BO_SIZE		(1ull << 20)
#define BASE		(1ull << 36)

/* Map, run a short job on the range, unmap at once, until the device goes. */
static int churn(int id)
{
	int fd = tern_test_open(), ret = 0;
	uint32_t ctx, bo, dw[8], n, i;
	uint64_t va;

	if (fd < 0 || ctx_create(fd, DRM_TERN_PRIORITY_NORMAL,
				 DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &ctx) ||
	    bo_create(fd, BO_SIZE, &bo))
		return 1;
	for (i = 0; ; i++) {
		/* the first odd ones stay mapped, for the close to remove */
		bool keep = i % 2 && i < 64;

		va = BASE + ((uint64_t)id << 32) + (keep ? 64 + i : i % 8) * BO_SIZE;
		ret = vm_map(fd, bo, va, 0, BO_SIZE);
		if (ret)
			break;
		n = 0;
		pkt_write_imm(dw, &n, va + 4 * (i % 64), i);
		pkt_spin(dw, &n, 2000);
		ret = submit(fd, ctx, dw, n, &bo, 1, 0, 0, NULL);
		if (ret && ret != -EAGAIN)
			break;
		if (keep)
			continue;
		ret = vm_unmap(fd, va, BO_SIZE);
		if (ret)
			break;
	}
	close(fd);
	/* the device went away: that is the only way out */
	return ret == -ENODEV ? 0 : 2;
}

int main(void)
{
	char dev[512], remove[600], knob[512];
	int i, status, bad = 0, fd, tries;
	struct drm_tern_get_info info;
	uint32_t ctx, bo;
	pid_t pids[PROCS];
	void *map;

	fd = tern_test_open();
	if (!tap_ok(fd >= 0 && core_pci_dev(dev, sizeof(dev)),
		    "open the device and find its PCI function")) {
		tap_done();
		return tap_exit_status();
	}
	/* finished jobs are released late: unmaps wait for them longer */
	if (core_debugfs_path("release_delay_us", knob, sizeof(knob)))
		core_write_file(knob, "20000");
	close(fd);

	for (i = 0; i < PROCS; i++) {
		pids[i] = fork();
		if (!pids[i])
			_exit(churn(i + 1));
	}
	usleep(1500000);
	snprintf(remove, sizeof(remove), "%s/remove", dev);
	tap_ok(core_write_file(remove, "1"), "remove the PCI device with %d processes "
	       "changing their address spaces", PROCS);
	for (i = 0; i < PROCS; i++) {
		if (pids[i] < 0 || waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			tap_diag("process %d: status %#x", i, status);
			bad++;
		}
	}
	tap_ok(!bad, "every process's calls ended with success or ENODEV, and it exited "
	       "(%d did not)", bad);

	tap_ok(core_write_file("/sys/bus/pci/rescan", "1"), "rescan the bus");
	for (tries = 0; tries < 100 && access(TERN_TEST_NODE, F_OK); tries++)
		usleep(20000);
	fd = tern_test_open();
	tap_ok(fd >= 0 && !core_get_info(fd, &info) && !ctx_create(fd, 1, 0, 0, &ctx) &&
	       !core_bo(fd, BO_SIZE, BASE, &bo, &map) && !vm_unmap(fd, BASE, BO_SIZE),
	       "the device is back: it maps and unmaps");
	close(fd);
	tap_done();
	return tap_exit_status();
}
