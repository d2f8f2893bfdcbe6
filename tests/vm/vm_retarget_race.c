// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * vm_retarget_race: moves of mapped LOCAL BOs (interface 1.7) racing the
 * other users of the address spaces that map them.
 *
 * A move rewrites the page-table entries of every mapping of the BO in
 * every address space ("retarget") as the address space's runner of binds,
 * invalidates the TLBs and waits for the engines before the old place is
 * freed.  Checked, with X a LOCAL BO of a quarter of local memory and Y, Z
 * LOCAL BOs that do not fit next to it:
 *
 * (a) thread B submits jobs listing Y, X, Z, X in turn (each pages its BO
 *     in and the one before out: X moves in and out every step), thread C
 *     meanwhile runs jobs that copy X without listing it (through entries
 *     that are rewritten under them), thread A binds and unbinds other
 *     ranges asynchronously (a SYSTEM BO and a small LOCAL BO, whose maps
 *     page in too).  Every job and bind succeeds, none faults; each of C's
 *     copies is bit-exact; B's context paged exactly its BOs in; X, Y, Z
 *     hold exactly what the listed jobs wrote (the CPU checks every word).
 * (b) over many rounds, a second mapping of X is unmapped (asynchronous
 *     bind) while a job listing Y evicts X: both complete, then a job
 *     writing into the unmapped range faults there (a retarget must not
 *     bring back entries an unmap removed), X is intact for the CPU, and
 *     its first mapping still reads bit-exact.
 * (c) a LOCAL BO shared by PRIME with another process (its own file), so
 *     mapped in two address spaces: evicted by this process, a move
 *     retargets both (debugfs retargets counted exactly); paged back in by
 *     the other process's job (whose context is charged for it), written
 *     by either, both see the same bytes, through jobs that list it, jobs
 *     that do not, and the CPU.
 * (d) a child whose submits page two LOCAL BOs in and out is killed with
 *     SIGKILL, a few times: no local or system memory is left used, no
 *     paging buffer failed, and the device still pages and runs jobs.
 *
 * No retarget falls back to the CPU throughout.
 *
 * tern-vm: device=local-mem-size=32M timeout=150
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>

#include "residency_test.h"

#define VA_X		0x100000000ull
#define VA_Y		0x200000000ull
#define VA_Z		0x300000000ull
#define VA_X2		0x400000000ull	/* X's second mapping, in (b) */
#define VA_A		0x500000000ull	/* thread A's ranges */
#define VA_AW		(VA_A + 0x10000000ull)
#define VA_OUT		0x600000000ull	/* thread C's output */
#define VA_S		0x700000000ull
#define VA_P		0x800000000ull	/* the shared BO, in (c), in both */
#define WIN		MIB		/* what one of C's jobs copies */
#define M_SIZE		(64 * KIB)
#define STEPS		16
#define ROUNDS_B	8
#define KILLS		4
#define MARKER		0x6badf00du
#define P_SEED		0x77u

static int fd;
static uint64_t lsize;
static struct rt_bo x, y, z, w;
static uint32_t m_bo, out_bo, s_bo, ctx_b, ctx_c;
static volatile uint32_t *outp, *sp;

static struct {
	atomic_bool stop;
	int b_ok, b_eagain, b_err;
	int c_jobs, c_bad, c_err;
	int a_binds, a_bad, a_err;
} rc;

static int vm_state(int f, struct drm_tern_vm_get_state *st)
{
	memset(st, 0, sizeof(*st));
	return ioctl(f, DRM_IOCTL_TERN_VM_GET_STATE, st) ? -errno : 0;
}

