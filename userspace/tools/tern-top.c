// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * tern-top: per-engine and per-client utilisation of tern devices, from the
 * DRM usage statistics in /proc/<pid>/fdinfo (drm-engine-<name> keys), in the
 * manner of intel_gpu_top.  Utilisation is the engine time a client used
 * between two samples divided by the time between them.  The whole device
 * (each engine's busy time and preemptions, the scheduler's mode and
 * tunables, memory in use) comes from the device's sysfs attributes
 * (docs/abi/sysfs-driver-tern), which every user may read; only the longest
 * preemption latency comes from tern's debugfs engines file, when it can be
 * read (root, debugfs mounted).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "fdinfo.h"

const char *tool_name = "tern-top";

#define MAX_CLIENTS	256

struct client {
	int pid;
	char comm[32];
	struct drm_fdinfo fi;
};

struct sample {
	uint64_t time_ns;
	unsigned int count;
	struct client clients[MAX_CLIENTS];
	bool have_preempt;		/* the debugfs engines file was read */
	unsigned int preempt_count;
	struct tern_engine_preempt preempt[TERN_DEVICE_MAX_ENGINES];
	/* from sysfs */
	bool have_sysfs;
	unsigned int engines;
	char engine_class[TERN_DEVICE_MAX_ENGINES][16];
	uint64_t engine_busy_us[TERN_DEVICE_MAX_ENGINES];
	uint64_t engine_preemptions[TERN_DEVICE_MAX_ENGINES];
	char sched_mode[16];
	uint64_t quantum_us, starve_ms, memory_bytes;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tern-top [-d DEVICE] [-i MS] [-n COUNT | --once]\n"
		"Show how busy each engine of a tern device is, and which processes use it,\n"
		"from the DRM fdinfo statistics of every process (run as root to see\n"
		"other users' processes).\n"
		"\n"
		"  -d, --device=DEVICE    the device: an index (default 0) or a node path\n"
		"  -i, --interval=MS      time between samples in ms (default 1000)\n"
		"  -n, --iterations=COUNT print COUNT samples, then exit (default: until\n"
		"                         interrupted)\n"
		"  -1, --once             print one sample and exit (same as -n 1)\n"
		"  -h, --help             this help\n"
		"\n"
		"Each engine's busy time and preemptions, the scheduler's settings and the\n"
		"memory in use come from the device's sysfs files, which any user may read;\n"
		"the longest preemption latency is shown when tern's debugfs engines file\n"
		"can be read (as root, with debugfs mounted).\n"
		"\n"
		"Exit status: 0 success, 1 failure, 2 bad usage, 3 no tern device,\n"
		"4 no permission to open the device.\n");
}

static void read_comm(int pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f || !fgets(buf, (int)len, f))
		snprintf(buf, len, "?");
	else
		buf[strcspn(buf, "\n")] = 0;
	if (f)
		fclose(f);
}

static bool seen_client(const struct sample *s, uint64_t id)
{
	unsigned int i;

	for (i = 0; i < s->count; i++)
		if (s->clients[i].fi.client_id == id)
			return true;
	return false;
}

/* Every tern client of device @pdev ("" for any) but this process. */
static void take_sample(struct sample *s, const char *pdev)
{
	struct dirent *pe;
	DIR *proc;

	s->count = 0;
	s->time_ns = tool_now_ns();
	proc = opendir("/proc");
	if (!proc)
		return;
	while ((pe = readdir(proc)) && s->count < MAX_CLIENTS) {
		char dir[64];
		struct dirent *fe;
		DIR *fds;
		int pid;

		if (!isdigit((unsigned char)pe->d_name[0]))
			continue;
		pid = atoi(pe->d_name);
		if (pid == getpid())
			continue;
		snprintf(dir, sizeof(dir), "/proc/%d/fdinfo", pid);
		fds = opendir(dir);
		if (!fds)
			continue;
		while ((fe = readdir(fds)) && s->count < MAX_CLIENTS) {
			struct client *c = &s->clients[s->count];
			char path[320], text[4096];
			ssize_t n;
			int fd;

			if (!isdigit((unsigned char)fe->d_name[0]))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, fe->d_name);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			n = read(fd, text, sizeof(text) - 1);
			close(fd);
			if (n <= 0)
				continue;
			text[n] = 0;
			if (drm_fdinfo_parse(text, &c->fi) || strcmp(c->fi.driver, "tern"))
				continue;
			if (pdev[0] && c->fi.pdev[0] && strcmp(pdev, c->fi.pdev))
				continue;
			/* a file shared by several fds or processes is one client */
			if (c->fi.has_client_id && seen_client(s, c->fi.client_id))
				continue;
			c->pid = pid;
			read_comm(pid, c->comm, sizeof(c->comm));
			s->count++;
		}
		closedir(fds);
	}
	closedir(proc);
}

