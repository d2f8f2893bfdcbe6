// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/array_size.h>
#include <linux/bug.h>
#include <linux/math64.h>
#include <linux/minmax.h>

#include "tern_policy.h"

/**
 * DOC: policy
 *
 * The policy decides what an engine runs next; it knows nothing of the
 * hardware.  Each context that has work on an engine is one
 * &struct tern_policy_entity on that engine's &struct tern_policy, with a
 * priority class, a weight and a queue of ready jobs (&struct
 * tern_policy_job, embedded in the caller's job).  The caller pushes jobs
 * whose dependencies resolved, asks for the next job whenever a slot is free
 * (tern_policy_pick_next()), charges the device time a job used when its slot
 * reports an outcome (tern_policy_charge(), RUN_NS), asks on every event and
 * tick whether the running job should be preempted
 * (tern_policy_should_preempt()) and, after a preemption, gives the preempted
 * and the cancelled job back (tern_policy_requeue()).
 *
 * In %TERN_POLICY_FAIR mode:
 *
 * - Classes are strict: a job of a higher class is picked before any job of
 *   a lower one, and a ready job of a strictly higher class than the running
 *   one preempts it at once.
 * - Inside a class the entity with the smallest virtual time is picked.
 *   Charging ns of device time advances virtual time by
 *   ns * TERN_POLICY_WEIGHT_SCALE / weight, so device time is shared in
 *   proportion to weights.  An entity that becomes ready again starts no
 *   lower than the class's floor (&tern_policy.min_vtime), so sleeping
 *   earns no credit.
 * - After &tern_policy.quantum_ns of device time a running job is
 *   preempted when a job of another entity of the same or a higher class is
 *   ready or sits in the second slot; when nothing else is ready it keeps
 *   running.
 * - No starvation: while a class has ready work and is not picked, the
 *   device time charged to higher classes accumulates in its
 *   &tern_policy.starved_ns.  Once that reaches &tern_policy.starve_ns the
 *   class gets the next pick (the highest such class first) and its count
 *   restarts; the running job is preempted for it too, and the job picked
 *   for it is not preempted before it ran a quantum.  A class with ready work therefore waits at
 *   most starve_ns plus one quantum of higher-class device time (plus the
 *   caller's tick), and then runs for a quantum or to the end of its job.
 * - A job already picked for the second slot is never taken back to
 *   reorder: only a preemption cancels it, and after tern_policy_requeue()
 *   it is picked first again unless work of a class above its own is
 *   ready, which goes first while the promise stands (a job of the
 *   preempted context itself just stays behind it in the context's
 *   queue).  A job picked for a starved class counts, at quantum expiry,
 *   like a job of the running class, so it reaches the device within a
 *   quantum.
 *
 * In %TERN_POLICY_FIFO mode jobs are picked in arrival order regardless of
 * class and weight, and nothing is preempted: the baseline of benchmarks.
 *
 * %TERN_POLICY_DRMFAIR mode models the FAIR policy of Linux's DRM GPU
 * scheduler (drm_sched), its default since 7.2, as the second baseline:
 *
 * - All ready entities are in one queue, whatever their class, ordered by
 *   a virtual time of their own (&tern_policy_entity.dvtime); the entity
 *   with the least goes next (ties: the older head job).  Weights are
 *   ignored: drm_sched has none.
 * - Charging ns of device time adds ns shifted left by a factor of the
 *   class (tern_policy_drmfair_shift): lower classes age faster, so
 *   under load HIGH gets about 4 times NORMAL's device time and NORMAL 8
 *   times LOW's, and no class starves.  As in drm_sched, where run time
 *   is accounted when a job is freed and folded into the entity's key
 *   when its next job is taken, the time charged is added when a pick
 *   leaves the entity more jobs (&tern_policy_entity.dpending): the key
 *   lags one job behind, and a context that never has two jobs ready at
 *   once is never aged.
 * - An entity whose last ready job is picked leaves the queue keeping only
 *   how far it was ahead of the queue's minimum (never a credit); when it
 *   has a ready job again it is placed that far after the minimum of the
 *   queue as it is then.  One that was not ahead is placed just before the
 *   minimum entity when its class is higher, just after it when lower.
 * - Nothing is preempted (drm_sched cannot preempt), but for the kernel
 *   queue of page-table updates (tern_policy_set_kernel()), and there is no
 *   quantum: a running job runs to its end; both slots are still filled.
 *
 * Cost: decisions look only at the entities that have ready jobs
 * (&tern_policy.ready), so contexts without work cost nothing; a decision
 * is linear in the number of ready contexts of the engine.
 *
 * Locking: none.  The caller serialises all calls on one policy and its
 * entities (in the driver, the engine's scheduler lock).
 */

