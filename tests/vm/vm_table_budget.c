// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * vm_table_budget: what an address space makes the kernel hold is bounded
 * by the tables and pages it needs, not by the bytes it maps.
 *
 * - Page tables: one 4 KiB BO bound at a 2 MiB stride needs a whole 4 KiB
 *   leaf table per bind (and a level-1 table per GiB).  Of up to 200,000
 *   such binds, exactly as many succeed as DRM_TERN_VM_MAX_TABLES allows,
 *   the next fails with ENOSPC (not ENOMEM, no OOM) and changes nothing,
 *   the memory they took stays near the budget's 129 MiB, and one unmap
 *   gives all of it back: the same binds succeed again.
 * - Mappings: each costs bookkeeping whatever its size; binds of one 4 KiB
 *   BO at a 4 KiB stride stop with ENOSPC after DRM_TERN_VM_MAX_MAPPINGS
 *   (they need few tables), and the unmap makes room again.  At the limit an
 *   unmap with DRM_TERN_VM_BIND_CUT or a REPLACE map that cuts a mapping (at
 *   one end or in two) and a
 *   REPLACE of a whole mapping are ENOSPC and change nothing: the mapping
 *   they remove counts until its memory is given back; an unmap of whole
 *   mappings works, and a REPLACE below the limit (interface 1.5).
 * - Pinned BOs: a BO is counted once however often it is mapped, a BO
 *   larger than half of the memory is refused with ENOSPC before any of
 *   its pages is allocated, two BOs of more than a quarter each do not
 *   both fit, and unmapping the first makes room for the second.
 *
 * tern-vm: timeout=300
 */
#include <time.h>

#include "mem_test.h"

#define STRIDE		(2ull << 20)
#define BASE		(1ull << 40)	/* 512 GiB aligned */
#define MAX_BINDS	200000ull

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Binds of one page at a 2 MiB stride from a 512 GiB-aligned VA that fit
 * DRM_TERN_VM_MAX_TABLES: the root, one level-2 table, a level-1 table per
 * 512 binds and a leaf per bind.
 */
static uint64_t expected_binds(void)
{
	uint64_t n = 0;

	while (2 + (n + 1 + 511) / 512 + (n + 1) <= DRM_TERN_VM_MAX_TABLES)
		n++;
	return n;
}

/* MemAvailable in kB, with the page cache and reclaimable slabs dropped. */
static long avail_kb(void)
{
	FILE *f = fopen("/proc/sys/vm/drop_caches", "w");

	if (f) {
		fputs("3", f);
		fclose(f);
	}
	return meminfo_kb("MemAvailable");
}

/* Bind until the first error; returns it, the count in *@n. */
static int bind_all(int fd, uint32_t h, uint64_t *n)
{
	int ret = 0;

	for (*n = 0; *n < MAX_BINDS; (*n)++) {
		ret = vm_map(fd, h, BASE + *n * STRIDE, 0, PAGE4K);
		if (ret)
			break;
	}
	return ret;
}

static void table_budget(int fd)
{
	const uint64_t want = expected_binds();
	long avail0, avail1, avail2, avail3;
	uint64_t n, n2;
	double t0;
	uint32_t h;
	int ret, round;

	if (bo_create(fd, PAGE4K, &h)) {
		tap_ok(false, "create a 4 KiB BO");
		return;
	}
	avail0 = avail_kb();
	t0 = now_s();
	ret = bind_all(fd, h, &n);
	avail1 = avail_kb();
	tap_ok(ret == -ENOSPC && n == want,
	       "binds of one 4 KiB BO at a 2 MiB stride end with ENOSPC after %llu (got %s after %llu, %.1f s)",
	       (unsigned long long)want, ret ? strerror(-ret) : "no error",
	       (unsigned long long)n, now_s() - t0);
	/* the tables (129 MiB at most) and the mappings' bookkeeping */
	tap_ok(avail0 - avail1 < 192 * 1024,
	       "they took %ld MiB of memory (the budget is %u tables, %u MiB)",
	       (avail0 - avail1) / 1024, DRM_TERN_VM_MAX_TABLES,
	       DRM_TERN_VM_MAX_TABLES / 256);
	tap_errno(vm_map(fd, h, BASE + n * STRIDE, 0, PAGE4K), -ENOSPC,
		  "the refused bind is refused again");
	tap_errno(vm_unmap(fd, BASE + n * STRIDE, PAGE4K), -ENOENT,
		  "the refused bind left nothing mapped");
	/* a page in a leaf that exists needs no table */
	tap_errno(vm_map(fd, h, BASE + PAGE4K, 0, PAGE4K), 0,
		  "a bind into an existing table still works");

	t0 = now_s();
	tap_errno(vm_unmap(fd, BASE, n * STRIDE), 0, "one unmap removes every bind");
	tap_diag("unmap took %.1f s", now_s() - t0);
	avail2 = avail_kb();
	/*
	 * Most of it at once; what the slab caches keep of the tables'
	 * bookkeeping, and other tests' leftovers freed or allocated in the
	 * background, move it by tens of MiB: that nothing leaks is what the
	 * rounds below check.
	 */
	tap_ok(avail2 - avail1 > 64 * 1024,
	       "the memory came back (%+ld MiB, %+ld MiB from before the binds)",
	       (avail2 - avail1) / 1024, (avail2 - avail0) / 1024);

	for (round = 2; round <= 3; round++) {
		ret = bind_all(fd, h, &n2);
		tap_ok(ret == -ENOSPC && n2 == want,
		       "round %d: the budget is whole again: %llu binds, then %s",
		       round, (unsigned long long)n2, ret ? strerror(-ret) : "no error");
		tap_errno(vm_unmap(fd, BASE, n2 * STRIDE), 0, "and they unmap");
	}
	/*
	 * What the kernel frees after an RCU grace period or from a work
	 * item (xarray nodes, the tables' bookkeeping) may come back a
	 * little later: wait up to 5 s for it.  A leak never comes back.
	 * Slab pages that freed objects leave half empty stay with the slab
	 * caches and move the figure by tens of MiB: this checks the tables
	 * themselves (129 MiB a round); kmemleak (make test-debug) checks
	 * the small objects.
	 */
	for (round = 0; round < 50; round++) {
		avail3 = avail_kb();
		if (avail3 > avail2 - 48 * 1024)
			break;
		usleep(100000);
	}
	if (round)
		tap_diag("the memory came back after %d ms", round * 100);
	tap_ok(avail3 > avail2 - 48 * 1024,
	       "two more rounds leaked nothing (%+ld MiB)", (avail3 - avail2) / 1024);
	bo_close(fd, h);
}