/*
 * The debugfs engines file of the device: DRM names the directory after the
 * device (its PCI address) on current kernels, after the accel minor on
 * older ones.
 */
static void debugfs_engines(const struct tern_device_info *info, char *path, size_t len)
{
	unsigned int minor;

	snprintf(path, len, "/sys/kernel/debug/accel/%s/engines", info->pci_slot);
	if (info->pci_slot[0] && !access(path, F_OK))
		return;
	if (sscanf(info->path, "/dev/accel/accel%u", &minor) == 1) {
		snprintf(path, len, "/sys/kernel/debug/accel/%u/engines", minor);
		if (!access(path, F_OK) || !info->pci_slot[0])
			return;
	}
	/* neither is there (no root, no debugfs): name the usual one */
	snprintf(path, len, "/sys/kernel/debug/accel/%s/engines", info->pci_slot);
}

/* Read sysfs attribute @name of the device at @dir into @buf; false if not. */
static bool read_attr(const char *dir, const char *name, char *buf, size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return true;
}

/* Up to @max space-separated numbers of an attribute; how many. */
static unsigned int read_attr_u64s(const char *dir, const char *name, uint64_t *v,
				   unsigned int max)
{
	char buf[1024], *p = buf, *end;
	unsigned int n = 0;

	if (!read_attr(dir, name, buf, sizeof(buf)))
		return 0;
	while (n < max) {
		v[n] = strtoull(p, &end, 10);
		if (end == p)
			break;
		n++;
		p = end;
	}
	return n;
}

/* The device's sysfs attributes (docs/abi/sysfs-driver-tern). */
static void read_sysfs(struct sample *s, const char *dir)
{
	char buf[1024], *tok, *save = NULL;
	unsigned int n = 0;

	s->have_sysfs = false;
	if (!read_attr(dir, "tern_engine_class", buf, sizeof(buf)))
		return;
	for (tok = strtok_r(buf, " ", &save); tok && n < TERN_DEVICE_MAX_ENGINES;
	     tok = strtok_r(NULL, " ", &save))
		snprintf(s->engine_class[n++], sizeof(s->engine_class[0]), "%s", tok);
	s->engines = n;
	if (read_attr_u64s(dir, "tern_engine_busy_time_us", s->engine_busy_us, n) != n ||
	    read_attr_u64s(dir, "tern_engine_preemptions", s->engine_preemptions, n) != n ||
	    read_attr_u64s(dir, "tern_sched_quantum_us", &s->quantum_us, 1) != 1 ||
	    read_attr_u64s(dir, "tern_sched_starve_ms", &s->starve_ms, 1) != 1 ||
	    read_attr_u64s(dir, "tern_memory_utilization", &s->memory_bytes, 1) != 1 ||
	    !read_attr(dir, "tern_sched_mode", s->sched_mode, sizeof(s->sched_mode)))
		return;
	s->have_sysfs = true;
}

/* The sysfs directory of the device behind /dev/accel/accelN. */
static void sysfs_dir(const struct tern_device_info *info, char *dir, size_t len)
{
	unsigned int minor;

	if (sscanf(info->path, "/dev/accel/accel%u", &minor) == 1)
		snprintf(dir, len, "/sys/class/accel/accel%u/device", minor);
	else
		snprintf(dir, len, "/sys/bus/pci/devices/%s", info->pci_slot);
}

/* The preemption latencies of the device's engines, from @path (debugfs). */
static void read_preempt(struct sample *s, const char *path)
{
	static char text[16384];
	ssize_t n;
	int fd;

	s->have_preempt = false;
	s->preempt_count = 0;
	if (!path[0])
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n < 0)
		return;
	text[n] = 0;
	s->have_preempt = true;
	s->preempt_count = tern_engines_parse(text, s->preempt, TERN_DEVICE_MAX_ENGINES);
}

static void bar(double pct, char *buf, int width);

