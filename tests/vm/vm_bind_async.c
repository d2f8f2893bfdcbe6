// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * vm_bind_async: DRM_IOCTL_TERN_VM_BIND_OPS queues binds that run later,
 * in order, after their in-syncs, and signal out-syncs (docs/memory.md).
 * Checked here:
 *
 * - a bind waiting for a closed gate returns at once; a job that needs its
 *   mapping waits for its binary out-syncobj, or for a timeline point it
 *   signals, and runs once the gate opens;
 * - binds run in the order they were queued: one queued behind a waiting
 *   bind does not signal first;
 * - operations are checked at the ioctl against the address space as the
 *   binds queued before leave it (-EEXIST over a queued map, an unmap of a
 *   range only a queued map fills is taken), and a refused operation
 *   queues nothing (error_index names it);
 * - an unmap waits for the jobs that listed its BO, not for a long job on
 *   another BO of the same address space;
 * - an unmap does not wait for a running job that uses the range without
 *   listing its BO: the job faults once it touches the range, and the
 *   BO's pages stay pinned until the job ended (debugfs "vms");
 * - a bind whose in-sync fails fails with that error, the binds queued
 *   after it fail with ECANCELED, the address space is as before them,
 *   VM_GET_STATE says so, and later binds work;
 * - an unmap does not fail because a job that listed its BO failed;
 * - SYNC returns the bind's result; bad arguments fail at the ioctl with
 *   their errno and queue nothing (error_index names the operation, or is
 *   the count for an error of no operation; a larger entry with a non-zero
 *   tail is E2BIG; DRM_TERN_VM_BIND_REPLACE on an unmap, an unknown map
 *   flag, or an unmap without DRM_TERN_VM_BIND_CUT that cuts the mapping
 *   an operation before it made, is EINVAL); with DRM_TERN_VM_BIND_CUT
 *   that unmap is taken (interface 1.5) and leaves the rest mapped; more
 *   than DRM_TERN_VM_BIND_QUEUE_MAX operations queued is EAGAIN;
 * - DRM_TERN_VM_BIND_CUT (interface 1.5), with existing mappings: a bind
 *   whose unmap would cut one without the flag (its middle, its first
 *   page, its last page and beyond) is EINVAL at the ioctl, error_index
 *   naming that unmap, also after operations that were fine (a whole
 *   unmap, a cut with the flag); the flag on a map, with or without
 *   REPLACE, and with another flag on an unmap, is EINVAL; none of them
 *   queues anything or changes the mappings: debugfs "vms" lists them
 *   whole, and jobs write through their first words, the ranges the
 *   unmaps named and their last words; an unmap with the flag of a range
 *   that holds whole mappings only removes them as a plain unmap does, and
 *   an asynchronous bind of cuts with the flag leaves what debugfs shows;
 * - closing the file cancels the binds still waiting (their sync_file says
 *   ECANCELED);
 * - four processes bind, submit and unbind asynchronously at once.
 *
 * tern-vm: timeout=240
 */
#include <poll.h>
#include <sys/wait.h>

#include "core_test.h"

#define VA		0x200000000ull
#define VA_LOCAL	0x7f0000000ull	/* a LOCAL BO, never mapped */
#define BO_SIZE		0x10000ull
#define PROCS		4
#define ROUNDS		50

static int bind_ops(int fd, struct drm_tern_vm_bind *ops, uint32_t count,
		    uint32_t flags, const struct drm_tern_sync *in, uint32_t nin,
		    const struct drm_tern_sync *out, uint32_t nout,
		    struct drm_tern_vm_bind_ops *res)
{
	struct drm_tern_vm_bind_ops a = {
		.ops = (uintptr_t)ops,
		.count = count,
		.stride = sizeof(*ops),
		.flags = flags,
		.in_syncs = (uintptr_t)in,
		.in_sync_count = nin,
		.out_syncs = (uintptr_t)out,
		.out_sync_count = nout,
	};
	int ret = ioctl(fd, DRM_IOCTL_TERN_VM_BIND_OPS, &a) ? -errno : 0;

	if (res)
		*res = a;
	return ret;
}

static struct drm_tern_vm_bind op_map(uint32_t bo, uint64_t va, uint64_t range)
{
	return (struct drm_tern_vm_bind){ .op = DRM_TERN_VM_BIND_OP_MAP,
					  .handle = bo, .va = va, .range = range };
}

static struct drm_tern_vm_bind op_unmap(uint64_t va, uint64_t range)
{
	return (struct drm_tern_vm_bind){ .op = DRM_TERN_VM_BIND_OP_UNMAP,
					  .va = va, .range = range };
}

/* An unmap that cuts the mappings crossing the ends of its range (interface 1.5). */
static struct drm_tern_vm_bind op_cut(uint64_t va, uint64_t range)
{
	return (struct drm_tern_vm_bind){ .op = DRM_TERN_VM_BIND_OP_UNMAP,
					  .flags = DRM_TERN_VM_BIND_CUT, .va = va,
					  .range = range };
}

/* One operation after binary syncobj @in (0: none), signalling @out (0: none). */
static int bind1(int fd, struct drm_tern_vm_bind op, uint32_t in, uint32_t out,
		 uint64_t *seqno)
{
	struct drm_tern_sync i = { .handle = in }, o = { .handle = out };
	struct drm_tern_vm_bind_ops res;
	int ret = bind_ops(fd, &op, 1, 0, &i, in ? 1 : 0, &o, out ? 1 : 0, &res);

	if (seqno)
		*seqno = res.seqno;
	return ret;
}

static int vm_state(int fd, struct drm_tern_vm_get_state *st)
{
	memset(st, 0, sizeof(*st));
	return ioctl(fd, DRM_IOCTL_TERN_VM_GET_STATE, st) ? -errno : 0;
}

/* A job writing @value at @va, listing @bo (0: none), after @in. */
static int write_async(int fd, uint32_t ctx, uint32_t bo, uint64_t va,
		       uint32_t value, uint32_t in, uint32_t out)
{
	uint32_t dw[8], n = 0;

	pkt_write_imm(dw, &n, va, value);
	return submit(fd, ctx, dw, n, bo ? &bo : NULL, bo ? 1 : 0, in, out, NULL);
}

/* Status of the fence in @so once it signalled (at most 20 s): 1 or -errno. */
static int fence_result(int fd, uint32_t so)
{
	int ret = syncobj_wait(fd, so, 20000);

	return ret ? ret : core_fence_status(fd, so);
}

