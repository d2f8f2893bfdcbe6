// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * vm_teardown: closing files, BO handles and dma-bufs in any order, or
 * killing the process, with BOs still mapped in address spaces, gives all
 * the memory back: the system memory of the devices' BOs (debugfs
 * "memory", system_bytes) comes back to where it was, after it counted
 * each BO.
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

/* Note the BO system memory in *@peak if it is more. */
static void note_peak(long *peak)
{
	long kb = tern_system_kb();

	if (kb > *peak)
		*peak = kb;
}

/*
 * One round: two files share a BO through PRIME; close in order @order.
 * The BO system memory with the BO mapped goes to *@peak if it is more.
 */
static bool round_trip(int order, long *peak)
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
	note_peak(peak);
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
	const long bo_kb = BO_SIZE >> 10;
	long before, after, peak = -1;
	bool ok = true;
	int i, status;
	pid_t pid;

	/* no file holds BOs: what earlier tests freed late goes first */
	before = tern_system_settled_kb(0);
	tap_ok(before >= 0, "read the BO system memory (debugfs memory): %ld kB", before);

	for (i = 0; i < ROUNDS; i++)
		ok &= round_trip(i, &peak);
	tap_ok(ok, "%d rounds of map, share and close in three orders", ROUNDS);
	after = tern_system_settled_kb(before);
	tap_ok(before >= 0 && peak >= before + bo_kb && after >= 0 && after <= before,
	       "the BOs' memory is back: %ld kB -> %ld kB (%ld kB with a BO mapped, %d MiB went "
	       "through)", before, after, peak, ROUNDS * 8);

	/* A killed process with mapped BOs and an open dma-buf. */
	before = after;
	peak = -1;
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
		note_peak(&peak);
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
		}
		close(pipefd[0]);
		close(pipefd[1]);
	}
	tap_ok(ok, "8 processes mapped BOs and were killed");
	after = tern_system_settled_kb(before);
	tap_ok(before >= 0 && peak >= before + bo_kb && after >= 0 && after <= before,
	       "their memory is back: %ld kB -> %ld kB (%ld kB with a process alive)", before,
	       after, peak);

	tap_done();
	return tap_exit_status();
}
