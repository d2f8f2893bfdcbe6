/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The tern authors
 *
 * tap.h - TAP output for libtern's host tests (tests/run.sh counts it).
 */
#ifndef TERN_HOST_TAP_H
#define TERN_HOST_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_fails;

__attribute__((format(printf, 2, 3)))
static inline bool ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!cond)
		tap_fails++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return cond;
}

static inline int tap_end(void)
{
	printf("1..%d\n", tap_n);
	return tap_fails ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* TERN_HOST_TAP_H */
