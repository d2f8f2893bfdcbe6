// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * trace_faults: what tern-trace records when things go wrong: a job that
 * faults (a write to an unmapped address) shows as a fault with its address
 * and a run that ended FAULTED, its fence signalled with -EIO; a job that
 * hangs (injected) shows as an engine reset naming it, its run ended by the
 * reset, its fence signalled with -ETIMEDOUT; the innocent job that waited
 * in the second slot did not run then, and completes after the reset.
 *
 * tern-vm: timeout=60
 */
#include <sys/wait.h>

#include "core_test.h"

#define JSON	"/tmp/trace_faults.json"
#define VA	0x100000ull

/* The number after "\"key\":" in @line, or @def. */
static double num(const char *line, const char *key, double def)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(line, pat);
	return p ? strtod(p + strlen(pat), NULL) : def;
}

/* Does the file at @path start with "1"? */
static bool file_is_one(const char *path)
{
	FILE *f = fopen(path, "r");
	char c = 0;
	bool one;

	one = f && fread(&c, 1, 1, f) == 1 && c == '1';
	if (f)
		fclose(f);
	return one;
}

/*
 * Wait until tern-trace records: its tracefs instance exists, with the tern
 * events enabled and tracing on (a slow guest, the debug kernel, takes more than a second to get
 * there), at most @ms.
 */
static bool recording_started(int ms)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;
	const char *root;

	do {
		struct dirent *de;
		bool on = false;
		DIR *d;

		root = "/sys/kernel/tracing/instances";
		d = opendir(root);
		if (!d) {
			root = "/sys/kernel/debug/tracing/instances";
			d = opendir(root);
		}

		while (d && !on && (de = readdir(d))) {
			char path[600];

			if (strncmp(de->d_name, "tern-trace-", 11))
				continue;
			/* a new instance traces at once: the events come after */
			snprintf(path, sizeof(path), "%s/%s/events/tern/enable",
				 root, de->d_name);
			on = file_is_one(path);
			snprintf(path, sizeof(path), "%s/%s/tracing_on", root,
				 de->d_name);
			on = on && file_is_one(path);
		}
		if (d)
			closedir(d);
		if (on)
			return true;
		usleep(20000);
	} while (now_ns() < end);
	tap_diag("tern-trace did not start recording within %d ms", ms);
	return false;
}

int main(void)
{
	static char line[4096];
	uint32_t dw[16], n, bad = 0, g = 0, inno = 0, bo = 0, so_b, so_g, so_i;
	long fault_ctx = -1, fault_seqno = -1, reset_ctx = -1, reset_seqno = -1;
	bool fault_addr = false, faulted_run = false, reset_run = false;
	int eio_job = 0, etimedout_job = 0, ok_jobs = 0, guilty_error = 1, others_ran = 0;
	volatile uint32_t *mem;
	FILE *rec, *f;
	int fd, status;

	tap_plan(9);
	fd = tern_test_open();
	if (!tap_ok(fd >= 0, "open the device") ||
	    ctx_create_on(fd, 0, 0, &bad) || ctx_create_on(fd, 300, 0, &g) ||
	    ctx_create_on(fd, 0, 0, &inno) ||
	    core_bo(fd, 4096, VA, &bo, (void **)&mem))
		return tap_exit_status();
	so_b = syncobj_new(fd);
	so_g = syncobj_new(fd);
	so_i = syncobj_new(fd);

	rec = popen("tern-trace -q -o " JSON " -t 8", "r");
	recording_started(20000);

	n = 0;
	pkt_write_imm(dw, &n, 0x7000000ull, 1);
	submit(fd, bad, dw, n, &bo, 1, 0, so_b, NULL);
	syncobj_wait(fd, so_b, 5000);

	core_inject(0, 1);
	n = 0;
	pkt_spin(dw, &n, 1000);
	submit(fd, g, dw, n, &bo, 1, 0, so_g, NULL);
	n = 0;
	pkt_write_imm(dw, &n, VA + 4, 0x600d);
	submit(fd, inno, dw, n, &bo, 1, 0, so_i, NULL);
	syncobj_wait(fd, so_i, 10000);
	syncobj_wait(fd, so_g, 1000);

	status = rec ? pclose(rec) : -1;
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "tern-trace -t 8 exits 0");
	/* the faults and resets first: the jobs are checked against them */
	f = fopen(JSON, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (strstr(line, "\"cat\":\"fault\"") && strstr(line, "\"pid\":1,")) {
			fault_ctx = (long)num(line, "ctx", -1);
			fault_seqno = (long)num(line, "seqno", -1);
			fault_addr = strstr(line, "\"addr\":\"0x7000000\"") != NULL;
		} else if (strstr(line, "\"cat\":\"reset\"") && strstr(line, "\"pid\":1,")) {
			reset_ctx = (long)num(line, "ctx", -1);
			reset_seqno = (long)num(line, "seqno", -1);
		}
	}
	if (f)
		rewind(f);
	while (f && fgets(line, sizeof(line), f)) {
		if (strstr(line, "\"cat\":\"run\"") && strstr(line, "\"outcome\":\"reset\"") &&
		    (long)num(line, "ctx", -1) != reset_ctx)
			others_ran++;
		if (strstr(line, "\"cat\":\"slot\"")) {
			faulted_run |= strstr(line, "\"outcome\":\"faulted\"") != NULL;
			reset_run |= strstr(line, "\"outcome\":\"reset\"") != NULL;
		} else if (strstr(line, "\"cat\":\"job\"") && strstr(line, "\"ph\":\"b\"")) {
			int err = (int)num(line, "error", 1);

			if (err == -EIO && (long)num(line, "ctx", -1) == fault_ctx &&
			    (long)num(line, "seqno", -1) == fault_seqno)
				eio_job++;
			if (err == -ETIMEDOUT)
				etimedout_job++;
			if ((long)num(line, "ctx", -1) == reset_ctx &&
			    (long)num(line, "seqno", -1) == reset_seqno)
				guilty_error = err;
			if (!err && num(line, "completed_us", -1) >= 0)
				ok_jobs++;
		}
	}
	if (f)
		fclose(f);
	tap_ok(fault_ctx >= 0 && fault_addr, "a fault at 0x7000000 (ctx %ld job %ld)", fault_ctx,
	       fault_seqno);
	tap_ok(faulted_run, "a run that ended faulted");
	tap_ok(eio_job == 1, "the faulting job's fence signalled -EIO");
	tap_ok(reset_ctx >= 0 && reset_ctx != fault_ctx, "an engine reset naming ctx %ld job %ld",
	       reset_ctx, reset_seqno);
	tap_ok(reset_run && !others_ran,
	       "a run that the reset ended; on the engine only the guilty one had run (%d others)",
	       others_ran);
	tap_ok(etimedout_job == 1 && guilty_error == -ETIMEDOUT,
	       "the hung job's fence signalled -ETIMEDOUT (%d)", guilty_error);
	tap_ok(ok_jobs >= 1 && mem[1] == 0x600d, "the innocent job completed (%d)", ok_jobs);
	close(fd);
	return tap_exit_status();
}