/* Bytes of BOs pinned by the (only) address space, from debugfs "vms". */
static long long pinned_bytes(void)
{
	char path[512], line[512];
	long long pinned = -1, a, b, c, d;
	FILE *f;

	if (!core_debugfs_path("vms", path, sizeof(path)))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "  budget: %lld of %lld tables, %lld of %lld mappings, %lld",
			   &a, &b, &c, &d, &pinned) == 5)
			break;
	fclose(f);
	return pinned;
}

/* Wait up to @ms for sync_file @fd: 0 once it signalled, else -ETIME. */
static int sync_wait_fd(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 ? 0 : -ETIME;
}

/* Status of a signalled sync_file: 1, or its fence's error. */
static int sync_fd_status(int fd)
{
	struct sync_fence_info fi = {};
	struct sync_file_info info = {
		.num_fences = 1,
		.sync_fence_info = (uintptr_t)&fi,
	};

	return ioctl(fd, SYNC_IOC_FILE_INFO, &info) ? -1000 : fi.status;
}

/* Wait up to 2 s for the pinned bytes to be @want; the last value read. */
static long long pinned_wait(long long want)
{
	long long got = -1;
	int i;

	for (i = 0; i < 100 && (got = pinned_bytes()) != want; i++)
		usleep(20000);
	return got;
}

struct env {
	int fd;
	uint32_t ctx, ctx2;
	uint32_t gate_bo;
	volatile uint32_t *gate_word;
	uint64_t gate_va;
};

/* A closed gate on @ctx, its fence in a new syncobj. */
static uint32_t gate_close(struct env *e, uint32_t ctx, struct core_gate *g)
{
	uint32_t so = syncobj_new(e->fd);

	if (core_gate_init(g, e->fd, ctx, e->gate_bo, e->gate_va, e->gate_word, so))
		tap_diag("gate: submit failed");
	return so;
}

/* A fresh BO, CPU-mapped, not bound. */
static uint32_t new_bo(int fd, volatile uint32_t **cpu)
{
	uint64_t size;
	uint32_t h = 0;
	void *p;

	if (bo_create(fd, BO_SIZE, &h) || !(p = bo_mmap(fd, h, &size)))
		return 0;
	*cpu = p;
	return h;
}

static void check_order_and_deps(struct env *e)
{
	uint32_t gate, s1, s2, s3, tl, job, bo1, bo2;
	volatile uint32_t *c1, *c2;
	struct drm_tern_vm_get_state st;
	struct drm_tern_sync in, out;
	struct drm_tern_submit sub;
	struct drm_tern_vm_bind op;
	uint64_t seq1, seq2, t1, t2;
	uint32_t dw[8], n = 0;
	struct core_gate g;
	int err, st1, st2;

	bo1 = new_bo(e->fd, &c1);
	bo2 = new_bo(e->fd, &c2);
	gate = gate_close(e, e->ctx2, &g);
	s1 = syncobj_new(e->fd);
	s2 = syncobj_new(e->fd);
	s3 = syncobj_new(e->fd);
	job = syncobj_new(e->fd);

	err = bind1(e->fd, op_map(bo1, VA, BO_SIZE), gate, s1, &seq1);
	tap_ok(!err && seq1 > 0, "a map behind a closed gate is queued at once (%s, seqno %llu)",
	       strerror(-err), (unsigned long long)seq1);
	err = write_async(e->fd, e->ctx, bo1, VA + 8, 0x1111, s1, job);
	tap_ok(!err, "a job waiting for the bind's syncobj is submitted (%s)", strerror(-err));
	/* a second bind, with no dependency of its own, queued behind it */
	err = bind1(e->fd, op_map(bo2, VA + BO_SIZE, BO_SIZE), 0, s2, &seq2);
	tap_ok(!err && seq2 == seq1 + 1, "a second bind is queued after it (seqno %llu)",
	       (unsigned long long)seq2);
	usleep(200000);
	err = syncobj_wait(e->fd, s2, 0);
	tap_ok(err == -ETIME, "the second bind waits for the first (%s)", strerror(-err));
	err = syncobj_wait(e->fd, job, 0);
	tap_ok(err == -ETIME && c1[2] == 0, "the job waits for the bind (%s)", strerror(-err));
	err = vm_state(e->fd, &st);
	tap_ok(!err && st.queued == seq2 && st.done < seq1,
	       "VM_GET_STATE: %llu queued, %llu done", (unsigned long long)st.queued,
	       (unsigned long long)st.done);

	/* checked against the queued state, and a refused array queues nothing */
	err = bind1(e->fd, op_map(bo2, VA + 4 * PAGE4K, PAGE4K), 0, 0, NULL);
	tap_errno(err, -EEXIST, "a map over a range a queued bind maps");
	{
		struct drm_tern_vm_bind two[2] = {
			op_map(bo2, VA + 16 * BO_SIZE, BO_SIZE),
			op_map(bo2, VA, BO_SIZE),
		};
		struct drm_tern_vm_bind_ops res;

		err = bind_ops(e->fd, two, 2, 0, NULL, 0, NULL, 0, &res);
		tap_ok(err == -EEXIST && res.error_index == 1,
		       "an array whose second map overlaps is refused (%s, index %u)",
		       strerror(-err), res.error_index);
		err = bind1(e->fd, op_map(bo2, VA + 16 * BO_SIZE, BO_SIZE), 0, 0, NULL);
		tap_errno(err, 0, "its first map was not queued: it is taken now");
		err = bind1(e->fd, op_unmap(VA + 16 * BO_SIZE, BO_SIZE), 0, 0, NULL);
		tap_errno(err, 0, "and unmapped again");
	}

	core_gate_open(&g);
	st1 = fence_result(e->fd, s1);
	st2 = fence_result(e->fd, s2);
	tap_ok(st1 == 1 && st2 == 1, "once the gate opens both binds are done (%d, %d)",
	       st1, st2);
	core_fence_info(e->fd, s1, &st1, &t1);
	core_fence_info(e->fd, s2, &st2, &t2);
	tap_ok(t1 <= t2, "in the order they were queued");
	err = fence_result(e->fd, job);
	tap_ok(err == 1 && c1[2] == 0x1111, "the job ran through the new mapping (%d, %#x)",
	       err, c1[2]);

	/* a timeline point signalled by a bind, waited for by a job */
	tl = syncobj_new(e->fd);
	gate = gate_close(e, e->ctx2, &g);
	op = op_map(bo1, VA + 32 * BO_SIZE, BO_SIZE);
	in = (struct drm_tern_sync){ .handle = gate };
	out = (struct drm_tern_sync){ .handle = tl, .point = 5 };
	err = bind_ops(e->fd, &op, 1, 0, &in, 1, &out, 1, NULL);
	tap_ok(!err, "a bind signals timeline point 5 (%s)", strerror(-err));
	pkt_write_imm(dw, &n, VA + 32 * BO_SIZE + 16, 0x2222);
	in = (struct drm_tern_sync){ .handle = tl, .point = 5 };
	out = (struct drm_tern_sync){ .handle = s3 };
	sub = (struct drm_tern_submit){
		.context = e->ctx, .cmdbuf = (uintptr_t)dw, .cmdbuf_size = n * 4,
		.bo_count = 1, .bo_handles = (uintptr_t)&bo1,
		.in_syncs = (uintptr_t)&in, .in_sync_count = 1,
		.out_syncs = (uintptr_t)&out, .out_sync_count = 1,
	};
	err = ioctl(e->fd, DRM_IOCTL_TERN_SUBMIT, &sub) ? -errno : 0;
	tap_ok(!err, "a job waits for that point (%s)", strerror(-err));
	usleep(100000);
	err = syncobj_wait(e->fd, s3, 0);
	tap_ok(err == -ETIME, "and does not run before the bind (%s)", strerror(-err));
	core_gate_open(&g);
	err = fence_result(e->fd, s3);
	tap_ok(err == 1 && c1[4] == 0x2222, "it runs after it, through the mapping (%d)", err);

	bind1(e->fd, op_unmap(VA, 2 * BO_SIZE), 0, 0, NULL);
	bind1(e->fd, op_unmap(VA + 32 * BO_SIZE, BO_SIZE), 0, s1, NULL);
	fence_result(e->fd, s1);
}

