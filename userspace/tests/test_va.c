// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * test_va: the device VA allocator hands out aligned, disjoint ranges, takes
 * them back and merges holes, refuses double frees, and survives a random
 * workload checked against a page bitmap.
 */
#include <errno.h>
#include <string.h>

#include "va.h"
#include "tap.h"

#define PAGE	4096ull

static void test_basics(void)
{
	struct tern_va_space vs;
	uint64_t a, b, c, d;

	ok(tern_va_init(&vs, 0x100000, 0x200000) == 0, "a 1 MiB space at 1 MiB");
	ok(tern_va_alloc(&vs, PAGE, PAGE, &a) == 0 && a == 0x100000, "first fit at the start");
	ok(tern_va_alloc(&vs, 2 * PAGE, PAGE, &b) == 0 && b == 0x101000, "next one after it");
	ok(tern_va_alloc(&vs, PAGE, 0x10000, &c) == 0 && c == 0x110000, "64 KiB alignment honoured");
	ok(vs.count == 2, "the alignment gap stays a hole (%zu holes)", vs.count);
	ok(tern_va_alloc(&vs, PAGE, PAGE, &d) == 0 && d == 0x103000, "the gap is used first");
	ok(tern_va_free(&vs, b, 2 * PAGE) == 0, "free the middle range");
	ok(tern_va_free(&vs, b, 2 * PAGE) == -EINVAL, "a double free is refused");
	ok(tern_va_free(&vs, a, PAGE) == 0 && vs.holes[0].start == 0x100000 &&
	   vs.holes[0].end == 0x103000, "freeing its neighbour merges the holes");
	ok(tern_va_free(&vs, d, PAGE) == 0 && tern_va_free(&vs, c, PAGE) == 0 && vs.count == 1 &&
	   tern_va_free_bytes(&vs) == 0x100000, "everything back: one hole of 1 MiB");
	ok(tern_va_alloc(&vs, 0x100001, PAGE, &a) == -ENOSPC, "more than the space: -ENOSPC");
	ok(tern_va_alloc(&vs, 0x100000, PAGE, &a) == 0 && vs.count == 0,
	   "exactly the space: no hole left");
	ok(tern_va_alloc(&vs, PAGE, PAGE, &b) == -ENOSPC, "then nothing fits");
	ok(tern_va_alloc(&vs, 0, PAGE, &b) == -EINVAL && tern_va_alloc(&vs, PAGE, 3, &b) == -EINVAL,
	   "size 0 and a non-power-of-two alignment are refused");
	ok(tern_va_free(&vs, a, 0x100000) == 0 && vs.count == 1, "free into an empty hole list");
	tern_va_fini(&vs);
	ok(tern_va_init(&vs, 10, 10) == -EINVAL, "an empty space is refused");
	tern_va_fini(&vs);
}

/* A random workload against a bitmap of 512 pages. */
static void test_random(void)
{
	enum { PAGES = 512, SLOTS = 64 };
	static uint8_t used[PAGES];
	struct { uint64_t va, size; } live[SLOTS] = { { 0, 0 } };
	struct tern_va_space vs;
	uint32_t x = 12345;
	bool good = true;
	int i, ops = 0;

	memset(used, 0, sizeof(used));
	tern_va_init(&vs, 0, PAGES * PAGE);
	for (i = 0; i < 20000; i++) {
		int s;
		uint64_t p;

		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		s = (int)(x % SLOTS);
		if (live[s].size) {
			good &= tern_va_free(&vs, live[s].va, live[s].size) == 0;
			for (p = live[s].va / PAGE; p < (live[s].va + live[s].size) / PAGE; p++)
				used[p] = 0;
			live[s].size = 0;
		} else {
			uint64_t size = ((x >> 8) % 16 + 1) * PAGE;
			uint64_t align = PAGE << ((x >> 16) % 3);
			uint64_t va;
			int ret = tern_va_alloc(&vs, size, align, &va);

			if (ret) {
				good &= ret == -ENOSPC;
				continue;
			}
			good &= !(va % align) && va + size <= PAGES * PAGE;
			for (p = va / PAGE; p < (va + size) / PAGE; p++) {
				good &= !used[p];
				used[p] = 1;
			}
			live[s].va = va;
			live[s].size = size;
			ops++;
		}
	}
	ok(good, "20000 random operations (%d allocations): aligned, disjoint, in range", ops);
	for (i = 0; i < SLOTS; i++)
		if (live[i].size)
			tern_va_free(&vs, live[i].va, live[i].size);
	ok(vs.count == 1 && tern_va_free_bytes(&vs) == PAGES * PAGE,
	   "after freeing everything the space is one hole again");
	tern_va_fini(&vs);
}

int main(void)
{
	test_basics();
	test_random();
	return tap_end();
}
