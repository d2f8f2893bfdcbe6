// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_lazy_fence: from interface 1.8 libtern submits a job of a context
 * with a progress page without an out-syncobj, and makes one only when
 * asked (DRM_IOCTL_TERN_JOB_FENCE).  Nothing is lost by it:
 * - a fence's syncobj, sync_file and its use as a dependency, asked for
 *   while the job is queued and after it finished, carry the job's outcome
 *   and order;
 * - outcomes outlive the progress page's window: a completed and a failed
 *   job followed by more than DRM_TERN_PROGRESS_KEPT failures, and a job
 *   held behind a gate while they are submitted, still tell their own;
 * - destroying a context settles its fences (the running job completes,
 *   the queued ones say -ECANCELED), also after many failures;
 * - two threads submit to one context, one job in three failing, keeping
 *   every fence, while a third asks for the syncobjs of the first one's
 *   fences: every fence tells its own outcome;
 * - one tern_submit_many() of 256 jobs queued behind the first, whose
 *   second faults: the first one's fence still says 0 after the 255
 *   failures behind it;
 * - two threads submit to one context, each freeing its oldest fences
 *   while the other's submissions settle them.
 *
 * tern-vm: timeout=240
 */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/sync_file.h>
#include <xf86drm.h>
#include <tern/tern.h>

#include "tern_test.h"
#include "tern_accel.h"

#define SEC		1000000000ll
#define FAILS		(DRM_TERN_PROGRESS_KEPT + 73)
#define THREAD_JOBS	600

static struct tern_device *dev;
static uint64_t nowhere;		/* a device VA nothing is mapped at */

/* Status of the sync_file of @f: 1 done, its error, 0 pending, -1000 none. */
static int sync_file_status(struct tern_fence *f)
{
	struct sync_file_info info;
	int fd, ret;

	if (tern_fence_export_sync_file(f, &fd))
		return -1000;
	memset(&info, 0, sizeof(info));
	ret = ioctl(fd, SYNC_IOC_FILE_INFO, &info);
	close(fd);
	return ret ? -1000 : info.status;
}

/* Status of the fence in syncobj @so (1 done, its error, 0 pending), or -1000. */
static int syncobj_status(uint32_t so)
{
	struct sync_file_info info;
	int fd, ret;

	if (!so || drmSyncobjExportSyncFile(tern_device_fd(dev), so, &fd))
		return -1000;
	memset(&info, 0, sizeof(info));
	ret = ioctl(fd, SYNC_IOC_FILE_INFO, &info);
	close(fd);
	return ret ? -1000 : info.status;
}

/* A job the library does not check, writing where nothing is mapped: it faults. */
static int submit_fault(struct tern_context *ctx, struct tern_fence **f)
{
	struct tern_cmdbuf *tmp, *raw;
	const uint32_t *dw;
	size_t ndw;
	int ret;

	if (tern_cmdbuf_create(0, &tmp) || tern_cmdbuf_create(0, &raw))
		return -ENOMEM;
	tern_cmd_write_imm(tmp, nowhere, 1);
	dw = tern_cmdbuf_data(tmp, &ndw);
	tern_cmd_raw(raw, dw, ndw);
	ret = tern_submit(ctx, raw, NULL, 0, f);
	tern_cmdbuf_free(raw);
	tern_cmdbuf_free(tmp);
	return ret;
}

/* Submit @cb on @ctx, retrying while the context is full. */
static int submit_retry(struct tern_context *ctx, struct tern_cmdbuf *cb,
			struct tern_fence *const *deps, unsigned int ndeps,
			struct tern_fence **f)
{
	int ret;

	while ((ret = tern_submit(ctx, cb, deps, ndeps, f)) == -EAGAIN)
		usleep(200);
	return ret;
}

/*
 * Release the finished jobs: until then the kernel still finds a job's own
 * fence, and a lazy fence that should have been settled would pass.  A
 * submission releases them; the free work after 2 ms releases the rest.
 */
static void release_finished(void)
{
	struct tern_context *ctx;
	struct tern_cmdbuf *cb;
	struct tern_fence *f = NULL;

	if (tern_context_create(dev, NULL, &ctx) || tern_cmdbuf_create(0, &cb))
		return;
	tern_cmd_nop(cb, 1);
	if (!tern_submit(ctx, cb, NULL, 0, &f))
		tern_fence_wait(f, 10 * SEC);
	tern_fence_free(f);
	tern_submit(ctx, cb, NULL, 0, NULL);
	usleep(20000);
	tern_cmdbuf_free(cb);
	tern_context_destroy(ctx);
}

