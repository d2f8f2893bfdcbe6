// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bo_local: buffer objects in device-local memory (placement LOCAL).
 *
 * A LOCAL BO has no pages until it is used.  Written by the CPU first, it
 * holds system pages; mapping it into the address space pages it in to
 * local memory with a paging buffer (debugfs "memory": paging_in); a new
 * one is cleared there (paging_clear).  Jobs reach it at the same VAs, the
 * CPU through BAR2.  Since interface 1.7 a mapped LOCAL BO is not pinned
 * there: while no unfinished job lists it, TTM may page it out to system
 * memory to make room for another LOCAL BO (paging_out, evictions), least
 * recently used first, its page-table entries following it (retargets);
 * a job that uses it without listing it then reaches it in system memory,
 * and a job that lists it, or a later map, pages it back in.  Through
 * every move the data is bit-exact: checked by the CPU and by jobs that
 * copy it into a system BO.  When local memory is full of mapped LOCAL BOs,
 * mapping one more succeeds by evicting the least recently used idle one
 * (it no longer fails with -ENOSPC, as it did in 1.6); a LOCAL BO larger
 * than local memory is -E2BIG at creation; a map refused for its range
 * (-EEXIST) pages nothing in.  A LOCAL_PREFERRED BO maps in system memory
 * when local memory has no room (it never evicts), in local memory when it
 * has, and moves there at a later map that finds room.  Closing
 * everything gives all local memory back.  (bo_residency checks the
 * residency of jobs in detail.)
 *
 * tern-vm: timeout=120
 */
#include "core_test.h"

#define MIB		(1024ull * 1024)
#define L_SIZE		(1 * MIB)
#define VA_L		0x10000000ull
#define VA_S		0x20000000ull
#define VA_BIG		0x40000000ull
#define VA_P		0x30000000ull
#define VA_PBIG		0x100000000ull

/* A job copies L (at VA_L) to S; S must then hold @want in every word. */
static bool device_reads(int fd, uint32_t ctx, volatile uint32_t *s,
			 uint32_t (*want)(size_t))
{
	uint32_t dw[16], n = 0;
	size_t i;

	memset((void *)s, 0, L_SIZE);
	pkt_copy(dw, &n, VA_L, VA_S, L_SIZE);
	if (core_run(fd, ctx, dw, n))
		return false;
	for (i = 0; i < L_SIZE / 4; i++)
		if (s[i] != want(i)) {
			tap_diag("word %zu: 0x%08x, want 0x%08x", i, s[i], want(i));
			return false;
		}
	return true;
}

static bool cpu_reads(volatile uint32_t *l, uint32_t (*want)(size_t))
{
	size_t i;

	for (i = 0; i < L_SIZE / 4; i++)
		if (l[i] != want(i)) {
			tap_diag("word %zu: 0x%08x, want 0x%08x", i, l[i], want(i));
			return false;
		}
	return true;
}

static uint32_t pattern(size_t i)
{
	return 0x9e3779b9u * (uint32_t)(i + 1);
}

static uint32_t filled(size_t i)
{
	return i < 4096 ? 0x5a5a0001u : pattern(i);
}

static uint32_t badf00d(size_t i)
{
	(void)i;
	return 0x0badf00du;
}

static uint32_t zero(size_t i)
{
	(void)i;
	return 0;
}