/* Thread B: jobs listing Y, X, Z, X in turn; each fills a slot of its BO. */
static void *pager(void *arg)
{
	struct rt_bo *seq[4] = { &y, &x, &z, &x };
	uint32_t dw[8], n;
	int i, ret, tries;

	(void)arg;
	for (i = 0; i < STEPS; i++) {
		struct rt_bo *t = seq[i % 4];
		/* X: its first half only; C reads the second */
		uint32_t k = t == &x ? (uint32_t)(i / 2) % (x.nslots / 2) :
				      (uint32_t)(i / 4) % t->nslots;
		uint32_t v = (t == &x ? 0x0b000000u : 0x0c000000u) | (uint32_t)i;

		n = 0;
		rt_pkt_fill_slot(dw, &n, t, k, v);
		tries = 0;
		while ((ret = rt_run(fd, ctx_b, dw, n, &t->handle, 1)) == -EAGAIN &&
		       tries++ < 50) {
			rc.b_eagain++;
			usleep(2000);
		}
		if (!ret) {
			rt_model_fill(t, k, v);
			rc.b_ok++;
		} else if (!rc.b_err) {
			rc.b_err = ret;
		}
	}
	atomic_store(&rc.stop, true);
	return NULL;
}

/* Thread C: jobs that copy X's second half without listing it. */
static void *reader(void *arg)
{
	uint32_t dw[8], n, wins = (uint32_t)(x.size / 2 / WIN);
	int ret, j = 0;

	(void)arg;
	while (!atomic_load(&rc.stop)) {
		uint64_t off = x.size / 2 + (uint64_t)(j++ % wins) * WIN;

		n = 0;
		pkt_copy(dw, &n, x.va + off, VA_OUT, (uint32_t)WIN);
		memset((void *)outp, 0, WIN);
		ret = rt_run(fd, ctx_c, dw, n, NULL, 0);
		if (ret) {
			rc.c_err = ret;
			break;
		}
		rc.c_jobs++;
		if (!rt_words_pattern(outp, WIN / 4, x.seed, off / 4) && ++rc.c_bad > 3)
			break;
	}
	return NULL;
}

/* Thread A: asynchronous maps and unmaps of other ranges. */
static void *binder(void *arg)
{
	uint32_t so = syncobj_new(fd);
	int i = 0, k, ret;

	(void)arg;
	while (!atomic_load(&rc.stop)) {
		uint64_t va = VA_A + (uint64_t)(i++ % 16) * MIB;
		struct drm_tern_vm_bind ops[4] = {
			{ .op = DRM_TERN_VM_BIND_OP_MAP, .handle = m_bo, .va = va, .range = M_SIZE },
			{ .op = DRM_TERN_VM_BIND_OP_MAP, .handle = w.handle, .va = VA_AW,
			  .range = w.size },
			{ .op = DRM_TERN_VM_BIND_OP_UNMAP, .va = va, .range = M_SIZE },
			{ .op = DRM_TERN_VM_BIND_OP_UNMAP, .va = VA_AW, .range = w.size },
		};

		for (k = 0; k < 4; k++) {
			ret = rt_bind_async(fd, ops[k], so);
			if (!ret) {
				ret = rt_fence_result(fd, so);
				ret = ret == 1 ? 0 : ret < 0 ? ret : -EPROTO;
			}
			if (!ret) {
				rc.a_binds++;
			} else {
				rc.a_bad++;
				if (!rc.a_err)
					rc.a_err = ret;
			}
		}
	}
	drmSyncobjDestroy(fd, so);
	return NULL;
}

/* A job on @ctx listing @b that writes a word of S (it only moves @b). */
static int touch(uint32_t ctx, struct rt_bo *b)
{
	uint32_t dw[4], n = 0;

	pkt_write_imm(dw, &n, VA_S, b->seed);
	return rt_run(fd, ctx, dw, n, &b->handle, 1);
}

/* A job on @ctx listing @b (NULL: none) that fills slot @k of @t. */
static int fill_job(uint32_t ctx, struct rt_bo *t, uint32_t k, uint32_t v, struct rt_bo *b)
{
	uint32_t dw[8], n = 0;
	int ret;

	rt_pkt_fill_slot(dw, &n, t, k, v);
	ret = rt_run(fd, ctx, dw, n, b ? &b->handle : NULL, b ? 1 : 0);
	if (!ret)
		rt_model_fill(t, k, v);
	return ret;
}

