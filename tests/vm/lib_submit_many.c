// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_submit_many: tern_submit_many() queues command buffers in order, each
 * with its own fence and seqno, more than one DRM_IOCTL_TERN_SUBMIT_MANY
 * takes and more than a context holds behind a job that waits (-EAGAIN
 * says how far it got); a job
 * the library or the kernel refuses ends the call there, with the jobs
 * before it queued, the ones after it without a fence, and
 * tern_last_error() naming the job.
 *
 * tern-vm: timeout=120
 */
#include <stdint.h>
#include <tern/tern.h>

#include "tern_test.h"

#define JOBS	300

int main(void)
{
	static struct tern_cmdbuf *cbs[JOBS];
	static struct tern_fence *fences[JOBS];
	struct tern_device *dev;
	struct tern_context *ctx;
	struct tern_bo *bo;
	unsigned int i, n, bad, done, eagain, first_stop = 0;
	struct tern_cmdbuf *gate_cb = NULL;
	struct tern_fence *gate = NULL;
	uint32_t *w, priv = 0x00010080;	/* TLB_INVALIDATE: privileged */
	uint64_t va;
	int ret;

	if (tern_device_open(0, &dev) || tern_context_create(dev, NULL, &ctx) ||
	    tern_bo_alloc(dev, 1 << 20, 0, &bo)) {
		tap_ok(false, "set-up: %s", tern_last_error());
		return tap_exit_status();
	}
	w = tern_bo_map(bo);
	va = tern_bo_va(bo);
	for (i = 0; i < JOBS; i++) {
		if (tern_cmdbuf_create(0, &cbs[i]) ||
		    tern_cmd_write_imm(cbs[i], va + 4ull * i, 100 + i)) {
			tap_ok(false, "command buffer %u: %s", i, tern_last_error());
			return tap_exit_status();
		}
		w[i] = 0;
	}

	/*
	 * More than a context may hold, behind a job that waits for the CPU:
	 * the first call must stop at -EAGAIN; the gate opens, and the rest
	 * goes in once the queue has room.
	 */
	w[1023] = 0;
	if (tern_cmdbuf_create(0, &gate_cb) ||
	    tern_cmd_wait_mem(gate_cb, va + 4 * 1023, 1, 10000000) ||
	    tern_submit(ctx, gate_cb, NULL, 0, &gate)) {
		tap_ok(false, "a gate job: %s", tern_last_error());
		return tap_exit_status();
	}
	done = 0;
	eagain = 0;
	do {
		ret = tern_submit_many(ctx, (const struct tern_cmdbuf *const *)&cbs[done],
				       JOBS - done, &fences[done], &n);
		done += n;
		if (ret != -EAGAIN)
			break;
		if (!eagain++) {
			first_stop = done;
			w[1023] = 1;	/* open the gate */
		}
		if (done)
			tern_fence_wait(fences[done - 1], 20000000000ll);
		else
			tern_fence_wait(gate, 20000000000ll);
	} while (done < JOBS && eagain < 100);
	tap_ok(!ret && done == JOBS && eagain > 0 && first_stop < JOBS,
	       "%u jobs behind a gate, more than a context holds: the first call stops at "
	       "-EAGAIN after %u, %u call(s) in all (%s)", JOBS, first_stop, eagain + 1,
	       ret ? tern_last_error() : "ok");
	tern_fence_free(gate);
	tern_cmdbuf_free(gate_cb);
	bad = 0;
	for (i = 0; i < JOBS; i++) {
		int r = fences[i] ? tern_fence_wait(fences[i], 20000000000ll) : -ENOENT;

		if (r || (i && tern_fence_seqno(fences[i]) != tern_fence_seqno(fences[i - 1]) + 1) ||
		    w[i] != 100 + i) {
			if (bad++ < 4)
				tap_diag("job %u: wait %d, seqno %u after %u, value %u", i, r,
					 tern_fence_seqno(fences[i]),
					 i ? tern_fence_seqno(fences[i - 1]) : 0, w[i]);
		}
	}
	for (i = 0; i < JOBS; i++)
		tern_fence_free(fences[i]);
	tap_ok(!bad, "each has its own fence, consecutive seqnos and its write (%u bad)", bad);

	/* the library refuses job 7 (empty): 0..6 go, 7.. get no fence */
	for (i = 0; i < 10; i++)
		w[i] = 0;
	tern_cmdbuf_reset(cbs[7]);
	ret = tern_submit_many(ctx, (const struct tern_cmdbuf *const *)cbs, 10, fences, &n);
	tap_ok(ret == -EINVAL && n == 7 && fences[6] && !fences[7] && !fences[9] &&
	       strstr(tern_last_error(), "job 7 of 10"),
	       "an empty buffer at 7 of 10: -EINVAL, 7 queued: \"%s\"", tern_last_error());
	bad = 0;
	for (i = 0; i < 7; i++) {
		if (!fences[i] || tern_fence_wait(fences[i], 20000000000ll) || w[i] != 100 + i)
			bad++;
		tern_fence_free(fences[i]);
	}
	tap_ok(!bad && !w[7] && !w[8], "the 7 ran, the rest did not (%u bad)", bad);

	/* the kernel refuses job 3 (a privileged packet) */
	tern_cmdbuf_reset(cbs[3]);
	tern_cmd_raw(cbs[3], &priv, 1);
	w[2] = w[4] = 0;
	ret = tern_submit_many(ctx, (const struct tern_cmdbuf *const *)cbs, 5, NULL, &n);
	tap_ok(ret == -EPERM && n == 3 && strstr(tern_last_error(), "job 3 of 5") &&
	       strstr(tern_last_error(), "dword 0"),
	       "a privileged packet at 3 of 5, no fences asked: -EPERM, 3 queued: \"%s\"",
	       tern_last_error());
	/* a context completes in order: a job after them tells they are done */
	ret = tern_submit_many(ctx, (const struct tern_cmdbuf *const *)&cbs[4], 1, fences, &n);
	if (!ret)
		ret = tern_fence_wait(fences[0], 20000000000ll);
	tern_fence_free(fences[0]);
	tap_ok(!ret && w[2] == 102 && w[4] == 104,
	       "the 3 before it ran; one job alone goes through the same call");

	for (i = 0; i < JOBS; i++)
		tern_cmdbuf_free(cbs[i]);
	tern_bo_free(bo);
	tern_context_destroy(ctx);
	tern_device_close(dev);
	tap_done();
	return tap_exit_status();
}
