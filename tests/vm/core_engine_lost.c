// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_engine_lost: an engine whose reset never ends (fault injection
 * RESET_STUCK after a HANG) is given up: the hung job's fence signals
 * -ETIMEDOUT, the other jobs of the engine -EIO, those of a context
 * destroyed with jobs in a slot and queued -ECANCELED, each context's jobs
 * in seqno order (checked on their progress pages and by the kernel's own
 * order check: no WARN), and later jobs there -ENODEV.  The other engines
 * keep working, new contexts are not placed on the lost engine even when
 * every other engine has more, no register error comes from the closing
 * file's unmaps, and reloading the driver brings the engine back.
 *
 * tern-vm: timeout=180
 */
#include "core_test.h"

#define VA		0x100000ull
#define JOBS_B		20
#define JOBS_C		6

/* A context with a progress page, a short timeout, on @engine. */
static int ctx_on(int fd, uint32_t engine, uint32_t timeout_ms, uint32_t *handle,
		  const struct drm_tern_progress **page)
{
	struct drm_tern_context_create c = {
		.flags = DRM_TERN_CONTEXT_CREATE_PROGRESS | DRM_TERN_CONTEXT_CREATE_ENGINE,
		.priority = DRM_TERN_PRIORITY_NORMAL,
		.engine = engine,
		.timeout_ms = timeout_ms,
	};
	void *p;
	int ret = mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &c);

	if (ret)
		return ret;
	if (c.engine != engine)
		return -EPROTO;
	*handle = c.handle;
	p = mmap(NULL, DRM_TERN_PROGRESS_SIZE, PROT_READ, MAP_SHARED, fd,
		 (off_t)c.progress_offset);
	if (p == MAP_FAILED)
		return -errno;
	*page = p;
	return 0;
}

/* How many lines of the kernel log so far name @what. */
static int dmesg_count(const char *what)
{
	char cmd[256];
	int n = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "dmesg | grep -c '%s'", what);
	p = popen(cmd, "r");
	if (p) {
		if (fscanf(p, "%d", &n) != 1)
			n = -1;
		pclose(p);
	}
	return n;
}

static uint32_t job(int fd, uint32_t ctx, uint32_t bo, uint32_t spin_us, uint32_t slot,
		    uint32_t out)
{
	struct drm_tern_submit s;
	uint32_t dw[8], n = 0;

	pkt_spin(dw, &n, spin_us);
	pkt_write_imm(dw, &n, VA + 4ull * slot, slot + 1);
	if (submit(fd, ctx, dw, n, &bo, 1, 0, out, &s))
		return 0;
	return s.seqno;
}

/*
 * The page of a context whose jobs first..last all failed with @error:
 * completed is last, and the newest failures are last, last - 1, ... in
 * that order, each with @error.
 */
static bool page_all_failed(const struct drm_tern_progress *page, uint32_t first,
			    uint32_t last, int error)
{
	uint32_t n = __atomic_load_n(&page->error_count, __ATOMIC_ACQUIRE), k;

	if (__atomic_load_n(&page->completed, __ATOMIC_ACQUIRE) != last ||
	    n < last - first + 1)
		return false;
	for (k = 0; k <= last - first; k++) {
		const struct drm_tern_progress_error *e =
			&page->errors[(n - 1 - k) % DRM_TERN_PROGRESS_ERRORS];

		if (e->seqno != last - k || e->error != error)
			return false;
	}
	return true;
}

