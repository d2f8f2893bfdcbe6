// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_job_release: finished jobs are released by the next submission, not
 * by a work item per job (debugfs "jobs"): a stream of jobs wakes the free
 * work a few times, not once per job; every job is released exactly once,
 * also with three threads submitting at once; with no submission after
 * them, the free work releases the last ones; release_delay_us still holds
 * releases back; closing the file with finished jobs on the list leaks
 * nothing.
 *
 * tern-vm: timeout=180
 */
#include <pthread.h>

#include "core_test.h"
#include "mem_test.h"

#define STREAM		3000
#define WINDOW		32
#define THREADS		3
#define THREAD_JOBS	1500

struct counts {
	long long live, reaped, by_work, runs;
};

static bool read_counts(struct counts *c)
{
	char path[512];

	if (!core_debugfs_path("jobs", path, sizeof(path)))
		return false;
	c->live = file_key_value(path, "live");
	c->reaped = file_key_value(path, "reaped");
	c->by_work = file_key_value(path, "freed_by_work");
	c->runs = file_key_value(path, "free_work_runs");
	return c->live >= 0 && c->reaped >= 0 && c->by_work >= 0 && c->runs >= 0;
}

/* Wait (at most @ms) until no job is left unreleased. */
static bool settle(struct counts *c, int ms)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;

	do {
		if (!read_counts(c))
			return false;
		if (!c->live)
			return true;
		usleep(2000);
	} while (now_ns() < end);
	return false;
}

/*
 * @jobs NOP jobs on a new context of @fd, @WINDOW in flight, each waited
 * for through DRM_IOCTL_TERN_WAIT: the number that failed, or -errno.
 */
static int stream(int fd, unsigned int jobs)
{
	static const uint32_t nop = TERN_PKT_HEADER(TERN_OP_NOP, 1);
	const struct drm_tern_progress *page;
	uint32_t ctx, seq[WINDOW];
	unsigned int i, bad = 0;
	uint64_t off;
	int ret, error;

	ret = ctx_create_progress(fd, &ctx, &page, &off);
	if (ret)
		return ret;
	for (i = 0; i < jobs + WINDOW; i++) {
		struct drm_tern_submit s;

		if (i >= WINDOW) {
			ret = job_wait(fd, ctx, seq[i % WINDOW], 10000, &error);
			if (ret)
				break;
			bad += error != 0;
		}
		if (i >= jobs)
			continue;
		ret = submit(fd, ctx, &nop, 1, NULL, 0, 0, 0, &s);
		if (ret)
			break;
		seq[i % WINDOW] = s.seqno;
	}
	ctx_destroy(fd, ctx);
	return ret ?: (int)bad;
}

struct thread_arg {
	int ret;
};

static void *thread_main(void *p)
{
	struct thread_arg *a = p;
	int fd = tern_test_open();

	a->ret = fd < 0 ? -ENODEV : stream(fd, THREAD_JOBS);
	if (fd >= 0)
		close(fd);
	return NULL;
}

int main(void)
{
	struct thread_arg args[THREADS] = {};
	pthread_t th[THREADS];
	char delay[512];
	struct counts a = { -1, -1, -1, -1 }, b = a;
	unsigned int i;
	int fd, ret;
	bool ok;

	tap_plan(15);
	fd = tern_test_open();
	ok = fd >= 0 && settle(&a, 2000);
	if (!tap_ok(ok, "open the device; debugfs jobs reads, "
		    "no job left (live %lld)", a.live)) {
		tap_done();
		return tap_exit_status();
	}

	/* a stream: released by the submissions that follow */
	ret = stream(fd, STREAM);
	tap_ok(ret == 0, "%u NOP jobs, %u in flight, all completed (%d)", STREAM, WINDOW, ret);
	ok = settle(&b, 2000);
	tap_ok(ok, "then every job is released (live %lld)", b.live);
	tap_ok(b.reaped + b.by_work - a.reaped - a.by_work == STREAM,
	       "each exactly once: %lld by submissions, %lld by the free work",
	       b.reaped - a.reaped, b.by_work - a.by_work);
	tap_ok(b.reaped - a.reaped >= STREAM / 2,
	       "most by the submissions that followed (%lld of %u)", b.reaped - a.reaped,
	       STREAM);
	tap_ok(b.runs - a.runs <= STREAM / 8,
	       "the free work ran %lld times for %u jobs", b.runs - a.runs, STREAM);

	/* the last jobs: no submission follows, the free work releases them */
	a = b;
	ret = stream(fd, 20);
	ok = settle(&b, 1000);
	tap_ok(ret == 0 && ok && b.by_work > a.by_work,
	       "with no submission after them, the free work releases the last jobs "
	       "(%lld of 20, live %lld)", b.by_work - a.by_work, b.live);

	/* three threads, each its own file, submit and reap at once */
	a = b;
	for (i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, thread_main, &args[i]);
	for (i = 0, ret = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		ret = ret ?: args[i].ret;
	}
	tap_ok(ret == 0, "%u threads, %u jobs each, all completed (%d)", THREADS,
	       THREAD_JOBS, ret);
	ok = settle(&b, 2000);
	tap_ok(ok && b.reaped + b.by_work - a.reaped - a.by_work == THREADS * THREAD_JOBS,
	       "each released exactly once (%lld by submissions, %lld by the free work, "
	       "live %lld)", b.reaped - a.reaped, b.by_work - a.by_work, b.live);

	/* release_delay_us holds releases back: no submission releases */
	if (core_debugfs_path("release_delay_us", delay, sizeof(delay)) &&
	    core_write_file(delay, "100000")) {
		a = b;
		ret = stream(fd, 200);
		read_counts(&b);
		tap_ok(ret == 0 && b.reaped == a.reaped,
		       "with release_delay_us set, submissions release nothing (%lld)",
		       b.reaped - a.reaped);
		core_write_file(delay, "0");
		ok = settle(&b, 3000);
		tap_ok(ok && b.by_work - a.by_work == 200,
		       "the free work releases them after the delay (%lld)",
		       b.by_work - a.by_work);
	} else {
		tap_skip("no debugfs release_delay_us");
		tap_skip("no debugfs release_delay_us");
	}

	/* closing the file with finished jobs on the list */
	{
		int fd2 = tern_test_open();

		a = b;
		ret = fd2 < 0 ? -ENODEV : stream(fd2, 100);
		if (fd2 >= 0)
			close(fd2);
		tap_ok(ret == 0, "100 jobs on a second file, which is closed at once");
		ok = settle(&b, 2000);
		tap_ok(ok && b.reaped + b.by_work - a.reaped - a.by_work == 100,
		       "all of them released after the close (live %lld)", b.live);
	}
	close(fd);
	ok = settle(&b, 2000);
	tap_ok(ok, "nothing left at the end (live %lld)", b.live);
	tap_ok(b.reaped > 0 && b.by_work > 0, "both ways were used (%lld, %lld)",
	       b.reaped, b.by_work);
	return tap_exit_status();
}
