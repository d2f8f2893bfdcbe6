// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * vm_unmap_signal: an unmap waiting for a long job is interrupted by a
 * signal: it fails with EINTR and changes nothing (the mapping is still
 * there, the job completes its write through it); retried after the job,
 * it succeeds.
 *
 * tern-vm: timeout=120
 */
#include <signal.h>
#include <sys/time.h>
#include <time.h>

#include "mem_test.h"

#define VA	0x100000ull

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ll + ts.tv_nsec / 1000000;
}

int main(void)
{
	struct drm_tern_context_create cc = {
		.priority = DRM_TERN_PRIORITY_NORMAL,
		.engine_class = DRM_TERN_ENGINE_CLASS_COMPUTE,
	};
	uint32_t dw[6] = {
		TERN_PKT_HEADER(TERN_OP_SPIN, TERN_PKT_DWORDS_SPIN), 2000000,
		TERN_PKT_HEADER(TERN_OP_WRITE_IMM, TERN_PKT_DWORDS_WRITE_IMM),
		(uint32_t)VA, (uint32_t)(VA >> 32), 0x77,
	};
	struct drm_tern_vm_bind unmap = {
		.op = DRM_TERN_VM_BIND_OP_UNMAP, .va = VA, .range = PAGE4K,
	};
	struct itimerval it = { .it_value = { .tv_usec = 200000 } };
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct drm_tern_context_get_state st = { 0 };
	struct drm_tern_sync out = { 0 };
	struct drm_tern_submit s = {
		.cmdbuf = (uintptr_t)dw, .cmdbuf_size = sizeof(dw),
		.out_syncs = (uintptr_t)&out, .out_sync_count = 1,
	};
	int64_t t0, t1;
	uint64_t size;
	uint32_t h, *mem;
	int fd, ret, err;

	fd = tern_test_open();
	if (fd < 0 || bo_create(fd, PAGE4K, &h) || !(mem = bo_mmap(fd, h, &size)) ||
	    mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &cc) ||
	    drmSyncobjCreate(fd, 0, &out.handle)) {
		tap_ok(false, "open the device, create a BO, a context and a syncobj");
		return tap_exit_status();
	}
	tap_errno(vm_map(fd, h, VA, 0, PAGE4K), 0, "map the BO");
	s.context = cc.handle;
	tap_errno(mem_ioctl(fd, DRM_IOCTL_TERN_SUBMIT, &s), 0,
		  "submit a job that spins 2 s, then writes through the mapping");

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	t0 = now_ms();
	ret = ioctl(fd, DRM_IOCTL_TERN_VM_BIND, &unmap);	/* not drmIoctl: no retry */
	err = errno;
	t1 = now_ms();
	tap_ok(ret == -1 && err == EINTR && alarms == 1,
	       "the unmap waiting for the job is interrupted: %s after %lld ms",
	       ret ? strerror(err) : "succeeded", (long long)(t1 - t0));
	tap_errno(vm_map(fd, h, VA, 0, PAGE4K), -EEXIST, "the mapping is still there");

	ret = drmSyncobjWait(fd, &out.handle, 1, INT64_MAX,
			     DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
	st.handle = cc.handle;
	mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_GET_STATE, &st);
	tap_ok(!ret && st.state == DRM_TERN_CONTEXT_ACTIVE && mem[0] == 0x77,
	       "the job completed its write through the mapping (state %u, %#x)",
	       st.state, mem[0]);
	tap_errno(vm_unmap(fd, VA, PAGE4K), 0, "the unmap succeeds once retried");
	tap_errno(vm_unmap(fd, VA, PAGE4K), -ENOENT, "and the range is empty");

	close(fd);
	tap_done();
	return tap_exit_status();
}
