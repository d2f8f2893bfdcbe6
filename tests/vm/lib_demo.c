// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_demo: tern-demo, the program `make demo` runs, succeeds on a device
 * whose GEMM lasts hundreds of ms: the high-priority job preempts the GEMM
 * and finishes first, both results are right, the GEMM counts its
 * preemptions.  And it fails, saying why, when there is nothing to show: a
 * GEMM too short to be preempted, and the scheduler's fifo policy.
 *
 * tern-vm: device=time-scale=200 timeout=180
 */
#include <stdint.h>
#include <sys/wait.h>

#include "core_test.h"

/* Run a shell command; its exit status, and its stdout and stderr in @out. */
static int run(const char *cmd, char *out, size_t len)
{
	char full[256];
	size_t n = 0;
	FILE *p;
	int status;

	snprintf(full, sizeof(full), "%s 2>&1", cmd);
	p = popen(full, "r");
	if (!p)
		return -1;
	while (n < len - 1 && fgets(out + n, (int)(len - n), p))
		n += strlen(out + n);
	out[n] = 0;
	status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static bool write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	bool ok;

	if (!f)
		return false;
	ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok;
}

int main(void)
{
	static char out[16384];
	char policy[512];
	const char *p;
	long preemptions = -1;
	int ret;

	/* 192^3 at time-scale 200: 1.4 s, room for a slow, busy host */
	ret = run("tern-demo -s 192", out, sizeof(out));
	tap_ok(ret == 0, "tern-demo -s 192 exits 0 (%d)", ret);
	tap_ok(strstr(out, "preempted the GEMM and finished") != NULL,
	       "the high-priority job preempted the GEMM and finished first");
	tap_ok(strstr(out, "match the CPU bit for bit") != NULL, "both results match the CPU");
	p = strstr(out, "low context:");
	p = p ? strstr(p, "done, ") : NULL;
	if (p)
		preemptions = strtol(p + 6, NULL, 10);
	tap_ok(preemptions >= 1, "the GEMM's context counts %ld preemption(s)", preemptions);
	p = strstr(out, "paused ");
	tap_ok(p && strtod(p + 7, NULL) > 0.0, "the GEMM was paused for %.3f ms",
	       p ? strtod(p + 7, NULL) : -1.0);
	if (ret)
		tap_diag("%s", out);
	else
		printf("%s", out);

	ret = run("tern-demo -s 16", out, sizeof(out));
	tap_ok(ret == 1 && strstr(out, "FAILED: the GEMM finished before the high-priority "
				  "job arrived"),
	       "a 16x16x16 GEMM is over too soon: tern-demo says so and exits 1 (%d)", ret);

	if (core_debugfs_path("sched_policy", policy, sizeof(policy)) &&
	    write_file(policy, "fifo")) {
		ret = run("tern-demo -s 192", out, sizeof(out));
		tap_ok(ret == 1 && strstr(out, "FAILED: the high-priority job waited"),
		       "under the fifo policy the high-priority job waits: tern-demo says so "
		       "and exits 1 (%d)", ret);
		tap_ok(write_file(policy, "fair"), "back to the fair policy");
	} else {
		tap_ok(false, "switch the scheduler to fifo through debugfs sched_policy");
	}
	tap_done();
	return tap_exit_status();
}
