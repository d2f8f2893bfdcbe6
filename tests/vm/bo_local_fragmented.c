// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bo_local_fragmented: a LOCAL BO spread over many blocks of local memory,
 * seen the same by the CPU (through BAR2) and by jobs (through its page
 * table entries), whatever order the CPU touches its pages in.
 *
 * Local memory is filled with 256 KiB LOCAL BOs, mapped, and every other
 * one is freed: the free memory is then holes of 256 KiB that cannot
 * merge.  An 8 MiB BO F, written by the CPU in system memory, is mapped:
 * it is paged in to 32 of those holes, and no piece is evicted for it
 * (since interface 1.7 mapped pieces are not pinned, only idle: a map
 * evicts only when local memory has too few free bytes, not to find
 * contiguous room).  The CPU reads it back
 * last page first, then in strides, through new mappings; it writes a new
 * pattern a page at a time in a scattered order; a job copies F to a
 * system BO, which must hold exactly what the CPU wrote.  Then everything
 * is freed and local memory is all given back.
 *
 * tern-vm: timeout=120
 */
#include "core_test.h"

#define KIB		1024ull
#define MIB		(1024 * KIB)
#define PIECE		(256 * KIB)
#define MAX_PIECES	4096
#define F_SIZE		(8 * MIB)
#define F_PAGES		(F_SIZE / 4096)
#define VA_PIECES	0x100000000ull
#define VA_F		0x40000000ull
#define VA_S		0x50000000ull

static uint32_t word(size_t page, size_t i, uint32_t salt)
{
	return (uint32_t)(page * 0x9e3779b1u) ^ (uint32_t)i ^ salt;
}

/* Whether page @p of @f holds the pattern of @salt. */
static bool page_holds(volatile uint32_t *f, size_t p, uint32_t salt)
{
	size_t i;

	for (i = 0; i < 1024; i++)
		if (f[p * 1024 + i] != word(p, i, salt)) {
			tap_diag("page %zu word %zu: 0x%08x, want 0x%08x", p, i,
				 f[p * 1024 + i], word(p, i, salt));
			return false;
		}
	return true;
}

/* A fresh CPU mapping of F: its pages are faulted in anew. */
static volatile uint32_t *remap(int fd, uint32_t f, volatile uint32_t *old)
{
	uint64_t got;

	if (old)
		munmap((void *)old, F_SIZE);
	return bo_mmap(fd, f, &got);
}