/**
 * tern_policy_init() - initialise the policy of one engine
 * @p: the policy
 * @mode: &enum tern_policy_mode
 * @quantum_ns: time slice inside a class
 * @starve_ns: starvation bound of lower classes; at least @quantum_ns
 */
void tern_policy_init(struct tern_policy *p, enum tern_policy_mode mode,
		      u64 quantum_ns, u64 starve_ns)
{
	unsigned int c;

	p->mode = mode;
	p->quantum_ns = quantum_ns;
	p->starve_ns = max(starve_ns, quantum_ns);
	INIT_LIST_HEAD(&p->entities);
	INIT_LIST_HEAD(&p->ready);
	p->seq = 0;
	for (c = 0; c < TERN_POLICY_CLASSES; c++) {
		p->ready_count[c] = 0;
		p->min_vtime[c] = 0;
		p->starved_ns[c] = 0;
	}
	p->promised = NULL;
	p->promised_bar = 0;
	p->owed = NULL;
	p->owed_ns = 0;
	p->kernel = NULL;
	p->kernel_streak = 0;
}

/*
 * drmfair: by how many bits a class's device time is shifted into virtual
 * time; drm_sched's factors for its LOW, NORMAL and HIGH priorities.
 */
static const u8 tern_policy_drmfair_shift[TERN_POLICY_CLASSES] = {
	7, 4, 2
};

/* drmfair: the offset from the minimum per class of difference, 1 us */
#define TERN_POLICY_DRMFAIR_NUDGE_NS	1000

/* drmfair: whether @a goes before @b (both ready) */
static bool tern_policy_drmfair_before(const struct tern_policy_entity *a,
				       const struct tern_policy_entity *b)
{
	const struct tern_policy_job *ha, *hb;

	if (a->dvtime != b->dvtime)
		return a->dvtime < b->dvtime;
	ha = list_first_entry(&a->queue, struct tern_policy_job, link);
	hb = list_first_entry(&b->queue, struct tern_policy_job, link);
	return ha->seq < hb->seq;
}

/* drmfair: the first of the placed ready entities other than @skip */
static const struct tern_policy_entity *
tern_policy_drmfair_head(const struct tern_policy *p,
			 const struct tern_policy_entity *skip)
{
	const struct tern_policy_entity *e, *head = NULL;

	list_for_each_entry(e, &p->ready, ready_link)
		if (e != skip && e->dplaced &&
		    (!head || tern_policy_drmfair_before(e, head)))
			head = e;
	return head;
}

/* drmfair: keep only how far @e is ahead of the queue's first entity */
static void tern_policy_drmfair_leave(const struct tern_policy *p,
				      struct tern_policy_entity *e)
{
	const struct tern_policy_entity *head;

	if (!e->dplaced)
		return;
	head = tern_policy_drmfair_head(p, e);
	if (head && e->dvtime > head->dvtime)
		e->dvtime -= head->dvtime;
	else
		e->dvtime = 0;
	e->dplaced = false;
}

/* drmfair: place @e, becoming ready, relative to the queue's first entity */
static void tern_policy_drmfair_place(const struct tern_policy *p,
				      struct tern_policy_entity *e)
{
	const struct tern_policy_entity *head;
	s64 nudge;

	/* still absolute: it left the queue in another mode */
	tern_policy_drmfair_leave(p, e);
	head = tern_policy_drmfair_head(p, e);
	if (head) {
		nudge = ((s64)head->prio - (s64)e->prio) *
			TERN_POLICY_DRMFAIR_NUDGE_NS;
		e->dvtime += head->dvtime + (e->dvtime ? 0 : nudge);
	}
	e->dplaced = true;
}