static void check_unmap_waits(struct env *e)
{
	uint32_t sa, sb, boa, bob, dw[8], n = 0, job;
	volatile uint32_t *ca, *cb;
	long long pinned0, pinned1, pinned2;
	struct core_gate g;
	int err, i;

	boa = new_bo(e->fd, &ca);
	bob = new_bo(e->fd, &cb);
	sa = syncobj_new(e->fd);
	sb = syncobj_new(e->fd);
	job = syncobj_new(e->fd);
	tap_errno(vm_map(e->fd, boa, VA, 0, BO_SIZE), 0, "map BO A");
	tap_errno(vm_map(e->fd, bob, VA + BO_SIZE, 0, BO_SIZE), 0, "map BO B");

	/* a job that lists A runs until the gate opens */
	gate_close(e, e->ctx2, &g);
	pkt_write_imm(dw, &n, VA + 4, 0x3333);
	err = submit(e->fd, e->ctx2, dw, n, &boa, 1, 0, job, NULL);
	tap_ok(!err, "a job that lists A waits behind the gate (%s)", strerror(-err));
	err = bind1(e->fd, op_unmap(VA + BO_SIZE, BO_SIZE), 0, sb, NULL);
	tap_ok(!err, "unmap B, queued (%s)", strerror(-err));
	err = syncobj_wait(e->fd, sb, 5000);
	tap_ok(!err && core_fence_status(e->fd, sb) == 1 && syncobj_wait(e->fd, job, 0) == -ETIME,
	       "the unmap of B is done while the job on A still waits (%s)", strerror(-err));
	err = bind1(e->fd, op_unmap(VA, BO_SIZE), 0, sa, NULL);
	tap_ok(!err, "unmap A, queued (%s)", strerror(-err));
	usleep(300000);
	err = syncobj_wait(e->fd, sa, 0);
	tap_ok(err == -ETIME, "the unmap of A waits for the job that lists A (%s)",
	       strerror(-err));
	core_gate_open(&g);
	err = fence_result(e->fd, sa);
	i = fence_result(e->fd, job);
	tap_ok(err == 1 && i == 1 && ca[1] == 0x3333,
	       "the job completes, then the unmap (%d, %d)", i, err);
	bo_close(e->fd, boa);
	bo_close(e->fd, bob);

	/*
	 * A running job that uses a range without listing its BO: the unmap
	 * does not wait for it, the job faults once it touches the range,
	 * and the pages stay pinned until it ended.
	 */
	boa = new_bo(e->fd, &ca);
	tap_errno(vm_map(e->fd, boa, VA, 0, BO_SIZE), 0, "map BO C");
	/* the gate's BO and C: A and B are given back meanwhile */
	pinned0 = pinned_wait(2 * BO_SIZE);
	n = 0;
	*e->gate_word = 0;
	pkt_wait_mem(dw, &n, e->gate_va, 1, 10000000);
	pkt_write_imm(dw, &n, VA + 8, 0x4444);
	err = submit(e->fd, e->ctx2, dw, n, &e->gate_bo, 1, 0, job, NULL);
	tap_ok(!err, "a job that does not list C waits in WAIT_MEM, then writes C (%s)",
	       strerror(-err));
	bo_close(e->fd, boa);
	usleep(100000);
	err = bind1(e->fd, op_unmap(VA, BO_SIZE), 0, sa, NULL);
	err = err ?: fence_result(e->fd, sa);
	i = syncobj_wait(e->fd, job, 0);
	tap_ok(err == 1 && i == -ETIME, "unmapping C does not wait for it (%d, %s)", err,
	       strerror(-i));
	pinned1 = pinned_bytes();
	tap_ok(pinned0 == 2 * BO_SIZE && pinned1 == pinned0,
	       "C's pages stay pinned while the job runs (%lld, then %lld bytes of BOs)",
	       pinned0, pinned1);
	*e->gate_word = 1;
	err = fence_result(e->fd, job);
	tap_ok(err == -EIO && ca[2] == 0, "the job faults on the unmapped range (%s)",
	       strerror(-err));
	pinned2 = pinned_wait(BO_SIZE);
	tap_ok(pinned2 == BO_SIZE,
	       "once it ended C's pages are given back (%lld -> %lld bytes)", pinned0,
	       pinned2);
	munmap((void *)ca, BO_SIZE);
	ctx_destroy(e->fd, e->ctx2);
	ctx_create(e->fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0,
		   &e->ctx2);
}

