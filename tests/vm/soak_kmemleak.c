// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * soak_kmemleak: on a kernel with kmemleak (make test-debug), scan for
 * leaks after the tests that ran before this one in the same boot, and
 * fail on any unreferenced object allocated on a path through tern, DRM,
 * the GPU scheduler, dma-buf or syncobj code.  Other leak reports (of the
 * rest of the kernel) are listed as diagnostics only.  On a kernel without
 * kmemleak (the Debian one of make test) it skips.
 *
 * tern-vm: timeout=120
 */
#include "core_test.h"

#define KMEMLEAK "/sys/kernel/debug/kmemleak"

static bool ours(const char *block)
{
	static const char *const keys[] = {
		"tern", "drm", "gpu_sched", "drm_sched", "dma_buf", "dma_fence", "syncobj",
	};
	unsigned int i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strstr(block, keys[i]))
			return true;
	return false;
}

int main(void)
{
	static char block[16384];
	char line[512];
	size_t len = 0;
	int total = 0, mine = 0;
	FILE *f;

	tap_plan(2);
	if (access(KMEMLEAK, F_OK)) {
		tap_skip("kmemleak is not in this kernel (make test-debug has it)");
		tap_skip("no scan");
		return tap_exit_status();
	}
	/* two scans: an object must stay unreferenced for a while */
	tap_ok(core_write_file(KMEMLEAK, "scan") &&
	       (sleep(6), core_write_file(KMEMLEAK, "scan")), "scan for leaks");
	f = fopen(KMEMLEAK, "r");
	block[0] = 0;
	while (f) {
		bool end = !fgets(line, sizeof(line), f);

		if (end || !strncmp(line, "unreferenced object", 19)) {
			if (len) {
				total++;
				if (ours(block)) {
					mine++;
					/* printed as is: the harness flags the report */
					fputs(block, stdout);
				}
			}
			len = 0;
			block[0] = 0;
		}
		if (end)
			break;
		if (len + strlen(line) < sizeof(block)) {
			strcpy(block + len, line);
			len += strlen(line);
		}
	}
	if (f)
		fclose(f);
	tap_diag("kmemleak lists %d suspects, %d of them on tern/DRM paths", total, mine);
	tap_ok(f && !mine, "no leak on a tern, DRM, scheduler, dma-buf or syncobj path (%d)",
	       mine);
	/* others once reported stay out of later scans */
	core_write_file(KMEMLEAK, "clear");
	return tap_exit_status();
}
