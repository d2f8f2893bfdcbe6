/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */

#ifndef __TERN_POLICY_H__
#define __TERN_POLICY_H__

#include <linux/list.h>
#include <linux/types.h>

/* Priority classes, numbered like DRM_TERN_PRIORITY_*: higher runs first. */
#define TERN_POLICY_CLASSES		3
/*
 * Picks of the kernel queue in a row while other work waits, after which
 * one pick goes to the others (tern_policy_set_kernel()).
 */
#define TERN_POLICY_KERNEL_STREAK	4

/* Weight of a context of default weight; shares go as weights. */
#define TERN_POLICY_WEIGHT_SCALE	1024u
#define TERN_POLICY_WEIGHT_MIN		1u
#define TERN_POLICY_WEIGHT_MAX		(64u * TERN_POLICY_WEIGHT_SCALE)

/**
 * enum tern_policy_mode - how a policy chooses
 * @TERN_POLICY_FAIR: priority classes, weighted fair share, quantum, no
 *	starvation
 * @TERN_POLICY_FIFO: first come, first served; preempts only for the
 *	kernel queue (tern_policy_set_kernel())
 * @TERN_POLICY_DRMFAIR: a model of the FAIR policy of Linux's DRM GPU
 *	scheduler: one queue ordered by virtual device time that lower
 *	classes accumulate faster; preempts only for the kernel queue
 */
enum tern_policy_mode {
	TERN_POLICY_FAIR,
	TERN_POLICY_FIFO,
	TERN_POLICY_DRMFAIR,
};

/**
 * enum tern_policy_reason - why the policy picked a job or asked for a
 *	preemption (reported by the tern_job_run and tern_preempt_request
 *	tracepoints; docs/tracepoints.md)
 * @TERN_POLICY_REASON_NONE: no decision (should_preempt: keep running)
 * @TERN_POLICY_REASON_FIFO: fifo mode: the oldest ready job
 * @TERN_POLICY_REASON_PRIORITY: a pick: the highest class with ready work,
 *	in it the entity with the least virtual time; a preemption: a job of
 *	a strictly higher class is ready or in the second slot
 * @TERN_POLICY_REASON_QUANTUM: a preemption: the running job used its
 *	quantum and another entity of its class (or a job owed a turn) waits
 * @TERN_POLICY_REASON_STARVATION: a lower class reached its starvation
 *	bound: it gets this pick, or the running job is preempted for it
 * @TERN_POLICY_REASON_PROMISED: a pick: the job a preemption cancelled in
 *	the second slot goes first again
 * @TERN_POLICY_REASON_OWED: a pick: a job picked for a starved class and
 *	preempted before it ran a quantum keeps its turn
 * @TERN_POLICY_REASON_DRMFAIR: drmfair mode: the entity with the least
 *	drmfair virtual time
 * @TERN_POLICY_REASON_KERNEL: any mode: the driver's own queue
 *	(tern_policy_set_kernel()) has work: it is picked first, and the
 *	running job of another entity is preempted for it
 */
enum tern_policy_reason {
	TERN_POLICY_REASON_NONE,
	TERN_POLICY_REASON_FIFO,
	TERN_POLICY_REASON_PRIORITY,
	TERN_POLICY_REASON_QUANTUM,
	TERN_POLICY_REASON_STARVATION,
	TERN_POLICY_REASON_PROMISED,
	TERN_POLICY_REASON_OWED,
	TERN_POLICY_REASON_DRMFAIR,
	TERN_POLICY_REASON_KERNEL,
};

struct tern_policy_entity;

/**
 * struct tern_policy_job - a job as the policy sees it
 * @link: in the entity's queue
 * @entity: the entity the job was pushed to
 * @seq: arrival number on the policy; kept when the job is re-queued
 */
struct tern_policy_job {
	struct list_head link;
	struct tern_policy_entity *entity;
	u64 seq;
};

/**
 * struct tern_policy_entity - one context on one engine
 * @link: in &tern_policy.entities
 * @ready_link: in &tern_policy.ready while @queued is not 0
 * @queue: ready jobs, head first
 * @prio: priority class, 0 .. TERN_POLICY_CLASSES - 1
 * @weight: share weight, TERN_POLICY_WEIGHT_SCALE by default
 * @vtime: virtual time: device ns charged, scaled by SCALE / @weight
 * @queued: number of jobs in @queue
 * @run_ns: device ns charged in total (for debugfs and tests)
 * @dvtime: drmfair mode's virtual time, the entity's key in its queue:
 *	absolute while @dplaced, otherwise how far (at least 0) the entity
 *	was ahead of the queue's first one when it left, kept while it has
 *	no ready job
 * @dpending: drmfair: device ns charged, each shifted left by its class's
 *	factor, not yet added to @dvtime (that happens when a pick leaves
 *	the entity jobs to run)
 * @dplaced: @dvtime is absolute: the entity was placed on the drmfair
 *	queue when it became ready
 */
