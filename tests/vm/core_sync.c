// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_sync: syncobj in-fences hold a job back until they signal (binary
 * and timeline), out-fences signal binary syncobjs and timeline points
 * after the job, waits with timeouts time out while the job cannot run, and
 * the jobs of one context complete in order.
 *
 * tern-vm: timeout=120
 */
#include "core_test.h"

#define VA	0x100000ull

static int submit_syncs(int fd, uint32_t ctx, const uint32_t *dw, uint32_t n,
			uint32_t bo, struct drm_tern_sync *in, uint32_t nin,
			struct drm_tern_sync *out, uint32_t nout)
{
	struct drm_tern_submit s = {
		.context = ctx, .cmdbuf = (uintptr_t)dw, .cmdbuf_size = n * 4,
		.bo_handles = (uintptr_t)&bo, .bo_count = 1,
		.in_syncs = (uintptr_t)in, .in_sync_count = nin,
		.out_syncs = (uintptr_t)out, .out_sync_count = nout,
	};

	return mem_ioctl(fd, DRM_IOCTL_TERN_SUBMIT, &s);
}

int main(void)
{
	struct drm_tern_sync in, out[2];
	uint32_t dw[64], n, ctx = 0, ctx2 = 0, bo = 0, gate, done, tl, i;
	volatile uint32_t *mem;
	uint64_t point;
	int64_t t0;
	bool order_ok;
	int fd, ret;

	tap_plan(14);
	fd = tern_test_open();
	if (!tap_ok(fd >= 0, "open the device") ||
	    ctx_create(fd, 1, 0, 0, &ctx) || ctx_create(fd, 1, 0, 0, &ctx2) ||
	    core_bo(fd, 4096, VA, &bo, (void **)&mem))
		return tap_exit_status();
	memset((void *)mem, 0, 4096);
	gate = syncobj_new(fd);
	done = syncobj_new(fd);
	tl = 0;
	drmSyncobjCreate(fd, 0, &tl);

	/* give the gate a fence that is not signalled: a job on ctx2 that waits on memory */
	n = 0;
	dw[n++] = TERN_PKT_HEADER(TERN_OP_WAIT_MEM, TERN_PKT_DWORDS_WAIT_MEM);
	dw[n++] = (uint32_t)(VA + 64);
	dw[n++] = 0;
	dw[n++] = 1;
	dw[n++] = 5000000;
	out[0] = (struct drm_tern_sync){ .handle = gate };
	tap_errno(submit_syncs(fd, ctx2, dw, n, bo, NULL, 0, out, 1), 0,
		  "a job waiting on memory gives the gate a pending fence");

	n = 0;
	pkt_write_imm(dw, &n, VA, 0x11);
	in = (struct drm_tern_sync){ .handle = gate };
	out[0] = (struct drm_tern_sync){ .handle = done };
	point = 5;
	out[1] = (struct drm_tern_sync){ .handle = tl, .point = point };
	tap_errno(submit_syncs(fd, ctx, dw, n, bo, &in, 1, out, 2), 0,
		  "submit a job gated on it, out to a binary and a timeline point");
	t0 = now_ns();
	ret = syncobj_wait(fd, done, 300);
	tap_ok(ret == -ETIME && now_ns() - t0 >= 290000000ll,
	       "waiting for the gated job times out after 300 ms (%s)",
	       strerror(-ret));
	tap_ok(mem[0] == 0, "and it did not run");
	ret = drmSyncobjTimelineWait(fd, &tl, &point, 1, now_ns() + 100000000,
				     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
	tap_ok(ret && errno == ETIME, "the timeline point is not reached either");

	/* open the gate: the memory the WAIT_MEM polls */
	mem[16] = 1;
	tap_errno(syncobj_wait(fd, gate, 5000), 0, "the gate job finishes");
	tap_errno(syncobj_wait(fd, done, 5000), 0, "then the gated job");
	tap_ok(mem[0] == 0x11, "which wrote its value");
	ret = drmSyncobjTimelineWait(fd, &tl, &point, 1, now_ns() + 1000000000,
				     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
	tap_ok(!ret, "the timeline reached point 5");

	/* a timeline in-fence */
	n = 0;
	pkt_write_imm(dw, &n, VA + 4, 0x22);
	in = (struct drm_tern_sync){ .handle = tl, .point = 5 };
	drmSyncobjReset(fd, &done, 1);
	out[0] = (struct drm_tern_sync){ .handle = done };
	tap_errno(submit_syncs(fd, ctx, dw, n, bo, &in, 1, out, 1), 0,
		  "a job waiting on timeline point 5");
	tap_ok(!syncobj_wait(fd, done, 5000) && mem[1] == 0x22, "ran");
	in = (struct drm_tern_sync){ .handle = tl, .point = 9 };
	tap_errno(submit_syncs(fd, ctx, dw, n, bo, &in, 1, NULL, 0), -ENOENT,
		  "waiting on a timeline point that has no fence: ENOENT");

	/* in-order completion in one context: each job overwrites the last */
	for (i = 0; i < 40; i++) {
		n = 0;
		pkt_spin(dw, &n, 50);
		pkt_write_imm(dw, &n, VA + 8, i);
		pkt_write_imm(dw, &n, VA + 256 + 4 * i, i + 1);
		drmSyncobjReset(fd, &done, 1);
		out[0] = (struct drm_tern_sync){ .handle = done };
		if (submit_syncs(fd, ctx, dw, n, bo, NULL, 0, out, 1))
			break;
	}
	order_ok = !syncobj_wait(fd, done, 10000) && mem[2] == 39;
	for (i = 0; i < 40; i++)
		order_ok &= mem[64 + i] == i + 1;
	tap_ok(i == 40 && order_ok,
	       "40 jobs of a context complete in submission order (last %u)",
	       mem[2]);

	close(fd);
	return tap_exit_status();
}