/* Busy time and preemptions of each engine, from sysfs. */
static void show_device(const struct sample *prev, const struct sample *cur, uint64_t dt,
			const char *path)
{
	unsigned int i, j;
	char b[41], name[32];

	if (!cur->have_sysfs) {
		printf("\n(the device's sysfs files cannot be read: per-engine figures not shown)\n");
		return;
	}
	printf("\n%-16s %7s  %s\n", "DEVICE", "BUSY", "");
	for (i = 0; i < cur->engines; i++) {
		uint64_t d = prev->have_sysfs && prev->engines == cur->engines &&
			     cur->engine_busy_us[i] >= prev->engine_busy_us[i] ?
			     cur->engine_busy_us[i] - prev->engine_busy_us[i] : 0;
		double pct = dt ? 100.0 * (double)d * 1000.0 / (double)dt : 0.0;

		if (pct > 100.0)
			pct = 100.0;
		bar(pct, b, 40);
		snprintf(name, sizeof(name), "engine %u %s", i, cur->engine_class[i]);
		printf("%-16s %6.1f%%  |%s|\n", name, pct, b);
	}

	printf("\n%-16s %7s %9s %14s\n", "PREEMPTIONS", "SAMPLE", "TOTAL", "MAX LATENCY");
	for (i = 0; i < cur->engines; i++) {
		uint64_t total = cur->engine_preemptions[i], before = total;
		char lat[32] = "-";

		if (prev->have_sysfs && prev->engines == cur->engines &&
		    prev->engine_preemptions[i] <= total)
			before = prev->engine_preemptions[i];
		for (j = 0; cur->have_preempt && j < cur->preempt_count; j++)
			if (cur->preempt[j].id == i)
				snprintf(lat, sizeof(lat), "%.3f ms",
					 cur->preempt[j].max_latency_ns / 1e6);
		snprintf(name, sizeof(name), "engine %u %s", i, cur->engine_class[i]);
		printf("%-16s %7" PRIu64 " %9" PRIu64 " %14s\n", name, total - before, total, lat);
	}
	if (!cur->have_preempt)
		printf("(max latency not shown: %s cannot be read; it needs root and debugfs)\n",
		       path[0] ? path : "the debugfs engines file");
}

static const struct client *find_client(const struct sample *s, const struct client *c)
{
	unsigned int i;

	for (i = 0; i < s->count; i++)
		if (s->clients[i].fi.client_id == c->fi.client_id &&
		    s->clients[i].pid == c->pid)
			return &s->clients[i];
	return NULL;
}

/* Busy fraction of engine @name of client @c since @prev, in percent. */
static double busy_pct(const struct client *c, const struct client *prev, const char *name,
		       uint64_t dt)
{
	const struct fdinfo_engine *e = drm_fdinfo_engine(&c->fi, name);
	const struct fdinfo_engine *p = prev ? drm_fdinfo_engine(&prev->fi, name) : NULL;
	double pct;

	if (!e || !p || e->busy_ns < p->busy_ns || !dt)
		return 0.0;
	pct = 100.0 * (double)(e->busy_ns - p->busy_ns) / ((double)dt * (e->capacity ? e->capacity : 1));
	return pct > 100.0 ? 100.0 : pct;
}

static void bar(double pct, char *buf, int width)
{
	int fill = (int)(pct * width / 100.0 + 0.5), i;

	for (i = 0; i < width; i++)
		buf[i] = i < fill ? '#' : ' ';
	buf[width] = 0;
}