static void part_a(void)
{
	struct drm_tern_vm_get_state vs0, vs1;
	struct rt_paging pb0, pb1, pc;
	uint64_t want_in = 0;
	struct rt_counts c0, c1;
	pthread_t ta, tb, tc;
	bool started;
	int i, ret;

	/* X in, Y and Z out: B's first job pages Y in */
	ret = touch(ctx_b, &x);
	if (ret)
		tap_diag("making X resident: %s", strerror(-ret));
	rt_paging(fd, ctx_b, &pb0);
	rt_counts(&c0);
	vm_state(fd, &vs0);
	started = !pthread_create(&ta, NULL, binder, NULL);
	started = !pthread_create(&tc, NULL, reader, NULL) && started;
	started = !pthread_create(&tb, NULL, pager, NULL) && started;
	if (!started) {
		tap_diag("cannot start the threads");
		atomic_store(&rc.stop, true);
		return;
	}
	pthread_join(tb, NULL);
	pthread_join(ta, NULL);
	pthread_join(tc, NULL);
	rt_paging(fd, ctx_b, &pb1);
	rt_counts(&c1);
	vm_state(fd, &vs1);
	for (i = 0; i < STEPS; i++)
		want_in += (i % 4 == 0 ? y.size : i % 4 == 2 ? z.size : x.size);

	tap_ok(rc.b_ok == STEPS,
	       "(a) thread B: %d jobs listing Y, X, Z, X in turn ran (%s; EAGAIN retried %d times)",
	       rc.b_ok, strerror(-rc.b_err), rc.b_eagain);
	tap_ok(pb1.in - pb0.in == want_in && pb1.evictions - pb0.evictions >= STEPS,
	       "(a) each paged its BO in first: B's context paged %llu MiB in (want %llu), %llu evictions",
	       (unsigned long long)((pb1.in - pb0.in) / MIB), (unsigned long long)(want_in / MIB),
	       (unsigned long long)(pb1.evictions - pb0.evictions));
	tap_ok(rc.c_jobs >= 8 && !rc.c_bad && !rc.c_err,
	       "(a) thread C: %d jobs copied X without listing it while it moved in and out, %d not bit-exact (%s)",
	       rc.c_jobs, rc.c_bad, strerror(-rc.c_err));
	tap_ok(rc.a_binds >= 4 && !rc.a_bad && !vs1.error &&
	       vs1.binds_failed == vs0.binds_failed,
	       "(a) thread A: %d asynchronous binds of other ranges (a LOCAL BO among them) succeeded meanwhile, %d did not (%s); VM_GET_STATE: none failed",
	       rc.a_binds, rc.a_bad, strerror(-rc.a_err));
	ret = rt_paging(fd, ctx_b, &pb1) && rt_paging(fd, ctx_c, &pc);
	tap_ok(ret && pb1.state == DRM_TERN_CONTEXT_ACTIVE && pc.state == DRM_TERN_CONTEXT_ACTIVE,
	       "(a) no job faulted: both contexts are active");
	tap_ok(c1.retargets - c0.retargets >= 2 * STEPS && c1.retarget_cpu == c0.retarget_cpu,
	       "(a) debugfs: %lld retargets, at least two per step (a BO in, one out), none by the CPU",
	       c1.retargets - c0.retargets);
	tap_ok(rt_check(&x) && rt_check(&y) && rt_check(&z),
	       "(a) X, Y and Z are bit-exact for the CPU: what the listed jobs wrote, their patterns elsewhere");
}

/* Does @out hold words [@first, @first + @count) of @b as the model says? */
static bool words_as(const volatile uint32_t *out, const struct rt_bo *b, size_t first,
		     size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (out[i] != rt_want(b, first + i)) {
			tap_diag("%s word %zu: 0x%08x, want 0x%08x", b->name, first + i, out[i],
				 rt_want(b, first + i));
			return false;
		}
	return true;
}

