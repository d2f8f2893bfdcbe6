/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The tern authors
 *
 * fdinfo.h - reading the DRM usage statistics a driver prints in
 * /proc/<pid>/fdinfo/<fd> (Documentation/gpu/drm-usage-stats.rst), and the
 * per-engine preemption counters of tern's debugfs.
 */
#ifndef TERN_TOOLS_FDINFO_H
#define TERN_TOOLS_FDINFO_H

#include <stdbool.h>
#include <stdint.h>

#define FDINFO_MAX_ENGINES	16

struct fdinfo_engine {
	char name[32];			/* the <keystr> of drm-engine-<keystr> */
	uint64_t busy_ns;
	uint32_t capacity;		/* drm-engine-capacity-<keystr>, 1 if absent */
};

struct drm_fdinfo {
	char driver[32];
	char pdev[32];
	uint64_t client_id;
	bool has_client_id;
	unsigned int engine_count;
	struct fdinfo_engine engines[FDINFO_MAX_ENGINES];
	uint64_t total_bytes;		/* sum of drm-total-<region> */
	uint64_t resident_bytes;	/* sum of drm-resident-<region> */
};

/*
 * Parse the text of one fdinfo file.  Returns 0 if it describes a DRM
 * client (it has a drm-driver key), -1 otherwise.  Unknown keys are
 * ignored; engines beyond FDINFO_MAX_ENGINES are dropped.
 */
int drm_fdinfo_parse(const char *text, struct drm_fdinfo *out);

/* The engine named @name in @fi, or NULL. */
const struct fdinfo_engine *drm_fdinfo_engine(const struct drm_fdinfo *fi, const char *name);

/*
 * Preemption counters of one engine, from the "engines" file of tern's
 * debugfs directory (/sys/kernel/debug/accel/<minor>/engines, root only).
 * fdinfo has no preemption keys; the tools show these when they can read
 * the file and say so when they cannot.
 */
struct tern_engine_preempt {
	unsigned int id;
	char class_name[16];		/* "compute" or "copy" */
	uint64_t requested;		/* preemption requests the driver made */
	uint64_t served;		/* requests the engine served */
	uint64_t jobs;			/* running jobs actually preempted */
	uint64_t max_latency_ns;	/* longest request to served */
};

/*
 * Parse the text of the debugfs engines file into @out (room for @max).
 * Returns the number of engines that had a preemption line (0 for a driver
 * without preemption), never more than @max.
 */
unsigned int tern_engines_parse(const char *text, struct tern_engine_preempt *out,
				unsigned int max);

#endif /* TERN_TOOLS_FDINFO_H */
