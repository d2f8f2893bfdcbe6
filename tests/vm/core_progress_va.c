// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_progress_va: a progress page mapped into the file's address space
 * (DRM_TERN_CONTEXT_CREATE_PROGRESS_VA, interface 1.3).  Bad requests are
 * refused with VM_BIND's errnos and leave neither a context nor a mapping
 * behind; the device reads what the process reads; a job of another
 * context waits on the device for a job of this one (WAIT_MEM on
 * completed) and does not pass before it; a job that writes the page
 * faults; the mapping outlives the context and goes with a VM_BIND unmap;
 * a program built against the 1.2 struct still creates contexts.
 *
 * tern-vm: timeout=120
 */
#include <stddef.h>

#include "core_test.h"

#define VA_DATA		0x100000ull
#define VA_GATE		0x200000ull
#define VA_PAGE		0x300000ull	/* the progress page */
#define VA_PAGE2	0x400000ull

/* drm_tern_context_create as interface 1.2 had it */
struct context_create_v12 {
	__u32 flags, priority, engine_class, timeout_ms, handle, engine, weight, pad;
	__u64 progress_offset;
};

#define IOCTL_CONTEXT_CREATE_V12 \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TERN_CONTEXT_CREATE, struct context_create_v12)

static int create(int fd, uint32_t flags, uint32_t class, uint64_t va, uint32_t *handle)
{
	struct drm_tern_context_create c = {
		.flags = flags,
		.priority = DRM_TERN_PRIORITY_NORMAL,
		.engine_class = class,
		.progress_va = va,
	};
	int ret = mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &c);

	if (!ret && handle)
		*handle = c.handle;
	return ret;
}

/* Run @dw on @ctx and wait: the fence's status (1, or the job's error). */
static int run(int fd, uint32_t ctx, const uint32_t *dw, uint32_t n, uint32_t bo)
{
	uint32_t so = syncobj_new(fd);
	int status = -1000;

	if (!submit(fd, ctx, dw, n, &bo, 1, 0, so, NULL) && !syncobj_wait(fd, so, 20000))
		status = core_fence_status(fd, so);
	drmSyncobjDestroy(fd, so);
	return status;
}

static void check_refusals(int fd, uint32_t data_bo)
{
	const uint32_t pv = DRM_TERN_CONTEXT_CREATE_PROGRESS | DRM_TERN_CONTEXT_CREATE_PROGRESS_VA;
	int before = core_context_count();

	tap_errno(create(fd, DRM_TERN_CONTEXT_CREATE_PROGRESS_VA, 0, VA_PAGE, NULL), -EINVAL,
		  "PROGRESS_VA without PROGRESS");
	tap_errno(create(fd, DRM_TERN_CONTEXT_CREATE_PROGRESS, 0, VA_PAGE, NULL), -EINVAL,
		  "a progress_va without PROGRESS_VA");
	tap_errno(create(fd, pv, 0, VA_PAGE + 64, NULL), -EINVAL, "an unaligned progress_va");
	tap_errno(create(fd, pv, 0, 0x1000, NULL), -ERANGE,
		  "a progress_va below DRM_TERN_VA_START");
	tap_errno(create(fd, pv, 0, 1ull << 48, NULL), -ERANGE,
		  "a progress_va beyond the address space");
	tap_errno(create(fd, pv, 0, VA_DATA, NULL), -EEXIST,
		  "a progress_va where a BO is mapped");
	if (before < 0)
		tap_skip("no debugfs: contexts cannot be counted");
	else
		tap_ok(core_context_count() == before,
		       "none of them left a context behind (%d, then %d)", before,
		       core_context_count());
	tap_ok(!vm_map(fd, data_bo, VA_PAGE, 0, PAGE4K) && !vm_unmap(fd, VA_PAGE, PAGE4K),
	       "nor a mapping: the VA is free");
}