/*
 * At DRM_TERN_VM_MAX_MAPPINGS (@n one-page mappings of @h from BASE): an
 * unmap with DRM_TERN_VM_BIND_CUT or a REPLACE map that cuts a mapping
 * leaves pieces that count at once, while the mapping it removes counts
 * until its memory is given back, so it is ENOSPC and changes nothing; so
 * is a REPLACE of a whole
 * mapping; an unmap of whole mappings works (interface 1.5).  Leaves @n
 * mappings in [BASE, BASE + (n + 2) pages).
 */
static void cuts_at_the_limit(int fd, uint32_t h, uint64_t n)
{
	const uint64_t m = BASE + (n - 3) * PAGE4K;	/* a 3-page mapping there */
	uint32_t h3;
	int ret;

	if (bo_create(fd, 3 * PAGE4K, &h3)) {
		tap_ok(false, "create a 12 KiB BO");
		return;
	}
	tap_ok(vm_unmap(fd, m, 3 * PAGE4K) == 0 && vm_map(fd, h3, m, 0, 3 * PAGE4K) == 0 &&
	       vm_map(fd, h, BASE + n * PAGE4K, 0, PAGE4K) == 0 &&
	       vm_map(fd, h, BASE + (n + 1) * PAGE4K, 0, PAGE4K) == 0,
	       "the last three mappings replaced by one of 3 pages, and two more: at the "
	       "limit again");
	tap_errno(vm_map(fd, h, BASE + (n + 2) * PAGE4K, 0, PAGE4K), -ENOSPC,
		  "one more map is ENOSPC");
	tap_errno(vm_unmap_cut(fd, m + PAGE4K, PAGE4K), -ENOSPC,
		  "an unmap that cuts the 3-page mapping in two is ENOSPC at the limit");
	tap_errno(vm_unmap_cut(fd, m + PAGE4K, PAGE4K), -ENOSPC,
		  "and changed nothing: the same unmap is ENOSPC again (not ENOENT, not a "
		  "success)");
	tap_errno(vm_bind(fd, DRM_TERN_VM_BIND_OP_MAP, DRM_TERN_VM_BIND_REPLACE, h, m + PAGE4K, 0,
			  PAGE4K), -ENOSPC,
		  "a REPLACE map of its middle page (two more mappings) is ENOSPC too");
	/* the header: removed mappings count until their memory is given back */
	tap_errno(vm_bind(fd, DRM_TERN_VM_BIND_OP_MAP, DRM_TERN_VM_BIND_REPLACE, h3,
			  BASE + 5 * PAGE4K, 0, PAGE4K), -ENOSPC,
		  "a REPLACE map of a whole one-page mapping is ENOSPC at the limit");
	tap_errno(vm_unmap_cut(fd, m, PAGE4K), -ENOSPC,
		  "an unmap of the 3-page mapping's first page (a cut at one end) is ENOSPC "
		  "at the limit");
	ret = vm_unmap(fd, m, 3 * PAGE4K);
	tap_errno(ret, 0, "an unmap of the whole 3-page mapping works at the limit");
	if (!ret)
		tap_errno(vm_bind(fd, DRM_TERN_VM_BIND_OP_MAP, DRM_TERN_VM_BIND_REPLACE, h3,
				  BASE + 5 * PAGE4K, 0, PAGE4K), 0,
			  "below the limit, a REPLACE map of a whole mapping works");
	tap_errno(vm_map(fd, h, m, 0, PAGE4K), 0, "and a map then fits");
	tap_errno(vm_map(fd, h, m + PAGE4K, 0, PAGE4K), -ENOSPC,
		  "the limit again: the REPLACE did not add a mapping once it was reaped");
	bo_close(fd, h3);
}

