// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_dep_error: a job whose in-fence signalled with an error does not run
 * and signals that error; its context stays usable.  The failed fence comes
 * from a job that faults (-EIO) and reaches the waiting job through a binary
 * syncobj of the same file, a timeline point, and a syncobj shared with
 * another process (by fd).  Jobs waiting on a fence that completed run as
 * usual.
 *
 * tern-vm: timeout=120
 */
#include <sys/wait.h>

#include "core_test.h"

#define VA	0x100000ull
#define VA_BAD	0x7000000ull

/* A job that waits for the CPU word at VA to be non-zero, then faults. */
static int submit_faulting(int fd, uint32_t ctx, uint32_t bo, uint32_t so,
			   uint64_t point)
{
	struct drm_tern_sync o = { .handle = so, .point = point };
	uint32_t dw[16], n = 0;
	struct drm_tern_submit s = {
		.context = ctx, .cmdbuf = (uintptr_t)dw, .bo_count = 1,
		.bo_handles = (uintptr_t)&bo, .out_syncs = (uintptr_t)&o,
		.out_sync_count = 1,
	};

	pkt_wait_mem(dw, &n, VA, 1, 10000000);
	pkt_write_imm(dw, &n, VA_BAD, 0xbad);
	s.cmdbuf_size = n * 4;
	return ioctl(fd, DRM_IOCTL_TERN_SUBMIT, &s) ? -errno : 0;
}

/* A job writing @value at VA + @off after in-sync (@in, @point). */
static int submit_marker(int fd, uint32_t ctx, uint32_t bo, uint32_t in,
			 uint64_t point, uint32_t off, uint32_t value,
			 uint32_t out)
{
	struct drm_tern_sync i = { .handle = in, .point = point };
	struct drm_tern_sync o = { .handle = out };
	uint32_t dw[8], n = 0;
	struct drm_tern_submit s = {
		.context = ctx, .cmdbuf = (uintptr_t)dw, .bo_count = 1,
		.bo_handles = (uintptr_t)&bo, .in_syncs = (uintptr_t)&i,
		.in_sync_count = in ? 1 : 0, .out_syncs = (uintptr_t)&o,
		.out_sync_count = 1,
	};

	pkt_write_imm(dw, &n, VA + off, value);
	s.cmdbuf_size = n * 4;
	return ioctl(fd, DRM_IOCTL_TERN_SUBMIT, &s) ? -errno : 0;
}

int main(void)
{
	uint32_t bad = 0, bad2 = 0, good = 0, bo = 0, so_fault, so_tl, so_w1;
	uint32_t so_w2, so_after, so_ok, so_w3;
	volatile uint32_t *mem;
	int fd, sfd = -1, status;
	pid_t pid;

	tap_plan(13);
	fd = tern_test_open();
	if (!tap_ok(fd >= 0 && !core_bo(fd, 4096, VA, &bo, (void **)&mem) &&
		    !ctx_create_on(fd, 0, 0, &bad) &&
		    !ctx_create_on(fd, 0, 0, &bad2) &&
		    !ctx_create_on(fd, 0, 1, &good),
		    "open, map a BO, three contexts"))
		return tap_exit_status();
	memset((void *)mem, 0, 4096);
	so_fault = syncobj_new(fd);
	so_w1 = syncobj_new(fd);
	so_w2 = syncobj_new(fd);
	so_w3 = syncobj_new(fd);
	so_after = syncobj_new(fd);
	so_ok = syncobj_new(fd);
	if (drmSyncobjCreate(fd, 0, &so_tl))
		return 1;

	/* the failing producer: binary syncobj, then timeline point 1 */
	tap_errno(submit_faulting(fd, bad, bo, so_fault, 0), 0,
		  "submit a job that will fault");
	tap_errno(submit_faulting(fd, bad2, bo, so_tl, 1), 0,
		  "submit a job that will fault, out to timeline point 1");
	drmSyncobjHandleToFD(fd, so_fault, &sfd);

	/* the consumers, on another engine's context */
	tap_errno(submit_marker(fd, good, bo, so_fault, 0, 64, 0x11, so_w1), 0,
		  "a job waiting on the binary syncobj");
	tap_errno(submit_marker(fd, good, bo, so_tl, 1, 68, 0x22, so_w2), 0,
		  "a job waiting on the timeline point");

	/* another process waits on it too */
	pid = fork();
	if (pid == 0) {
		uint32_t c = 0, b = 0, h = 0, o;
		volatile uint32_t *m;
		int f = tern_test_open();

		if (f < 0 || ctx_create(f, DRM_TERN_PRIORITY_NORMAL,
					DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &c) ||
		    core_bo(f, 4096, VA, &b, (void **)&m) ||
		    drmSyncobjFDToHandle(f, sfd, &h))
			_exit(2);
		m[16] = 0;
		o = syncobj_new(f);
		if (submit_marker(f, c, b, h, 0, 64, 0x33, o))
			_exit(3);
		if (syncobj_wait(f, o, 30000))
			_exit(4);
		if (core_fence_status(f, o) != -EIO)
			_exit(5);
		if (m[16] != 0)
			_exit(6);	/* it ran */
		_exit(0);
	}

	usleep(50000);
	mem[0] = 1;
	__sync_synchronize();
	syncobj_wait(fd, so_w1, 30000);
	syncobj_wait(fd, so_w2, 30000);
	tap_ok(core_fence_status(fd, so_fault) == -EIO, "the producer faulted");
	tap_ok(core_fence_status(fd, so_w1) == -EIO && mem[16] == 0,
	       "binary: the waiting job did not run and signals EIO (status %d, marker %#x)",
	       core_fence_status(fd, so_w1), mem[16]);
	tap_ok(core_fence_status(fd, so_w2) == -EIO && mem[17] == 0,
	       "timeline: the waiting job did not run and signals EIO (status %d, marker %#x)",
	       core_fence_status(fd, so_w2), mem[17]);
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "another process's job waiting on it did not run either (exit %d)",
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);

	/* the consumer's context is not harmed */
	tap_errno(submit_marker(fd, good, bo, 0, 0, 72, 0x44, so_after), 0,
		  "the waiting job's context takes work");
	syncobj_wait(fd, so_after, 30000);
	tap_ok(core_fence_status(fd, so_after) == 1 && mem[18] == 0x44,
	       "and runs it");

	/* a fence that completed is no error */
	submit_marker(fd, good, bo, 0, 0, 76, 0x55, so_ok);
	tap_errno(submit_marker(fd, good, bo, so_ok, 0, 80, 0x66, so_w3), 0,
		  "a job waiting on a completed fence");
	syncobj_wait(fd, so_w3, 30000);
	tap_ok(core_fence_status(fd, so_w3) == 1 && mem[20] == 0x66, "runs");
	close(sfd);
	close(fd);
	return tap_exit_status();
}