int main(void)
{
	static uint32_t pieces[MAX_PIECES];
	struct drm_tern_get_info info;
	volatile uint32_t *fp = NULL, *sp = NULL;
	uint32_t ctx = 0, f = 0, s = 0, dw[16], n = 0;
	long long in0, ev0, failures;
	size_t i, p, npieces = 0, want;
	uint64_t got;
	bool ok;
	int fd, ret = 0;

	tap_plan(11);
	fd = open(TERN_TEST_NODE, O_RDWR);
	if (!tap_ok(fd >= 0 && !core_get_info(fd, &info) && info.local_mem_size &&
		    !ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COPY,
				0, &ctx) &&
		    core_memory_value("local_bytes") == 0,
		    "open the device, a copy context; local memory unused"))
		return tap_exit_status();
	failures = core_memory_value("paging_failures");

	/* fill local memory with mapped pieces */
	want = info.local_mem_size / PIECE;
	for (i = 0; i < want && i < MAX_PIECES && !ret; i++) {
		ret = bo_create_local(fd, PIECE, &pieces[i]) ?:
		      vm_map(fd, pieces[i], VA_PIECES + i * PIECE, 0, PIECE);
		npieces += !ret;
	}
	tap_ok(!ret && npieces == want &&
	       core_memory_value("local_bytes") == (long long)info.local_mem_size,
	       "local memory full of %zu mapped %llu KiB LOCAL BOs (%s)", npieces,
	       PIECE / KIB, strerror(-ret));

	/* free every other one: holes that cannot merge */
	for (i = 0; i < npieces; i += 2) {
		ret = ret ?: vm_unmap(fd, VA_PIECES + i * PIECE, PIECE) ?:
		      bo_close(fd, pieces[i]);
		pieces[i] = 0;
	}
	for (i = 0; i < 100 && core_memory_value("local_bytes") !=
	     (long long)(npieces / 2 * PIECE); i++)
		usleep(20000);
	tap_ok(!ret && core_memory_value("local_bytes") == (long long)(npieces / 2 * PIECE),
	       "every other one freed: half of local memory free, in 256 KiB holes");

	/* F: written by the CPU in system memory, then paged in to the holes */
	ret = bo_create_local(fd, F_SIZE, &f) ?: bo_create(fd, F_SIZE, &s);
	fp = ret ? NULL : remap(fd, f, NULL);
	sp = ret ? NULL : bo_mmap(fd, s, &got);
	if (!tap_ok(fp && sp && !vm_map(fd, s, VA_S, 0, F_SIZE),
		    "an 8 MiB LOCAL BO F, a system BO S mapped for the device"))
		return tap_exit_status();
	for (p = 0; p < F_PAGES; p++)
		for (i = 0; i < 1024; i++)
			fp[p * 1024 + i] = word(p, i, 0);
	in0 = core_paging_jobs("in");
	ev0 = core_memory_value("evictions");
	ret = vm_map(fd, f, VA_F, 0, F_SIZE);
	tap_ok(!ret && core_paging_jobs("in") == in0 + 1 &&
	       core_memory_value("local_bytes") ==
	       (long long)(npieces / 2 * PIECE + F_SIZE) &&
	       ev0 >= 0 && core_memory_value("evictions") == ev0,
	       "mapping F pages it in to %llu holes, evicting no piece (%s, %lld evictions)",
	       F_SIZE / PIECE, strerror(-ret), core_memory_value("evictions") - ev0);

	/* the CPU reads it through BAR2: last page first, then in strides */
	fp = remap(fd, f, fp);
	for (ok = fp != NULL, p = F_PAGES; ok && p-- > 0;)
		ok = page_holds(fp, p, 0);
	tap_ok(ok, "the CPU reads F last page first, bit-exact");
	fp = remap(fd, f, fp);
	for (ok = fp != NULL, i = 0; ok && i < 7; i++)
		for (p = i; ok && p < F_PAGES; p += 7)
			ok = page_holds(fp, p, 0);
	tap_ok(ok, "and in strides of 7 pages, bit-exact");

	/* the CPU writes it a page at a time, scattered; a job reads it */
	fp = remap(fd, f, fp);
	for (i = 0; fp && i < F_PAGES; i++) {
		p = (i * 1031) % F_PAGES;	/* 1031 is prime: every page once */
		for (n = 0; n < 1024; n++)
			fp[p * 1024 + n] = word(p, n, 0xa5a5a5a5u);
	}
	n = 0;
	memset((void *)sp, 0, F_SIZE);
	pkt_copy(dw, &n, VA_F, VA_S, F_SIZE);
	ret = fp ? core_run(fd, ctx, dw, n) : -ENOMEM;
	for (ok = !ret, p = 0; ok && p < F_PAGES; p++)
		ok = page_holds(sp, p, 0xa5a5a5a5u);
	tap_ok(ok, "the CPU writes F in a scattered order, a job copies it out: bit-exact (%s)",
	       strerror(-ret));

	/* and the other way: a job fills S's copy back, the CPU reads F */
	for (p = 0; p < F_PAGES; p++)
		for (i = 0; i < 1024; i++)
			sp[p * 1024 + i] = word(p, i, 0x3c3c3c3cu);
	n = 0;
	pkt_copy(dw, &n, VA_S, VA_F, F_SIZE);
	ret = core_run(fd, ctx, dw, n);
	fp = remap(fd, f, fp);
	for (ok = !ret && fp, p = F_PAGES; ok && p-- > 0;)
		ok = page_holds(fp, (p * 1031) % F_PAGES, 0x3c3c3c3cu);
	tap_ok(ok, "a job writes F, the CPU reads it in a scattered order: bit-exact (%s)",
	       strerror(-ret));
	tap_ok(core_memory_value("paging_failures") == failures,
	       "no paging buffer failed");

	/* everything goes: local memory is all given back */
	if (fp)
		munmap((void *)fp, F_SIZE);
	munmap((void *)sp, F_SIZE);
	close(fd);
	for (i = 0; i < 100 && core_memory_value("local_bytes") != 0; i++)
		usleep(100000);
	tap_ok(core_memory_value("local_bytes") == 0,
	       "closing the file gives local memory back (%lld)",
	       core_memory_value("local_bytes"));
	return tap_exit_status();
}
