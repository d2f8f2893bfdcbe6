// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * vm_bind_pins: an address space holds one pin of a BO's pages for all its
 * mappings (docs/memory.md), handed over by the map that makes the BO's
 * first mapping and given back by the reap of its last one.  A bind that
 * is undone must give back exactly the pins it holds, also when the
 * mapping it made became the BO's last one meanwhile:
 *
 * - map X at A (synchronously); queue an unmap of A behind gate G1 and a
 *   map of X at B behind gate G2 (the gates are jobs of another file, so
 *   that the reaping in this one does not wait for them); open G1: the
 *   unmap runs and A is reaped, so the queued map of B holds the BO's
 *   last mapping; close the file: that map is undone and must release
 *   both the pin it took at the ioctl and the address space's, which the
 *   undo hands back to it.  A pin left behind shows as the driver's
 *   warning when the BO's last reference goes (every time: a pin holds a
 *   reference) and as system memory of the device's BOs (debugfs
 *   "memory") that never comes back.
 *   Repeated, with a second BO mapped beside (which keeps its pin), and
 *   with a failed gate instead of the close.
 *
 * tern-vm: timeout=180
 */
#include <xf86drm.h>

#include "core_test.h"

#define VA_A		0x300000000ull
#define VA_B		0x340000000ull
#define VA_GATE		0x380000000ull
#define X_SIZE		(16ull << 20)
#define ROUNDS		4

struct gates {
	int fd;				/* the other file */
	uint32_t ctx;
	uint32_t bo[2];
	volatile uint32_t *word[2];
	struct core_gate g[2];
	uint32_t so[2];
};

static int bind_ops1(int fd, struct drm_tern_vm_bind op, uint32_t in,
		     uint32_t out)
{
	struct drm_tern_sync i = { .handle = in }, o = { .handle = out };
	struct drm_tern_vm_bind_ops a = {
		.ops = (uintptr_t)&op,
		.count = 1,
		.stride = sizeof(op),
		.in_syncs = (uintptr_t)&i,
		.in_sync_count = in ? 1 : 0,
		.out_syncs = (uintptr_t)&o,
		.out_sync_count = out ? 1 : 0,
	};

	return ioctl(fd, DRM_IOCTL_TERN_VM_BIND_OPS, &a) ? -errno : 0;
}

/* Close both gates of the other file; their fences in @g->so. */
static int gates_close(struct gates *g)
{
	int i, ret = 0;

	for (i = 0; !ret && i < 2; i++) {
		g->so[i] = syncobj_new(g->fd);
		ret = core_gate_init(&g->g[i], g->fd, g->ctx, g->bo[i],
				     VA_GATE + i * (1ull << 30), g->word[i],
				     g->so[i]);
	}
	return ret;
}

/* The fence of syncobj @h of file @from, in a new syncobj of file @to. */
static uint32_t syncobj_move(int from, uint32_t h, int to)
{
	uint32_t out = 0;
	int sfd = -1;

	if (drmSyncobjHandleToFD(from, h, &sfd))
		return 0;
	if (drmSyncobjFDToHandle(to, sfd, &out))
		out = 0;
	close(sfd);
	return out;
}

/*
 * One round; @other: a second BO mapped beside; @fail: end with a failed
 * in-fence (G2's job faults) instead of closing the file.
 */