static void show(const struct tern_device_info *info, const struct sample *prev,
		 const struct sample *cur, bool clear, const char *preempt_path)
{
	char names[FDINFO_MAX_ENGINES][32];
	uint64_t dt = cur->time_ns - prev->time_ns;
	unsigned int n = 0, i, e;
	char b[41];

	/* the engines any client reports, in the order first seen */
	for (i = 0; i < cur->count; i++)
		for (e = 0; e < cur->clients[i].fi.engine_count; e++) {
			const char *name = cur->clients[i].fi.engines[e].name;
			unsigned int j;

			for (j = 0; j < n && strcmp(names[j], name); j++)
				;
			if (j == n && n < FDINFO_MAX_ENGINES)
				snprintf(names[n++], sizeof(names[0]), "%s", name);
		}

	if (clear)
		printf("\033[H\033[2J");
	printf("tern-top - %s%s%s, %u engines, %u client%s, %.0f ms sample\n",
	       info->path, info->pci_slot[0] ? " at " : "", info->pci_slot,
	       info->engine_count, cur->count, cur->count == 1 ? "" : "s", dt / 1e6);
	if (cur->have_sysfs)
		printf("scheduler %s, quantum %" PRIu64 " us, starvation bound %" PRIu64
		       " ms; %.1f MiB in buffers\n", cur->sched_mode, cur->quantum_us,
		       cur->starve_ms, cur->memory_bytes / 1048576.0);
	printf("\n%-16s %7s  %s\n", "ENGINE", "BUSY", "");
	for (e = 0; e < n; e++) {
		double total = 0.0;

		for (i = 0; i < cur->count; i++)
			total += busy_pct(&cur->clients[i], find_client(prev, &cur->clients[i]),
					  names[e], dt);
		if (total > 100.0)
			total = 100.0;
		bar(total, b, 40);
		printf("%-16s %6.1f%%  |%s|\n", names[e], total, b);
	}
	if (!n)
		printf("(no engine activity reported: no tern client is running)\n");
	show_device(prev, cur, dt, preempt_path);

	printf("\n%7s %8s %-16s %10s", "PID", "CLIENT", "NAME", "MEM(KiB)");
	for (e = 0; e < n; e++)
		printf(" %9.9s", names[e]);
	printf("\n");
	for (i = 0; i < cur->count; i++) {
		const struct client *c = &cur->clients[i];
		const struct client *p = find_client(prev, c);

		printf("%7d %8" PRIu64 " %-16.16s %10" PRIu64, c->pid, c->fi.client_id, c->comm,
		       c->fi.resident_bytes >> 10);
		for (e = 0; e < n; e++)
			printf(" %8.1f%%", busy_pct(c, p, names[e], dt));
		printf("\n");
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'i' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "once", no_argument, NULL, '1' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t interval_ms = 1000, iterations = 0, it;
	struct sample *prev, *cur, *tmp;
	char preempt_path[128] = "", sys_path[128];
	const char *spec = NULL;
	struct tern_device *dev;
	struct timespec ts;
	bool clear;
	int c, ret;

	while ((c = getopt_long(argc, argv, "d:i:n:1h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			spec = optarg;
			break;
		case 'i':
			if (tool_parse_u64(optarg, &interval_ms) || !interval_ms ||
			    interval_ms > 3600000) {
				fprintf(stderr, "%s: bad interval \"%s\" (1 to 3600000 ms)\n",
					tool_name, optarg);
				return TOOL_EXIT_USAGE;
			}
			break;
		case 'n':
			if (tool_parse_u64(optarg, &iterations) || !iterations) {
				fprintf(stderr, "%s: bad count \"%s\"\n", tool_name, optarg);
				return TOOL_EXIT_USAGE;
			}
			break;
		case '1':
			iterations = 1;
			break;
		case 'h':
			usage(stdout);
			return TOOL_EXIT_OK;
		default:
			usage(stderr);
			return TOOL_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return TOOL_EXIT_USAGE;
	}

	ret = tool_open(spec, &dev);
	if (ret)
		return ret;
	prev = calloc(1, sizeof(*prev));
	cur = calloc(1, sizeof(*cur));
	if (!prev || !cur) {
		fprintf(stderr, "%s: out of memory\n", tool_name);
		free(prev);
		free(cur);
		tern_device_close(dev);
		return TOOL_EXIT_FAIL;
	}
	clear = isatty(STDOUT_FILENO) && iterations != 1;
	debugfs_engines(tern_device_info(dev), preempt_path, sizeof(preempt_path));
	sysfs_dir(tern_device_info(dev), sys_path, sizeof(sys_path));
	take_sample(prev, tern_device_info(dev)->pci_slot);
	read_sysfs(prev, sys_path);
	read_preempt(prev, preempt_path);
	for (it = 0; !iterations || it < iterations; it++) {
		ts.tv_sec = (time_t)(interval_ms / 1000);
		ts.tv_nsec = (long)(interval_ms % 1000) * 1000000;
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		take_sample(cur, tern_device_info(dev)->pci_slot);
		read_sysfs(cur, sys_path);
		read_preempt(cur, preempt_path);
		if (it && !clear)
			printf("\n");
		show(tern_device_info(dev), prev, cur, clear, preempt_path);
		tmp = prev;
		prev = cur;
		cur = tmp;
	}
	free(prev);
	free(cur);
	tern_device_close(dev);
	return TOOL_EXIT_OK;
}
