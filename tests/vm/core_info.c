// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_info: DRM_IOCTL_TERN_GET_INFO describes the device so that user
 * space hard-codes nothing, and refuses non-zero flags.
 *
 * tern-vm: device=compute-engines=3 timeout=60
 */
#include "core_test.h"

int main(void)
{
	struct drm_tern_get_info info, info2;
	unsigned int i, bad_class = 0;
	int fd, ret;

	tap_plan(13);
	fd = tern_test_open();
	if (!tap_ok(fd >= 0, "open the device"))
		return tap_exit_status();

	ret = core_get_info(fd, &info);
	tap_errno(ret, 0, "GET_INFO");
	tap_ok(info.hw_version >> 16 == 1, "hardware major version 1 (0x%08x)",
	       info.hw_version);
	tap_ok(info.driver_version >> 16 == 1, "driver interface version 1.x");
	tap_ok(info.engine_count == 4 && info.compute_engine_count == 3,
	       "3 compute engines and a copy engine (%u, %u)",
	       info.engine_count, info.compute_engine_count);
	for (i = 0; i < DRM_TERN_MAX_ENGINES; i++) {
		uint32_t want = i < info.compute_engine_count ?
			DRM_TERN_ENGINE_CLASS_COMPUTE :
			i < info.engine_count ? DRM_TERN_ENGINE_CLASS_COPY : 0;

		if (info.engine_class[i] != want)
			bad_class++;
	}
	tap_ok(!bad_class, "engine classes: compute engines first, then copy");
	tap_ok(info.buf_size_max == 1 << 20, "BUF_SIZE_MAX is 1 MiB (%u)",
	       info.buf_size_max);
	tap_ok(info.local_mem_size == 256ull << 20,
	       "256 MiB of local memory (%llu)",
	       (unsigned long long)info.local_mem_size);
	tap_ok(info.max_contexts && info.max_jobs_per_context &&
	       info.max_bos_per_submit && info.max_syncs_per_submit &&
	       info.max_bo_size && info.default_timeout_ms &&
	       info.max_timeout_ms >= info.default_timeout_ms &&
	       info.max_queued_bytes >= info.buf_size_max &&
	       info.va_bits == 48 && !info.pad && !info.flags,
	       "limits are reported");
	tap_ok(info.caps & DRM_TERN_CAP_FAULT_INJECT, "fault injection present");

	usleep(2000);
	ret = core_get_info(fd, &info2);
	tap_ok(!ret && info2.device_clock_ns > info.device_clock_ns,
	       "the device clock advances (%llu -> %llu)",
	       (unsigned long long)info.device_clock_ns,
	       (unsigned long long)info2.device_clock_ns);

	memset(&info, 0, sizeof(info));
	info.flags = 1;
	tap_errno(mem_ioctl(fd, DRM_IOCTL_TERN_GET_INFO, &info), -EINVAL,
		  "GET_INFO with flags");
	tap_errno(mem_ioctl(fd, DRM_IOWR(DRM_COMMAND_BASE + 0x30,
					 struct drm_tern_get_info), &info),
		  -EINVAL, "an ioctl number tern does not have");

	close(fd);
	return tap_exit_status();
}
