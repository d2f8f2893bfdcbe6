// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bo_create: DRM_IOCTL_TERN_BO_CREATE and DRM_IOCTL_TERN_BO_INFO create,
 * describe and close buffer objects, round sizes to pages and refuse each
 * documented bad argument with its own errno.
 *
 * tern-vm: timeout=60
 */
#include "mem_test.h"

static int create(int fd, struct drm_tern_bo_create *c)
{
	return mem_ioctl(fd, DRM_IOCTL_TERN_BO_CREATE, c);
}

static int info(int fd, struct drm_tern_bo_info *i)
{
	return mem_ioctl(fd, DRM_IOCTL_TERN_BO_INFO, i);
}

int main(void)
{
	static const uint64_t sizes[] = { 1, 4095, 4096, 4097, 1 << 20, 3 << 20 };
	struct drm_tern_get_info gi = { 0 };
	struct drm_tern_bo_create c;
	struct drm_tern_bo_info in;
	uint32_t h1, h2;
	unsigned int i;
	int fd, ret;

	fd = tern_test_open();
	if (fd < 0) {
		tap_ok(false, "open the device");
		return tap_exit_status();
	}
	ret = mem_ioctl(fd, DRM_IOCTL_TERN_GET_INFO, &gi);
	tap_ok(!ret && gi.max_bo_size >= (1ull << 30),
	       "GET_INFO reports max_bo_size %llu", (unsigned long long)gi.max_bo_size);

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t want = (sizes[i] + PAGE4K - 1) / PAGE4K * PAGE4K;

		c = (struct drm_tern_bo_create){ .size = sizes[i] };
		ret = create(fd, &c);
		tap_ok(!ret && c.handle && c.size == want,
		       "create %llu bytes: handle %u, size rounded to %llu (got %llu)",
		       (unsigned long long)sizes[i], c.handle,
		       (unsigned long long)want, (unsigned long long)c.size);
		in = (struct drm_tern_bo_info){ .handle = c.handle };
		ret = info(fd, &in);
		tap_ok(!ret && in.size == want && in.mmap_offset &&
		       in.mmap_offset % PAGE4K == 0 &&
		       in.placement == DRM_TERN_BO_PLACEMENT_SYSTEM && !in.pad,
		       "info of the %llu-byte BO: size %llu, mmap offset %#llx, system",
		       (unsigned long long)sizes[i], (unsigned long long)in.size,
		       (unsigned long long)in.mmap_offset);
		tap_errno(bo_close(fd, c.handle), 0, "close the BO");
		in = (struct drm_tern_bo_info){ .handle = c.handle };
		tap_errno(info(fd, &in), -ENOENT, "info of a closed BO");
	}

	/* The largest BO: its memory is only allocated when used. */
	c = (struct drm_tern_bo_create){ .size = gi.max_bo_size };
	ret = create(fd, &c);
	tap_ok(!ret && c.size == gi.max_bo_size, "create a BO of max_bo_size");
	if (!ret)
		bo_close(fd, c.handle);

	/* Two BOs get different handles and mmap offsets. */
	ret = bo_create(fd, 8192, &h1) || bo_create(fd, 8192, &h2);
	if (!ret) {
		struct drm_tern_bo_info a = { .handle = h1 }, b = { .handle = h2 };

		ret = info(fd, &a) || info(fd, &b);
		tap_ok(!ret && h1 != h2 && a.mmap_offset != b.mmap_offset,
		       "two BOs have distinct handles and mmap offsets");
		bo_close(fd, h1);
		bo_close(fd, h2);
	} else {
		tap_ok(false, "two BOs have distinct handles and mmap offsets");
	}

	c = (struct drm_tern_bo_create){ .size = 0 };
	tap_errno(create(fd, &c), -EINVAL, "size 0");
	c = (struct drm_tern_bo_create){ .size = 4096, .flags = 1 };
	tap_errno(create(fd, &c), -EINVAL, "unknown flag");
	c = (struct drm_tern_bo_create){ .size = 4096, .pad = 1 };
	tap_errno(create(fd, &c), -EINVAL, "pad not zero");
	c = (struct drm_tern_bo_create){ .size = 4096, .placement = 7 };
	tap_errno(create(fd, &c), -EINVAL, "unknown placement");
	c = (struct drm_tern_bo_create){ .size = gi.local_mem_size + 4096,
					 .placement = DRM_TERN_BO_PLACEMENT_LOCAL };
	tap_errno(create(fd, &c), -E2BIG, "a LOCAL BO larger than local memory");
	c = (struct drm_tern_bo_create){ .size = gi.max_bo_size + 1 };
	tap_errno(create(fd, &c), -E2BIG, "max_bo_size + 1");
	c = (struct drm_tern_bo_create){ .size = UINT64_MAX };
	tap_errno(create(fd, &c), -E2BIG, "size 2^64 - 1");
	c = (struct drm_tern_bo_create){ .size = UINT64_MAX - 4094 };
	tap_errno(create(fd, &c), -E2BIG, "size that wraps when rounded");

	in = (struct drm_tern_bo_info){ .handle = 0 };
	tap_errno(info(fd, &in), -ENOENT, "info of handle 0");
	in = (struct drm_tern_bo_info){ .handle = 0xdeadbeef };
	tap_errno(info(fd, &in), -ENOENT, "info of a handle never created");
	ret = bo_create(fd, 4096, &h1);
	in = (struct drm_tern_bo_info){ .handle = h1, .flags = 1 };
	tap_errno(ret ? ret : info(fd, &in), -EINVAL, "info with a flag");
	in = (struct drm_tern_bo_info){ .handle = h1, .pad = 1 };
	tap_errno(ret ? ret : info(fd, &in), -EINVAL, "info with pad not zero");
	in = (struct drm_tern_bo_info){ .handle = h1, .pad = 0x80000000u };
	tap_errno(ret ? ret : info(fd, &in), -EINVAL, "info with pad bit 31 set");
	tap_errno(bo_close(fd, 0xdeadbeef), -EINVAL, "GEM_CLOSE of a bad handle");

	/* A handle is local to its file. */
	{
		int fd2 = tern_test_open();

		in = (struct drm_tern_bo_info){ .handle = h1 };
		tap_errno(fd2 < 0 ? -EBADF : info(fd2, &in), -ENOENT,
			  "a handle of another file is unknown");
		if (fd2 >= 0)
			close(fd2);
	}

	tap_ok(close(fd) == 0, "close the device with a BO still open");
	tap_done();
	return tap_exit_status();
}
