// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * load.c - a background load: libtern contexts kept busy from one thread,
 * each with a few jobs in flight, until stopped.
 *
 * The thread sleeps on the oldest fence of every context at once
 * (drmSyncobjWait() on their tern_fence_syncobj() handles, "any" mode) and
 * refills the contexts whose jobs finished.  A job that fails (fault, hang,
 * cancel) stops the load with its error.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include <xf86drm.h>

#include "bench.h"

struct bench_load {
	int fd;
	struct bench_load_ctx *ctxs;
	unsigned int n;
	pthread_t thread;
	atomic_bool stop;
	uint64_t done;
	int error;
};

/* Retire the finished jobs of @c (in order); the first job error, or 0. */
static int load_retire(struct bench_load *l, struct bench_load_ctx *c, int64_t timeout_ns)
{
	while (c->tail < c->head) {
		struct tern_fence **f = &c->fence[c->tail % c->depth];
		int ret = tern_fence_wait(*f, timeout_ns);

		if (ret == -ETIME)
			return 0;
		tern_fence_free(*f);
		*f = NULL;
		c->tail++;
		l->done++;
		if (ret)
			return ret;
	}
	return 0;
}

static void *load_thread(void *arg)
{
	struct bench_load *l = arg;
	uint32_t handles[BENCH_LOAD_MAX_CTX];
	unsigned int i, n;
	int ret = 0;

	while (!ret && !atomic_load(&l->stop)) {
		struct timespec ts;

		for (i = 0; i < l->n && !ret; i++) {
			struct bench_load_ctx *c = &l->ctxs[i];

			ret = load_retire(l, c, 0);
			while (!ret && c->head - c->tail < c->depth) {
				ret = tern_submit(c->ctx, c->cbs[c->next_cb % c->ncbs], NULL, 0,
						  &c->fence[c->head % c->depth]);
				if (!ret) {
					c->head++;
					c->next_cb++;
				}
			}
		}
		/* sleep until any context's oldest job finishes, at most 20 ms */
		for (i = 0, n = 0; i < l->n; i++) {
			struct bench_load_ctx *c = &l->ctxs[i];

			if (c->tail < c->head)
				handles[n++] = tern_fence_syncobj(c->fence[c->tail % c->depth]);
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (!ret && n)
			drmSyncobjWait(l->fd, handles, n,
				       ts.tv_sec * 1000000000ll + ts.tv_nsec + 20000000ll, 0, NULL);
	}
	/* drain: the jobs in flight finish (a stop is not a cancel) */
	for (i = 0; i < l->n; i++) {
		int r = load_retire(l, &l->ctxs[i], -1);

		if (r && !ret)
			ret = r;
	}
	l->error = ret;
	return NULL;
}

int bench_load_start(struct tern_device *dev, struct bench_load_ctx *ctxs, unsigned int n,
		     struct bench_load **loadp)
{
	struct bench_load *l;
	unsigned int i, j;
	int ret;

	if (!n || n > BENCH_LOAD_MAX_CTX)
		return -EINVAL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->fd = tern_device_fd(dev);
	l->ctxs = ctxs;
	l->n = n;
	atomic_init(&l->stop, false);
	for (i = 0; i < n; i++) {
		ctxs[i].head = ctxs[i].tail = ctxs[i].next_cb = 0;
		if (!ctxs[i].depth)
			ctxs[i].depth = 2;
		if (ctxs[i].depth > BENCH_LOAD_MAX_DEPTH) {
			free(l);
			return -EINVAL;
		}
		for (j = 0; j < BENCH_LOAD_MAX_DEPTH; j++)
			ctxs[i].fence[j] = NULL;
	}
	ret = -pthread_create(&l->thread, NULL, load_thread, l);
	if (ret) {
		free(l);
		return ret;
	}
	*loadp = l;
	return 0;
}

int bench_load_stop(struct bench_load *l, uint64_t *jobs_done)
{
	int ret;

	atomic_store(&l->stop, true);
	pthread_join(l->thread, NULL);
	ret = l->error;
	if (jobs_done)
		*jobs_done = l->done;
	free(l);
	return ret;
}
