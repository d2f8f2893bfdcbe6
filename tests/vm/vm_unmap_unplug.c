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
 * Two more processes bind asynchronously (DRM_IOCTL_TERN_VM_BIND_OPS):
 * map, a job that waits for the map, an unmap that waits for the job; then
 * a bind that waits for a long job, behind which the queue fills up to
 * EAGAIN.  Remove meets queued binds, waiting ones and a running one; the
 * queued ones fail with ENODEV and free their tables before it returns.
 *
 * tern-vm: timeout=150
 */
#include <sys/wait.h>

#include "core_test.h"

#define PROCS		4
#define ASYNC_PROCS	2
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

static int bind_async(int fd, uint32_t op, uint32_t bo, uint64_t va, uint32_t in,
		      uint32_t out)
{
	struct drm_tern_vm_bind b = { .op = op, .handle = bo, .va = va, .range = BO_SIZE };
	struct drm_tern_sync i = { .handle = in }, o = { .handle = out };
	struct drm_tern_vm_bind_ops a = {
		.ops = (uintptr_t)&b, .count = 1, .stride = sizeof(b),
		.in_syncs = (uintptr_t)&i, .in_sync_count = in ? 1 : 0,
		.out_syncs = (uintptr_t)&o, .out_sync_count = out ? 1 : 0,
	};

	return ioctl(fd, DRM_IOCTL_TERN_VM_BIND_OPS, &a) ? -errno : 0;
}

/*
 * Bind, use and unbind asynchronously; from round 32 on, behind a bind that
 * waits for a long job, until the queue is full; until the device goes.
 */
static int churn_async(int id)
{
	int fd = tern_test_open(), ret = 0;
	uint32_t ctx, ctx2, bo, gbo, dw[8], n, i;
	uint32_t s_map, s_job, s_unmap, s_long;
	uint64_t va, gva = BASE + ((uint64_t)id << 32) - BO_SIZE;
	void *map;

	if (fd < 0 || ctx_create(fd, DRM_TERN_PRIORITY_NORMAL,
				 DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &ctx) ||
	    ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0,
		       &ctx2) ||
	    bo_create(fd, BO_SIZE, &bo) || core_bo(fd, BO_SIZE, gva, &gbo, &map))
		return 1;
	s_map = syncobj_new(fd);
	s_job = syncobj_new(fd);
	s_unmap = syncobj_new(fd);
	s_long = syncobj_new(fd);
	*(volatile uint32_t *)map = 0;
	n = 0;
	/* never released: ends by its own timeout, or by the removal */
	pkt_wait_mem(dw, &n, gva, 1, 10000000);
	if (submit(fd, ctx2, dw, n, &gbo, 1, 0, s_long, NULL))
		return 1;
	for (i = 0; ; i++) {
		va = BASE + ((uint64_t)id << 32) + (i % 256) * BO_SIZE;
		ret = bind_async(fd, DRM_TERN_VM_BIND_OP_MAP, bo, va, 0, s_map);
		if (ret == -EAGAIN) {
			usleep(10000);
			i--;
			continue;
		}
		if (ret)
			break;
		n = 0;
		pkt_write_imm(dw, &n, va + 4 * (i % 64), i);
		ret = submit(fd, ctx, dw, n, &bo, 1, s_map, s_job, NULL);
		if (ret && ret != -EAGAIN)
			break;
		do {
			ret = bind_async(fd, DRM_TERN_VM_BIND_OP_UNMAP, 0, va, s_job,
					 s_unmap);
		} while (ret == -EAGAIN && !usleep(10000));
		if (ret)
			break;
		if (i == 32)
			ret = bind_async(fd, DRM_TERN_VM_BIND_OP_MAP, bo,
					 BASE + ((uint64_t)id << 32) + 512 * BO_SIZE,
					 s_long, 0);
		else if (i < 32)
			syncobj_wait(fd, s_unmap, 20000);
		if (ret)
			break;
	}
	munmap(map, BO_SIZE);
	close(fd);
	return ret == -ENODEV ? 0 : 2;
}

/* The most operations waiting in one address space, from debugfs "vms". */
static unsigned int binds_waiting(void)
{
	char path[512], line[512];
	unsigned long long q, d;
	unsigned int w, most = 0;
	FILE *f;

	if (!core_debugfs_path("vms", path, sizeof(path)) || !(f = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "  binds: %llu queued, %llu done, %u operations waiting",
			   &q, &d, &w) == 3 && w > most)
			most = w;
	fclose(f);
	return most;
}

int main(void)
{
	char dev[512], remove[600], knob[512];
	int i, status, bad = 0, fd, tries;
	unsigned int waiting;
	struct drm_tern_get_info info;
	uint32_t ctx, bo;
	pid_t pids[PROCS + ASYNC_PROCS];
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

	for (i = 0; i < PROCS + ASYNC_PROCS; i++) {
		pids[i] = fork();
		if (!pids[i])
			_exit(i < PROCS ? churn(i + 1) : churn_async(i + 1));
	}
	usleep(1500000);
	waiting = binds_waiting();
	tap_ok(waiting > 0, "binds wait in a queue as the device goes (%u operations)",
	       waiting);
	snprintf(remove, sizeof(remove), "%s/remove", dev);
	tap_ok(core_write_file(remove, "1"), "remove the PCI device with %d processes "
	       "changing their address spaces", PROCS + ASYNC_PROCS);
	for (i = 0; i < PROCS + ASYNC_PROCS; i++) {
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
