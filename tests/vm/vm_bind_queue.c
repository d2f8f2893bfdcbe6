// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * vm_bind_queue: page-table updates are DMA buffers that the copy engine
 * runs as jobs of the driver's own queue (docs/memory.md).  Checked here:
 *
 * - every map and unmap runs at least one update job (debugfs "vms"), and
 *   what it maps works for a compute job and for the CPU;
 * - a map does not wait for a long copy job that holds the copy engine:
 *   the update preempts it, under "fair" and under "fifo" (which preempts
 *   for nothing else), and the copy job still completes, with its result;
 * - an update that takes an injected fault, or an injected hang (engine
 *   reset after the queue's 2 s timeout), is run again: the bind succeeds,
 *   "retries" counts it, nothing else fails;
 * - four processes and two threads of one process map and unmap at once,
 *   with jobs running: every call succeeds, every job reads what it
 *   should;
 * - once the copy engine is lost (its reset never ends), VM_BIND fails
 *   with -EIO and the address space takes no other change, while jobs on
 *   the compute engines still run in it; reloading the driver brings it
 *   back.
 *
 * tern-vm: timeout=180
 */
#include <pthread.h>
#include <sys/wait.h>

#include "core_test.h"

#define VA		0x100000000ull
#define BO_SIZE		0x10000ull
#define PROCS		4
#define THREADS		2
#define ROUNDS		60

/* The counters of the bind queue, from the first line of debugfs "vms". */
struct bind_stats {
	unsigned int engine;
	unsigned long long jobs, retries, failures;
};

static bool bind_stats(struct bind_stats *st)
{
	char path[512], line[256];
	unsigned int tag;
	unsigned long long busy;

	return core_debugfs_path("vms", path, sizeof(path)) &&
	       core_read_line(path, line, sizeof(line)) &&
	       sscanf(line, "bind queue: engine %u ctx tag %u jobs %llu retries %llu failures %llu busy_ns %llu",
		      &st->engine, &tag, &st->jobs, &st->retries, &st->failures,
		      &busy) == 6;
}

/* Write @value at @va through a job on @ctx and wait for it: 0 or -errno. */
static int write_job(int fd, uint32_t ctx, uint32_t bo, uint64_t va,
		     uint32_t value)
{
	uint32_t dw[8], n = 0, so = syncobj_new(fd);
	int ret;

	pkt_write_imm(dw, &n, va, value);
	ret = submit(fd, ctx, dw, n, &bo, 1, 0, so, NULL);
	if (!ret)
		ret = syncobj_wait(fd, so, 20000);
	if (!ret) {
		ret = core_fence_status(fd, so);
		ret = ret == 1 ? 0 : ret < 0 ? ret : -EPROTO;
	}
	drmSyncobjDestroy(fd, so);
	return ret;
}

/* Map a fresh BO at @va, write through it with a job, read it back. */
static bool map_and_use(int fd, uint32_t ctx, uint64_t va, uint32_t value,
			uint32_t *handle)
{
	volatile uint32_t *cpu;
	void *map;
	bool ok;

	if (core_bo(fd, BO_SIZE, va, handle, &map))
		return false;
	cpu = map;
	ok = !write_job(fd, ctx, *handle, va + 64, value) && cpu[16] == value;
	munmap(map, BO_SIZE);
	return ok;
}

/*
 * A 1 s copy job (@dw) on @copy_ctx, then a map while it runs: the map
 * returns before the job ends, and the job still completes and writes
 * 0x5151 at the start of @cpu.  @mode names the policy in the messages.
 */
static void map_under_copy(int fd, uint32_t ctx, uint32_t copy_ctx,
			   const uint32_t *dw, uint32_t n, uint32_t bo,
			   volatile uint32_t *cpu, uint64_t va, const char *mode)
{
	uint32_t so = syncobj_new(fd), bo2;
	int err;

	cpu[0] = 0;
	err = submit(fd, copy_ctx, dw, n, &bo, 1, 0, so, NULL);
	tap_ok(!err, "%s: a 1 s copy job is submitted (%s)", mode, strerror(-err));
	usleep(100000);
	tap_ok(map_and_use(fd, ctx, va, 0x77, &bo2), "%s: a map made while it runs works",
	       mode);
	err = syncobj_wait(fd, so, 0);
	tap_ok(err == -ETIME, "%s: the map returned before the copy job ended (%s)", mode,
	       strerror(-err));
	err = syncobj_wait(fd, so, 20000);
	tap_ok(!err && core_fence_status(fd, so) == 1 && cpu[0] == 0x5151,
	       "%s: the copy job, preempted by the update, completes with its result",
	       mode);
	drmSyncobjDestroy(fd, so);
}

/*
 * Arm injection @op (3 fault, 1 hang) on the copy engine, map at @va: the
 * update takes it, runs again, and the map works.
 */
static void map_under_injection(int fd, uint32_t ctx, unsigned int copy_engine,
				unsigned int op, uint64_t va, const char *what)
{
	struct bind_stats st0, st;
	uint32_t bo2;
	bool ok;

	core_drain_coredumps();
	bind_stats(&st0);
	tap_ok(core_inject(copy_engine, op), "a %s is armed on the copy engine", what);
	tap_ok(map_and_use(fd, ctx, va, 0x88, &bo2), "a map made then works (%s)", what);
	ok = bind_stats(&st);
	tap_ok(ok && st.retries == st0.retries + 1 && st.failures == st0.failures,
	       "its update took the %s and ran again (retries %llu -> %llu)", what,
	       st0.retries, st.retries);
	core_drain_coredumps();
}

struct worker {
	int fd;
	uint64_t base;
	int errors;
};

/* Map, use and unmap a BO at its own VA, over and over. */
static void *thread_main(void *arg)
{
	struct worker *w = arg;
	uint32_t ctx, bo, i;

	if (ctx_create(w->fd, DRM_TERN_PRIORITY_NORMAL,
		       DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &ctx)) {
		w->errors++;
		return NULL;
	}
	for (i = 0; i < ROUNDS; i++) {
		uint64_t va = w->base + (i % 4) * BO_SIZE;

		if (!map_and_use(w->fd, ctx, va, 0x1000 + i, &bo))
			w->errors++;
		if (vm_unmap(w->fd, va, BO_SIZE))
			w->errors++;
		bo_close(w->fd, bo);
	}
	ctx_destroy(w->fd, ctx);
	return NULL;
}

/* One process: THREADS threads of one file on disjoint ranges. */
static int process_main(int id)
{
	struct worker w[THREADS];
	pthread_t t[THREADS];
	int fd = tern_test_open(), i, errors = 0;

	if (fd < 0)
		return 1;
	for (i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ .fd = fd, .base = VA + ((uint64_t)id << 32) +
						   (uint64_t)i * (1ull << 30) };
		pthread_create(&t[i], NULL, thread_main, &w[i]);
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		errors += w[i].errors;
	}
	close(fd);
	return errors ? 1 : 0;
}

