// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_context: contexts are created and destroyed per file, several per
 * file, on an engine of the requested class, with priorities (high needs
 * CAP_SYS_NICE), a bounded timeout, a per-file limit, and a state query;
 * every documented error comes back.
 *
 * tern-vm: timeout=60
 */
#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "core_test.h"

static int drop_cap_sys_nice(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	data[0].effective &= ~(1u << CAP_SYS_NICE);
	data[0].permitted &= ~(1u << CAP_SYS_NICE);
	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

int main(void)
{
	struct drm_tern_context_create cc;
	struct drm_tern_context_get_state st;
	struct drm_tern_context_destroy cd;
	struct drm_tern_get_info info;
	uint32_t h[128], a, b, copy;
	unsigned int i, n;
	int fd, fd2, ret, status;
	pid_t pid;

	tap_plan(27);
	fd = tern_test_open();
	if (!tap_ok(fd >= 0, "open the device") || core_get_info(fd, &info))
		return tap_exit_status();

	tap_errno(ctx_create(fd, DRM_TERN_PRIORITY_NORMAL,
			     DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &a), 0,
		  "create a normal compute context");
	tap_errno(ctx_create(fd, DRM_TERN_PRIORITY_LOW,
			     DRM_TERN_ENGINE_CLASS_COMPUTE, 500, &b), 0,
		  "create a second (low, 500 ms) context in the same file");
	tap_ok(a && b && a != b, "distinct non-zero handles (%u, %u)", a, b);

	memset(&cc, 0, sizeof(cc));
	cc.priority = DRM_TERN_PRIORITY_NORMAL;
	cc.engine_class = DRM_TERN_ENGINE_CLASS_COPY;
	ret = mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &cc);
	copy = cc.handle;
	tap_ok(!ret && cc.engine == info.compute_engine_count,
	       "a copy context lands on the copy engine (%u)", cc.engine);

	memset(&cc, 0, sizeof(cc));
	cc.engine_class = DRM_TERN_ENGINE_CLASS_COMPUTE;
	ret = mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &cc);
	tap_ok(!ret && cc.engine < info.compute_engine_count,
	       "a compute context lands on a compute engine (%u)", cc.engine);
	ctx_destroy(fd, cc.handle);

	tap_errno(ctx_state(fd, a, &st), 0, "GET_STATE");
	tap_ok(st.state == DRM_TERN_CONTEXT_ACTIVE &&
	       st.reason == DRM_TERN_REASON_NONE && !st.jobs_submitted &&
	       !st.reset_count, "a new context is active, no jobs, no resets");

	tap_errno(ctx_create(fd, DRM_TERN_PRIORITY_HIGH,
			     DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &h[0]), 0,
		  "high priority with CAP_SYS_NICE");
	ctx_destroy(fd, h[0]);

	memset(&cc, 0, sizeof(cc));
	cc.flags = 1;
	tap_errno(mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &cc), -EINVAL,
		  "create with flags");
	tap_errno(ctx_create(fd, 3, DRM_TERN_ENGINE_CLASS_COMPUTE, 0, NULL),
		  -EINVAL, "create with priority 3");
	tap_errno(ctx_create(fd, 1, 2, 0, NULL), -EINVAL,
		  "create with engine class 2");
	tap_errno(ctx_create(fd, 1, 0, info.max_timeout_ms + 1, NULL), -EINVAL,
		  "create with a timeout above max_timeout_ms");
	tap_errno(ctx_destroy(fd, 0xdead), -ENOENT, "destroy an unknown handle");
	cd.handle = a;
	cd.pad = 1;
	tap_errno(mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_DESTROY, &cd), -EINVAL,
		  "destroy with pad");
	tap_errno(ctx_state(fd, 0xdead, &st), -ENOENT,
		  "GET_STATE of an unknown handle");
	memset(&st, 0, sizeof(st));
	st.handle = a;
	st.flags = 1;
	tap_errno(mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_GET_STATE, &st), -EINVAL,
		  "GET_STATE with flags");

	/* handles are per file */
	fd2 = tern_test_open();
	tap_errno(ctx_state(fd2, a, &st), -ENOENT,
		  "another file cannot see the context");
	tap_errno(ctx_destroy(fd2, a), -ENOENT,
		  "another file cannot destroy the context");

	/* the per-file limit: a, b, copy exist */
	n = 0;
	while (n < 128 && !(ret = ctx_create(fd, 1, 0, 0, &h[n])))
		n++;
	tap_ok(ret == -EMFILE && n + 3 == info.max_contexts,
	       "context %u of the file fails with EMFILE (%s)", n + 4,
	       strerror(-ret));
	tap_errno(ctx_create(fd2, 1, 0, 0, &h[127]), 0,
		  "the limit is per file: another file still can");
	tap_errno(ctx_destroy(fd, h[0]), 0, "destroy one");
	tap_errno(ctx_create(fd, 1, 0, 0, &h[0]), 0,
		  "and a new one can be created");
	for (i = 0; i < n; i++)
		ctx_destroy(fd, h[i]);

	tap_errno(ctx_destroy(fd, a), 0, "destroy");
	tap_errno(ctx_destroy(fd, a), -ENOENT, "destroy twice");
	tap_errno(ctx_state(fd, a, &st), -ENOENT, "GET_STATE after destroy");
	ctx_destroy(fd, copy);

	/* without CAP_SYS_NICE, high priority is refused, others are not */
	pid = fork();
	if (pid == 0) {
		if (drop_cap_sys_nice())
			_exit(2);
		if (ctx_create(fd, DRM_TERN_PRIORITY_HIGH, 0, 0, NULL) != -EPERM)
			_exit(3);
		if (ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, 0, 0, NULL))
			_exit(4);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "without CAP_SYS_NICE: high is EPERM, normal works (exit %d)",
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);

	close(fd2);
	close(fd);
	return tap_exit_status();
}