/* A job that holds its context's engine until the CPU sets u32 @k of @bo to 1. */
static int submit_gate(struct tern_context *ctx, struct tern_bo *bo, unsigned int k,
		       struct tern_fence **f)
{
	volatile uint32_t *w = tern_bo_map(bo);
	struct tern_cmdbuf *cb;
	int ret;

	w[k] = 0;
	if (tern_cmdbuf_create(0, &cb))
		return -ENOMEM;
	tern_cmd_wait_mem(cb, tern_bo_va(bo) + 4 * k, 1, 8000000);
	ret = tern_submit(ctx, cb, NULL, 0, f);
	tern_cmdbuf_free(cb);
	return ret;
}

static void check_asked_later(struct tern_context *ctx, struct tern_context *ctx2,
			      struct tern_fence *bad, struct tern_bo *bo)
{
	volatile uint32_t *w = tern_bo_map(bo);
	uint64_t va = tern_bo_va(bo);
	struct tern_fence *gate = NULL, *job = NULL, *after = NULL, *done = NULL,
			  *failed = NULL;
	struct tern_cmdbuf *cb;
	struct pollfd pfd = { .events = POLLIN };
	uint32_t so;

	w[1] = w[2] = 0;
	submit_gate(ctx, bo, 0, &gate);
	tern_cmdbuf_create(0, &cb);
	tern_cmd_write_imm(cb, va + 4, 7);
	tern_submit(ctx, cb, NULL, 0, &job);
	so = job ? tern_fence_syncobj(job) : 0;
	tap_ok(gate && job && so && syncobj_status(so) == 0,
	       "the syncobj of a job queued behind a gate, asked for after the submission: "
	       "its fence, not signalled");
	tap_ok(!tern_fence_export_sync_file(job, &pfd.fd) && poll(&pfd, 1, 0) == 0,
	       "and its sync_file is not ready");
	/* on another context, after the queued job */
	tern_cmdbuf_reset(cb);
	tern_cmd_write_imm(cb, va + 8, 9);
	tap_ok(!tern_submit(ctx2, cb, &job, 1, &after),
	       "a job of another context depends on it");
	usleep(50000);
	tap_ok(w[2] == 0, "and does not run before it");
	w[0] = 1;
	tap_ok(poll(&pfd, 1, 10000) == 1 && !tern_fence_wait(after, 10 * SEC) && w[1] == 7 &&
	       w[2] == 9 && syncobj_status(so) == 1,
	       "once the gate opens: the sync_file wakes, both ran in order, the syncobj "
	       "signalled");
	close(pfd.fd);

	tern_cmdbuf_reset(cb);
	tern_cmd_nop(cb, 1);
	tern_submit(ctx, cb, NULL, 0, &done);
	tern_submit(ctx, cb, &bad, 1, &failed);
	tap_ok(done && failed && !tern_fence_wait(done, 10 * SEC) &&
	       tern_fence_wait(failed, 10 * SEC) == -EIO,
	       "a NOP completes; one depending on a failed fence fails with -EIO");
	tap_ok(sync_file_status(done) == 1 && sync_file_status(failed) == -EIO &&
	       syncobj_status(tern_fence_syncobj(failed)) == -EIO,
	       "their sync_files and syncobjs, asked for after they finished, say so");
	tern_fence_free(failed);
	tern_fence_free(done);
	tern_fence_free(after);
	tern_fence_free(job);
	tern_fence_free(gate);
	tern_cmdbuf_free(cb);
}

/* More than DRM_TERN_PROGRESS_KEPT failures after fences that are still held. */
static void check_window(struct tern_context *ctx, struct tern_fence *bad,
			 struct tern_bo *bo)
{
	volatile uint32_t *w = tern_bo_map(bo);
	struct tern_fence *good = NULL, *failed = NULL, *gate = NULL, *held = NULL,
			  *tail = NULL;
	struct tern_cmdbuf *cb;
	unsigned int i;
	bool all = true;

	tern_cmdbuf_create(0, &cb);
	tern_cmd_nop(cb, 1);
	tern_submit(ctx, cb, NULL, 0, &good);
	tern_submit(ctx, cb, &bad, 1, &failed);
	tap_ok(good && failed && !tern_fence_wait(good, 10 * SEC) &&
	       tern_fence_wait(failed, 10 * SEC) == -EIO, "a completed and a failed job");
	for (i = 0; i < FAILS; i++)
		all &= !submit_retry(ctx, cb, &bad, 1, NULL);
	tap_ok(all, "then %u jobs that fail (more than the page keeps)", FAILS);
	tern_submit(ctx, cb, NULL, 0, &tail);
	tern_fence_wait(tail, 10 * SEC);
	tern_fence_free(tail);
	tail = NULL;
	release_finished();
	tap_ok(!tern_fence_wait(good, 10 * SEC) && tern_fence_status(good) == 0,
	       "the completed job's fence still says 0");
	tap_ok(tern_fence_wait(failed, 10 * SEC) == -EIO && tern_fence_status(failed) == -EIO,
	       "the failed job's fence still says -EIO");

