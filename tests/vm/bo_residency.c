// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bo_residency: per-job residency of LOCAL BOs (interface 1.7), in one
 * process.
 *
 * Since 1.7 a mapped LOCAL BO is no longer pinned in local memory: while no
 * unfinished job lists it, it may be evicted to system memory to make room
 * (least recently used first), its page-table entries following it
 * ("retarget"); a SUBMIT makes every LOCAL BO its job lists resident before
 * the job is queued, and the BO stays there until the job ends.  Checked
 * here, with three LOCAL BOs A, B, C of which two fit in local memory and
 * three do not (their sizes differ, so that local_bytes says which two are
 * in), every move counted exactly (paging buffers in and out, evictions,
 * retargets in debugfs "memory"; CONTEXT_GET_STATE's paging_bytes_in,
 * paging_bytes_out, evictions, paging_ns):
 *
 * - mapping all three succeeds: the third map evicts the least recently
 *   used idle one, which stays mapped;
 * - a job that does not list the evicted BO reads and writes it in system
 *   memory through its retargeted entries, without paging it in;
 * - a job that lists it pages it in first, evicting the least recently
 *   used idle BO, and its context is charged for it (not for maps);
 * - over rounds that each list the BO out of local memory, every BO moves
 *   in and out several times and stays bit-exact (the CPU checks every
 *   word of every BO against a model of what jobs wrote);
 * - a BO listed by an unfinished job is never evicted: a submit that needs
 *   room takes it from idle BOs, and when only busy BOs hold local memory
 *   it fails with EAGAIN after about a second of retries, queueing nothing;
 *   a map then succeeds with its BO in system memory, and a
 *   LOCAL_PREFERRED BO listed stays in system memory; the busy jobs' data
 *   is whole once they ran;
 * - a job whose LOCAL BOs are larger than local memory together fails with
 *   ENOSPC at once, nothing moved or queued, and the context stays usable;
 *   a BO listed several times counts once;
 * - with room, a listed LOCAL_PREFERRED BO moves in without evicting;
 * - debugfs's totals are the maps' moves plus the contexts' counters; no
 *   paging buffer failed, no retarget fell back to the CPU, and closing
 *   the file gives local and system memory back.
 *
 * A small local memory keeps the moves short (the sizes follow
 * local_mem_size, so the test works with any).
 *
 * tern-vm: device=local-mem-size=32M timeout=120
 */
#include "residency_test.h"

#define VA_STEP		0x100000000ull
#define VA_A		(1 * VA_STEP)	/* A, B, C at VA_A + i * VA_STEP */
#define VA_D		(4 * VA_STEP)
#define VA_P		(5 * VA_STEP)
#define VA_S		(6 * VA_STEP)
#define VA_W		(7 * VA_STEP)
#define S_SIZE		MIB		/* a system BO jobs copy into */
#define ROUNDS		6
#define SLOT_UNLISTED	20		/* slots the jobs write, by step */
#define SLOT_LISTED	21
#define SLOT_ROUND	30
#define SLOT_GATE	50
#define SLOT_AFTER	60

static int fd;
static uint32_t cm, cg;			/* the main and the gate contexts */
static struct rt_bo bo[3];		/* A, B, C */
static struct rt_bo d, p;		/* a LOCAL and a LOCAL_PREFERRED BO */
static volatile uint32_t *s;		/* the system BO at VA_S */
static uint64_t tick, used[3];		/* LRU model: last map or listing */
static bool res[3];			/* ... and which are in local memory */

/* A job on @ctx listing @b (NULL: nothing) that fills slot @k of @t. */
static int fill_job(uint32_t ctx, struct rt_bo *t, uint32_t k, uint32_t v,
		    struct rt_bo *b)
{
	uint32_t dw[8], n = 0;
	int ret;

	rt_pkt_fill_slot(dw, &n, t, k, v);
	ret = rt_run(fd, ctx, dw, n, b ? &b->handle : NULL, b ? 1 : 0);
	if (!ret)
		rt_model_fill(t, k, v);
	return ret;
}

/* The resident BO of A, B, C used least recently but @x, or -1. */
static int lru_victim(int x)
{
	int i, v = -1;

	for (i = 0; i < 3; i++)
		if (i != x && res[i] && (v < 0 || used[i] < used[v]))
			v = i;
	return v;
}

static long long kib(long long bytes)
{
	return bytes / (long long)KIB;
}