static void check_errors(struct env *e)
{
	uint32_t gate, bad, sm, sn, sm2, bom, bon, dw[8], n = 0, so;
	volatile uint32_t *cm, *cn;
	struct drm_tern_vm_get_state st0, st;
	uint64_t seq;
	struct core_gate g;
	int err, r1, r2, r3;

	bom = new_bo(e->fd, &cm);
	bon = new_bo(e->fd, &cn);
	tap_errno(vm_map(e->fd, bon, VA + 4 * BO_SIZE, 0, BO_SIZE), 0, "map BO N");
	vm_state(e->fd, &st0);

	/* a job that faults once the gate opens: its fence carries EIO */
	gate = gate_close(e, e->ctx2, &g);
	bad = syncobj_new(e->fd);
	err = write_async(e->fd, e->ctx, 0, 0x7000000000ull, 1, gate, bad);
	tap_ok(!err, "a job that will fault, behind the gate (%s)", strerror(-err));
	sm = syncobj_new(e->fd);
	sn = syncobj_new(e->fd);
	sm2 = syncobj_new(e->fd);
	err = bind1(e->fd, op_map(bom, VA, BO_SIZE), bad, sm, &seq);
	tap_ok(!err, "a map waits for it (%s)", strerror(-err));
	err = bind1(e->fd, op_unmap(VA + 4 * BO_SIZE, BO_SIZE), 0, sn, NULL);
	tap_ok(!err, "an unmap of N is queued after it (%s)", strerror(-err));
	err = bind1(e->fd, op_map(bom, VA + 8 * BO_SIZE, BO_SIZE), 0, sm2, NULL);
	tap_ok(!err, "and another map (%s)", strerror(-err));
	core_gate_open(&g);
	r1 = fence_result(e->fd, sm);
	r2 = fence_result(e->fd, sn);
	r3 = fence_result(e->fd, sm2);
	tap_ok(r1 == -EIO, "the map fails with its in-fence's error (%s)", strerror(-r1));
	tap_ok(r2 == -ECANCELED && r3 == -ECANCELED,
	       "the binds queued after it are cancelled (%s, %s)", strerror(-r2),
	       strerror(-r3));
	err = vm_state(e->fd, &st);
	tap_ok(!err && !st.error && st.bind_error == -EIO && st.bind_error_seqno == seq &&
	       st.binds_failed == st0.binds_failed + 1 &&
	       st.binds_cancelled == st0.binds_cancelled + 2 && st.done == st.queued &&
	       st.mapped == st0.mapped,
	       "VM_GET_STATE: error %d of bind %llu, %llu failed, %llu cancelled, mapped as before",
	       st.bind_error, (unsigned long long)st.bind_error_seqno,
	       (unsigned long long)st.binds_failed, (unsigned long long)st.binds_cancelled);
	/* the address space is as before them */
	ctx_destroy(e->fd, e->ctx);
	ctx_create(e->fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &e->ctx);
	so = syncobj_new(e->fd);
	err = write_async(e->fd, e->ctx, bon, VA + 4 * BO_SIZE + 12, 0x5555, 0, so);
	err = err ?: fence_result(e->fd, so);
	tap_ok(err == 1 && cn[3] == 0x5555, "N is still mapped: a job writes through it (%d)",
	       err);
	tap_errno(vm_map(e->fd, bom, VA, 0, BO_SIZE), 0,
		  "the failed map's range is free: a map there works");
	tap_errno(vm_map(e->fd, bom, VA + 8 * BO_SIZE, 0, BO_SIZE), 0,
		  "so is the cancelled map's");
	tap_errno(vm_unmap(e->fd, VA, 9 * BO_SIZE), 0, "unmap them all");

	/* the users' errors order an unmap, they do not fail it */
	{
		uint32_t sj = syncobj_new(e->fd), su = syncobj_new(e->fd);

		tap_errno(vm_map(e->fd, bom, VA, 0, BO_SIZE), 0, "map M again");
		n = 0;
		pkt_write_imm(dw, &n, 0x7100000000ull, 1);
		err = submit(e->fd, e->ctx2, dw, n, &bom, 1, 0, sj, NULL);
		err = err ?: fence_result(e->fd, sj);
		tap_ok(err == -EIO, "a job that lists M faults (%s)", strerror(-err));
		err = bind1(e->fd, op_unmap(VA, BO_SIZE), 0, su, NULL);
		err = err ?: fence_result(e->fd, su);
		tap_ok(err == 1, "an unmap of M after it succeeds (%d)", err);
		ctx_destroy(e->fd, e->ctx2);
		ctx_create(e->fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0,
			   &e->ctx2);
	}

	/* SYNC returns the result */
	{
		struct drm_tern_vm_bind op = op_map(bom, VA, BO_SIZE);
		struct drm_tern_sync in = { .handle = bad };

		err = bind_ops(e->fd, &op, 1, DRM_TERN_VM_BIND_OPS_SYNC, NULL, 0, NULL, 0, NULL);
		tap_errno(err, 0, "a SYNC map returns once done");
		n = 0;
		pkt_write_imm(dw, &n, VA, 0x6666);
		err = submit(e->fd, e->ctx, dw, n, &bom, 1, 0, so, NULL);
		err = err ?: fence_result(e->fd, so);
		tap_ok(err == 1 && cm[0] == 0x6666, "a job uses it with no syncobj (%d)", err);
		op = op_unmap(VA, BO_SIZE);
		err = bind_ops(e->fd, &op, 1, DRM_TERN_VM_BIND_OPS_SYNC, &in, 1, NULL, 0, NULL);
		tap_errno(err, -EIO, "a SYNC unmap after a failed fence returns its error");
		err = bind_ops(e->fd, &op, 1, DRM_TERN_VM_BIND_OPS_SYNC, NULL, 0, NULL, 0, NULL);
		tap_errno(err, 0, "and the mapping is still there to unmap");
	}
	bo_close(e->fd, bom);
	bo_close(e->fd, bon);
}

