// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_progress: a context's progress page and DRM_IOCTL_TERN_WAIT.  The
 * page maps read-only and only in its own file; it shows every finished
 * job and the errors of failed ones in the order the uAPI documents, and
 * forgets what lies beyond the newest DRM_TERN_PROGRESS_KEPT failures, as the wait
 * does (-ENODATA); the wait refuses bad input, times out, and works on a
 * context without a page.  Across fork, close and context destruction --
 * with jobs on the engine, queued, and still waiting in drm_sched for an
 * in-fence -- the page ends with every job accounted for.
 *
 * tern-vm: timeout=120
 */
#include <sys/wait.h>

#include "core_test.h"

#define VA_GATE		0x100000ull
#define VA_GATE2	0x200000ull
#define VA_NOWHERE	0x7000000ull	/* never mapped: a write there faults */

static uint32_t nop(int fd, uint32_t ctx, uint32_t in_sync, uint32_t out_sync)
{
	struct drm_tern_submit s;
	uint32_t dw[4], n = 0;

	pkt_spin(dw, &n, 1);
	if (submit(fd, ctx, dw, n, NULL, 0, in_sync, out_sync, &s))
		return 0;
	return s.seqno;
}

static uint32_t load(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* The entry of failure @i (counting from 0) on @page. */
static const struct drm_tern_progress_error *
failure(const struct drm_tern_progress *page, uint32_t i)
{
	return &page->errors[i % DRM_TERN_PROGRESS_ERRORS];
}

static void check_mapping(int fd, uint32_t ctx, uint64_t off)
{
	struct drm_tern_context_create plain = { .priority = 1 };
	void *p;
	int fd2, err;

	p = mmap(NULL, DRM_TERN_PROGRESS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, (off_t)off);
	err = p == MAP_FAILED ? errno : 0;
	tap_ok(p == MAP_FAILED && err == EACCES,
	       "a writable mapping of the page is refused (%s)", strerror(err));
	p = mmap(NULL, DRM_TERN_PROGRESS_SIZE, PROT_READ, MAP_SHARED, fd, (off_t)off);
	tap_ok(p != MAP_FAILED && mprotect(p, DRM_TERN_PROGRESS_SIZE,
					   PROT_READ | PROT_WRITE) && errno == EACCES,
	       "a read-only mapping cannot be made writable");
	if (p != MAP_FAILED)
		munmap(p, DRM_TERN_PROGRESS_SIZE);
	fd2 = tern_test_open();
	p = mmap(NULL, DRM_TERN_PROGRESS_SIZE, PROT_READ, MAP_SHARED, fd2, (off_t)off);
	tap_ok(fd2 >= 0 && p == MAP_FAILED, "another file cannot map the page");
	if (p != MAP_FAILED)
		munmap(p, DRM_TERN_PROGRESS_SIZE);
	tap_ok(!mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &plain) &&
	       plain.progress_offset == 0,
	       "a context created without the flag has no page");
	ctx_destroy(fd, plain.handle);
	{
		struct drm_tern_context_create again = { .priority = 1 };
		int ret = mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &again);

		tap_ok(!ret && again.handle && again.handle != plain.handle,
		       "a destroyed context's handle is not handed out again (%u, then %u)",
		       plain.handle, again.handle);
		ctx_destroy(fd, again.handle);
	}
	close(fd2);
	(void)ctx;
}

static void check_bad_waits(int fd, uint32_t ctx, uint32_t last)
{
	struct drm_tern_wait w = { .context = ctx, .seqno = last, .flags = 1 };

	tap_errno(ioctl(fd, DRM_IOCTL_TERN_WAIT, &w) ? -errno : 0, -EINVAL,
		  "WAIT with flags");
	tap_errno(job_wait(fd, ctx, 0, 10, NULL), -EINVAL, "WAIT for seqno 0");
	tap_errno(job_wait(fd, ctx, last + 1, 10, NULL), -EINVAL,
		  "WAIT for a job not submitted yet");
	tap_errno(job_wait(fd, 0xdead, 1, 10, NULL), -ENOENT,
		  "WAIT on a context that does not exist");
}

/* A gated job: WAIT_MEM polling @word until it is 1. */
static uint32_t gated(int fd, uint32_t ctx, uint32_t bo, uint64_t va,
		      uint32_t out_sync)
{
	struct drm_tern_submit s;
	uint32_t dw[8], n = 0;

	pkt_wait_mem(dw, &n, va, 1, 10000000);
	if (submit(fd, ctx, dw, n, &bo, 1, 0, out_sync, &s))
		return 0;
	return s.seqno;
}

