// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * vm_isolation: two processes have separate address spaces.  A VA that one
 * of them mapped is unmapped in the other: the other's job faults there and
 * the first one's data stays intact; once the other maps a BO of its own at
 * the same VA, its jobs write to that BO, never to the first one's.
 *
 * tern-vm: timeout=120
 */
#include <sys/wait.h>
#include <time.h>

#include "mem_test.h"

#define VA	0x100000ull
#define WORDS	1024

static uint32_t new_context(int fd)
{
	struct drm_tern_context_create c = {
		.priority = DRM_TERN_PRIORITY_NORMAL,
		.engine_class = DRM_TERN_ENGINE_CLASS_COMPUTE,
	};

	return mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &c) ? 0 : c.handle;
}

/* Run a FILL of the first page at VA with @value; 0 once it signalled. */
static int fill_job(int fd, uint32_t ctx, uint32_t value)
{
	uint32_t dw[5] = {
		TERN_PKT_HEADER(TERN_OP_FILL, TERN_PKT_DWORDS_FILL),
		(uint32_t)VA, (uint32_t)(VA >> 32), WORDS * 4, value,
	};
	struct drm_tern_sync out = { 0 };
	struct drm_tern_submit s = {
		.context = ctx, .cmdbuf = (uintptr_t)dw, .cmdbuf_size = sizeof(dw),
		.out_syncs = (uintptr_t)&out, .out_sync_count = 1,
	};
	struct timespec ts;
	int ret;

	if (drmSyncobjCreate(fd, 0, &out.handle))
		return -errno;
	ret = mem_ioctl(fd, DRM_IOCTL_TERN_SUBMIT, &s);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (!ret)
		ret = drmSyncobjWait(fd, &out.handle, 1,
				     (ts.tv_sec + 10) * 1000000000ll + ts.tv_nsec,
				     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL) ? -errno : 0;
	drmSyncobjDestroy(fd, out.handle);
	return ret;
}

static uint32_t ctx_state(int fd, uint32_t ctx, uint32_t *kind)
{
	struct drm_tern_context_get_state st = { .handle = ctx };

	if (mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_GET_STATE, &st))
		return ~0u;
	*kind = st.fault_kind;
	return st.state;
}

static bool all(const uint32_t *p, uint32_t v)
{
	for (int i = 0; i < WORDS; i++)
		if (p[i] != v)
			return false;
	return true;
}

/*
 * The other process; its checks are TAP lines of its own, numbered after
 * the parent's, and its exit status says whether all passed.
 */
static int other_process(void)
{
	uint32_t ctx, h = 0, kind = 0, state, *mine = NULL;
	uint64_t size;
	int fd = tern_test_open();

	/* Always exactly five checks, so that the numbering stays right. */
	ctx = fd < 0 ? 0 : new_context(fd);
	tap_errno(ctx ? fill_job(fd, ctx, 0xbadbad) : -ENOENT, 0,
		  "child: a job writing to the parent's VA finishes");
	state = fd < 0 ? ~0u : ctx_state(fd, ctx, &kind);
	tap_ok(state == DRM_TERN_CONTEXT_FAULTED && kind == 1,
	       "child: it faulted NOT_PRESENT: the VA is not mapped here (state %u, kind %u)",
	       state, kind);

	if (fd >= 0 && !bo_create(fd, WORDS * 4, &h))
		mine = bo_mmap(fd, h, &size);
	tap_errno(mine ? vm_map(fd, h, VA, 0, WORDS * 4) : -ENOMEM, 0,
		  "child: map a BO of its own at the same VA");
	ctx = fd < 0 ? 0 : new_context(fd);
	tap_errno(ctx ? fill_job(fd, ctx, 0x22222222) : -ENOENT, 0,
		  "child: a job fills the VA");
	tap_ok(mine && all(mine, 0x22222222), "child: the writes are in the child's BO");
	if (fd >= 0)
		close(fd);
	return tap_exit_status();
}

int main(void)
{
	uint32_t h, ctx, kind = 0, *data;
	uint64_t size;
	int fd, status;
	pid_t pid;

	fd = tern_test_open();
	if (fd < 0 || bo_create(fd, WORDS * 4, &h) || !(data = bo_mmap(fd, h, &size))) {
		tap_ok(false, "open the device, create and mmap a BO");
		return tap_exit_status();
	}
	tap_errno(vm_map(fd, h, VA, 0, WORDS * 4), 0, "parent: map the BO");
	ctx = new_context(fd);
	tap_errno(ctx ? fill_job(fd, ctx, 0x11111111) : -ENOENT, 0,
		  "parent: a job fills the VA");
	tap_ok(all(data, 0x11111111), "parent: the writes are in the parent's BO");

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(other_process());
	/* The child printed its own TAP lines; count them as ours. */
	waitpid(pid, &status, 0);
	tap_count += 5;
	tap_ok(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "the other process saw only its own address space");
	tap_ok(all(data, 0x11111111), "parent: the BO is intact after the other process");
	tap_ok(ctx_state(fd, ctx, &kind) == DRM_TERN_CONTEXT_ACTIVE,
	       "parent: its context was not touched by the other's fault");
	tap_errno(fill_job(fd, ctx, 0x33333333), 0, "parent: its context still runs jobs");
	tap_ok(all(data, 0x33333333), "parent: and they write to its BO");

	close(fd);
	tap_done();
	return tap_exit_status();
}
