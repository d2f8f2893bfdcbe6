// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_usage_stats: the counters other tools read.  fdinfo's drm-cycles-*
 * and drm-total-cycles-* (Documentation/gpu/drm-usage-stats.rst: busy
 * cycles of the client and the device clock, in the same unit) and every
 * sysfs attribute of docs/abi/sysfs-driver-tern: busy time of the device
 * and of each engine, engine classes, preemptions, the scheduler's mode and
 * tunables, and memory in use; all readable by a user who is not root.
 *
 * tern-vm: timeout=60
 */
#include <sys/wait.h>

#include "core_test.h"

#define VA	0x100000ull

/* The value of @key in the fdinfo of @fd, or -1. */
static long long fdinfo_value(int fd, const char *key)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	return file_key_value(path, key);
}

static char sysdir[512];

/* A sysfs attribute of the device into @buf (newline cut); false if none. */
static bool attr(const char *name, char *buf, size_t len)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", sysdir, name);
	return core_read_line(path, buf, len);
}

static long long attr_num(const char *name)
{
	char buf[256];

	return attr(name, buf, sizeof(buf)) ? strtoll(buf, NULL, 10) : -1;
}

/* The @i-th space-separated number of an attribute, or -1. */
static long long attr_nth(const char *name, unsigned int i)
{
	char buf[512], *p = buf, *end;
	long long v = -1;

	if (!attr(name, buf, sizeof(buf)))
		return -1;
	for (;;) {
		v = strtoll(p, &end, 10);
		if (end == p)
			return -1;
		if (!i--)
			return v;
		p = end;
	}
}

static unsigned int attr_count(const char *name)
{
	char buf[512], *tok, *save;
	unsigned int n = 0;

	if (!attr(name, buf, sizeof(buf)))
		return 0;
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		n++;
	return n;
}

/* Sum of "<key> N" over the lines of debugfs engines for engine @eng. */
static long long dbg_preempt_jobs(unsigned int eng)
{
	char path[512], line[512];
	long long v = -1;
	int cur = -1;
	FILE *f;
	char *p;

	if (!core_debugfs_path("engines", path, sizeof(path)))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "engine ", 7))
			cur = atoi(line + 7);
		p = strstr(line, "preempt requested");
		if (p && cur == (int)eng && (p = strstr(p, " jobs ")))
			v = strtoll(p + 6, NULL, 10);
	}
	fclose(f);
	return v;
}

/* A decimal debugfs knob of the device, or -1. */
static long long sched_knob(const char *name)
{
	char path[512], buf[64] = "";
	FILE *f;

	if (!core_debugfs_path(name, path, sizeof(path)))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return buf[0] ? strtoll(buf, NULL, 10) : -1;
}

/* Whether user nobody can read every tern_* attribute. */
static bool readable_by_nobody(void)
{
	static const char *const names[] = {
		"tern_busy_time_us", "tern_engine_busy_time_us", "tern_engine_class",
		"tern_engine_preemptions", "tern_sched_mode", "tern_sched_quantum_us",
		"tern_sched_starve_ms", "tern_memory_utilization",
	};
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		char buf[256];
		unsigned int i;

		if (setgid(65534) || setuid(65534))
			_exit(2);
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!attr(names[i], buf, sizeof(buf)))
				_exit(1);
		_exit(0);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

