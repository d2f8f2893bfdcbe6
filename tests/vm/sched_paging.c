// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sched_paging: in the fair policy, paging buffers are preemptible NORMAL
 * work of the copy engine.  While another process pages an 8 MiB LOCAL BO in (about 1.7 s
 * of PHYS_COPY at time-scale 200, in jobs of 4 MiB), a HIGH copy job
 * arrives: it preempts the paging buffer running (debugfs "memory":
 * paging_preemptions) and completes while the paging goes on, instead of
 * waiting for it; the paging then resumes where it stopped, and the BO is
 * bit-exact for the CPU (through BAR2) and for jobs.  Under fifo, which
 * never preempts for priority, paging runs on the kernel queue instead:
 * the paging queue gets no job.  The policy is restored on every exit
 * path.
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

/* Whether the context @tag has a job in a slot (debugfs "queues"). */
static bool in_a_slot(int tag)
{
	static char buf[1 << 16];
	unsigned int t, slots;
	char *p;

	if (sched_dbg_read("queues", buf, sizeof(buf)) <= 0)
		return false;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (sscanf(p, " ctx %u prio %*u weight %*u queued %*u vtime %*u run_ns %*u share_permille %*u in_slots %u",
			   &t, &slots) == 2 && (int)t == tag)
			return slots > 0;
	return false;
}

int main(void)
{
	volatile uint32_t *lp, *sp = NULL;
	volatile int *shared;
	uint32_t high = 0, l = 0, s = 0, f = 0, dw[16], n;
	long long pre, failures, jobs, clears;
	int fd, tag, ret, status, error = 0;
	bool running = false, ok;
	struct drm_tern_submit sub;
	uint64_t got;
	size_t i;
	pid_t pid;

	tap_plan(10);
	fd = tern_test_open();
	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!tap_ok(fd >= 0 && shared != MAP_FAILED && sched_knobs_save(LIMIT_S) &&
		    !ctx_create(fd, DRM_TERN_PRIORITY_HIGH,
				DRM_TERN_ENGINE_CLASS_COPY, 0, &high) &&
		    !core_bo(fd, S_SIZE, VA_S, &s, (void **)&sp),
		    "open the device, a HIGH copy context, a system BO"))
		return tap_exit_status();
	tag = (int)core_memory_value("paging_queue_ctx");
	pre = core_memory_value("paging_preemptions");
	failures = core_memory_value("paging_failures");

	/* L: written by the CPU in system memory */
	ret = bo_create_local(fd, L_SIZE, &l);
	lp = ret ? NULL : bo_mmap(fd, l, &got);
	for (i = 0; lp && i < L_SIZE / 4; i++)
		lp[i] = pattern(i);
	if (!tap_ok(lp && tag >= 0 && pre >= 0,
		    "an 8 MiB LOCAL BO written by the CPU; the paging queue is ctx %d",
		    tag))
		return tap_exit_status();

	/* another process maps it: a page-in of 8 MiB */
	shared[0] = 0;
	shared[1] = 0;
	pid = fork();
	if (pid == 0) {
		shared[1] = vm_map(fd, l, VA_L, 0, L_SIZE);
		__atomic_store_n(&shared[0], 1, __ATOMIC_RELEASE);
		_exit(0);
	}
	for (i = 0; pid > 0 && i < 5000 && !running; i++) {
		running = in_a_slot(tag);
		if (!running)
			usleep(1000);
	}

	/* a HIGH copy job meanwhile */
	n = 0;
	pkt_write_imm(dw, &n, VA_S, 0x600d);
	ret = running ? submit(fd, high, dw, n, NULL, 0, 0, 0, &sub) : -EIO;
	ret = ret ?: job_wait(fd, high, sub.seqno, 10000, &error);
	ok = !__atomic_load_n(&shared[0], __ATOMIC_ACQUIRE);
	tap_ok(running && !ret && !error && sp[0] == 0x600d && ok,
	       "a HIGH copy job completes while the paging buffer still runs (%s, paging %s)",
	       strerror(-ret), ok ? "still running" : "done");

	ret = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) ?
	      shared[1] : -ECHILD;
	tap_errno(ret, 0, "the map, and its page-in, completes");
	tap_ok(core_memory_value("paging_preemptions") > pre,
	       "the HIGH job preempted the paging buffer (%lld preemptions)",
	       core_memory_value("paging_preemptions") - pre);

	/* resumed where it stopped: the data is whole */
	for (ok = true, i = 0; ok && i < L_SIZE / 4; i++)
		if (lp[i] != pattern(i)) {
			tap_diag("word %zu: 0x%08x, want 0x%08x", i, lp[i], pattern(i));
			ok = false;
		}
	tap_ok(ok && core_memory_value("paging_failures") == failures,
	       "the CPU reads L in local memory, bit-exact; no paging failed");
	n = 0;
	pkt_copy(dw, &n, VA_L + L_SIZE - S_SIZE, VA_S, S_SIZE);
	ret = core_run(fd, high, dw, n);
	for (ok = !ret, i = 0; ok && i < S_SIZE / 4; i++)
		ok = sp[i] == pattern((L_SIZE - S_SIZE) / 4 + i);
	tap_ok(ok, "a job copies L's last 128 KiB out of local memory, bit-exact (%s)",
	       strerror(-ret));

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

	/* a CPU mapping holds the file open */
	munmap((void *)lp, L_SIZE);
	munmap((void *)sp, S_SIZE);
	close(fd);
	for (i = 0; i < 100 && core_memory_value("local_bytes") != 0; i++)
		usleep(100000);
	tap_ok(core_memory_value("local_bytes") == 0,
	       "closing the file gives local memory back");
	return tap_exit_status();
}