static void round_trip(struct gates *g, int round, bool other, bool fail)
{
	struct drm_tern_vm_bind unmap_a = {
		.op = DRM_TERN_VM_BIND_OP_UNMAP, .va = VA_A, .range = X_SIZE,
	};
	struct drm_tern_vm_bind map_b = {
		.op = DRM_TERN_VM_BIND_OP_MAP, .va = VA_B, .range = X_SIZE,
	};
	uint32_t x, y = 0, g1, g2, done, mapped;
	long sys0 = tern_system_quiet_kb(), sys_mapped, sys1;
	const long bos_kb = (other ? 2 : 1) * (long)(X_SIZE >> 10);
	int fd = tern_test_open(), ret;
	void *p;

	if (fd < 0 || gates_close(g) || bo_create(fd, X_SIZE, &x) ||
	    (other && bo_create(fd, X_SIZE, &y))) {
		tap_ok(false, "round %d: open, gates, BOs", round);
		return;
	}
	/* the pages exist before the map: the map pins them */
	p = bo_mmap(fd, x, &(uint64_t){ 0 });
	if (p) {
		memset(p, 0x5a, X_SIZE);
		munmap(p, X_SIZE);
	}
	g1 = syncobj_move(g->fd, g->so[0], fd);
	g2 = syncobj_move(g->fd, g->so[1], fd);
	done = syncobj_new(fd);
	mapped = syncobj_new(fd);
	map_b.handle = x;
	ret = vm_map(fd, x, VA_A, 0, X_SIZE);
	if (!ret && other)
		ret = vm_map(fd, y, VA_A + X_SIZE, 0, X_SIZE);
	if (!ret)
		ret = bind_ops1(fd, unmap_a, g1, done);
	if (!ret)
		ret = bind_ops1(fd, map_b, g2, mapped);
	tap_ok(!ret && g1 && g2,
	       "round %d: X mapped at A, an unmap of A behind G1, a map of X at B behind G2 (%s)",
	       round, strerror(-ret));
	/* what must come back: X's pages (and those of the BO beside it) */
	sys_mapped = tern_system_kb();

	core_gate_open(&g->g[0]);
	ret = syncobj_wait(fd, done, 20000);
	tap_ok(!ret && core_fence_status(fd, done) == 1,
	       "round %d: G1 open: the unmap of A ran (%s)", round, strerror(-ret));
	/* the reap of A: the queued map of B now holds X's last mapping */
	usleep(200000);

	if (fail) {
		/* G2's job faults: the map of B fails with its error, undone */
		*g->g[1].word = 0;
		__sync_synchronize();
		ret = mem_ioctl(g->fd, DRM_IOCTL_TERN_CONTEXT_DESTROY,
				&(struct drm_tern_context_destroy){ .handle = g->ctx });
		ret = ret ? ret : syncobj_wait(fd, mapped, 20000);
		tap_ok(!ret && core_fence_status(fd, mapped) < 0,
		       "round %d: G2's context destroyed: the map of B fails (%s, status %d)",
		       round, strerror(-ret), core_fence_status(fd, mapped));
		ctx_create(g->fd, DRM_TERN_PRIORITY_NORMAL,
			   DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &g->ctx);
	}
	/* closing the file undoes the map of B if it has not run */
	close(fd);
	if (!fail)
		core_gate_open(&g->g[1]);
	syncobj_wait(g->fd, g->so[1], 20000);

	sys1 = tern_system_settled_kb(sys0);
	tap_ok(sys0 >= 0 && sys_mapped >= sys0 + bos_kb && sys1 >= 0 && sys1 <= sys0,
	       "round %d: X%s freed whole: BO system memory %+ld kB (%+ld kB while mapped; a pin "
	       "left behind keeps %llu kB)", round, other ? " and the BO beside it" : "",
	       sys1 - sys0, sys_mapped - sys0, X_SIZE >> 10);
}

int main(void)
{
	struct gates g = { 0 };
	int i, r;

	g.fd = tern_test_open();
	if (g.fd < 0 ||
	    ctx_create(g.fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0,
		       &g.ctx)) {
		tap_ok(false, "open the device and a context for the gates");
		return tap_exit_status();
	}
	for (i = 0; i < 2; i++) {
		void *map = NULL;

		if (core_bo(g.fd, 0x10000, VA_GATE + i * (1ull << 30), &g.bo[i],
			    &map)) {
			tap_ok(false, "gate BO %d", i);
			return tap_exit_status();
		}
		g.word[i] = map;
	}
	for (r = 0; r < ROUNDS; r++)
		round_trip(&g, r, r % 2, r >= ROUNDS / 2);
	close(g.fd);
	tap_done();
	return tap_exit_status();
}