static void mapping_budget(int fd)
{
	const uint64_t want = DRM_TERN_VM_MAX_MAPPINGS;
	long avail0, avail1;
	uint64_t n;
	double t0;
	uint32_t h;
	int ret = 0;

	if (bo_create(fd, PAGE4K, &h)) {
		tap_ok(false, "create a 4 KiB BO");
		return;
	}
	avail0 = meminfo_kb("MemAvailable");
	t0 = now_s();
	for (n = 0; n <= want && !ret; n++)
		ret = vm_map(fd, h, BASE + n * PAGE4K, 0, PAGE4K);
	n--;
	avail1 = meminfo_kb("MemAvailable");
	tap_ok(ret == -ENOSPC && n == want,
	       "binds of one 4 KiB BO at a 4 KiB stride end with ENOSPC after %llu (got %s after %llu, %.1f s, %ld MiB)",
	       (unsigned long long)want, ret ? strerror(-ret) : "no error",
	       (unsigned long long)n, now_s() - t0, (avail0 - avail1) / 1024);
	if (n == want)
		cuts_at_the_limit(fd, h, n);
	tap_errno(vm_unmap(fd, BASE, (n + 2) * PAGE4K), 0, "one unmap removes them");
	tap_errno(vm_map(fd, h, BASE, 0, PAGE4K), 0, "and binds work again");
	tap_errno(vm_unmap(fd, BASE, PAGE4K), 0, "and unmap");
	bo_close(fd, h);
}

static void pinned_budget(int fd)
{
	const uint64_t half = (uint64_t)meminfo_kb("MemTotal") * 1024 / 2;
	const uint64_t quarter = ((half / 2 + (8ull << 20)) + PAGE4K - 1) & ~(PAGE4K - 1);
	long avail0, avail1, sys0, sys1;
	uint32_t big, a, b;

	if (bo_create(fd, 4ull << 30, &big) || bo_create(fd, quarter, &a) ||
	    bo_create(fd, quarter, &b)) {
		tap_ok(false, "create a 4 GiB BO and two of %llu MiB",
		       (unsigned long long)(quarter >> 20));
		return;
	}
	avail0 = meminfo_kb("MemAvailable");
	sys0 = tern_system_kb();
	tap_errno(vm_map(fd, big, BASE, 0, PAGE4K), -ENOSPC,
		  "a 4 GiB BO is more than half of the memory: refused");
	sys1 = tern_system_kb();
	avail1 = meminfo_kb("MemAvailable");
	tap_ok(avail1 > avail0 - 16 * 1024 && sys0 >= 0 && sys1 >= 0 && sys1 <= sys0,
	       "before its pages were allocated (%+ld MiB available, BO system memory %+ld kB)",
	       (avail1 - avail0) / 1024, sys1 - sys0);

	tap_errno(vm_map(fd, a, BASE, 0, quarter), 0, "map a BO of a quarter of the memory");
	tap_errno(vm_map(fd, a, BASE + quarter, 0, quarter), 0,
		  "map it a second time: it counts once");
	tap_errno(vm_map(fd, b, BASE + 2 * quarter, 0, PAGE4K), -ENOSPC,
		  "a second BO of a quarter does not fit, not even one page of it");
	tap_errno(vm_unmap(fd, BASE, quarter), 0, "unmap the first mapping");
	tap_errno(vm_map(fd, b, BASE + 2 * quarter, 0, PAGE4K), -ENOSPC,
		  "still no room while the BO has a mapping");
	tap_errno(vm_unmap(fd, BASE + quarter, quarter), 0, "unmap the second mapping");
	bo_close(fd, a);
	tap_errno(vm_map(fd, b, BASE + 2 * quarter, 0, quarter), 0,
		  "now the second BO fits");
	tap_errno(vm_unmap(fd, BASE + 2 * quarter, quarter), 0, "and unmaps");
	bo_close(fd, b);
	bo_close(fd, big);
}

int main(void)
{
	int fd = tern_test_open();

	if (fd < 0) {
		tap_ok(false, "open the device");
		return tap_exit_status();
	}
	table_budget(fd);
	mapping_budget(fd);
	pinned_budget(fd);
	close(fd);
	tap_done();
	return tap_exit_status();
}
