// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_timeline: timeline syncobjs of libtern: a job waits for a point
 * another context's job signals, CPU waits and signals, the refusals of
 * point 0, of points nothing was submitted for and of points out of order,
 * a point as a sync_file and a sync_file as a point, a timeline shared with
 * another process, and a failing job that still signals its point while its
 * fence carries the error.
 *
 * tern-vm: timeout=120
 */
#include <poll.h>
#include <stdint.h>
#include <sys/wait.h>
#include <tern/tern.h>

#include "tern_test.h"

#define SEC	1000000000ll

static struct tern_timeline_point tp(struct tern_timeline *tl, uint64_t point)
{
	return (struct tern_timeline_point){ .timeline = tl, .point = point };
}

/*
 * The child of the shared-timeline check: its own open of the device, the
 * timeline from @fd; waits on the CPU for point 13, then runs a job that
 * signals point 14.  Exit status: 0 or the step that failed.
 */
static int child(int fd)
{
	struct tern_timeline_point sig;
	struct tern_timeline *tl;
	struct tern_context *ctx;
	struct tern_device *dev;
	struct tern_cmdbuf *cb;
	struct tern_deps d = { 0 };

	if (tern_device_open(0, &dev) || tern_context_create(dev, NULL, &ctx) ||
	    tern_cmdbuf_create(0, &cb) || tern_cmd_spin(cb, 1000))
		return 10;
	if (tern_timeline_import(dev, fd, &tl))
		return 11;
	if (tern_timeline_wait(tl, 13, 30 * SEC))
		return 12;
	sig = tp(tl, 14);
	d.signals = &sig;
	d.signal_count = 1;
	if (tern_submit_deps(ctx, cb, &d, NULL))
		return 13;
	tern_timeline_free(tl);
	tern_cmdbuf_free(cb);
	tern_context_destroy(ctx);
	tern_device_close(dev);
	return 0;
}