struct tern_policy_entity {
	struct list_head link;
	struct list_head ready_link;
	struct list_head queue;
	unsigned int prio;
	u32 weight;
	u64 vtime;
	unsigned int queued;
	u64 run_ns;
	s64 dvtime;
	u64 dpending;
	bool dplaced;
};

/**
 * struct tern_policy - the scheduling decisions of one engine
 * @mode: &enum tern_policy_mode
 * @quantum_ns: device time after which a running job yields to waiting work
 *	of the same or a higher class
 * @starve_ns: device time higher classes may run while a lower class waits
 *	before the lower class gets the next pick (see docs/scheduler.md)
 * @entities: all entities of the engine
 * @ready: the entities that have ready jobs; decisions look at these only,
 *	so idle contexts cost nothing
 * @ready_count: per class, the entities on @ready
 * @seq: arrival counter
 * @min_vtime: per class, the floor of the virtual time of runnable entities;
 *	never decreases
 * @starved_ns: per class, device time charged to higher classes while this
 *	class had ready work and was not picked
 * @promised: the job cancelled in the second slot by the last preemption;
 *	picked before others unless a class above @promised_bar is ready,
 *	which then goes first while the promise stands
 * @promised_bar: the class of @promised
 * @owed: the last job picked for a starved class; yields only to
 *	preemption, like a job of the running class, and keeps its turn if it
 *	is preempted before it ran a quantum
 * @owed_ns: device time charged to @owed's entity since it was picked
 * @kernel: the driver's own entity on the engine, or NULL
 *	(tern_policy_set_kernel())
 * @kernel_streak: picks of @kernel since the last pick of another entity
 * @last_pick: &enum tern_policy_reason of the last tern_policy_pick_next()
 *	that returned a job
 */
struct tern_policy {
	enum tern_policy_mode mode;
	u64 quantum_ns;
	u64 starve_ns;
	struct list_head entities;
	struct list_head ready;
	unsigned int ready_count[TERN_POLICY_CLASSES];
	u64 seq;
	u64 min_vtime[TERN_POLICY_CLASSES];
	u64 starved_ns[TERN_POLICY_CLASSES];
	struct tern_policy_job *promised;
	unsigned int promised_bar;
	const struct tern_policy_job *owed;
	u64 owed_ns;
	struct tern_policy_entity *kernel;
	unsigned int kernel_streak;
	enum tern_policy_reason last_pick;
};

void tern_policy_init(struct tern_policy *p, enum tern_policy_mode mode,
		      u64 quantum_ns, u64 starve_ns);
void tern_policy_entity_add(struct tern_policy *p, struct tern_policy_entity *e,
			    unsigned int prio, u32 weight);
void tern_policy_set_kernel(struct tern_policy *p, struct tern_policy_entity *e);
void tern_policy_entity_remove(struct tern_policy *p,
			       struct tern_policy_entity *e);
void tern_policy_push(struct tern_policy *p, struct tern_policy_entity *e,
		      struct tern_policy_job *job);
struct tern_policy_job *tern_policy_entity_pop(struct tern_policy *p,
					       struct tern_policy_entity *e);
struct tern_policy_job *tern_policy_entity_peek(struct tern_policy_entity *e);
void tern_policy_transfer(struct tern_policy *p,
			  const struct tern_policy_job *from,
			  struct tern_policy_job *to);
struct tern_policy_job *tern_policy_pick_next(struct tern_policy *p);
void tern_policy_charge(struct tern_policy *p, struct tern_policy_entity *e,
			u64 ns);
enum tern_policy_reason
tern_policy_should_preempt(const struct tern_policy *p,
			   const struct tern_policy_job *running,
			   u64 running_ns, const struct tern_policy_job *next);
void tern_policy_forget(struct tern_policy *p,
			const struct tern_policy_job *job);
u64 tern_policy_next_check(const struct tern_policy *p,
			   const struct tern_policy_job *running,
			   u64 running_ns,
			   const struct tern_policy_job *next);
bool tern_policy_time_matters(const struct tern_policy *p,
			      const struct tern_policy_job *running,
			      const struct tern_policy_job *next);
void tern_policy_requeue(struct tern_policy *p,
			 struct tern_policy_job *running,
			 struct tern_policy_job *next);

/**
 * struct tern_policy_progress - hang predicate state of one engine
 * @last: progress counter at the last change
 * @since_ns: time of the last change
 */
struct tern_policy_progress {
	u32 last;
	u64 since_ns;
};

void tern_policy_progress_start(struct tern_policy_progress *pp, u32 progress,
				u64 now_ns);
bool tern_policy_hung(struct tern_policy_progress *pp, u32 progress,
		      u64 now_ns, u64 timeout_ns);

#endif /* __TERN_POLICY_H__ */
