// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * test_fdinfo: tern-top's parser of the DRM fdinfo keys.
 */
#include <string.h>

#include "fdinfo.h"
#include "tap.h"

static const char sample[] =
	"pos:\t0\n"
	"flags:\t02100002\n"
	"mnt_id:\t25\n"
	"ino:\t123\n"
	"drm-driver:\ttern\n"
	"drm-client-id:\t42\n"
	"drm-pdev:\t0000:00:03.0\n"
	"drm-engine-compute0:\t123456789 ns\n"
	"drm-engine-compute1:\t0 ns\n"
	"drm-engine-copy:\t1000 ns\n"
	"drm-engine-capacity-compute0:\t2\n"
	"drm-total-system:\t8 MiB\n"
	"drm-resident-system:\t512 KiB\n"
	"drm-resident-local:\t4096\n";

int main(void)
{
	struct drm_fdinfo fi;
	const struct fdinfo_engine *e;
	char many[4096] = "drm-driver: tern\n";
	int i;

	ok(drm_fdinfo_parse(sample, &fi) == 0, "a DRM fdinfo parses");
	ok(!strcmp(fi.driver, "tern") && !strcmp(fi.pdev, "0000:00:03.0"),
	   "driver and PCI device");
	ok(fi.has_client_id && fi.client_id == 42, "client id");
	ok(fi.engine_count == 3, "three engines (%u)", fi.engine_count);
	e = drm_fdinfo_engine(&fi, "compute0");
	ok(e && e->busy_ns == 123456789 && e->capacity == 2,
	   "compute0: busy time and capacity (capacity key after the engine key)");
	e = drm_fdinfo_engine(&fi, "copy");
	ok(e && e->busy_ns == 1000 && e->capacity == 1, "copy: capacity defaults to 1");
	ok(!drm_fdinfo_engine(&fi, "compute"), "no engine matched by prefix");
	ok(fi.total_bytes == 8u << 20, "drm-total in MiB");
	ok(fi.resident_bytes == (512u << 10) + 4096, "drm-resident summed over regions, "
	   "KiB and plain bytes");
	ok(drm_fdinfo_parse("pos:\t0\nflags:\t02\n", &fi) == -1, "a non-DRM fdinfo is not a client");
	ok(drm_fdinfo_parse("", &fi) == -1, "nor is an empty one");
	ok(drm_fdinfo_parse("drm-driver:\ttern", &fi) == 0 && !strcmp(fi.driver, "tern") &&
	   !fi.has_client_id, "a last line without newline is read");
	for (i = 0; i < 20; i++) {
		char line[64];

		snprintf(line, sizeof(line), "drm-engine-e%d: %d ns\n", i, i);
		strcat(many, line);
	}
	ok(drm_fdinfo_parse(many, &fi) == 0 && fi.engine_count == FDINFO_MAX_ENGINES,
	   "engines beyond %d are dropped, not overflowed", FDINFO_MAX_ENGINES);
	return tap_end();
}