static bool tern_policy_class_ready(const struct tern_policy *p,
				    unsigned int prio)
{
	return p->ready_count[prio];
}

/* One more job on @e's queue: the entity is ready. */
static void tern_policy_queued_inc(struct tern_policy *p,
				   struct tern_policy_entity *e)
{
	if (!e->queued++) {
		list_add_tail(&e->ready_link, &p->ready);
		p->ready_count[e->prio]++;
	}
}

/* One job fewer on @e's queue: the entity may be idle now. */
static void tern_policy_queued_dec(struct tern_policy *p,
				   struct tern_policy_entity *e)
{
	if (!--e->queued) {
		list_del_init(&e->ready_link);
		p->ready_count[e->prio]--;
		if (p->mode == TERN_POLICY_DRMFAIR)
			tern_policy_drmfair_leave(p, e);
	}
}

/**
 * tern_policy_entity_add() - add a context to an engine's policy
 * @p: the policy
 * @e: the entity, not yet on any policy
 * @prio: priority class (DRM_TERN_PRIORITY_*); clamped to the highest
 * @weight: share weight; clamped to TERN_POLICY_WEIGHT_MIN .. _MAX
 *
 * The entity starts at its class's floor of virtual time.
 */
void tern_policy_entity_add(struct tern_policy *p, struct tern_policy_entity *e,
			    unsigned int prio, u32 weight)
{
	INIT_LIST_HEAD(&e->queue);
	INIT_LIST_HEAD(&e->ready_link);
	e->prio = min(prio, TERN_POLICY_CLASSES - 1);
	e->weight = clamp(weight, TERN_POLICY_WEIGHT_MIN, TERN_POLICY_WEIGHT_MAX);
	e->vtime = p->min_vtime[e->prio];
	e->queued = 0;
	e->run_ns = 0;
	e->dvtime = 0;
	e->dpending = 0;
	e->dplaced = false;
	list_add_tail(&e->link, &p->entities);
}

/**
 * tern_policy_entity_remove() - remove a context from an engine's policy
 * @p: the policy
 * @e: the entity; its queue must be empty (the caller cancels the jobs)
 */
void tern_policy_entity_remove(struct tern_policy *p,
			       struct tern_policy_entity *e)
{
	if (WARN_ON(e->queued)) {
		list_del_init(&e->ready_link);
		p->ready_count[e->prio]--;
	}
	if (p->promised && p->promised->entity == e)
		p->promised = NULL;
	if (p->owed && p->owed->entity == e)
		p->owed = NULL;
	if (p->kernel == e)
		p->kernel = NULL;
	list_del_init(&e->link);
}

/**
 * tern_policy_set_kernel() - make an entity the driver's own queue
 * @p: the policy
 * @e: an entity of @p
 *
 * Whatever the mode, a ready job of @e is picked before any other, and the
 * running job of another entity is preempted for it
 * (%TERN_POLICY_REASON_KERNEL), except after TERN_POLICY_KERNEL_STREAK
 * such picks in a row while other work waited: then one pick is made as
 * without @e.  Its jobs are short and not preemptible:
 * the driver's page-table updates, which the jobs of every other entity may
 * be waiting for.
 */
void tern_policy_set_kernel(struct tern_policy *p, struct tern_policy_entity *e)
{
	p->kernel = e;
	p->kernel_streak = 0;
}

/*
 * Whether the kernel queue takes the next pick: it has work, and it has not
 * taken TERN_POLICY_KERNEL_STREAK picks in a row while other work waited
 * (so that a stream of updates from many processes cannot starve the
 * engine's other contexts: every so many updates, the policy picks as it
 * would without them).
 */
static bool tern_policy_kernel_turn(const struct tern_policy *p)
{
	unsigned int ready = 0;
	int c;

	if (!p->kernel || !p->kernel->queued)
		return false;
	if (p->kernel_streak < TERN_POLICY_KERNEL_STREAK)
		return true;
	for (c = 0; c < TERN_POLICY_CLASSES; c++)
		ready += p->ready_count[c];
	/* the kernel queue is one of them */
	return ready <= 1;
}

