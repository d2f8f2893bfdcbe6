// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * race_fault_submit: a job submitted right after its context's job faulted,
 * before the driver has seen the fault, must not run: its fence signals
 * -ECANCELED (or the submit fails with EIO once the fault is known) and its
 * write never lands.  Meanwhile another process faults on the same engine
 * in a loop: each context's GET_STATE reports its own fault address, never
 * the other's (the engine halts on a fault, so a second fault cannot
 * overwrite the registers before the first is read).
 *
 * tern-vm: timeout=240
 */
#include <signal.h>
#include <sys/wait.h>

#include "core_test.h"

#define VA		0x100000ull
#define VA_BAD		0x7000000ull	/* this process's stray address */
#define VA_BAD_OTHER	0x9000000ull	/* the other process's */
#define TRIES		300

/* Another process: faults at VA_BAD_OTHER again and again. */
static void other_faulter(void)
{
	struct drm_tern_context_get_state st;
	uint32_t dw[8], n, ctx = 0, so;
	int fd = tern_test_open(), bad = 0;

	if (fd < 0)
		_exit(2);
	so = syncobj_new(fd);
	for (;;) {
		if (ctx_create_on(fd, 0, 0, &ctx))
			_exit(3);
		n = 0;
		pkt_write_imm(dw, &n, VA_BAD_OTHER, 1);
		submit(fd, ctx, dw, n, NULL, 0, 0, so, NULL);
		syncobj_wait(fd, so, 10000);
		if (!ctx_state(fd, ctx, &st) &&
		    st.state == DRM_TERN_CONTEXT_FAULTED &&
		    st.fault_addr != VA_BAD_OTHER && !bad++)
			fprintf(stderr, "other process: fault address %#llx\n",
				(unsigned long long)st.fault_addr);
		ctx_destroy(fd, ctx);
		if (bad)
			_exit(4);
	}
}

int main(void)
{
	struct drm_tern_context_get_state st;
	uint32_t dw[16], n, ctx = 0, bo = 0, so_bad, so_next, i;
	int ran = 0, succeeded = 0, wrong_addr = 0, not_cancelled = 0;
	volatile uint32_t *mem = NULL;
	int fd, ret, status;
	pid_t pid;

	tap_plan(5);
	fd = tern_test_open();
	if (!tap_ok(fd >= 0 && !core_bo(fd, 4096, VA, &bo, (void **)&mem),
		    "open the device, map a BO"))
		return tap_exit_status();
	pid = fork();
	if (pid == 0)
		other_faulter();
	so_bad = syncobj_new(fd);
	so_next = syncobj_new(fd);

	for (i = 0; i < TRIES; i++) {
		if (ctx_create_on(fd, 0, 0, &ctx))
			break;
		mem[0] = 0;
		__sync_synchronize();
		n = 0;
		pkt_write_imm(dw, &n, VA_BAD, 0xbad);
		drmSyncobjReset(fd, &so_bad, 1);
		drmSyncobjReset(fd, &so_next, 1);
		submit(fd, ctx, dw, n, &bo, 1, 0, so_bad, NULL);
		/* right behind it: the fault may not have been seen yet */
		n = 0;
		pkt_write_imm(dw, &n, VA, 0x600d);
		ret = submit(fd, ctx, dw, n, &bo, 1, 0, so_next, NULL);
		syncobj_wait(fd, so_bad, 10000);
		if (!ret) {
			if (syncobj_wait(fd, so_next, 10000))
				not_cancelled++;
			else if (core_fence_status(fd, so_next) != -ECANCELED)
				succeeded++;
		}
		__sync_synchronize();
		if (mem[0] == 0x600d)
			ran++;
		if (!ctx_state(fd, ctx, &st) &&
		    (st.state != DRM_TERN_CONTEXT_FAULTED ||
		     st.fault_addr != VA_BAD))
			wrong_addr++;
		ctx_destroy(fd, ctx);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	tap_ok(i == TRIES, "%u tries: a faulting job, then one more on its context", i);
	tap_ok(!ran, "the job behind the fault never ran (%d of %u did)", ran, i);
	tap_ok(!succeeded && !not_cancelled,
	       "its fence signalled ECANCELED (%d other status, %d never signalled)", succeeded,
	       not_cancelled);
	tap_ok(!wrong_addr,
	       "GET_STATE reported this context's own fault each time (%d wrong)",
	       wrong_addr);
	tap_ok(!(WIFEXITED(status) && WEXITSTATUS(status) == 4),
	       "and the other process always saw its own fault address");
	close(fd);
	return tap_exit_status();
}
