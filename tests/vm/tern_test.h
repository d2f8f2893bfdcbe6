/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * tern_test.h - small TAP helpers shared by the VM tests in tests/vm/.
 *
 * A VM test is one C11 program: it calls tap_plan() (or tap_done() at the
 * end when the count is not known up front), reports every check with
 * tap_ok() and returns tap_exit_status() from main().
 */
#ifndef TERN_TEST_H
#define TERN_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int tap_count;
static int tap_failed;

static inline void tap_plan(int n)
{
	printf("1..%d\n", n);
	fflush(stdout);
}

static inline void tap_done(void)
{
	printf("1..%d\n", tap_count);
	fflush(stdout);
}

__attribute__((format(printf, 2, 3)))
static inline bool tap_ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	if (!cond)
		tap_failed++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return cond;
}

__attribute__((format(printf, 1, 2)))
static inline void tap_skip(const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	printf("ok %d - ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP\n");
	fflush(stdout);
}

__attribute__((format(printf, 1, 2)))
static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline int tap_exit_status(void)
{
	return tap_failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* The first tern device node; tests run as root in the VM. */
#define TERN_TEST_NODE "/dev/accel/accel0"

static inline int tern_test_open(void)
{
	int fd = open(TERN_TEST_NODE, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		tap_diag("open %s: %s", TERN_TEST_NODE, strerror(errno));
	return fd;
}

/* The module file, for tests that unload and reload the driver. */
static inline const char *tern_test_module_path(void)
{
	const char *p = getenv("TERN_KO");

	return p ? p : "/tern/tern.ko";
}

#endif /* TERN_TEST_H */
