// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sched_paging: under the fair policy, paging buffers are preemptible
 * NORMAL work of the copy engine.  While another process pages an 8 MiB
 * LOCAL BO in (about 1.7 s of PHYS_COPY at time-scale 200, in jobs of
 * 4 MiB), HIGH copy jobs of this one arrive: one preempts the paging
 * buffer running (debugfs "memory": paging_preemptions) and completes
 * while the paging goes on, instead of waiting for it; the paging then
 * resumes where it stopped, and the other process finds its BO bit-exact
 * for the CPU (through BAR2) and for a job.  Under fifo, which never
 * preempts for priority, paging runs on the kernel queue instead: the
 * paging queue gets no job; fifo written while a paging job runs on the
 * paging queue lets the page-in complete whole.  The policy is restored
 * on every exit path.
 *
 * tern-vm: device=compute-engines=1,time-scale=200 timeout=120
 */
#include <sys/mman.h>
#include <sys/wait.h>

#include "sched_test.h"

#define MIB		(1024ull * 1024)
#define L_SIZE		(8 * MIB)
#define S_SIZE		(128 * 1024)
#define VA_L		0x10000000ull
#define VA_S		0x20000000ull
#define VA_F		0x30000000ull
#define LIMIT_S		120

static uint32_t pattern(size_t i)
{
	return (uint32_t)i * 2654435761u ^ 0x5a5a5a5au;
}

/*
 * The other process: its own file maps an 8 MiB LOCAL BO that its CPU
 * wrote (a page-in), then checks it with the CPU and with a job.
 * shared[]: 0 set up, 1 mapped, 2 the map's result, 3 the data whole.
 */
static void pager(volatile int *shared)
{
	volatile uint32_t *lp = NULL, *sp = NULL;
	uint32_t ctx = 0, l = 0, s = 0, dw[16], n = 0;
	int fd = tern_test_open(), ret;
	uint64_t got;
	bool ok;
	size_t i;

	ret = fd < 0 || ctx_create(fd, DRM_TERN_PRIORITY_NORMAL,
				   DRM_TERN_ENGINE_CLASS_COPY, 0, &ctx) ||
	      core_bo(fd, S_SIZE, VA_S, &s, (void **)&sp) ||
	      bo_create_local(fd, L_SIZE, &l);
	lp = ret ? NULL : bo_mmap(fd, l, &got);
	for (i = 0; lp && i < L_SIZE / 4; i++)
		lp[i] = pattern(i);
	__atomic_store_n(&shared[0], 1, __ATOMIC_RELEASE);
	ret = lp ? vm_map(fd, l, VA_L, 0, L_SIZE) : -ENOMEM;
	shared[2] = ret;
	__atomic_store_n(&shared[1], 1, __ATOMIC_RELEASE);

	/* resumed where it stopped: the data is whole */
	for (ok = !ret, i = 0; ok && i < L_SIZE / 4; i++)
		ok = lp[i] == pattern(i);
	pkt_copy(dw, &n, VA_L + L_SIZE - S_SIZE, VA_S, S_SIZE);
	ok = ok && !core_run(fd, ctx, dw, n);
	for (i = 0; ok && i < S_SIZE / 4; i++)
		ok = sp[i] == pattern((L_SIZE - S_SIZE) / 4 + i);
	shared[3] = ok;
	_exit(0);
}

