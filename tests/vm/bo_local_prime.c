// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bo_local_prime: a LOCAL BO shared with another device through dma-buf.
 *
 * The importing device reads the pages of a dma-buf in system memory, so
 * its attachment needs the LOCAL BO there, pinned: importing it fails with
 * -EBUSY while an address space of the exporting device maps it (its jobs
 * want it in local memory, interface 1.7 keeping it resident for them);
 * once unmapped, the import pages it out and the other device's jobs read
 * it bit-exact; while imported, mapping it on its own device fails with
 * -EBUSY, and so does a job of its own device that lists it (interface
 * 1.7: the submit cannot make it resident), queueing nothing; once the
 * importer let go of it, it maps again, paged back in, and its own
 * device's jobs read it bit-exact.
 *
 * tern-vm: device=compute-engines=1+compute-engines=1 timeout=120
 */
#include "core_test.h"

#define SIZE	(256 * 1024ull)
#define VA_X	0x10000000ull
#define VA_S	0x20000000ull

static uint32_t pattern(size_t i)
{
	return 0x85ebca6bu * (uint32_t)(i + 7);
}

/* On @fd, a job copies [@va, +SIZE) into S (at VA_S, CPU @s): bit-exact? */
static bool job_reads(int fd, uint32_t ctx, uint64_t va, volatile uint32_t *s)
{
	struct drm_tern_submit sub;
	uint32_t dw[8], n = 0;
	int error = 0;
	size_t i;

	memset((void *)s, 0, SIZE);
	pkt_copy(dw, &n, va, VA_S, SIZE);
	if (submit(fd, ctx, dw, n, NULL, 0, 0, 0, &sub) ||
	    job_wait(fd, ctx, sub.seqno, 10000, &error) || error)
		return false;
	for (i = 0; i < SIZE / 4; i++)
		if (s[i] != pattern(i)) {
			tap_diag("word %zu: 0x%08x, want 0x%08x", i, s[i], pattern(i));
			return false;
		}
	return true;
}

/* A SYSTEM BO mapped at VA_S on @fd, and a copy context. */
static bool setup(int fd, uint32_t *ctx, volatile uint32_t **s)
{
	uint32_t h;
	uint64_t got;

	if (ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COPY, 0, ctx) ||
	    bo_create(fd, SIZE, &h))
		return false;
	*s = bo_mmap(fd, h, &got);
	return *s && !vm_map(fd, h, VA_S, 0, SIZE);
}

int main(void)
{
	struct drm_tern_bo_create c = {
		.size = SIZE, .placement = DRM_TERN_BO_PLACEMENT_LOCAL,
	};
	volatile uint32_t *sa = NULL, *sb = NULL, *x;
	uint32_t ctx_a = 0, ctx_b = 0, imp = 0;
	int a, b, dmabuf = -1, ret, i;
	uint64_t got;

	tap_plan(11);
	a = open("/dev/accel/accel0", O_RDWR);
	b = open("/dev/accel/accel1", O_RDWR);
	if (!tap_ok(a >= 0 && b >= 0 && setup(a, &ctx_a, &sa) && setup(b, &ctx_b, &sb),
		    "two devices, each with a context and a system BO"))
		return tap_exit_status();

	ret = mem_ioctl(a, DRM_IOCTL_TERN_BO_CREATE, &c);
	x = ret ? NULL : bo_mmap(a, c.handle, &got);
	if (!tap_ok(x != NULL, "a LOCAL BO X on the first device"))
		return tap_exit_status();
	for (i = 0; i < (int)(SIZE / 4); i++)
		x[i] = pattern(i);
	tap_ok(!vm_map(a, c.handle, VA_X, 0, SIZE) && job_reads(a, ctx_a, VA_X, sa),
	       "mapped, it is paged in; a job of its device reads it bit-exact");

	ret = drmPrimeHandleToFD(a, c.handle, DRM_CLOEXEC | DRM_RDWR, &dmabuf) ? -errno : 0;
	if (!ret)
		ret = drmPrimeFDToHandle(b, dmabuf, &imp) ? -errno : 0;
	tap_errno(ret, -EBUSY, "the other device cannot import it while it is mapped");

	tap_ok(!vm_unmap(a, VA_X, SIZE), "unmap it on its own device");
	ret = drmPrimeFDToHandle(b, dmabuf, &imp) ? -errno : 0;
	tap_ok(!ret, "now the other device imports it, from system memory (%s)",
	       strerror(-ret));
	tap_ok(!ret && !vm_map(b, imp, VA_X, 0, SIZE) && job_reads(b, ctx_b, VA_X, sb),
	       "a job of the other device reads it bit-exact");

	ret = vm_map(a, c.handle, VA_X, 0, SIZE);
	tap_errno(ret, -EBUSY, "while imported, mapping it on its own device");
	{
		struct drm_tern_context_get_state st0, st1;
		uint32_t dw[8], n = 0;

		pkt_write_imm(dw, &n, VA_S, 1);
		ctx_state(a, ctx_a, &st0);
		ret = submit(a, ctx_a, dw, n, &c.handle, 1, 0, 0, NULL);
		ctx_state(a, ctx_a, &st1);
		tap_ok(ret == -EBUSY && st1.jobs_submitted == st0.jobs_submitted &&
		       st1.state == DRM_TERN_CONTEXT_ACTIVE,
		       "and a job of its own device that lists it: -EBUSY, nothing queued (%s)",
		       strerror(-ret));
	}

	/* the importer lets go: its BO goes from a work item, then X is free */
	tap_ok(!vm_unmap(b, VA_X, SIZE) && !bo_close(b, imp), "the importer lets go of it");
	for (i = 0; i < 100; i++) {
		ret = vm_map(a, c.handle, VA_X, 0, SIZE);
		if (ret != -EBUSY)
			break;
		usleep(50000);
	}
	tap_ok(!ret && job_reads(a, ctx_a, VA_X, sa) && x[SIZE / 4 - 1] == pattern(SIZE / 4 - 1),
	       "then it maps again, paged back in, and reads bit-exact (%s, %d polls)",
	       strerror(-ret), i);
	close(dmabuf);
	close(a);
	close(b);
	return tap_exit_status();
}