/* The entity's queue goes from empty to not empty. */
static void tern_policy_wake(struct tern_policy *p, struct tern_policy_entity *e)
{
	if (!tern_policy_class_ready(p, e->prio))
		p->starved_ns[e->prio] = 0;
	e->vtime = max(e->vtime, p->min_vtime[e->prio]);
	if (p->mode == TERN_POLICY_DRMFAIR)
		tern_policy_drmfair_place(p, e);
}

/**
 * tern_policy_push() - a job of a context is ready to run
 * @p: the policy
 * @e: the job's entity
 * @job: the job; it goes to the tail of the entity's queue
 */
void tern_policy_push(struct tern_policy *p, struct tern_policy_entity *e,
		      struct tern_policy_job *job)
{
	/* A job pushed again is a new job: forget its old standing. */
	if (p->promised == job)
		p->promised = NULL;
	if (p->owed == job)
		p->owed = NULL;
	if (!e->queued)
		tern_policy_wake(p, e);
	job->entity = e;
	job->seq = p->seq++;
	list_add_tail(&job->link, &e->queue);
	tern_policy_queued_inc(p, e);
}

static struct tern_policy_job *tern_policy_dequeue(struct tern_policy *p,
						   struct tern_policy_entity *e)
{
	struct tern_policy_job *job;

	job = list_first_entry(&e->queue, struct tern_policy_job, link);
	list_del_init(&job->link);
	tern_policy_queued_dec(p, e);
	if (e != p->kernel)
		p->kernel_streak = 0;
	/*
	 * However it is picked (a starved class's turn can pick it while a
	 * higher class keeps the promise waiting), the promised job leaves
	 * the queue: the promise is kept.
	 */
	if (p->promised == job)
		p->promised = NULL;
	return job;
}

/**
 * tern_policy_entity_pop() - take the head job of a context off its queue
 * @p: the policy
 * @e: the entity
 *
 * For a context whose jobs must not run (destroyed, faulted, banned): the
 * caller cancels the jobs it pops, then removes the entity.
 *
 * Return: the job, or NULL when the queue is empty.
 */
struct tern_policy_job *tern_policy_entity_pop(struct tern_policy *p,
					       struct tern_policy_entity *e)
{
	struct tern_policy_job *job;

	if (!e->queued)
		return NULL;
	job = tern_policy_dequeue(p, e);
	if (p->promised == job)
		p->promised = NULL;
	if (p->owed == job)
		p->owed = NULL;
	return job;
}

/**
 * tern_policy_transfer() - let another job keep a job's promise or turn
 * @p: the policy
 * @from: a job that leaves (its batch goes on as @to)
 * @to: the job that takes its place
 */
void tern_policy_transfer(struct tern_policy *p,
			  const struct tern_policy_job *from,
			  struct tern_policy_job *to)
{
	if (p->promised == from)
		p->promised = to;
	if (p->owed == from)
		p->owed = to;
}

/**
 * tern_policy_entity_peek() - the head job of a context's queue
 * @e: the entity
 *
 * Return: the job tern_policy_entity_pop() would take, or NULL.
 */
struct tern_policy_job *tern_policy_entity_peek(struct tern_policy_entity *e)
{
	return list_first_entry_or_null(&e->queue, struct tern_policy_job, link);
}

/*
 * The pick of a mode that preempts only for the kernel queue (fifo,
 * drmfair): the head job of
 * @e, or NULL; such a mode keeps no promises, so those fair mode made go.
 */
static struct tern_policy_job *
tern_policy_take_plain(struct tern_policy *p, struct tern_policy_entity *e,
		       enum tern_policy_reason why)
{
	if (!e)
		return NULL;
	p->promised = NULL;
	p->owed = NULL;
	p->last_pick = why;
	return tern_policy_dequeue(p, e);
}

