// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_unplug: when the device goes away under an open struct tern_device,
 * every libtern call fails with -ENODEV and says the device is gone, the
 * fences of unfinished jobs signal with an error, releasing every object
 * still works without hanging, and after a PCI rescan the library finds the
 * device again.
 *
 * tern-vm: timeout=120
 */
#include <dirent.h>
#include <stdint.h>
#include <tern/tern.h>

#include "tern_test.h"

#define SEC	1000000000ll

static bool write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	bool ok;

	if (!f)
		return false;
	ok = fputs(s, f) >= 0;
	return !fclose(f) && ok;
}

static bool gone(int err)
{
	return err == -ENODEV && strstr(tern_last_error(), "gone");
}

int main(void)
{
	struct tern_context *ctx, *ctx2;
	struct tern_fence *f[10] = { NULL };
	struct tern_device *dev, *again;
	struct tern_bo *bo, *bo2 = NULL;
	struct tern_cmdbuf *cb;
	char path[600];
	uint64_t clock;
	unsigned int i;
	int ret;

	if (tern_device_open(0, &dev) || tern_context_create(dev, NULL, &ctx) ||
	    tern_bo_alloc(dev, 4096, 0, &bo) || tern_cmdbuf_create(0, &cb)) {
		tap_ok(false, "set-up: %s", tern_last_error());
		return tap_exit_status();
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove",
		 tern_device_info(dev)->pci_slot);
	tern_cmd_spin(cb, 500000);
	tern_cmd_write_imm(cb, tern_bo_va(bo), 1);
	ret = 0;
	for (i = 0; i < 10 && !ret; i++)
		ret = tern_submit(ctx, cb, NULL, 0, &f[i]);
	tap_ok(ret == 0 && tern_fence_wait(f[9], 100000000) == -ETIME,
	       "5 s of work queued and running");

	tap_ok(write_file(path, "1"), "remove the PCI device (%s)", tern_device_info(dev)->pci_slot);
	ret = tern_fence_wait(f[9], 5 * SEC);
	tap_ok((ret == -ENODEV && strstr(tern_last_error(), "gone")) ||
	       (ret == -ECANCELED && strstr(tern_last_error(), "cancelled")),
	       "the last job's fence signals with an error: %d, \"%s\"", ret, tern_last_error());
	ret = tern_device_clock(dev, &clock);
	tap_ok(gone(ret), "reading the clock: -ENODEV, \"%s\"", tern_last_error());
	ret = tern_submit(ctx, cb, NULL, 0, NULL);
	tap_ok(gone(ret), "submit: -ENODEV, \"%s\"", tern_last_error());
	ret = tern_context_create(dev, NULL, &ctx2);
	tap_ok(gone(ret), "context create: -ENODEV, \"%s\"", tern_last_error());
	ret = tern_bo_alloc(dev, 4096, 0, &bo2);
	tap_ok(ret == -ENODEV && !bo2, "buffer alloc: -ENODEV, \"%s\"", tern_last_error());

	for (i = 0; i < 10; i++)
		tern_fence_free(f[i]);
	tern_bo_free(bo);
	ret = tern_context_destroy(ctx);
	tap_ok(ret == 0 || ret == -ENODEV, "fences, buffer and context are released (%d)", ret);
	tern_device_close(dev);
	tern_cmdbuf_free(cb);

	tap_ok(write_file("/sys/bus/pci/rescan", "1"), "rescan the bus");
	for (i = 0; i < 100 && tern_device_count() != 1; i++)
		usleep(20000);
	ret = tern_device_open(0, &again);
	tap_ok(ret == 0, "the library finds the device again: %s", tern_last_error());
	if (!ret) {
		ret = tern_context_create(again, NULL, &ctx2);
		tap_ok(ret == 0, "and it works");
		tern_context_destroy(ctx2);
		tern_device_close(again);
	}
	tap_done();
	return tap_exit_status();
}
