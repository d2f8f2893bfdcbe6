// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * debugfs.c - the driver's debugfs files the suite uses (see
 * docs/scheduler.md): sched_policy, quantum_us, starve_ms, raw_nop and
 * preempt_latency, in /sys/kernel/debug/accel/<PCI address>/ of the device.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bench.h"

int bench_debugfs_path(struct tern_device *dev, const char *name, char *path, size_t len)
{
	const char *slot = tern_device_info(dev)->pci_slot;
	struct stat st;

	/* DRM names the device's folder after its parent (the PCI address) */
	if (slot[0]) {
		snprintf(path, len, "/sys/kernel/debug/accel/%s/%s", slot, name);
		if (!access(path, F_OK))
			return 0;
	}
	if (fstat(tern_device_fd(dev), &st))
		return -errno;
	snprintf(path, len, "/sys/kernel/debug/accel/%u/%s", minor(st.st_rdev), name);
	return access(path, F_OK) ? -ENOENT : 0;
}

static int read_all(const char *path, char **text)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	int fd, ret = 0;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	for (;;) {
		ssize_t n;

		if (cap - len < 2) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (ret) {
		free(buf);
		return ret;
	}
	buf[len] = 0;
	*text = buf;
	return 0;
}

int bench_debugfs_read(struct tern_device *dev, const char *name, char **text)
{
	char path[256];
	int ret = bench_debugfs_path(dev, name, path, sizeof(path));

	return ret ? ret : read_all(path, text);
}

int bench_debugfs_write(struct tern_device *dev, const char *name, const char *text)
{
	size_t len = strlen(text);
	char path[256];
	ssize_t n;
	int fd, ret;

	ret = bench_debugfs_path(dev, name, path, sizeof(path));
	if (ret)
		return ret;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	ret = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	close(fd);
	return ret;
}

int bench_set_policy(struct tern_device *dev, const char *policy)
{
	char *now = NULL;
	int ret;

	ret = bench_debugfs_write(dev, "sched_policy", policy);
	if (ret)
		return ret;
	/* read back: the switch must have taken */
	ret = bench_debugfs_read(dev, "sched_policy", &now);
	if (ret)
		return ret;
	ret = strncmp(now, policy, strlen(policy)) ? -EIO : 0;
	free(now);
	return ret;
}

int bench_set_drmfair(struct tern_device *dev, int fig)
{
	int ret = bench_set_policy(dev, "drmfair");

	if (ret != -EINVAL)
		return ret;
	bench_missing(fig, "drmfair", "the driver has no drmfair policy");
	return 1;
}

int bench_read_knob(struct tern_device *dev, const char *name, uint64_t *value)
{
	char path[256], *text = NULL, *end;
	int ret;

	ret = bench_debugfs_read(dev, name, &text);
	if (ret == -ENOENT) {
		snprintf(path, sizeof(path), "/sys/module/tern/parameters/%s", name);
		ret = read_all(path, &text);
	}
	if (ret)
		return ret;
	errno = 0;
	*value = strtoull(text, &end, 10);
	ret = (errno || end == text) ? -EINVAL : 0;
	free(text);
	return ret;
}

/* Write @cmd to raw_nop and read the run's report into *@text (malloc'd). */
static int raw_nop_run(struct tern_device *dev, const char *cmd, char **text)
{
	int ret = bench_debugfs_write(dev, "raw_nop", cmd);

	return ret ?: bench_debugfs_read(dev, "raw_nop", text);
}

int bench_raw_nop(struct tern_device *dev, uint32_t engine, uint32_t count, bool serial,
		  uint64_t **ns, uint64_t *total_ns)
{
	char cmd[64], mode[16], *text = NULL, *p;
	unsigned int e, n, i;
	unsigned long long t;
	uint64_t *v = NULL;
	int ret, used;

	snprintf(cmd, sizeof(cmd), "%u %u %s", engine, count, serial ? "serial" : "pipelined");
	ret = raw_nop_run(dev, cmd, &text);
	if (ret)
		return ret;
	ret = -EPROTO;
	if (sscanf(text, "engine %u mode %15s count %u total_ns %llu%n", &e, mode, &n, &t,
		   &used) != 4 || e != engine || n != count ||
	    strcmp(mode, serial ? "serial" : "pipelined"))
		goto out;
	*total_ns = t;
	if (serial) {
		v = calloc(count, sizeof(*v));
		if (!v) {
			ret = -ENOMEM;
			goto out;
		}
		p = text + used;
		for (i = 0; i < count; i++) {
			char *end;

			v[i] = strtoull(p, &end, 10);
			if (end == p)
				break;
			p = end;
		}
		if (i != count) {
			free(v);
			goto out;
		}
		*ns = v;
	}
	ret = 0;
out:
	free(text);
	return ret;
}

int bench_raw_nop_all(struct tern_device *dev, uint32_t count, uint64_t *total_ns)
{
	char cmd[64], *text = NULL;
	unsigned long long t;
	unsigned int n;
	int ret;

	snprintf(cmd, sizeof(cmd), "all %u pipelined", count);
	ret = raw_nop_run(dev, cmd, &text);
	if (ret)
		return ret;
	ret = -EPROTO;
	if (sscanf(text, "engine all mode pipelined count %u total_ns %llu", &n, &t) == 2 &&
	    n == count) {
		*total_ns = t;
		ret = 0;
	}
	free(text);
	return ret;
}

int bench_preempt_latencies(struct tern_device *dev, double **ns, unsigned int *count)
{
	char *text = NULL, *line, *save = NULL;
	unsigned int n = 0, cap = 0;
	double *v = NULL;
	int ret;

	ret = bench_debugfs_read(dev, "preempt_latency", &text);
	if (ret)
		return ret;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long lat;
		unsigned int engine;

		if (sscanf(line, "%u %llu", &engine, &lat) != 2) {
			ret = -EPROTO;
			break;
		}
		if (n == cap) {
			double *nv = realloc(v, (cap ? cap * 2 : 64) * sizeof(*v));

			if (!nv) {
				ret = -ENOMEM;
				break;
			}
			v = nv;
			cap = cap ? cap * 2 : 64;
		}
		v[n++] = (double)lat;
	}
	free(text);
	if (ret) {
		free(v);
		return ret;
	}
	*ns = v;
	*count = n;
	return 0;
}

int bench_preempt_latencies_clear(struct tern_device *dev)
{
	return bench_debugfs_write(dev, "preempt_latency", "0");
}
