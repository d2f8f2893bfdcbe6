// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_concurrent: work from several processes and contexts runs on all
 * compute engines at once; each engine's two slots are kept full while
 * work is ready (the engines are busy almost all of the time the work
 * takes); every job's result is in memory and each context's jobs
 * completed in order.
 *
 * All jobs are queued behind a gate and the gate is opened once every
 * process has submitted all of its jobs, so that how fast the guest
 * submits does not matter (struct core_gate: WAIT_MEMs on the copy
 * engine).  While they run, debugfs is sampled: whenever an engine has jobs
 * waiting in its queue, both of its slots must be occupied.  The engines'
 * busy time is also compared with the time from the gate's opening to the
 * last completion.
 *
 * A job's length is scaled with what the driver costs per job in this
 * guest (measured first: jobs that do nearly nothing, queued behind a
 * gate, run back to back), and at least 5 ms: the refill of a slot must
 * come within the length of the job in the other, and a host busy with
 * other guests can hold the guest's vCPUs for a few ms.  On a debug kernel
 * (KASAN, lockdep) the jobs get longer instead of the engines idle.
 *
 * tern-vm: timeout=120
 */
#include <poll.h>
#include <sys/wait.h>

#include "core_test.h"

#define VA		0x100000ull
#define PROCS		4
#define JOBS		60	/* per context, two contexts per process */
#define SPIN_MIN_US	5000
#define SPIN_MAX_US	50000
#define COST_JOBS	32

/* a TIMESTAMP packet: the device clock (ns) to the 8 bytes at @va */
static void pkt_timestamp(uint32_t *dw, uint32_t *n, uint64_t va)
{
	dw[(*n)++] = TERN_PKT_HEADER(TERN_OP_TIMESTAMP, TERN_PKT_DWORDS_TIMESTAMP);
	dw[(*n)++] = (uint32_t)va;
	dw[(*n)++] = (uint32_t)(va >> 32);
}

/*
 * What the driver costs per job here, in ns (or -1): COST_JOBS jobs that
 * do nearly nothing, on one context, behind a gate (on the word at VA + 4),
 * run back to back once it opens; the first and the last write the device
 * clock, and the time between, per job, is what feeding one costs.
 */
static int64_t driver_ns_per_job(int fd, uint32_t copy, uint32_t bo,
				 volatile uint32_t *mem)
{
	uint32_t dw[16], n, ctx, gate = syncobj_new(fd), last = syncobj_new(fd), i;
	volatile uint64_t *clock = (volatile uint64_t *)(mem + 4);	/* VA + 16 */
	struct core_gate g;
	int ret;

	if (ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0,
		       &ctx))
		return -1;
	mem[2] = 0;
	clock[0] = 0;
	clock[1] = 0;
	ret = core_gate_init(&g, fd, copy, bo, VA + 4, &mem[1], gate);
	for (i = 0; !ret && i < COST_JOBS; i++) {
		core_gate_hold(&g);
		n = 0;
		if (i == 0)
			pkt_timestamp(dw, &n, VA + 16);
		pkt_write_imm(dw, &n, VA + 8, i + 1);
		if (i == COST_JOBS - 1)
			pkt_timestamp(dw, &n, VA + 24);
		ret = submit(fd, ctx, dw, n, &bo, 1, i ? 0 : gate, last, NULL);
	}
	core_gate_open(&g);
	if (ret || syncobj_wait(fd, last, 60000) || mem[2] != COST_JOBS ||
	    !clock[0] || clock[1] <= clock[0])
		return -1;
	ctx_destroy(fd, ctx);
	return (int64_t)(clock[1] - clock[0]) / (COST_JOBS - 1);
}

/*
 * One sample of debugfs "engines": per engine, jobs in slots and queued.
 * Counts the engines with queued work and both slots used in *@full and
 * with queued work but a free slot in *@gap.  An engine that is between
 * a preemption request and both slots reporting back programs nothing on
 * purpose (and one that is resetting or lent to raw_nop neither): those
 * samples go to *@busy_else.
 */
static void sample_slots(int *full, int *gap, int *busy_else)
{
	char path[512], line[512];
	unsigned int in_slots, queued;
	FILE *f;

	if (!core_debugfs_path("engines", path, sizeof(path)))
		return;
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *p;

		if (strncmp(line, "engine ", 7))
			continue;
		/* "engine N: compute[, state...], S in slots, Q queued, contexts C" */
		p = strstr(line, " in slots, ");
		while (p && p > line && p[-1] != ' ')
			p--;
		if (!p || sscanf(p, "%u in slots, %u queued", &in_slots, &queued) != 2)
			continue;
		if (strstr(line, ", preempting") || strstr(line, ", resetting") ||
		    strstr(line, ", lent"))
			(*busy_else) += !!queued;
		else if (queued && in_slots == 2)
			(*full)++;
		else if (queued)
			(*gap)++;
	}
	fclose(f);
}

