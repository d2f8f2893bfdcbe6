// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sched_flood: one client queueing all it may does not take the engine
 * from the others.  A process opens the device twice, creates 64
 * copy-engine contexts on each file and queues SPIN jobs on each until
 * the kernel says EAGAIN (job and byte limits): tens of thousands of jobs,
 * a minute of work, more than drm_sched's credits used to allow.  Then another process submits, on
 * the same copy engine, a HIGH job (which must preempt within the
 * preemption bound) and a NORMAL job of a fresh context (which must get
 * its turn within a few quanta): both must signal within a second or two,
 * not after the flood.  Both with and without an in-fence that already
 * signalled, and once more through a timeline point.
 *
 * tern-vm: timeout=300
 */
#include <signal.h>
#include <sys/wait.h>

#include "core_test.h"

#define VA		0x100000ull
#define FLOOD_FILES	2
#define FLOOD_CTX	64
#define FLOOD_JOBS	256
#define SPIN_US		2000
#define BOUND_MS	2000

/*
 * The flooding process: on two open files of its own, 64 contexts each,
 * queues SPINs until the kernel says EAGAIN everywhere (more jobs than one
 * file's byte limit lets through, more than drm_sched had credits for).
 */
static int flood(int ready_fd)
{
	uint32_t dw[8], n = 0, ctx[FLOOD_FILES][FLOOD_CTX], c, j, f, queued = 0;
	int fd[FLOOD_FILES], ret;

	pkt_spin(dw, &n, SPIN_US);
	for (f = 0; f < FLOOD_FILES; f++) {
		fd[f] = tern_test_open();
		if (fd[f] < 0)
			return 2;
		for (c = 0; c < FLOOD_CTX; c++)
			if (ctx_create(fd[f], DRM_TERN_PRIORITY_NORMAL,
				       DRM_TERN_ENGINE_CLASS_COPY, 0, &ctx[f][c]))
				return 3;
	}
	for (f = 0; f < FLOOD_FILES; f++) {
		for (j = 0, ret = 0; j < FLOOD_JOBS && !ret; j++) {
			for (c = 0; c < FLOOD_CTX && !ret; c++) {
				ret = submit(fd[f], ctx[f][c], dw, n, NULL, 0,
					     0, 0, NULL);
				queued += !ret;
			}
		}
		if (ret != -EAGAIN && ret)
			return 4;
	}
	if (write(ready_fd, &queued, sizeof(queued)) != sizeof(queued))
		return 5;
	pause();
	return 0;
}

/* Submit a job writing @val at VA + @off on a new context of @prio. */
static int64_t timed_job(int fd, uint32_t bo, uint32_t prio, uint32_t in,
			 uint32_t off, uint32_t val, volatile uint32_t *mem)
{
	uint32_t dw[8], n = 0, ctx = 0, so = syncobj_new(fd);
	int64_t t0;
	int ret;

	if (ctx_create(fd, prio, DRM_TERN_ENGINE_CLASS_COPY, 0, &ctx))
		return -1;
	pkt_write_imm(dw, &n, VA + off, val);
	t0 = now_ns();
	ret = submit(fd, ctx, dw, n, &bo, 1, in, so, NULL);
	if (ret || syncobj_wait(fd, so, 60000) || mem[off / 4] != val)
		return -1;
	drmSyncobjDestroy(fd, so);
	return (now_ns() - t0) / 1000000;
}

int main(void)
{
	int64_t hi, lo, hi_dep, lo_dep;
	volatile uint32_t *mem = NULL;
	uint32_t bo = 0, queued = 0, done;
	int p[2], fd, status;
	bool ok;
	pid_t pid;

	tap_plan(6);
	if (pipe(p))
		return 1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		_exit(flood(p[1]));
	}
	close(p[1]);
	fd = tern_test_open();
	ok = fd >= 0 && !core_bo(fd, 4096, VA, &bo, (void **)&mem) &&
	     read(p[0], &queued, sizeof(queued)) == sizeof(queued);
	if (!tap_ok(ok, "another process queued %u jobs on %d contexts of the copy engine",
		    queued, FLOOD_CTX)) {
		kill(pid, SIGKILL);
		return tap_exit_status();
	}
	tap_ok(queued > 16384, "more jobs than 64 contexts x 256 (%u, %u ms of work)",
	       queued, queued * SPIN_US / 1000);

	hi = timed_job(fd, bo, DRM_TERN_PRIORITY_HIGH, 0, 0, 0x11, mem);
	tap_ok(hi >= 0 && hi < BOUND_MS, "a HIGH job of this process signals in %lld ms",
	       (long long)hi);
	lo = timed_job(fd, bo, DRM_TERN_PRIORITY_NORMAL, 0, 4, 0x22, mem);
	tap_ok(lo >= 0 && lo < BOUND_MS, "a NORMAL job of a new context signals in %lld ms",
	       (long long)lo);

	/* the same behind an in-fence that already signalled */
	done = syncobj_new(fd);
	drmSyncobjSignal(fd, &done, 1);
	hi_dep = timed_job(fd, bo, DRM_TERN_PRIORITY_HIGH, done, 8, 0x33, mem);
	tap_ok(hi_dep >= 0 && hi_dep < BOUND_MS,
	       "with a signalled in-fence: HIGH in %lld ms", (long long)hi_dep);
	lo_dep = timed_job(fd, bo, DRM_TERN_PRIORITY_NORMAL, done, 12, 0x44, mem);
	tap_ok(lo_dep >= 0 && lo_dep < BOUND_MS,
	       "with a signalled in-fence: NORMAL in %lld ms", (long long)lo_dep);

	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(fd);
	return tap_exit_status();
}
