// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * race_remove_inflight: a process with long FILL jobs on every engine is
 * killed and the PCI device removed right away, while the engines still
 * write.  Remove must stop the engines before the jobs' memory (command
 * buffers, page tables, the pages of the dead process's BOs) is freed: with
 * page_poison=1 on the guest command line a write into a freed page is
 * reported as "pagealloc: memory corruption" when the page is allocated
 * again, which this test provokes by allocating most free memory.  Several
 * rounds, each ending with a rescan.
 *
 * tern-vm: timeout=300
 */
#include <signal.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "core_test.h"

#define VA		0x100000ull
#define BO_SIZE		(8u << 20)
#define FILLS		16	/* 128 MiB of writes per job */
#define JOBS		3
#define ROUNDS		4

/* The child: long FILLs on every engine, then it waits to be killed. */
static void filler(int ready_fd)
{
	struct drm_tern_get_info info;
	uint32_t dw[FILLS * TERN_PKT_DWORDS_FILL], n, e, j, k, ctx = 0, bo = 0;
	void *mem;
	int fd = tern_test_open();

	if (fd < 0 || core_get_info(fd, &info) ||
	    core_bo(fd, BO_SIZE, VA, &bo, &mem))
		_exit(2);
	for (e = 0; e < info.engine_count; e++) {
		uint32_t class = info.engine_class[e] == DRM_TERN_ENGINE_CLASS_COPY ?
				 DRM_TERN_ENGINE_CLASS_COPY :
				 DRM_TERN_ENGINE_CLASS_COMPUTE;

		if (ctx_create_class_on(fd, DRM_TERN_PRIORITY_NORMAL, class, 0,
					e, &ctx))
			_exit(3);
		for (j = 0; j < JOBS; j++) {
			n = 0;
			for (k = 0; k < FILLS; k++)
				pkt_fill(dw, &n, VA, BO_SIZE, 0x5a5a0000 | e << 8 | j);
			if (submit(fd, ctx, dw, n, &bo, 1, 0, 0, NULL))
				_exit(4);
		}
	}
	usleep(20000);	/* the engines are writing */
	if (write(ready_fd, "r", 1) != 1)
		_exit(5);
	pause();
	_exit(0);
}

/* Allocate and touch most free memory, so freed pages are reused. */
static void churn(void)
{
	long kb = meminfo_kb("MemAvailable") * 7 / 10;
	size_t len = (size_t)(kb > 0 ? kb : 0) * 1024;
	char *p;

	if (!len)
		return;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p != MAP_FAILED)
		munmap(p, len);
}

/* Does the kernel log report a write into a freed page? */
static bool corruption_logged(void)
{
	static char buf[1 << 20];
	int len = klogctl(3, buf, sizeof(buf) - 1);

	if (len <= 0)
		return false;
	buf[len] = 0;
	return strstr(buf, "memory corruption") != NULL;
}

int main(void)
{
	char dev[512], path[600], node[320];
	int round, status, p[2];
	bool removed = true, back = true, clean = true;
	char c;
	pid_t pid;

	tap_plan(4);
	if (!tap_ok(core_pci_dev(dev, sizeof(dev)), "find the PCI function"))
		return tap_exit_status();
	{
		char cmdline[1024] = "";
		FILE *f = fopen("/proc/cmdline", "r");

		if (f) {
			if (!fgets(cmdline, sizeof(cmdline), f))
				cmdline[0] = 0;
			fclose(f);
		}
		if (!strstr(cmdline, "page_poison=1"))
			tap_diag("no page_poison=1 on the command line: a write into a freed page may go unseen");
	}

	for (round = 0; round < ROUNDS && removed && back && clean; round++) {
		if (pipe(p))
			return 1;
		pid = fork();
		if (pid == 0) {
			close(p[0]);
			filler(p[1]);
		}
		close(p[1]);
		if (read(p[0], &c, 1) != 1) {
			tap_diag("round %d: the filler failed", round);
			removed = false;
			break;
		}
		close(p[0]);
		/* the process dies with its jobs on the engines ... */
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		/* ... and the device goes at once */
		if (!core_pci_dev(dev, sizeof(dev))) {
			removed = false;
			break;
		}
		snprintf(path, sizeof(path), "%s/remove", dev);
		removed = core_write_file(path, "1");
		churn();
		clean = !corruption_logged();
		back = core_write_file("/sys/bus/pci/rescan", "1") &&
		       core_find_node(node, sizeof(node), 10000);
	}
	tap_ok(removed, "%d rounds: kill a process with long FILLs on every engine, remove the device",
	       round);
	tap_ok(clean, "no write into a freed page was reported");
	tap_ok(back, "a rescan brings the device back each time");
	{
		int fd = tern_test_open();
		uint32_t ctx = 0;

		tap_ok(fd >= 0 && !ctx_create(fd, DRM_TERN_PRIORITY_NORMAL,
					      DRM_TERN_ENGINE_CLASS_COMPUTE, 0,
					      &ctx), "the device works");
		if (fd >= 0)
			close(fd);
	}
	return tap_exit_status();
}