/* Print the preemption counters of debugfs "engines" (the fair policy). */
static void show_preemptions(void)
{
	char path[512], line[512];
	FILE *f;

	if (!core_debugfs_path("engines", path, sizeof(path)))
		return;
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "engine ", 7) || strstr(line, "preempt requested"))
			tap_diag("%.*s", (int)strcspn(line, "\n"), line);
	if (f)
		fclose(f);
}

/* Read (@set < 0) or set debugfs quantum_us; -1 where there is none. */
static long quantum_us(long set)
{
	char path[512], buf[32];
	long v = -1;
	FILE *f;

	if (!core_debugfs_path("quantum_us", path, sizeof(path)))
		return -1;
	if (set >= 0) {
		snprintf(buf, sizeof(buf), "%ld", set);
		return core_write_file(path, buf) ? set : -1;
	}
	f = fopen(path, "r");
	if (f && fscanf(f, "%ld", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

/* busy_ns of every engine, from debugfs */
static int engines_busy(unsigned long long *busy, int max)
{
	char path[512], line[512];
	int n = 0;
	FILE *f;

	if (!core_debugfs_path("engines", path, sizeof(path)))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "busy_ns ");

		if (p)
			busy[n++] = strtoull(p + 8, NULL, 10);
	}
	fclose(f);
	return n;
}

struct child_args {
	int gate_fd;		/* the gate syncobj, shared as a syncobj fd */
	int report;		/* to the parent: 'r' set up, 's' submitted, 'x' failed */
	int go;			/* from the parent: the gate job is submitted */
	int done;		/* to the parent: time of the last completion */
	uint32_t spin_us;
	int wait_ms;
};

static int child(const struct child_args *a)
{
	uint32_t dw[16], n, ctx[2] = { 0, 0 }, bo = 0, so[2], gate = 0, j, c;
	volatile uint32_t *mem;
	int64_t end;
	char ch;
	int fd = tern_test_open();

	if (fd < 0 || ctx_create(fd, 1, 0, 0, &ctx[0]) ||
	    ctx_create(fd, 1, 0, 0, &ctx[1]) ||
	    core_bo(fd, 4096, VA, &bo, (void **)&mem))
		return 2;
	memset((void *)mem, 0, 4096);
	so[0] = syncobj_new(fd);
	so[1] = syncobj_new(fd);
	if (drmSyncobjFDToHandle(fd, a->gate_fd, &gate))
		return 3;
	if (write(a->report, "r", 1) != 1 || read(a->go, &ch, 1) != 1)
		return 9;
	for (j = 0; j < JOBS; j++) {
		for (c = 0; c < 2; c++) {
			n = 0;
			pkt_spin(dw, &n, a->spin_us);
			/* the context's running counter, and this job's own word */
			pkt_write_imm(dw, &n, VA + 4 * c, j + 1);
			pkt_write_imm(dw, &n, VA + 64 + 4 * (c * JOBS + j),
				      0x1000 * (c + 1) + j);
			if (submit(fd, ctx[c], dw, n, &bo, 1, j ? 0 : gate,
				   so[c], NULL))
				return 4;
		}
	}
	if (write(a->report, "s", 1) != 1)
		return 9;
	if (syncobj_wait(fd, so[0], a->wait_ms) || syncobj_wait(fd, so[1], a->wait_ms))
		return 5;
	end = now_ns();
	if (write(a->done, &end, sizeof(end)) != sizeof(end))
		return 8;
	if (mem[0] != JOBS || mem[1] != JOBS)
		return 6;
	for (c = 0; c < 2; c++)
		for (j = 0; j < JOBS; j++)
			if (mem[16 + c * JOBS + j] != 0x1000 * (c + 1) + j)
				return 7;
	return 0;
}

/* Run the child; a failure before the gate opened is reported as 'x'. */
static int child_main(const struct child_args *a)
{
	int ret = child(a);

	if (ret && write(a->report, "x", 1) != 1)
		ret = 10;
	return ret;
}

/*
 * Read one answer ('r', 's' or 'x') from each of @n children: how many
 * said @want.  Meanwhile @gate (if any) is kept closed.
 */
static int answers(int fd, int n, char want, struct core_gate *gate)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int got = 0, ret;
	char ch;

	while (n > 0) {
		int64_t left = gate ? (gate->tick - now_ns()) / 1000000 : -1;

		ret = poll(&pfd, 1, left < 0 ? (gate ? 0 : -1) : (int)left);
		if (gate)
			core_gate_hold(gate);
		if (ret == 0)
			continue;
		if (ret < 0 || read(fd, &ch, 1) != 1)
			break;
		got += ch == want;
		n--;
	}
	return got;
}

