// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * vm_teardown: closing files, BO handles and dma-bufs in any order, or
 * killing the process, with BOs still mapped in address spaces, gives all
 * the memory back (measured as Shmem in /proc/meminfo).
 *
 * tern-vm: timeout=120
 */
#include <signal.h>
#include <sys/wait.h>

#include "mem_test.h"

#define BO_SIZE	(8u << 20)
#define ROUNDS	24

/* Allocate and touch a BO, map it twice; returns its handle or 0. */
static uint32_t busy_bo(int fd, uint64_t va)
{
	uint64_t size;
	uint32_t h;
	char *p;

	if (bo_create(fd, BO_SIZE, &h))
		return 0;
	p = bo_mmap(fd, h, &size);
	if (!p)
		return 0;
	memset(p, 0x5a, size);
	munmap(p, size);
	if (vm_map(fd, h, va, 0, BO_SIZE) ||
	    vm_bind(fd, DRM_TERN_VM_BIND_OP_MAP, DRM_TERN_VM_BIND_READ_ONLY, h,
		    va + BO_SIZE, BO_SIZE / 2, BO_SIZE / 2))
		return 0;
	return h;
}

/* One round: two files share a BO through PRIME; close in order @order. */
static bool round_trip(int order)
{
	int fd = tern_test_open(), fd2 = tern_test_open(), dmabuf = -1;
	uint32_t h, h2 = 0;
	bool ok;

	if (fd < 0 || fd2 < 0)
		return false;
	h = busy_bo(fd, 0x10000000);
	ok = h && !drmPrimeHandleToFD(fd, h, DRM_CLOEXEC, &dmabuf) &&
	     !drmPrimeFDToHandle(fd2, dmabuf, &h2) &&
	     !vm_map(fd2, h2, 0x20000000, 0, BO_SIZE);
	switch (order % 3) {
	case 0:		/* everything closed, exporter first */
		bo_close(fd, h);
		close(fd);
		close(dmabuf);
		close(fd2);
		break;
	case 1:		/* importer first, handles left open */
		close(fd2);
		close(dmabuf);
		close(fd);
		break;
	default:	/* dma-buf outlives both files */
		close(fd);
		close(fd2);
		close(dmabuf);
		break;
	}
	return ok;
}

int main(void)
{
	long before, after;
	bool ok = true;
	int i, status;
	pid_t pid;

	before = meminfo_kb("Shmem");
	tap_ok(before >= 0, "read Shmem from /proc/meminfo: %ld kB", before);

	for (i = 0; i < ROUNDS; i++)
		ok &= round_trip(i);
	tap_ok(ok, "%d rounds of map, share and close in three orders", ROUNDS);
	after = meminfo_kb("Shmem");
	tap_ok(after - before < 4096,
	       "the BOs' memory is back: Shmem %ld kB -> %ld kB (%d MiB went through)",
	       before, after, ROUNDS * 8);

	/* A killed process with mapped BOs and an open dma-buf. */
	before = after;
	ok = true;
	for (i = 0; i < 8; i++) {
		int pipefd[2];
		char c = 0;

		if (pipe(pipefd))
			return tap_exit_status();
		pid = fork();
		if (pid == 0) {
			int fd = tern_test_open(), dmabuf;
			uint32_t h = fd < 0 ? 0 : busy_bo(fd, 0x10000000);

			if (h)
				drmPrimeHandleToFD(fd, h, DRM_CLOEXEC, &dmabuf);
			c = h ? 1 : 2;
			if (write(pipefd[1], &c, 1) != 1)
				_exit(1);
			pause();
			_exit(0);
		}
		ok &= pid > 0 && read(pipefd[0], &c, 1) == 1 && c == 1;
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
		}
		close(pipefd[0]);
		close(pipefd[1]);
	}
	tap_ok(ok, "8 processes mapped BOs and were killed");
	after = meminfo_kb("Shmem");
	tap_ok(after - before < 4096,
	       "their memory is back: Shmem %ld kB -> %ld kB", before, after);

	tap_done();
	return tap_exit_status();
}
