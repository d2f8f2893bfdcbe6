/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The tern authors
 *
 * common.h - what the tern tools and examples share: exit codes, opening the
 * device with a message a user can act on, timing and small helpers.
 */
#ifndef TERN_TOOLS_COMMON_H
#define TERN_TOOLS_COMMON_H

#include <stdint.h>

#include <tern/tern.h>

/* Exit codes of every tern tool (documented in docs/libtern.md). */
enum {
	TOOL_EXIT_OK = 0,
	TOOL_EXIT_FAIL = 1,		/* an operation failed or a result was wrong */
	TOOL_EXIT_USAGE = 2,		/* bad command line */
	TOOL_EXIT_NODEV = 3,		/* no tern device (no module, no node) */
	TOOL_EXIT_NOPERM = 4,		/* no permission to open the device */
};

extern const char *tool_name;

/*
 * Open the device named by @spec: NULL or "" for the first tern device, a
 * number for the Nth, or a path.  Prints why it failed and returns the exit
 * code to use, or TOOL_EXIT_OK with *@devp set.
 */
int tool_open(const char *spec, struct tern_device **devp);

/* The exit code for a library error @err (no device, no permission, ...). */
int tool_exit_code(int err);

/* Print "<tool>: <what>: <tern_last_error() or tern_strerror(err)>". */
void tool_error(int err, const char *what);

/* Parse an unsigned number with an optional k/M/G suffix; -1 if invalid. */
int tool_parse_u64(const char *s, uint64_t *v);

/* CLOCK_MONOTONIC in ns. */
uint64_t tool_now_ns(void);

/* Deterministic pseudo-random floats in [-1, 1), from @seed. */
void tool_fill_random(float *v, uint64_t count, uint32_t seed);

#endif /* TERN_TOOLS_COMMON_H */
