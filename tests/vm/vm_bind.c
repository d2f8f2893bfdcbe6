// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * vm_bind: DRM_IOCTL_TERN_VM_BIND maps and unmaps BO ranges in the file's
 * address space, read-write and read-only, and refuses each documented
 * bad argument with its own errno without changing the address space.
 * Interface 1.5: an unmap without DRM_TERN_VM_BIND_CUT that would cut a
 * mapping (its first page, its last page and beyond, free pages and its
 * start, its middle, or a whole mapping and part of another) is -EINVAL
 * and changes nothing: debugfs "vms" lists the mappings as before, whole,
 * and jobs write through the first word, the pages the unmaps named and
 * the last word.  DRM_TERN_VM_BIND_CUT on a map, alone or with REPLACE,
 * and with another flag on an unmap, is -EINVAL and maps nothing.  An
 * unmap with it of a range that holds whole mappings only removes them as
 * a plain unmap does, and one of a range with nothing mapped is -ENOENT.
 * An unmap with it cuts the mappings that cross its ends: what is left of
 * them stays mapped, checked here through -EEXIST and -ENOENT
 * (vm_bind_split checks it with jobs).
 *
 * tern-vm: timeout=60
 */
#include "core_test.h"

#define MAP	DRM_TERN_VM_BIND_OP_MAP
#define UNMAP	DRM_TERN_VM_BIND_OP_UNMAP
#define RO	DRM_TERN_VM_BIND_READ_ONLY
#define REPLACE	DRM_TERN_VM_BIND_REPLACE
#define CUT	DRM_TERN_VM_BIND_CUT
#define VA_END	(1ull << 48)
#define MARK_VA		0x7e5b00000000ull	/* finds this file's VM in debugfs */
#define MARK_SIZE	(2 * PAGE4K)

static int fd;

/* debugfs "vms" lists exactly @want (see core_vm_layout()) in [lo, hi). */
static bool layout_is(const char *what, uint64_t lo, uint64_t hi, const char *want)
{
	return core_layout_is(what, MARK_VA, MARK_SIZE, lo, hi, want);
}

/* A job on @ctx writes @value at @va: 0 once it did, or its error. */
static int write_through(uint32_t ctx, uint64_t va, uint32_t value)
{
	uint32_t dw[8], n = 0, so = syncobj_new(fd);
	int ret;

	pkt_write_imm(dw, &n, va, value);
	ret = submit(fd, ctx, dw, n, NULL, 0, 0, so, NULL);
	ret = ret ?: syncobj_wait(fd, so, 10000);
	if (!ret)
		ret = core_fence_status(fd, so) == 1 ? 0 : -EIO;
	drmSyncobjDestroy(fd, so);
	return ret;
}

/*
 * Without DRM_TERN_VM_BIND_CUT an unmap that would cut is refused and
 * changes nothing; the flag where it does not belong is refused.  @h (of
 * @bo_size bytes) is mapped whole at @va, and is again at the end.
 */