	/* a job held while the failures are submitted behind it */
	submit_gate(ctx, bo, 3, &gate);
	tern_submit(ctx, cb, NULL, 0, &held);
	for (i = 0; i < FAILS && all; i++)
		all &= !tern_submit(ctx, cb, &bad, 1, NULL);
	tern_submit(ctx, cb, NULL, 0, &tail);
	tap_ok(gate && held && tail && all && tern_fence_status(held) == -EBUSY,
	       "a job held behind a gate, %u failing jobs queued after it", FAILS);
	w[3] = 1;
	tern_fence_wait(tail, 10 * SEC);
	release_finished();
	tap_ok(!tern_fence_wait(held, 10 * SEC) && !tern_fence_wait(gate, 0),
	       "once the gate opens, the held job's fence says 0 after all of them");
	tern_fence_free(tail);
	tern_fence_free(held);
	tern_fence_free(gate);
	tern_fence_free(failed);
	tern_fence_free(good);
	tern_cmdbuf_free(cb);
}

/* Destroying a context settles its fences; they stay right after many failures. */
static void check_destroy(struct tern_fence *bad, struct tern_bo *bo)
{
	volatile uint32_t *w = tern_bo_map(bo);
	struct tern_fence *gate = NULL, *queued[3] = { NULL }, *early = NULL;
	struct tern_context *ctx;
	struct tern_cmdbuf *cb;
	unsigned int i;
	bool all = true;

	if (tern_context_create(dev, NULL, &ctx)) {
		tap_ok(false, "a context: %s", tern_last_error());
		return;
	}
	tern_cmdbuf_create(0, &cb);
	tern_cmd_nop(cb, 1);
	tern_submit(ctx, cb, NULL, 0, &early);
	tern_fence_wait(early, 10 * SEC);
	for (i = 0; i < 40; i++)
		all &= !tern_submit(ctx, cb, &bad, 1, NULL);
	submit_gate(ctx, bo, 4, &gate);
	for (i = 0; i < 3; i++)
		all &= !tern_submit(ctx, cb, NULL, 0, &queued[i]);
	usleep(50000);
	tap_ok(all && gate && !tern_context_destroy(ctx),
	       "a context with a finished job, 40 failures, a running job and 3 queued: "
	       "destroyed");
	w[4] = 1;
	tap_ok(!tern_fence_wait(gate, 10 * SEC) && !tern_fence_wait(early, 0),
	       "the running job completes; the early one still says 0");
	for (i = 0; i < 3; i++) {
		int ret = tern_fence_wait(queued[i], 10 * SEC);

		/* the first may be in the engine's second slot already: it runs */
		if (ret != -ECANCELED && (i || ret))
			tap_diag("queued job %u: %d: %s", i, ret, tern_last_error());
		all &= ret == -ECANCELED || (!i && !ret);
	}
	i = syncobj_status(tern_fence_syncobj(queued[2]));
	tap_ok(all && (int)i == -ECANCELED,
	       "the queued ones say -ECANCELED (but one in the engine's second slot), and "
	       "so does a syncobj asked for now (%d)",
	       (int)i);
	for (i = 0; i < 3; i++)
		tern_fence_free(queued[i]);
	tern_fence_free(gate);
	tern_fence_free(early);
	tern_cmdbuf_free(cb);
}

/*
 * One tern_submit_many() of 256 jobs, all queued behind the first, which
 * holds the engine until the CPU lets it go; the second faults: the first
 * job's fence keeps its outcome though the 255 after it fail.
 */
