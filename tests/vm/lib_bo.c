// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_bo: libtern's buffers: sizes, CPU mappings, device addresses chosen by
 * the library (aligned, disjoint, guarded, reused after free), device writes
 * seen by the CPU, dma-buf export and import, and the allocation errors.
 *
 * tern-vm: timeout=90
 */
#include <stdint.h>
#include <tern/tern.h>

#include "tern_test.h"

/* Run @cb on a fresh compute context of @dev and wait for it. */
static int run(struct tern_device *dev, struct tern_cmdbuf *cb)
{
	struct tern_context *ctx;
	struct tern_fence *f = NULL;
	int ret;

	ret = tern_context_create(dev, NULL, &ctx);
	if (ret)
		return ret;
	ret = tern_submit(ctx, cb, NULL, 0, &f);
	if (!ret)
		ret = tern_fence_wait(f, 10 * 1000000000ll);
	tern_fence_free(f);
	tern_context_destroy(ctx);
	return ret;
}

int main(void)
{
	struct tern_bo *a = NULL, *b = NULL, *c = NULL, *imp = NULL, *bad = (void *)1;
	static const uint64_t sizes[] = { 1, 4096, 4097, (1 << 20) + 1 };
	const struct tern_device_info *info;
	struct tern_device *dev, *dev2;
	struct tern_cmdbuf *cb;
	uint64_t va_a, i;
	bool zero = true;
	uint32_t *p;
	int ret, fd = -1;

	if (tern_device_open(0, &dev) || tern_device_open(0, &dev2)) {
		tap_ok(false, "open: %s", tern_last_error());
		return tap_exit_status();
	}
	info = tern_device_info(dev);

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ret = tern_bo_alloc(dev, sizes[i], 0, &a);
		tap_ok(ret == 0 && tern_bo_size(a) == ((sizes[i] + 4095) & ~4095ull) &&
		       tern_bo_handle(a) && tern_bo_map(a) && tern_bo_va(a) >= (1 << 20) &&
		       !(tern_bo_va(a) & 4095),
		       "%llu bytes: size %llu, handle, mapping, page-aligned VA 0x%llx",
		       (unsigned long long)sizes[i], ret ? 0ull : (unsigned long long)tern_bo_size(a),
		       ret ? 0ull : (unsigned long long)tern_bo_va(a));
		if (!ret) {
			p = tern_bo_map(a);
			for (uint64_t j = 0; j < tern_bo_size(a) / 4; j++)
				zero &= p[j] == 0;
		}
		tern_bo_free(a);
		a = NULL;
	}
	tap_ok(zero, "new buffers are zero-filled");

	ret = tern_bo_alloc(dev, 8192, 0, &a);
	ret |= tern_bo_alloc(dev, 8192, 0, &b);
	ret |= tern_bo_alloc(dev, 4096, 0, &c);
	tap_ok(ret == 0, "three buffers");
	if (ret)
		goto out;
	tap_ok(tern_bo_va(b) >= tern_bo_va(a) + 8192 + 4096 &&
	       tern_bo_va(c) >= tern_bo_va(b) + 8192 + 4096,
	       "their VAs are disjoint, with a guard page between (0x%llx 0x%llx 0x%llx)",
	       (unsigned long long)tern_bo_va(a), (unsigned long long)tern_bo_va(b),
	       (unsigned long long)tern_bo_va(c));
	va_a = tern_bo_va(a);
	tern_bo_free(a);
	ret = tern_bo_alloc(dev, 4096, 0, &a);
	tap_ok(ret == 0 && tern_bo_va(a) == va_a, "a freed VA is handed out again");

	/* the device writes, the CPU reads through its mapping */
	tern_cmdbuf_create(0, &cb);
	tern_cmd_fill(cb, tern_bo_va(b), 8192, 0x5a5a0001);
	tern_cmd_write_imm(cb, tern_bo_va(c) + 12, 0xfeedf00d);
	ret = run(dev, cb);
	p = tern_bo_map(b);
	zero = true;
	for (i = 0; i < 2048; i++)
		zero &= p[i] == 0x5a5a0001;
	tap_ok(ret == 0 && zero, "a device FILL of the whole buffer is seen by the CPU");
	tap_ok(((uint32_t *)tern_bo_map(c))[3] == 0xfeedf00d, "and a WRITE_IMM at offset 12");

	/* dma-buf: export from one open, import into another */
	ret = tern_bo_export(b, &fd);
	tap_ok(ret == 0 && fd >= 0, "export as a dma-buf (fd %d)", fd);
	ret = tern_bo_import(dev2, fd, &imp);
	tap_ok(ret == 0 && tern_bo_size(imp) == 8192 &&
	       ((uint32_t *)tern_bo_map(imp))[100] == 0x5a5a0001,
	       "import into another open: same size and contents");
	if (!ret) {
		tern_cmdbuf_reset(cb);
		tern_cmd_write_imm(cb, tern_bo_va(imp), 77);
		ret = run(dev2, cb);
		tap_ok(ret == 0 && ((uint32_t *)tern_bo_map(b))[0] == 77,
		       "a job of the importer writes the exporter's buffer");
	}
	ret = tern_bo_import(dev, fd, &bad);
	tap_ok(ret == -EEXIST && strstr(tern_last_error(), "already"),
	       "importing into the exporting device: -EEXIST, \"%s\"", tern_last_error());
	bad = (void *)1;
	ret = tern_bo_import(dev, 0, &bad);
	tap_ok(ret < 0 && !bad, "importing stdin: %d, \"%s\"", ret, tern_last_error());
	close(fd);
	tern_bo_free(imp);

	ret = tern_bo_alloc(dev, 0, 0, &bad);
	tap_ok(ret == -EINVAL && !bad && strstr(tern_last_error(), "size 0"),
	       "size 0: -EINVAL, \"%s\"", tern_last_error());
	ret = tern_bo_alloc(dev, 4096, 0x80, &bad);
	tap_ok(ret == -EINVAL && strstr(tern_last_error(), "flags"),
	       "unknown flags: -EINVAL, \"%s\"", tern_last_error());
	ret = tern_bo_alloc(dev, info->max_bo_size + 1, 0, &bad);
	tap_ok(ret == -E2BIG && strstr(tern_last_error(), "largest"),
	       "max_bo_size + 1: -E2BIG, \"%s\"", tern_last_error());
	ret = tern_bo_alloc(dev, info->local_mem_size + 4096, TERN_BO_LOCAL, &bad);
	tap_ok(ret == -E2BIG && strstr(tern_last_error(), "local"),
	       "device-local buffer larger than local memory: -E2BIG, \"%s\"",
	       tern_last_error());
	tern_cmdbuf_free(cb);
	tern_bo_free(NULL);
out:
	tern_bo_free(c);
	tern_bo_free(b);
	tern_bo_free(a);
	tern_device_close(dev2);
	tern_device_close(dev);
	tap_done();
	return tap_exit_status();
}