/* (b): the job that evicts X while the unmap of its second mapping runs */
struct evictor {
	pthread_barrier_t *bar;
	unsigned int seed;
	int round;
	int ret;
};

static void *evict_x(void *arg)
{
	struct evictor *e = arg;

	pthread_barrier_wait(e->bar);
	usleep(rand_r(&e->seed) % 3000);
	e->ret = fill_job(ctx_b, &y, 1 + e->round, 0x0d000000u | (uint32_t)e->round, &y);
	return NULL;
}

static void part_b(void)
{
	int r, ret, bad = 0, faulted = 0, intact = 0, both = 0;
	uint32_t so = syncobj_new(fd), dw[8], n, cf = 0;
	unsigned int seed = 11;
	pthread_barrier_t bar;
	struct rt_counts c0, c1;

	pthread_barrier_init(&bar, NULL, 2);
	for (r = 0; r < ROUNDS_B; r++) {
		struct evictor e = { .bar = &bar, .seed = 100u + r, .round = r };
		struct drm_tern_context_get_state st = { 0 };
		uint64_t off = (uint64_t)((r * 97) % (x.size / PAGE4K)) * PAGE4K + 4 * r;
		pthread_t t;
		int u;

		/* X in local memory and mapped twice */
		ret = touch(ctx_b, &x) ?: vm_map(fd, x.handle, VA_X2, 0, x.size);
		if (ret || pthread_create(&t, NULL, evict_x, &e)) {
			tap_diag("round %d: set-up: %s", r, strerror(-ret));
			bad++;
			break;
		}
		rt_counts(&c0);
		pthread_barrier_wait(&bar);
		usleep(rand_r(&seed) % 3000);
		u = rt_bind_async(fd, (struct drm_tern_vm_bind){
			.op = DRM_TERN_VM_BIND_OP_UNMAP, .va = VA_X2, .range = x.size }, so);
		pthread_join(t, NULL);
		u = u ?: rt_fence_result(fd, so);
		rt_counts(&c1);
		if (u != 1 || e.ret) {
			tap_diag("round %d: unmap %d, job listing Y %s", r, u, strerror(-e.ret));
			bad++;
		}
		/* X out, Y in: 2 retargets, 3 if the move found the second mapping live */
		both += c1.retargets - c0.retargets == 3;

		/* the unmapped range faults, whatever came first */
		ret = ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &cf);
		n = 0;
		pkt_write_imm(dw, &n, VA_X2 + off, MARKER);
		ret = ret ?: rt_run(fd, cf, dw, n, NULL, 0);
		if (ret == -EIO && !ctx_state(fd, cf, &st) && st.state == DRM_TERN_CONTEXT_FAULTED &&
		    st.fault_kind == 1 && st.fault_addr == VA_X2 + off)
			faulted++;
		else
			tap_diag("round %d: the job writing at %#llx: %s, fault kind %u at %#llx", r,
				 (unsigned long long)(VA_X2 + off), strerror(-ret), st.fault_kind,
				 (unsigned long long)st.fault_addr);
		ctx_destroy(fd, cf);
		intact += x.cpu[off / 4] == rt_want(&x, off / 4);
	}
	pthread_barrier_destroy(&bar);
	drmSyncobjDestroy(fd, so);
	tap_diag("(b) %d of %d moves of X found its second mapping still mapped", both, r);
	tap_ok(r == ROUNDS_B && !bad,
	       "(b) %d rounds: X's second mapping unmapped while a job listing Y evicts X; both complete (%d did not)",
	       r, bad);
	tap_ok(faulted == ROUNDS_B,
	       "(b) after each, a job writing into the unmapped range faults at its address (%d of %d)",
	       faulted, ROUNDS_B);
	n = 0;
	pkt_copy(dw, &n, x.va, VA_S, (uint32_t)WIN);
	memset((void *)sp, 0, WIN);
	ret = rt_run(fd, ctx_c, dw, n, NULL, 0);
	tap_ok(intact == ROUNDS_B && rt_check(&x) && !ret && words_as(sp, &x, 0, WIN / 4),
	       "(b) X is intact for the CPU (no marker landed: %d of %d intact), and a job reads it bit-exact through its first mapping (%s)",
	       intact, ROUNDS_B, strerror(-ret));
}