static void check_no_cut(uint32_t h, uint64_t bo_size, uint64_t va)
{
	const uint64_t va2 = va + bo_size + 2 * PAGE4K, lo = va - 16 * PAGE4K,
		       hi = va + 64 * PAGE4K;
	volatile uint32_t *cpu = NULL;
	char want[256], what[96];
	uint64_t size = 0, offs[] = { 0, 4 * PAGE4K + 8, 5 * PAGE4K + 12, bo_size - 4 };
	uint32_t ctx = 0, mark = 0;
	unsigned int i;
	int ret;

	if (!tap_ok(!bo_create(fd, MARK_SIZE, &mark) &&
		    !vm_map(fd, mark, MARK_VA, 0, MARK_SIZE) &&
		    (cpu = bo_mmap(fd, h, &size)) && !ctx_create_on(fd, 0, 0, &ctx),
		    "no cut: a marker mapping, the BO in the CPU, a context"))
		return;
	tap_errno(vm_map(fd, h, va2, 0, 2 * PAGE4K), 0,
		  "no cut: map the BO's first two pages again, two pages after the mapping");
	snprintf(want, sizeof(want), "%llx-%llx rw @0; %llx-%llx rw @0", (unsigned long long)va,
		 (unsigned long long)(va + bo_size), (unsigned long long)va2,
		 (unsigned long long)(va2 + 2 * PAGE4K));
	layout_is("no cut: before", lo, hi, want);

	tap_errno(vm_unmap(fd, va, PAGE4K), -EINVAL,
		  "an unmap of the first page only, without DRM_TERN_VM_BIND_CUT");
	tap_errno(vm_unmap(fd, va + bo_size - PAGE4K, 2 * PAGE4K), -EINVAL,
		  "an unmap of the last page and the free page after it, without it");
	tap_errno(vm_unmap(fd, va - PAGE4K, 2 * PAGE4K), -EINVAL,
		  "an unmap of a free page and the first page, without it");
	tap_errno(vm_unmap(fd, va + 4 * PAGE4K, 2 * PAGE4K), -EINVAL,
		  "an unmap of two pages in the middle, without it");
	tap_errno(vm_unmap(fd, va - PAGE4K, bo_size + 4 * PAGE4K), -EINVAL,
		  "an unmap of the whole mapping and the first page of the next, without it");
	layout_is("no cut: after the refused unmaps, both mappings are whole", lo, hi, want);
	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		cpu[offs[i] / 4] = 0;
		ret = write_through(ctx, va + offs[i], 0xc0de0000 + i);
		snprintf(what, sizeof(what), "no cut: a job writes through VA %#llx",
			 (unsigned long long)(va + offs[i]));
		tap_ok(!ret && cpu[offs[i] / 4] == 0xc0de0000 + i, "%s into the BO at offset %#llx "
		       "(%s, %#x there)", what, (unsigned long long)offs[i],
		       ret ? strerror(-ret) : "done", cpu[offs[i] / 4]);
	}
	ret = write_through(ctx, va2 + PAGE4K + 4, 0xc0de00ff);
	tap_ok(!ret && cpu[(PAGE4K + 4) / 4] == 0xc0de00ff,
	       "no cut: and through the second mapping's last page (%s)",
	       ret ? strerror(-ret) : "done");

	/* the flag where it does not belong */
	tap_errno(vm_bind(fd, MAP, CUT, h, va + 32 * PAGE4K, 0, PAGE4K), -EINVAL,
		  "DRM_TERN_VM_BIND_CUT on a map");
	tap_errno(vm_bind(fd, MAP, CUT | REPLACE, h, va + 32 * PAGE4K, 0, PAGE4K), -EINVAL,
		  "DRM_TERN_VM_BIND_CUT with DRM_TERN_VM_BIND_REPLACE on a map");
	tap_errno(vm_bind(fd, MAP, CUT | REPLACE, h, va, 0, PAGE4K), -EINVAL,
		  "the same over the mapping's first page");
	tap_errno(vm_bind(fd, UNMAP, CUT | RO, 0, va, 0, PAGE4K), -EINVAL,
		  "DRM_TERN_VM_BIND_CUT with READ_ONLY on an unmap");
	tap_errno(vm_bind(fd, UNMAP, CUT | REPLACE, 0, va, 0, PAGE4K), -EINVAL,
		  "DRM_TERN_VM_BIND_CUT with REPLACE on an unmap");
	tap_errno(vm_bind(fd, UNMAP, CUT | 1u << 3, 0, va, 0, PAGE4K), -EINVAL,
		  "DRM_TERN_VM_BIND_CUT with an unknown flag on an unmap");
	layout_is("no cut: the refused flags mapped and unmapped nothing", lo, hi, want);

	/* with the flag, a range of whole mappings only: as a plain unmap */
	tap_errno(vm_unmap_cut(fd, va2 - PAGE4K, 4 * PAGE4K), 0,
		  "an unmap with DRM_TERN_VM_BIND_CUT of a range holding the second mapping "
		  "whole and free pages");
	snprintf(want, sizeof(want), "%llx-%llx rw @0", (unsigned long long)va,
		 (unsigned long long)(va + bo_size));
	layout_is("no cut: it removed the second mapping, the first is whole", lo, hi, want);
	tap_errno(vm_unmap(fd, va2, 2 * PAGE4K), -ENOENT, "the second mapping is gone");
	tap_errno(vm_unmap_cut(fd, va2, 2 * PAGE4K), -ENOENT,
		  "an unmap with DRM_TERN_VM_BIND_CUT of a range with nothing mapped");
	tap_errno(vm_unmap_cut(fd, va, bo_size), 0,
		  "an unmap with it of exactly the first mapping");
	layout_is("no cut: it removed the first", lo, hi, "none");
	tap_errno(vm_map(fd, h, va, 0, bo_size), 0, "no cut: map the BO whole again");

	ctx_destroy(fd, ctx);
	munmap((void *)cpu, size);
	tap_errno(vm_unmap(fd, MARK_VA, MARK_SIZE), 0, "no cut: unmap the marker");
	bo_close(fd, mark);
}

