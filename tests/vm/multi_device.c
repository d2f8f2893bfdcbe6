// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * multi_device: two tern devices in one machine are two independent accel
 * nodes: each reports its own configuration, runs its own jobs into its own
 * memory, and a fault on one leaves the other working.
 *
 * tern-vm: device=compute-engines=1+compute-engines=3 timeout=120
 */
#include <tern/tern.h>

#include "tern_accel.h"

#include "tern_test.h"

#define WORDS 1024

/* Fill a fresh buffer on @dev with @value; 0 when the device did it right. */
static int run_fill(struct tern_device *dev, uint32_t value)
{
	struct tern_context *ctx = NULL;
	struct tern_cmdbuf *cb = NULL;
	struct tern_fence *f = NULL;
	struct tern_bo *bo = NULL;
	uint32_t *p;
	int ret, i;

	ret = tern_context_create(dev, NULL, &ctx);
	if (!ret)
		ret = tern_bo_alloc(dev, WORDS * 4, 0, &bo);
	if (!ret)
		ret = tern_cmdbuf_create(0, &cb);
	if (!ret)
		ret = tern_cmd_fill(cb, tern_bo_va(bo), WORDS * 4, value);
	if (!ret)
		ret = tern_submit(ctx, cb, NULL, 0, &f);
	if (!ret)
		ret = tern_fence_wait(f, 30 * 1000000000ll);
	if (!ret) {
		p = tern_bo_map(bo);
		for (i = 0; i < WORDS && !ret; i++)
			if (p[i] != value)
				ret = -EIO;
	}
	if (f)
		tern_fence_free(f);
	if (cb)
		tern_cmdbuf_free(cb);
	if (bo)
		tern_bo_free(bo);
	if (ctx)
		tern_context_destroy(ctx);
	return ret;
}

/* A job on @dev that writes to an unmapped address: it must fault. */
static int run_fault(struct tern_device *dev)
{
	struct tern_context *ctx = NULL;
	struct tern_cmdbuf *cb = NULL;
	struct tern_fence *f = NULL;
	/* raw: the library refuses addresses outside its buffers itself */
	const uint32_t stray[] = {
		TERN_PKT_HEADER(TERN_OP_WRITE_IMM, TERN_PKT_DWORDS_WRITE_IMM),
		0, 0x7f00, 1,
	};
	int ret;

	ret = tern_context_create(dev, NULL, &ctx);
	if (!ret)
		ret = tern_cmdbuf_create(0, &cb);
	if (!ret)
		ret = tern_cmd_raw(cb, stray, 4);
	if (!ret)
		ret = tern_submit(ctx, cb, NULL, 0, &f);
	if (!ret)
		ret = tern_fence_wait(f, 30 * 1000000000ll);
	if (f)
		tern_fence_free(f);
	if (cb)
		tern_cmdbuf_free(cb);
	if (ctx)
		tern_context_destroy(ctx);
	return ret;
}

int main(void)
{
	struct tern_device *a = NULL, *b = NULL;
	const struct tern_device_info *ia, *ib;
	int n, ra, rb;

	tap_plan(8);
	n = tern_device_count();
	tap_ok(n == 2, "two tern devices are present (%d)", n);
	if (tern_device_open(0, &a) || tern_device_open(1, &b)) {
		tap_ok(false, "open both devices");
		return tap_exit_status();
	}
	tap_ok(true, "open both devices");
	ia = tern_device_info(a);
	ib = tern_device_info(b);
	tap_ok(strcmp(ia->path, ib->path) && strcmp(ia->pci_slot, ib->pci_slot),
	       "they are distinct nodes and PCI functions (%s %s, %s %s)",
	       ia->path, ia->pci_slot, ib->path, ib->pci_slot);
	tap_ok((ia->compute_engine_count == 1 && ib->compute_engine_count == 3) ||
	       (ia->compute_engine_count == 3 && ib->compute_engine_count == 1),
	       "each reports its own engines (%u and %u compute engines)",
	       ia->compute_engine_count, ib->compute_engine_count);
	ra = run_fill(a, 0xa0a0a0a0);
	rb = run_fill(b, 0x0b0b0b0b);
	tap_ok(ra == 0 && rb == 0, "a job on each device fills its own buffer (%d, %d)",
	       ra, rb);
	ra = run_fault(a);
	tap_ok(ra == -EIO, "a stray write faults on the first device (%d)", ra);
	rb = run_fill(b, 0x12345678);
	tap_ok(rb == 0, "the second device is unaffected (%d)", rb);
	ra = run_fill(a, 0x87654321);
	tap_ok(ra == 0, "and the first device runs new contexts' work again (%d)", ra);
	tern_device_close(a);
	tern_device_close(b);
	return tap_exit_status();
}