static struct tern_policy_job *tern_policy_pick_fifo(struct tern_policy *p)
{
	struct tern_policy_entity *e, *best = NULL;
	struct tern_policy_job *head, *best_head = NULL;

	list_for_each_entry(e, &p->ready, ready_link) {
		head = list_first_entry(&e->queue, struct tern_policy_job, link);
		if (!best_head || head->seq < best_head->seq) {
			best = e;
			best_head = head;
		}
	}
	return tern_policy_take_plain(p, best, TERN_POLICY_REASON_FIFO);
}

static struct tern_policy_job *tern_policy_pick_drmfair(struct tern_policy *p)
{
	struct tern_policy_entity *e, *best = NULL;
	struct tern_policy_job *job;

	list_for_each_entry(e, &p->ready, ready_link) {
		/* it became ready while the policy was in another mode */
		if (!e->dplaced)
			tern_policy_drmfair_place(p, e);
		if (!best || tern_policy_drmfair_before(e, best))
			best = e;
	}
	job = tern_policy_take_plain(p, best, TERN_POLICY_REASON_DRMFAIR);
	/* still queued: its key for the next job takes the time charged */
	if (job && best->queued) {
		best->dvtime += (s64)best->dpending;
		best->dpending = 0;
	}
	return job;
}

/* The ready entity of @prio with the smallest virtual time, or NULL. */
static struct tern_policy_entity *
tern_policy_min_entity(const struct tern_policy *p, unsigned int prio)
{
	struct tern_policy_entity *e, *best = NULL;
	struct tern_policy_job *head, *best_head = NULL;

	list_for_each_entry(e, &p->ready, ready_link) {
		if (e->prio != prio)
			continue;
		head = list_first_entry(&e->queue, struct tern_policy_job, link);
		if (!best || e->vtime < best->vtime ||
		    (e->vtime == best->vtime && head->seq < best_head->seq)) {
			best = e;
			best_head = head;
		}
	}
	return best;
}

/* The highest class with ready work, or -1. */
static int tern_policy_top_class(const struct tern_policy *p)
{
	int c;

	for (c = TERN_POLICY_CLASSES - 1; c >= 0; c--)
		if (tern_policy_class_ready(p, c))
			return c;
	return -1;
}

/*
 * The highest class below @top with ready work whose wait, plus @extra_ns
 * still to be charged to a higher class, reached the bound; or -1.
 */
static int tern_policy_starved_class(const struct tern_policy *p, int top,
				     u64 extra_ns)
{
	int c;

	for (c = top - 1; c >= 0; c--)
		if (p->starved_ns[c] + extra_ns >= p->starve_ns &&
		    tern_policy_class_ready(p, c))
			return c;
	return -1;
}

static struct tern_policy_job *tern_policy_pick_others(struct tern_policy *p);

/**
 * tern_policy_pick_next() - choose the job for a free slot
 * @p: the policy
 *
 * The job is taken off its entity's queue; the caller places it in a slot.
 * Why it was chosen is left in &tern_policy.last_pick.
 *
 * Return: the job, or NULL when no job is ready.
 */
struct tern_policy_job *tern_policy_pick_next(struct tern_policy *p)
{
	struct tern_policy_entity *k = p->kernel;
	struct tern_policy_job *job;

	/* before a promise or a debt: those stand for the next pick */
	if (tern_policy_kernel_turn(p)) {
		p->kernel_streak++;
		p->last_pick = TERN_POLICY_REASON_KERNEL;
		return tern_policy_dequeue(p, k);
	}
	if (!k || !k->queued)
		return tern_policy_pick_others(p);
	/* the others' turn: the kernel queue sits this pick out */
	list_del_init(&k->ready_link);
	p->ready_count[k->prio]--;
	job = tern_policy_pick_others(p);
	list_add_tail(&k->ready_link, &p->ready);
	p->ready_count[k->prio]++;
	return job;
}

/* A pick as the mode makes it, among the entities on @p->ready. */
static struct tern_policy_job *tern_policy_pick_others(struct tern_policy *p)
{
	struct tern_policy_entity *e;
	struct tern_policy_job *job;
	int top, c;

