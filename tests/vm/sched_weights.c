// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sched_weights: contexts of one priority class share the engine by
 * measured device time, in proportion to their weights, whatever the
 * lengths and counts of their jobs.
 *
 * 1. One file, three NORMAL contexts of weights 1, 2 and 4.  The weight-1
 *    context submits long jobs (30 and 40 ms), the weight-4 one short jobs
 *    (5, 10, 15 ms): a scheduler that shared by job count, or in arrival
 *    order, would give shares far from 1/7, 2/7, 4/7.  The quantum
 *    (10 ms by default) preempts the longer jobs again and again; each
 *    context's jobs still run in submission order (their end stamps rise
 *    with their seqnos).
 * 2. Four processes, one context each, equal weights, jobs of 5, 10, 15
 *    and 20 ms: equal shares (Jain's fairness index near 1; sharing by job
 *    count would give 1:2:3:4, an index of 0.83).
 *
 * Every job is queued behind a gate before any runs, and each context has
 * more work than it can get during the measurement, so all of them are
 * backlogged from the gate's opening to the end (checked).  Shares are the
 * busy_ns (device time) each context gained in a window of about 2 s of
 * device time that starts 200 ms after the gate opened.
 *
 * Tolerance: 0.05 of the engine, absolute, per context.  busy_ns is charged
 * when a run ends, so at each edge of the window one run per context may be
 * uncharged; the policy keeps the contexts' virtual times within one run of
 * each other.  A run lasts at most the job or a quantum (10 ms) plus the
 * time the driver takes to notice its end and request the preemption,
 * 50 ms being a generous bound under emulation: 2 x 50 ms over a 2 s
 * window is 0.05.
 *
 * tern-vm: device=compute-engines=1,time-scale=200 timeout=120
 */
#include <math.h>
#include <sys/wait.h>

#include "sched_test.h"

#define VA_GATE		0x100000ull
#define VA_STAMP	0x200000ull	/* 8 KiB: 256 end stamps per context */
#define WARMUP_MS	200
#define WINDOW_MS	2000
#define TOLERANCE	0.05
#define PROCS		4

/* The end stamps of one context's jobs rise with their seqnos: run in order */
static bool in_order(const volatile uint64_t *end, unsigned int count)
{
	unsigned int i;

	for (i = 1; i < count; i++)
		if (end[i] && (!end[i - 1] || end[i] <= end[i - 1]))
			return false;
	return end[0] != 0;
}

static void weighted(int fd, uint32_t copy, uint32_t gate_bo,
		     volatile uint32_t *gate_word)
{
	static const unsigned int njobs[3] = { 35, 60, 180 };
	static const unsigned int w[3] = { 1, 2, 4 };
	static const unsigned int len1[] = { 30, 40 }, len2[] = { 10, 30 },
				  len4[] = { 5, 10, 15 };
	uint64_t b0[3], b1[3], total = 0;
	uint32_t ctx[3] = { 0, 0, 0 }, gate, stamp_bo = 0;
	bool backlog = true, close_enough = true, ordered = true;
	volatile uint64_t *end = NULL;
	uint64_t pre = 0;
	unsigned int i;
	int ret;

	*gate_word = 0;
	gate = sched_gate(fd, copy, gate_bo, VA_GATE);
	ret = core_bo(fd, 8192, VA_STAMP, &stamp_bo, (void **)&end);
	for (i = 0; i < 3 && !ret; i++)
		ret = sched_ctx(fd, DRM_TERN_PRIORITY_NORMAL, w[i], 0, &ctx[i]);
	/* 1.2 s, 1.2 s and 1.8 s of work; they get 0.31, 0.63, 1.26 s */
	ret = ret ?: sched_queue_spins(fd, ctx[0], len1, 2, njobs[0], gate,
				       stamp_bo, VA_STAMP);
	ret = ret ?: sched_queue_spins(fd, ctx[1], len2, 2, njobs[1], gate,
				       stamp_bo, VA_STAMP + 2048);
	ret = ret ?: sched_queue_spins(fd, ctx[2], len4, 3, njobs[2], gate,
				       stamp_bo, VA_STAMP + 4096);
	if (!tap_ok(!ret && gate, "weights 1, 2, 4: 275 jobs queued behind a gate"))
		return;
	*gate_word = 1;
	usleep(WARMUP_MS * 1000);
	for (i = 0; i < 3; i++)
		b0[i] = sched_busy_ns(fd, ctx[i]);
	usleep(WINDOW_MS * 1000);
	for (i = 0; i < 3; i++) {
		b1[i] = sched_busy_ns(fd, ctx[i]);
		backlog &= sched_backlogged(fd, ctx[i]);
		total += b1[i] - b0[i];
	}
	tap_ok(backlog && total, "all three stayed backlogged (%llu ms of device time)",
	       (unsigned long long)(total / 1000000));
	for (i = 0; i < 3 && total; i++) {
		double share = (double)(b1[i] - b0[i]) / (double)total;

		tap_diag("weight %u: share %.3f, expected %.3f", w[i], share,
			 w[i] / 7.0);
		close_enough &= fabs(share - w[i] / 7.0) <= TOLERANCE;
	}
	tap_ok(total && close_enough,
	       "device time went as the weights, within %.2f", TOLERANCE);

	/* the rest is cancelled; once the engine is idle, no stamp moves */
	for (i = 0; i < 3; i++) {
		pre += sched_preemptions(fd, ctx[i]);
		ctx_destroy(fd, ctx[i]);
	}
	ret = !sched_wait_jobs(SCHED_ENGINE, 0, 0, 5000);
	for (i = 0; i < 3; i++)
		ordered &= in_order(end + 256 * i, njobs[i]);
	tap_ok(!ret && pre && ordered,
	       "%llu preemptions, and each context's jobs still ran in order",
	       (unsigned long long)pre);
}