int main(void)
{
	const uint64_t bo_size = 16 * PAGE4K;
	const uint64_t va = 0x40000000;
	uint32_t h, h2;
	int fd2;

	fd = tern_test_open();
	if (fd < 0 || bo_create(fd, bo_size, &h) || bo_create(fd, PAGE4K, &h2)) {
		tap_ok(false, "open the device and create BOs");
		return tap_exit_status();
	}

	/* success paths */
	tap_errno(vm_map(fd, h, va, 0, bo_size), 0, "map a whole BO");
	tap_errno(vm_unmap(fd, va, bo_size), 0, "unmap it");
	tap_errno(vm_unmap(fd, va, bo_size), -ENOENT, "unmap it again");
	tap_errno(vm_map(fd, h, va, 0, bo_size), 0, "map it again at the same VA");
	tap_errno(vm_map(fd, h, va + bo_size, 0, bo_size), 0,
		  "map the same BO a second time, right after");
	tap_errno(vm_bind(fd, MAP, RO, h, va + 2 * bo_size, 4 * PAGE4K, 2 * PAGE4K), 0,
		  "map two pages of it read-only at an offset");
	tap_errno(vm_map(fd, h2, DRM_TERN_VA_START, 0, PAGE4K), 0,
		  "map at the lowest VA");
	tap_errno(vm_map(fd, h2, VA_END - PAGE4K, 0, PAGE4K), 0,
		  "map at the highest page");
	tap_errno(vm_map(fd, h2, 1ull << 39, 0, PAGE4K), 0,
		  "map across a new top-level table");
	tap_errno(vm_unmap(fd, va, 2 * bo_size + 2 * PAGE4K), 0,
		  "one unmap removes three mappings");
	tap_errno(vm_unmap(fd, DRM_TERN_VA_START, PAGE4K), 0, "unmap the lowest page");
	tap_errno(vm_unmap(fd, VA_END - PAGE4K, PAGE4K), 0, "unmap the highest page");
	tap_errno(vm_unmap(fd, 0x1000000, (1ull << 40) - 0x1000000), 0,
		  "unmap a huge range that holds one mapping");

	/* A mapping keeps its BO alive after the handle is closed. */
	{
		uint32_t h3;

		tap_errno(bo_create(fd, 4 * PAGE4K, &h3), 0, "create a BO to close");
		tap_errno(vm_map(fd, h3, va, 0, 4 * PAGE4K), 0, "map it");
		tap_errno(bo_close(fd, h3), 0, "close its handle while mapped");
		tap_errno(vm_map(fd, h3, va + 0x100000, 0, PAGE4K), -ENOENT,
			  "the closed handle is gone");
		tap_errno(vm_unmap(fd, va, 4 * PAGE4K), 0,
			  "the mapping is still there and unmaps");
	}

	/* -EINVAL */
	tap_errno(vm_bind(fd, 2, 0, h, va, 0, PAGE4K), -EINVAL, "unknown op");
	tap_errno(vm_bind(fd, MAP, 1u << 2, h, va, 0, PAGE4K), -EINVAL,
		  "unknown map flag (bit 2)");
	tap_errno(vm_bind(fd, MAP, 1u << 31, h, va, 0, PAGE4K), -EINVAL,
		  "unknown map flag (bit 31)");
	{
		struct drm_tern_vm_bind b = { .op = MAP, .handle = h, .va = va,
					      .range = PAGE4K, .pad = 1 };

		tap_errno(mem_ioctl(fd, DRM_IOCTL_TERN_VM_BIND, &b), -EINVAL, "pad not 0");
	}
	tap_errno(vm_map(fd, h, va + 1, 0, PAGE4K), -EINVAL, "misaligned VA");
	tap_errno(vm_map(fd, h, va + 2048, 0, PAGE4K), -EINVAL, "VA aligned to 2 KiB only");
	tap_errno(vm_map(fd, h, va, 512, PAGE4K), -EINVAL, "misaligned BO offset");
	tap_errno(vm_map(fd, h, va, 0, PAGE4K + 4), -EINVAL, "misaligned range");
	tap_errno(vm_map(fd, h, va, 0, 0), -EINVAL, "zero range");
	tap_errno(vm_map(fd, h, va, 0, bo_size + PAGE4K), -EINVAL, "range past the BO");
	tap_errno(vm_map(fd, h, va, PAGE4K, bo_size), -EINVAL, "offset + range past the BO");
	tap_errno(vm_map(fd, h, va, bo_size, PAGE4K), -EINVAL, "offset at the end of the BO");
	tap_errno(vm_map(fd, h, va, 1ull << 62, PAGE4K), -EINVAL, "huge offset");
	tap_errno(vm_map(fd, h, va, -PAGE4K, 2 * PAGE4K), -EINVAL,
		  "offset + range that wraps");
	tap_errno(vm_bind(fd, UNMAP, RO, 0, va, 0, PAGE4K), -EINVAL, "flags on an unmap");
	tap_errno(vm_bind(fd, UNMAP, REPLACE, 0, va, 0, PAGE4K), -EINVAL,
		  "DRM_TERN_VM_BIND_REPLACE on an unmap");
	tap_errno(vm_bind(fd, UNMAP, 0, h, va, 0, PAGE4K), -EINVAL, "handle on an unmap");
	tap_errno(vm_bind(fd, UNMAP, 0, 0, va, PAGE4K, PAGE4K), -EINVAL,
		  "BO offset on an unmap");
	tap_errno(vm_map(fd, h, va, 0, bo_size), 0, "map for the unmap checks");
	tap_errno(vm_unmap(fd, va + 1, bo_size), -EINVAL, "misaligned unmap");
	tap_errno(vm_unmap(fd, va + PAGE4K, PAGE4K + 4), -EINVAL, "unmap of a misaligned range");
	tap_errno(vm_unmap(fd, va + PAGE4K, 0), -EINVAL, "unmap of an empty range");
	tap_errno(vm_unmap_cut(fd, va + PAGE4K, 0), -EINVAL,
		  "unmap with DRM_TERN_VM_BIND_CUT of an empty range");

	/* interface 1.5: without DRM_TERN_VM_BIND_CUT, no cut */
	check_no_cut(h, bo_size, va);

	/* with it, an unmap cuts the mappings that cross its ends */
	tap_errno(vm_unmap_cut(fd, va, PAGE4K), 0, "unmap of the first page only cuts the mapping");
	tap_errno(vm_unmap_cut(fd, va, PAGE4K), -ENOENT,
		  "the first page is gone: unmapping it again, with DRM_TERN_VM_BIND_CUT too");
	tap_errno(vm_map(fd, h2, va + PAGE4K, 0, PAGE4K), -EEXIST,
		  "the rest of the mapping is still there");
	tap_errno(vm_unmap(fd, va + 2 * PAGE4K, bo_size), -EINVAL,
		  "unmap of its tail and more, without DRM_TERN_VM_BIND_CUT");
	tap_errno(vm_unmap_cut(fd, va + 2 * PAGE4K, bo_size), 0,
		  "with it, unmap of the tail and more cuts it again");
	tap_errno(vm_map(fd, h2, va + PAGE4K, 0, PAGE4K), -EEXIST, "one page of it is left");
	tap_errno(vm_map(fd, h2, va + 2 * PAGE4K, 0, PAGE4K), 0, "the page after it is free");
	tap_errno(vm_unmap(fd, va + 2 * PAGE4K, PAGE4K), 0, "unmap that page again");
	tap_errno(vm_unmap_cut(fd, va - PAGE4K, 2 * PAGE4K), -ENOENT,
		  "an unmap range that holds no mapped page, with DRM_TERN_VM_BIND_CUT");
	tap_errno(vm_unmap(fd, va, 3 * PAGE4K), 0, "an unmap around the last page removes it");
	tap_errno(vm_map(fd, h, va, 0, bo_size), 0, "the whole range is free: map the BO again");
	tap_errno(vm_unmap_cut(fd, va - PAGE4K, 2 * PAGE4K), 0,
		  "unmap cutting the start of a mapping, from a free page");
	tap_errno(vm_unmap_cut(fd, va + 4 * PAGE4K, 2 * PAGE4K), 0,
		  "unmap of two pages in the middle cuts it in two");
	tap_errno(vm_map(fd, h2, va + 5 * PAGE4K, 0, PAGE4K), 0, "the hole is free");
	tap_errno(vm_map(fd, h2, va + 6 * PAGE4K, 0, PAGE4K), -EEXIST,
		  "the page after the hole is mapped");
	tap_errno(vm_map(fd, h2, va + 3 * PAGE4K, 0, PAGE4K), -EEXIST,
		  "the page before the hole is mapped");
	tap_errno(vm_unmap(fd, va, bo_size), 0, "one unmap removes both pieces and the page");
	tap_errno(vm_map(fd, h, va, 0, bo_size), 0, "map the BO whole for the checks below");

	/* -ERANGE */
	tap_errno(vm_map(fd, h2, 0, 0, PAGE4K), -ERANGE, "VA 0");
	tap_errno(vm_map(fd, h2, DRM_TERN_VA_START - PAGE4K, 0, PAGE4K), -ERANGE,
		  "the page below DRM_TERN_VA_START");
	tap_errno(vm_map(fd, h, DRM_TERN_VA_START - PAGE4K, 0, 2 * PAGE4K), -ERANGE,
		  "a range starting below DRM_TERN_VA_START");
	tap_errno(vm_map(fd, h2, VA_END, 0, PAGE4K), -ERANGE, "VA 2^48");
	tap_errno(vm_map(fd, h, VA_END - PAGE4K, 0, 2 * PAGE4K), -ERANGE,
		  "a range crossing 2^48");
	tap_errno(vm_map(fd, h2, -PAGE4K, 0, PAGE4K), -ERANGE, "the last page of 2^64");
	tap_errno(vm_unmap(fd, VA_END, PAGE4K), -ERANGE, "unmap at 2^48");
	tap_errno(vm_unmap(fd, PAGE4K, -2 * PAGE4K), -ERANGE, "unmap of a wrapping range");

	/* -EEXIST */
	tap_errno(vm_map(fd, h2, va, 0, PAGE4K), -EEXIST, "map over the first page");
	tap_errno(vm_map(fd, h2, va + bo_size - PAGE4K, 0, PAGE4K), -EEXIST,
		  "map over the last page");
	tap_errno(vm_map(fd, h, va - PAGE4K, 0, 2 * PAGE4K), -EEXIST,
		  "map overlapping the start");
	tap_errno(vm_map(fd, h, va - PAGE4K, 0, bo_size), -EEXIST,
		  "map covering all but the end");
	tap_errno(vm_map(fd, h2, va + bo_size, 0, PAGE4K), 0,
		  "map just after the mapping");
	tap_errno(vm_map(fd, h2, va - PAGE4K, 0, PAGE4K), 0,
		  "map just before the mapping");

	/* -ENOENT */
	tap_errno(vm_map(fd, 0, va + 0x1000000, 0, PAGE4K), -ENOENT, "handle 0");
	tap_errno(vm_map(fd, 0xdeadbeef, va + 0x1000000, 0, PAGE4K), -ENOENT, "bad handle");
	tap_errno(vm_unmap(fd, va + 0x1000000, PAGE4K), -ENOENT, "unmap of nothing");
	fd2 = tern_test_open();
	tap_errno(fd2 < 0 ? -EBADF : vm_map(fd2, h, va, 0, PAGE4K), -ENOENT,
		  "a handle of another file");
	tap_errno(fd2 < 0 ? -EBADF : vm_unmap(fd2, va, bo_size), -ENOENT,
		  "another file has its own address space: nothing mapped there");
	tap_errno(fd2 < 0 ? -EBADF : bo_create(fd2, PAGE4K, &h2), 0,
		  "create a BO in the second file");
	tap_errno(fd2 < 0 ? -EBADF : vm_map(fd2, h2, va, 0, PAGE4K), 0,
		  "the same VA is free in the second file's address space");
	if (fd2 >= 0)
		close(fd2);

	/* After all these failures, the mappings are as they were. */
	tap_errno(vm_unmap(fd, va - PAGE4K, bo_size + 2 * PAGE4K), 0,
		  "unmap the three mappings left");
	tap_errno(vm_unmap(fd, DRM_TERN_VA_START, VA_END - DRM_TERN_VA_START), -ENOENT,
		  "nothing is mapped any more");

	/* A file closed with mappings in place tears them down. */
	tap_errno(vm_map(fd, h, va, 0, bo_size), 0, "map before closing the file");
	tap_ok(close(fd) == 0, "close the file with a mapping");
	tap_done();
	return tap_exit_status();
}
