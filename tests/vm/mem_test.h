/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * mem_test.h - raw-ioctl helpers of the memory VM tests (bo_*.c, vm_*.c).
 */
#ifndef TERN_MEM_TEST_H
#define TERN_MEM_TEST_H

#include <dirent.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <xf86drm.h>

#include "tern_accel.h"
#include "tern_test.h"

#define PAGE4K	DRM_TERN_PAGE_SIZE

/* ioctl() that returns 0 or -errno, retrying on EINTR/EAGAIN like drmIoctl */
static inline int mem_ioctl(int fd, unsigned long req, void *arg)
{
	return drmIoctl(fd, req, arg) ? -errno : 0;
}

/* A BO of @placement (DRM_TERN_BO_PLACEMENT_*) */
static inline int bo_create_placed(int fd, uint64_t size, uint32_t placement,
				   uint32_t *handle)
{
	struct drm_tern_bo_create c = { .size = size, .placement = placement };
	int ret = mem_ioctl(fd, DRM_IOCTL_TERN_BO_CREATE, &c);

	if (!ret)
		*handle = c.handle;
	return ret;
}

static inline int bo_create(int fd, uint64_t size, uint32_t *handle)
{
	return bo_create_placed(fd, size, DRM_TERN_BO_PLACEMENT_SYSTEM, handle);
}

static inline int bo_create_local(int fd, uint64_t size, uint32_t *handle)
{
	return bo_create_placed(fd, size, DRM_TERN_BO_PLACEMENT_LOCAL, handle);
}

static inline int bo_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	return mem_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

/* Map a BO into the CPU, or NULL. */
static inline void *bo_mmap(int fd, uint32_t handle, uint64_t *size)
{
	struct drm_tern_bo_info info = { .handle = handle };
	void *p;

	if (mem_ioctl(fd, DRM_IOCTL_TERN_BO_INFO, &info))
		return NULL;
	p = mmap(NULL, info.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 info.mmap_offset);
	if (p == MAP_FAILED)
		return NULL;
	*size = info.size;
	return p;
}

static inline int vm_bind(int fd, uint32_t op, uint32_t flags, uint32_t handle,
			  uint64_t va, uint64_t bo_offset, uint64_t range)
{
	struct drm_tern_vm_bind b = {
		.op = op, .flags = flags, .handle = handle,
		.va = va, .bo_offset = bo_offset, .range = range,
	};

	return mem_ioctl(fd, DRM_IOCTL_TERN_VM_BIND, &b);
}

static inline int vm_map(int fd, uint32_t handle, uint64_t va, uint64_t off,
			 uint64_t range)
{
	return vm_bind(fd, DRM_TERN_VM_BIND_OP_MAP, 0, handle, va, off, range);
}

static inline int vm_unmap(int fd, uint64_t va, uint64_t range)
{
	return vm_bind(fd, DRM_TERN_VM_BIND_OP_UNMAP, 0, 0, va, 0, range);
}

/* An unmap that cuts the mappings crossing the ends of its range (interface 1.5). */
static inline int vm_unmap_cut(int fd, uint64_t va, uint64_t range)
{
	return vm_bind(fd, DRM_TERN_VM_BIND_OP_UNMAP, DRM_TERN_VM_BIND_CUT, 0, va, 0, range);
}

/* "ok" when ret is the expected errno (0 or negative), with both named. */
static inline bool tap_errno(int ret, int want, const char *what)
{
	return tap_ok(ret == want, "%s: %s (got %s)", what,
		      want ? strerror(-want) : "success",
		      ret ? strerror(-ret) : "success");
}