static void check_timeouts(int fd, uint32_t ctx,
			   const struct drm_tern_progress *page)
{
	volatile uint32_t *word;
	uint32_t bo, seq;
	int64_t t0, dt;
	void *mem;
	int error = 1;

	if (core_bo(fd, 4096, VA_GATE, &bo, &mem)) {
		tap_ok(false, "gate buffer");
		return;
	}
	word = mem;
	*word = 0;
	seq = gated(fd, ctx, bo, VA_GATE, 0);
	tap_errno(job_wait(fd, ctx, seq, 0, NULL), -ETIME,
		  "WAIT with a past deadline on a running job only looks");
	t0 = now_ns();
	tap_errno(job_wait(fd, ctx, seq, 200, NULL), -ETIME,
		  "WAIT times out on a job held on the engine");
	dt = now_ns() - t0;
	tap_ok(dt >= 200000000ll && load(&page->completed) == seq - 1,
	       "after its deadline (%lld ms), and the page did not move",
	       (long long)(dt / 1000000));
	*word = 1;
	__sync_synchronize();
	tap_ok(!job_wait(fd, ctx, seq, 10000, &error) && !error &&
	       load(&page->completed) == seq,
	       "the job completes once let go, and the page says so");
}

/* A context of another file with a job that faulted: its syncobj fails -EIO. */
static uint32_t failed_syncobj(int fd, uint32_t *ctxp)
{
	struct drm_tern_submit s;
	uint32_t dw[8], n = 0, so = syncobj_new(fd), ctx;
	int error = 0, ret;

	if (ctx_create(fd, 1, 0, 0, &ctx))
		return 0;
	pkt_write_imm(dw, &n, VA_NOWHERE, 1);
	if (submit(fd, ctx, dw, n, NULL, 0, 0, so, &s))
		return 0;
	ret = job_wait(fd, ctx, s.seqno, 10000, &error);
	tap_ok(!ret && error == -EIO,
	       "WAIT on a context without a page: a faulting job reports -EIO (%d)",
	       error);
	*ctxp = ctx;
	return so;
}

static void check_failures(int fd, uint32_t bad_so)
{
	const struct drm_tern_progress *page;
	const uint32_t fails = DRM_TERN_PROGRESS_ERRORS + 2;
	uint32_t ctx, first, last, i, seq;
	bool all = true;
	int error = 1, ret;

	if (ctx_create_progress(fd, &ctx, &page, NULL)) {
		tap_ok(false, "context with a page");
		return;
	}
	first = nop(fd, ctx, 0, 0);
	for (i = 0; i < fails; i++)
		all &= nop(fd, ctx, bad_so, 0) == first + 1 + i;
	last = nop(fd, ctx, 0, 0);
	tap_ok(all && last == first + fails + 1 && !job_wait(fd, ctx, last, 10000, &error) &&
	       !error, "a job after %u that failed on their in-fence completes", fails);
	tap_ok(load(&page->completed) == last && load(&page->error_count) == fails &&
	       load(&page->state) == DRM_TERN_CONTEXT_ACTIVE,
	       "page: completed %u, %u failures, context still active",
	       load(&page->completed), load(&page->error_count));
	for (i = fails - DRM_TERN_PROGRESS_ERRORS; i < fails; i++)
		all &= failure(page, i)->seqno == first + 1 + i &&
		       failure(page, i)->error == -EIO;
	tap_ok(all, "the last %u failures are on the page, in order, with -EIO",
	       DRM_TERN_PROGRESS_ERRORS);
	ret = job_wait(fd, ctx, first + fails, 10, &error);
	tap_ok(!ret && error == -EIO, "WAIT: the last failed job reports -EIO");
	seq = first + 1 + fails - DRM_TERN_PROGRESS_KEPT;
	tap_ok(!job_wait(fd, ctx, seq, 10, &error) && error == -EIO,
	       "WAIT: the oldest failure still kept reports -EIO");
	tap_errno(job_wait(fd, ctx, first + 1, 10, NULL), -ENODATA,
		  "WAIT: a failure pushed out of the window is forgotten");
	tap_errno(job_wait(fd, ctx, first, 10, NULL), -ENODATA,
		  "WAIT: so is a completed job older than the window");
	munmap((void *)page, DRM_TERN_PROGRESS_SIZE);
	ctx_destroy(fd, ctx);
}