	if (p->mode == TERN_POLICY_FIFO)
		return tern_policy_pick_fifo(p);
	if (p->mode == TERN_POLICY_DRMFAIR)
		return tern_policy_pick_drmfair(p);

	top = tern_policy_top_class(p);
	if (top < 0)
		return NULL;

	/*
	 * A job picked for a starved class that was preempted before it ran
	 * a quantum keeps its turn: the request was meant for the job ahead
	 * of it, which ended just before the engine served it.
	 */
	if (p->owed && p->owed->entity->queued &&
	    list_first_entry(&p->owed->entity->queue, struct tern_policy_job,
			     link) == p->owed) {
		e = p->owed->entity;
		p->starved_ns[e->prio] = 0;
		job = tern_policy_dequeue(p, e);
		if (p->promised == job)
			p->promised = NULL;
		p->owed = job;
		p->last_pick = TERN_POLICY_REASON_OWED;
		return job;
	}

	/*
	 * The job a preemption cancelled in the second slot had been chosen:
	 * it goes first again (after its context's earlier jobs), unless work
	 * of a class above its own is ready (strict classes, rule 1).  That
	 * work goes first; the promise stands, for the first pick after it:
	 * nothing of its class or below takes its turn.
	 */
	if (p->promised && top <= p->promised_bar) {
		job = tern_policy_dequeue(p, p->promised->entity);
		p->last_pick = TERN_POLICY_REASON_PROMISED;
		return job;
	}

	c = tern_policy_starved_class(p, top, 0);
	p->starved_ns[c < 0 ? top : c] = 0;
	e = tern_policy_min_entity(p, c < 0 ? top : c);
	p->min_vtime[e->prio] = max(p->min_vtime[e->prio], e->vtime);
	job = tern_policy_dequeue(p, e);
	if (c >= 0) {
		p->owed = job;
		p->owed_ns = 0;
	}
	p->last_pick = c >= 0 ? TERN_POLICY_REASON_STARVATION :
				TERN_POLICY_REASON_PRIORITY;
	return job;
}

/**
 * tern_policy_charge() - account device time a job of @e used
 * @p: the policy
 * @e: the entity the job belongs to
 * @ns: the slot's RUN_NS: device time of the run that ended
 *
 * Called once per slot outcome (COMPLETED, PREEMPTED, FAULTED; CANCELLED
 * runs are 0 ns), whether or not the entity has more work.
 */
void tern_policy_charge(struct tern_policy *p, struct tern_policy_entity *e,
			u64 ns)
{
	int c;

	e->run_ns += ns;
	e->vtime += mul_u64_u32_div(ns, TERN_POLICY_WEIGHT_SCALE, e->weight);
	if (p->owed && p->owed->entity == e)
		p->owed_ns += ns;

	for (c = e->prio - 1; c >= 0; c--)
		if (tern_policy_class_ready(p, c))
			p->starved_ns[c] += ns;

	if (p->mode == TERN_POLICY_DRMFAIR)
		e->dpending += ns << tern_policy_drmfair_shift[e->prio];
}

/**
 * tern_policy_should_preempt() - whether to preempt the running job now
 * @p: the policy
 * @running: the job in the RUNNING slot
 * @running_ns: device time it has run since it was last started
 * @next: the job in the PENDING slot, or NULL
 *
 * Preempting also cancels @next (the hardware does): after the outcomes
 * the caller charges the preempted run and gives both jobs back with
 * tern_policy_requeue().
 *
 * Return: why to preempt, or %TERN_POLICY_REASON_NONE (0) to keep running:
 * %TERN_POLICY_REASON_PRIORITY when a ready job or @next is of a strictly
 * higher class than @running; %TERN_POLICY_REASON_QUANTUM when @running_ns
 * reached the quantum and a job of another entity of the same class (or
 * one owed a turn) is ready or is @next; %TERN_POLICY_REASON_STARVATION when
 * a lower class reached its starvation bound, or @next, owed a turn by a
 * starved class, waits for an expired quantum.  Never in fifo or drmfair
 * mode, and never when nothing else is ready.
 */