int main(void)
{
	unsigned long long b0[8], b1[8];
	struct drm_tern_get_info info;
	struct child_args a = { .gate_fd = -1 };
	struct core_gate g;
	uint32_t copy = 0, bo = 0, gate;
	int fd, report[2], go[2], done[2], status, i, ne, bad = 0, full = 0, gap = 0;
	int ready, queued, other = 0;
	long q0, q = -1;
	unsigned int e;
	pid_t pid[PROCS];
	int64_t cost, t_go, t_open, end, last = 0, wall;
	double util, worst = 1.0;
	volatile uint32_t *mem;

	tap_plan(7);
	fd = tern_test_open();
	if (!tap_ok(fd >= 0 && !core_get_info(fd, &info) && !pipe(report) && !pipe(go) &&
		    !pipe(done) && !ctx_create(fd, 1, DRM_TERN_ENGINE_CLASS_COPY, 0, &copy) &&
		    !core_bo(fd, 4096, VA, &bo, (void **)&mem),
		    "open the device"))
		return tap_exit_status();
	memset((void *)mem, 0, 4096);

	cost = driver_ns_per_job(fd, copy, bo, mem);
	a.spin_us = cost > 0 ? cost / 1000 * 10 : 0;
	a.spin_us = a.spin_us < SPIN_MIN_US ? SPIN_MIN_US :
		    a.spin_us > SPIN_MAX_US ? SPIN_MAX_US : a.spin_us;
	/* the work of one engine, four times over */
	a.wait_ms = 30000 + 4 * PROCS * 2 * JOBS * (a.spin_us / 1000) /
			    (info.compute_engine_count ? info.compute_engine_count : 1);
	/*
	 * The fair policy preempts a job after its quantum while other
	 * contexts wait, as they do here, and each preemption leaves the
	 * engine idle until the driver has seen both slots report back.
	 * Where the jobs are made longer, so is the quantum (two jobs): this
	 * test is about feeding the slots, the sched_* tests about slicing.
	 */
	q0 = quantum_us(-1);
	if (q0 > 0 && q0 < 2 * (long)a.spin_us)
		q = quantum_us(2 * (long)a.spin_us);
	tap_diag("the driver costs %lld us per job here: jobs of %u us, quantum %ld us",
		 (long long)cost / 1000, a.spin_us, q > 0 ? q : q0);

	/* the gate: a syncobj the children import, its fence a WAIT_MEM job */
	gate = syncobj_new(fd);
	if (drmSyncobjHandleToFD(fd, gate, &a.gate_fd))
		tap_diag("cannot share the gate syncobj: %s", strerror(errno));
	a.report = report[1];
	a.go = go[0];
	a.done = done[1];
	for (i = 0; i < PROCS; i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			_exit(child_main(&a));
	}
	close(report[1]);
	close(go[0]);
	close(done[1]);
	ready = answers(report[0], PROCS, 'r', NULL);
	if (core_gate_init(&g, fd, copy, bo, VA, &mem[0], gate))
		tap_diag("cannot submit the gate");
	t_go = now_ns();
	for (i = 0; i < ready; i++)
		if (write(go[1], "g", 1) != 1)
			break;
	queued = answers(report[0], ready, 's', &g);
	tap_ok(cost > 0 && cost / 1000 < SPIN_MAX_US && ready == PROCS && queued == PROCS &&
	       syncobj_wait(fd, gate, 0) == -ETIME,
	       "%d processes queued %d jobs behind the gate in %lld ms (%d set up, %d queued, "
	       "%u of %d WAIT_MEMs passed)", PROCS, PROCS * 2 * JOBS,
	       (long long)(now_ns() - t_go) / 1000000, ready, queued, mem[0],
	       CORE_GATE_STEPS);

	/* the compute engines are idle until the gate opens */
	ne = engines_busy(b0, 8);
	core_gate_open(&g);
	if (syncobj_wait(fd, gate, 60000))
		tap_diag("the gate did not open");
	t_open = now_ns();
	for (i = 0; i < PROCS;) {
		pid_t p = waitpid(-1, &status, WNOHANG);

		if (p <= 0) {
			sample_slots(&full, &gap, &other);
			usleep(a.spin_us / 2);
			continue;
		}
		i++;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
		else if (read(done[0], &end, sizeof(end)) == sizeof(end) &&
			 end > last)
			last = end;
	}
	wall = last - t_open;
	if (q > 0)
		quantum_us(q0);
	show_preemptions();
	if (other)
		tap_diag("%d samples of an engine with work queued while it was preempting, "
			 "resetting or lent (not counted)", other);
	tap_ok(!bad, "%d processes x 2 contexts x %d jobs: results in memory, in order",
	       PROCS, JOBS);
	tap_ok(ne == (int)info.engine_count && engines_busy(b1, 8) == ne,
	       "read the engines' busy time");
	for (e = 0; e < info.compute_engine_count && wall > 0; e++) {
		util = (double)(b1[e] - b0[e]) / (double)wall;
		tap_diag("engine %u: busy %.0f%% of %lld ms", e, util * 100,
			 (long long)(wall / 1000000));
		if (util < worst)
			worst = util;
	}
	tap_ok(info.compute_engine_count >= 2 && wall > 0 && worst > 0.0,
	       "every compute engine worked");
	tap_ok(full > 10 && !gap,
	       "with jobs queued, both slots were always in use (%d samples, %d with a free slot)",
	       full, gap);
	tap_ok(wall > 0 && worst > 0.75, "the engines were busy %.0f%% or more of the time",
	       worst * 100);

	close(fd);
	return tap_exit_status();
}
