// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_limits: a context takes max_jobs_per_context unfinished jobs and
 * refuses the next with EAGAIN (not ENOMEM, not a silent loss); once its
 * jobs finish it takes work again.  The submits use ioctl() directly:
 * drmIoctl() retries EAGAIN in a loop.  The jobs wait behind a gate on
 * another context (struct core_gate), opened once the checks are done.
 * Likewise a file whose unfinished jobs hold max_queued_bytes of command
 * buffers gets EAGAIN.
 *
 * tern-vm: timeout=120
 */
#include "core_test.h"

#define VA	0x100000ull

int main(void)
{
	struct drm_tern_get_info info;
	struct drm_tern_context_get_state st;
	uint32_t dw[64], n, ctx = 0, ctx2 = 0, bo = 0, gate, gate_out, done, i, k;
	volatile uint32_t *mem;
	struct core_gate g;
	int64_t t0;
	char delay_path[PATH_MAX];
	bool have_delay;
	int fd, ret = 0;

	tap_plan(11);
	fd = tern_test_open();
	if (!tap_ok(fd >= 0, "open the device") || core_get_info(fd, &info) ||
	    ctx_create(fd, 1, 0, 0, &ctx) || ctx_create(fd, 1, 0, 0, &ctx2) ||
	    core_bo(fd, 4096, VA, &bo, (void **)&mem))
		return tap_exit_status();
	memset((void *)mem, 0, 4096);
	gate = syncobj_new(fd);
	done = syncobj_new(fd);
	gate_out = syncobj_new(fd);

	/* the gate, on ctx2: its fence pending until it is opened */
	ret = core_gate_init(&g, fd, ctx2, bo, VA + 256, &mem[64], gate);
	if (ret)
		tap_diag("gate submit: %s", strerror(-ret));

	n = 0;
	pkt_write_imm(dw, &n, VA, 1);
	t0 = now_ns();
	for (i = 0; i < info.max_jobs_per_context; i++) {
		core_gate_hold(&g);
		dw[3] = i + 1;
		ret = submit(fd, ctx, dw, n, &bo, 1, i ? 0 : gate,
			     i + 1 == info.max_jobs_per_context ? done : 0,
			     NULL);
		if (ret)
			break;
	}
	tap_diag("%u submissions took %lld ms", i,
		 (long long)((now_ns() - t0) / 1000000));
	tap_ok(i == info.max_jobs_per_context,
	       "%u jobs are accepted behind a pending fence (%s)", i,
	       strerror(-ret));
	tap_errno(submit(fd, ctx, dw, n, &bo, 1, 0, 0, NULL), -EAGAIN,
		  "one more is refused");
	tap_ok(!ctx_state(fd, ctx, &st) &&
	       st.jobs_submitted == info.max_jobs_per_context,
	       "the refused job was not counted");
	if (!tap_ok(mem[0] == 0, "nothing ran yet (%u)", mem[0])) {
		ctx_state(fd, ctx2, &st);
		tap_diag("gate context: state %u kind %u completed %llu",
			 st.state, st.fault_kind,
			 (unsigned long long)st.jobs_completed);
	}

	core_gate_open(&g);
	tap_ok(!syncobj_wait(fd, done, 10000) &&
	       mem[0] == info.max_jobs_per_context,
	       "all of them ran, in order (last value %u)", mem[0]);
	/*
	 * A job stops counting when its fence signals, not when the kernel
	 * gets round to freeing it: right after the wait, a whole queue
	 * again, with no EAGAIN to retry.  Three rounds, the last two with
	 * the kernel's release of finished jobs held back by 200 ms (debugfs
	 * release_delay_us): the third is submitted while the second's jobs
	 * wait to be freed.
	 */
	have_delay = core_debugfs_path("release_delay_us", delay_path,
				       sizeof(delay_path));
	for (k = 0; k < 3; k++) {
		if (k == 1 && have_delay)
			core_write_file(delay_path, "200000");
		drmSyncobjReset(fd, &gate_out, 1);
		n = 0;
		pkt_write_imm(dw, &n, VA + 4, 0);
		for (i = 0; i < info.max_jobs_per_context; i++) {
			dw[3] = 0x990000 + k * 0x1000 + i;
			ret = submit(fd, ctx, dw, n, &bo, 1, 0,
				     i + 1 == info.max_jobs_per_context ? gate_out : 0,
				     NULL);
			if (ret)
				break;
		}
		if (ret || syncobj_wait(fd, gate_out, 10000) ||
		    mem[1] != 0x990000 + k * 0x1000 + i - 1)
			break;
	}
	if (have_delay)
		core_write_file(delay_path, "0");
	if (!have_delay)
		tap_diag("no debugfs release_delay_us: the release was not held back");
	tap_ok(k == 3,
	       "and the context takes %u jobs again as soon as they signalled (round %u: %u taken, %s, last value %#x)",
	       info.max_jobs_per_context, k, i, strerror(-ret), mem[1]);

	/* the bytes of command buffers a file's unfinished jobs hold */
	{
		static uint32_t big[(1 << 20) / 4];
		uint32_t nbig = info.buf_size_max / 4, ctx3 = 0;
		uint64_t held = 0;

		for (k = 0; k < nbig; k += 0xfff0)
			big[k] = TERN_PKT_HEADER(TERN_OP_NOP,
						 nbig - k < 0xfff0 ? nbig - k : 0xfff0);
		long free_kb;

		drmSyncobjReset(fd, &gate, 1);
		core_gate_init(&g, fd, ctx2, bo, VA + 256, &mem[64], gate);
		ctx_create(fd, 1, 0, 0, &ctx3);
		free_kb = meminfo_kb("MemFree");
		for (i = 0; i < 1000; i++) {
			core_gate_hold(&g);
			ret = submit(fd, i % 2 ? ctx3 : ctx, big, nbig, NULL, 0,
				     i < 2 ? gate : 0, 0, NULL);
			if (ret)
				break;
			held += info.buf_size_max;
		}
		tap_ok(ret == -EAGAIN && held <= info.max_queued_bytes &&
		       held + 2 * info.buf_size_max > info.max_queued_bytes,
		       "a file holding %llu MiB of command buffers gets EAGAIN (%s)",
		       (unsigned long long)(held >> 20), strerror(-ret));
		/* the kernel's copies take what is counted, not twice that */
		free_kb -= meminfo_kb("MemFree");
		tap_ok(free_kb < (long)(held * 5 / 4 / 1024),
		       "they take %ld KiB of memory for %llu KiB of buffers",
		       free_kb, (unsigned long long)(held >> 10));
		n = 0;
		pkt_spin(dw, &n, 1);
		tap_ok(!submit(fd, ctx2, dw, n, &bo, 1, 0, 0, NULL),
		       "a small job of another context fits");
		drmSyncobjReset(fd, &done, 1);
		core_gate_open(&g);
		tap_ok(!syncobj_wait(fd, gate, 10000) &&
		       ctx_idle(fd, ctx, 10000) && ctx_idle(fd, ctx3, 10000) &&
		       !submit(fd, ctx, big, nbig, NULL, 0, 0, done, NULL) &&
		       !syncobj_wait(fd, done, 10000),
		       "once they ran, big buffers are taken again");
	}

	close(fd);
	return tap_exit_status();
}