enum tern_policy_reason
tern_policy_should_preempt(const struct tern_policy *p,
			   const struct tern_policy_job *running,
			   u64 running_ns, const struct tern_policy_job *next)
{
	const struct tern_policy_entity *r = running->entity;
	const struct tern_policy_entity *e;
	bool expired = running_ns >= p->quantum_ns;

	if (p->kernel && r == p->kernel)
		return TERN_POLICY_REASON_NONE;
	if ((next && next->entity == p->kernel) || tern_policy_kernel_turn(p))
		return TERN_POLICY_REASON_KERNEL;
	if (p->mode != TERN_POLICY_FAIR)
		return TERN_POLICY_REASON_NONE;
	/* A job picked for a starved class gets a quantum in any case. */
	if (running == p->owed && !expired)
		return TERN_POLICY_REASON_NONE;

	if (next && next->entity->prio > r->prio)
		return TERN_POLICY_REASON_PRIORITY;
	if (expired && next && next->entity != r &&
	    (next->entity->prio == r->prio || next == p->owed))
		return next->entity->prio == r->prio ?
		       TERN_POLICY_REASON_QUANTUM :
		       TERN_POLICY_REASON_STARVATION;

	list_for_each_entry(e, &p->ready, ready_link) {
		if (e->prio > r->prio)
			return TERN_POLICY_REASON_PRIORITY;
		if (expired && e != r && e->prio == r->prio)
			return TERN_POLICY_REASON_QUANTUM;
	}

	if (tern_policy_starved_class(p, r->prio, running_ns) >= 0)
		return TERN_POLICY_REASON_STARVATION;
	return TERN_POLICY_REASON_NONE;
}

/**
 * tern_policy_forget() - a job left the engine for good
 * @p: the policy
 * @job: the job: completed, failed, or cancelled without running
 *
 * The policy keeps pointers to up to two jobs it picked (the promised and
 * the owed one) beyond the call that picked them; the caller tells it when
 * a job is finished, before the job's memory can be freed.
 */
void tern_policy_forget(struct tern_policy *p, const struct tern_policy_job *job)
{
	if (p->promised == job)
		p->promised = NULL;
	if (p->owed == job)
		p->owed = NULL;
}

/**
 * tern_policy_next_check() - when time alone may change the answer
 * @p: the policy
 * @running: the job in the RUNNING slot
 * @running_ns: device time it has run since it was last started
 * @next: the job in the PENDING slot, or NULL
 *
 * For a caller that just got false from tern_policy_should_preempt() with
 * the same arguments: how much more device time @running may run before
 * the answer can become true without any other event (a job becoming
 * ready, a slot outcome): the end of its quantum when another context of
 * its class waits (or when it was picked for a starved class), or the
 * moment a waiting lower class reaches its starvation bound.  The driver
 * sets a timer for it, so neither waits for a coarse tick.
 *
 * Return: device ns from now, or U64_MAX when only an event can change
 * the answer.
 */
u64 tern_policy_next_check(const struct tern_policy *p,
			   const struct tern_policy_job *running,
			   u64 running_ns,
			   const struct tern_policy_job *next)
{
	const struct tern_policy_entity *r = running->entity;
	const struct tern_policy_entity *e;
	bool rival = false;
	u64 t = U64_MAX;
	int c;

	/* the kernel queue's job is not preemptible: nothing to ask */
	if (p->mode != TERN_POLICY_FAIR || (p->kernel && r == p->kernel))
		return U64_MAX;
	/* nothing preempts a job picked for a starved class before this */
	if (running == p->owed && running_ns < p->quantum_ns)
		return p->quantum_ns - running_ns;

	if (next && next->entity != r &&
	    (next->entity->prio == r->prio || next == p->owed))
		rival = true;
	list_for_each_entry(e, &p->ready, ready_link)
		if (e != r && e->prio == r->prio)
			rival = true;
	if (rival && running_ns < p->quantum_ns)
		t = p->quantum_ns - running_ns;

	for (c = r->prio - 1; c >= 0; c--) {
		u64 waited = p->starved_ns[c] + running_ns;

		if (tern_policy_class_ready(p, c) && waited < p->starve_ns)
			t = min(t, p->starve_ns - waited);
	}
	return t;
}