static void check_bad_args(struct env *e)
{
	struct drm_tern_vm_bind ops[DRM_TERN_VM_BIND_OPS_MAX + 1];
	struct drm_tern_vm_get_state st0, st;
	struct drm_tern_vm_bind_ops a;
	struct drm_tern_sync s = { .handle = 0xdead };
	volatile uint32_t *c;
	uint32_t bo = new_bo(e->fd, &c), tl = syncobj_new(e->fd);
	int err;

	vm_state(e->fd, &st0);
	ops[0] = op_map(bo, VA, BO_SIZE);
	tap_errno(bind_ops(e->fd, ops, 0, 0, NULL, 0, NULL, 0, NULL), -EINVAL, "count 0");
	tap_errno(bind_ops(e->fd, ops, DRM_TERN_VM_BIND_OPS_MAX + 1, 0, NULL, 0, NULL, 0, NULL),
		  -EINVAL, "count above DRM_TERN_VM_BIND_OPS_MAX");
	tap_errno(bind_ops(e->fd, ops, 1, 2, NULL, 0, NULL, 0, NULL), -EINVAL, "unknown flags");
	a = (struct drm_tern_vm_bind_ops){ .ops = (uintptr_t)ops, .count = 1,
					   .stride = sizeof(ops[0]) - 8 };
	err = ioctl(e->fd, DRM_IOCTL_TERN_VM_BIND_OPS, &a) ? -errno : 0;
	tap_errno(err, -EINVAL, "a stride below sizeof(struct drm_tern_vm_bind)");
	{
		/* a larger entry: its tail must be zero */
		uint64_t big[sizeof(ops[0]) / 8 + 2] = { 0 };

		memcpy(big, &ops[0], sizeof(ops[0]));
		big[sizeof(ops[0]) / 8 + 1] = 1;
		a.ops = (uintptr_t)big;
		a.stride = sizeof(big);
		err = ioctl(e->fd, DRM_IOCTL_TERN_VM_BIND_OPS, &a) ? -errno : 0;
		tap_errno(err, -E2BIG, "a larger entry with a non-zero tail");
		a.ops = (uintptr_t)ops;
	}
	a.stride = DRM_TERN_VM_BIND_STRIDE_MAX + 8;
	err = ioctl(e->fd, DRM_IOCTL_TERN_VM_BIND_OPS, &a) ? -errno : 0;
	tap_errno(err, -EINVAL, "a stride above DRM_TERN_VM_BIND_STRIDE_MAX");
	a.stride = sizeof(ops[0]);
	a.pad = 1;
	err = ioctl(e->fd, DRM_IOCTL_TERN_VM_BIND_OPS, &a) ? -errno : 0;
	tap_errno(err, -EINVAL, "pad not 0");
	a.pad = 0;
	a.ops = 8;
	err = ioctl(e->fd, DRM_IOCTL_TERN_VM_BIND_OPS, &a) ? -errno : 0;
	tap_errno(err, -EFAULT, "an unreadable array");

	ops[1] = ops[0];
	ops[1].op = 7;
	err = bind_ops(e->fd, ops, 2, 0, NULL, 0, NULL, 0, &a);
	tap_ok(err == -EINVAL && a.error_index == 1 && !a.seqno,
	       "an unknown op, second (%s, index %u)", strerror(-err), a.error_index);
	ops[1] = op_map(bo, VA + BO_SIZE + 1, BO_SIZE);
	err = bind_ops(e->fd, ops, 2, 0, NULL, 0, NULL, 0, &a);
	tap_ok(err == -EINVAL && a.error_index == 1, "an unaligned VA (%s, index %u)",
	       strerror(-err), a.error_index);
	ops[1] = op_map(bo, 1ull << 48, BO_SIZE);
	err = bind_ops(e->fd, ops, 2, 0, NULL, 0, NULL, 0, &a);
	tap_ok(err == -ERANGE && a.error_index == 1, "a VA beyond 48 bits (%s)", strerror(-err));
	ops[1] = op_map(0xbad, VA + BO_SIZE, BO_SIZE);
	err = bind_ops(e->fd, ops, 2, 0, NULL, 0, NULL, 0, &a);
	tap_ok(err == -ENOENT && a.error_index == 1, "no such BO (%s)", strerror(-err));
	ops[1] = op_map(bo, VA + BO_SIZE, 2 * BO_SIZE);
	err = bind_ops(e->fd, ops, 2, 0, NULL, 0, NULL, 0, &a);
	tap_ok(err == -EINVAL && a.error_index == 1, "a range past the BO (%s)", strerror(-err));
	ops[1] = op_unmap(VA + 64 * BO_SIZE, BO_SIZE);
	err = bind_ops(e->fd, ops, 2, 0, NULL, 0, NULL, 0, &a);
	tap_ok(err == -ENOENT && a.error_index == 1, "an unmap of nothing (%s)", strerror(-err));
	ops[1] = op_unmap(VA + PAGE4K + 1, PAGE4K);
	err = bind_ops(e->fd, ops, 2, 0, NULL, 0, NULL, 0, &a);
	tap_ok(err == -EINVAL && a.error_index == 1,
	       "a misaligned unmap in the first op's mapping (%s, index %u)", strerror(-err),
	       a.error_index);
	ops[1] = op_unmap(VA, PAGE4K);
	err = bind_ops(e->fd, ops, 2, 0, NULL, 0, NULL, 0, &a);
	tap_ok(err == -EINVAL && a.error_index == 1,
	       "an unmap without DRM_TERN_VM_BIND_CUT that cuts the first op's mapping (%s, "
	       "index %u)", strerror(-err), a.error_index);
	ops[1] = op_unmap(VA + BO_SIZE - PAGE4K, 2 * PAGE4K);
	err = bind_ops(e->fd, ops, 2, 0, NULL, 0, NULL, 0, &a);
	tap_ok(err == -EINVAL && a.error_index == 1,
	       "and one of its last page and the page after it (%s, index %u)", strerror(-err),
	       a.error_index);
	ops[1] = op_unmap(VA, PAGE4K);
	ops[1].flags = DRM_TERN_VM_BIND_REPLACE;
	err = bind_ops(e->fd, ops, 2, 0, NULL, 0, NULL, 0, &a);
	tap_ok(err == -EINVAL && a.error_index == 1,
	       "DRM_TERN_VM_BIND_REPLACE on an unmap (%s, index %u)", strerror(-err),
	       a.error_index);
	ops[1] = op_map(bo, VA + BO_SIZE, PAGE4K);
	ops[1].flags = DRM_TERN_VM_BIND_CUT;
	err = bind_ops(e->fd, ops, 2, 0, NULL, 0, NULL, 0, &a);
	tap_ok(err == -EINVAL && a.error_index == 1,
	       "DRM_TERN_VM_BIND_CUT on a map (%s, index %u)", strerror(-err), a.error_index);
	ops[1].flags = 1u << 3;
	err = bind_ops(e->fd, ops, 2, 0, NULL, 0, NULL, 0, &a);
	tap_ok(err == -EINVAL && a.error_index == 1, "an unknown map flag, bit 3 (%s, index %u)",
	       strerror(-err), a.error_index);
	ops[1] = op_map(0xbad, VA, PAGE4K);
	ops[1].flags = DRM_TERN_VM_BIND_REPLACE;
	err = bind_ops(e->fd, ops, 2, 0, NULL, 0, NULL, 0, &a);
	tap_ok(err == -ENOENT && a.error_index == 1,
	       "a REPLACE map of no such BO over the first op's mapping (%s, index %u)",
	       strerror(-err), a.error_index);
	err = bind_ops(e->fd, ops, 1, 0, &s, 1, NULL, 0, &a);
	tap_ok(err == -ENOENT && a.error_index == 1,
	       "no such in-sync (%s, index %u: no operation's)", strerror(-err), a.error_index);
	s = (struct drm_tern_sync){ .handle = tl, .point = 3 };
	tap_errno(bind_ops(e->fd, ops, 1, 0, &s, 1, NULL, 0, NULL), -ENOENT,
		  "a timeline in-point with no fence yet");
	s = (struct drm_tern_sync){ .handle = 0xdead };
	tap_errno(bind_ops(e->fd, ops, 1, 0, NULL, 0, &s, 1, NULL), -ENOENT, "no such out-sync");
	s = (struct drm_tern_sync){ .handle = tl, .flags = 1 };
	tap_errno(bind_ops(e->fd, ops, 1, 0, NULL, 0, &s, 1, NULL), -EINVAL, "a sync with flags");
	err = vm_state(e->fd, &st);
	tap_ok(!err && st.queued == st0.queued && st.mapped == st0.mapped,
	       "none of them queued anything (%llu binds, %llu bytes mapped)",
	       (unsigned long long)st.queued, (unsigned long long)st.mapped);
	st.flags = 1;
	err = ioctl(e->fd, DRM_IOCTL_TERN_VM_GET_STATE, &st) ? -errno : 0;
	tap_errno(err, -EINVAL, "VM_GET_STATE with flags");

	/* interface 1.5: with DRM_TERN_VM_BIND_CUT, that unmap is taken */
	ops[1] = op_cut(VA, PAGE4K);
	err = bind_ops(e->fd, ops, 2, DRM_TERN_VM_BIND_OPS_SYNC, NULL, 0, NULL, 0, &a);
	tap_ok(!err && a.error_index == 2 && a.seqno == st0.queued + 1,
	       "a map and an unmap with DRM_TERN_VM_BIND_CUT that cuts its first page, in one "
	       "bind (%s, index %u)", strerror(-err), a.error_index);
	err = vm_state(e->fd, &st);
	tap_ok(!err && st.mapped == st0.mapped + BO_SIZE - PAGE4K,
	       "what is left of the mapping stays mapped (%llu bytes mapped, %llu before)",
	       (unsigned long long)st.mapped, (unsigned long long)st0.mapped);
	tap_errno(vm_unmap(e->fd, VA, PAGE4K), -ENOENT, "the cut page is unmapped");
	tap_errno(vm_unmap(e->fd, VA + PAGE4K, BO_SIZE - PAGE4K), 0, "and the rest unmaps");
	bo_close(e->fd, bo);
}