/* The value of the line "@key: <n>" of file @path (the last one), or -1. */
static inline long long file_key_value(const char *path, const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':')
			v = strtoll(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

/* A kB field of /proc/meminfo, or -1. */
static inline long meminfo_kb(const char *field)
{
	return (long)file_key_value("/proc/meminfo", field);
}

/*
 * A kB field of /proc/meminfo once it is at most @limit, or after 10 s:
 * what the kernel frees late (a file's last fput from a work item, RCU, a
 * reap work) comes back within moments, a leak never.  The last value.
 */
static inline long meminfo_settled_kb(const char *field, long limit)
{
	long kb = meminfo_kb(field);
	int i;

	for (i = 0; i < 100 && kb > limit; i++) {
		usleep(100000);
		kb = meminfo_kb(field);
	}
	return kb;
}

/*
 * The memory of the tern devices' BOs: the sum of "@key: <bytes>" over the
 * debugfs "memory" files of all accel devices that have one
 * (/sys/kernel/debug/accel/<device>/memory; other drivers' devices have
 * none), in kB, or -1 if no device has the key (a diagnostic says so, once).
 * Keys: "system_bytes", the system-memory pages allocated for the devices'
 * BOs (from a BO's first CPU fault or first mapping into an address space
 * until it is freed or swapped out; a context's progress page counts, an
 * imported dma-buf's pages are the exporter's and do not), and "bo_bytes",
 * the sizes of the BOs made with DRM_IOCTL_TERN_BO_CREATE and not freed.
 * The BOs' pages are no shmem pages: Shmem in /proc/meminfo does not see
 * them.  Nothing but the devices' BOs moves these figures.
 */
static inline long tern_memory_kb(const char *key)
{
	const char *root = "/sys/kernel/debug/accel";
	static bool told;
	char path[512], line[256];
	size_t n = strlen(key);
	long long bytes = 0;
	bool found = false;
	struct dirent *de;
	DIR *d = opendir(root);

	while (d && (de = readdir(d))) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/memory", root, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			if (strncmp(line, key, n) || line[n] != ':')
				continue;
			bytes += strtoll(line + n + 1, NULL, 10);
			found = true;
		}
		fclose(f);
	}
	if (d)
		closedir(d);
	if (!found && !told) {
		tap_diag("no \"%s\" in %s/*/memory: debugfs not mounted, or a tern without it",
			 key, root);
		told = true;
	}
	return found ? (long)(bytes >> 10) : -1;
}

/*
 * tern_memory_kb(@key) once it is at most @limit, or after @ms: a BO is
 * freed late when its last reference goes from a work item (a file's last
 * fput, a job freed by the scheduler, TTM's delayed delete of a BO whose
 * fences had not signalled), a leak never.  The last value.
 */
static inline long tern_memory_settled_kb(const char *key, long limit, int ms)
{
	long kb = tern_memory_kb(key);
	int i;

	for (i = 0; i < ms / 100 && kb > limit; i++) {
		usleep(100000);
		kb = tern_memory_kb(key);
	}
	return kb;
}

/*
 * tern_memory_kb(@key) once it stopped going down: the late frees of what
 * came before (reap work, a job's release, TTM's delayed delete) are
 * done, so a baseline taken with it neither fails a "grew by" check nor
 * hides a leak of the same size.  At most @ms; the last value.
 */
static inline long tern_memory_quiet_kb(const char *key, int ms)
{
	long kb = tern_memory_kb(key), prev;
	int i;

	for (i = 0; i < ms / 200; i++) {
		usleep(200000);
		prev = kb;
		kb = tern_memory_kb(key);
		if (kb == prev)
			break;
	}
	return kb;
}

/* The system memory of the tern devices' BOs in kB ("system_bytes"), or -1. */
static inline long tern_system_kb(void)
{
	return tern_memory_kb("system_bytes");
}

/* tern_system_kb() once earlier frees are done (5 s at most): a baseline. */
static inline long tern_system_quiet_kb(void)
{
	return tern_memory_quiet_kb("system_bytes", 5000);
}

/* tern_system_kb() once it is at most @limit, or after 10 s. */
static inline long tern_system_settled_kb(long limit)
{
	return tern_memory_settled_kb("system_bytes", limit, 10000);
}

/* "drm-<key>-<region>:" of file @fd's fdinfo, in bytes; -1 if missing. */
static inline long long fdinfo_region_bytes(int fd, const char *key,
					    const char *region)
{
	char path[64], line[256], want[64];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	snprintf(want, sizeof(want), "drm-%s-%s:", key, region);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *end;

		if (strncmp(line, want, strlen(want)))
			continue;
		v = strtoll(line + strlen(want), &end, 10);
		if (strstr(end, "KiB"))
			v <<= 10;
		else if (strstr(end, "MiB"))
			v <<= 20;
	}
	fclose(f);
	return v;
}

/* "drm-<key>-memory:" of file @fd's fdinfo (system memory), in bytes; -1 if missing. */
static inline long long fdinfo_bytes(int fd, const char *key)
{
	return fdinfo_region_bytes(fd, key, "memory");
}

#endif /* TERN_MEM_TEST_H */
