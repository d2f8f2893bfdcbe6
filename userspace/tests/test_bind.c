// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * test_bind: what tern_va_reserve(), tern_va_release() and tern_vm_bind()
 * decide before any ioctl: reserved ranges are aligned, disjoint and taken
 * from the allocator of tern_bo_alloc() (with a guard page), and come back
 * whole; binds with no operation, too many, an unknown op or flag
 * (TERN_BIND_REPLACE on an unmap, TERN_BIND_CUT on a map, alone or with
 * TERN_BIND_REPLACE; either flag with a driver older than interface 1.5:
 * -EOPNOTSUPP), a map without a buffer or with another device's, an unmap with a buffer,
 * unaligned or empty ranges, a map beyond its buffer, a range outside the
 * reservations, a bad timeline point, or a driver without asynchronous
 * binds are refused with their errno and a message naming the operation.
 * Pure: the device and its objects are built by hand (no file descriptor).
 */
#include <errno.h>
#include <string.h>

#include "internal.h"
#include "tap.h"

#define PAGE	4096ull

static struct tern_device dev = { .fd = -1 };

static int bind1(uint32_t op, uint32_t flags, struct tern_bo *bo, uint64_t bo_offset,
		 uint64_t va, uint64_t range)
{
	struct tern_bind_op o = { .op = op, .flags = flags, .bo = bo, .bo_offset = bo_offset,
				  .va = va, .range = range };
	struct tern_fence *f = (void *)1;
	int ret = tern_vm_bind(&dev, &o, 1, NULL, &f);

	return f ? -9999 : ret;		/* a refused bind gives no fence */
}

static bool has(const char *s)
{
	return strstr(tern_last_error(), s) != NULL;
}

