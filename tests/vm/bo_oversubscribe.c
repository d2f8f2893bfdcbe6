// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bo_oversubscribe: three processes whose LOCAL working sets add up to
 * twice local memory share it through per-job residency (interface 1.7).
 *
 * Each process opens its own file and maps two LOCAL BOs of a third of
 * local memory, written by its CPU: the six do not fit, any job's set (one
 * or two of its own BOs) does.  Then, all at once, each runs rounds of jobs
 * that list one or both of its BOs and FILL a slot or COPY one between
 * them, and waits for each.  Every submit makes its BOs resident, evicting
 * the other processes' idle BOs (and its own); an EAGAIN, allowed while
 * the others' jobs hold local memory, is retried.  Checked:
 *
 * - every process exits 0 within the time limit (no deadlock: each one and
 *   the whole run have an alarm), every job completed;
 * - each process's BOs are bit-exact for its CPU at the end, against a
 *   model of what its jobs wrote;
 * - paging was needed and is all accounted: the contexts' paging_bytes_in
 *   and evictions are not 0, each context's paging_bytes_out is its
 *   evictions times the BO size (only these BOs move) and paging_bytes_in
 *   a multiple of it, and the sums over the three contexts are exactly what
 *   debugfs "memory" counted (paging bytes in and out, evictions) while
 *   the jobs ran: nothing moved that no submit caused;
 * - nothing leaked once they exited: no local memory used, the system
 *   memory of BOs back, no paging buffer failed, no retarget left to the
 *   CPU.
 *
 * tern-vm: device=local-mem-size=32M timeout=120
 */
#include <signal.h>
#include <sys/wait.h>

#include "residency_test.h"

#define PROCS		3
#define ROUNDS		10
#define VA0		0x100000000ull
#define LIMIT_S		90		/* the whole run, then everyone is killed */

struct shared {
	int ready[PROCS];
	int go;
	int setup[PROCS];		/* 0 or the -errno of the set-up */
	int jobs_ok[PROCS], eagain[PROCS];
	int first_err[PROCS];
	int data_ok[PROCS];
	int ctx_ok[PROCS];
	struct rt_paging paging[PROCS];
};

static struct shared *sh;
static uint64_t bo_size;

/* Submit (retrying EAGAIN for a while) and wait: 0 or an -errno. */
static int run_retry(int fd, uint32_t ctx, const uint32_t *dw, uint32_t n,
		     const uint32_t *bos, uint32_t nbos, int *eagain)
{
	int ret, tries = 0;

	while ((ret = rt_run(fd, ctx, dw, n, bos, nbos)) == -EAGAIN && tries++ < 100) {
		(*eagain)++;
		usleep(5000);
	}
	return ret;
}

static void child(int p)
{
	struct rt_bo x[2];
	uint32_t ctx = 0, dw[16], n, bos[2];
	int fd, j, r, ret;

	alarm(LIMIT_S + 10);
	fd = tern_test_open();
	ret = fd < 0 ? -ENODEV :
	      ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &ctx);
	for (j = 0; !ret && j < 2; j++)
		ret = rt_bo_new(fd, j ? "X1" : "X0", DRM_TERN_BO_PLACEMENT_LOCAL, bo_size,
				0x100u * (p + 1) + j, true, &x[j]) ?:
		      rt_bo_map(fd, &x[j], VA0 + j * VA0);
	sh->setup[p] = ret;
	__atomic_store_n(&sh->ready[p], 1, __ATOMIC_RELEASE);
	if (ret)
		_exit(1);
	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE))
		usleep(1000);

	bos[0] = x[0].handle;
	bos[1] = x[1].handle;
	for (r = 0; r < ROUNDS; r++) {
		uint32_t k = (r * 7 + p * 3) % x[0].nslots, k2 = (k + 1) % x[0].nslots;
		uint32_t v = 0x40000000u | p << 20 | r << 8;
		int op = (r + p) % 3;

		n = 0;
		if (op == 0) {		/* one BO: a fill */
			j = r % 2;
			rt_pkt_fill_slot(dw, &n, &x[j], k, v | j);
			ret = run_retry(fd, ctx, dw, n, &bos[j], 1, &sh->eagain[p]);
			if (!ret)
				rt_model_fill(&x[j], k, v | j);
		} else if (op == 1) {	/* both: X0 to X1, then a fill of X0 */
			rt_pkt_copy_slot(dw, &n, &x[0], &x[1], k);
			rt_pkt_fill_slot(dw, &n, &x[0], k2, v | 2);
			ret = run_retry(fd, ctx, dw, n, bos, 2, &sh->eagain[p]);
			if (!ret) {
				x[1].slot[k] = x[0].slot[k];
				rt_model_fill(&x[0], k2, v | 2);
			}
		} else {		/* both, the other way */
			rt_pkt_copy_slot(dw, &n, &x[1], &x[0], k);
			ret = run_retry(fd, ctx, dw, n, bos, 2, &sh->eagain[p]);
			if (!ret)
				x[0].slot[k] = x[1].slot[k];
		}
		if (ret && !sh->first_err[p])
			sh->first_err[p] = ret;
		sh->jobs_ok[p] += !ret;
	}
	sh->ctx_ok[p] = rt_paging(fd, ctx, &sh->paging[p]) &&
			sh->paging[p].state == DRM_TERN_CONTEXT_ACTIVE;
	sh->data_ok[p] = rt_check(&x[0]) && rt_check(&x[1]);
	rt_bo_free(fd, &x[0]);
	rt_bo_free(fd, &x[1]);
	close(fd);
	_exit(sh->jobs_ok[p] == ROUNDS && sh->data_ok[p] && sh->ctx_ok[p] ? 0 : 2);
}

