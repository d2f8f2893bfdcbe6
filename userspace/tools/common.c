// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * common.c - helpers shared by the tern tools and examples.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

int tool_exit_code(int err)
{
	switch (-err) {
	case 0:
		return TOOL_EXIT_OK;
	case ENOENT:
	case ENODEV:
	case ENXIO:
		return TOOL_EXIT_NODEV;
	case EACCES:
	case EPERM:
		return TOOL_EXIT_NOPERM;
	}
	return TOOL_EXIT_FAIL;
}

void tool_error(int err, const char *what)
{
	const char *msg = tern_last_error();

	fprintf(stderr, "%s: %s: %s\n", tool_name, what, msg[0] ? msg : tern_strerror(err));
}

int tool_open(const char *spec, struct tern_device **devp)
{
	char *end;
	unsigned long index = 0;
	int ret;

	if (spec && spec[0] && spec[0] != '/') {
		index = strtoul(spec, &end, 10);
		if (*end) {
			fprintf(stderr, "%s: device \"%s\": give a number or a path\n",
				tool_name, spec);
			return TOOL_EXIT_USAGE;
		}
	}
	if (spec && spec[0] == '/')
		ret = tern_device_open_path(spec, devp);
	else
		ret = tern_device_open((unsigned int)index, devp);
	if (ret) {
		fprintf(stderr, "%s: %s\n", tool_name, tern_last_error());
		return tool_exit_code(ret);
	}
	return TOOL_EXIT_OK;
}

int tool_parse_u64(const char *s, uint64_t *v)
{
	unsigned long long n;
	unsigned int shift = 0;
	char *end;

	errno = 0;
	if (!s || !*s || *s == '-')
		return -1;
	n = strtoull(s, &end, 0);
	if (errno)
		return -1;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	}
	if (shift) {
		if (n > (UINT64_MAX >> shift))
			return -1;
		n <<= shift;
		end++;
	}
	if (*end)
		return -1;
	*v = n;
	return 0;
}

uint64_t tool_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void tool_fill_random(float *v, uint64_t count, uint32_t seed)
{
	uint32_t x = seed ? seed : 1;
	uint64_t i;

	for (i = 0; i < count; i++) {
		/* xorshift32: fast and the same everywhere */
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		v[i] = (float)(x >> 8) / (float)(1u << 23) - 1.0f;
	}
}