#define MARK_VA		0x7e5c00000000ull	/* finds this file's VM in debugfs */
#define MARK_SIZE	(3 * PAGE4K)

/* debugfs "vms" lists exactly @want (see core_vm_layout()) in [lo, hi). */
static bool layout_is(const char *what, uint64_t lo, uint64_t hi, const char *want)
{
	return core_layout_is(what, MARK_VA, MARK_SIZE, lo, hi, want);
}

/*
 * DRM_TERN_VM_BIND_CUT with mappings in place: a bind whose unmap would cut
 * without it is refused and changes nothing, the flag where it does not
 * belong too; with it, whole mappings go as with a plain unmap.
 */
static void check_cut_flag(struct env *e)
{
	const uint64_t va2 = VA + 2 * BO_SIZE, lo = VA - BO_SIZE, hi = VA + 4 * BO_SIZE;
	const uint64_t offs[] = { 0, BO_SIZE / 2 + 8, BO_SIZE - 4 };
	struct drm_tern_vm_bind ops[3];
	struct drm_tern_vm_get_state st0, st;
	struct drm_tern_vm_bind_ops a;
	struct drm_tern_sync out;
	volatile uint32_t *c;
	uint32_t bo = new_bo(e->fd, &c), mark = 0, so = syncobj_new(e->fd);
	char want[256], what[128];
	unsigned int i;
	int err;

	ops[0] = op_map(bo, VA, BO_SIZE);
	ops[1] = op_map(bo, va2, 4 * PAGE4K);
	if (!tap_ok(bo && !bo_create(e->fd, MARK_SIZE, &mark) &&
		    !vm_map(e->fd, mark, MARK_VA, 0, MARK_SIZE) &&
		    !bind_ops(e->fd, ops, 2, DRM_TERN_VM_BIND_OPS_SYNC, NULL, 0, NULL, 0, NULL),
		    "cut flag: a marker mapping; a BO mapped whole, and its first 4 pages after it"))
		return;
	snprintf(want, sizeof(want), "%llx-%llx rw @0; %llx-%llx rw @0", (unsigned long long)VA,
		 (unsigned long long)(VA + BO_SIZE), (unsigned long long)va2,
		 (unsigned long long)(va2 + 4 * PAGE4K));
	layout_is("cut flag: before", lo, hi, want);
	vm_state(e->fd, &st0);

	/* without the flag, an unmap that would cut is refused, after fine operations too */
	ops[0] = op_unmap(VA + 4 * PAGE4K, 2 * PAGE4K);
	err = bind_ops(e->fd, ops, 1, 0, NULL, 0, NULL, 0, &a);
	tap_ok(err == -EINVAL && a.error_index == 0 && !a.seqno,
	       "an unmap of two pages in the middle of a mapping without DRM_TERN_VM_BIND_CUT "
	       "(%s, index %u)", strerror(-err), a.error_index);
	ops[0] = op_unmap(va2, 4 * PAGE4K);
	ops[1] = op_unmap(VA, PAGE4K);
	err = bind_ops(e->fd, ops, 2, 0, NULL, 0, NULL, 0, &a);
	tap_ok(err == -EINVAL && a.error_index == 1 && !a.seqno,
	       "an unmap of the second mapping whole, then one of the first's first page "
	       "without it (%s, index %u)", strerror(-err), a.error_index);
	ops[0] = op_cut(VA + 4 * PAGE4K, 2 * PAGE4K);
	ops[1] = op_map(bo, VA + 4 * PAGE4K, 2 * PAGE4K);
	ops[2] = op_unmap(va2 + 3 * PAGE4K, 2 * PAGE4K);
	err = bind_ops(e->fd, ops, 3, 0, NULL, 0, NULL, 0, &a);
	tap_ok(err == -EINVAL && a.error_index == 2 && !a.seqno,
	       "a cut with the flag, a map into the hole, then an unmap of the second mapping's "
	       "last page and the page after it without the flag (%s, index %u)",
	       strerror(-err), a.error_index);
	err = bind_ops(e->fd, ops, 3, DRM_TERN_VM_BIND_OPS_SYNC, NULL, 0, NULL, 0, &a);
	tap_ok(err == -EINVAL && a.error_index == 2 && !a.seqno, "the same with SYNC (%s, "
	       "index %u)", strerror(-err), a.error_index);

	/* the flag where it does not belong */
	ops[0] = op_map(bo, VA + 3 * BO_SIZE, PAGE4K);
	ops[0].flags = DRM_TERN_VM_BIND_CUT;
	err = bind_ops(e->fd, ops, 1, 0, NULL, 0, NULL, 0, &a);
	tap_ok(err == -EINVAL && a.error_index == 0, "DRM_TERN_VM_BIND_CUT on a map at a free VA "
	       "(%s, index %u)", strerror(-err), a.error_index);
	ops[0] = op_map(bo, VA + 4 * PAGE4K, 2 * PAGE4K);
	ops[0].flags = DRM_TERN_VM_BIND_CUT | DRM_TERN_VM_BIND_REPLACE;
	err = bind_ops(e->fd, ops, 1, 0, NULL, 0, NULL, 0, &a);
	tap_ok(err == -EINVAL && a.error_index == 0,
	       "DRM_TERN_VM_BIND_CUT with REPLACE on a map over the middle of a mapping (%s, "
	       "index %u)", strerror(-err), a.error_index);
	ops[0] = op_cut(va2, 4 * PAGE4K);
	ops[0].flags |= DRM_TERN_VM_BIND_READ_ONLY;
	err = bind_ops(e->fd, ops, 1, 0, NULL, 0, NULL, 0, &a);
	tap_ok(err == -EINVAL && a.error_index == 0,
	       "DRM_TERN_VM_BIND_CUT with READ_ONLY on an unmap (%s, index %u)", strerror(-err),
	       a.error_index);

	/* nothing changed */
	err = vm_state(e->fd, &st);
	tap_ok(!err && st.queued == st0.queued && st.mapped == st0.mapped,
	       "cut flag: none of them queued anything (%llu binds, %llu bytes mapped, %llu and "
	       "%llu before)", (unsigned long long)st.queued, (unsigned long long)st.mapped,
	       (unsigned long long)st0.queued, (unsigned long long)st0.mapped);
	layout_is("cut flag: after the refused binds, both mappings are whole", lo, hi, want);
	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		c[offs[i] / 4] = 0;
		err = write_async(e->fd, e->ctx, bo, VA + offs[i], 0xc0de0000 + i, 0, so);
		err = err ?: fence_result(e->fd, so);
		snprintf(what, sizeof(what), "cut flag: a job writes through VA %#llx",
			 (unsigned long long)(VA + offs[i]));
		tap_ok(err == 1 && c[offs[i] / 4] == 0xc0de0000 + i,
		       "%s into the BO at offset %#llx (%d, %#x there)", what,
		       (unsigned long long)offs[i], err, c[offs[i] / 4]);
	}
	err = write_async(e->fd, e->ctx, bo, va2 + 4 * PAGE4K - 4, 0xc0de00ff, 0, so);
	err = err ?: fence_result(e->fd, so);
	tap_ok(err == 1 && c[(4 * PAGE4K - 4) / 4] == 0xc0de00ff,
	       "cut flag: and through the second mapping's last word (%d)", err);

	/* with the flag: whole mappings go as with a plain unmap; cuts, asynchronously */
	ops[0] = op_cut(va2 - PAGE4K, 6 * PAGE4K);
	err = bind_ops(e->fd, ops, 1, DRM_TERN_VM_BIND_OPS_SYNC, NULL, 0, NULL, 0, &a);
	err = err ?: vm_state(e->fd, &st);
	tap_ok(!err && st.mapped == st0.mapped - 4 * PAGE4K,
	       "an unmap with DRM_TERN_VM_BIND_CUT of a range holding the second mapping whole "
	       "and free pages removes it (%s, %llu bytes mapped)", strerror(-err),
	       (unsigned long long)st.mapped);
	snprintf(want, sizeof(want), "%llx-%llx rw @0", (unsigned long long)VA,
		 (unsigned long long)(VA + BO_SIZE));
	layout_is("cut flag: the first mapping is left, whole", lo, hi, want);
	ops[0] = op_cut(VA + BO_SIZE - PAGE4K, 2 * PAGE4K);
	ops[1] = op_cut(VA + 4 * PAGE4K, 2 * PAGE4K);
	ops[2] = op_cut(VA, PAGE4K);
	out = (struct drm_tern_sync){ .handle = so };
	err = bind_ops(e->fd, ops, 3, 0, NULL, 0, &out, 1, &a);
	err = err ?: fence_result(e->fd, so);
	tap_ok(err == 1, "an asynchronous bind of three unmaps with the flag: the last page and "
	       "the page after it, two pages in the middle, the first page (%d)", err);
	snprintf(want, sizeof(want), "%llx-%llx rw @1000; %llx-%llx rw @6000",
		 (unsigned long long)(VA + PAGE4K), (unsigned long long)(VA + 4 * PAGE4K),
		 (unsigned long long)(VA + 6 * PAGE4K),
		 (unsigned long long)(VA + BO_SIZE - PAGE4K));
	layout_is("cut flag: two pieces are left, at their offsets", lo, hi, want);
	ops[0] = op_unmap(VA, BO_SIZE);
	err = bind_ops(e->fd, ops, 1, DRM_TERN_VM_BIND_OPS_SYNC, NULL, 0, NULL, 0, &a);
	tap_errno(err, 0, "an unmap without the flag of the whole range removes both pieces");
	layout_is("cut flag: nothing left", lo, hi, "none");
	vm_unmap(e->fd, MARK_VA, MARK_SIZE);
	bo_close(e->fd, mark);
	bo_close(e->fd, bo);
	munmap((void *)c, BO_SIZE);
	drmSyncobjDestroy(e->fd, so);
}