int main(void)
{
	struct tern_context *ctx, *ctx2, *bad;
	struct tern_fence *fa = NULL, *fb = NULL, *pf = NULL, *fx = NULL;
	struct tern_timeline_point wait, sigs[2];
	struct tern_timeline *tl, *tl2;
	struct tern_deps d = { 0 };
	struct tern_device *dev;
	struct tern_bo *bo, *ro;
	struct tern_cmdbuf *cb, *cb2, *spin;
	struct pollfd pfd;
	volatile uint32_t *w;
	uint64_t va, done, submitted;
	int ret, fd, status;
	pid_t pid;

	if (tern_device_open(0, &dev) || tern_context_create(dev, NULL, &ctx) ||
	    tern_context_create(dev, NULL, &ctx2) || tern_bo_alloc(dev, 4096, 0, &bo) ||
	    tern_bo_alloc(dev, 4096, TERN_BO_DEVICE_READ_ONLY, &ro) ||
	    tern_cmdbuf_create(0, &cb) || tern_cmdbuf_create(0, &cb2) ||
	    tern_cmdbuf_create(0, &spin) || tern_cmd_spin(spin, 20000)) {
		tap_ok(false, "set-up: %s", tern_last_error());
		return tap_exit_status();
	}
	w = tern_bo_map(bo);
	va = tern_bo_va(bo);

	ret = tern_timeline_create(dev, &tl);
	tap_ok(ret == 0 && tern_timeline_syncobj(tl), "create a timeline (syncobj %u)",
	       ret ? 0 : tern_timeline_syncobj(tl));
	if (ret)
		return tap_exit_status();
	ret = tern_timeline_query(tl, &done, &submitted);
	tap_ok(ret == 0 && done == 0 && submitted == 0, "a new timeline is at point 0");

	/* A (ctx) waits for the CPU, then writes 11 and signals point 1 */
	tern_cmd_wait_mem(cb, va, 1, 8000000);
	tern_cmd_write_imm(cb, va + 4, 11);
	sigs[0] = tp(tl, 1);
	d.signals = sigs;
	d.signal_count = 1;
	ret = tern_submit_deps(ctx, cb, &d, &fa);
	tap_ok(ret == 0 && fa, "job A signals point 1: %s", ret ? tern_last_error() : "queued");
	/* B (ctx2) waits for point 1 and copies A's value */
	tern_cmd_copy(cb2, va + 8, va + 4, 4);
	wait = tp(tl, 1);
	memset(&d, 0, sizeof(d));
	d.waits = &wait;
	d.wait_count = 1;
	ret = tern_submit_deps(ctx2, cb2, &d, &fb);
	tap_ok(ret == 0 && fb, "job B on another context waits for point 1: %s",
	       ret ? tern_last_error() : "queued");
	if (!fa || !fb)
		return tap_exit_status();
	ret = tern_timeline_query(tl, &done, &submitted);
	tap_ok(ret == 0 && done == 0 && submitted == 1,
	       "point 1 is submitted, not signalled (%llu, %llu)", (unsigned long long)done,
	       (unsigned long long)submitted);
	ret = tern_timeline_wait(tl, 1, 30000000);
	tap_ok(ret == -ETIME && strstr(tern_last_error(), "point 1"),
	       "a 30 ms CPU wait for point 1: -ETIME, \"%s\"", tern_last_error());
	tap_ok(tern_fence_status(fb) == -EBUSY && w[2] == 0, "B has not run");
	w[0] = 1;
	ret = tern_fence_wait(fb, 30 * SEC);
	tap_ok(ret == 0 && w[2] == 11, "once A ran, B ran after it and read its value (%u)",
	       w[2]);
	ret = tern_timeline_wait(tl, 1, 0);
	tap_ok(ret == 0 && !tern_timeline_query(tl, &done, NULL) && done == 1,
	       "point 1 has signalled");

	/* refusals before the kernel */
	wait = tp(tl, 2);
	ret = tern_submit_deps(ctx2, cb2, &d, NULL);
	tap_ok(ret == -ENOENT && strstr(tern_last_error(), "wait 0") &&
	       strstr(tern_last_error(), "nothing was submitted to signal timeline point 2"),
	       "waiting for a point nothing signals: -ENOENT, \"%s\"", tern_last_error());
	wait = tp(tl, 0);
	ret = tern_submit_deps(ctx2, cb2, &d, NULL);
	tap_ok(ret == -EINVAL && strstr(tern_last_error(), "point 0"),
	       "point 0: -EINVAL, \"%s\"", tern_last_error());
	memset(&d, 0, sizeof(d));
	sigs[0] = tp(tl, 1);
	d.signals = sigs;
	d.signal_count = 1;
	ret = tern_submit_deps(ctx2, cb2, &d, NULL);
	tap_ok(ret == -EINVAL && strstr(tern_last_error(), "not above the last point submitted"),
	       "signalling point 1 again: -EINVAL, \"%s\"", tern_last_error());
	sigs[0] = tp(tl, 4);
	sigs[1] = tp(tl, 3);
	d.signal_count = 2;
	ret = tern_submit_deps(ctx2, cb2, &d, NULL);
	tap_ok(ret == -EINVAL && strstr(tern_last_error(), "signal 1"),
	       "points 4 then 3 in one job: -EINVAL, \"%s\"", tern_last_error());
	ret = tern_timeline_query(tl, &done, &submitted);
	tap_ok(ret == 0 && done == 1 && submitted == 1, "nothing of that reached the timeline");

	/* the CPU signals */
	ret = tern_timeline_signal(tl, 10);
	tap_ok(ret == 0 && !tern_timeline_query(tl, &done, NULL) && done == 10,
	       "the CPU signals point 10");
	tap_ok(tern_timeline_wait(tl, 7, 0) == 0, "which signals point 7 too");
	ret = tern_timeline_signal(tl, 10);
	tap_ok(ret == -EINVAL && strstr(tern_last_error(), "(10)"),
	       "signalling 10 again: -EINVAL, \"%s\"", tern_last_error());
	tap_ok(tern_timeline_signal(tl, 0) == -EINVAL, "signalling point 0: -EINVAL");
	ret = tern_timeline_wait(tl, 0, 0);
	tap_ok(ret == -EINVAL, "waiting for point 0: -EINVAL");

	/* a point as a fence and a sync_file */
	memset(&d, 0, sizeof(d));
	sigs[0] = tp(tl, 11);
	d.signals = sigs;
	d.signal_count = 1;
	w[0] = 0;
	ret = tern_submit_deps(ctx, cb, &d, NULL);
	tap_ok(ret == 0, "a gated job signals point 11 (no fence of its own)");
	ret = tern_timeline_point_fence(tl, 11, &pf);
	tap_ok(ret == 0 && pf && tern_fence_seqno(pf) == 0, "point 11 as a fence");
	ret = tern_timeline_point_fence(tl, 99, &fx);
	tap_ok(ret == -ENOENT && !fx, "point 99 as a fence: -ENOENT, \"%s\"", tern_last_error());
	fd = -1;
	if (pf && !tern_fence_export_sync_file(pf, &fd)) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		tap_ok(poll(&pfd, 1, 0) == 0 && tern_fence_status(pf) == -EBUSY,
		       "its sync_file is not ready while the job waits");
		w[0] = 1;
		tap_ok(poll(&pfd, 1, 30000) == 1 && (pfd.revents & POLLIN),
		       "and becomes readable when the job finished");
		tap_ok(tern_fence_wait(pf, 0) == 0, "the fence of point 11 is signalled");
		/* and back: the sync_file signals point 12 */
		ret = tern_timeline_import_sync_file(tl, 12, fd);
		tap_ok(ret == 0 && tern_timeline_wait(tl, 12, 10 * SEC) == 0,
		       "a signalled sync_file imported as point 12 signals it");
		ret = tern_timeline_import_sync_file(tl, 12, fd);
		tap_ok(ret == -EINVAL, "importing at point 12 again: -EINVAL");
		close(fd);
	} else {
		tap_ok(false, "export point 11 as a sync_file: %s", tern_last_error());
	}
	ret = tern_timeline_import_sync_file(tl, 50, 0);
	tap_ok(ret < 0 && strstr(tern_last_error(), "not a sync_file"),
	       "stdin as a sync_file: %d, \"%s\"", ret, tern_last_error());

	/* a timeline shared with another process */
	sigs[0] = tp(tl, 13);
	ret = tern_submit_deps(ctx, spin, &d, NULL);
	tap_ok(ret == 0, "a 20 ms job signals point 13");
	ret = tern_timeline_export(tl, &fd);
	tap_ok(ret == 0 && fd >= 0, "export the timeline");
	fflush(stdout);
	pid = fork();
	if (!pid)
		_exit(child(fd));
	ret = tern_timeline_wait(tl, 14, 60 * SEC);
	tap_ok(ret == 0, "a child process with its own open waited for point 13 and "
	       "signalled point 14: %s", ret ? tern_last_error() : "seen here");
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child succeeded (status %d)",
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	ret = tern_timeline_import(dev, fd, &tl2);
	tap_ok(ret == 0 && tern_timeline_syncobj(tl2) != tern_timeline_syncobj(tl) &&
	       !tern_timeline_query(tl2, &done, NULL) && done == 14,
	       "imported into this open too, it is the same timeline (point %llu)",
	       (unsigned long long)done);
	tern_timeline_free(tl2);
	close(fd);
	ret = tern_timeline_import(dev, 0, &tl2);
	tap_ok(ret < 0 && !tl2 && strstr(tern_last_error(), "not a syncobj"),
	       "stdin as a timeline: %d, \"%s\"", ret, tern_last_error());

	/* a faulting job signals its point; its fence has the error */
	ret = tern_context_create(dev, NULL, &bad);
	if (!ret) {
		struct tern_fence *ff = NULL;

		tern_cmdbuf_reset(cb);
		tern_cmd_write_imm(cb, tern_bo_va(ro), 1);
		sigs[0] = tp(tl, 15);
		ret = tern_submit_deps(bad, cb, &d, &ff);
		tap_ok(ret == 0 && tern_timeline_wait(tl, 15, 30 * SEC) == 0,
		       "a job writing a read-only buffer still signals point 15");
		tap_ok(ff && tern_fence_wait(ff, 0) == -EIO, "its fence says -EIO");
		tern_fence_free(ff);
		tern_context_destroy(bad);
	} else {
		tap_ok(false, "a context: %s", tern_last_error());
	}

	tern_fence_free(pf);
	tern_fence_free(fb);
	tern_fence_free(fa);
	tern_timeline_free(tl);
	tern_cmdbuf_free(spin);
	tern_cmdbuf_free(cb2);
	tern_cmdbuf_free(cb);
	tern_bo_free(ro);
	tern_bo_free(bo);
	tern_context_destroy(ctx2);
	tern_context_destroy(ctx);
	tern_device_close(dev);
	tap_done();
	return tap_exit_status();
}
