// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * race_create_submit: contexts are found without the file's lock, so a
 * context must be complete when CONTEXT_CREATE publishes its handle.  One
 * thread creates and destroys contexts as fast as it can; three others
 * submit, wait and ask for the state on the handles it is about to hand
 * out (handles are given in turn, so the next one is known).  Every call
 * succeeds or fails with ENOENT (EAGAIN for a full context); no kernel
 * report; every job accepted signals; no context is left.
 *
 * tern-vm: timeout=180
 */
#include <pthread.h>
#include <stdatomic.h>

#include "core_test.h"

#define CREATES		3000
#define PROBERS		3

static int fd;
static atomic_uint next_handle;
static atomic_bool stop;

struct prober {
	unsigned int accepted, absent, waited;
	int bad;
};

static void *probe(void *arg)
{
	const uint32_t nop = TERN_PKT_HEADER(TERN_OP_NOP, 1);
	struct prober *p = arg;

	while (!atomic_load(&stop)) {
		uint32_t h = atomic_load(&next_handle);
		struct drm_tern_context_get_state st;
		struct drm_tern_submit s;
		int ret, error;

		ret = submit(fd, h, &nop, 1, NULL, 0, 0, 0, &s);
		if (!ret) {
			p->accepted++;
			/* finished, or its context went: both are fine */
			ret = job_wait(fd, h, s.seqno, 10000, &error);
			if (!ret)
				p->waited++;
			else if (ret != -ENOENT && !p->bad)
				p->bad = ret;
		} else if (ret == -ENOENT) {
			p->absent++;
		} else if (ret != -EAGAIN && ret != -EIO && !p->bad) {
			p->bad = ret;
		}
		ret = ctx_state(fd, h, &st);
		if (ret && ret != -ENOENT && !p->bad)
			p->bad = ret;
	}
	return NULL;
}

int main(void)
{
	struct prober probers[PROBERS] = {};
	pthread_t th[PROBERS];
	uint32_t live[8] = {}, h = 0;
	unsigned int i, n = 0, bad_create = 0, accepted = 0, absent = 0, waited = 0;
	int bad = 0, ret;

	tap_plan(5);
	fd = tern_test_open();
	if (!tap_ok(fd >= 0 && !ctx_create(fd, 0, 0, 0, &h) && !ctx_destroy(fd, h),
		    "open the device, make and destroy a context")) {
		tap_done();
		return tap_exit_status();
	}
	atomic_store(&next_handle, h + 1);
	for (i = 0; i < PROBERS; i++)
		pthread_create(&th[i], NULL, probe, &probers[i]);
	for (i = 0; i < CREATES; i++) {
		unsigned int k = i % 8;

		if (live[k] && ctx_destroy(fd, live[k]))
			bad_create++;
		live[k] = 0;
		ret = ctx_create(fd, 0, 0, 0, &h);
		if (ret) {
			bad_create++;
			continue;
		}
		live[k] = h;
		n++;
		atomic_store(&next_handle, h + 1);
	}
	atomic_store(&stop, true);
	for (i = 0; i < PROBERS; i++) {
		pthread_join(th[i], NULL);
		accepted += probers[i].accepted;
		absent += probers[i].absent;
		waited += probers[i].waited;
		bad = bad ?: probers[i].bad;
	}
	for (i = 0; i < 8; i++)
		if (live[i] && ctx_destroy(fd, live[i]))
			bad_create++;
	tap_ok(n == CREATES && !bad_create, "%u contexts made and destroyed (%u failures)",
	       n, bad_create);
	tap_ok(!bad, "submits, waits and state queries on handles being handed out: "
	       "success or ENOENT only (%s)", strerror(-bad));
	tap_ok(accepted > 0 && absent > 0,
	       "some found the new context, some not yet (%u accepted, %u ENOENT)",
	       accepted, absent);
	tap_ok(waited > 0, "accepted jobs were waited for (%u)", waited);
	close(fd);
	tap_ok(core_context_count_is(0, 5000), "no context is left");
	return tap_exit_status();
}
