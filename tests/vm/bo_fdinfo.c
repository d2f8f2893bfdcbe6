// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bo_fdinfo: the DRM fdinfo memory keys of an open file (drm-total-memory,
 * drm-resident-memory, drm-shared-memory) follow its BOs: created, made
 * resident by use, shared through PRIME, closed.  A BO's pages stay from
 * its first use until it is freed (TTM keeps them after the last CPU
 * munmap): it stays resident until its GEM close, which gives its pages
 * back (the system memory of the device's BOs, debugfs "memory").
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
	long sys0, sys1, sys2;
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
	/* no other file holds BOs: what earlier tests freed late goes first */
	sys0 = tern_system_settled_kb(0);

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
	/* TTM keeps a BO's pages until the BO is freed, not until the last munmap */
	resident = fdinfo_bytes(fd, "resident");
	tap_ok(resident == (long long)b, "it stays resident once unmapped from the CPU (%lld)",
	       resident);

	tap_errno(vm_map(fd, ha, 0x100000, 0, a), 0, "map the other BO for the device");
	resident = fdinfo_bytes(fd, "resident");
	tap_ok(resident == (long long)(a + b),
	       "a BO mapped for the device is resident too (%lld)", resident);

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

	sys1 = tern_system_kb();
	bo_close(fd, hb);
	total = fdinfo_bytes(fd, "total");
	tap_ok(total == (long long)a, "closing a BO removes it from the total (%lld)", total);
	resident = fdinfo_bytes(fd, "resident");
	tap_ok(resident == (long long)a, "and from the resident memory (%lld)", resident);
	sys2 = tern_system_settled_kb(sys0 + (long)(a >> 10));
	tap_ok(sys0 >= 0 && sys1 >= sys0 + (long)((a + b) >> 10) && sys2 >= 0 &&
	       sys2 <= sys0 + (long)(a >> 10),
	       "its pages are freed with it: BO system memory %+ld kB before the close, %+ld kB "
	       "after (the other BO's %llu kB)", sys1 - sys0, sys2 - sys0,
	       (unsigned long long)(a >> 10));

	close(fd);
	close(fd2);
	tap_done();
	return tap_exit_status();
}