/**
 * tern_policy_time_matters() - whether the running job's device time can
 *	change the answers about preempting it
 * @p: the policy
 * @running: the job in the RUNNING slot
 * @next: the job in the PENDING slot, or NULL
 *
 * When this returns false, tern_policy_should_preempt() gives the same
 * answer for any running_ns and tern_policy_next_check() returns U64_MAX:
 * the caller may pass 0 instead of reading the engine's busy time.  True
 * in %TERN_POLICY_FAIR mode when @running was picked for a starved class,
 * when another entity of its class (or one owed a turn) is ready or is
 * @next, or when a lower class has ready work that may starve.
 *
 * Return: false when no amount of device time changes the answers.
 */
bool tern_policy_time_matters(const struct tern_policy *p,
			      const struct tern_policy_job *running,
			      const struct tern_policy_job *next)
{
	const struct tern_policy_entity *r = running->entity;
	const struct tern_policy_entity *e;
	int c;

	if (p->mode != TERN_POLICY_FAIR || (p->kernel && r == p->kernel))
		return false;
	if (running == p->owed)
		return true;
	if (next && next->entity != r &&
	    (next->entity->prio == r->prio || next == p->owed))
		return true;
	list_for_each_entry(e, &p->ready, ready_link)
		if (e != r && e->prio == r->prio)
			return true;
	for (c = r->prio - 1; c >= 0; c--)
		if (tern_policy_class_ready(p, c))
			return true;
	return false;
}

/**
 * tern_policy_requeue() - give back the jobs of a preemption
 * @p: the policy
 * @running: the job that was RUNNING (outcome PREEMPTED), or NULL
 * @next: the job that was PENDING (outcome CANCELLED), or NULL
 *
 * Each job goes back to the head of its entity's queue with its arrival
 * number; when both belong to one entity, @running stays ahead of @next, so
 * a context's jobs run in their original order.
 */
void tern_policy_requeue(struct tern_policy *p,
			 struct tern_policy_job *running,
			 struct tern_policy_job *next)
{
	struct tern_policy_job *jobs[2] = { next, running };
	struct tern_policy_entity *e;
	unsigned int i;

	/* a job owed a turn keeps it until it ran a quantum */
	if (running && running == p->owed && p->owed_ns >= p->quantum_ns)
		p->owed = NULL;
	/*
	 * The promise protects a job chosen for another context; jobs of the
	 * preempted context itself just keep their order in its queue.
	 */
	if (next && (!running || running->entity != next->entity)) {
		p->promised = next;
		p->promised_bar = next->entity->prio;
	}

	for (i = 0; i < ARRAY_SIZE(jobs); i++) {
		if (!jobs[i])
			continue;
		e = jobs[i]->entity;
		if (!e->queued)
			tern_policy_wake(p, e);
		list_add(&jobs[i]->link, &e->queue);
		tern_policy_queued_inc(p, e);
	}
}

/**
 * tern_policy_progress_start() - a job started on the engine
 * @pp: the hang predicate state
 * @progress: current ENG_PROGRESS
 * @now_ns: current time
 */
void tern_policy_progress_start(struct tern_policy_progress *pp, u32 progress,
				u64 now_ns)
{
	pp->last = progress;
	pp->since_ns = now_ns;
}

/**
 * tern_policy_hung() - hang predicate over the progress counter
 * @pp: the hang predicate state
 * @progress: ENG_PROGRESS sampled now
 * @now_ns: current time
 * @timeout_ns: the running context's timeout
 *
 * A job is hung when the counter has not moved for @timeout_ns; a job whose
 * counter moves, however slowly, is never hung.
 *
 * Return: true when the running job is hung.
 */
bool tern_policy_hung(struct tern_policy_progress *pp, u32 progress,
		      u64 now_ns, u64 timeout_ns)
{
	if (progress != pp->last) {
		tern_policy_progress_start(pp, progress, now_ns);
		return false;
	}
	return now_ns - pp->since_ns >= timeout_ns;
}
