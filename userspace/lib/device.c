// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * device.c - finding and opening tern devices.
 *
 * libdrm has no accel node type, so the nodes are found in /dev/accel and
 * told apart through sysfs (/sys/class/accel/accelN/device/driver), then
 * opened directly.  A failure to open says which of the usual causes it is:
 * no module, no device bound to it, no node, or no permission.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xf86drm.h>

#include "internal.h"
#include "tern_accel.h"
#include "tern_regs.h"

#define ACCEL_DIR	"/dev/accel"
#define ACCEL_SYSFS	"/sys/class/accel"

int tern_ioctl(struct tern_device *dev, unsigned long request, void *arg,
	       unsigned int ioc, const char *what)
{
	const char *msg;
	int err;

	if (!drmIoctl(dev->fd, request, arg))
		return 0;
	err = errno;
	msg = tern_ioctl_errmsg(ioc, err);
	return tern_seterr(-err, "%s: %s (%s)", what, msg ? msg : strerror(err),
			   strerror(err));
}

/* Copy @src into @buf of @len bytes, cutting it if it is longer. */
static void copy_str(char *buf, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(buf, src, n);
	buf[n] = 0;
}

/* The driver bound to accel node @minor, from sysfs, into @buf; false if none. */
static bool accel_driver(unsigned int minor, char *buf, size_t len)
{
	char path[128], link[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), ACCEL_SYSFS "/accel%u/device/driver", minor);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = 0;
	base = strrchr(link, '/');
	copy_str(buf, len, base ? base + 1 : link);
	return true;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/* Read a sysfs attribute holding a number, or return -1. */
static long sysfs_long(const char *dir, const char *name)
{
	char path[700], buf[32];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		v = strtol(buf, NULL, 0);
	fclose(f);
	return v;
}