int main(void)
{
	const uint32_t pv = DRM_TERN_CONTEXT_CREATE_PROGRESS | DRM_TERN_CONTEXT_CREATE_PROGRESS_VA;
	struct drm_tern_context_create got = { 0 };
	struct context_create_v12 old = { 0 };
	const struct drm_tern_progress *page;
	struct drm_tern_get_info info;
	uint32_t a, b, c, data_bo, gate_bo, dw[16], n, so, i;
	volatile uint32_t *data, *gate_word;
	struct core_gate gate;
	void *cpu, *gcpu, *p;
	int fd, status;

	fd = tern_test_open();
	if (fd < 0 || core_get_info(fd, &info))
		info.driver_version = 0;
	if (!tap_ok(info.driver_version >= (1u << 16 | 3), "interface 1.3 (%u.%u)",
		    info.driver_version >> 16, info.driver_version & 0xffff) ||
	    !tap_ok(!core_bo(fd, 0x10000, VA_DATA, &data_bo, &cpu) &&
		    !core_bo(fd, PAGE4K, VA_GATE, &gate_bo, &gcpu), "BOs")) {
		tap_done();
		return tap_exit_status();
	}
	data = cpu;
	gate_word = gcpu;
	check_refusals(fd, data_bo);

	got.flags = pv;
	got.priority = DRM_TERN_PRIORITY_NORMAL;
	got.progress_va = VA_PAGE;
	status = mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &got);
	a = got.handle;
	p = status ? MAP_FAILED : mmap(NULL, DRM_TERN_PROGRESS_SIZE, PROT_READ, MAP_SHARED, fd,
				       (off_t)got.progress_offset);
	if (!tap_ok(p != MAP_FAILED, "context A with its page at 0x%llx, also mapped for the CPU",
		    (unsigned long long)VA_PAGE) ||
	    !tap_ok(!create(fd, 0, DRM_TERN_ENGINE_CLASS_COPY, 0, &b) &&
		    !create(fd, 0, 0, 0, &c), "context B on the copy engine, context C")) {
		tap_done();
		return tap_exit_status();
	}
	page = p;

	/* A's jobs wait behind a gate; B's job waits on the device for A's last */
	if (!tap_ok(!core_gate_init(&gate, fd, a, gate_bo, VA_GATE, gate_word, 0),
		    "A: %u jobs held by a gate", CORE_GATE_STEPS)) {
		tap_done();
		return tap_exit_status();
	}
	data[0] = 0;
	n = 0;
	pkt_wait_mem(dw, &n, VA_PAGE + offsetof(struct drm_tern_progress, completed),
		     CORE_GATE_STEPS, 10000000);
	pkt_write_imm(dw, &n, VA_DATA, 1);
	so = syncobj_new(fd);
	tap_ok(!submit(fd, b, dw, n, &data_bo, 1, 0, so, NULL),
	       "B: WAIT_MEM on A's completed reaching %u, then a write", CORE_GATE_STEPS);
	usleep(300000);
	tap_ok(data[0] == 0 && syncobj_wait(fd, so, 0) == -ETIME &&
	       page->completed < CORE_GATE_STEPS,
	       "300 ms later B still waits (A at %u)", page->completed);
	core_gate_open(&gate);
	status = syncobj_wait(fd, so, 20000) ?: core_fence_status(fd, so);
	tap_ok(status == 1 && data[0] == 1 && page->completed == CORE_GATE_STEPS,
	       "the gate opens: A finishes, then B's job passes and writes (status %d)",
	       status);
	drmSyncobjDestroy(fd, so);

	/* the device reads what the CPU reads */
	n = 0;
	pkt_copy(dw, &n, VA_PAGE, VA_DATA + 0x1000, 64);
	status = run(fd, c, dw, n, data_bo);
	tap_ok(status == 1 && !memcmp((const void *)(data + 0x400), page, 64),
	       "a COPY of the page's head gives what the CPU mapping shows (completed %u)",
	       data[0x400]);

	/* read only for the device */
	n = 0;
	pkt_write_imm(dw, &n, VA_PAGE, 12345);
	status = run(fd, c, dw, n, data_bo);
	tap_ok(status == -EIO && page->completed == CORE_GATE_STEPS,
	       "a job writing the page faults (%d); the page is intact", status);

	/* the mapping outlives the context; VM_BIND takes it down */
	tap_ok(!ctx_destroy(fd, a), "A destroyed");
	for (i = 0; i < 100 && !(page->flags & DRM_TERN_PROGRESS_CLOSED); i++)
		usleep(10000);
	n = 0;
	pkt_copy(dw, &n, VA_PAGE, VA_DATA + 0x2000, 64);
	status = run(fd, b, dw, n, data_bo);
	tap_ok(status == 1 && (data[0x800 + 3] & DRM_TERN_PROGRESS_CLOSED),
	       "the device still reads the page, now CLOSED");
	tap_ok(!vm_unmap(fd, VA_PAGE, PAGE4K) && !vm_map(fd, data_bo, VA_PAGE, 0, PAGE4K),
	       "VM_BIND unmaps it, and the VA can be used again");
	tap_errno(create(fd, pv, 0, VA_PAGE, NULL), -EEXIST,
		  "a new page cannot go where the BO is now");
	vm_unmap(fd, VA_PAGE, PAGE4K);
	tap_ok(!create(fd, pv, 0, VA_PAGE2, &a), "another context's page at another VA");

	/* a program built against interface 1.2 */
	old.flags = DRM_TERN_CONTEXT_CREATE_PROGRESS;
	old.priority = DRM_TERN_PRIORITY_NORMAL;
	tap_ok(!mem_ioctl(fd, IOCTL_CONTEXT_CREATE_V12, &old) && old.handle &&
	       old.progress_offset, "the 1.2 struct (%zu bytes) still creates a context with a page",
	       sizeof(old));

	munmap(p, DRM_TERN_PROGRESS_SIZE);
	close(fd);
	tap_done();
	return tap_exit_status();
}