int main(void)
{
	struct drm_tern_get_info info;
	uint32_t ctx = 0, l = 0, s = 0, big[2] = { 0 }, extra = 0, zbo = 0, dup = 0, dw[16], n;
	long long local0, in0, out0, clear0, local_size, ev0, rt0;
	struct drm_tern_submit sub;
	int err = 0;
	volatile uint32_t *lp, *sp, *zp, *dp;
	uint64_t got, half, zsize = 0;
	uint32_t pref[3] = { 0 };
	volatile uint32_t *pp;
	long long local_used;
	size_t i;
	int fd, ret;

	tap_plan(32);
	fd = open(TERN_TEST_NODE, O_RDWR);
	if (!tap_ok(fd >= 0 && !core_get_info(fd, &info) &&
		    !ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COPY,
				0, &ctx),
		    "open the device, a copy context"))
		return tap_exit_status();
	local_size = core_memory_value("local_size");
	local0 = core_memory_value("local_bytes");
	in0 = core_paging_jobs("in");
	out0 = core_paging_jobs("out");
	clear0 = core_paging_jobs("clear");
	tap_ok(local_size == (long long)info.local_mem_size && local_size >= 64 * (long long)MIB &&
	       local0 == 0 && in0 >= 0 && out0 >= 0 && clear0 >= 0,
	       "debugfs memory: %lld of %lld bytes of local memory used, paging counted",
	       local0, local_size);

	ret = bo_create_local(fd, info.local_mem_size + MIB, &l);
	tap_ok(ret == -E2BIG, "a LOCAL BO larger than local memory: -E2BIG (%s)",
	       strerror(-ret));

	/* L: written by the CPU while it is still in system memory */
	ret = bo_create_local(fd, L_SIZE, &l);
	lp = ret ? NULL : bo_mmap(fd, l, &got);
	if (!tap_ok(lp != NULL, "create a 1 MiB LOCAL BO and map it for the CPU"))
		return tap_exit_status();
	for (i = 0; i < L_SIZE / 4; i++)
		lp[i] = pattern(i);
	tap_ok(core_memory_value("local_bytes") == 0,
	       "written by the CPU first, it is in system memory");

	ret = bo_create(fd, L_SIZE, &s);
	sp = ret ? NULL : bo_mmap(fd, s, &got);
	if (!tap_ok(sp && !vm_map(fd, s, VA_S, 0, L_SIZE),
		    "a SYSTEM BO S mapped for the device"))
		return tap_exit_status();

	ret = vm_map(fd, l, VA_L, 0, L_SIZE);
	tap_ok(!ret && core_memory_value("local_bytes") == (long long)L_SIZE &&
	       core_paging_jobs("in") == in0 + 1,
	       "mapping L pages it in to local memory (%s, local %lld bytes, %lld paging in)",
	       strerror(-ret), core_memory_value("local_bytes"), core_paging_jobs("in") - in0);
	/* a map refused for its range moves nothing */
	ret = bo_create_local(fd, L_SIZE, &dup);
	dp = ret ? NULL : bo_mmap(fd, dup, &got);
	if (dp)
		dp[0] = 1;	/* it has data: a map would page it in */
	in0 = core_paging_jobs("in");
	clear0 = core_paging_jobs("clear");
	ret = dp ? vm_map(fd, dup, VA_L, 0, L_SIZE) : -ENOMEM;
	tap_ok(ret == -EEXIST && core_memory_value("local_bytes") == (long long)L_SIZE &&
	       core_paging_jobs("in") == in0 && core_paging_jobs("clear") == clear0,
	       "a LOCAL BO mapped over L: -EEXIST, not paged in (%s, local %lld bytes)",
	       strerror(-ret), core_memory_value("local_bytes"));
	if (dp)
		munmap((void *)dp, L_SIZE);
	bo_close(fd, dup);
	clear0 = core_paging_jobs("clear");
	tap_ok(fdinfo_region_bytes(fd, "total", "local") == (long long)L_SIZE &&
	       fdinfo_region_bytes(fd, "resident", "local") == (long long)L_SIZE,
	       "fdinfo: drm-total-local and drm-resident-local count L (%lld, %lld)",
	       fdinfo_region_bytes(fd, "total", "local"),
	       fdinfo_region_bytes(fd, "resident", "local"));
	tap_ok(cpu_reads(lp, pattern), "the CPU reads L in local memory, bit-exact");
	tap_ok(device_reads(fd, ctx, sp, pattern),
	       "a job copies L from local memory into S, bit-exact");

	n = 0;
	pkt_fill(dw, &n, VA_L, 16384, 0x5a5a0001u);
	tap_ok(!core_run(fd, ctx, dw, n) && cpu_reads(lp, filled),
	       "a job writes L in local memory; the CPU reads it through BAR2");

	/* fill local memory with two mapped BOs: L, unmapped, must go out */
	half = info.local_mem_size / 2;
	tap_ok(!vm_unmap(fd, VA_L, L_SIZE), "unmap L: it stays in local memory");
	ret = bo_create_local(fd, half, &big[0]) ?: bo_create_local(fd, half, &big[1]) ?:
	      vm_map(fd, big[0], VA_BIG, 0, half);
	tap_ok(!ret && core_paging_jobs("clear") >= clear0 + 1 && core_paging_jobs("out") == out0,
	       "map a new %llu MiB LOCAL BO: cleared in local memory, nothing paged out (%s)",
	       (unsigned long long)(half / MIB), strerror(-ret));
	ret = vm_map(fd, big[1], VA_BIG + half, 0, half);
	tap_ok(!ret && core_paging_jobs("out") >= out0 + 1,
	       "map another: local memory is full, L is paged out (%s, %lld out)",
	       strerror(-ret), core_paging_jobs("out") - out0);
	tap_ok(cpu_reads(lp, filled), "the CPU reads L in system memory, bit-exact");
	tap_ok(fdinfo_region_bytes(fd, "total", "local") == 2 * (long long)half &&
	       fdinfo_region_bytes(fd, "resident", "memory") >= (long long)L_SIZE,
	       "fdinfo: local memory holds the two big BOs, L is back in system memory");

	/*
	 * Local memory full of mapped BOs, all idle: a map evicts the least
	 * recently used one (interface 1.7; 1.6 refused it with -ENOSPC).
	 */
	ret = bo_create_local(fd, 2 * L_SIZE, &extra);
	tap_ok(!ret, "a third LOCAL BO");
	out0 = core_paging_jobs("out");
	ev0 = core_memory_value("evictions");
	rt0 = core_memory_value("retargets");
	ret = vm_map(fd, extra, VA_L + 2 * L_SIZE, 0, 2 * L_SIZE);
	tap_ok(!ret && core_paging_jobs("out") == out0 + 1 &&
	       core_memory_value("evictions") == ev0 + 1 &&
	       core_memory_value("retargets") == rt0 + 1 &&
	       core_memory_value("local_bytes") == (long long)(half + 2 * L_SIZE),
	       "mapping it while local memory is full of idle mapped BOs evicts the least recently used, the first big BO, which stays mapped (%s, local %lld bytes)",
	       strerror(-ret), core_memory_value("local_bytes"));
	/* the evicted BO is reached in system memory through its new entries */
	in0 = core_paging_jobs("in");
	n = 0;
	pkt_fill(dw, &n, VA_BIG, L_SIZE, 0x0badf00du);
	pkt_copy(dw, &n, VA_BIG, VA_S, L_SIZE);
	memset((void *)sp, 0, L_SIZE);
	ret = core_run(fd, ctx, dw, n);
	tap_ok(!ret && cpu_reads(sp, badf00d) && core_paging_jobs("in") == in0 &&
	       core_memory_value("local_bytes") == (long long)(half + 2 * L_SIZE),
	       "a job that does not list it writes and reads the evicted BO in system memory, without paging it in (%s)",
	       strerror(-ret));

	/* L maps again: there is room now, nothing is evicted */
	out0 = core_paging_jobs("out");
	ret = vm_map(fd, l, VA_L, 0, L_SIZE);
	tap_ok(!ret && core_paging_jobs("in") == in0 + 1 && core_paging_jobs("out") == out0,
	       "L maps again: paged back in to the room left, nothing paged out (%s)",
	       strerror(-ret));
	tap_ok(device_reads(fd, ctx, sp, filled) && cpu_reads(lp, filled),
	       "after two moves, a job and the CPU read L bit-exact");

	/*
	 * A new LOCAL BO never written reads as zeroes, from both sides,
	 * even where another BO left data: the first big BO, which jobs
	 * fill whole with a pattern, then freed; the new one is as large as
	 * all local memory L leaves, so it has all that BO's blocks.
	 */
	n = 0;
	pkt_fill(dw, &n, VA_BIG, (uint32_t)half, 0xdeadbeefu);
	ret = submit(fd, ctx, dw, n, &big[0], 1, 0, 0, &sub) ?:
	      job_wait(fd, ctx, sub.seqno, 10000, &err) ?: err;
	/* it lists the BO: paged in first, then filled in local memory */
	tap_ok(!ret && core_memory_value("local_bytes") >= (long long)half &&
	       !vm_unmap(fd, VA_BIG, half) && !bo_close(fd, big[0]) &&
	       !vm_unmap(fd, VA_BIG + half, half),
	       "a job that lists the first big BO pages it in and fills it with 0xdeadbeef; it is freed, the second unmapped (%s)",
	       strerror(-ret));
	big[0] = 0;
	clear0 = core_paging_jobs("clear");
	zsize = info.local_mem_size - L_SIZE;
	ret = bo_create_local(fd, zsize, &zbo);
	zp = ret ? NULL : bo_mmap(fd, zbo, &got);
	ret = zp ? vm_map(fd, zbo, VA_BIG, 0, zsize) : -ENOMEM;
	for (i = 0; !ret && i < zsize / 4; i += 1024)	/* a word per 4 KiB */
		if (zp[i]) {
			tap_diag("word %zu of the new BO: 0x%08x", i, zp[i]);
			ret = -EIO;
		}
	n = 0;
	memset((void *)sp, 0xff, L_SIZE);
	pkt_copy(dw, &n, VA_BIG + half, VA_S, L_SIZE);
	tap_ok(!ret && core_paging_jobs("clear") == clear0 + 1 && !core_run(fd, ctx, dw, n) &&
	       cpu_reads(sp, zero),
	       "a new LOCAL BO over that memory is cleared: zeroes for the CPU and jobs (%s)",
	       strerror(-ret));

	/*
	 * LOCAL_PREFERRED: with local memory full of mapped BOs (L and the
	 * new one), such a BO maps anyway, in system memory; with room, it
	 * goes to local memory.
	 */
	local_used = core_memory_value("local_bytes");
	ret = bo_create_placed(fd, L_SIZE, DRM_TERN_BO_PLACEMENT_LOCAL_PREFERRED, &pref[0]);
	pp = ret ? NULL : bo_mmap(fd, pref[0], &got);
	for (i = 0; pp && i < L_SIZE / 4; i++)
		pp[i] = pattern(i);
	ret = pp ? vm_map(fd, pref[0], VA_P, 0, L_SIZE) : -ENOMEM;
	n = 0;
	memset((void *)sp, 0, L_SIZE);
	pkt_copy(dw, &n, VA_P, VA_S, L_SIZE);
	tap_ok(!ret && core_memory_value("local_bytes") == local_used &&
	       !core_run(fd, ctx, dw, n) && cpu_reads(sp, pattern),
	       "a LOCAL_PREFERRED BO maps in system memory while local memory is full (%s)",
	       strerror(-ret));
	/* an unmapped LOCAL BO still holds its local memory until evicted */
	munmap((void *)zp, zsize);
	tap_ok(!vm_unmap(fd, VA_BIG, zsize) && !bo_close(fd, zbo),
	       "unmap and free the big LOCAL BO");
	zbo = 0;
	ret = bo_create_placed(fd, L_SIZE, DRM_TERN_BO_PLACEMENT_LOCAL_PREFERRED, &pref[1]) ?:
	      vm_map(fd, pref[1], VA_P + 2 * L_SIZE, 0, L_SIZE);
	tap_ok(!ret && core_memory_value("local_bytes") == 2 * (long long)L_SIZE,
	       "with room, another goes to local memory (%s, %lld bytes of local memory)",
	       strerror(-ret), core_memory_value("local_bytes"));
	/* the first, mapped again now that local memory has room, moves in */
	in0 = core_paging_jobs("in");
	ret = vm_unmap(fd, VA_P, L_SIZE) ?: vm_map(fd, pref[0], VA_P, 0, L_SIZE);
	n = 0;
	memset((void *)sp, 0, L_SIZE);
	pkt_copy(dw, &n, VA_P, VA_S, L_SIZE);
	tap_ok(!ret && core_memory_value("local_bytes") == 3 * (long long)L_SIZE &&
	       core_paging_jobs("in") == in0 + 1 && !core_run(fd, ctx, dw, n) &&
	       cpu_reads(sp, pattern) && cpu_reads(pp, pattern),
	       "the first, unmapped and mapped again, is paged in to local memory, bit-exact (%s)",
	       strerror(-ret));

	/* one larger than all local memory maps too, in system memory */
	local_used = core_memory_value("local_bytes");
	ret = bo_create_placed(fd, info.local_mem_size + L_SIZE,
			       DRM_TERN_BO_PLACEMENT_LOCAL_PREFERRED, &pref[2]) ?:
	      vm_map(fd, pref[2], VA_PBIG, 0, info.local_mem_size + L_SIZE);
	tap_ok(!ret && core_memory_value("local_bytes") == local_used,
	       "a LOCAL_PREFERRED BO larger than local memory maps, in system memory (%s)",
	       strerror(-ret));
	vm_unmap(fd, VA_PBIG, info.local_mem_size + L_SIZE);
	bo_close(fd, pref[2]);

	tap_ok(core_memory_value("paging_failures") == 0, "no paging buffer failed");

	/* everything goes: local memory is all given back */
	munmap((void *)lp, L_SIZE);
	munmap((void *)sp, L_SIZE);
	bo_close(fd, l);
	bo_close(fd, big[1]);
	bo_close(fd, extra);
	munmap((void *)pp, L_SIZE);
	bo_close(fd, pref[0]);
	bo_close(fd, pref[1]);
	tap_ok(core_memory_value("local_bytes") > 0,
	       "while the file lives, its mapped LOCAL BOs hold local memory");
	close(fd);
	for (i = 0; i < 100 && core_memory_value("local_bytes") != 0; i++)
		usleep(100000);
	tap_ok(core_memory_value("local_bytes") == 0, "closing the file gives local memory back (%lld)",
	       core_memory_value("local_bytes"));
	return tap_exit_status();
}
