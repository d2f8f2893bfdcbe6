// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_tools: the libtern tools and examples run on the real device and
 * succeed: tern-info, tern-saxpy, tern-gemm, tern-pipeline,
 * tern-oversubscribe, tern-bench, and
 * tern-top, which must see a process keeping one compute engine busy, and
 * the preemption tern-demo caused (from sysfs: without debugfs, and as a
 * user who is not root, it shows the same counts).
 *
 * tern-vm: timeout=240
 */
#include <signal.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <tern/tern.h>

#include "tern_test.h"

/* Run a shell command; its exit status, and its stdout in @out. */
static int run(const char *cmd, char *out, size_t len)
{
	size_t n = 0;
	FILE *p = popen(cmd, "r");
	int status;

	if (!p)
		return -1;
	while (n < len - 1 && fgets(out + n, (int)(len - n), p))
		n += strlen(out + n);
	out[n] = 0;
	status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * A process that keeps one compute engine busy for about @ms milliseconds,
 * with 50 ms jobs one after the other (engine time may be accounted when a
 * job completes, so one long job would show only at its end).
 */
static pid_t spinner(unsigned int ms)
{
	pid_t pid = fork();

	if (!pid) {
		struct tern_context *ctx;
		struct tern_device *dev;
		struct tern_cmdbuf *cb;
		unsigned int i;

		if (tern_device_open(0, &dev) || tern_context_create(dev, NULL, &ctx) ||
		    tern_cmdbuf_create(0, &cb) || tern_cmd_spin(cb, 50000))
			_exit(1);
		for (i = 0; i < ms / 50; i++) {
			struct tern_fence *f;

			if (tern_submit(ctx, cb, NULL, 0, &f) ||
			    tern_fence_wait(f, 60 * 1000000000ll))
				_exit(2);
			tern_fence_free(f);
		}
		_exit(0);
	}
	return pid;
}

/* @cmd run as user nobody (uid and gid 65534); as run(). */
static int run_as_nobody(const char *cmd, char *out, size_t len)
{
	int fds[2], status;
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (!pid) {
		dup2(fds[1], 1);
		close(fds[0]);
		if (setgid(65534) || setuid(65534))
			_exit(126);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (n < len - 1 && (r = read(fds[0], out + n, len - 1 - n)) > 0)
		n += r;
	out[n] = 0;
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The preemptions tern-top shows in all, summed over the engines; -1 if none. */
static long preemptions_shown(const char *out)
{
	const char *line = strstr(out, "\nPREEMPTIONS");
	long sum = -1, total;

	line = line ? strstr(line, "\nengine ") : NULL;
	/* "engine <id> <class> <sample> <total> <max latency> ms" */
	while (line && sscanf(line, "\nengine %*u %*s %*u %ld", &total) == 1) {
		sum = (sum < 0 ? 0 : sum) + total;
		line = strstr(line + 1, "\nengine ");
	}
	return sum;
}

int main(void)
{
	static char out[16384];
	char pidstr[32], *line;
	double busy = -1.0;
	long total, before;
	int ret, status;
	pid_t pid;

	ret = run("tern-info", out, sizeof(out));
	tap_ok(ret == 0 && strstr(out, "engines") && strstr(out, "device clock") &&
	       strstr(out, "MiB in use"),
	       "tern-info describes the device, local memory in use too (exit %d)", ret);
	ret = run("tern-saxpy -n 200000 -a -0.75", out, sizeof(out));
	tap_ok(ret == 0 && strstr(out, "matches the CPU"), "tern-saxpy: %.*s",
	       (int)strcspn(out, "\n"), out);
	ret = run("tern-gemm -m 96 -n 80 -k 64", out, sizeof(out));
	tap_ok(ret == 0 && strstr(out, "bit for bit"), "tern-gemm 96x80x64 (exit %d)", ret);
	ret = run("tern-pipeline -f 12 -n 100k", out, sizeof(out));
	tap_ok(ret == 0 && strstr(out, "every frame matches") && strstr(out, "point 24"),
	       "tern-pipeline: 12 frames through two engines on one timeline (exit %d)", ret);
	/* a working set of twice local memory, over three processes */
	ret = run("tern-oversubscribe -p 3 -r 2 -b 4M", out, sizeof(out));
	tap_ok(ret == 0 && strstr(out, "every result is right") && strstr(out, "evictions"),
	       "tern-oversubscribe: 2x local memory over 3 processes, results right, paging shown (exit %d)",
	       ret);
	if (ret || !strstr(out, "every result is right"))
		tap_diag("%s", out);
	ret = run("tern-bench -n 50 -j 500 -s 1M", out, sizeof(out));
	tap_ok(ret == 0 && strstr(out, "jobs/s") && strstr(out, "GB/s"),
	       "tern-bench reports latency, throughput and bandwidth (exit %d)", ret);
	if (ret)
		tap_diag("%s", out);

	pid = spinner(4000);
	usleep(500000);
	ret = run("tern-top -n 1 -i 1000", out, sizeof(out));
	tap_ok(ret == 0, "tern-top -n 1 exits 0");
	snprintf(pidstr, sizeof(pidstr), " %d ", pid);
	tap_ok(strstr(out, pidstr) != NULL, "tern-top lists the busy process (pid %d)", pid);
	line = strstr(out, "\ncompute ");
	if (line)
		busy = strtod(line + 9, NULL);
	/*
	 * One of two compute engines busy: at most half of the class's
	 * capacity.  The lower bound only proves the time is counted: under
	 * emulation the gaps between the spinner's jobs vary a lot.
	 */
	tap_ok(busy >= 5.0 && busy <= 60.0, "and the compute engines %.1f%% busy (one of two)",
	       busy);
	if (busy < 5.0 || busy > 60.0)
		tap_diag("%s", out);
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the busy process finished");
	ret = run("tern-top --once -i 200", out, sizeof(out));
	line = strstr(out, "\ncompute ");
	tap_ok(ret == 0 && (!line || strtod(line + 9, NULL) < 5.0),
	       "when it is gone the engines are idle");

	/*
	 * preemptions: tern-demo makes one (a 1 s GEMM leaves room for a slow,
	 * busy host), tern-top (root) shows it from debugfs
	 */
	ret = run("tern-top --once -i 100", out, sizeof(out));
	before = preemptions_shown(out);
	ret = run("tern-demo -s 1024 -w 10 2>&1", out, sizeof(out));
	tap_ok(ret == 0, "tern-demo: a high-priority job preempted a 1024^3 GEMM (exit %d)", ret);
	if (ret)
		tap_diag("%s", out);
	ret = run("tern-top --once -i 100", out, sizeof(out));
	total = preemptions_shown(out);
	tap_ok(ret == 0 && before >= 0 && total > before,
	       "tern-top shows the engine's preemptions (%ld, %ld before the demo)", total,
	       before);
	if (total <= before)
		tap_diag("%s", out);
	/* the render group's access, as the udev rule gives it */
	chmod("/dev/accel/accel0", 0666);
	ret = run_as_nobody("tern-top --once -i 100", out, sizeof(out));
	tap_ok(ret == 0 && preemptions_shown(out) == total && strstr(out, "\nDEVICE") &&
	       strstr(out, "scheduler fair"),
	       "as user nobody tern-top shows the same preemptions, the engines and the "
	       "scheduler (exit %d, %ld)", ret, preemptions_shown(out));
	if (ret || preemptions_shown(out) != total)
		tap_diag("%s", out);
	chmod("/dev/accel/accel0", 0600);
	if (umount("/sys/kernel/debug") == 0) {
		ret = run("tern-top --once -i 100", out, sizeof(out));
		tap_ok(ret == 0 && preemptions_shown(out) == total &&
		       strstr(out, "max latency not shown") && strstr(out, "\nENGINE"),
		       "without debugfs tern-top shows the preemptions and says why it shows "
		       "no latency (exit %d)", ret);
		tap_ok(mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) == 0,
		       "debugfs mounted again");
	} else {
		tap_ok(false, "unmount debugfs: %s", strerror(errno));
	}
	tap_done();
	return tap_exit_status();
}