/* ---- (c) ---- */
struct reply {
	int ret;
	int ok;
	struct rt_paging pg;
};

/* The other process: imports the shared BO, then does what it is told. */
static void prime_child(int dmabuf, uint64_t size, int cmd, int rep)
{
	uint32_t ctx = 0, ob = 0, h = 0, dw[16], n;
	volatile uint32_t *op = NULL;
	struct reply r = { 0 };
	struct rt_bo xc;
	uint64_t got;
	size_t i;
	char c;
	int f;

	alarm(60);
	f = tern_test_open();
	memset(&xc, 0, sizeof(xc));
	xc.name = "P (other process)";
	xc.size = size;
	xc.seed = P_SEED;
	xc.nslots = (uint32_t)(size / RT_SLOT);
	xc.slot = calloc(xc.nslots, sizeof(*xc.slot));
	for (i = 0; xc.slot && i < xc.nslots; i++)
		xc.slot[i].v = P_SEED;
	r.ret = f < 0 || !xc.slot ? -ENODEV :
		ctx_create(f, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &ctx) ?:
		core_bo(f, 3 * RT_SLOT, VA_OUT, &ob, (void **)&op) ?:
		(drmPrimeFDToHandle(f, dmabuf, &h) ? -errno : 0);
	xc.handle = h;
	if (!r.ret)
		xc.cpu = bo_mmap(f, h, &got);
	r.ret = r.ret ?: !xc.cpu ? -ENOMEM : rt_bo_map(f, &xc, VA_P);
	r.ok = !r.ret;
	if (write(rep, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	while (read(cmd, &c, 1) == 1) {
		memset(&r, 0, sizeof(r));
		n = 0;
		switch (c) {
		case 'a':	/* a job that lists it: writes slot 0, copies slot 1 */
			rt_pkt_fill_slot(dw, &n, &xc, 0, 0xc41d0001u);
			pkt_copy(dw, &n, xc.va + RT_SLOT, VA_OUT, (uint32_t)RT_SLOT);
			r.ret = rt_run(f, ctx, dw, n, &h, 1);
			if (!r.ret)
				rt_model_fill(&xc, 0, 0xc41d0001u);
			r.ok = !r.ret && words_as(op, &xc, RT_SLOT_WORDS, RT_SLOT_WORDS);
			rt_paging(f, ctx, &r.pg);
			break;
		case 'b':	/* a job that does not list it, and the CPU */
			pkt_copy(dw, &n, xc.va, VA_OUT, (uint32_t)(3 * RT_SLOT));
			r.ret = rt_run(f, ctx, dw, n, NULL, 0);
			r.ok = !r.ret && words_as(op, &xc, 0, 3 * RT_SLOT_WORDS) && rt_check(&xc);
			break;
		case 'c':	/* the parent's listed job wrote slot 2 */
			rt_model_fill(&xc, 2, 0x9a4e0002u);
			r.ok = rt_check(&xc);
			break;
		default:
			_exit(0);
		}
		if (write(rep, &r, sizeof(r)) != sizeof(r))
			_exit(1);
	}
	_exit(1);
}

/* Tell the child @c, and read its reply. */
static bool ask(int cmd, int rep, char c, struct reply *r)
{
	memset(r, 0, sizeof(*r));
	r->ret = -EPIPE;
	return write(cmd, &c, 1) == 1 && read(rep, r, sizeof(*r)) == sizeof(*r);
}

static void part_c(void)
{
	int cmd[2], rep[2], dmabuf = -1, status = -1, ret;
	struct rt_counts c0, c1, c2;
	uint32_t dw[8], n;
	struct reply r, rc3;
	struct rt_bo p;
	pid_t pid;
	bool ok;

	ret = rt_bo_new(fd, "P", DRM_TERN_BO_PLACEMENT_LOCAL, lsize / 4, P_SEED, true, &p) ?:
	      rt_bo_map(fd, &p, VA_P) ?:
	      (drmPrimeHandleToFD(fd, p.handle, DRM_CLOEXEC | DRM_RDWR, &dmabuf) ? -errno : 0);
	if (ret || pipe(cmd) || pipe(rep)) {
		tap_ok(false, "(c) a LOCAL BO P shared by PRIME: %s", strerror(-ret));
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(cmd[1]);
		close(rep[0]);
		prime_child(dmabuf, p.size, cmd[0], rep[1]);
	}
	close(cmd[0]);
	close(rep[1]);
	ok = pid > 0 && read(rep[0], &r, sizeof(r)) == sizeof(r) && r.ok;
	tap_ok(ok, "(c) a LOCAL BO P shared by PRIME with another process, mapped in both address spaces (%s)",
	       strerror(-r.ret));

	/* P alone in local memory, then this process evicts it */
	ret = touch(ctx_b, &y) ?: touch(ctx_b, &p);
	rt_counts(&c0);
	ret = ret ?: fill_job(ctx_b, &y, 2, 0x0e000002u, &y);
	rt_counts(&c1);
	tap_ok(!ret && c0.local == (long long)p.size && c1.local == (long long)y.size &&
	       c1.evictions == c0.evictions + 1 && c1.retargets == c0.retargets + 3,
	       "(c) a job of this process listing Y evicts P: %lld retargets (P out in two address spaces, Y in in one), %lld eviction (%s)",
	       c1.retargets - c0.retargets, c1.evictions - c0.evictions, strerror(-ret));

	/* the other process's job lists it: paged back in, Y out */
	ok = ask(cmd[1], rep[0], 'a', &r);
	rt_counts(&c2);
	tap_ok(ok && !r.ret && r.ok && c2.local == (long long)p.size &&
	       c2.evictions == c1.evictions + 1 && c2.retargets == c1.retargets + 3 &&
	       r.pg.in == p.size && r.pg.out == y.size && r.pg.evictions == 1,
	       "(c) the other process's job listing P pages it back in, evicting Y: %lld retargets; its context counts %llu MiB in, %llu MiB out, %llu eviction (%s)",
	       c2.retargets - c1.retargets, (unsigned long long)(r.pg.in / MIB),
	       (unsigned long long)(r.pg.out / MIB), (unsigned long long)r.pg.evictions,
	       strerror(-r.ret));
	if (!r.ret)
		rt_model_fill(&p, 0, 0xc41d0001u);

	/* this process sees what it wrote: an unlisted job, and the CPU */
	n = 0;
	pkt_copy(dw, &n, p.va, VA_S, (uint32_t)RT_SLOT);
	memset((void *)sp, 0, RT_SLOT);
	ret = rt_run(fd, ctx_c, dw, n, NULL, 0);
	tap_ok(!ret && rt_words_are(sp, RT_SLOT_WORDS, 0xc41d0001u) && rt_check(&p),
	       "(c) this process reads what the other wrote, with a job that does not list P and with the CPU (%s)",
	       strerror(-ret));

	/* evicted again by this process: the other reads it in system memory */
	ret = fill_job(ctx_b, &y, 3, 0x0e000003u, &y);
	ok = ask(cmd[1], rep[0], 'b', &r);
	tap_ok(!ret && core_memory_value("local_bytes") == (long long)y.size && ok && r.ok,
	       "(c) evicted again by this process, P reads the same for the other, through a job that does not list it and its CPU (%s, %s)",
	       strerror(-ret), strerror(-r.ret));

	/* written by a job of this process that lists it */
	ret = fill_job(ctx_b, &p, 2, 0x9a4e0002u, &p);
	ok = ask(cmd[1], rep[0], 'c', &rc3);
	if (write(cmd[1], "q", 1) != 1)
		tap_diag("(c) the other process is gone");
	close(cmd[1]);
	close(rep[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	tap_ok(!ret && ok && rc3.ok && WIFEXITED(status) && !WEXITSTATUS(status) &&
	       rt_check(&p),
	       "(c) written by a job of this process that lists it, P reads the same for the other's CPU; it exits 0 (%s)",
	       strerror(-ret));
	close(dmabuf);
	rt_bo_free(fd, &p);
}

/* (d): page two LOCAL BOs in and out with submits until killed. */
static void paging_child(int ready, uint64_t big)
{
	uint32_t ctx = 0, h[2], sb = 0, dw[4], n;
	volatile uint32_t *sc = NULL;
	uint64_t got;
	int f, i, ret;
	char *c;

	alarm(30);
	f = tern_test_open();
	if (f < 0 || ctx_create(f, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &ctx) ||
	    core_bo(f, PAGE4K, VA_S, &sb, (void **)&sc))
		_exit(1);
	for (i = 0; i < 2; i++) {
		if (bo_create_local(f, big, &h[i]) || !(c = bo_mmap(f, h[i], &got)))
			_exit(1);
		c[0] = (char)i;	/* its pages: each move in is a page-in */
		if (vm_map(f, h[i], VA_X + i * VA_X, 0, big))
			_exit(1);
	}
	if (write(ready, "r", 1) != 1)
		_exit(1);
	for (i = 0; ; i++) {
		n = 0;
		pkt_write_imm(dw, &n, VA_S, (uint32_t)i);
		ret = submit(f, ctx, dw, n, &h[i % 2], 1, 0, 0, NULL);
		if (ret == -EAGAIN)
			usleep(1000);
		else if (ret)
			_exit(2);
	}
}

static void part_d(void)
{
	int k, status, killed = 0, ready = 0, p[2];
	struct rt_counts c0, c1;
	unsigned int seed = 5;
	uint64_t big = lsize / 2 + MIB;
	long sys0;
	char ch;

	rt_local_settled(0, 10000);
	sys0 = tern_system_quiet_kb();
	rt_counts(&c0);
	for (k = 0; k < KILLS; k++) {
		pid_t pid;

		if (pipe(p))
			break;
		pid = fork();
		if (pid == 0) {
			close(p[0]);
			paging_child(p[1], big);
		}
		close(p[1]);
		ready += read(p[0], &ch, 1) == 1;
		close(p[0]);
		usleep(20000 + rand_r(&seed) % 300000);
		if (pid > 0) {
			kill(pid, SIGKILL);
			if (waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
			    WTERMSIG(status) == SIGKILL)
				killed++;
		}
	}
	tap_ok(ready == KILLS && killed == KILLS,
	       "(d) %d children killed by SIGKILL while their submits paged 2 x %llu MiB LOCAL BOs in and out (%d set up)",
	       killed, (unsigned long long)(big / MIB), ready);
	c1.local = rt_local_settled(c0.local, 10000);
	tap_ok(c0.local == 0 && c1.local == 0, "(d) no local memory is left used (%lld bytes)",
	       c1.local);
	tap_ok(tern_system_settled_kb(sys0) <= sys0,
	       "(d) the system memory of BOs is back (%ld kB, was %ld kB)", tern_system_kb(), sys0);
	rt_counts(&c1);
	tap_ok(c1.failures == c0.failures && c1.retarget_cpu == c0.retarget_cpu,
	       "(d) no paging buffer failed, no retarget was left to the CPU");
}

/* A new file: a job runs, and a LOCAL BO is paged in for a job listing it. */
static bool device_pages(void)
{
	uint32_t ctx = 0, sb = 0, dw[8], n = 0;
	volatile uint32_t *so = NULL;
	struct rt_bo l;
	bool ok;
	int f;

	if (!core_device_works(TERN_TEST_NODE, 0x600dcafe))
		return false;
	f = tern_test_open();
	ok = f >= 0 &&
	     !ctx_create(f, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &ctx) &&
	     !core_bo(f, MIB, VA_S, &sb, (void **)&so) &&
	     !rt_bo_new(f, "L", DRM_TERN_BO_PLACEMENT_LOCAL, MIB, 0x99, true, &l) &&
	     !rt_bo_map(f, &l, VA_X);
	pkt_copy(dw, &n, VA_X, VA_S, (uint32_t)MIB);
	ok = ok && !rt_run(f, ctx, dw, n, &l.handle, 1) &&
	     core_memory_value("local_bytes") == (long long)MIB &&
	     rt_words_pattern(so, MIB / 4, 0x99, 0);
	if (so)
		munmap((void *)so, MIB);
	if (f >= 0) {
		rt_bo_free(f, &l);
		close(f);
	}
	return ok;
}

int main(void)
{
	struct drm_tern_get_info info;
	struct rt_counts start, end;
	bool ok;
	int ret;

	tap_plan(25);
	fd = tern_test_open();
	ok = fd >= 0 && !core_get_info(fd, &info);
	if (!tap_ok(ok && info.driver_version >= RT_INTERFACE_1_7 &&
		    info.local_mem_size >= 16 * MIB,
		    "open the device: interface 1.7, %llu MiB of local memory",
		    ok ? (unsigned long long)(info.local_mem_size / MIB) : 0))
		return tap_exit_status();
	lsize = info.local_mem_size;
	rt_local_settled(0, 10000);
	rt_counts(&start);

	/* X: a quarter of local memory; Y and Z do not fit next to it */
	ret = rt_bo_new(fd, "X", DRM_TERN_BO_PLACEMENT_LOCAL, lsize / 4, 0x51, true, &x) ?:
	      rt_bo_new(fd, "Y", DRM_TERN_BO_PLACEMENT_LOCAL, lsize * 3 / 4 + MIB, 0x52, true, &y) ?:
	      rt_bo_new(fd, "Z", DRM_TERN_BO_PLACEMENT_LOCAL, lsize * 3 / 4 + MIB, 0x53, true, &z) ?:
	      rt_bo_new(fd, "W", DRM_TERN_BO_PLACEMENT_LOCAL, MIB, 0x54, true, &w) ?:
	      rt_bo_map(fd, &x, VA_X) ?: rt_bo_map(fd, &y, VA_Y) ?: rt_bo_map(fd, &z, VA_Z) ?:
	      bo_create(fd, M_SIZE, &m_bo) ?:
	      core_bo(fd, WIN, VA_OUT, &out_bo, (void **)&outp) ?:
	      core_bo(fd, WIN, VA_S, &s_bo, (void **)&sp) ?:
	      ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &ctx_b) ?:
	      ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &ctx_c);
	if (!tap_ok(!ret, "LOCAL BOs X (%llu MiB), Y and Z (%llu MiB each, neither fits next to X), mapped; two contexts (%s)",
		    (unsigned long long)(x.size / MIB), (unsigned long long)(y.size / MIB),
		    strerror(-ret)))
		return tap_exit_status();

	part_a();
	rt_bo_free(fd, &z);
	rt_bo_free(fd, &w);
	bo_close(fd, m_bo);
	part_b();
	rt_bo_free(fd, &x);
	part_c();

	rt_counts(&end);
	tap_ok(end.failures == start.failures && end.retarget_cpu == start.retarget_cpu &&
	       end.retargets > start.retargets,
	       "no paging buffer failed, no retarget was left to the CPU (%lld retargets)",
	       end.retargets - start.retargets);
	rt_bo_free(fd, &y);
	munmap((void *)outp, WIN);
	munmap((void *)sp, WIN);
	close(fd);

	part_d();
	tap_ok(device_pages(), "the device still runs jobs, and pages a LOCAL BO in for a job that lists it");
	tap_ok(rt_local_settled(0, 10000) == 0, "in the end no local memory is used");
	return tap_exit_status();
}
