// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_close: closing a file or killing a process with jobs queued (or
 * waiting for a fence that never comes) returns promptly, frees its
 * contexts once the jobs on the engines are done, and costs nothing to the
 * work of others, which completes with the right results.
 *
 * tern-vm: timeout=120
 */
#include <signal.h>
#include <sys/wait.h>

#include "core_test.h"

#define VA	0x100000ull

/* Open a file, create a context on @engine, queue @jobs spins of @us. */
static int busy_file(uint32_t engine, unsigned int jobs, uint32_t us,
		     uint32_t gate_fd_sync)
{
	uint32_t dw[16], n, ctx = 0, bo = 0, i;
	void *mem;
	int fd = tern_test_open();

	if (fd < 0 || ctx_create_on(fd, 0, engine, &ctx) ||
	    core_bo(fd, 4096, VA, &bo, &mem))
		return -1;
	/* a CPU mapping would keep the file open after close() */
	munmap(mem, 4096);
	for (i = 0; i < jobs; i++) {
		n = 0;
		pkt_spin(dw, &n, us);
		pkt_write_imm(dw, &n, VA, i);
		if (submit(fd, ctx, dw, n, &bo, 1, 0, 0, NULL))
			return -1;
	}
	if (gate_fd_sync) {
		/* one more job that waits for a syncobj nobody signals */
		uint32_t so = syncobj_new(fd), so2 = syncobj_new(fd);

		n = 0;
		pkt_spin(dw, &n, 5000);
		/* gives so a fence that stays pending for 5 s */
		if (submit(fd, ctx, dw, n, &bo, 1, 0, so, NULL))
			return -1;
		if (submit(fd, ctx, dw, n, &bo, 1, so, so2, NULL))
			return -1;
	}
	return fd;
}

int main(void)
{
	uint32_t dw[16], n, ctx = 0, bo = 0, so, i;
	volatile uint32_t *mem;
	int fd, fd2, base, status;
	int64_t t0, dt;
	pid_t pid;

	tap_plan(12);
	fd = tern_test_open();
	if (!tap_ok(fd >= 0, "open the device") ||
	    ctx_create_on(fd, 0, 0, &ctx) ||
	    core_bo(fd, 4096, VA, &bo, (void **)&mem))
		return tap_exit_status();
	so = syncobj_new(fd);
	base = core_context_count();
	tap_ok(base >= 1, "debugfs lists the contexts (%d)", base);

	/* close a file with 30 jobs queued on our engine */
	fd2 = busy_file(0, 30, 20000, 0);
	n = 0;
	pkt_write_imm(dw, &n, VA, 0x1234);
	tap_errno(submit(fd, ctx, dw, n, &bo, 1, 0, so, NULL), 0,
		  "queue a job behind another file's 30 jobs");
	t0 = now_ns();
	close(fd2);
	dt = now_ns() - t0;
	tap_ok(fd2 >= 0 && dt < 1000000000ll,
	       "closing that file returns at once (%lld ms)",
	       (long long)(dt / 1000000));
	tap_ok(!syncobj_wait(fd, so, 5000) && mem[0] == 0x1234,
	       "our job completes well before the 600 ms of cancelled work");
	tap_ok(core_context_count_is(base, 3000),
	       "the closed file's context is freed");

	/* a file whose last job waits for a fence of its own */
	fd2 = busy_file(0, 2, 1000, 1);
	t0 = now_ns();
	close(fd2);
	dt = now_ns() - t0;
	tap_ok(fd2 >= 0 && dt < 3000000000ll,
	       "closing a file whose job waits for a fence returns (%lld ms)",
	       (long long)(dt / 1000000));
	tap_ok(core_context_count_is(base, 8000),
	       "and its context is freed once its jobs are done");

	/* kill a process with work queued and on the engine */
	pid = fork();
	if (pid == 0) {
		if (busy_file(0, 50, 10000, 0) < 0)
			_exit(2);
		pause();
		_exit(0);
	}
	usleep(200000);
	drmSyncobjReset(fd, &so, 1);
	for (i = 0; i < 10; i++) {
		n = 0;
		pkt_spin(dw, &n, 1000);
		pkt_write_imm(dw, &n, VA + 4 + 4 * i, i + 1);
		submit(fd, ctx, dw, n, &bo, 1, 0, so, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	tap_ok(WIFSIGNALED(status), "the busy process was killed");
	tap_ok(!syncobj_wait(fd, so, 5000) && mem[1] == 1 && mem[10] == 10,
	       "our 10 jobs completed with their results");
	tap_ok(core_context_count_is(base, 3000),
	       "the killed process's context is freed");

	/* and the engine still works */
	drmSyncobjReset(fd, &so, 1);
	n = 0;
	pkt_write_imm(dw, &n, VA + 60, 0x77);
	tap_ok(!submit(fd, ctx, dw, n, &bo, 1, 0, so, NULL) &&
	       !syncobj_wait(fd, so, 5000) && mem[15] == 0x77,
	       "the engine runs new work");

	close(fd);
	return tap_exit_status();
}
