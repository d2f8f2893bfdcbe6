// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * probe_open: tern.ko binds the tern PCI device and registers an accel node
 * that user space can open, and the DRM core knows the driver by its name.
 *
 * tern-vm: timeout=60
 */
#include <dirent.h>
#include <sys/ioctl.h>
#include <xf86drm.h>

#include "tern_test.h"

/* The PCI function bound to the tern driver, found through sysfs. */
static bool tern_pci_bound(char *vendor, char *device, size_t len)
{
	const char *dir = "/sys/bus/pci/drivers/tern";
	struct dirent *de;
	bool found = false;
	DIR *d = opendir(dir);

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		char path[512];
		FILE *f;

		if (!strchr(de->d_name, ':'))
			continue;
		snprintf(path, sizeof(path), "%s/%s/vendor", dir, de->d_name);
		f = fopen(path, "r");
		if (!f || !fgets(vendor, len, f))
			vendor[0] = 0;
		if (f)
			fclose(f);
		snprintf(path, sizeof(path), "%s/%s/device", dir, de->d_name);
		f = fopen(path, "r");
		if (!f || !fgets(device, len, f))
			device[0] = 0;
		if (f)
			fclose(f);
		found = true;
	}
	closedir(d);
	return found;
}

int main(void)
{
	char vendor[16] = "", device[16] = "", name[32] = "";
	drm_version_t v = { 0 };
	int fd, ret;

	tap_plan(5);
	tap_ok(tern_pci_bound(vendor, device, sizeof(vendor)),
	       "the tern driver is bound to a PCI function");
	tap_ok(!strncmp(vendor, "0x1234", 6) && !strncmp(device, "0x7e70", 6),
	       "it is the tern device 1234:7e70 (got %.6s:%.6s)", vendor, device);
	fd = tern_test_open();
	tap_ok(fd >= 0, "open %s", TERN_TEST_NODE);
	v.name = name;
	v.name_len = sizeof(name) - 1;
	ret = fd >= 0 ? ioctl(fd, DRM_IOCTL_VERSION, &v) : -1;
	tap_ok(ret == 0 && !strcmp(name, "tern"),
	       "DRM_IOCTL_VERSION names the driver \"tern\" (got \"%s\")", name);
	tap_ok(fd >= 0 && close(fd) == 0, "close the device");
	return tap_exit_status();
}