int main(void)
{
	struct rt_counts start, c0, c1;
	struct drm_tern_get_info info;
	uint64_t sum_in = 0, sum_out = 0, sum_ev = 0;
	int i, fd, ready, exited = 0, status[PROCS], jobs = 0, eagain = 0;
	bool ok, acct = true, data = true;
	pid_t pid[PROCS];
	int64_t t0, t1;
	long sys0;

	tap_plan(12);
	fd = tern_test_open();
	ok = fd >= 0 && !core_get_info(fd, &info);
	if (fd >= 0)
		close(fd);
	if (!tap_ok(ok && info.driver_version >= RT_INTERFACE_1_7 &&
		    info.local_mem_size >= 16 * MIB,
		    "interface 1.7, %llu MiB of local memory",
		    ok ? (unsigned long long)(info.local_mem_size / MIB) : 0))
		return tap_exit_status();
	/* a third of local memory each: six of them, twice local memory */
	bo_size = (info.local_mem_size / 3 + RT_SLOT - 1) / RT_SLOT * RT_SLOT;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return tap_exit_status();
	memset(sh, 0, sizeof(*sh));
	rt_local_settled(0, 10000);
	sys0 = tern_system_quiet_kb();
	ok = rt_counts(&start);
	tap_ok(ok && start.local == 0 && sys0 >= 0 &&
	       PROCS * 2 * bo_size >= 2 * info.local_mem_size && 2 * bo_size <= info.local_mem_size,
	       "%d processes with two %llu KiB LOCAL BOs each: %llu MiB in all, twice local memory; one job's set fits",
	       PROCS, (unsigned long long)(bo_size / KIB),
	       (unsigned long long)(PROCS * 2 * bo_size / MIB));

	for (i = 0; i < PROCS; i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			child(i);
	}
	for (ready = 0, t0 = now_ns(); ready < PROCS && now_ns() - t0 < 30000000000ll;) {
		for (ready = 0, i = 0; i < PROCS; i++)
			ready += pid[i] > 0 && __atomic_load_n(&sh->ready[i], __ATOMIC_ACQUIRE);
		if (ready < PROCS)
			usleep(10000);
	}
	for (ok = ready == PROCS, i = 0; i < PROCS; i++)
		ok = ok && !sh->setup[i];
	tap_ok(ok, "each process opened its file and mapped its BOs (%d ready; %s, %s, %s)",
	       ready, strerror(-sh->setup[0]), strerror(-sh->setup[1]),
	       strerror(-sh->setup[2]));

	/* from here on only the jobs' residency moves BOs */
	rt_counts(&c0);
	__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	t0 = now_ns();
	for (i = 0; i < PROCS; i++)
		status[i] = -1;
	while (exited < PROCS && now_ns() - t0 < LIMIT_S * 1000000000ll) {
		int st;
		pid_t w = waitpid(-1, &st, WNOHANG);

		if (w <= 0) {
			usleep(20000);
			continue;
		}
		for (i = 0; i < PROCS; i++)
			if (w == pid[i]) {
				status[i] = st;
				exited++;
			}
	}
	t1 = now_ns();
	for (i = 0; i < PROCS; i++)
		if (status[i] == -1 && pid[i] > 0) {
			kill(pid[i], SIGKILL);
			waitpid(pid[i], &status[i], 0);
			tap_diag("process %d still ran after %d s: killed", i, LIMIT_S);
		}
	for (ok = exited == PROCS, i = 0; i < PROCS; i++) {
		ok = ok && WIFEXITED(status[i]) && !WEXITSTATUS(status[i]);
		jobs += sh->jobs_ok[i];
		eagain += sh->eagain[i];
		if (sh->first_err[i])
			tap_diag("process %d: a job failed: %s", i, strerror(-sh->first_err[i]));
	}
	tap_ok(ok, "all %d exited 0, in %lld ms: no deadlock (statuses %#x %#x %#x)", PROCS,
	       (long long)(t1 - t0) / 1000000, status[0], status[1], status[2]);
	tap_ok(jobs == PROCS * ROUNDS,
	       "every job ran: %d of %d, listing one or two BOs each (EAGAIN retried %d times)",
	       jobs, PROCS * ROUNDS, eagain);
	for (i = 0; i < PROCS; i++)
		data = data && sh->data_ok[i];
	tap_ok(data, "each process's BOs are bit-exact for its CPU after the rounds (%d %d %d)",
	       sh->data_ok[0], sh->data_ok[1], sh->data_ok[2]);

	rt_counts(&c1);
	for (i = 0; i < PROCS; i++) {
		const struct rt_paging *pg = &sh->paging[i];

		sum_in += pg->in;
		sum_out += pg->out;
		sum_ev += pg->evictions;
		tap_diag("process %d: %llu MiB paged in, %llu MiB out, %llu evictions, %llu ms of paging",
			 i, (unsigned long long)(pg->in / MIB), (unsigned long long)(pg->out / MIB),
			 (unsigned long long)pg->evictions, (unsigned long long)(pg->ns / 1000000));
		acct = acct && sh->ctx_ok[i] && pg->out == pg->evictions * bo_size &&
		       pg->in % bo_size == 0 && (pg->ns > 0) == (pg->in + pg->out > 0);
	}
	tap_ok(sum_in > 0 && sum_ev > 0,
	       "the jobs needed paging: %llu MiB in, %llu evictions over the three contexts",
	       (unsigned long long)(sum_in / MIB), (unsigned long long)sum_ev);
	tap_ok(acct,
	       "each context's paging_bytes_out is its evictions times the BO size, paging_bytes_in a multiple of it, paging_ns set when it paged");
	tap_ok(c1.in_bytes + c1.clear_bytes - c0.in_bytes - c0.clear_bytes == (long long)sum_in &&
	       c1.out_bytes - c0.out_bytes == (long long)sum_out &&
	       c1.evictions - c0.evictions == (long long)sum_ev,
	       "debugfs counted exactly the contexts' paging while the jobs ran: %lld MiB in, %lld MiB out, %lld evictions (contexts: %llu, %llu, %llu)",
	       (c1.in_bytes + c1.clear_bytes - c0.in_bytes - c0.clear_bytes) / (long long)MIB,
	       (c1.out_bytes - c0.out_bytes) / (long long)MIB, c1.evictions - c0.evictions,
	       (unsigned long long)(sum_in / MIB), (unsigned long long)(sum_out / MIB),
	       (unsigned long long)sum_ev);

	c1.local = rt_local_settled(0, 10000);
	tap_ok(c1.local == 0, "once they exited, no local memory is used (%lld)", c1.local);
	tap_ok(tern_system_settled_kb(sys0) <= sys0,
	       "the system memory of BOs is back (%ld kB, was %ld kB)", tern_system_kb(), sys0);
	rt_counts(&c1);
	tap_ok(c1.failures == start.failures && c1.retarget_cpu == start.retarget_cpu,
	       "no paging buffer failed, no retarget was left to the CPU");
	return tap_exit_status();
}