/* Is there a tern PCI function no driver is bound to?  Its address in @slot. */
static bool pci_unbound(char *slot, size_t len)
{
	const char *root = "/sys/bus/pci/devices";
	char dir[512], drv[600];
	struct dirent *de;
	bool found = false;
	DIR *d = opendir(root);

	while (d && !found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/%.256s", root, de->d_name);
		if (sysfs_long(dir, "vendor") != TERN_PCI_VENDOR_ID ||
		    sysfs_long(dir, "device") != TERN_PCI_DEVICE_ID)
			continue;
		snprintf(drv, sizeof(drv), "%s/driver", dir);
		if (access(drv, F_OK)) {
			copy_str(slot, len, de->d_name);
			found = true;
		}
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * The minors of the tern accel nodes, sorted, into @minors (at most @max);
 * returns how many there are.  Sets the thread's error when there is none.
 */
static int tern_minors(unsigned int *minors, int max)
{
	unsigned int all[64] = { 0 };
	int n = 0, count = 0, i;
	char slot[64];
	struct dirent *de;
	struct stat st;
	DIR *d;

	d = opendir(ACCEL_DIR);
	if (d) {
		while ((de = readdir(d)) && n < (int)(sizeof(all) / sizeof(all[0]))) {
			unsigned int minor;
			char end;

			if (sscanf(de->d_name, "accel%u%c", &minor, &end) == 1)
				all[n++] = minor;
		}
		closedir(d);
	}
	qsort(all, n, sizeof(all[0]), cmp_uint);
	for (i = 0; i < n; i++) {
		char drv[64];

		if (accel_driver(all[i], drv, sizeof(drv)) && !strcmp(drv, "tern")) {
			if (count < max)
				minors[count] = all[i];
			count++;
		}
	}
	if (count)
		return count;
	if (stat("/sys/module/tern", &st))
		tern_seterr(-ENOENT, "no tern device: the tern kernel module is not loaded "
			    "(modprobe tern)");
	else if (pci_unbound(slot, sizeof(slot)))
		tern_seterr(-ENOENT, "no tern device: the tern PCI device %s is present "
			    "but the driver did not take it (see dmesg)", slot);
	else if (!n)
		tern_seterr(-ENOENT, "no tern device: the tern module is loaded but "
			    "there is no tern PCI device");
	else
		tern_seterr(-ENOENT, "no tern device: the tern module is loaded but none "
			    "of the %d node(s) in " ACCEL_DIR " is a tern device", n);
	return 0;
}

int tern_device_count(void)
{
	unsigned int minors[64];

	tern_clearerr();
	return tern_minors(minors, 64);
}

int tern_device_open(unsigned int index, struct tern_device **devp)
{
	unsigned int minors[64];
	char path[64];
	int n;

	*devp = NULL;
	n = tern_minors(minors, 64);
	if (!n)
		return -ENOENT;
	if (index >= (unsigned int)n || index >= 64)
		return tern_seterr(-ENOENT, "no tern device %u: there %s %d", index,
				   n == 1 ? "is" : "are", n);
	snprintf(path, sizeof(path), ACCEL_DIR "/accel%u", minors[index]);
	return tern_device_open_path(path, devp);
}

/* The PCI address of the device behind @path, from sysfs. */
static void pci_slot(const char *path, char *buf, size_t len)
{
	char link[128], target[PATH_MAX];
	const char *base = strrchr(path, '/');
	ssize_t n;

	buf[0] = 0;
	snprintf(link, sizeof(link), ACCEL_SYSFS "/%s/device", base ? base + 1 : path);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return;
	target[n] = 0;
	base = strrchr(target, '/');
	copy_str(buf, len, base ? base + 1 : target);
}

static int query_info(struct tern_device *dev)
{
	struct tern_device_info *info = &dev->info;
	struct drm_tern_get_info gi = { 0 };
	unsigned int i;
	int ret;

	ret = tern_ioctl(dev, DRM_IOCTL_TERN_GET_INFO, &gi, TERN_IOC_GET_INFO,
			 "querying the device");
	if (ret)
		return ret;
	info->hw_version = gi.hw_version;
	info->driver_version = gi.driver_version;
	info->caps = gi.caps;
	info->engine_count = gi.engine_count;
	info->compute_engine_count = gi.compute_engine_count;
	for (i = 0; i < TERN_DEVICE_MAX_ENGINES; i++)
		info->engine_class[i] = gi.engine_class[i];
	info->buf_size_max = gi.buf_size_max;
	info->max_contexts = gi.max_contexts;
	info->max_jobs_per_context = gi.max_jobs_per_context;
	info->max_bos_per_submit = gi.max_bos_per_submit;
	info->max_syncs_per_submit = gi.max_syncs_per_submit;
	info->tlb_entries = gi.tlb_entries;
	info->default_timeout_ms = gi.default_timeout_ms;
	info->max_timeout_ms = gi.max_timeout_ms;
	info->va_bits = gi.va_bits;
	info->local_mem_size = gi.local_mem_size;
	info->max_bo_size = gi.max_bo_size;
	info->max_queued_bytes = gi.max_queued_bytes;
	return 0;
}

int tern_device_open_path(const char *path, struct tern_device **devp)
{
	struct tern_device *dev;
	drmVersionPtr ver;
	uint64_t va_end;
	int fd, err, ret;

	*devp = NULL;
	tern_clearerr();
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		if (err == ENOENT) {
			unsigned int minors[1];
			char why[256];

			/* say whether the module is there at all */
			if (!tern_minors(minors, 1)) {
				snprintf(why, sizeof(why), "%s", tern_last_error());
				return tern_seterr(-ENOENT, "%s: %s", path, why);
			}
			return tern_seterr(-ENOENT, "%s: no such device node", path);
		}
		if (err == EACCES || err == EPERM)
			return tern_seterr(-err, "%s: permission denied: the user needs read "
					   "and write access to the node (its group, or udev rules)",
					   path);
		return tern_seterr(-err, "%s: %s", path, strerror(err));
	}

	ver = drmGetVersion(fd);
	if (!ver) {
		err = errno ? errno : ENODEV;
		close(fd);
		return tern_seterr(-ENODEV, "%s: not a DRM device (%s)", path, strerror(err));
	}
	if (strcmp(ver->name, "tern")) {
		tern_seterr(-ENODEV, "%s: not a tern device (driver \"%s\")", path, ver->name);
		drmFreeVersion(ver);
		close(fd);
		return -ENODEV;
	}

	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		drmFreeVersion(ver);
		close(fd);
		return tern_seterr(-ENOMEM, "%s: out of memory", path);
	}
	dev->fd = fd;
	copy_str(dev->info.path, sizeof(dev->info.path), path);
	copy_str(dev->info.driver_name, sizeof(dev->info.driver_name), ver->name);
	copy_str(dev->info.driver_desc, sizeof(dev->info.driver_desc),
		 ver->desc ? ver->desc : "");
	dev->info.driver_major = ver->version_major;
	dev->info.driver_minor = ver->version_minor;
	dev->info.driver_patch = ver->version_patchlevel;
	drmFreeVersion(ver);
	pci_slot(path, dev->info.pci_slot, sizeof(dev->info.pci_slot));

	ret = query_info(dev);
	if (ret)
		goto err_free;
	if (dev->info.va_bits < 24 || dev->info.va_bits > 64) {
		ret = tern_seterr(-ENODEV, "%s: the device reports %u-bit addresses, "
				  "which libtern does not handle", path, dev->info.va_bits);
		goto err_free;
	}
	va_end = dev->info.va_bits == 64 ? UINT64_MAX : 1ull << dev->info.va_bits;
	ret = tern_va_init(&dev->va, TERN_LIB_VA_START, va_end);
	if (ret) {
		tern_seterr(ret, "%s: out of memory", path);
		goto err_free;
	}
	ret = pthread_mutex_init(&dev->lock, NULL);
	if (!ret) {
		ret = pthread_mutex_init(&dev->bind_lock, NULL);
		if (ret)
			pthread_mutex_destroy(&dev->lock);
	}
	if (ret) {
		tern_va_fini(&dev->va);
		ret = tern_seterr(-ret, "%s: cannot create a lock", path);
		goto err_free;
	}
	*devp = dev;
	return 0;

err_free:
	close(fd);
	free(dev);
	return ret;
}

void tern_device_close(struct tern_device *dev)
{
	if (!dev)
		return;
	tern_vm_fini(dev);
	tern_fence_pool_fini(dev);
	pthread_mutex_destroy(&dev->bind_lock);
	pthread_mutex_destroy(&dev->lock);
	tern_va_fini(&dev->va);
	free(dev->bos);
	close(dev->fd);
	free(dev);
}

const struct tern_device_info *tern_device_info(const struct tern_device *dev)
{
	return &dev->info;
}

int tern_device_fd(const struct tern_device *dev)
{
	return dev->fd;
}

int tern_device_clock(struct tern_device *dev, uint64_t *ns)
{
	struct drm_tern_get_info gi = { 0 };
	int ret;

	ret = tern_ioctl(dev, DRM_IOCTL_TERN_GET_INFO, &gi, TERN_IOC_GET_INFO,
			 "reading the device clock");
	if (ret)
		return ret;
	*ns = gi.device_clock_ns;
	return 0;
}