int main(void)
{
	const struct drm_tern_progress *pa, *pb, *pc;
	uint32_t a, b, c, d, bo, so_a, so_b, so_late, lost, i, last_b = 0, last_c = 0;
	struct drm_tern_get_info info;
	struct drm_tern_context_create plain;
	uint32_t extra[4], e;
	volatile uint32_t *cpu;
	void *map;
	int fd, err, reg_errors;

	fd = tern_test_open();
	if (fd < 0 || core_get_info(fd, &info) || info.compute_engine_count < 2 ||
	    !(info.caps & DRM_TERN_CAP_FAULT_INJECT)) {
		tap_skip("needs two compute engines and fault injection");
		tap_done();
		return tap_exit_status();
	}
	lost = info.compute_engine_count - 1;
	reg_errors = dmesg_count("register error");
	if (!tap_ok(!core_bo(fd, 0x10000, VA, &bo, &map) &&
		    !ctx_on(fd, lost, 300, &a, &pa) && !ctx_on(fd, lost, 0, &b, &pb) &&
		    !ctx_on(fd, lost, 0, &c, &pc) && !ctx_create_on(fd, 0, 0, &d),
		    "three contexts on engine %u, one on engine 0", lost)) {
		tap_done();
		return tap_exit_status();
	}
	cpu = map;
	so_a = syncobj_new(fd);
	so_b = syncobj_new(fd);
	so_late = syncobj_new(fd);

	/*
	 * A runs a long job, which hangs (its engine then serves no
	 * preemption, so it stays the running one) and whose reset will
	 * never end.  C's first job goes to the other slot, the rest of C
	 * and all of B are queued; C is destroyed, its queued jobs held back
	 * behind the one in the slot.
	 */
	tap_ok(job(fd, a, bo, 2000000, 0, so_a) == 1, "A: a 2 s job on engine %u", lost);
	usleep(20000);
	tap_ok(core_inject(lost, 4) && core_inject(lost, 1),
	       "RESET_STUCK, then HANG, injected on engine %u", lost);
	usleep(50000);
	for (i = 0; i < JOBS_C; i++) {
		last_c = job(fd, c, bo, 10, 200 + i, 0);
		for (; !i && last_b < JOBS_B; last_b++)
			job(fd, b, bo, 10, 100 + last_b, last_b == JOBS_B - 1 ? so_b : 0);
	}
	tap_ok(last_b == JOBS_B && last_c == JOBS_C, "B and C queue %u and %u jobs", last_b,
	       last_c);
	tap_ok(!ctx_destroy(fd, c), "C is destroyed with its jobs queued");

	err = syncobj_wait(fd, so_a, 30000);
	tap_ok(!err && core_fence_status(fd, so_a) == -ETIMEDOUT &&
	       page_all_failed(pa, 1, 1, -ETIMEDOUT),
	       "A's job, the hung one: -ETIMEDOUT (%s, status %d)", strerror(-err),
	       core_fence_status(fd, so_a));
	err = syncobj_wait(fd, so_b, 30000);
	tap_ok(!err && core_fence_status(fd, so_b) == -EIO,
	       "B's last job: -EIO (%s, status %d)", strerror(-err),
	       core_fence_status(fd, so_b));
	tap_ok(page_all_failed(pb, 1, last_b, -EIO),
	       "B's page: all %u jobs failed -EIO, recorded in seqno order "
	       "(completed %u, %u failures)", last_b, pb->completed, pb->error_count);
	tap_ok(page_reaches(pc, last_c, 10000) && page_all_failed(pc, 1, last_c, -ECANCELED),
	       "C's page: all %u jobs cancelled, in seqno order (completed %u, %u failures)",
	       last_c, pc->completed, pc->error_count);
	tap_ok(!cpu[100] && !cpu[200], "none of B's or C's jobs ran");

	/* later work on the lost engine fails; the rest of the device works */
	err = job(fd, b, bo, 1, 150, so_late) ? syncobj_wait(fd, so_late, 10000) : -EPROTO;
	tap_ok(!err && core_fence_status(fd, so_late) == -ENODEV,
	       "a job submitted to B afterwards: -ENODEV (%s, status %d)", strerror(-err),
	       core_fence_status(fd, so_late));
	cpu[300] = 0;
	err = job(fd, d, bo, 1, 300, so_late) ? syncobj_wait(fd, so_late, 10000) : -EPROTO;
	tap_ok(!err && core_fence_status(fd, so_late) == 1 && cpu[300] == 301,
	       "engine 0 still runs jobs (%s, status %d)", strerror(-err),
	       core_fence_status(fd, so_late));
	/* every working engine gets the most contexts: placement alone would pick the lost one */
	for (i = 0; i < 4; i++)
		for (e = 0; e < lost; e++)
			ctx_create_on(fd, 0, e, &extra[i]);
	for (i = 0; i < 4; i++) {
		memset(&plain, 0, sizeof(plain));
		plain.priority = DRM_TERN_PRIORITY_NORMAL;
		if (mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &plain) || plain.engine == lost)
			break;
		ctx_destroy(fd, plain.handle);
	}
	tap_ok(i == 4, "new contexts are placed on the engines that work, even the busiest "
	       "(engine %u)", plain.engine);

	/* an unmap invalidates the TLBs of the engines, the lost one aside */
	tap_ok(!vm_unmap(fd, VA, 0x10000), "the BO is unmapped");
	munmap((void *)pa, DRM_TERN_PROGRESS_SIZE);
	munmap((void *)pb, DRM_TERN_PROGRESS_SIZE);
	munmap((void *)pc, DRM_TERN_PROGRESS_SIZE);
	munmap(map, 0x10000);
	close(fd);

	tap_ok(dmesg_count("register error") == reg_errors,
	       "no register error was logged: the lost engine's registers are left alone");

	/* reloading the driver resets the device: the engine is back */
	tap_ok(core_module_unload() && core_module_load(), "the driver reloads");
	fd = tern_test_open();
	cpu = NULL;
	if (fd >= 0 && !core_bo(fd, 0x10000, VA, &bo, &map) && !ctx_create_on(fd, 0, lost, &a)) {
		cpu = map;
		so_a = syncobj_new(fd);
		err = job(fd, a, bo, 1, 0, so_a) ? syncobj_wait(fd, so_a, 10000) : -EPROTO;
	} else {
		err = -ENODEV;
	}
	tap_ok(!err && core_fence_status(fd, so_a) == 1 && cpu && cpu[0] == 1,
	       "after the reload engine %u runs a job (%s)", lost, strerror(-err));
	if (fd >= 0)
		close(fd);
	tap_done();
	/* the hang's dump is not this test's to keep for the next one */
	core_drain_coredumps();
	return tap_exit_status();
}
