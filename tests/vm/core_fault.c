// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_fault: a job touching an unmapped VA faults; the fault is reported
 * to its context only (GET_STATE: FAULTED, kind, address, packet offset,
 * job), which then refuses work with EIO; the job of another context queued
 * behind it on the same engine (cancelled by the device) runs again and
 * completes; other contexts, of the same file and of another process, go
 * on; a devcoredump is produced.
 *
 * tern-vm: timeout=120
 */
#include <sys/wait.h>

#include "core_test.h"

#define VA	0x100000ull
#define VA_BAD	0x7000000ull

int main(void)
{
	struct drm_tern_context_get_state st;
	uint32_t dw[64], n, bad_ctx = 0, good_ctx = 0, other = 0, bo = 0;
	uint32_t so_bad, so_good, so_other, bos[1];
	volatile uint32_t *mem;
	int fd, ret, status;
	pid_t pid;

	tap_plan(16);
	/* a device keeps one dump at a time: not one an earlier test left */
	core_drain_coredumps();
	fd = tern_test_open();
	if (!tap_ok(fd >= 0, "open the device") ||
	    ctx_create_on(fd, 0, 0, &bad_ctx) || ctx_create_on(fd, 0, 0, &good_ctx) ||
	    ctx_create_on(fd, 0, 1, &other) ||
	    core_bo(fd, 4096, VA, &bo, (void **)&mem))
		return tap_exit_status();
	memset((void *)mem, 0, 4096);
	bos[0] = bo;
	so_bad = syncobj_new(fd);
	so_good = syncobj_new(fd);
	so_other = syncobj_new(fd);

	/* another process works on its own, at the same time */
	pid = fork();
	if (pid == 0) {
		uint32_t c = 0, b = 0, s, i, k = 0;
		volatile uint32_t *m;
		int f = tern_test_open();

		if (f < 0 || ctx_create_on(f, 0, 0, &c) ||
		    core_bo(f, 4096, VA, &b, (void **)&m))
			_exit(2);
		s = syncobj_new(f);
		for (i = 0; i < 20; i++) {
			k = 0;
			pkt_spin(dw, &k, 2000);
			pkt_write_imm(dw, &k, VA, i + 100);
			if (submit(f, c, dw, k, &b, 1, 0, s, NULL))
				_exit(3);
		}
		if (syncobj_wait(f, s, 20000) || m[0] != 119)
			_exit(4);
		if (ctx_state(f, c, &st) || st.state != DRM_TERN_CONTEXT_ACTIVE)
			_exit(5);
		_exit(0);
	}

	/* the faulting job: a write to an unmapped VA after a spin */
	n = 0;
	pkt_spin(dw, &n, 20000);
	pkt_write_imm(dw, &n, VA + 4, 0x1);
	pkt_write_imm(dw, &n, VA_BAD, 0xbad);
	pkt_write_imm(dw, &n, VA + 8, 0xbad);
	ret = submit(fd, bad_ctx, dw, n, bos, 1, 0, so_bad, NULL);
	tap_errno(ret, 0, "submit a job that writes to an unmapped VA");
	/* queued right behind it on the same engine, from another context */
	n = 0;
	pkt_write_imm(dw, &n, VA + 12, 0x600d);
	tap_errno(submit(fd, good_ctx, dw, n, bos, 1, 0, so_good, NULL), 0,
		  "submit a job of another context behind it");
	n = 0;
	pkt_spin(dw, &n, 1000);
	pkt_write_imm(dw, &n, VA + 16, 0x07);
	tap_errno(submit(fd, other, dw, n, bos, 1, 0, so_other, NULL), 0,
		  "and one on another engine");

	tap_errno(syncobj_wait(fd, so_bad, 10000), 0,
		  "the faulting job's fence signals");
	tap_ok(!syncobj_wait(fd, so_good, 10000) && mem[3] == 0x600d,
	       "the job queued behind it ran again and completed");
	tap_ok(!syncobj_wait(fd, so_other, 10000) && mem[4] == 0x07,
	       "the other engine's job completed");
	tap_ok(mem[1] == 1 && mem[2] == 0,
	       "the faulting job stopped at the fault (0x%x 0x%x)", mem[1],
	       mem[2]);

	ret = ctx_state(fd, bad_ctx, &st);
	tap_ok(!ret && st.state == DRM_TERN_CONTEXT_FAULTED &&
	       st.reason == DRM_TERN_REASON_FAULT,
	       "GET_STATE: faulted (state %u reason %u)", st.state, st.reason);
	tap_ok(st.fault_kind == 1 && st.fault_addr == VA_BAD &&
	       st.fault_offset == 6 && st.fault_seqno == 1,
	       "not present at 0x%llx, packet at dword %u, job %u",
	       (unsigned long long)st.fault_addr, st.fault_offset,
	       st.fault_seqno);
	n = 0;
	pkt_write_imm(dw, &n, VA + 20, 1);
	tap_errno(submit(fd, bad_ctx, dw, n, bos, 1, 0, 0, NULL), -EIO,
		  "the faulted context refuses more work");

	ret = ctx_state(fd, good_ctx, &st);
	tap_ok(!ret && st.state == DRM_TERN_CONTEXT_ACTIVE && !st.fault_kind &&
	       st.jobs_completed == 1,
	       "the context behind it is untouched (state %u)", st.state);
	ret = ctx_state(fd, other, &st);
	tap_ok(!ret && st.state == DRM_TERN_CONTEXT_ACTIVE,
	       "the context on the other engine too");
	drmSyncobjReset(fd, &so_good, 1);
	tap_ok(!submit(fd, good_ctx, dw, n, bos, 1, 0, so_good, NULL) &&
	       !syncobj_wait(fd, so_good, 5000) && mem[5] == 1,
	       "and the engine still runs its work");

	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "another process's jobs all completed (exit %d)",
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);

	tap_ok(core_find_coredump("tern devcoredump: fault"),
	       "a devcoredump describes the fault");

	close(fd);
	return tap_exit_status();
}
