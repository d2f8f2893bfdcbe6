// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_concurrent: work from several processes and contexts runs on all
 * compute engines at once; each engine's two slots are kept full while
 * work is ready (the engines are busy almost all of the time the work
 * takes); every job's result is in memory and each context's jobs
 * completed in order.
 *
 * All jobs are queued behind a gate (a job on the copy engine) before any
 * starts.  While they run, debugfs is sampled: whenever an engine has jobs
 * waiting in its queue, both of its slots must be occupied.  The engines'
 * busy time is also compared with the time from the gate's opening to the
 * last completion (loosely: the device model shares the host's CPUs).
 *
 * tern-vm: timeout=120
 */
#include <sys/wait.h>

#include "core_test.h"

#define VA	0x100000ull
#define PROCS	4
#define JOBS	60	/* per context, two contexts per process */
#define SPIN_US	2000

/*
 * One sample of debugfs "engines": per engine, jobs in slots and queued.
 * Returns the number of engines with queued work and both slots used in
 * *@full and with queued work but a free slot in *@gap.
 */
static void sample_slots(int *full, int *gap)
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
		char *p = strstr(line, ", ");

		if (strncmp(line, "engine ", 7) || !p)
			continue;
		p = strrchr(line, ':');
		p = p ? strchr(p, ',') : NULL;
		if (!p || sscanf(p, ", %u in slots, %u queued", &in_slots,
				 &queued) != 2)
			continue;
		if (queued && in_slots == 2)
			(*full)++;
		else if (queued)
			(*gap)++;
	}
	fclose(f);
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

static int child(int gate_fd, int done_pipe)
{
	uint32_t dw[16], n, ctx[2] = { 0, 0 }, bo = 0, so[2], gate = 0, j, c;
	volatile uint32_t *mem;
	int64_t end;
	int fd = tern_test_open();

	if (fd < 0 || ctx_create(fd, 1, 0, 0, &ctx[0]) ||
	    ctx_create(fd, 1, 0, 0, &ctx[1]) ||
	    core_bo(fd, 4096, VA, &bo, (void **)&mem))
		return 2;
	memset((void *)mem, 0, 4096);
	so[0] = syncobj_new(fd);
	so[1] = syncobj_new(fd);
	gate = syncobj_new(fd);
	if (drmSyncobjImportSyncFile(fd, gate, gate_fd))
		return 3;
	for (j = 0; j < JOBS; j++) {
		for (c = 0; c < 2; c++) {
			n = 0;
			pkt_spin(dw, &n, SPIN_US);
			/* the context's running counter, and this job's own word */
			pkt_write_imm(dw, &n, VA + 4 * c, j + 1);
			pkt_write_imm(dw, &n, VA + 64 + 4 * (c * JOBS + j),
				      0x1000 * (c + 1) + j);
			if (submit(fd, ctx[c], dw, n, &bo, 1, j ? 0 : gate,
				   so[c], NULL))
				return 4;
		}
	}
	if (syncobj_wait(fd, so[0], 20000) || syncobj_wait(fd, so[1], 20000))
		return 5;
	end = now_ns();
	if (write(done_pipe, &end, sizeof(end)) != sizeof(end))
		return 8;
	if (mem[0] != JOBS || mem[1] != JOBS)
		return 6;
	for (c = 0; c < 2; c++)
		for (j = 0; j < JOBS; j++)
			if (mem[16 + c * JOBS + j] != 0x1000 * (c + 1) + j)
				return 7;
	return 0;
}

int main(void)
{
	unsigned long long b0[8], b1[8];
	struct drm_tern_get_info info;
	uint32_t dw[16], n = 0, copy = 0, bo = 0, gate;
	int fd, done[2], gate_fd = -1, status, i, ne, bad = 0, full = 0, gap = 0;
	unsigned int e;
	pid_t pid[PROCS];
	int64_t t_open, end, last = 0, wall;
	double util, worst = 1.0;
	void *mem;

	tap_plan(6);
	fd = tern_test_open();
	if (!tap_ok(fd >= 0 && !core_get_info(fd, &info) && !pipe(done) &&
		    !ctx_create(fd, 1, DRM_TERN_ENGINE_CLASS_COPY, 0, &copy) &&
		    !core_bo(fd, 4096, VA, &bo, &mem),
		    "open the device"))
		return tap_exit_status();

	/* the gate: 1 s on the copy engine */
	gate = syncobj_new(fd);
	pkt_spin(dw, &n, 1000000);
	submit(fd, copy, dw, n, &bo, 1, 0, gate, NULL);
	drmSyncobjExportSyncFile(fd, gate, &gate_fd);
	ne = engines_busy(b0, 8);
	for (i = 0; i < PROCS; i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			_exit(child(gate_fd, done[1]));
	}
	if (syncobj_wait(fd, gate, 5000))
		tap_diag("the gate did not open");
	t_open = now_ns();
	for (i = 0; i < PROCS;) {
		pid_t p = waitpid(-1, &status, WNOHANG);

		if (p <= 0) {
			sample_slots(&full, &gap);
			usleep(2000);
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
	tap_ok(!bad, "%d processes x 2 contexts x %d jobs: results in memory, in order",
	       PROCS, JOBS);
	tap_ok(ne == (int)info.engine_count && engines_busy(b1, 8) == ne,
	       "read the engines' busy time");
	for (e = 0; e < info.compute_engine_count; e++) {
		util = (double)(b1[e] - b0[e]) / (double)wall;
		tap_diag("engine %u: busy %.0f%% of %lld ms", e, util * 100,
			 (long long)(wall / 1000000));
		if (util < worst)
			worst = util;
	}
	tap_ok(info.compute_engine_count >= 2 && worst > 0.0,
	       "every compute engine worked");
	tap_ok(full > 10 && !gap,
	       "with jobs queued, both slots were always in use (%d samples, %d with a free slot)",
	       full, gap);
	tap_ok(worst > 0.75, "the engines were busy %.0f%% or more of the time",
	       worst * 100);

	close(fd);
	return tap_exit_status();
}