int main(void)
{
	struct drm_tern_get_info info;
	uint32_t dw[16], n, ctx = 0, copy = 0, bo = 0, bo2 = 0, so, i;
	struct drm_tern_context_create cc = { .priority = 1 };
	long long cyc0, cyc1, tot0, tot1, busy0, busy1, eng0, eng1, mem0, mem1, mem2;
	char buf[512], pol[64] = "", classes[512] = "", want[512] = "";
	void *mem, *map2 = NULL;
	int fd, len = 0;

	tap_plan(20);
	fd = tern_test_open();
	if (!tap_ok(fd >= 0 && !core_get_info(fd, &info), "open the device") ||
	    mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &cc) ||
	    ctx_create(fd, 1, DRM_TERN_ENGINE_CLASS_COPY, 0, &copy))
		return tap_exit_status();
	ctx = cc.handle;
	tap_ok(core_pci_dev(sysdir, sizeof(sysdir)) &&
	       attr("tern_busy_time_us", buf, sizeof(buf)), "the sysfs attributes exist (%s)",
	       sysdir);
	mem0 = attr_num("tern_memory_utilization");
	if (core_bo(fd, 1 << 20, VA, &bo, &mem))
		return tap_exit_status();
	so = syncobj_new(fd);

	/* fdinfo: cycles and total cycles */
	cyc0 = fdinfo_value(fd, "drm-cycles-compute");
	tot0 = fdinfo_value(fd, "drm-total-cycles-compute");
	busy0 = attr_num("tern_busy_time_us");
	eng0 = attr_nth("tern_engine_busy_time_us", cc.engine);
	n = 0;
	pkt_spin(dw, &n, 20000);
	submit(fd, ctx, dw, n, &bo, 1, 0, so, NULL);
	syncobj_wait(fd, so, 5000);
	cyc1 = fdinfo_value(fd, "drm-cycles-compute");
	tot1 = fdinfo_value(fd, "drm-total-cycles-compute");
	tap_ok(cyc0 == 0 && cyc1 >= 20000000,
	       "drm-cycles-compute grew by the 20 ms job (%lld -> %lld)", cyc0, cyc1);
	tap_ok(cyc1 == fdinfo_value(fd, "drm-engine-compute"),
	       "drm-cycles-compute counts device ns, as drm-engine-compute does");
	tap_ok(tot0 > 0 && tot1 - tot0 >= cyc1 - cyc0,
	       "drm-total-cycles-compute advanced at least as much (%lld)", tot1 - tot0);
	tap_ok(fdinfo_value(fd, "drm-maxfreq-compute") == -1,
	       "no drm-maxfreq-compute next to drm-total-cycles-compute");
	drmSyncobjReset(fd, &so, 1);
	n = 0;
	pkt_fill(dw, &n, VA, 65536, 1);
	submit(fd, copy, dw, n, &bo, 1, 0, so, NULL);
	syncobj_wait(fd, so, 5000);
	tap_ok(fdinfo_value(fd, "drm-cycles-copy") > 0 &&
	       fdinfo_value(fd, "drm-total-cycles-copy") >= tot1,
	       "drm-cycles-copy and drm-total-cycles-copy");

	/* sysfs */
	busy1 = attr_num("tern_busy_time_us");
	eng1 = attr_nth("tern_engine_busy_time_us", cc.engine);
	tap_ok(busy0 >= 0 && busy1 - busy0 >= 20000,
	       "tern_busy_time_us grew by the job (%lld -> %lld us)", busy0, busy1);
	tap_ok(eng0 >= 0 && eng1 - eng0 >= 20000,
	       "tern_engine_busy_time_us of engine %u grew by it (%lld -> %lld us)", cc.engine,
	       eng0, eng1);
	tap_ok(attr_count("tern_engine_busy_time_us") == info.engine_count,
	       "tern_engine_busy_time_us has one value per engine (%u)", info.engine_count);
	for (i = 0; i < info.engine_count; i++)
		len += snprintf(want + len, sizeof(want) - len, "%s%s", i ? " " : "",
				info.engine_class[i] == DRM_TERN_ENGINE_CLASS_COPY ? "copy" :
				"compute");
	attr("tern_engine_class", classes, sizeof(classes));
	tap_ok(!strcmp(classes, want), "tern_engine_class: %s", classes);
	tap_ok(attr_count("tern_engine_preemptions") == info.engine_count &&
	       attr_nth("tern_engine_preemptions", cc.engine) == dbg_preempt_jobs(cc.engine),
	       "tern_engine_preemptions of engine %u matches debugfs (%lld)", cc.engine,
	       attr_nth("tern_engine_preemptions", cc.engine));

	attr("tern_sched_mode", buf, sizeof(buf));
	tap_ok(core_debugfs_path("sched_policy", pol, sizeof(pol)) &&
	       core_write_file(pol, "fifo") && attr("tern_sched_mode", pol, sizeof(pol)) &&
	       !strcmp(buf, "fair") && !strcmp(pol, "fifo"),
	       "tern_sched_mode follows the policy (%s, then %s)", buf, pol);
	core_debugfs_path("sched_policy", pol, sizeof(pol));
	core_write_file(pol, "fair");
	tap_ok(attr_num("tern_sched_quantum_us") == sched_knob("quantum_us"),
	       "tern_sched_quantum_us matches debugfs (%lld)", attr_num("tern_sched_quantum_us"));
	tap_ok(attr_num("tern_sched_starve_ms") == sched_knob("starve_ms"),
	       "tern_sched_starve_ms matches debugfs (%lld)", attr_num("tern_sched_starve_ms"));
	if (core_debugfs_path("starve_ms", pol, sizeof(pol)) && core_write_file(pol, "77")) {
		tap_ok(attr_num("tern_sched_starve_ms") == 77, "and follows a change");
		core_write_file(pol, "50");
	} else {
		tap_ok(false, "set starve_ms through debugfs");
	}

	mem1 = attr_num("tern_memory_utilization");
	core_bo(fd, 3 << 20, VA + (4 << 20), &bo2, &map2);
	mem2 = attr_num("tern_memory_utilization");
	tap_ok(mem0 >= 0 && mem1 - mem0 == 1 << 20 && mem2 - mem1 == 3 << 20,
	       "tern_memory_utilization counts the 1 MiB and 3 MiB BOs (%lld, %lld, %lld)",
	       mem0, mem1, mem2);
	tap_ok(readable_by_nobody(), "user nobody reads every attribute");
	munmap(mem, 1 << 20);
	if (map2)
		munmap(map2, 3 << 20);
	close(fd);
	/* the BOs are freed once the file is closed and their jobs are done */
	for (i = 0; i < 100 && attr_num("tern_memory_utilization") != mem0; i++)
		usleep(10000);
	tap_ok(attr_num("tern_memory_utilization") == mem0,
	       "closing the file gives the memory back (%lld)",
	       attr_num("tern_memory_utilization"));
	tap_ok(attr_num("tern_busy_time_us") >= busy1, "tern_busy_time_us never goes back");
	return tap_exit_status();
}
