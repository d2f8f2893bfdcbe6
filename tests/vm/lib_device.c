// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_device: libtern finds and opens the tern device, describes it like
 * GET_INFO does, reads the device clock, and says clearly why it cannot
 * open a device: a wrong index or path, no permission, no module.
 *
 * tern-vm: timeout=90
 */
#include <sys/stat.h>
#include <sys/wait.h>
#include <tern/tern.h>
#include <xf86drm.h>

#include "tern_accel.h"
#include "tern_test.h"

/* Run @argv as user nobody; returns its exit status, its stderr in @err. */
static int run_as_nobody(char *const argv[], char *err, size_t len)
{
	int pipefd[2], status = -1;
	ssize_t n;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (!pid) {
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		if (setgid(65534) || setuid(65534))
			_exit(100);
		execv(argv[0], argv);
		_exit(101);
	}
	close(pipefd[1]);
	n = read(pipefd[0], err, len - 1);
	err[n > 0 ? n : 0] = 0;
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(void)
{
	struct drm_tern_get_info gi = { 0 };
	const struct tern_device_info *info;
	struct tern_device *dev = NULL, *dev2 = NULL, *bad = (void *)1;
	uint64_t c1 = 0, c2 = 0;
	char err[512], *tool[] = { "/tern/bin/tern-info", NULL };
	struct stat st;
	unsigned int e;
	int ret, n;

	n = tern_device_count();
	tap_ok(n == 1, "tern_device_count() finds the one tern device (%d)", n);
	ret = tern_device_open(0, &dev);
	if (!tap_ok(ret == 0 && dev, "tern_device_open(0): %s", tern_last_error()))
		return tap_exit_status();
	ret = tern_device_open_path(TERN_TEST_NODE, &dev2);
	tap_ok(ret == 0 && dev2, "tern_device_open_path(%s)", TERN_TEST_NODE);
	tap_ok(tern_device_fd(dev) >= 0 && tern_device_fd(dev) != tern_device_fd(dev2),
	       "each open has its own file descriptor");

	info = tern_device_info(dev);
	ret = drmIoctl(tern_device_fd(dev), DRM_IOCTL_TERN_GET_INFO, &gi);
	tap_ok(ret == 0, "GET_INFO on the library's fd");
	tap_ok(!strcmp(info->path, TERN_TEST_NODE) && !strcmp(info->driver_name, "tern"),
	       "path %s, driver %s", info->path, info->driver_name);
	tap_ok(strchr(info->pci_slot, ':') != NULL, "PCI slot from sysfs (%s)", info->pci_slot);
	tap_ok(info->hw_version == gi.hw_version && info->driver_version == gi.driver_version &&
	       info->caps == gi.caps && info->engine_count == gi.engine_count &&
	       info->compute_engine_count == gi.compute_engine_count &&
	       info->buf_size_max == gi.buf_size_max && info->max_contexts == gi.max_contexts &&
	       info->max_jobs_per_context == gi.max_jobs_per_context &&
	       info->max_bos_per_submit == gi.max_bos_per_submit &&
	       info->max_syncs_per_submit == gi.max_syncs_per_submit &&
	       info->tlb_entries == gi.tlb_entries &&
	       info->default_timeout_ms == gi.default_timeout_ms &&
	       info->max_timeout_ms == gi.max_timeout_ms &&
	       info->local_mem_size == gi.local_mem_size && info->max_bo_size == gi.max_bo_size &&
	       info->va_bits == gi.va_bits && info->max_queued_bytes == gi.max_queued_bytes, "tern_device_info() mirrors GET_INFO field by field");
	tap_ok(info->engine_count == info->compute_engine_count + 1 && info->engine_count >= 2,
	       "%u engines: %u compute and a copy engine", info->engine_count,
	       info->compute_engine_count);
	for (e = 0; e < info->engine_count; e++)
		if (info->engine_class[e] != (e < info->compute_engine_count ?
					      TERN_ENGINE_COMPUTE : TERN_ENGINE_COPY))
			break;
	tap_ok(e == info->engine_count, "engine classes: compute first, the copy engine last");

	ret = tern_device_clock(dev, &c1);
	usleep(20000);
	ret |= tern_device_clock(dev, &c2);
	tap_ok(ret == 0 && c2 > c1 && c2 - c1 >= 10000000,
	       "the device clock runs (%.3f ms over a 20 ms sleep)", (c2 - c1) / 1e6);

	ret = tern_device_open(7, &bad);
	tap_ok(ret == -ENOENT && !bad && strstr(tern_last_error(), "no tern device 7"),
	       "device 7: -ENOENT, \"%s\"", tern_last_error());
	bad = (void *)1;
	ret = tern_device_open_path("/dev/accel/accel9", &bad);
	tap_ok(ret == -ENOENT && !bad && strstr(tern_last_error(), "accel9"),
	       "a missing node: -ENOENT, \"%s\"", tern_last_error());
	ret = tern_device_open_path("/dev/null", &bad);
	tap_ok(ret == -ENODEV && strstr(tern_last_error(), "not a DRM device"),
	       "/dev/null: -ENODEV, \"%s\"", tern_last_error());

	/* no permission: the node is root's; user nobody cannot open it */
	if (!stat(TERN_TEST_NODE, &st) && !(st.st_mode & 0006)) {
		ret = run_as_nobody(tool, err, sizeof(err));
		tap_ok(ret == 4 && strstr(err, "permission denied"),
		       "tern-info as user nobody exits 4 with \"%.*s\"",
		       (int)strcspn(err, "\n"), err);
	} else {
		tap_skip("the node is world-accessible: no permission error to see");
	}

	tern_device_close(dev2);
	tern_device_close(dev);
	tern_device_close(NULL);

	/* without the module: count 0, and the message says what to do */
	ret = system("rmmod tern");
	if (tap_ok(ret == 0, "rmmod tern")) {
		n = tern_device_count();
		tap_ok(n == 0 && strstr(tern_last_error(), "not loaded"),
		       "without the module: no device, \"%s\"", tern_last_error());
		ret = tern_device_open(0, &bad);
		tap_ok(ret == -ENOENT && strstr(tern_last_error(), "modprobe tern"),
		       "opening says how to load it");
		ret = system("/tern/bin/tern-info >/dev/null 2>&1");
		tap_ok(WIFEXITED(ret) && WEXITSTATUS(ret) == 3, "tern-info exits 3");
		snprintf(err, sizeof(err), "insmod %s", tern_test_module_path());
		tap_ok(system(err) == 0, "insmod tern.ko again");
		usleep(200000);
		tap_ok(tern_device_count() == 1, "the device is back");
	}
	tap_done();
	return tap_exit_status();
}