int main(void)
{
	struct tern_device other = { .fd = -1 };
	struct tern_bo bo = { .dev = &dev, .handle = 5, .size = 8 * PAGE };
	struct tern_bo foreign = { .dev = &other, .handle = 6, .size = 8 * PAGE };
	struct tern_bind_op ops[TERN_BIND_MAX_OPS + 1];
	struct tern_timeline tl = { .dev = &dev, .syncobj = 3 };
	struct tern_timeline_point pt = { &tl, 0 };
	struct tern_deps d = { .signals = &pt, .signal_count = 1 };
	struct tern_vm_state st;
	uint64_t va1, va2, va3, bufva, free0;
	int ret;

	dev.info.driver_version = 1u << 16 | 5;
	dev.info.va_bits = 48;
	dev.info.max_syncs_per_submit = 64;
	if (tern_va_init(&dev.va, TERN_LIB_VA_START, 1ull << 48) ||
	    pthread_mutex_init(&dev.lock, NULL) || pthread_mutex_init(&dev.bind_lock, NULL))
		return 1;
	free0 = tern_va_free_bytes(&dev.va);

	/* reservations */
	ret = tern_va_reserve(&dev, 5000, 0, &va1);
	ok(ret == 0 && va1 == TERN_LIB_VA_START, "5000 bytes at the first address (0x%llx)",
	   (unsigned long long)va1);
	ok(tern_va_free_bytes(&dev.va) == free0 - 3 * PAGE,
	   "take two pages and a guard page from the buffers' allocator");
	ret = tern_va_reserve(&dev, PAGE, 1ull << 21, &va2);
	ok(ret == 0 && va2 == 1ull << 21, "a page aligned to 2 MiB (0x%llx)",
	   (unsigned long long)va2);
	ret = tern_va_alloc(&dev.va, 2 * PAGE, PAGE, &bufva);
	ok(ret == 0 && bufva == va1 + 3 * PAGE, "a buffer's range comes after the first "
	   "range's guard page (0x%llx)", (unsigned long long)bufva);
	ret = tern_va_reserve(&dev, 0, 0, &va3);
	ok(ret == -EINVAL && va3 == 0 && has("size 0"), "size 0: -EINVAL, \"%s\"",
	   tern_last_error());
	ret = tern_va_reserve(&dev, PAGE, 12288, &va3);
	ok(ret == -EINVAL && has("power of two"), "alignment 12288: -EINVAL, \"%s\"",
	   tern_last_error());
	ret = tern_va_reserve(&dev, 1ull << 48, 0, &va3);
	ok(ret == -ENOSPC && has("no room"), "2^48 bytes: -ENOSPC, \"%s\"", tern_last_error());
	ret = tern_va_reserve(&dev, UINT64_MAX, 0, &va3);
	ok(ret == -ENOSPC, "2^64 - 1 bytes: -ENOSPC, no overflow");
	ret = tern_va_release(&dev, va1, PAGE);
	ok(ret == -EINVAL && has("not a range tern_va_reserve() gave"),
	   "release with another size: -EINVAL, \"%s\"", tern_last_error());
	ok(tern_va_release(&dev, va1 + PAGE, PAGE) == -EINVAL &&
	   tern_va_release(&dev, bufva, 2 * PAGE) == -EINVAL,
	   "release part of a range, or a buffer's: -EINVAL");

	/* binds refused before the ioctl */
	memset(ops, 0, sizeof(ops));
	ret = tern_vm_bind(&dev, ops, 0, NULL, NULL);
	ok(ret == -EINVAL && has("no operation"), "no operation: -EINVAL, \"%s\"",
	   tern_last_error());
	ret = tern_vm_bind(&dev, NULL, 1, NULL, NULL);
	ok(ret == -EINVAL, "no array: -EINVAL");
	ret = tern_vm_bind(&dev, ops, TERN_BIND_MAX_OPS + 1, NULL, NULL);
	ok(ret == -EINVAL && has("at most 64"), "65 operations: -EINVAL, \"%s\"",
	   tern_last_error());
	ret = bind1(2, 0, NULL, 0, va1, PAGE);
	ok(ret == -EINVAL && has("operation 0: unknown op 2"), "op 2: -EINVAL, \"%s\"",
	   tern_last_error());
	ret = bind1(TERN_BIND_MAP, 8, &bo, 0, va1, PAGE);
	ok(ret == -EINVAL && has("flags 0x8"), "a map with flag 8: -EINVAL, \"%s\"",
	   tern_last_error());
	ret = bind1(TERN_BIND_MAP, TERN_BIND_CUT, &bo, 0, va1, PAGE);
	ok(ret == -EINVAL && has("flags 0x4") && has("a map"),
	   "TERN_BIND_CUT on a map: -EINVAL, \"%s\"", tern_last_error());
	ret = bind1(TERN_BIND_MAP, TERN_BIND_CUT | TERN_BIND_REPLACE, &bo, 0, va1, PAGE);
	ok(ret == -EINVAL && has("flags 0x6") && has("a map"),
	   "TERN_BIND_CUT with TERN_BIND_REPLACE on a map: -EINVAL, \"%s\"", tern_last_error());
	ret = bind1(TERN_BIND_UNMAP, TERN_BIND_CUT | 8, NULL, 0, va1, PAGE);
	ok(ret == -EINVAL && has("flags 0xc") && has("an unmap"),
	   "an unmap with TERN_BIND_CUT and flag 8: -EINVAL, \"%s\"", tern_last_error());
	ret = bind1(TERN_BIND_UNMAP, TERN_BIND_READ_ONLY, NULL, 0, va1, PAGE);
	ok(ret == -EINVAL && has("an unmap"), "a read-only unmap: -EINVAL, \"%s\"",
	   tern_last_error());
	ret = bind1(TERN_BIND_UNMAP, TERN_BIND_REPLACE, NULL, 0, va1, PAGE);
	ok(ret == -EINVAL && has("flags 0x2") && has("an unmap"),
	   "TERN_BIND_REPLACE on an unmap: -EINVAL, \"%s\"", tern_last_error());
	/* past the library's checks, a bind needs syncobjs: no file here */
	ret = bind1(TERN_BIND_MAP, TERN_BIND_REPLACE | TERN_BIND_READ_ONLY, &bo, 0, va1, PAGE);
	ok(ret != -EINVAL && ret != -EOPNOTSUPP && !has("flags"),
	   "a read-only REPLACE map passes the library's checks with a 1.5 driver (%d, \"%s\")",
	   ret, tern_last_error());
	ret = bind1(TERN_BIND_UNMAP, TERN_BIND_CUT, NULL, 0, va1, PAGE);
	ok(ret != -EINVAL && ret != -EOPNOTSUPP && !has("flags"),
	   "so does an unmap with TERN_BIND_CUT (%d, \"%s\")", ret, tern_last_error());
	dev.info.driver_version = 1u << 16 | 4;
	ret = bind1(TERN_BIND_MAP, TERN_BIND_REPLACE, &bo, 0, va1, PAGE);
	ok(ret == -EOPNOTSUPP && has("TERN_BIND_REPLACE") && has("interface 1.5"),
	   "a REPLACE map with a 1.4 driver: -EOPNOTSUPP, \"%s\"", tern_last_error());
	ret = bind1(TERN_BIND_UNMAP, TERN_BIND_CUT, NULL, 0, va1, PAGE);
	ok(ret == -EOPNOTSUPP && has("operation 0: TERN_BIND_CUT") && has("interface 1.5") &&
	   has("1.4"), "an unmap with TERN_BIND_CUT with a 1.4 driver: -EOPNOTSUPP, \"%s\"",
	   tern_last_error());
	ops[0] = (struct tern_bind_op){ .op = TERN_BIND_MAP, .bo = &bo, .va = va1, .range = PAGE };
	ops[1] = (struct tern_bind_op){ .op = TERN_BIND_UNMAP, .flags = TERN_BIND_CUT, .va = va1,
					.range = PAGE };
	ret = tern_vm_bind(&dev, ops, 2, NULL, NULL);
	ok(ret == -EOPNOTSUPP && has("operation 1: TERN_BIND_CUT"),
	   "so is a bind whose second operation has it: \"%s\"", tern_last_error());
	ret = bind1(TERN_BIND_MAP, TERN_BIND_READ_ONLY, &bo, 0, va1, PAGE);
	ok(ret != -EINVAL && ret != -EOPNOTSUPP,
	   "a map without them still passes the checks (%d)", ret);
	ret = bind1(TERN_BIND_UNMAP, 0, NULL, 0, va1, PAGE);
	ok(ret != -EINVAL && ret != -EOPNOTSUPP,
	   "and an unmap without TERN_BIND_CUT (%d)", ret);
	dev.info.driver_version = 1u << 16 | 5;
	ret = bind1(TERN_BIND_MAP, 0, NULL, 0, va1, PAGE);
	ok(ret == -EINVAL && has("without a buffer"), "a map without a buffer: -EINVAL, \"%s\"",
	   tern_last_error());
	ret = bind1(TERN_BIND_MAP, 0, &foreign, 0, va1, PAGE);
	ok(ret == -EINVAL && has("another open device"),
	   "a buffer of another device: -EINVAL, \"%s\"", tern_last_error());
	ret = bind1(TERN_BIND_UNMAP, 0, &bo, 0, va1, PAGE);
	ok(ret == -EINVAL && has("no buffer"), "an unmap with a buffer: -EINVAL, \"%s\"",
	   tern_last_error());
	ret = bind1(TERN_BIND_UNMAP, 0, NULL, PAGE, va1, PAGE);
	ok(ret == -EINVAL, "an unmap with an offset: -EINVAL");
	ret = bind1(TERN_BIND_MAP, 0, &bo, 0, va1 + 8, PAGE);
	ok(ret == -EINVAL && has("multiples of the page size"),
	   "an unaligned address: -EINVAL, \"%s\"", tern_last_error());
	ok(bind1(TERN_BIND_MAP, 0, &bo, 100, va1, PAGE) == -EINVAL &&
	   bind1(TERN_BIND_MAP, 0, &bo, 0, va1, 100) == -EINVAL &&
	   bind1(TERN_BIND_MAP, 0, &bo, 0, va1, 0) == -EINVAL,
	   "an unaligned offset or size, or size 0: -EINVAL");
	ret = bind1(TERN_BIND_MAP, 0, &bo, 4 * PAGE, va2, 8 * PAGE);
	ok(ret == -EINVAL && has("beyond the buffer"), "a map beyond its buffer: -EINVAL, \"%s\"",
	   tern_last_error());
	ok(bind1(TERN_BIND_MAP, 0, &bo, 0, va2, UINT64_MAX & ~(PAGE - 1)) == -EINVAL,
	   "a huge size: -EINVAL, no overflow");
	ret = bind1(TERN_BIND_MAP, 0, &bo, 0, va1 + PAGE, 2 * PAGE);
	ok(ret == -ERANGE && has("operation 0 (map of") && has("tern_va_reserve"),
	   "a map into the guard page: -ERANGE, \"%s\"", tern_last_error());
	ret = bind1(TERN_BIND_UNMAP, 0, NULL, 0, bufva, PAGE);
	ok(ret == -ERANGE, "an unmap of a buffer's range: -ERANGE");
	ops[0] = (struct tern_bind_op){ .op = TERN_BIND_MAP, .bo = &bo, .va = va1, .range = PAGE };
	ops[1] = (struct tern_bind_op){ .op = TERN_BIND_UNMAP, .va = va1 - PAGE, .range = PAGE };
	ret = tern_vm_bind(&dev, ops, 2, NULL, NULL);
	ok(ret == -ERANGE && has("operation 1 (unmap of"), "the second operation named: \"%s\"",
	   tern_last_error());
	ret = tern_vm_bind(&dev, ops, 1, &d, NULL);
	ok(ret == -EINVAL && has("bind: signal 0") && has("point 0"),
	   "a timeline point 0 to signal: -EINVAL, \"%s\"", tern_last_error());
	pt.point = 1;
	d.signal_count = 63;
	ret = tern_vm_bind(&dev, ops, 1, &d, NULL);
	ok(ret == -EINVAL && has("63 timeline signals and the bind's fences"),
	   "63 signals and the bind's fences: -EINVAL, \"%s\"", tern_last_error());
	ok(tern_vm_map_lookup_locked(&dev, va1, 4) == NULL, "nothing entered the view");

	dev.info.driver_version = 1u << 16 | 3;
	ret = bind1(TERN_BIND_MAP, 0, &bo, 0, va1, PAGE);
	ok(ret == -EOPNOTSUPP && has("interface 1.4"), "a 1.3 driver: -EOPNOTSUPP, \"%s\"",
	   tern_last_error());
	ret = tern_vm_state(&dev, &st);
	ok(ret == -EOPNOTSUPP, "its state: -EOPNOTSUPP");

	ok(tern_va_release(&dev, va1, 5000) == 0 && tern_va_release(&dev, va2, PAGE) == 0 &&
	   tern_va_free(&dev.va, bufva, 2 * PAGE) == 0 &&
	   tern_va_free_bytes(&dev.va) == free0, "released, the address space is whole again");
	ok(tern_va_release(&dev, va2, PAGE) == -EINVAL, "releasing twice: -EINVAL");

	tern_vm_fini(&dev);
	tern_va_fini(&dev.va);
	pthread_mutex_destroy(&dev.bind_lock);
	pthread_mutex_destroy(&dev.lock);
	return tap_end();
}
