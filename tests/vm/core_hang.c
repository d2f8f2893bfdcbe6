// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_hang: a job that stops making progress (injected hang) is detected
 * after its context's timeout, the engine is reset, the guilty context is
 * banned (EIO on submit), the innocent job queued behind it runs again and
 * completes, its context is marked RESET but stays usable, and the engine
 * works afterwards.  A long job that keeps progressing is not killed even
 * though it runs far longer than its context's timeout.
 *
 * tern-vm: timeout=120
 */
#include "core_test.h"

#define VA	0x100000ull

int main(void)
{
	struct drm_tern_context_get_state st;
	uint32_t dw[64], n, g = 0, inno = 0, slow = 0, fresh = 0, bo = 0;
	uint32_t so_g, so_i, so_s;
	volatile uint32_t *mem;
	int64_t t0, dt;
	int fd, ret;

	tap_plan(16);
	fd = tern_test_open();
	if (!tap_ok(fd >= 0, "open the device") ||
	    ctx_create_on(fd, 300, 0, &g) || ctx_create_on(fd, 0, 0, &inno) ||
	    ctx_create_on(fd, 100, 1, &slow) ||
	    core_bo(fd, 4096, VA, &bo, (void **)&mem))
		return tap_exit_status();
	memset((void *)mem, 0, 4096);
	core_drain_coredumps();
	so_g = syncobj_new(fd);
	so_i = syncobj_new(fd);
	so_s = syncobj_new(fd);

	/* 1.5 s of SPIN with a 100 ms timeout on engine 1: it progresses */
	n = 0;
	pkt_spin(dw, &n, 1500000);
	pkt_write_imm(dw, &n, VA + 32, 0x5105);
	tap_errno(submit(fd, slow, dw, n, &bo, 1, 0, so_s, NULL), 0,
		  "submit 1.5 s of work on a context with a 100 ms timeout");

	tap_ok(core_inject(0, 1), "arm a hang on engine 0");
	n = 0;
	pkt_spin(dw, &n, 1000);
	pkt_write_imm(dw, &n, VA, 0xbad);
	t0 = now_ns();
	tap_errno(submit(fd, g, dw, n, &bo, 1, 0, so_g, NULL), 0,
		  "submit a job that will hang (timeout 300 ms)");
	n = 0;
	pkt_write_imm(dw, &n, VA + 4, 0x600d);
	tap_errno(submit(fd, inno, dw, n, &bo, 1, 0, so_i, NULL), 0,
		  "submit an innocent job behind it");

	ret = syncobj_wait(fd, so_i, 10000);
	dt = now_ns() - t0;
	tap_ok(!ret && mem[1] == 0x600d,
	       "the innocent job completes after the reset (%lld ms)",
	       (long long)(dt / 1000000));
	tap_ok(dt >= 300000000ll && dt < 5000000000ll,
	       "the hang was detected after the timeout, not before (%lld ms)",
	       (long long)(dt / 1000000));
	tap_errno(syncobj_wait(fd, so_g, 1000), 0,
		  "the hung job's fence signalled");

	ret = ctx_state(fd, g, &st);
	tap_ok(!ret && st.state == DRM_TERN_CONTEXT_BANNED &&
	       st.reason == DRM_TERN_REASON_HANG && st.reset_count == 1 &&
	       st.fault_seqno == 1,
	       "the guilty context is banned for a hang (state %u reason %u resets %u)",
	       st.state, st.reason, st.reset_count);
	n = 0;
	pkt_write_imm(dw, &n, VA + 8, 1);
	tap_errno(submit(fd, g, dw, n, &bo, 1, 0, 0, NULL), -EIO,
		  "and refuses more work");
	ret = ctx_state(fd, inno, &st);
	tap_ok(!ret && st.state == DRM_TERN_CONTEXT_RESET &&
	       st.reason == DRM_TERN_REASON_INNOCENT_RESET &&
	       st.reset_count == 1 && st.jobs_completed == 1,
	       "the innocent context says it was reset (state %u reason %u)",
	       st.state, st.reason);
	drmSyncobjReset(fd, &so_i, 1);
	n = 0;
	pkt_write_imm(dw, &n, VA + 12, 0x2);
	tap_ok(!submit(fd, inno, dw, n, &bo, 1, 0, so_i, NULL) &&
	       !syncobj_wait(fd, so_i, 5000) && mem[3] == 2,
	       "and still runs work");
	tap_ok(!ctx_create_on(fd, 0, 0, &fresh) &&
	       !submit(fd, fresh, dw, n, &bo, 1, 0, so_i, NULL) &&
	       !syncobj_wait(fd, so_i, 5000), "engine 0 works after its reset");

	ret = syncobj_wait(fd, so_s, 10000);
	tap_ok(!ret && mem[8] == 0x5105, "the long progressing job completed");
	ret = ctx_state(fd, slow, &st);
	tap_ok(!ret && st.state == DRM_TERN_CONTEXT_ACTIVE && !st.reset_count &&
	       st.busy_ns >= 1500000000ull,
	       "without being reset (state %u, %llu ms of device time)",
	       st.state, (unsigned long long)(st.busy_ns / 1000000));
	{
		static char dump[16384];
		const char *st = NULL;
		unsigned int status = 0;
		bool found = core_read_coredump("tern devcoredump: hang", dump,
						sizeof(dump));

		if (found)
			st = strstr(dump, "\n  0x04: ");
		if (st)
			sscanf(st, "\n  0x04: %x", &status);
		/* ENG_STATUS as the hang left it: running, not the reset's IDLE */
		if (!tap_ok(found && (status & 0xf) != 0,
			    "a devcoredump describes the hang, with the engine's registers before the reset (ENG_STATUS %#x)",
			    status))
			tap_diag("%.700s", dump);
	}

	close(fd);
	return tap_exit_status();
}
