/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_COREDUMP_H__
#define __TERN_COREDUMP_H__

struct tern_fault_info;
struct tern_sched;
struct tern_sched_job;

void tern_coredump_capture(struct tern_sched *sched, struct tern_sched_job *job,
			   const char *reason, const struct tern_fault_info *fault);

#endif /* __TERN_COREDUMP_H__ */