static void check_many_fault(struct tern_bo *bo)
{
	volatile uint32_t *w = tern_bo_map(bo);
	struct tern_cmdbuf *cbs[256], *nop, *tmp, *raw, *gate;
	struct tern_fence *fences[256] = { NULL };
	struct tern_context *ctx;
	unsigned int i, submitted = 0, wrong = 0;
	const uint32_t *dw;
	size_t ndw;
	int ret;

	if (tern_context_create(dev, NULL, &ctx) || tern_cmdbuf_create(0, &nop) ||
	    tern_cmdbuf_create(0, &tmp) || tern_cmdbuf_create(0, &raw) ||
	    tern_cmdbuf_create(0, &gate)) {
		tap_ok(false, "set-up: %s", tern_last_error());
		return;
	}
	w[5] = 0;
	tern_cmd_wait_mem(gate, tern_bo_va(bo) + 20, 1, 8000000);
	tern_cmd_nop(nop, 1);
	tern_cmd_write_imm(tmp, nowhere, 1);
	dw = tern_cmdbuf_data(tmp, &ndw);
	tern_cmd_raw(raw, dw, ndw);
	for (i = 0; i < 256; i++)
		cbs[i] = i == 0 ? gate : i == 1 ? raw : nop;
	ret = tern_submit_many(ctx, (const struct tern_cmdbuf *const *)cbs, 256, fences,
			       &submitted);
	tap_ok(submitted == 256 && !ret,
	       "256 jobs in one call behind a gate, the second faulting: %u queued (%d)",
	       submitted, ret);
	w[5] = 1;
	tern_fence_wait(fences[submitted ? submitted - 1 : 0], 10 * SEC);
	release_finished();
	ret = tern_fence_wait(fences[0], 10 * SEC);
	tap_ok(!ret && tern_fence_wait(fences[1], 10 * SEC) == -EIO,
	       "the first job's fence says 0 (%d), the second's -EIO", ret);
	for (i = 2; i < submitted; i++)
		wrong += tern_fence_wait(fences[i], 10 * SEC) != -ECANCELED;
	tap_ok(!wrong, "the %u after it say -ECANCELED (%u wrong)",
	       submitted > 2 ? submitted - 2 : 0, wrong);
	for (i = 0; i < 256; i++)
		tern_fence_free(fences[i]);
	tern_cmdbuf_free(gate);
	tern_cmdbuf_free(raw);
	tern_cmdbuf_free(tmp);
	tern_cmdbuf_free(nop);
	tern_context_destroy(ctx);
}

#define CHURN_RING_MAX	32

struct churner {
	struct tern_context *ctx;
	struct tern_fence *bad;
	unsigned int ring;		/* fences kept: freed about 2 * ring jobs old */
	int wrong;
};

/*
 * Submit, keeping the last @ring fences and freeing the oldest one, lazy
 * or settled, while another thread's submissions on the context settle
 * them.
 */
static void *churn_thread(void *arg)
{
	struct tern_fence *ring[CHURN_RING_MAX] = { NULL };
	bool failing[CHURN_RING_MAX] = { false };
	struct churner *c = arg;
	struct tern_cmdbuf *cb;
	unsigned int i, k;

	tern_cmdbuf_create(0, &cb);
	tern_cmd_nop(cb, 1);
	for (i = 0; i < 3000; i++) {
		struct tern_fence **f = &ring[i % c->ring];
		bool fail = i % 4 == 3;

		tern_fence_free(*f);
		*f = NULL;
		failing[i % c->ring] = fail;
		if (submit_retry(c->ctx, cb, fail ? &c->bad : NULL, fail, f)) {
			c->wrong++;
			break;
		}
		/* and now and then one freed at once, lazy for sure */
		if (i % 7 == 0) {
			tern_fence_free(*f);
			*f = NULL;
		}
	}
	for (k = 0; k < c->ring; k++) {
		if (ring[k] && tern_fence_wait(ring[k], 10 * SEC) != (failing[k] ? -EIO : 0))
			c->wrong++;
		tern_fence_free(ring[k]);
	}
	tern_cmdbuf_free(cb);
	return NULL;
}

static void check_churn(struct tern_fence *bad)
{
	/* freed around the age at which the other thread settles them */
	struct churner c[2] = { { .bad = bad, .ring = 20 }, { .bad = bad, .ring = 32 } };
	struct tern_context *ctx;
	pthread_t t[2];

	if (tern_context_create(dev, NULL, &ctx)) {
		tap_ok(false, "a context: %s", tern_last_error());
		return;
	}
	c[0].ctx = c[1].ctx = ctx;
	pthread_create(&t[0], NULL, churn_thread, &c[0]);
	pthread_create(&t[1], NULL, churn_thread, &c[1]);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	tap_ok(!c[0].wrong && !c[1].wrong,
	       "two threads submit to one context, each freeing its oldest fence while the "
	       "other's submissions settle them: every fence kept tells its outcome");
	tern_context_destroy(ctx);
}

struct submitter {
	struct tern_context *ctx;
	struct tern_fence *bad;
	struct tern_fence *fences[THREAD_JOBS];
	atomic_uint count;
	int errors;
};

