// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_fdinfo: /proc/<pid>/fdinfo of a tern file reports the DRM usage
 * stats: driver name, client id, device time per engine class (growing by
 * the time of the jobs run) and memory.
 *
 * tern-vm: timeout=60
 */
#include "core_test.h"

#define VA	0x100000ull

/* The value of @key in the fdinfo of @fd, or -1. */
static long long fdinfo_value(int fd, const char *key, char *str, size_t len)
{
	char path[64], line[256];
	long long v = -1;
	size_t n = strlen(key);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, n) || line[n] != ':')
			continue;
		v = strtoll(line + n + 1, NULL, 10);
		if (str) {
			snprintf(str, len, "%s", line + n + 1);
			str[strcspn(str, "\n")] = 0;
		}
	}
	fclose(f);
	return v;
}

int main(void)
{
	uint32_t dw[16], n, ctx = 0, copy = 0, bo = 0, so;
	long long c0, c1, copy0, total;
	char drv[64] = "";
	void *mem;
	int fd;

	tap_plan(8);
	fd = tern_test_open();
	if (!tap_ok(fd >= 0, "open the device") ||
	    ctx_create(fd, 1, DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &ctx) ||
	    ctx_create(fd, 1, DRM_TERN_ENGINE_CLASS_COPY, 0, &copy) ||
	    core_bo(fd, 1 << 20, VA, &bo, &mem))
		return tap_exit_status();
	so = syncobj_new(fd);

	fdinfo_value(fd, "drm-driver", drv, sizeof(drv));
	tap_ok(strstr(drv, "tern") != NULL, "drm-driver is tern (%s)", drv);
	tap_ok(fdinfo_value(fd, "drm-client-id", NULL, 0) > 0, "drm-client-id");
	c0 = fdinfo_value(fd, "drm-engine-compute", NULL, 0);
	copy0 = fdinfo_value(fd, "drm-engine-copy", NULL, 0);
	n = 0;
	pkt_spin(dw, &n, 20000);
	submit(fd, ctx, dw, n, &bo, 1, 0, so, NULL);
	syncobj_wait(fd, so, 5000);
	c1 = fdinfo_value(fd, "drm-engine-compute", NULL, 0);
	tap_ok(c0 >= 0 && c1 - c0 >= 20000000,
	       "drm-engine-compute grew by the 20 ms job (%lld -> %lld ns)", c0,
	       c1);
	tap_ok(copy0 > 0 && fdinfo_value(fd, "drm-engine-copy", NULL, 0) == copy0,
	       "drm-engine-copy counts the map's page-table update (%lld ns), and "
	       "nothing more without copy work", copy0);
	drmSyncobjReset(fd, &so, 1);
	n = 0;
	pkt_fill(dw, &n, VA, 65536, 1);
	submit(fd, copy, dw, n, &bo, 1, 0, so, NULL);
	syncobj_wait(fd, so, 5000);
	tap_ok(fdinfo_value(fd, "drm-engine-copy", NULL, 0) > 0,
	       "a FILL on the copy engine counts there");
	ctx_destroy(fd, ctx);
	tap_ok(fdinfo_value(fd, "drm-engine-compute", NULL, 0) == c1,
	       "destroying the context keeps its time in drm-engine-compute");
	total = fdinfo_value(fd, "drm-total-memory", drv, sizeof(drv));
	if (strstr(drv, "MiB"))
		total <<= 20;
	else if (strstr(drv, "KiB"))
		total <<= 10;
	tap_ok(total >= 1 << 20, "drm-total-memory counts the 1 MiB BO (%s)",
	       drv);

	close(fd);
	return tap_exit_status();
}