int main(void)
{
	struct bind_stats st0, st;
	struct drm_tern_get_info info;
	uint32_t ctx, copy_ctx, bo, dw[8], n, so;
	unsigned int copy_engine;
	pid_t pids[PROCS];
	int fd, i, err, status, failed;
	bool ok;
	volatile uint32_t *cpu = NULL;
	void *map = NULL;
	char path[512];

	fd = tern_test_open();
	if (fd < 0 || core_get_info(fd, &info) || !bind_stats(&st0)) {
		tap_ok(false, "open the device and read debugfs vms");
		return tap_exit_status();
	}
	copy_engine = info.compute_engine_count;
	tap_ok(st0.engine == copy_engine, "the bind queue is on the copy engine (%u)",
	       st0.engine);
	if (ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0,
		       &ctx)) {
		tap_ok(false, "create a compute context");
		return tap_exit_status();
	}

	/* every change is a job of the queue */
	tap_ok(map_and_use(fd, ctx, VA, 0xabc, &bo), "a job writes through a new mapping");
	ok = bind_stats(&st);
	tap_ok(ok && st.jobs > st0.jobs, "the map ran an update job (%llu -> %llu)",
	       st0.jobs, st.jobs);
	st0 = st;
	tap_errno(vm_unmap(fd, VA, BO_SIZE), 0, "unmap it");
	ok = bind_stats(&st);
	tap_ok(ok && st.jobs > st0.jobs, "the unmap ran an update job (%llu -> %llu)",
	       st0.jobs, st.jobs);
	err = write_job(fd, ctx, bo, VA + 64, 1);
	tap_ok(err == -EIO, "a job on the unmapped range faults (%s)", strerror(-err));
	ctx_destroy(fd, ctx);
	ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &ctx);

	/* a long copy job holds the copy engine: the update does not wait for it */
	if (!tap_ok(!core_bo(fd, BO_SIZE, VA, &bo, &map), "map a BO for a copy job")) {
		tap_done();
		return tap_exit_status();
	}
	cpu = map;
	n = 0;
	pkt_spin(dw, &n, 1000000);
	pkt_write_imm(dw, &n, VA, 0x5151);
	err = ctx_create_class_on(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COPY,
				  0, copy_engine, &copy_ctx);
	tap_ok(!err, "a copy context (%s)", strerror(-err));
	map_under_copy(fd, ctx, copy_ctx, dw, n, bo, cpu, VA + (1ull << 30), "fair");
	/* fifo never preempts applications' jobs, but it does for an update */
	if (core_debugfs_path("sched_policy", path, sizeof(path)) &&
	    core_write_file(path, "fifo")) {
		map_under_copy(fd, ctx, copy_ctx, dw, n, bo, cpu, VA + (5ull << 30),
			       "fifo");
		tap_ok(core_write_file(path, "fair"), "back to fair");
	} else {
		tap_skip("no debugfs sched_policy");
	}

	/* an update that takes an injected fault or hang runs again */
	if (info.caps & DRM_TERN_CAP_FAULT_INJECT) {
		map_under_injection(fd, ctx, copy_engine, 3, VA + (2ull << 30), "fault");
		map_under_injection(fd, ctx, copy_engine, 1, VA + (3ull << 30), "hang");
	} else {
		tap_skip("no fault injection");
	}

	/* processes and threads changing address spaces at once */
	bind_stats(&st0);
	for (i = 0; i < PROCS; i++) {
		pids[i] = fork();
		if (!pids[i])
			_exit(process_main(i + 1));
	}
	failed = 0;
	for (i = 0; i < PROCS; i++)
		if (pids[i] < 0 || waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	tap_ok(!failed, "%d processes of %d threads each map, use and unmap %d times: "
	       "%d failed", PROCS, THREADS, ROUNDS, failed);
	ok = bind_stats(&st);
	tap_ok(ok && st.jobs >= st0.jobs + 2 * PROCS * THREADS * ROUNDS &&
	       st.failures == st0.failures,
	       "each change ran its update (%llu jobs)", st.jobs - st0.jobs);

	/* a lost copy engine: changes fail, jobs still run */
	if (info.caps & DRM_TERN_CAP_FAULT_INJECT) {
		uint32_t lost_ctx;

		so = syncobj_new(fd);
		n = 0;
		pkt_spin(dw, &n, 2000000);
		err = ctx_create_class_on(fd, DRM_TERN_PRIORITY_NORMAL,
					  DRM_TERN_ENGINE_CLASS_COPY, 300, copy_engine,
					  &lost_ctx);
		if (!err)
			err = submit(fd, lost_ctx, dw, n, &bo, 1, 0, so, NULL);
		usleep(50000);
		tap_ok(!err && core_inject(copy_engine, 4) && core_inject(copy_engine, 1),
		       "a copy job hangs and the copy engine's reset will never end");
		err = syncobj_wait(fd, so, 30000);
		tap_ok(!err && core_fence_status(fd, so) == -ETIMEDOUT,
		       "the hung copy job: -ETIMEDOUT");
		err = vm_map(fd, bo, VA + (4ull << 30), 0, BO_SIZE);
		tap_ok(err == -EIO, "a map then fails: -EIO (%s)", strerror(-err));
		err = vm_unmap(fd, VA, BO_SIZE);
		tap_ok(err == -EIO, "so does an unmap: -EIO (%s)", strerror(-err));
		err = write_job(fd, ctx, bo, VA + 128, 0x4242);
		tap_ok(!err && cpu[32] == 0x4242,
		       "a compute job still runs in the address space (%s)", strerror(-err));
		munmap(map, BO_SIZE);
		close(fd);
		core_drain_coredumps();
		tap_ok(core_module_unload() && core_module_load(), "the driver reloads");
		fd = tern_test_open();
		ctx = 0;
		tap_ok(fd >= 0 && !ctx_create(fd, DRM_TERN_PRIORITY_NORMAL,
					      DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &ctx) &&
		       map_and_use(fd, ctx, VA, 0x1234, &bo),
		       "after the reload, maps work again");
	}
	close(fd);
	tap_done();
	return tap_exit_status();
}
