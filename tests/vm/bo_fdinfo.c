// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bo_fdinfo: the DRM fdinfo memory keys of an open file (drm-total-memory,
 * drm-resident-memory, drm-shared-memory) follow its BOs: created, made
 * resident by use, shared through PRIME, closed.
 *
 * tern-vm: timeout=60
 */
#include "mem_test.h"

static void dump_fdinfo(int fd)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		tap_diag("%s: %s", path, line);
	}
	if (f)
		fclose(f);
}

int main(void)
{
	const uint64_t a = 1 << 20, b = 3 << 20;
	long long total, resident, shared;
	uint32_t ha, hb, himp;
	uint64_t size;
	int fd, fd2, dmabuf;
	char *p;

	fd = tern_test_open();
	fd2 = tern_test_open();
	if (fd < 0 || fd2 < 0) {
		tap_ok(false, "open the device twice");
		return tap_exit_status();
	}
	total = fdinfo_bytes(fd, "total");
	tap_ok(total == 0, "a new file has drm-total-memory 0 (got %lld)", total);
	if (total < 0)
		dump_fdinfo(fd);

	if (bo_create(fd, a, &ha) || bo_create(fd, b, &hb)) {
		tap_ok(false, "create two BOs");
		return tap_exit_status();
	}
	total = fdinfo_bytes(fd, "total");
	resident = fdinfo_bytes(fd, "resident");
	tap_ok(total == (long long)(a + b), "drm-total-memory counts both BOs (%lld)", total);
	tap_ok(resident == 0, "unused BOs are not resident (%lld)", resident);

	p = bo_mmap(fd, hb, &size);
	if (p)
		memset(p, 1, 4096);
	resident = fdinfo_bytes(fd, "resident");
	tap_ok(p && resident == (long long)b,
	       "a BO touched through mmap is resident (%lld)", resident);
	if (p)
		munmap(p, size);
	/* shmem gives the pages back with the last CPU mapping. */
	resident = fdinfo_bytes(fd, "resident");
	tap_ok(resident == 0, "it is not resident once unmapped from the CPU (%lld)",
	       resident);

	tap_errno(vm_map(fd, ha, 0x100000, 0, a), 0, "map the other BO for the device");
	resident = fdinfo_bytes(fd, "resident");
	tap_ok(resident == (long long)a, "a BO mapped for the device is resident (%lld)",
	       resident);

	shared = fdinfo_bytes(fd, "shared");
	tap_ok(shared == 0, "nothing is shared yet (%lld)", shared);
	if (drmPrimeHandleToFD(fd, ha, DRM_CLOEXEC, &dmabuf) ||
	    drmPrimeFDToHandle(fd2, dmabuf, &himp)) {
		tap_ok(false, "share a BO with another file");
	} else {
		shared = fdinfo_bytes(fd, "shared");
		tap_ok(shared == (long long)a, "the exporter counts it as shared (%lld)",
		       shared);
		total = fdinfo_bytes(fd2, "total");
		tap_ok(total == (long long)a, "the importer counts it in its total (%lld)",
		       total);
		close(dmabuf);
	}

	bo_close(fd, hb);
	total = fdinfo_bytes(fd, "total");
	tap_ok(total == (long long)a, "closing a BO removes it from the total (%lld)", total);

	close(fd);
	close(fd2);
	tap_done();
	return tap_exit_status();
}