/* More than DRM_TERN_VM_BIND_QUEUE_MAX operations queued: EAGAIN. */
static void check_queue_full(struct env *e)
{
	static struct drm_tern_vm_bind ops[DRM_TERN_VM_BIND_OPS_MAX];
	uint32_t gate, bo, done = syncobj_new(e->fd);
	unsigned int i, k, queued = 0;
	volatile uint32_t *c;
	struct core_gate g;
	int err = 0;

	bo = new_bo(e->fd, &c);
	gate = gate_close(e, e->ctx2, &g);
	for (k = 0; !err && k < DRM_TERN_VM_BIND_QUEUE_MAX / DRM_TERN_VM_BIND_OPS_MAX + 1; k++) {
		struct drm_tern_sync in = { .handle = gate }, out = { .handle = done };

		for (i = 0; i < DRM_TERN_VM_BIND_OPS_MAX; i++)
			ops[i] = op_map(bo, VA + (k * DRM_TERN_VM_BIND_OPS_MAX + i) * PAGE4K,
					PAGE4K);
		err = bind_ops(e->fd, ops, DRM_TERN_VM_BIND_OPS_MAX, 0, &in, 1, &out, 1, NULL);
		if (!err)
			queued += DRM_TERN_VM_BIND_OPS_MAX;
	}
	tap_ok(err == -EAGAIN && queued == DRM_TERN_VM_BIND_QUEUE_MAX,
	       "binds queue until %u operations wait, then EAGAIN (%u, %s)",
	       DRM_TERN_VM_BIND_QUEUE_MAX, queued, strerror(-err));
	{
		/*
		 * The queue full refuses a bind whole (error_index is its
		 * count), before a map places (and, while it is in flight,
		 * pins) its BO: a LOCAL BO the CPU wrote is not paged in for
		 * nothing, and nothing is evicted for it (interface 1.7).
		 */
		struct drm_tern_vm_bind_ops res = {};
		long long in0 = core_paging_jobs("in"), ev0 = core_memory_value("evictions");
		volatile uint32_t *lp = NULL;
		uint32_t l = 0;
		uint64_t got;

		err = bo_create_local(e->fd, 2 * PAGE4K, &l);
		lp = err ? NULL : bo_mmap(e->fd, l, &got);
		if (lp)
			lp[0] = 1;
		ops[0] = op_unmap(VA_LOCAL, PAGE4K);
		ops[1] = op_map(l, VA_LOCAL, 2 * PAGE4K);
		err = lp ? bind_ops(e->fd, ops, 2, 0, NULL, 0, NULL, 0, &res) : -ENOMEM;
		tap_ok(err == -EAGAIN && res.error_index == 2 &&
		       core_paging_jobs("in") == in0 && core_memory_value("evictions") == ev0,
		       "queue full: a bind that maps a LOCAL BO is EAGAIN whole (index %u), nothing paged in (%s)",
		       res.error_index, strerror(-err));
		if (lp)
			munmap((void *)lp, 2 * PAGE4K);
		bo_close(e->fd, l);
	}
	core_gate_open(&g);
	/* the last bind queued: they are done in order */
	err = fence_result(e->fd, done);
	tap_ok(err == 1, "once the gate opens they run (%d)", err);
	ops[0] = op_unmap(VA, (uint64_t)queued * PAGE4K);
	err = bind_ops(e->fd, ops, 1, 0, NULL, 0,
		       &(struct drm_tern_sync){ .handle = done }, 1, NULL);
	err = err ?: fence_result(e->fd, done);
	tap_ok(err == 1, "one unmap removes them all (%d)", err);
	bo_close(e->fd, bo);
}

