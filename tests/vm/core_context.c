// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_context: contexts are created and destroyed per file, several per
 * file, on an engine of the requested class, with priorities and weights
 * (above the defaults needs CAP_SYS_NICE, else EACCES), a bounded timeout, a per-file limit, and a state query;
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

/* context creation by privilege: what the caller asks, what it gets */
static const struct {
	uint32_t prio, weight;
	int want;	/* without CAP_SYS_NICE */
	int want_nice;	/* with it */
	const char *what;
} priv_cases[] = {
	{ DRM_TERN_PRIORITY_LOW, 0, 0, 0, "low priority, default weight" },
	{ DRM_TERN_PRIORITY_LOW, 1, 0, 0, "low priority, weight 1" },
	{ DRM_TERN_PRIORITY_NORMAL, 0, 0, 0, "normal priority, default weight" },
	{ DRM_TERN_PRIORITY_NORMAL, 1, 0, 0, "normal priority, weight 1" },
	{ DRM_TERN_PRIORITY_HIGH, 0, -EACCES, 0, "high priority" },
	{ DRM_TERN_PRIORITY_HIGH, 1, -EACCES, 0, "high priority, weight 1" },
	{ DRM_TERN_PRIORITY_NORMAL, 2, -EACCES, 0, "normal priority, weight 2" },
	{ DRM_TERN_PRIORITY_NORMAL, DRM_TERN_WEIGHT_MAX, -EACCES, 0,
	  "normal priority, weight max" },
	{ DRM_TERN_PRIORITY_LOW, DRM_TERN_WEIGHT_MAX, -EACCES, 0,
	  "low priority, weight max" },
	{ DRM_TERN_PRIORITY_HIGH, DRM_TERN_WEIGHT_MAX, -EACCES, 0,
	  "high priority, weight max" },
	{ DRM_TERN_PRIORITY_HIGH, DRM_TERN_WEIGHT_MAX + 1, -EINVAL, -EINVAL,
	  "high priority, weight max + 1 (range before privilege)" },
	{ 3, 0, -EINVAL, -EINVAL, "priority 3 (range before privilege)" },
};

#define NPRIV (sizeof(priv_cases) / sizeof(priv_cases[0]))

static const char *errname(int err)
{
	return err ? strerror(-err) : "success";
}

static int ctx_create_w(int fd, uint32_t prio, uint32_t weight, uint32_t *handle)
{
	struct drm_tern_context_create c = {
		.priority = prio,
		.engine_class = DRM_TERN_ENGINE_CLASS_COMPUTE,
		.weight = weight,
	};
	int ret = mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &c);

	if (!ret)
		*handle = c.handle;
	return ret;
}

int main(void)
{
	struct drm_tern_context_create cc;
	struct drm_tern_context_get_state st;
	struct drm_tern_context_destroy cd;
	struct drm_tern_get_info info;
	uint32_t h[128], a, b, copy;
	int child_res[NPRIV];
	unsigned int i, n;
	int fd, fd2, ret, status, pfd[2];
	pid_t pid;

	tap_plan(27 + 2 * NPRIV + 1);
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
	cc.flags = DRM_TERN_CONTEXT_CREATE_PROGRESS_VA << 1;
	tap_errno(mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &cc), -EINVAL,
		  "create with an unknown flag");
	cc.flags = 1u << 31;
	tap_errno(mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &cc), -EINVAL,
		  "create with flag bit 31");
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

	/*
	 * Raising priority or weight above the defaults needs CAP_SYS_NICE,
	 * lowering is free.  The capability of the caller counts, not the
	 * opener's: the child uses the file root opened.
	 */
	for (i = 0; i < NPRIV; i++) {
		ret = ctx_create_w(fd, priv_cases[i].prio, priv_cases[i].weight,
				   &h[0]);
		tap_ok(ret == priv_cases[i].want_nice,
		       "with CAP_SYS_NICE: %s: %s (got %s)", priv_cases[i].what,
		       errname(priv_cases[i].want_nice), errname(ret));
		if (!ret)
			ctx_destroy(fd, h[0]);
	}
	if (pipe(pfd) == 0) {
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			int res[NPRIV];

			close(pfd[0]);
			if (drop_cap_sys_nice())
				_exit(2);
			for (i = 0; i < NPRIV; i++) {
				res[i] = ctx_create_w(fd, priv_cases[i].prio,
						      priv_cases[i].weight, &h[0]);
				if (!res[i])
					ctx_destroy(fd, h[0]);
			}
			_exit(write(pfd[1], res, sizeof(res)) == sizeof(res) ? 0 : 3);
		}
		close(pfd[1]);
		n = read(pfd[0], child_res, sizeof(child_res)) == sizeof(child_res);
		close(pfd[0]);
		waitpid(pid, &status, 0);
		tap_ok(n && WIFEXITED(status) && WEXITSTATUS(status) == 0,
		       "a child drops CAP_SYS_NICE and reports (exit %d)",
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		for (i = 0; i < NPRIV; i++)
			tap_ok(n && child_res[i] == priv_cases[i].want,
			       "without CAP_SYS_NICE: %s: %s (got %s)",
			       priv_cases[i].what, errname(priv_cases[i].want),
			       n ? errname(child_res[i]) : "nothing");
	} else {
		tap_ok(false, "pipe: %s", strerror(errno));
	}

	close(fd2);
	close(fd);
	return tap_exit_status();
}