struct sample {
	uint64_t busy;
	uint32_t backlogged;
	uint32_t idx;
};

/* One process: a context with jobs of (@idx + 1) x 5 ms, ~1 s of work. */
static int child(unsigned int idx, int gate_fd, int cmd, int res)
{
	unsigned int ms = 5 * (idx + 1);
	uint32_t ctx = 0, gate;
	struct sample s = { .idx = idx };
	char c;
	int fd = tern_test_open();

	if (fd < 0 || sched_ctx(fd, DRM_TERN_PRIORITY_NORMAL, 0, 0, &ctx))
		return 2;
	gate = syncobj_new(fd);
	if (!gate || drmSyncobjImportSyncFile(fd, gate, gate_fd) ||
	    sched_queue_spins(fd, ctx, &ms, 1, 1000 / ms, gate, 0, 0))
		return 3;
	if (write(res, &s, sizeof(s)) != sizeof(s))	/* ready */
		return 4;
	while (read(cmd, &c, 1) == 1 && c == 's') {
		s.busy = sched_busy_ns(fd, ctx);
		s.backlogged = sched_backlogged(fd, ctx);
		if (write(res, &s, sizeof(s)) != sizeof(s))
			return 5;
	}
	close(fd);
	return 0;
}

static bool sample_all(int *cmd, int res, struct sample *out)
{
	struct sample s;
	int i;

	for (i = 0; i < PROCS; i++)
		if (write(cmd[i], "s", 1) != 1)
			return false;
	for (i = 0; i < PROCS; i++) {
		if (read(res, &s, sizeof(s)) != sizeof(s) || s.idx >= PROCS)
			return false;
		out[s.idx] = s;
	}
	return true;
}

static void processes(int fd, uint32_t copy, uint32_t gate_bo,
		      volatile uint32_t *gate_word)
{
	struct sample a[PROCS], b[PROCS], ready;
	int cmd[PROCS][2], res[2], wcmd[PROCS], i, status, bad = 0;
	double x[PROCS], sum = 0, sq = 0, jain = 0;
	bool ok, backlog = true, close_enough = true;
	uint32_t gate;
	int gate_fd = -1;
	pid_t pid[PROCS];

	*gate_word = 0;
	gate = sched_gate(fd, copy, gate_bo, VA_GATE);
	if (!tap_ok(gate && !drmSyncobjExportSyncFile(fd, gate, &gate_fd) &&
		    !pipe(res), "a gate for %d processes", PROCS))
		return;
	for (i = 0; i < PROCS; i++) {
		if (pipe(cmd[i]))
			return;
		pid[i] = fork();
		if (pid[i] == 0) {
			close(cmd[i][1]);
			_exit(child(i, gate_fd, cmd[i][0], res[1]));
		}
		close(cmd[i][0]);
		wcmd[i] = cmd[i][1];
	}
	for (i = 0; i < PROCS; i++)
		bad += read(res[0], &ready, sizeof(ready)) != sizeof(ready);
	ok = tap_ok(!bad, "%d processes queued their jobs behind the gate", PROCS);
	*gate_word = 1;
	if (ok) {
		usleep(WARMUP_MS * 1000);
		ok = sample_all(wcmd, res[0], a);
		usleep(WINDOW_MS * 1000);
		ok = ok && sample_all(wcmd, res[0], b);
	}
	for (i = 0; i < PROCS; i++)
		close(wcmd[i]);
	for (i = 0; i < PROCS; i++) {
		waitpid(pid[i], &status, 0);
		bad += !WIFEXITED(status) || WEXITSTATUS(status);
	}
	close(gate_fd);
	if (!tap_ok(ok && !bad, "sampled every process's busy_ns twice"))
		return;

	for (i = 0; i < PROCS; i++) {
		x[i] = (double)(b[i].busy - a[i].busy);
		sum += x[i];
		sq += x[i] * x[i];
		backlog &= b[i].backlogged;
	}
	tap_ok(backlog && sum > 0, "all stayed backlogged (%.0f ms of device time)",
	       sum / 1e6);
	if (sum > 0)
		jain = sum * sum / (PROCS * sq);
	for (i = 0; i < PROCS && sum > 0; i++) {
		tap_diag("process %d (%d ms jobs): share %.3f", i, 5 * (i + 1),
			 x[i] / sum);
		close_enough &= fabs(x[i] / sum - 1.0 / PROCS) <= TOLERANCE;
	}
	/* shares within 0.05 of 1/4 give an index of at least 0.96 */
	tap_ok(jain >= 0.96, "Jain's fairness index %.3f >= 0.96", jain);
	tap_ok(sum > 0 && close_enough, "each process got 1/%d within %.2f",
	       PROCS, TOLERANCE);
}

int main(void)
{
	uint32_t copy = 0, gate_bo = 0;
	volatile uint32_t *gate_word = NULL;
	int fd;

	fd = tern_test_open();
	if (!tap_ok(fd >= 0 &&
		    !ctx_create(fd, DRM_TERN_PRIORITY_NORMAL,
				DRM_TERN_ENGINE_CLASS_COPY, 0, &copy) &&
		    !core_bo(fd, 4096, VA_GATE, &gate_bo, (void **)&gate_word),
		    "open the device"))
		return tap_exit_status();
	weighted(fd, copy, gate_bo, gate_word);
	processes(fd, copy, gate_bo, gate_word);
	close(fd);
	tap_done();
	return tap_exit_status();
}