/* Closing the file cancels the binds that still wait. */
static void check_close(void)
{
	int fd = tern_test_open(), fd2 = tern_test_open(), err, sf = -1, st;
	uint32_t ctx, gbo, gate, gate2, so, bo;
	volatile uint32_t *word, *c;
	struct core_gate g;
	void *map;

	if (fd < 0 || fd2 < 0 ||
	    ctx_create(fd2, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &ctx) ||
	    core_bo(fd2, BO_SIZE, VA, &gbo, &map)) {
		tap_ok(false, "open two files");
		return;
	}
	word = map;
	gate = syncobj_new(fd2);
	core_gate_init(&g, fd2, ctx, gbo, VA, word, gate);
	/* the other file's gate, as this file's in-sync */
	gate2 = syncobj_new(fd);
	err = drmSyncobjExportSyncFile(fd2, gate, &sf);
	err = err ?: drmSyncobjImportSyncFile(fd, gate2, sf);
	close(sf);
	bo = new_bo(fd, &c);
	so = syncobj_new(fd);
	err = err ?: bind1(fd, op_map(bo, VA, BO_SIZE), gate2, so, NULL);
	sf = -1;
	err = err ?: drmSyncobjExportSyncFile(fd, so, &sf);
	tap_ok(!err, "a bind waits for another file's gate (%s)", strerror(-err));
	/* a CPU mapping holds the file open */
	munmap((void *)c, BO_SIZE);
	close(fd);
	st = sf >= 0 && !sync_wait_fd(sf, 5000) ? sync_fd_status(sf) : -1000;
	tap_ok(st == -ECANCELED, "closing the file cancels it (%d)", st);
	close(sf);
	core_gate_open(&g);
	syncobj_wait(fd2, gate, 20000);
	munmap(map, BO_SIZE);
	close(fd2);
}

/* One process: bind, use and unbind asynchronously, ROUNDS times. */
static int process_main(int id)
{
	int fd = tern_test_open(), errors = 0, i;
	uint32_t ctx, bo, s_map, s_job, s_unmap;
	volatile uint32_t *c;

	if (fd < 0 || ctx_create(fd, DRM_TERN_PRIORITY_NORMAL,
				 DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &ctx))
		return 1;
	bo = new_bo(fd, &c);
	s_map = syncobj_new(fd);
	s_job = syncobj_new(fd);
	s_unmap = syncobj_new(fd);
	for (i = 0; i < ROUNDS; i++) {
		uint64_t va = VA + ((uint64_t)id << 30) + (i % 8) * BO_SIZE;

		errors += bind1(fd, op_map(bo, va, BO_SIZE), 0, s_map, NULL) != 0;
		errors += write_async(fd, ctx, bo, va + 4 * (i % 64), 0x100 + i, s_map,
				      s_job) != 0;
		errors += bind1(fd, op_unmap(va, BO_SIZE), s_job, s_unmap, NULL) != 0;
		errors += fence_result(fd, s_unmap) != 1;
		errors += fence_result(fd, s_job) != 1 || c[i % 64] != 0x100u + i;
	}
	close(fd);
	return errors ? 1 : 0;
}

int main(void)
{
	struct env e = { .gate_va = VA + (1ull << 36) };
	pid_t pids[PROCS];
	int i, status, failed = 0;
	void *map;

	e.fd = tern_test_open();
	if (e.fd < 0 ||
	    ctx_create(e.fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0,
		       &e.ctx) ||
	    ctx_create(e.fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0,
		       &e.ctx2) ||
	    core_bo(e.fd, BO_SIZE, e.gate_va, &e.gate_bo, &map)) {
		tap_ok(false, "open the device, two contexts, a gate BO");
		return tap_exit_status();
	}
	e.gate_word = map;

	check_order_and_deps(&e);
	check_unmap_waits(&e);
	check_errors(&e);
	check_bad_args(&e);
	check_cut_flag(&e);
	check_queue_full(&e);
	check_close();

	for (i = 0; i < PROCS; i++) {
		pids[i] = fork();
		if (!pids[i])
			_exit(process_main(i));
	}
	for (i = 0; i < PROCS; i++)
		if (pids[i] < 0 || waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	tap_ok(!failed, "%d processes bind, submit and unbind asynchronously, %d rounds each",
	       PROCS, ROUNDS);
	close(e.fd);
	tap_done();
	return tap_exit_status();
}