int main(void)
{
	struct rt_counts start, c0, c1, c2;
	struct rt_paging p0, p1, g1;
	struct drm_tern_get_info info;
	uint64_t sz[3], lsize, maps_in, maps_out;
	uint64_t want_in = 0, want_out = 0, want_ev = 0;
	uint32_t dw[96], n, bos[4], so1 = 0, so2 = 0, sys_bo = 0, w_bo = 0;
	volatile uint32_t *wp = NULL;
	int i, r, ret, good, err;
	struct rt_gate gate;
	long sys0;
	int64_t t0, t1;
	bool ok;

	tap_plan(36);
	fd = tern_test_open();
	ok = fd >= 0 && !core_get_info(fd, &info);
	if (!tap_ok(ok && info.driver_version >= RT_INTERFACE_1_7 &&
		    info.local_mem_size >= 16 * MIB &&
		    !ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0,
				&cm) &&
		    !ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0,
				&cg),
		    "open the device: interface %u.%u, %llu MiB of local memory; two contexts",
		    ok ? info.driver_version >> 16 : 0, ok ? info.driver_version & 0xffff : 0,
		    ok ? (unsigned long long)(info.local_mem_size / MIB) : 0))
		return tap_exit_status();
	lsize = info.local_mem_size;
	/* two fit, three do not; any two leave less room than the smallest */
	sz[0] = lsize * 3 / 8;
	sz[1] = sz[0] + lsize / 64;
	sz[2] = sz[0] + 2 * lsize / 64;

	rt_local_settled(0, 10000);
	sys0 = tern_system_quiet_kb();
	ok = rt_counts(&start);
	tap_ok(ok && start.local == 0 && start.local_size == (long long)lsize && sys0 >= 0,
	       "debugfs memory: no local memory used, %lld evictions, %lld retargets, %lld by the CPU, %lld residency retries so far",
	       start.evictions, start.retargets, start.retarget_cpu, start.retries);

	/* a system BO jobs copy into, and the gate's word */
	ok = !core_bo(fd, S_SIZE, VA_S, &sys_bo, (void **)&s) &&
	     !core_bo(fd, PAGE4K, VA_W, &w_bo, (void **)&wp);
	for (i = 0; ok && i < 3; i++)
		ok = !rt_bo_new(fd, (const char *[]){ "A", "B", "C" }[i],
				DRM_TERN_BO_PLACEMENT_LOCAL, sz[i], 0xa + i, true, &bo[i]);
	if (!tap_ok(ok && core_memory_value("local_bytes") == 0,
		    "three LOCAL BOs A, B, C of %llu, %llu, %llu KiB (two fit in local memory, three do not), written by the CPU: in system memory",
		    (unsigned long long)(sz[0] / KIB), (unsigned long long)(sz[1] / KIB),
		    (unsigned long long)(sz[2] / KIB)))
		return tap_exit_status();

	/* ---- maps: all three succeed, the third evicts the least recently used ---- */
	rt_counts(&c0);
	ret = rt_bo_map(fd, &bo[0], VA_A);
	rt_counts(&c1);
	tap_ok(!ret && c1.in == c0.in + 1 && c1.local == (long long)sz[0] &&
	       c1.evictions == c0.evictions,
	       "map A: paged in (%s, local %lld KiB)", strerror(-ret), kib(c1.local));
	ret = rt_bo_map(fd, &bo[1], VA_A + VA_STEP);
	rt_counts(&c0);
	tap_ok(!ret && c0.in == c1.in + 1 && c0.out == c1.out &&
	       c0.local == (long long)(sz[0] + sz[1]),
	       "map B: paged in, A stays: two fit (%s, local %lld KiB)", strerror(-ret),
	       kib(c0.local));
	ret = rt_bo_map(fd, &bo[2], VA_A + 2 * VA_STEP);
	rt_counts(&c1);
	tap_ok(!ret && c1.in == c0.in + 1 && c1.out == c0.out + 1 &&
	       c1.evictions == c0.evictions + 1 && c1.retargets == c0.retargets + 1 &&
	       c1.local == (long long)(sz[1] + sz[2]),
	       "map C with local memory full of idle mapped BOs: it succeeds, and A, the least recently used, is paged out, still mapped (%s; %lld out, %lld evicted, %lld retargeted, local %lld KiB)",
	       strerror(-ret), c1.out - c0.out, c1.evictions - c0.evictions,
	       c1.retargets - c0.retargets, kib(c1.local));
	maps_in = sz[0] + sz[1] + sz[2];
	maps_out = sz[0];
	used[0] = ++tick;
	used[1] = ++tick;
	used[2] = ++tick;
	res[1] = res[2] = true;
	tap_ok(fdinfo_region_bytes(fd, "resident", "local") == (long long)(sz[1] + sz[2]) &&
	       fdinfo_region_bytes(fd, "resident", "memory") >= (long long)sz[0],
	       "fdinfo: B and C resident in local memory, A in system memory (%lld, %lld KiB)",
	       kib(fdinfo_region_bytes(fd, "resident", "local")),
	       kib(fdinfo_region_bytes(fd, "resident", "memory")));
	ok = rt_paging(fd, cm, &p0) && rt_paging(fd, cg, &g1);
	tap_ok(ok && !p0.in && !p0.out && !p0.evictions && !p0.ns && !g1.in && !g1.out &&
	       !g1.evictions && !g1.ns,
	       "maps are no job's residency: CONTEXT_GET_STATE counts no paging for the contexts");

	/* ---- a job that does not list evicted A ---- */
	n = 0;
	pkt_copy(dw, &n, bo[0].va, VA_S, S_SIZE);
	rt_pkt_fill_slot(dw, &n, &bo[0], SLOT_UNLISTED, 0xa0a0a0a1u);
	memset((void *)s, 0, S_SIZE);
	rt_counts(&c0);
	ret = rt_run(fd, cm, dw, n, NULL, 0);
	rt_counts(&c1);
	tap_ok(!ret && rt_words_pattern(s, S_SIZE / 4, bo[0].seed, 0) && c1.in == c0.in &&
	       c1.local == c0.local,
	       "a job that does not list A (evicted, mapped) reads it in system memory through its retargeted entries, bit-exact, without paging it in (%s)",
	       strerror(-ret));
	if (!ret)
		rt_model_fill(&bo[0], SLOT_UNLISTED, 0xa0a0a0a1u);
	ok = rt_paging(fd, cm, &p1);
	tap_ok(!ret && ok && p1.state == DRM_TERN_CONTEXT_ACTIVE &&
	       rt_check_words(&bo[0], SLOT_UNLISTED * RT_SLOT_WORDS, RT_SLOT_WORDS),
	       "and writes it there: the CPU reads the job's words in A");

	/* ---- a job that lists A: paged in first ---- */
	n = 0;
	pkt_copy(dw, &n, bo[0].va + SLOT_UNLISTED * RT_SLOT, VA_S, RT_SLOT);
	rt_pkt_fill_slot(dw, &n, &bo[0], SLOT_LISTED, 0xa0a0a0a2u);
	memset((void *)s, 0, RT_SLOT);
	rt_paging(fd, cm, &p0);
	rt_counts(&c0);
	ret = rt_run(fd, cm, dw, n, &bo[0].handle, 1);
	rt_counts(&c1);
	rt_paging(fd, cm, &p1);
	tap_ok(!ret && c1.in == c0.in + 1 && c1.out == c0.out + 1 &&
	       c1.evictions == c0.evictions + 1 && c1.retargets == c0.retargets + 2 &&
	       c1.local == (long long)(sz[0] + sz[2]),
	       "a job that lists A: A is paged in before it runs, B (the least recently used idle BO) paged out (%s; %lld in, %lld out, %lld evicted, %lld retargeted, local %lld KiB)",
	       strerror(-ret), c1.in - c0.in, c1.out - c0.out, c1.evictions - c0.evictions,
	       c1.retargets - c0.retargets, kib(c1.local));
	tap_ok(p1.in - p0.in == sz[0] && p1.out - p0.out == sz[1] &&
	       p1.evictions - p0.evictions == 1 && p1.ns > p0.ns,
	       "CONTEXT_GET_STATE charges the job's context: %llu MiB in (A), %llu MiB out (B), %llu eviction, %llu us of paging",
	       (unsigned long long)((p1.in - p0.in) / MIB),
	       (unsigned long long)((p1.out - p0.out) / MIB),
	       (unsigned long long)(p1.evictions - p0.evictions),
	       (unsigned long long)((p1.ns - p0.ns) / 1000));
	if (!ret)
		rt_model_fill(&bo[0], SLOT_LISTED, 0xa0a0a0a2u);
	tap_ok(!ret && rt_words_are(s, RT_SLOT_WORDS, 0xa0a0a0a1u) && rt_check(&bo[0]),
	       "in local memory the job read what the unlisted job wrote in system memory; A is bit-exact for the CPU after moving out and in");
	used[0] = ++tick;
	res[0] = true;
	res[1] = false;

	/*
	 * ---- rounds: list the BO that is out; the least recently used
	 * idle one goes out; a job that lists nothing writes that one ----
	 */
	good = 0;
	rt_paging(fd, cm, &p0);
	for (r = 0; r < ROUNDS; r++) {
		int x, v, z;

		for (x = 0; x < 3 && res[x]; x++)
			;
		v = lru_victim(x);
		z = 3 - x - v;
		rt_counts(&c0);
		ret = fill_job(cm, &bo[x], SLOT_ROUND + r, 0x10000000u | r << 8 | x, &bo[x]);
		rt_counts(&c1);
		ok = !ret && c1.in == c0.in + 1 && c1.out == c0.out + 1 &&
		     c1.evictions == c0.evictions + 1 && c1.retargets == c0.retargets + 2 &&
		     c1.local == (long long)(sz[x] + sz[z]);
		if (!ok)
			tap_diag("round %d: listing %s (%s): %lld in, %lld out, %lld evicted, %lld retargeted, local %lld KiB, want %s and %s in",
				 r, bo[x].name, strerror(-ret), c1.in - c0.in, c1.out - c0.out,
				 c1.evictions - c0.evictions, c1.retargets - c0.retargets,
				 kib(c1.local), bo[x].name, bo[z].name);
		if (!ret && c1.local == (long long)(sz[x] + sz[v]))	/* not the LRU one */
			v = z;
		want_in += sz[x];
		want_out += sz[v];
		want_ev++;
		/* the BO just evicted, written by a job that does not list it */
		ret = fill_job(cm, &bo[v], SLOT_ROUND + r, 0x20000000u | r << 8 | v, NULL);
		rt_counts(&c2);
		ok = ok && !ret && c2.in == c1.in && c2.local == c1.local;
		good += ok;
		res[x] = true;
		res[v] = false;
		used[x] = ++tick;
	}
	rt_paging(fd, cm, &p1);
	tap_ok(good == ROUNDS,
	       "%d rounds listing the BO out of local memory: each pages it in and the least recently used idle BO out (1 in, 1 out, 1 eviction, 2 retargets), and a job that lists nothing writes the evicted BO in place (%d right)",
	       ROUNDS, good);
	tap_ok(p1.in - p0.in == want_in && p1.out - p0.out == want_out &&
	       p1.evictions - p0.evictions == want_ev,
	       "CONTEXT_GET_STATE adds them up: %llu MiB in, %llu MiB out, %llu evictions (want %llu, %llu, %llu)",
	       (unsigned long long)((p1.in - p0.in) / MIB),
	       (unsigned long long)((p1.out - p0.out) / MIB),
	       (unsigned long long)(p1.evictions - p0.evictions),
	       (unsigned long long)(want_in / MIB), (unsigned long long)(want_out / MIB),
	       (unsigned long long)want_ev);
	tap_ok(rt_check(&bo[0]) && rt_check(&bo[1]) && rt_check(&bo[2]),
	       "A, B and C, each moved in and out several times, are bit-exact for the CPU");

	/* ---- busy BOs are never victims ---- */
	/* D (LOCAL) and P (LOCAL_PREFERRED), written now, mapped later */
	ret = rt_bo_new(fd, "D", DRM_TERN_BO_PLACEMENT_LOCAL, lsize / 4, 0xd, true, &d) ?:
	      rt_bo_new(fd, "P", DRM_TERN_BO_PLACEMENT_LOCAL_PREFERRED, lsize / 4, 0xe, true,
			&p);
	if (ret)
		tap_diag("creating D and P: %s", strerror(-ret));
	/* one job listing B and C: both in, A out (not C, its own BO) */
	n = 0;
	rt_pkt_copy_slot(dw, &n, &bo[1], &bo[2], 0);
	bos[0] = bo[1].handle;
	bos[1] = bo[2].handle;
	rt_paging(fd, cm, &p0);
	rt_counts(&c0);
	ret = rt_run(fd, cm, dw, n, bos, 2);
	rt_counts(&c1);
	rt_paging(fd, cm, &p1);
	want_in = (res[1] ? 0 : sz[1]) + (res[2] ? 0 : sz[2]);
	want_out = res[0] ? sz[0] : 0;
	tap_ok(!ret && c1.local == (long long)(sz[1] + sz[2]) && p1.in - p0.in == want_in &&
	       p1.out - p0.out == want_out,
	       "a job listing B and C makes both resident, evicting A, not the other BO it lists (%s, local %lld KiB)",
	       strerror(-ret), kib(c1.local));
	if (!ret)
		bo[2].slot[0] = bo[1].slot[0];
	res[0] = false;
	res[1] = res[2] = true;

	/* J1, on the gate context, lists B and waits: B is busy */
	rt_gate_init(&gate, wp, VA_W);
	so1 = syncobj_new(fd);
	so2 = syncobj_new(fd);
	n = 0;
	rt_pkt_gate(dw, &n, &gate);
	rt_pkt_fill_slot(dw, &n, &bo[1], SLOT_GATE, 0xb0b0b0b5u);
	bos[0] = w_bo;
	bos[1] = bo[1].handle;
	ret = submit(fd, cg, dw, n, bos, 2, 0, so1, NULL);
	/* a job listing A needs room: idle C goes, not busy B */
	rt_counts(&c0);
	err = ret ?: fill_job(cm, &bo[0], SLOT_GATE + 1, 0xa0a0a0a5u, &bo[0]);
	rt_counts(&c1);
	tap_ok(!ret && !err && syncobj_wait(fd, so1, 0) == -ETIME &&
	       c1.evictions == c0.evictions + 1 && c1.local == (long long)(sz[0] + sz[1]),
	       "while J1, which lists B, waits: a job listing A gets its room from idle C, not from busy B (%s, %s, local %lld KiB)",
	       strerror(-ret), strerror(-err), kib(c1.local));
	/* J2, queued behind J1, lists C: paged in, idle A out */
	n = 0;
	rt_pkt_gate(dw, &n, &gate);
	rt_pkt_fill_slot(dw, &n, &bo[2], SLOT_GATE, 0xc0c0c0c5u);
	bos[1] = bo[2].handle;
	rt_counts(&c0);
	ret = submit(fd, cg, dw, n, bos, 2, 0, so2, NULL);
	rt_counts(&c1);
	tap_ok(!ret && c1.in == c0.in + 1 && c1.evictions == c0.evictions + 1 &&
	       c1.local == (long long)(sz[1] + sz[2]),
	       "J2, queued behind J1, lists C: its submit pages C in, evicting idle A (%s, local %lld KiB)",
	       strerror(-ret), kib(c1.local));
	rt_gate_hold(&gate);

	/* local memory held by busy B and C only: a job listing A cannot run */
	n = 0;
	rt_pkt_fill_slot(dw, &n, &bo[0], SLOT_GATE + 2, 0xa0a0a0a6u);
	rt_paging(fd, cm, &p0);
	rt_counts(&c0);
	t0 = now_ns();
	ret = submit(fd, cm, dw, n, &bo[0].handle, 1, 0, 0, NULL);
	t1 = now_ns();
	rt_counts(&c1);
	rt_paging(fd, cm, &p1);
	tap_ok(ret == -EAGAIN && t1 - t0 >= 900000000ll && t1 - t0 < 10000000000ll &&
	       p1.submitted == p0.submitted && c1.retries > c0.retries &&
	       c1.evictions == c0.evictions && c1.in == c0.in && c1.local == c0.local,
	       "with local memory held by busy B and C, a job listing A fails with EAGAIN after %lld ms of retries (%lld), nothing queued or moved (%s)",
	       (long long)(t1 - t0) / 1000000, c1.retries - c0.retries, strerror(-ret));
	rt_gate_hold(&gate);

	/* a map meanwhile succeeds, in system memory */
	rt_counts(&c0);
	ret = d.cpu ? rt_bo_map(fd, &d, VA_D) : -ENOMEM;
	rt_counts(&c1);
	tap_ok(!ret && c1.local == c0.local && c1.in == c0.in && c1.evictions == c0.evictions,
	       "mapping a new %lld KiB LOCAL BO D meanwhile succeeds, D left in system memory: there is no idle BO to evict (%s)",
	       kib(lsize / 4), strerror(-ret));
	n = 0;
	pkt_copy(dw, &n, d.va + d.size - S_SIZE, VA_S, S_SIZE);
	memset((void *)s, 0, S_SIZE);
	ret = rt_run(fd, cm, dw, n, NULL, 0);
	tap_ok(!ret && rt_words_pattern(s, S_SIZE / 4, d.seed, (d.size - S_SIZE) / 4),
	       "a job that does not list D reads it in system memory, bit-exact (%s)",
	       strerror(-ret));
	rt_gate_hold(&gate);

	/* a LOCAL_PREFERRED BO listed now stays in system memory */
	ret = p.cpu ? rt_bo_map(fd, &p, VA_P) : -ENOMEM;
	n = 0;
	pkt_copy(dw, &n, p.va, VA_S, S_SIZE);
	memset((void *)s, 0, S_SIZE);
	rt_paging(fd, cm, &p0);
	rt_counts(&c0);
	ret = ret ?: rt_run(fd, cm, dw, n, &p.handle, 1);
	rt_counts(&c1);
	rt_paging(fd, cm, &p1);
	tap_ok(!ret && c1.local == c0.local && c1.in == c0.in && c1.evictions == c0.evictions &&
	       p1.in == p0.in && rt_words_pattern(s, S_SIZE / 4, p.seed, 0),
	       "a LOCAL_PREFERRED BO listed while local memory is full of busy BOs: the job runs, reading it bit-exact in system memory, where it stays (%s)",
	       strerror(-ret));
	rt_gate_hold(&gate);
	rt_counts(&c2);
	tap_ok(syncobj_wait(fd, so2, 0) == -ETIME && c2.local == (long long)(sz[1] + sz[2]) &&
	       c2.evictions == c1.evictions,
	       "all the while J1 and J2 waited, B and C stayed in local memory (local %lld KiB)",
	       kib(c2.local));

	rt_gate_open(&gate);
	ret = rt_fence_result(fd, so1);
	err = rt_fence_result(fd, so2);
	if (ret == 1)
		rt_model_fill(&bo[1], SLOT_GATE, 0xb0b0b0b5u);
	if (err == 1)
		rt_model_fill(&bo[2], SLOT_GATE, 0xc0c0c0c5u);
	tap_ok(ret == 1 && err == 1 && rt_check(&bo[1]) && rt_check(&bo[2]),
	       "released, J1 and J2 complete; B and C hold what they wrote, bit-exact (%d, %d)",
	       ret, err);

	/* idle again: the least recently listed goes (B, listed by J1) */
	rt_counts(&c0);
	ret = fill_job(cm, &bo[0], SLOT_GATE + 2, 0xa0a0a0a6u, &bo[0]);
	rt_counts(&c1);
	tap_ok(!ret && c1.in == c0.in + 1 && c1.out == c0.out + 1 &&
	       c1.evictions == c0.evictions + 1 && c1.local == (long long)(sz[0] + sz[2]),
	       "idle again, a job listing A pages it in, evicting B, the least recently listed (%s, local %lld KiB)",
	       strerror(-ret), kib(c1.local));
	rt_counts(&c0);
	ret = fill_job(cm, &d, 1, 0xd0d0d0d1u, &d);
	rt_counts(&c1);
	tap_ok(!ret && c1.in == c0.in + 1 && c1.evictions == c0.evictions + 1 &&
	       c1.local == (long long)(sz[0] + d.size) && rt_check(&d),
	       "a job listing D pages it in from system memory, evicting C; D is bit-exact (%s, local %lld KiB)",
	       strerror(-ret), kib(c1.local));

	/* ---- more than local memory in one job ---- */
	n = 0;
	pkt_write_imm(dw, &n, VA_S, 1);
	bos[0] = bo[0].handle;
	bos[1] = bo[1].handle;
	bos[2] = bo[2].handle;
	rt_paging(fd, cm, &p0);
	rt_counts(&c0);
	t0 = now_ns();
	ret = submit(fd, cm, dw, n, bos, 3, 0, 0, NULL);
	t1 = now_ns();
	rt_counts(&c1);
	rt_paging(fd, cm, &p1);
	tap_ok(ret == -ENOSPC && p1.submitted == p0.submitted && c1.retries == c0.retries &&
	       c1.in == c0.in && c1.out == c0.out && c1.local == c0.local,
	       "a job listing A, B and C (%lld KiB, local memory is %lld): ENOSPC in %lld ms, nothing queued, moved or retried (%s)",
	       kib(sz[0] + sz[1] + sz[2]), kib(lsize), (long long)(t1 - t0) / 1000000,
	       strerror(-ret));
	ok = rt_paging(fd, cm, &p1);
	ret = fill_job(cm, &bo[1], SLOT_AFTER, 0xb0b0b0b6u, &bo[1]);
	tap_ok(ok && p1.state == DRM_TERN_CONTEXT_ACTIVE && !ret &&
	       core_memory_value("local_bytes") >= (long long)sz[1],
	       "the context is still usable: a job listing B runs (%s)", strerror(-ret));
	bos[0] = bos[1] = bos[2] = bo[0].handle;
	bos[3] = bo[1].handle;
	n = 0;
	rt_pkt_fill_slot(dw, &n, &bo[0], SLOT_AFTER, 0xa0a0a0a7u);
	ret = rt_run(fd, cm, dw, n, bos, 4);
	if (!ret)
		rt_model_fill(&bo[0], SLOT_AFTER, 0xa0a0a0a7u);
	tap_ok(!ret && core_memory_value("local_bytes") == (long long)(sz[0] + sz[1]),
	       "a BO listed several times counts once: a job listing A three times and B runs, both resident (%s)",
	       strerror(-ret));

	/* ---- the totals: maps and the contexts' counters make debugfs's ---- */
	rt_counts(&c1);
	rt_paging(fd, cm, &p1);
	rt_paging(fd, cg, &g1);
	tap_ok(c1.evictions - start.evictions == (long long)(1 + p1.evictions + g1.evictions),
	       "debugfs evictions (%lld) = the map's (1) + the contexts' (%llu + %llu)",
	       c1.evictions - start.evictions, (unsigned long long)p1.evictions,
	       (unsigned long long)g1.evictions);
	tap_ok(c1.in_bytes + c1.clear_bytes - start.in_bytes - start.clear_bytes ==
	       (long long)(maps_in + p1.in + g1.in) &&
	       c1.out_bytes - start.out_bytes == (long long)(maps_out + p1.out + g1.out),
	       "debugfs paging bytes in (%lld KiB) and out (%lld KiB) = the maps' + the contexts' paging_bytes_in and _out",
	       kib(c1.in_bytes + c1.clear_bytes - start.in_bytes - start.clear_bytes),
	       kib(c1.out_bytes - start.out_bytes));

	/* ---- with room, a listed LOCAL_PREFERRED BO moves in ---- */
	for (i = 0; i < 3; i++)
		rt_bo_free(fd, &bo[i]);
	rt_bo_free(fd, &d);
	rt_local_settled(0, 5000);
	n = 0;
	pkt_copy(dw, &n, p.va + p.size - S_SIZE, VA_S, S_SIZE);
	memset((void *)s, 0, S_SIZE);
	rt_paging(fd, cm, &p0);
	rt_counts(&c0);
	ret = rt_run(fd, cm, dw, n, &p.handle, 1);
	rt_counts(&c1);
	rt_paging(fd, cm, &p1);
	tap_ok(!ret && c0.local == 0 && c1.local == (long long)p.size && c1.in == c0.in + 1 &&
	       c1.evictions == c0.evictions && p1.in - p0.in == p.size &&
	       rt_words_pattern(s, S_SIZE / 4, p.seed, (p.size - S_SIZE) / 4),
	       "with room, a job listing the LOCAL_PREFERRED BO moves it in, evicting nothing, and reads it bit-exact (%s, local %lld KiB)",
	       strerror(-ret), kib(c1.local));

	rt_counts(&c1);
	tap_ok(c1.failures == start.failures && c1.retarget_cpu == start.retarget_cpu &&
	       c1.retargets > start.retargets,
	       "no paging buffer failed, no retarget was left to the CPU (%lld retargets)",
	       c1.retargets - start.retargets);

	rt_bo_free(fd, &p);
	munmap((void *)s, S_SIZE);
	munmap((void *)wp, PAGE4K);
	close(fd);
	c1.local = rt_local_settled(0, 10000);
	tap_ok(c1.local == 0, "closing the file gives local memory back (%lld)", c1.local);
	tap_ok(tern_system_settled_kb(sys0) <= sys0,
	       "and the system memory of BOs (%ld kB, was %ld kB)", tern_system_kb(), sys0);
	return tap_exit_status();
}