int main(void)
{
	volatile uint32_t *sp = NULL;
	volatile int *shared;
	uint32_t high = 0, s = 0, f = 0, dw[16], n;
	long long pre, failures, jobs, clears;
	int fd, tag, ret = 0, status, error = 0;
	bool running = false, during = false;
	struct drm_tern_submit sub;
	int64_t t0 = 0, t1 = 0;
	unsigned int tries;
	size_t i;
	pid_t pid;

	tap_plan(9);
	fd = tern_test_open();
	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!tap_ok(fd >= 0 && shared != MAP_FAILED && sched_knobs_save(LIMIT_S) &&
		    !sched_dbg_write("sched_policy", "fair") &&
		    !ctx_create(fd, DRM_TERN_PRIORITY_HIGH,
				DRM_TERN_ENGINE_CLASS_COPY, 0, &high) &&
		    !core_bo(fd, S_SIZE, VA_S, &s, (void **)&sp),
		    "fair policy; a HIGH copy context and a system BO"))
		return tap_exit_status();
	tag = (int)core_memory_value("paging_queue_ctx");
	pre = core_memory_value("paging_preemptions");
	failures = core_memory_value("paging_failures");

	/* another process pages 8 MiB in */
	memset((void *)shared, 0, 4096);
	pid = fork();
	if (pid == 0)
		pager(shared);
	for (i = 0; pid > 0 && i < 10000 && !__atomic_load_n(&shared[0], __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	for (i = 0; pid > 0 && i < 5000 && !running; i++) {
		running = sched_queue_in_slots(tag) > 0;
		if (!running)
			usleep(1000);
	}
	tap_ok(running && tag >= 0 && pre >= 0,
	       "the other process's page-in runs on the paging queue (ctx %d)", tag);

	/*
	 * HIGH copy jobs meanwhile, until one preempted a paging job (one
	 * that came between two of them found the engine free).
	 */
	n = 0;
	pkt_write_imm(dw, &n, VA_S, 0x600d);
	for (tries = 0; running && !ret && tries < 50; tries++) {
		t0 = now_ns();
		ret = submit(fd, high, dw, n, NULL, 0, 0, 0, &sub) ?:
		      job_wait(fd, high, sub.seqno, 10000, &error) ?: error;
		t1 = now_ns();
		during = !__atomic_load_n(&shared[1], __ATOMIC_ACQUIRE);
		if (core_memory_value("paging_preemptions") > pre || !during)
			break;
	}
	tap_diag("the HIGH job took %lld us from submit to wait's return",
		 (long long)(t1 - t0) / 1000);
	tap_ok(!ret && sp[0] == 0x600d && during &&
	       core_memory_value("paging_preemptions") > pre,
	       "a HIGH copy job preempts the paging buffer and completes while the paging goes on (%s, %u jobs, %lld preemptions)",
	       strerror(-ret), tries + 1, core_memory_value("paging_preemptions") - pre);

	ret = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) ?
	      shared[2] : -ECHILD;
	tap_errno(ret, 0, "the map, and its page-in, completes");
	tap_ok(shared[3] && core_memory_value("paging_failures") == failures,
	       "resumed where it stopped, the BO is bit-exact for the CPU and a job; no paging failed");

	/* fifo: a page-in (here a clear) runs on the kernel queue */
	jobs = core_memory_value("paging_jobs");
	clears = core_paging_jobs("clear");
	ret = sched_dbg_write("sched_policy", "fifo") ?:
	      bo_create_local(fd, MIB, &f) ?: vm_map(fd, f, VA_F, 0, MIB);
	tap_ok(!ret && core_paging_jobs("clear") == clears + 1 &&
	       core_memory_value("paging_jobs") == jobs,
	       "under fifo a page-in runs on the kernel queue, not the paging queue (%s)",
	       strerror(-ret));
	tap_errno(sched_dbg_write("sched_policy", "fair"), 0, "back to fair");

	/*
	 * The mode leaves fair while a paging job runs on the paging queue:
	 * that job goes on in fifo order, the next ones take the kernel
	 * queue, and the page-in completes whole.
	 */
	running = false;
	pid = fork();
	if (pid == 0)
		pager(shared + 16);
	for (i = 0; pid > 0 && i < 10000 && !__atomic_load_n(&shared[16], __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	for (i = 0; pid > 0 && i < 5000 && !running; i++) {
		running = sched_queue_in_slots(tag) > 0;
		if (!running)
			usleep(1000);
	}
	ret = running ? sched_dbg_write("sched_policy", "fifo") : -EIO;
	ret = ret ?: pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) ?
	      shared[18] : -ECHILD;
	tap_ok(!ret && shared[19] && core_memory_value("paging_failures") == failures,
	       "fifo written while a page-in runs on the paging queue: it completes, bit-exact (%s)",
	       strerror(-ret));
	sched_dbg_write("sched_policy", "fair");

	/* a CPU mapping holds the file open */
	munmap((void *)sp, S_SIZE);
	close(fd);
	for (i = 0; i < 100 && core_memory_value("local_bytes") != 0; i++)
		usleep(100000);
	tap_ok(core_memory_value("local_bytes") == 0,
	       "closing the files gives local memory back");
	return tap_exit_status();
}