static void check_fault_state(int fd)
{
	const struct drm_tern_progress *page;
	struct drm_tern_submit s;
	uint32_t dw[8], n = 0, ctx;
	int error = 0;

	if (ctx_create_progress(fd, &ctx, &page, NULL)) {
		tap_ok(false, "context with a page");
		return;
	}
	pkt_write_imm(dw, &n, VA_NOWHERE, 1);
	tap_ok(!submit(fd, ctx, dw, n, NULL, 0, 0, 0, &s) &&
	       !job_wait(fd, ctx, s.seqno, 10000, &error) && error == -EIO &&
	       load(&page->state) == DRM_TERN_CONTEXT_FAULTED &&
	       load(&page->error_count) == 1 && failure(page, 0)->seqno == s.seqno &&
	       failure(page, 0)->error == -EIO,
	       "a fault: the page shows the context FAULTED and the job's -EIO");
	munmap((void *)page, DRM_TERN_PROGRESS_SIZE);
	ctx_destroy(fd, ctx);
}

static void check_fork(int fd, uint32_t ctx, const struct drm_tern_progress *page)
{
	int go[2], status = -1;
	uint32_t seq = 0;
	pid_t pid;

	if (pipe(go)) {
		tap_ok(false, "pipe");
		return;
	}
	pid = fork();
	if (!pid) {
		int error = 1;

		close(go[1]);
		if (read(go[0], &seq, sizeof(seq)) != sizeof(seq))
			_exit(2);
		/* the inherited mapping and file see the parent's job */
		if (!page_reaches(page, seq, 10000))
			_exit(3);
		if (job_wait(fd, ctx, seq, 1000, &error) || error)
			_exit(4);
		_exit(0);
	}
	close(go[0]);
	seq = nop(fd, ctx, 0, 0);
	if (write(go[1], &seq, sizeof(seq)) != sizeof(seq))
		seq = 0;
	close(go[1]);
	waitpid(pid, &status, 0);
	tap_ok(seq && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "a child sees a job the parent submitted after the fork, on the page "
	       "and through WAIT (exit %d)", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/*
 * Destroy a context with a job on the engine, jobs queued behind it, and
 * jobs of its own still waiting in drm_sched for an in-fence of another
 * context that does not signal.
 */
static void check_destroy(int fd, int engine, int other_engine, uint64_t va)
{
	const struct drm_tern_progress *page;
	uint32_t ctx, other, bo1, bo2, so = syncobj_new(fd), run, i, n, c;
	uint32_t last = 0, last_queued = 0, queued = 4, waiting = 3, dropped = 0;
	volatile uint32_t *w1, *w2;
	bool right = true, reached;
	void *m1, *m2;
	int64_t t0, dt;
	int ret;

	if (ctx_create_progress_on(fd, engine, &ctx, &page, NULL) ||
	    ctx_create_on(fd, 0, other_engine, &other) ||
	    core_bo(fd, 4096, va, &bo1, &m1) ||
	    core_bo(fd, 4096, va + 0x100000, &bo2, &m2)) {
		tap_ok(false, "contexts and gates");
		return;
	}
	w1 = m1;
	w2 = m2;
	*w1 = 0;
	*w2 = 0;
	gated(fd, other, bo2, va + 0x100000, so);	/* held until *w2 = 1 */
	run = gated(fd, ctx, bo1, va, 0);
	for (i = 0; i < queued; i++)
		last_queued = nop(fd, ctx, 0, 0);
	for (i = 0; i < waiting; i++)
		last = nop(fd, ctx, so, 0);
	usleep(100000);	/* the gated job reaches the engine */
	t0 = now_ns();
	ret = ctx_destroy(fd, ctx);
	dt = now_ns() - t0;
	tap_ok(!ret && dt < 1000000000ll,
	       "engines %d/%d: destroying the context does not wait for another "
	       "context's job its jobs depend on (%lld ms)", engine, other_engine,
	       (long long)(dt / 1000000));
	tap_errno(job_wait(fd, ctx, run, 10, NULL), -ENOENT,
		  "WAIT on the destroyed context: no such context");
	*w1 = 1;
	__sync_synchronize();
	reached = page_reaches(page, last_queued, 10000);
	usleep(100000);
	c = load(&page->completed);
	tap_ok(reached && c != last, "the page reaches the last queued job, %u, but not "
	       "the last job waiting for the in-fence (%u of %u)", last_queued, c, last);
	*w2 = 1;
	__sync_synchronize();
	reached = page_reaches(page, last, 10000);
	tap_ok(reached, "once the in-fence signals, the page reaches the last job (%u of %u)",
	       load(&page->completed), last);
	n = load(&page->error_count);
	for (i = 0; i < n && i < DRM_TERN_PROGRESS_ERRORS; i++) {
		const struct drm_tern_progress_error *e = failure(page, i);

		dropped += e->seqno > last_queued;
		if (e->error == -ECANCELED && e->seqno >= run)
			continue;
		tap_diag("failure %u: job %u error %d (running %u, queued up to %u)", i,
			 e->seqno, e->error, run, last_queued);
		right = false;
	}
	tap_ok(right && dropped == waiting && n <= 1 + queued + waiting,
	       "%u jobs did not run, all -ECANCELED, the %u that waited for the "
	       "in-fence among them", n, dropped);
	t0 = now_ns() + 5000000000ll;
	while (!(load(&page->flags) & DRM_TERN_PROGRESS_CLOSED) && now_ns() < t0)
		usleep(1000);
	tap_ok(load(&page->flags) & DRM_TERN_PROGRESS_CLOSED,
	       "the page says CLOSED once the context is gone");
	tap_ok(core_fence_status(fd, so) == 1, "the other context's job completed");
	munmap((void *)page, DRM_TERN_PROGRESS_SIZE);
	ctx_destroy(fd, other);
}

/* Closing the file: the mapping keeps it open, and the page keeps going. */
static void check_close(void)
{
	const struct drm_tern_progress *page;
	uint32_t ctx, dw[4], n = 0, i;
	int fd = tern_test_open();

	if (fd < 0 || ctx_create_progress(fd, &ctx, &page, NULL)) {
		tap_ok(false, "second file with a context");
		return;
	}
	pkt_spin(dw, &n, 20000);
	for (i = 0; i < 3; i++)
		submit(fd, ctx, dw, n, NULL, 0, 0, 0, NULL);
	close(fd);
	tap_ok(page_reaches(page, 3, 10000) && load(&page->error_count) == 0,
	       "after close(), the mapped page still sees the jobs complete");
	munmap((void *)page, DRM_TERN_PROGRESS_SIZE);
}

int main(void)
{
	const struct drm_tern_progress *page;
	struct drm_tern_get_info info;
	uint32_t ctx, bad_ctx, bad_so, i, last = 0;
	uint64_t off;
	int fd, error = 1;

	tap_plan(43);
	fd = tern_test_open();
	if (fd < 0 || core_get_info(fd, &info))
		info.driver_version = 0;
	if (!tap_ok(info.driver_version >= (1u << 16 | 2),
		    "interface 1.2 (%u.%u)", info.driver_version >> 16,
		    info.driver_version & 0xffff))
		return tap_exit_status();
	if (!tap_ok(!ctx_create_progress(fd, &ctx, &page, &off) && off,
		    "a context with a progress page, mapped read-only"))
		return tap_exit_status();
	tap_ok(!load(&page->completed) && !load(&page->error_count) &&
	       load(&page->state) == DRM_TERN_CONTEXT_ACTIVE && !load(&page->flags),
	       "a new page is all zero");
	check_mapping(fd, ctx, off);

	for (i = 0; i < 20; i++)
		last = nop(fd, ctx, 0, 0);
	tap_ok(last == 20 && !job_wait(fd, ctx, last, 10000, &error) && !error,
	       "WAIT for the 20th job: completed");
	tap_ok(load(&page->completed) == 20 && !load(&page->error_count),
	       "the page says 20 completed, no failure");
	check_bad_waits(fd, ctx, last);
	check_timeouts(fd, ctx, page);

	bad_so = failed_syncobj(fd, &bad_ctx);
	check_failures(fd, bad_so);
	check_fault_state(fd);
	check_fork(fd, ctx, page);
	check_destroy(fd, 0, 0, VA_GATE2);
	check_destroy(fd, 0, 1, VA_GATE2 + 0x1000000);
	check_close();

	munmap((void *)page, DRM_TERN_PROGRESS_SIZE);
	close(fd);
	return tap_exit_status();
}
