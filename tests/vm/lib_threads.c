// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_threads: libtern's thread safety as tern.h documents it.  Threads
 * share one struct tern_device: four submit on contexts of their own, two
 * more share one context; all allocate and free buffers at the same time
 * (the library's VA allocator and buffer list), build their own command
 * buffers and check every result.  Error messages stay per thread.
 *
 * tern-vm: timeout=180
 */
#include <pthread.h>
#include <stdint.h>
#include <tern/tern.h>

#include "tern_test.h"

#define THREADS		6
#define ROUNDS		40
#define KEEP		4

static struct tern_device *dev;
static struct tern_context *shared;

struct worker {
	int id;
	int errors;
	int jobs;
	char first_error[256];
	struct tern_bo *kept[KEEP];
	bool own_error_seen;
};

static void fail(struct worker *w, const char *what)
{
	if (!w->errors++)
		snprintf(w->first_error, sizeof(w->first_error), "%s: %s", what,
			 tern_last_error());
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct tern_context *ctx = shared;
	struct tern_cmdbuf *cb;
	int r, i, ret;

	if (w->id < 4 && tern_context_create(dev, NULL, &ctx)) {
		fail(w, "context");
		return NULL;
	}
	if (tern_cmdbuf_create(0, &cb)) {
		fail(w, "cmdbuf");
		return NULL;
	}
	for (r = 0; r < ROUNDS; r++) {
		uint32_t value = (uint32_t)w->id << 24 | (uint32_t)r;
		struct tern_fence *f = NULL;
		struct tern_bo *bo;
		uint32_t *p;
		bool good = true;

		if (tern_bo_alloc(dev, 16384 + 4096 * (r % 3), 0, &bo)) {
			fail(w, "alloc");
			continue;
		}
		tern_cmdbuf_reset(cb);
		tern_cmd_fill(cb, tern_bo_va(bo), 16384, value);
		tern_cmd_write_imm(cb, tern_bo_va(bo) + 16380, ~value);
		ret = tern_submit(ctx, cb, NULL, 0, &f);
		if (ret == -EAGAIN) {	/* the shared context may be full: retry once */
			usleep(10000);
			ret = tern_submit(ctx, cb, NULL, 0, &f);
		}
		if (ret || tern_fence_wait(f, 20 * 1000000000ll)) {
			fail(w, "job");
		} else {
			p = tern_bo_map(bo);
			for (i = 0; i < 4095; i++)
				good &= p[i] == value;
			good &= p[4095] == ~value;
			if (!good)
				fail(w, "wrong contents");
			w->jobs++;
		}
		tern_fence_free(f);
		if (r % (ROUNDS / KEEP) == 0 && w->kept[r / (ROUNDS / KEEP)] == NULL)
			w->kept[r / (ROUNDS / KEEP)] = bo;
		else
			tern_bo_free(bo);
	}
	/* a failure here leaves a message in this thread only */
	tern_cmdbuf_reset(cb);
	w->own_error_seen = tern_cmd_spin(cb, 0) == -EINVAL &&
			    strstr(tern_last_error(), "SPIN") != NULL;
	tern_cmdbuf_free(cb);
	if (ctx != shared)
		tern_context_destroy(ctx);
	return NULL;
}

int main(void)
{
	struct worker w[THREADS];
	pthread_t t[THREADS];
	struct tern_bo *all[THREADS * KEEP];
	unsigned int nall = 0, i, j;
	bool disjoint = true, own = true;
	int errors = 0, jobs = 0;

	if (tern_device_open(0, &dev) || tern_context_create(dev, NULL, &shared)) {
		tap_ok(false, "set-up: %s", tern_last_error());
		return tap_exit_status();
	}
	memset(w, 0, sizeof(w));
	for (i = 0; i < THREADS; i++) {
		w[i].id = (int)i;
		pthread_create(&t[i], NULL, work, &w[i]);
	}
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < THREADS; i++) {
		errors += w[i].errors;
		jobs += w[i].jobs;
		own &= w[i].own_error_seen;
		if (w[i].errors)
			tap_diag("thread %u: %d errors, first: %s", i, w[i].errors,
				 w[i].first_error);
		for (j = 0; j < KEEP; j++)
			if (w[i].kept[j])
				all[nall++] = w[i].kept[j];
	}
	tap_ok(errors == 0 && jobs == THREADS * ROUNDS,
	       "%d threads x %d rounds of alloc/submit/wait/check/free: %d jobs right, "
	       "%d errors", THREADS, ROUNDS, jobs, errors);
	for (i = 0; i < nall; i++)
		for (j = 0; j < i; j++)
			if (tern_bo_va(all[i]) < tern_bo_va(all[j]) + tern_bo_size(all[j]) &&
			    tern_bo_va(all[j]) < tern_bo_va(all[i]) + tern_bo_size(all[i]))
				disjoint = false;
	tap_ok(nall == THREADS * KEEP && disjoint,
	       "the %u buffers kept from all threads have disjoint device addresses", nall);
	tap_ok(own && tern_last_error()[0] == 0,
	       "each thread saw its own error message; the main thread's is empty");
	for (i = 0; i < nall; i++)
		tern_bo_free(all[i]);
	tern_context_destroy(shared);
	tern_device_close(dev);
	tap_done();
	return tap_exit_status();
}
