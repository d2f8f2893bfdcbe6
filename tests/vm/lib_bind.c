// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_bind: device addresses managed by the caller through libtern.
 * Checked here:
 *
 * - tern_va_reserve() ranges are aligned, never overlap the buffers of
 *   tern_bo_alloc() (nor their guard pages) and are refused for size 0 or
 *   an alignment that is not a power of two; tern_va_release() takes only
 *   what was reserved, and not while it is mapped or a bind of it is not
 *   done;
 * - a buffer mapped into a reserved range by a bind that waits for a gated
 *   job: the bind's fence is busy until the gate opens, a job that takes
 *   the fence as a dependency writes through the new address and the CPU
 *   sees it; the fence exports as a sync_file that poll() reports, and
 *   tern_fence_seqno() numbers the binds in order;
 * - a bind that signals a timeline point, and a job that waits for it;
 * - a synchronous bind (no fence) of a buffer's second page;
 * - an asynchronous unmap: the library then refuses a job that uses the
 *   range (-EFAULT), and a job that uses it anyway (untracked dwords)
 *   faults there, as its context's status says;
 * - a bind waiting for a job that faults fails with -EIO, the bind queued
 *   behind it is cancelled (-ECANCELED), tern_vm_state() counts them and
 *   gives the error and the failed bind's seqno, the library's view drops
 *   both mappings, and the next bind works;
 * - bad binds (unknown op, unaligned address, a map without a buffer, no
 *   operation, too many, a range outside the reservations, a map over a
 *   mapping, an unmap of nothing) fail with their errno and a message
 *   naming the operation, and change nothing (queued seqno, bytes mapped,
 *   the library's view);
 * - tern_bo_free() of a buffer still bound: jobs no longer find it, the
 *   range stays in use until unmapped;
 * - cuts and TERN_BIND_REPLACE (driver interface 1.5), in the library's
 *   view as in the device: an unmap of the middle of a mapping without
 *   TERN_BIND_CUT fails with -EINVAL from the kernel (the message names the
 *   operation and the flag) and changes nothing: no bind queued, as much
 *   mapped, and a fill across the range it named is taken by the library
 *   and lands in the buffer; TERN_BIND_CUT on a map, alone or with
 *   TERN_BIND_REPLACE, is -EINVAL before the ioctl; with TERN_BIND_CUT
 *   the unmap of the middle leaves two
 *   pieces, jobs find the buffer in each (their writes land at the right
 *   offsets) and are refused in the hole and across it (-EFAULT); a
 *   REPLACE map over part of a mapping, and over an empty range, sends
 *   the writes there to the new buffer and the rest to the old one; a map
 *   over a mapping without REPLACE is -EEXIST and changes nothing; an
 *   asynchronous unmap of one piece waits for a job that writes through
 *   another piece of the same buffer; a cut and a REPLACE queued behind a
 *   job that faults fail and are cancelled, and the view is as before
 *   them: the cut range is still found, the replaced one not.
 *
 * tern-vm: timeout=120
 */
#include <poll.h>
#include <stdint.h>
#include <tern/tern.h>

#include "tern_test.h"

#define SEC	1000000000ll
#define KB	1024ull
#define MB	(1024ull * 1024)
#define PAGE	4096ull

static struct tern_device *dev;
static struct tern_cmdbuf *cb;

/* Queue a bind of one operation. */
static int bind1(uint32_t op, struct tern_bo *bo, uint64_t bo_offset, uint64_t va,
		 uint64_t range, const struct tern_deps *deps, struct tern_fence **fencep)
{
	struct tern_bind_op o = { .op = op, .bo = bo, .bo_offset = bo_offset, .va = va,
				  .range = range };

	return tern_vm_bind(dev, &o, 1, deps, fencep);
}

/* Queue an unmap with TERN_BIND_CUT. */
static int cut1(uint64_t va, uint64_t range, const struct tern_deps *deps,
		struct tern_fence **fencep)
{
	struct tern_bind_op o = { .op = TERN_BIND_UNMAP, .flags = TERN_BIND_CUT, .va = va,
				  .range = range };

	return tern_vm_bind(dev, &o, 1, deps, fencep);
}

/* A job on @ctx after @dep (or none): WRITE_IMM @value to @va. */
static int write_job(struct tern_context *ctx, uint64_t va, uint32_t value,
		     struct tern_fence *dep, struct tern_fence **fencep)
{
	tern_cmdbuf_reset(cb);
	if (tern_cmd_write_imm(cb, va, value))
		return -EINVAL;
	return tern_submit(ctx, cb, dep ? &dep : NULL, dep ? 1 : 0, fencep);
}

/* A job on @ctx that waits until the u32 at @gate is 1. */
static int gate_job(struct tern_context *ctx, uint64_t gate, struct tern_fence **fencep)
{
	tern_cmdbuf_reset(cb);
	if (tern_cmd_wait_mem(cb, gate, 1, 8000000))
		return -EINVAL;
	return tern_submit(ctx, cb, NULL, 0, fencep);
}

static bool overlap(uint64_t a, uint64_t asize, uint64_t b, uint64_t bsize)
{
	return a < b + bsize && b < a + asize;
}

static struct tern_vm_state state(void)
{
	struct tern_vm_state st;

	if (tern_vm_state(dev, &st))
		tap_diag("tern_vm_state: %s", tern_last_error());
	return st;
}

/* A job on @ctx writing @value at @va, waited for: 0 or its error. */
static int write_wait(struct tern_context *ctx, uint64_t va, uint32_t value)
{
	struct tern_fence *f = NULL;
	int ret = write_job(ctx, va, value, NULL, &f);

	ret = ret ? ret : tern_fence_wait(f, 30 * SEC);
	tern_fence_free(f);
	return ret;
}

/* Cuts and TERN_BIND_REPLACE, through the library's view and on the device. */
static void check_cuts(struct tern_context *ctx, struct tern_context *ctx2,
		       struct tern_bo *gate, volatile uint32_t *wg, struct tern_bo *ro)
{
	struct tern_fence *fg = NULL, *fj = NULL, *fu = NULL, *ff = NULL, *fx = NULL, *fy = NULL;
	struct tern_context *bad = NULL;
	struct tern_bo *a = NULL, *b = NULL;
	volatile uint32_t *wa, *wb;
	struct tern_vm_state st0, st;
	struct tern_bind_op ops[2];
	struct tern_deps d;
	uint64_t r = 0, i;
	int ret;

	if (tern_bo_alloc(dev, 64 * KB, 0, &a) || tern_bo_alloc(dev, 64 * KB, 0, &b) ||
	    tern_context_create(dev, NULL, &bad) || tern_va_reserve(dev, 1 * MB, 0, &r)) {
		tap_ok(false, "cuts: set-up: %s", tern_last_error());
		return;
	}
	wa = tern_bo_map(a);
	wb = tern_bo_map(b);

	/* without TERN_BIND_CUT, an unmap of the middle is refused and changes nothing */
	st0 = state();
	ret = bind1(TERN_BIND_MAP, a, 0, r, 64 * KB, NULL, NULL);
	tap_ok(ret == 0, "map A (64 KiB) at 0x%llx: %s", (unsigned long long)r,
	       ret ? tern_last_error() : "ok");
	st0 = state();
	ret = bind1(TERN_BIND_UNMAP, NULL, 0, r + 16 * KB, 16 * KB, NULL, &fx);
	tap_ok(ret == -EINVAL && !fx && strstr(tern_last_error(), "operation 0 (unmap of") &&
	       strstr(tern_last_error(), "TERN_BIND_CUT"),
	       "an unmap of its middle 16 KiB without TERN_BIND_CUT: -EINVAL from the kernel, "
	       "\"%s\"", tern_last_error());
	ops[0] = (struct tern_bind_op){ .op = TERN_BIND_MAP, .bo = a, .va = r + 64 * KB,
					.range = 4 * KB };
	ops[1] = (struct tern_bind_op){ .op = TERN_BIND_UNMAP, .va = r + 60 * KB,
					.range = 8 * KB };
	ret = tern_vm_bind(dev, ops, 2, NULL, NULL);
	tap_ok(ret == -EINVAL && strstr(tern_last_error(), "operation 1 (unmap of"),
	       "a map and an unmap across A's end and that map, without it: -EINVAL, \"%s\"",
	       tern_last_error());
	st = state();
	tap_ok(st.queued == st0.queued && st.mapped == st0.mapped,
	       "neither queued a bind (queued %llu, %llu before) nor changed what is mapped",
	       (unsigned long long)st.queued, (unsigned long long)st0.queued);
	tern_cmdbuf_reset(cb);
	tern_cmd_fill(cb, r + 12 * KB, 24 * KB, 0x5a5a5a5a);
	ret = tern_submit(ctx, cb, NULL, 0, &fj);
	ret = ret ? ret : tern_fence_wait(fj, 30 * SEC);
	tap_ok(ret == 0 && wa[12 * KB / 4] == 0x5a5a5a5a && wa[24 * KB / 4] == 0x5a5a5a5a &&
	       wa[(36 * KB - 4) / 4] == 0x5a5a5a5a && wa[36 * KB / 4] == 0,
	       "A is whole in the view and in the device: a fill of 12-36 KiB, across the range "
	       "the unmap named, is taken and lands in A: %s", ret ? tern_last_error() : "ok");
	tern_fence_free(fj);
	fj = NULL;
	ret = write_wait(ctx, r + 64 * KB - 4, 0xc000);
	tap_ok(ret == 0 && wa[(64 * KB - 4) / 4] == 0xc000,
	       "and up to its last word: %s", ret ? tern_last_error() : "ok");
	ret = write_job(ctx, r + 64 * KB, 1, NULL, NULL);
	tap_ok(ret == -EFAULT, "the refused bind's map is not in the view (%s)", strerror(-ret));
	for (i = 12 * KB / 4; i < 36 * KB / 4; i++)
		wa[i] = 0;
	wa[(64 * KB - 4) / 4] = 0;
	ops[0] = (struct tern_bind_op){ .op = TERN_BIND_MAP, .flags = TERN_BIND_CUT, .bo = b,
					.va = r + 128 * KB, .range = 4 * KB };
	ret = tern_vm_bind(dev, ops, 1, NULL, &fx);
	tap_ok(ret == -EINVAL && !fx && strstr(tern_last_error(), "flags 0x4 that a map"),
	       "TERN_BIND_CUT on a map: -EINVAL before the ioctl, \"%s\"", tern_last_error());
	ops[0].flags = TERN_BIND_CUT | TERN_BIND_REPLACE;
	ops[0].va = r;
	ret = tern_vm_bind(dev, ops, 1, NULL, &fx);
	tap_ok(ret == -EINVAL && !fx && strstr(tern_last_error(), "flags 0x6 that a map"),
	       "with TERN_BIND_REPLACE too: -EINVAL, \"%s\"", tern_last_error());

	/* with it, a cut in the middle: two pieces */
	st0 = state();
	ret = cut1(r + 16 * KB, 16 * KB, NULL, NULL);
	st = state();
	tap_ok(ret == 0 && st.mapped == st0.mapped - 16 * KB,
	       "unmap A's middle 16 KiB at 0x%llx with TERN_BIND_CUT: %s (%llu bytes mapped "
	       "less)", (unsigned long long)(r + 16 * KB), ret ? tern_last_error() : "ok",
	       (unsigned long long)(st0.mapped - st.mapped));
	ret = write_wait(ctx, r + 4, 0xc001);
	tap_ok(ret == 0 && wa[1] == 0xc001, "a job writes through the head piece into A at "
	       "offset 4: %s (0x%x)", ret ? tern_last_error() : "ok", wa[1]);
	ret = write_wait(ctx, r + 40 * KB + 8, 0xc002);
	tap_ok(ret == 0 && wa[(40 * KB + 8) / 4] == 0xc002,
	       "a job writes through the tail piece into A at offset 40 KiB + 8: %s (0x%x)",
	       ret ? tern_last_error() : "ok", wa[(40 * KB + 8) / 4]);
	ret = write_job(ctx, r + 20 * KB, 1, NULL, NULL);
	tap_ok(ret == -EFAULT && strstr(tern_last_error(), "not inside one buffer"),
	       "the library refuses a job in the hole: -EFAULT, \"%s\"", tern_last_error());
	tern_cmdbuf_reset(cb);
	tern_cmd_fill(cb, r + 12 * KB, 24 * KB, 7);
	ret = tern_submit(ctx, cb, NULL, 0, NULL);
	tap_ok(ret == -EFAULT, "and a fill across the hole, from the head to the tail: %s",
	       strerror(-ret));

	/* REPLACE over part of the tail, then over the empty hole */
	ops[0] = (struct tern_bind_op){ .op = TERN_BIND_MAP, .flags = TERN_BIND_REPLACE, .bo = b,
					.bo_offset = 8 * KB, .va = r + 40 * KB, .range = 8 * KB };
	ret = tern_vm_bind(dev, ops, 1, NULL, NULL);
	tap_ok(ret == 0, "a REPLACE map of B (offset 8 KiB) over 40-48 KiB of the tail: %s",
	       ret ? tern_last_error() : "done");
	ret = write_wait(ctx, r + 44 * KB + 4, 0xc003);
	tap_ok(ret == 0 && wb[(12 * KB + 4) / 4] == 0xc003 && wa[(44 * KB + 4) / 4] == 0,
	       "a write there lands in B at offset 12 KiB + 4, not in A: %s (0x%x, 0x%x)",
	       ret ? tern_last_error() : "ok", wb[(12 * KB + 4) / 4], wa[(44 * KB + 4) / 4]);
	ret = write_wait(ctx, r + 56 * KB, 0xc004);
	ret = ret ? ret : write_wait(ctx, r + 36 * KB, 0xc005);
	tap_ok(ret == 0 && wa[56 * KB / 4] == 0xc004 && wa[36 * KB / 4] == 0xc005,
	       "the rest of the tail on both sides is still A, at its offsets: %s",
	       ret ? tern_last_error() : "ok");
	tern_cmdbuf_reset(cb);
	tern_cmd_fill(cb, r + 36 * KB, 8 * KB, 7);
	ret = tern_submit(ctx, cb, NULL, 0, NULL);
	tap_ok(ret == -EFAULT, "a fill across A's piece and B's is refused: %s", strerror(-ret));
	ops[0] = (struct tern_bind_op){ .op = TERN_BIND_MAP, .flags = TERN_BIND_REPLACE, .bo = b,
					.va = r + 16 * KB, .range = 16 * KB };
	ret = tern_vm_bind(dev, ops, 1, NULL, NULL);
	ret = ret ? ret : write_wait(ctx, r + 20 * KB, 0xc006);
	tap_ok(ret == 0 && wb[1024] == 0xc006, "a REPLACE map of B over the empty hole: a write "
	       "at 20 KiB lands in B at 4 KiB: %s", ret ? tern_last_error() : "ok");
	ops[0] = (struct tern_bind_op){ .op = TERN_BIND_MAP, .bo = a, .va = r + 16 * KB,
					.range = 4 * KB };
	ret = tern_vm_bind(dev, ops, 1, NULL, NULL);
	tap_ok(ret == -EEXIST && strstr(tern_last_error(), "operation 0 (map of"),
	       "the same map of A there without REPLACE: -EEXIST, \"%s\"", tern_last_error());
	ret = write_wait(ctx, r + 16 * KB + 8, 0xc007);
	tap_ok(ret == 0 && wb[2] == 0xc007 && wa[16 * KB / 4 + 2] == 0,
	       "and changes nothing: B is still there: %s", ret ? tern_last_error() : "ok");

	/* an unmap of one piece waits for a job on another piece of the same buffer */
	wg[3] = 0;
	ret = gate_job(ctx2, tern_bo_va(gate) + 12, &fg);
	tern_cmdbuf_reset(cb);
	tern_cmd_write_imm(cb, r + 60 * KB, 0xc008);
	ret = ret ? ret : tern_submit(ctx2, cb, NULL, 0, &fj);
	ret = ret ? ret : bind1(TERN_BIND_UNMAP, NULL, 0, r, 16 * KB, NULL, &fu);
	tap_ok(ret == 0, "a gated job writes through A's last piece, an unmap of A's first "
	       "piece is queued: %s", ret ? tern_last_error() : "ok");
	ret = fu ? tern_fence_wait(fu, 300000000) : -1;
	tap_ok(ret == -ETIME, "the unmap waits for the job, which uses A (%d)", ret);
	wg[3] = 1;
	ret = fu ? tern_fence_wait(fu, 30 * SEC) : -1;
	tap_ok(ret == 0 && fj && tern_fence_wait(fj, 0) == 0 && wa[60 * KB / 4] == 0xc008,
	       "the gate opens: the job wrote A at 60 KiB, then the unmap ran: %s",
	       ret ? tern_last_error() : "ok");
	ret = write_job(ctx, r + 4, 1, NULL, NULL);
	tap_ok(ret == -EFAULT, "the first piece is gone from the view (%s)", strerror(-ret));
	tern_fence_free(fg);
	tern_fence_free(fj);
	tern_fence_free(fu);

	/*
	 * A cut and a REPLACE behind a job that faults: they fail, and the
	 * view is as before them.  Now: 16-32 KiB B, 32-40 A, 40-48 B, 48-64 A.
	 */
	st0 = state();
	wg[4] = 0;
	tern_cmdbuf_reset(cb);
	tern_cmd_wait_mem(cb, tern_bo_va(gate) + 16, 1, 8000000);
	tern_cmd_write_imm(cb, tern_bo_va(ro), 1);
	ret = tern_submit(bad, cb, NULL, 0, &ff);
	d = (struct tern_deps){ .fences = &ff, .fence_count = 1 };
	ret = ret ? ret : cut1(r + 52 * KB, 4 * KB, &d, &fx);
	ops[0] = (struct tern_bind_op){ .op = TERN_BIND_MAP, .flags = TERN_BIND_REPLACE, .bo = b,
					.va = r, .range = 8 * KB };
	ops[1] = (struct tern_bind_op){ .op = TERN_BIND_MAP, .flags = TERN_BIND_REPLACE, .bo = b,
					.bo_offset = 16 * KB, .va = r + 32 * KB, .range = 4 * KB };
	ret = ret ? ret : tern_vm_bind(dev, ops, 2, NULL, &fy);
	tap_ok(ret == 0, "a cut of A's last piece behind a job that will fault, then two "
	       "REPLACE maps: %s", ret ? tern_last_error() : "queued");
	ret = write_job(ctx, r + 52 * KB, 1, NULL, NULL);
	tap_ok(ret == -EFAULT, "while they wait, the cut range is out of the view (%s)",
	       strerror(-ret));
	wg[4] = 1;
	ret = fx ? tern_fence_wait(fx, 30 * SEC) : -1;
	tap_ok(ret == -EIO, "the cut fails with the job's error (%d)", ret);
	ret = fy ? tern_fence_wait(fy, 30 * SEC) : -1;
	tap_ok(ret == -ECANCELED, "the REPLACE maps behind it are cancelled (%d)", ret);
	st = state();
	tap_ok(st.mapped == st0.mapped && st.binds_failed == st0.binds_failed + 1 &&
	       st.binds_cancelled == st0.binds_cancelled + 1,
	       "tern_vm_state: 1 failed, 1 cancelled, as much mapped as before");
	ret = write_wait(ctx, r + 52 * KB + 4, 0xc009);
	tap_ok(ret == 0 && wa[(52 * KB + 4) / 4] == 0xc009,
	       "the view has A's last piece whole again: a job writes A at 52 KiB + 4: %s",
	       ret ? tern_last_error() : "ok");
	ret = write_wait(ctx, r + 32 * KB + 4, 0xc00a);
	tap_ok(ret == 0 && wa[(32 * KB + 4) / 4] == 0xc00a && wb[(16 * KB + 4) / 4] == 0,
	       "and A, not B, at 32 KiB: %s", ret ? tern_last_error() : "ok");
	ret = write_job(ctx, r + 4, 1, NULL, NULL);
	tap_ok(ret == -EFAULT, "the cancelled REPLACE over the empty range is not in the view "
	       "(%s)", strerror(-ret));
	tern_fence_free(fx);
	tern_fence_free(fy);
	tern_fence_free(ff);

	/* the pieces go with one unmap (TERN_BIND_CUT changes nothing), and the range */
	ret = cut1(r, 64 * KB, NULL, NULL);
	st = state();
	tap_ok(ret == 0 && st.mapped == st0.mapped - 48 * KB &&
	       tern_va_release(dev, r, 1 * MB) == 0,
	       "one unmap with TERN_BIND_CUT of the range removes the four pieces, whole inside "
	       "it, as one without it would; the range is released: %s",
	       ret ? tern_last_error() : "ok");
	tern_context_destroy(bad);
	tern_bo_free(b);
	tern_bo_free(a);
}

int main(void)
{
	struct tern_context *ctx, *ctx2, *victim, *faulty;
	struct tern_fence *fg = NULL, *fb1 = NULL, *fb2 = NULL, *fj = NULL, *fu = NULL;
	struct tern_fence *ff = NULL, *fx = NULL, *fy = NULL;
	struct tern_bo *a, *b, *gate, *ro, *lost, *near;
	struct tern_context_status cst;
	struct tern_timeline_point pt;
	struct tern_vm_state st0, st;
	struct tern_timeline *tl;
	struct tern_bind_op ops[TERN_BIND_MAX_OPS + 1];
	struct tern_cmdbuf *tmp, *raw;
	struct tern_deps d;
	struct pollfd pfd;
	volatile uint32_t *wa, *wb, *wg;
	uint64_t r, r2, r3, point;
	const uint32_t *dw;
	char msg[512];
	size_t ndw;
	int ret, fd;

	if (tern_device_open(0, &dev) || tern_context_create(dev, NULL, &ctx) ||
	    tern_context_create(dev, NULL, &ctx2) || tern_context_create(dev, NULL, &victim) ||
	    tern_context_create(dev, NULL, &faulty) || tern_bo_alloc(dev, 64 * KB, 0, &a) ||
	    tern_bo_alloc(dev, 64 * KB, 0, &b) || tern_bo_alloc(dev, 4 * KB, 0, &gate) ||
	    tern_bo_alloc(dev, 4 * KB, TERN_BO_DEVICE_READ_ONLY, &ro) ||
	    tern_bo_alloc(dev, 4 * KB, 0, &lost) || tern_cmdbuf_create(0, &cb) ||
	    tern_cmdbuf_create(0, &tmp) || tern_cmdbuf_create(0, &raw) ||
	    tern_timeline_create(dev, &tl)) {
		tap_ok(false, "set-up: %s", tern_last_error());
		return tap_exit_status();
	}
	wa = tern_bo_map(a);
	wb = tern_bo_map(b);
	wg = tern_bo_map(gate);

	/* reservations */
	ret = tern_va_reserve(dev, 1 * MB, 2 * MB, &r);
	tap_ok(ret == 0 && r && !(r & (2 * MB - 1)), "reserve 1 MiB aligned to 2 MiB (0x%llx)",
	       (unsigned long long)r);
	ret = tern_va_reserve(dev, 10 * KB, 0, &r2);
	tap_ok(ret == 0 && r2 && !(r2 & (PAGE - 1)), "reserve 10 KiB (0x%llx)",
	       (unsigned long long)r2);
	ret = tern_bo_alloc(dev, 8 * KB, 0, &near);
	tap_ok(ret == 0, "a buffer allocated after them");
	if (ret || !r || !r2)
		return tap_exit_status();
	{
		struct tern_bo *bos[] = { a, b, gate, ro, lost, near };
		bool apart = !overlap(r, 1 * MB + PAGE, r2, 12 * KB + PAGE);
		size_t i;

		/* with the guard page after each buffer */
		for (i = 0; i < sizeof(bos) / sizeof(bos[0]); i++)
			apart &= !overlap(tern_bo_va(bos[i]), tern_bo_size(bos[i]) + PAGE,
					  r, 1 * MB) &&
				 !overlap(tern_bo_va(bos[i]), tern_bo_size(bos[i]) + PAGE,
					  r2, 12 * KB);
		tap_ok(apart, "the reservations overlap no buffer or guard page (near 0x%llx)",
		       (unsigned long long)tern_bo_va(near));
	}
	ret = tern_va_reserve(dev, 0, 0, &r3);
	tap_ok(ret == -EINVAL && strstr(tern_last_error(), "size 0"),
	       "reserving 0 bytes: -EINVAL, \"%s\"", tern_last_error());
	ret = tern_va_reserve(dev, PAGE, 3 * PAGE, &r3);
	tap_ok(ret == -EINVAL && strstr(tern_last_error(), "power of two"),
	       "an alignment of 3 pages: -EINVAL, \"%s\"", tern_last_error());
	ret = tern_va_release(dev, r2 + PAGE, PAGE);
	tap_ok(ret == -EINVAL && strstr(tern_last_error(), "tern_va_reserve"),
	       "releasing a part of a range: -EINVAL, \"%s\"", tern_last_error());
	ret = tern_va_release(dev, r2, 10 * KB);
	tap_ok(ret == 0, "release the 10 KiB range (as reserved, unrounded)");
	ret = tern_va_reserve(dev, 4 * MB, 0, &r3);
	tap_ok(ret == 0, "reserve 4 MiB more");

	st0 = state();
	tap_ok(st0.error == 0 && st0.queued >= 6 && st0.binds_failed == 0 &&
	       st0.mapped >= 6 * 4 * KB,
	       "tern_vm_state: the buffers' %llu binds, %llu bytes mapped",
	       (unsigned long long)st0.queued, (unsigned long long)st0.mapped);

	/* a map behind a gated job; a job after the map */
	wg[0] = wg[1] = wg[2] = 0;
	ret = gate_job(ctx, tern_bo_va(gate), &fg);
	d = (struct tern_deps){ .fences = &fg, .fence_count = 1 };
	ret = ret ? ret : bind1(TERN_BIND_MAP, a, 0, r, 64 * KB, &d, &fb1);
	tap_ok(ret == 0 && fb1 && tern_fence_seqno(fb1) == st0.queued + 1,
	       "a map of A at the reservation, after a gated job, is queued (seqno %u): %s",
	       fb1 ? tern_fence_seqno(fb1) : 0, ret ? tern_last_error() : "ok");
	if (ret)
		return tap_exit_status();
	ret = write_job(ctx2, r + 0x10, 0x1111, fb1, &fj);
	tap_ok(ret == 0, "a job on another context writes through the new address, after "
	       "the bind: %s", ret ? tern_last_error() : "queued");
	ret = tern_fence_wait(fb1, 30000000);
	tap_ok(ret == -ETIME && strstr(tern_last_error(), "bind"),
	       "the bind waits for the gate: -ETIME, \"%s\"", tern_last_error());
	tap_ok(fj && tern_fence_status(fj) == -EBUSY && wa[4] == 0, "the job waits for it");
	fd = -1;
	ret = tern_fence_export_sync_file(fb1, &fd);
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	tap_ok(ret == 0 && poll(&pfd, 1, 0) == 0, "the bind's fence as a sync_file, not ready");
	wg[0] = 1;
	ret = fj ? tern_fence_wait(fj, 30 * SEC) : -1;
	tap_ok(ret == 0 && wa[4] == 0x1111, "the gate opens: the job wrote A through the "
	       "bound address (0x%x)", wa[4]);
	tap_ok(tern_fence_status(fb1) == 0 && tern_fence_wait(fg, 0) == 0,
	       "the bind's fence signalled without error");
	tap_ok(fd >= 0 && poll(&pfd, 1, 10000) == 1 && (pfd.revents & POLLIN),
	       "and its sync_file is readable");
	if (fd >= 0)
		close(fd);
	tern_fence_free(fj);
	tern_fence_free(fg);
	fj = fg = NULL;

	/* a bind signals a timeline point a job waits for */
	ret = gate_job(ctx, tern_bo_va(gate) + 4, &fg);
	pt = (struct tern_timeline_point){ tl, 1 };
	d = (struct tern_deps){ .fences = &fg, .fence_count = 1, .signals = &pt,
				.signal_count = 1 };
	ret = ret ? ret : bind1(TERN_BIND_MAP, b, 0, r + 64 * KB, 64 * KB, &d, &fb2);
	tap_ok(ret == 0 && tern_fence_seqno(fb2) == tern_fence_seqno(fb1) + 1,
	       "a map of B signals timeline point 1 (seqno %u): %s",
	       fb2 ? tern_fence_seqno(fb2) : 0, ret ? tern_last_error() : "ok");
	d = (struct tern_deps){ .waits = &pt, .wait_count = 1 };
	tern_cmdbuf_reset(cb);
	tern_cmd_write_imm(cb, r + 64 * KB + 0x20, 0x2222);
	ret = tern_submit_deps(ctx2, cb, &d, &fj);
	tap_ok(ret == 0, "a job waits for point 1 and writes through B's address: %s",
	       ret ? tern_last_error() : "queued");
	ret = fj ? tern_fence_wait(fj, 30000000) : -1;
	tap_ok(ret == -ETIME && !tern_timeline_query(tl, &point, NULL) && point == 0 &&
	       wb[8] == 0, "it waits for the bind, which waits for the gate");
	wg[1] = 1;
	ret = fj ? tern_fence_wait(fj, 30 * SEC) : -1;
	tap_ok(ret == 0 && wb[8] == 0x2222 && tern_timeline_wait(tl, 1, 0) == 0 &&
	       tern_fence_wait(fb2, 0) == 0, "the gate opens: the bind signalled point 1 and "
	       "the job wrote B (0x%x)", wb[8]);
	tern_fence_free(fj);
	tern_fence_free(fg);
	fj = fg = NULL;

	/* synchronous: A's second page at r + 256 KiB */
	ret = bind1(TERN_BIND_MAP, a, PAGE, r + 256 * KB, PAGE, NULL, NULL);
	st = state();
	tap_ok(ret == 0 && st.queued == tern_fence_seqno(fb2) + 1,
	       "a bind without a fence returns once done: %s",
	       ret ? tern_last_error() : "done");
	ret = write_job(ctx, r + 256 * KB + 8, 0x3333, NULL, &fj);
	ret = ret ? ret : tern_fence_wait(fj, 30 * SEC);
	tap_ok(ret == 0 && wa[1024 + 2] == 0x3333, "a job writes there: A's second page "
	       "(0x%x)", wa[1024 + 2]);
	tern_fence_free(fj);
	fj = NULL;

	/* unmap A at r: the library refuses the range, a job using it anyway faults */
	ret = bind1(TERN_BIND_UNMAP, NULL, 0, r, 64 * KB, NULL, &fu);
	tap_ok(ret == 0 && fu, "an asynchronous unmap of A's mapping: %s",
	       ret ? tern_last_error() : "queued");
	ret = write_job(ctx, r + 0x30, 0x4444, NULL, NULL);
	tap_ok(ret == -EFAULT && strstr(tern_last_error(), "tern_vm_bind"),
	       "the library refuses a job that uses it: -EFAULT, \"%s\"", tern_last_error());
	tern_cmdbuf_reset(tmp);
	tern_cmd_write_imm(tmp, r + 0x30, 0x4444);
	dw = tern_cmdbuf_data(tmp, &ndw);
	tern_cmdbuf_reset(raw);
	tern_cmd_raw(raw, dw, ndw);
	ret = tern_submit(victim, raw, &fu, 1, &fj);
	tap_ok(ret == 0, "a job writes there anyway (untracked dwords), after the unmap: %s",
	       ret ? tern_last_error() : "queued");
	ret = fj ? tern_fence_wait(fj, 30 * SEC) : -1;
	snprintf(msg, sizeof(msg), "%s", tern_last_error());
	tap_ok(ret == -EIO && strstr(msg, "faulted") && tern_fence_wait(fu, 0) == 0 &&
	       wa[12] == 0, "it faults: -EIO, \"%s\"", msg);
	ret = tern_context_status(victim, &cst);
	tap_ok(ret == 0 && cst.state == TERN_CONTEXT_FAULTED && cst.fault_addr == r + 0x30 &&
	       strstr(tern_fault_kind_name(cst.fault_kind), "not mapped") &&
	       strstr(tern_last_error(), "address not mapped"),
	       "its context faulted at the unmapped address: \"%s\"", tern_last_error());
	tern_fence_free(fj);
	tern_fence_free(fu);
	fj = fu = NULL;

	/* a bind after a job that faults fails; the one behind it is cancelled */
	st0 = state();
	tern_cmdbuf_reset(cb);
	tern_cmd_wait_mem(cb, tern_bo_va(gate) + 8, 1, 8000000);
	tern_cmd_write_imm(cb, tern_bo_va(ro), 1);
	ret = tern_submit(faulty, cb, NULL, 0, &ff);
	d = (struct tern_deps){ .fences = &ff, .fence_count = 1 };
	ret = ret ? ret : bind1(TERN_BIND_MAP, a, 0, r, 64 * KB, &d, &fx);
	ret = ret ? ret : bind1(TERN_BIND_MAP, b, 0, r + 128 * KB, 64 * KB, NULL, &fy);
	tap_ok(ret == 0, "a map waits for a gated job that will fault, another map is "
	       "queued behind it: %s", ret ? tern_last_error() : "queued");
	if (ret)
		return tap_exit_status();
	st = state();
	tap_ok(st.queued == tern_fence_seqno(fy) && st.done < tern_fence_seqno(fx) &&
	       st.mapped == st0.mapped + 128 * KB,
	       "the state counts them queued, not done (queued %llu, done %llu)",
	       (unsigned long long)st.queued, (unsigned long long)st.done);
	wg[2] = 1;
	tap_ok(tern_fence_wait(ff, 30 * SEC) == -EIO, "the job faults");
	ret = tern_fence_wait(fx, 30 * SEC);
	tap_ok(ret == -EIO && strstr(tern_last_error(), "bind ") &&
	       strstr(tern_last_error(), "did not run"),
	       "the bind fails with its error: -EIO, \"%s\"", tern_last_error());
	ret = tern_fence_wait(fy, 30 * SEC);
	tap_ok(ret == -ECANCELED && strstr(tern_last_error(), "cancelled"),
	       "the bind behind it is cancelled: -ECANCELED, \"%s\"", tern_last_error());
	st = state();
	tap_ok(st.error == 0 && st.binds_failed == st0.binds_failed + 1 &&
	       st.binds_cancelled == st0.binds_cancelled + 1 && st.bind_error == -EIO &&
	       st.bind_error_seqno == tern_fence_seqno(fx) && st.mapped == st0.mapped &&
	       strstr(tern_last_error(), "failed"),
	       "tern_vm_state: 1 failed, 1 cancelled, -EIO of bind %llu, nothing mapped: \"%s\"",
	       (unsigned long long)st.bind_error_seqno, tern_last_error());
	ret = write_job(ctx, r + 0x40, 5, NULL, NULL);
	tap_ok(ret == -EFAULT, "the library no longer has A at the failed map's address");
	ret = write_job(ctx, r + 128 * KB, 5, NULL, NULL);
	tap_ok(ret == -EFAULT, "nor B at the cancelled one's");
	ret = bind1(TERN_BIND_MAP, a, 0, r, 64 * KB, NULL, NULL);
	ret = ret ? ret : write_job(ctx, r + 0x40, 0x5555, NULL, &fj);
	ret = ret ? ret : tern_fence_wait(fj, 30 * SEC);
	tap_ok(ret == 0 && wa[16] == 0x5555, "mapping A there again works, and a job writes "
	       "through it: %s", ret ? tern_last_error() : "ok");
	tern_fence_free(fj);
	tern_fence_free(fx);
	tern_fence_free(fy);
	tern_fence_free(ff);
	fj = fx = fy = ff = NULL;

	/* bad binds change nothing */
	st0 = state();
	memset(ops, 0, sizeof(ops));
	ops[0] = (struct tern_bind_op){ .op = 7, .va = r + 512 * KB, .range = PAGE };
	ret = tern_vm_bind(dev, ops, 1, NULL, &fx);
	tap_ok(ret == -EINVAL && !fx && strstr(tern_last_error(), "unknown op"),
	       "an unknown op: -EINVAL, \"%s\"", tern_last_error());
	ops[0] = (struct tern_bind_op){ .op = TERN_BIND_MAP, .bo = b, .va = r + 512 * KB + 100,
					.range = PAGE };
	ret = tern_vm_bind(dev, ops, 1, NULL, &fx);
	tap_ok(ret == -EINVAL && strstr(tern_last_error(), "multiples of the page size"),
	       "an unaligned address: -EINVAL, \"%s\"", tern_last_error());
	ops[0] = (struct tern_bind_op){ .op = TERN_BIND_MAP, .va = r + 512 * KB, .range = PAGE };
	ret = tern_vm_bind(dev, ops, 1, NULL, &fx);
	tap_ok(ret == -EINVAL && strstr(tern_last_error(), "without a buffer"),
	       "a map without a buffer: -EINVAL, \"%s\"", tern_last_error());
	ret = tern_vm_bind(dev, ops, 0, NULL, &fx);
	tap_ok(ret == -EINVAL && strstr(tern_last_error(), "no operation"),
	       "no operation: -EINVAL, \"%s\"", tern_last_error());
	ret = tern_vm_bind(dev, ops, TERN_BIND_MAX_OPS + 1, NULL, &fx);
	tap_ok(ret == -EINVAL && strstr(tern_last_error(), "at most 64"),
	       "65 operations: -EINVAL, \"%s\"", tern_last_error());
	ops[0] = (struct tern_bind_op){ .op = TERN_BIND_UNMAP, .va = tern_bo_va(lost),
					.range = PAGE };
	ret = tern_vm_bind(dev, ops, 1, NULL, &fx);
	tap_ok(ret == -ERANGE && strstr(tern_last_error(), "tern_va_reserve"),
	       "unmapping a buffer of tern_bo_alloc(): -ERANGE, \"%s\"", tern_last_error());
	ops[0] = (struct tern_bind_op){ .op = TERN_BIND_MAP, .bo = b, .va = r + 512 * KB,
					.range = 64 * KB };
	ops[1] = (struct tern_bind_op){ .op = TERN_BIND_MAP, .bo = b, .va = r, .range = PAGE };
	ret = tern_vm_bind(dev, ops, 2, NULL, &fx);
	tap_ok(ret == -EEXIST && strstr(tern_last_error(), "operation 1"),
	       "a bind whose second map is over A: -EEXIST, \"%s\"", tern_last_error());
	ret = write_job(ctx, r + 512 * KB, 1, NULL, NULL);
	tap_ok(ret == -EFAULT, "its first map is not in the library's view either");
	ops[0] = (struct tern_bind_op){ .op = TERN_BIND_UNMAP, .va = r + 768 * KB, .range = PAGE };
	ret = tern_vm_bind(dev, ops, 1, NULL, &fx);
	tap_ok(ret == -ENOENT && strstr(tern_last_error(), "operation 0") &&
	       strstr(tern_last_error(), "nothing mapped"),
	       "an unmap of nothing: -ENOENT, \"%s\"", tern_last_error());
	st = state();
	tap_ok(st.queued == st0.queued && st.mapped == st0.mapped && st.binds_failed ==
	       st0.binds_failed && !fx, "none of them queued anything or mapped a byte");
	ret = write_job(ctx, r + 0x44, 0x6666, NULL, &fj);
	ret = ret ? ret : tern_fence_wait(fj, 30 * SEC);
	tap_ok(ret == 0 && wa[17] == 0x6666, "A is still where it was: %s",
	       ret ? tern_last_error() : "a job wrote it");
	tern_fence_free(fj);
	fj = NULL;

	/* a buffer freed while bound */
	ret = bind1(TERN_BIND_MAP, lost, 0, r3, PAGE, NULL, NULL);
	tap_ok(ret == 0, "map a buffer in the 4 MiB range");
	tern_bo_free(lost);
	ret = write_job(ctx, r3, 1, NULL, NULL);
	tap_ok(ret == -EFAULT, "freed, jobs no longer find it there");
	ret = tern_va_release(dev, r3, 4 * MB);
	tap_ok(ret == -EBUSY && strstr(tern_last_error(), "still mapped"),
	       "its range stays in use: -EBUSY, \"%s\"", tern_last_error());
	ret = bind1(TERN_BIND_UNMAP, NULL, 0, r3, PAGE, NULL, NULL);
	tap_ok(ret == 0 && tern_va_release(dev, r3, 4 * MB) == 0,
	       "unmapped, the range can be released");

	check_cuts(ctx, ctx2, gate, wg, ro);

	/* release the 1 MiB range */
	st0 = state();
	ret = bind1(TERN_BIND_UNMAP, NULL, 0, r, 1 * MB, NULL, &fu);
	tap_ok(ret == 0, "one unmap of the whole reservation: %s",
	       ret ? tern_last_error() : "queued");
	ret = tern_fence_wait(fu, 30 * SEC);
	tap_ok(ret == 0 && tern_va_release(dev, r, 1 * MB) == 0,
	       "once done, the range is released: %s", ret ? tern_last_error() : "ok");
	st = state();
	tap_ok(st.mapped == st0.mapped - (64 + 64 + 4) * KB && st.queued == st0.queued + 1,
	       "what the binds mapped is unmapped (%llu bytes mapped)",
	       (unsigned long long)st.mapped);
	tern_fence_free(fu);

	tern_fence_free(fb2);
	tern_fence_free(fb1);
	tern_timeline_free(tl);
	tern_cmdbuf_free(raw);
	tern_cmdbuf_free(tmp);
	tern_cmdbuf_free(cb);
	tern_bo_free(near);
	tern_bo_free(ro);
	tern_bo_free(gate);
	tern_bo_free(b);
	tern_bo_free(a);
	tern_context_destroy(faulty);
	tern_context_destroy(victim);
	tern_context_destroy(ctx2);
	tern_context_destroy(ctx);
	tern_device_close(dev);
	tap_done();
	return tap_exit_status();
}
