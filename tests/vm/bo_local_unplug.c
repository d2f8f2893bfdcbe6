// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bo_local_unplug: the PCI device is removed while LOCAL BOs are mapped,
 * CPU-mapped through BAR2 and paged in and out.
 *
 * One process keeps a LOCAL BO mapped and CPU-mapped; two others page
 * 64 MiB LOCAL BOs in and out in a loop (map one, unmap the one before,
 * three of them over local memory), so that remove meets paging buffers
 * on the copy engine.  Since interface 1.7 their maps may evict the first
 * BO (mapped, but idle) and never fail for want of local memory: before
 * remove, a job that lists the first BO brings it back to local memory and
 * keeps it there, busy, until the device goes (it waits for a word nobody
 * writes).  Each process's calls end with success or ENODEV, and every
 * process exits.  After remove, the CPU mapping of the BO in local memory
 * reads a page of zeroes (BAR2 is gone), without a fault.
 * After a rescan, the new device pages a LOCAL BO in and a job reads it.
 * Behind the IOMMU, the paging buffers' memory must go before remove
 * returns (a late free faults).
 *
 * tern-vm: timeout=150
 */
#include <sys/wait.h>

#include "core_test.h"

#define MIB	(1024ull * 1024)
#define VA	0x100000000ull

/*
 * Page 3 LOCAL BOs of @big bytes in and out until the device is gone;
 * tell @ready once they are made.
 */
static int churn(uint64_t big, int ready)
{
	uint32_t h[3];
	uint64_t got;
	char *p;
	int fd, i, round, ret;

	fd = open(TERN_TEST_NODE, O_RDWR);
	for (i = 0; i < 3; i++) {
		if (fd < 0 || bo_create_local(fd, big, &h[i]))
			return 1;
		p = bo_mmap(fd, h[i], &got);
		if (!p)
			return 1;
		p[0] = (char)i;	/* populated: each first map pages it in */
	}
	if (write(ready, "r", 1) != 1)
		return 1;
	for (round = 0; ; round++) {
		i = round % 3;
		ret = vm_map(fd, h[i], VA + i * big, 0, big);
		if (ret == -ENODEV)
			return 0;
		/* local memory full of others' BOs: it maps in system memory */
		if (ret)
			return 2;
		ret = vm_unmap(fd, VA + ((i + 2) % 3) * big, big);
		if (ret == -ENODEV)
			return 0;
		if (ret && ret != -ENOENT)
			return 3;
	}
}

int main(void)
{
	char dev[512], remove[600], node[512];
	volatile uint32_t *x = NULL;
	struct drm_tern_get_info info;
	int fd, i, status, bad = 0, ret;
	uint64_t got, big;
	uint32_t h = 0, ctx = 0, dw[8], n;
	long long resident;
	bool removed;
	pid_t pids[2];
	int ready[2];
	char ch;

	fd = tern_test_open();
	if (!tap_ok(fd >= 0 && !core_get_info(fd, &info) && info.local_mem_size &&
		    core_pci_dev(dev, sizeof(dev)),
		    "open the device, with local memory, and find its PCI function")) {
		tap_done();
		return tap_exit_status();
	}
	big = info.local_mem_size / 4 / MIB * MIB;
	if (!bo_create_local(fd, MIB, &h))
		x = bo_mmap(fd, h, &got);
	for (i = 0; x && i < (int)(MIB / 4); i++)
		x[i] = 0x1000u + i;
	tap_ok(x && !vm_map(fd, h, VA, 0, MIB) && x[5] == 0x1005u &&
	       !ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &ctx),
	       "a LOCAL BO mapped, in local memory, CPU-mapped through BAR2");

	/* remove meets paging, not the set-up: it waits for both */
	if (pipe(ready))
		return tap_exit_status();
	for (i = 0; i < 2; i++) {
		pids[i] = fork();
		if (!pids[i]) {
			close(fd);
			close(ready[0]);
			_exit(churn(big, ready[1]));
		}
	}
	close(ready[1]);
	for (i = 0; i < 2; i++)
		if (read(ready[0], &ch, 1) != 1)
			tap_diag("a process did not set up");
	close(ready[0]);
	/*
	 * Their maps may have evicted it (interface 1.7): a job that lists it
	 * pages it back in and keeps it in local memory, waiting for a word
	 * that never gets there (WAIT_MEM gives up after 10 s; remove comes
	 * long before).
	 */
	n = 0;
	pkt_wait_mem(dw, &n, VA + 16, 0xffffffffu, TERN_WAIT_TIMEOUT_MAX_US);
	for (i = 0; (ret = submit(fd, ctx, dw, n, &h, 1, 0, 0, NULL)) == -EAGAIN && i < 20; i++)
		;
	resident = fdinfo_region_bytes(fd, "resident", "local");
	usleep(200000);
	snprintf(remove, sizeof(remove), "%s/remove", dev);
	removed = core_write_file(remove, "1");
	tap_ok(!ret && resident == (long long)MIB && removed,
	       "a job lists the BO and waits, keeping it in local memory (%s, %lld bytes); remove the PCI device while two processes page 3 x %llu MiB in and out",
	       strerror(-ret), resident, (unsigned long long)(big / MIB));
	for (i = 0; i < 2; i++)
		if (pids[i] < 0 || waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			tap_diag("process %d: status %#x", i, status);
			bad++;
		}
	tap_ok(!bad, "their calls ended with success or ENODEV, and they exited (%d did not)",
	       bad);
	tap_ok(x && x[5] == 0 && x[MIB / 4 - 1] == 0,
	       "after remove, the CPU mapping of local memory reads zeroes");
	munmap((void *)x, MIB);
	close(fd);

	tap_ok(core_write_file("/sys/bus/pci/rescan", "1") &&
	       core_find_node(node, sizeof(node), 5000),
	       "rescan the bus: the device is back");
	fd = open(node, O_RDWR);
	x = NULL;
	h = 0;
	if (fd >= 0 && !bo_create_local(fd, MIB, &h))
		x = bo_mmap(fd, h, &got);
	for (i = 0; x && i < (int)(MIB / 4); i++)
		x[i] = 0x2000u + i;
	tap_ok(x && !vm_map(fd, h, VA, 0, MIB) && core_memory_value("local_bytes") == (long long)MIB &&
	       x[7] == 0x2007u,
	       "the new device pages a LOCAL BO in");
	if (x)
		munmap((void *)x, MIB);
	close(fd);
	tap_done();
	return tap_exit_status();
}