static void *submit_thread(void *arg)
{
	struct submitter *s = arg;
	struct tern_cmdbuf *cb;
	unsigned int i;

	tern_cmdbuf_create(0, &cb);
	tern_cmd_nop(cb, 1);
	for (i = 0; i < THREAD_JOBS; i++) {
		bool fail = i % 3 == 2;

		if (submit_retry(s->ctx, cb, fail ? &s->bad : NULL, fail, &s->fences[i])) {
			s->errors++;
			break;
		}
		atomic_store(&s->count, i + 1);
	}
	tern_cmdbuf_free(cb);
	return NULL;
}

static atomic_bool asking;

/*
 * Ask for the syncobjs of the fences one submitter made, as they come; the
 * other's are left to the library.
 */
static void *ask_thread(void *arg)
{
	struct submitter *t = arg;
	unsigned int asked = 0;

	while (atomic_load(&asking)) {
		unsigned int n = atomic_load(&t->count);

		if (!n)
			continue;
		if (!tern_fence_syncobj(t->fences[(asked * 7919u) % n]))
			t->errors++;
		asked++;
	}
	return NULL;
}

static void check_threads(struct tern_fence *bad)
{
	struct submitter s[2] = { { .bad = bad }, { .bad = bad } };
	struct tern_context *ctx;
	pthread_t t[3];
	unsigned int i, k, wrong = 0;

	if (tern_context_create(dev, NULL, &ctx)) {
		tap_ok(false, "a context: %s", tern_last_error());
		return;
	}
	s[0].ctx = s[1].ctx = ctx;
	atomic_store(&asking, true);
	pthread_create(&t[0], NULL, submit_thread, &s[0]);
	pthread_create(&t[1], NULL, submit_thread, &s[1]);
	pthread_create(&t[2], NULL, ask_thread, &s[0]);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	atomic_store(&asking, false);
	pthread_join(t[2], NULL);
	tap_ok(!s[0].errors && !s[1].errors && s[0].count == THREAD_JOBS &&
	       s[1].count == THREAD_JOBS,
	       "two threads submitted %u jobs each to one context, keeping every fence, "
	       "while a third asked for the first one's syncobjs", THREAD_JOBS);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < THREAD_JOBS; i++) {
			int want = i % 3 == 2 ? -EIO : 0;
			int got = tern_fence_wait(s[k].fences[i], 10 * SEC);

			if (got != want) {
				if (wrong++ < 5)
					tap_diag("thread %u job %u (seqno %u): %d, not %d: %s", k, i,
						 tern_fence_seqno(s[k].fences[i]), got, want,
						 tern_last_error());
			}
		}
	}
	tap_ok(!wrong, "every fence tells its own job's outcome (%u wrong)", wrong);
	for (k = 0; k < 2; k++)
		for (i = 0; i < THREAD_JOBS; i++)
			tern_fence_free(s[k].fences[i]);
	tern_context_destroy(ctx);
}

int main(void)
{
	struct tern_context *ctx, *ctx2, *bad_ctx;
	struct tern_fence *bad = NULL;
	const struct tern_device_info *info;
	struct tern_bo *bo;

	tap_plan(24);
	if (tern_device_open(0, &dev) || tern_context_create(dev, NULL, &ctx) ||
	    tern_context_create(dev, NULL, &ctx2) || tern_context_create(dev, NULL, &bad_ctx) ||
	    tern_bo_alloc(dev, 4096, 0, &bo)) {
		tap_ok(false, "set-up: %s", tern_last_error());
		return tap_exit_status();
	}
	info = tern_device_info(dev);
	if (!tap_ok(info->driver_version >= (1u << 16 | 8), "interface 1.8 (%u.%u)",
		    info->driver_version >> 16, info->driver_version & 0xffff))
		return tap_exit_status();
	nowhere = (1ull << info->va_bits) - 64 * 4096;
	if (!tap_ok(!submit_fault(bad_ctx, &bad) && tern_fence_wait(bad, 10 * SEC) == -EIO,
		    "a fence that failed with -EIO (a fault on a context of its own)"))
		return tap_exit_status();

	check_asked_later(ctx, ctx2, bad, bo);
	check_window(ctx, bad, bo);
	check_destroy(bad, bo);
	check_threads(bad);
	check_many_fault(bo);
	check_churn(bad);

	tern_fence_free(bad);
	tern_bo_free(bo);
	tern_context_destroy(bad_ctx);
	tern_context_destroy(ctx2);
	tern_context_destroy(ctx);
	tern_device_close(dev);
	return tap_exit_status();
}
