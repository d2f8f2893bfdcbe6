// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * KUnit tests of the scheduling policy, with a fake engine: two slots, a
 * clock that advances in ticks, jobs that need a given device time, resume
 * after preemption, and contexts that submit a new job whenever one
 * completes (sustained load).
 */

#include <kunit/test.h>

#include "../tern_policy.c"

#define US		1000ull
#define MS		(1000 * US)
#define QUANTUM		(1 * MS)
#define STARVE		(5 * MS)
#define TICK		(50 * US)
#define MAX_CTX		5
#define MAX_JOBS	16
#define MAX_LOG		64

/**
 * struct fake_job - a job of the fake engine
 * @pj: the policy's view
 * @ctx: index of its context
 * @id: number for the completion log
 * @left_ns: device time still needed
 */
struct fake_job {
	struct tern_policy_job pj;
	unsigned int ctx;
	unsigned int id;
	u64 left_ns;
};

/**
 * struct fake_ctx - a context of the fake engine
 * @e: the policy's entity
 * @job_ns: device time of each job
 * @endless: submit the completed job again (sustained load)
 * @jobs: the context's jobs
 * @njobs: jobs used
 * @completed: jobs completed
 */
struct fake_ctx {
	struct tern_policy_entity e;
	u64 job_ns;
	bool endless;
	struct fake_job jobs[MAX_JOBS];
	unsigned int njobs;
	unsigned int completed;
};

/**
 * struct fake_engine - two slots over a policy
 * @test: the running test
 * @p: the policy
 * @ctx: the contexts
 * @nctx: contexts used
 * @slot: slot[0] RUNNING, slot[1] PENDING
 * @ran_ns: device time of slot[0] since it started
 * @now_ns: device clock
 * @preemptions: preemptions done
 * @log: ids of completed jobs, in order
 * @nlog: entries in @log
 */
struct fake_engine {
	struct kunit *test;
	struct tern_policy p;
	struct fake_ctx ctx[MAX_CTX];
	unsigned int nctx;
	struct fake_job *slot[2];
	u64 ran_ns;
	u64 now_ns;
	unsigned int preemptions;
	unsigned int log[MAX_LOG];
	unsigned int nlog;
	/* ticks where the running job's time could matter, and where not */
	unsigned int time_bound;
	unsigned int time_free;
};

static struct fake_engine *fake_engine(struct kunit *test,
				       enum tern_policy_mode mode)
{
	struct fake_engine *eng = kunit_kzalloc(test, sizeof(*eng), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, eng);
	eng->test = test;
	tern_policy_init(&eng->p, mode, QUANTUM, STARVE);
	return eng;
}

static struct fake_ctx *fake_ctx(struct fake_engine *eng, unsigned int prio,
				 u32 weight, u64 job_ns, bool endless)
{
	struct fake_ctx *c;

	KUNIT_ASSERT_LT(eng->test, eng->nctx, MAX_CTX);
	c = &eng->ctx[eng->nctx++];
	c->job_ns = job_ns;
	c->endless = endless;
	tern_policy_entity_add(&eng->p, &c->e, prio, weight);
	return c;
}

static struct fake_job *fake_submit(struct fake_engine *eng,
				    struct fake_ctx *c, unsigned int id)
{
	struct fake_job *job;

	KUNIT_ASSERT_LT(eng->test, c->njobs, MAX_JOBS);
	job = &c->jobs[c->njobs++];
	job->ctx = c - eng->ctx;
	job->id = id;
	job->left_ns = c->job_ns;
	tern_policy_push(&eng->p, &c->e, &job->pj);
	return job;
}

static struct fake_job *fake_pick(struct fake_engine *eng)
{
	struct tern_policy_job *pj = tern_policy_pick_next(&eng->p);

	return pj ? container_of(pj, struct fake_job, pj) : NULL;
}

static void fake_fill(struct fake_engine *eng)
{
	if (!eng->slot[0]) {
		eng->slot[0] = eng->slot[1] ? eng->slot[1] : fake_pick(eng);
		eng->slot[1] = NULL;
		eng->ran_ns = 0;
	}
	if (eng->slot[0] && !eng->slot[1])
		eng->slot[1] = fake_pick(eng);
}

static struct tern_policy_job *fake_pj(struct fake_job *job)
{
	return job ? &job->pj : NULL;
}

/* Every policy mode, for the tests that hold in all of them. */
static const enum tern_policy_mode all_modes[] = {
	TERN_POLICY_FAIR, TERN_POLICY_FIFO, TERN_POLICY_DRMFAIR,
};

/*
 * Where tern_policy_time_matters() says the running job's device time
 * cannot matter, the answers must not depend on it: the driver then reads
 * no clock.
 */
static void fake_check_time(struct fake_engine *eng, struct fake_job *run)
{
	struct tern_policy_job *next = fake_pj(eng->slot[1]);
	struct kunit *test = eng->test;

	if (tern_policy_time_matters(&eng->p, &run->pj, next)) {
		eng->time_bound++;
		return;
	}
	eng->time_free++;
	KUNIT_EXPECT_EQ(test, tern_policy_should_preempt(&eng->p, &run->pj, 0, next),
			tern_policy_should_preempt(&eng->p, &run->pj, eng->ran_ns, next));
	KUNIT_EXPECT_EQ(test, tern_policy_should_preempt(&eng->p, &run->pj, 0, next),
			tern_policy_should_preempt(&eng->p, &run->pj, 1000 * MS, next));
	KUNIT_EXPECT_EQ(test, tern_policy_next_check(&eng->p, &run->pj, 0, next),
			U64_MAX);
	KUNIT_EXPECT_EQ(test, tern_policy_next_check(&eng->p, &run->pj,
						     eng->ran_ns, next), U64_MAX);
}

/* Run one tick of device time; false when the engine is idle. */
static bool fake_tick(struct fake_engine *eng)
{
	struct fake_job *run;
	struct fake_ctx *c;
	u64 ns;

	fake_fill(eng);
	run = eng->slot[0];
	if (!run)
		return false;

	ns = min(TICK, run->left_ns);
	run->left_ns -= ns;
	eng->ran_ns += ns;
	eng->now_ns += ns;

	if (!run->left_ns) {
		c = &eng->ctx[run->ctx];
		tern_policy_charge(&eng->p, &c->e, eng->ran_ns);
		c->completed++;
		if (eng->nlog < MAX_LOG)
			eng->log[eng->nlog++] = run->id;
		eng->slot[0] = NULL;
		if (c->endless) {
			run->left_ns = c->job_ns;
			tern_policy_push(&eng->p, &c->e, &run->pj);
		}
	} else if (fake_check_time(eng, run),
		   tern_policy_should_preempt(&eng->p, &run->pj, eng->ran_ns,
					      fake_pj(eng->slot[1]))) {
		/* PREEMPTED: charge the run; the PENDING slot is CANCELLED. */
		c = &eng->ctx[run->ctx];
		tern_policy_charge(&eng->p, &c->e, eng->ran_ns);
		tern_policy_requeue(&eng->p, &run->pj, fake_pj(eng->slot[1]));
		eng->slot[0] = NULL;
		eng->slot[1] = NULL;
		eng->preemptions++;
	}
	fake_fill(eng);
	return true;
}

static void fake_run(struct fake_engine *eng, u64 ns)
{
	u64 end = eng->now_ns + ns;

	while (eng->now_ns < end && fake_tick(eng))
		;
}

/* |got - want| <= want * pct / 100 */
static bool within(u64 got, u64 want, unsigned int pct)
{
	u64 d = got > want ? got - want : want - got;

	return d * 100 <= want * pct;
}

static void tern_policy_strict_priority(struct kunit *test)
{
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_FAIR);
	struct fake_ctx *lo = fake_ctx(eng, 0, TERN_POLICY_WEIGHT_SCALE, 200 * US, false);
	struct fake_ctx *no = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, 200 * US, false);
	struct fake_ctx *hi = fake_ctx(eng, 2, TERN_POLICY_WEIGHT_SCALE, 200 * US, false);
	static const unsigned int want[] = { 20, 21, 22, 10, 11, 12, 0, 1, 2 };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		fake_submit(eng, lo, i);
		fake_submit(eng, no, 10 + i);
		fake_submit(eng, hi, 20 + i);
	}
	fake_run(eng, 100 * MS);

	KUNIT_ASSERT_EQ(test, eng->nlog, ARRAY_SIZE(want));
	for (i = 0; i < ARRAY_SIZE(want); i++)
		KUNIT_EXPECT_EQ_MSG(test, eng->log[i], want[i], "completion %u", i);
	KUNIT_EXPECT_EQ(test, eng->preemptions, 0);
}

/* Time, not job count: jobs of 100 us, 300 us, 2 ms and 5 ms share equally. */
static void tern_policy_fair_equal(struct kunit *test)
{
	static const u64 len[] = { 100 * US, 300 * US, 2 * MS, 5 * MS };
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_FAIR);
	struct fake_ctx *c[ARRAY_SIZE(len)];
	unsigned int i;
	u64 total = 0;

	for (i = 0; i < ARRAY_SIZE(len); i++) {
		c[i] = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, len[i], true);
		fake_submit(eng, c[i], i);
		fake_submit(eng, c[i], i);
	}
	fake_run(eng, 2000 * MS);

	for (i = 0; i < ARRAY_SIZE(len); i++)
		total += c[i]->e.run_ns;
	for (i = 0; i < ARRAY_SIZE(len); i++)
		KUNIT_EXPECT_TRUE_MSG(test, within(c[i]->e.run_ns, total / 4, 3),
				      "context %u: %llu ns of %llu", i,
				      c[i]->e.run_ns, total);
	/* The long jobs only fit their share by being preempted. */
	KUNIT_EXPECT_GT(test, eng->preemptions, 0);
}

static void tern_policy_fair_weights(struct kunit *test)
{
	static const u32 w[] = { 1, 2, 4 };
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_FAIR);
	struct fake_ctx *c[ARRAY_SIZE(w)];
	unsigned int i;
	u64 total = 0;

	for (i = 0; i < ARRAY_SIZE(w); i++) {
		c[i] = fake_ctx(eng, 1, w[i] * TERN_POLICY_WEIGHT_SCALE,
				(250 + 150 * i) * US, true);
		fake_submit(eng, c[i], i);
		fake_submit(eng, c[i], i);
	}
	fake_run(eng, 2000 * MS);

	for (i = 0; i < ARRAY_SIZE(w); i++)
		total += c[i]->e.run_ns;
	for (i = 0; i < ARRAY_SIZE(w); i++)
		KUNIT_EXPECT_TRUE_MSG(test,
				      within(c[i]->e.run_ns, total * w[i] / 7, 3),
				      "weight %u: %llu ns of %llu", w[i],
				      c[i]->e.run_ns, total);
}

/*
 * Figure 4's weights (docs/performance.md): 1, 2, 4 and 8, each kept six
 * 4 ms jobs deep, with the driver's default quantum and starvation bound.
 * Over 15 s every context gets its share to 0.5 %; in any window a
 * context's time is off by less than one job at each end, since a job is
 * charged when it ends.
 */
static void tern_policy_fair_weights_figure4(struct kunit *test)
{
	static const u32 w[] = { 1, 2, 4, 8 };
	struct fake_engine *eng = kunit_kzalloc(test, sizeof(*eng), GFP_KERNEL);
	u64 start[ARRAY_SIZE(w)], got[ARRAY_SIZE(w)], total = 0;
	struct fake_ctx *c[ARRAY_SIZE(w)];
	unsigned int i, k;

	KUNIT_ASSERT_NOT_NULL(test, eng);
	eng->test = test;
	tern_policy_init(&eng->p, TERN_POLICY_FAIR, 10 * MS, 50 * MS);
	for (i = 0; i < ARRAY_SIZE(w); i++) {
		c[i] = fake_ctx(eng, 1, w[i] * TERN_POLICY_WEIGHT_SCALE, 4 * MS, true);
		for (k = 0; k < 6; k++)
			fake_submit(eng, c[i], i);
	}
	fake_run(eng, 16 * MS);
	for (i = 0; i < ARRAY_SIZE(w); i++)
		start[i] = c[i]->e.run_ns;
	fake_run(eng, 1500 * MS);
	for (i = 0; i < ARRAY_SIZE(w); i++) {
		got[i] = c[i]->e.run_ns - start[i];
		total += got[i];
	}
	for (i = 0; i < ARRAY_SIZE(w); i++) {
		u64 want = total * w[i] / 15;
		u64 d = got[i] > want ? got[i] - want : want - got[i];

		KUNIT_EXPECT_LT_MSG(test, d, 2 * 4 * MS,
				    "1.5 s: weight %u: %llu ns of %llu", w[i], got[i], total);
		start[i] = c[i]->e.run_ns;
	}
	fake_run(eng, 15000 * MS);
	total = 0;
	for (i = 0; i < ARRAY_SIZE(w); i++) {
		got[i] = c[i]->e.run_ns - start[i];
		total += got[i];
	}
	for (i = 0; i < ARRAY_SIZE(w); i++)
		KUNIT_EXPECT_TRUE_MSG(test, got[i] * 1000 >= total * w[i] / 15 * 995 &&
				      got[i] * 1000 <= total * w[i] / 15 * 1005,
				      "15 s: weight %u: %llu ns of %llu", w[i], got[i], total);
}

/* A context idle for 100 ms gets its share when it wakes, not 100 ms. */
static void sleeper_gets_half(struct kunit *test, enum tern_policy_mode mode)
{
	struct fake_engine *eng = fake_engine(test, mode);
	struct fake_ctx *a = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, 500 * US, true);
	struct fake_ctx *b = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, 500 * US, true);
	u64 a0, b0;

	fake_submit(eng, a, 1);
	fake_submit(eng, a, 1);
	fake_run(eng, 100 * MS);
	KUNIT_ASSERT_EQ(test, b->e.run_ns, 0);

	fake_submit(eng, b, 2);
	fake_submit(eng, b, 2);
	a0 = a->e.run_ns;
	b0 = b->e.run_ns;
	fake_run(eng, 20 * MS);
	KUNIT_EXPECT_TRUE_MSG(test, within(a->e.run_ns - a0, 10 * MS, 15),
			      "a ran %llu ns of 20 ms", a->e.run_ns - a0);
	KUNIT_EXPECT_TRUE_MSG(test, within(b->e.run_ns - b0, 10 * MS, 15),
			      "b ran %llu ns of 20 ms", b->e.run_ns - b0);
}

static void tern_policy_sleeper_no_credit(struct kunit *test)
{
	sleeper_gets_half(test, TERN_POLICY_FAIR);
}

static void tern_policy_quantum(struct kunit *test)
{
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_FAIR);
	struct fake_ctx *a = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, 10 * MS, false);
	struct fake_ctx *lo = fake_ctx(eng, 0, TERN_POLICY_WEIGHT_SCALE, MS, false);
	struct fake_ctx *b = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, MS, false);
	struct fake_job *ja;

	ja = fake_submit(eng, a, 1);
	KUNIT_ASSERT_PTR_EQ(test, fake_pick(eng), ja);

	/* Nothing else ready: never, however long it runs. */
	KUNIT_EXPECT_FALSE(test, tern_policy_should_preempt(&eng->p, &ja->pj,
							    100 * QUANTUM, NULL));
	/* More work of its own context does not count. */
	fake_submit(eng, a, 2);
	KUNIT_EXPECT_FALSE(test, tern_policy_should_preempt(&eng->p, &ja->pj,
							    100 * QUANTUM, NULL));
	/* A lower class waiting does not count (below the starvation bound). */
	fake_submit(eng, lo, 3);
	KUNIT_EXPECT_FALSE(test, tern_policy_should_preempt(&eng->p, &ja->pj,
							    QUANTUM, NULL));
	/* The same class waiting: only once the quantum expired. */
	fake_submit(eng, b, 4);
	KUNIT_EXPECT_FALSE(test, tern_policy_should_preempt(&eng->p, &ja->pj,
							    QUANTUM - 1, NULL));
	KUNIT_EXPECT_TRUE(test, tern_policy_should_preempt(&eng->p, &ja->pj,
							   QUANTUM, NULL));
}

/* A lone 20 ms job runs to its end without a preemption. */
static void tern_policy_alone_runs_on(struct kunit *test)
{
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_FAIR);
	struct fake_ctx *a = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, 20 * MS, false);

	fake_submit(eng, a, 1);
	fake_submit(eng, a, 2);
	fake_run(eng, 100 * MS);

	KUNIT_EXPECT_EQ(test, eng->nlog, 2);
	KUNIT_EXPECT_EQ(test, eng->preemptions, 0);
	KUNIT_EXPECT_EQ(test, a->e.run_ns, 40 * MS);
}

/* A HIGH job preempts LOW work within one tick, not a quantum. */
static void tern_policy_higher_preempts(struct kunit *test)
{
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_FAIR);
	struct fake_ctx *lo = fake_ctx(eng, 0, TERN_POLICY_WEIGHT_SCALE, 50 * MS, true);
	struct fake_ctx *hi = fake_ctx(eng, 2, TERN_POLICY_WEIGHT_SCALE, 300 * US, false);
	struct fake_job *jl;
	u64 t0;

	fake_submit(eng, lo, 1);
	fake_submit(eng, lo, 1);
	fake_run(eng, 3 * MS);
	jl = eng->slot[0];
	KUNIT_ASSERT_NOT_NULL(test, jl);
	KUNIT_EXPECT_FALSE(test, tern_policy_should_preempt(&eng->p, &jl->pj, 1,
							    fake_pj(eng->slot[1])));

	fake_submit(eng, hi, 2);
	KUNIT_EXPECT_TRUE(test, tern_policy_should_preempt(&eng->p, &jl->pj, 1,
							   fake_pj(eng->slot[1])));
	t0 = eng->now_ns;
	while (eng->nlog == 0 && fake_tick(eng))
		;
	KUNIT_ASSERT_EQ(test, eng->nlog, 1);
	KUNIT_EXPECT_EQ(test, eng->log[0], 2);
	KUNIT_EXPECT_LE(test, eng->now_ns - t0, TICK + 300 * US);
	KUNIT_EXPECT_EQ(test, eng->preemptions, 1);
}

/* The job in the second slot is not displaced by a later submission. */
static void tern_policy_no_displacement(struct kunit *test)
{
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_FAIR);
	struct fake_ctx *a = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, 2 * MS, false);
	struct fake_ctx *b = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, 2 * MS, false);
	struct fake_ctx *c = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, 2 * MS, false);
	struct fake_ctx *lo = fake_ctx(eng, 0, TERN_POLICY_WEIGHT_SCALE, 2 * MS, false);
	struct fake_ctx *hi = fake_ctx(eng, 2, TERN_POLICY_WEIGHT_SCALE, 2 * MS, false);
	struct fake_job *ja, *jb, *jc;

	/* b has run a lot already: c, new, has the smaller virtual time. */
	ja = fake_submit(eng, a, 1);
	jb = fake_submit(eng, b, 2);
	KUNIT_ASSERT_PTR_EQ(test, fake_pick(eng), ja);
	KUNIT_ASSERT_PTR_EQ(test, fake_pick(eng), jb);
	tern_policy_charge(&eng->p, &b->e, 50 * MS);
	fake_submit(eng, c, 3);
	fake_submit(eng, lo, 4);

	/* Neither a same-class nor a lower-class arrival cancels b. */
	KUNIT_EXPECT_FALSE(test, tern_policy_should_preempt(&eng->p, &ja->pj,
							    QUANTUM / 2, &jb->pj));
	/* At quantum expiry a preempts, b is cancelled and then goes first. */
	KUNIT_EXPECT_TRUE(test, tern_policy_should_preempt(&eng->p, &ja->pj,
							   QUANTUM, &jb->pj));
	tern_policy_charge(&eng->p, &a->e, QUANTUM);
	tern_policy_requeue(&eng->p, &ja->pj, &jb->pj);
	KUNIT_EXPECT_PTR_EQ(test, fake_pick(eng), jb);
	jc = fake_pick(eng);
	KUNIT_ASSERT_NOT_NULL(test, jc);
	KUNIT_EXPECT_EQ(test, jc->id, 3);

	/* b completes, c runs, a's job waits in the second slot. */
	tern_policy_charge(&eng->p, &b->e, 2 * MS);
	KUNIT_EXPECT_PTR_EQ(test, fake_pick(eng), ja);
	/* A strictly higher class cancels the second slot and goes first. */
	fake_submit(eng, hi, 5);
	KUNIT_EXPECT_TRUE(test, tern_policy_should_preempt(&eng->p, &jc->pj,
							   1, &ja->pj));
	tern_policy_charge(&eng->p, &c->e, 1);
	tern_policy_requeue(&eng->p, &jc->pj, &ja->pj);
	KUNIT_EXPECT_EQ(test, fake_pick(eng)->id, 5);
	KUNIT_EXPECT_EQ(test, fake_pick(eng)->id, 1);
	KUNIT_EXPECT_EQ(test, fake_pick(eng)->id, 3);
}

/*
 * The job elected to the PENDING slot and cancelled by a preemption for a
 * higher class keeps its turn behind that class's work: a later arrival of
 * its own class, however small its virtual time, does not go before it.
 */
static void tern_policy_promise_survives_higher(struct kunit *test)
{
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_FAIR);
	struct fake_ctx *a = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, 2 * MS, false);
	struct fake_ctx *b = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, 2 * MS, false);
	struct fake_ctx *c = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, 2 * MS, false);
	struct fake_ctx *hi = fake_ctx(eng, 2, TERN_POLICY_WEIGHT_SCALE, 2 * MS, false);
	struct fake_job *ja, *jb;

	ja = fake_submit(eng, a, 1);
	jb = fake_submit(eng, b, 2);
	KUNIT_ASSERT_PTR_EQ(test, fake_pick(eng), ja);
	KUNIT_ASSERT_PTR_EQ(test, fake_pick(eng), jb);
	/* a and b have run a lot: a newcomer c has the least virtual time */
	tern_policy_charge(&eng->p, &a->e, 40 * MS);
	tern_policy_charge(&eng->p, &b->e, 50 * MS);

	fake_submit(eng, hi, 3);
	fake_submit(eng, hi, 4);
	KUNIT_EXPECT_TRUE(test, tern_policy_should_preempt(&eng->p, &ja->pj,
							   1, &jb->pj));
	tern_policy_requeue(&eng->p, &ja->pj, &jb->pj);
	fake_submit(eng, c, 5);

	/* the higher class first, all of it; then the elected job */
	KUNIT_EXPECT_EQ(test, fake_pick(eng)->id, 3);
	KUNIT_EXPECT_EQ(test, fake_pick(eng)->id, 4);
	KUNIT_EXPECT_PTR_EQ(test, fake_pick(eng), jb);
	KUNIT_EXPECT_EQ(test, fake_pick(eng)->id, 5);
	KUNIT_EXPECT_PTR_EQ(test, fake_pick(eng), ja);
}

/*
 * A promised job that a starved class's turn picks while a higher class
 * keeps the promise waiting is no longer promised: a later pick does not
 * take its (now empty) context's queue for it.
 */
static void tern_policy_promise_picked_starved(struct kunit *test)
{
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_FAIR);
	struct fake_ctx *hi = fake_ctx(eng, 2, TERN_POLICY_WEIGHT_SCALE, 2 * MS, false);
	struct fake_ctx *hi2 = fake_ctx(eng, 2, TERN_POLICY_WEIGHT_SCALE, 2 * MS, false);
	struct fake_ctx *lo = fake_ctx(eng, 0, TERN_POLICY_WEIGHT_SCALE, 2 * MS, false);
	struct fake_ctx *lo2 = fake_ctx(eng, 0, TERN_POLICY_WEIGHT_SCALE, 2 * MS, false);
	struct fake_job *jh, *jl, *j;

	/* HIGH runs, the LOW job waits in the PENDING slot */
	jh = fake_submit(eng, hi, 1);
	jl = fake_submit(eng, lo, 2);
	KUNIT_ASSERT_PTR_EQ(test, fake_pick(eng), jh);
	KUNIT_ASSERT_PTR_EQ(test, fake_pick(eng), jl);
	/* another HIGH context: at quantum expiry both are preempted */
	fake_submit(eng, hi2, 3);
	tern_policy_charge(&eng->p, &hi->e, QUANTUM);
	tern_policy_requeue(&eng->p, &jh->pj, &jl->pj);
	KUNIT_EXPECT_PTR_EQ(test, eng->p.promised, &jl->pj);
	KUNIT_EXPECT_EQ(test, fake_pick(eng)->id, 3);
	/* HIGH reached the starvation bound: LOW's turn takes jl */
	tern_policy_charge(&eng->p, &hi2->e, STARVE);
	KUNIT_EXPECT_PTR_EQ(test, fake_pick(eng), jl);
	KUNIT_EXPECT_NULL(test, eng->p.promised);
	KUNIT_EXPECT_PTR_EQ(test, fake_pick(eng), jh);
	/* only LOW work of another context left: it is what runs */
	fake_submit(eng, lo2, 4);
	j = fake_pick(eng);
	KUNIT_ASSERT_NOT_NULL(test, j);
	KUNIT_EXPECT_EQ(test, j->id, 4);
	KUNIT_EXPECT_NULL(test, fake_pick(eng));
	KUNIT_EXPECT_EQ(test, lo->e.queued, 0u);
}

/*
 * What the scheduler uses to gather a batch: peek shows the job pop would
 * take, changes nothing, and sees a job requeued at the head; popping
 * behind a pick keeps the other context's order and the counts.
 */
static void tern_policy_peek_pop(struct kunit *test)
{
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_FAIR);
	struct fake_ctx *a = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, MS, false);
	struct fake_ctx *b = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, MS, false);
	struct fake_job *j1, *j2, *j3, *jb;

	KUNIT_EXPECT_NULL(test, tern_policy_entity_peek(&a->e));
	j1 = fake_submit(eng, a, 1);
	j2 = fake_submit(eng, a, 2);
	jb = fake_submit(eng, b, 10);
	j3 = fake_submit(eng, a, 3);
	KUNIT_ASSERT_PTR_EQ(test, fake_pick(eng), j1);
	/* the batch: 2 and 3 follow 1 */
	KUNIT_EXPECT_PTR_EQ(test, tern_policy_entity_peek(&a->e), &j2->pj);
	KUNIT_EXPECT_EQ(test, a->e.queued, 2u);
	KUNIT_EXPECT_PTR_EQ(test, tern_policy_entity_pop(&eng->p, &a->e), &j2->pj);
	KUNIT_EXPECT_PTR_EQ(test, tern_policy_entity_peek(&a->e), &j3->pj);
	KUNIT_EXPECT_PTR_EQ(test, tern_policy_entity_pop(&eng->p, &a->e), &j3->pj);
	KUNIT_EXPECT_NULL(test, tern_policy_entity_peek(&a->e));
	KUNIT_EXPECT_EQ(test, a->e.queued, 0u);
	/* the head comes back, and is what peek shows */
	tern_policy_requeue(&eng->p, NULL, &j1->pj);
	KUNIT_EXPECT_PTR_EQ(test, tern_policy_entity_peek(&a->e), &j1->pj);
	KUNIT_EXPECT_EQ(test, a->e.queued, 1u);
	/* b's job was not touched */
	KUNIT_EXPECT_PTR_EQ(test, tern_policy_entity_peek(&b->e), &jb->pj);
	KUNIT_EXPECT_EQ(test, b->e.queued, 1u);
}

/* Preempted and cancelled jobs go back to their heads in their order. */
static void tern_policy_requeue_order(struct kunit *test)
{
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_FAIR);
	struct fake_ctx *a = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, MS, false);
	struct fake_ctx *b = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, MS, false);
	struct fake_job *j1, *j2, *jb1, *jb2;
	struct tern_policy_job *pj;

	/* Both slots from one context: 1, 2 come back ahead of 3. */
	j1 = fake_submit(eng, a, 1);
	j2 = fake_submit(eng, a, 2);
	fake_submit(eng, a, 3);
	KUNIT_ASSERT_PTR_EQ(test, fake_pick(eng), j1);
	KUNIT_ASSERT_PTR_EQ(test, fake_pick(eng), j2);
	tern_policy_requeue(&eng->p, &j1->pj, &j2->pj);
	KUNIT_EXPECT_EQ(test, a->e.queued, 3);
	KUNIT_EXPECT_EQ(test, fake_pick(eng)->id, 1);
	KUNIT_EXPECT_EQ(test, fake_pick(eng)->id, 2);
	KUNIT_EXPECT_EQ(test, fake_pick(eng)->id, 3);
	KUNIT_EXPECT_NULL(test, fake_pick(eng));

	/* Two contexts: each job back at the head of its own context. */
	jb1 = fake_submit(eng, b, 11);
	jb2 = fake_submit(eng, b, 12);
	j1 = fake_submit(eng, a, 4);
	fake_submit(eng, a, 5);
	pj = tern_policy_entity_pop(&eng->p, &b->e);
	KUNIT_ASSERT_PTR_EQ(test, pj, &jb1->pj);
	pj = tern_policy_entity_pop(&eng->p, &a->e);
	KUNIT_ASSERT_PTR_EQ(test, pj, &j1->pj);
	tern_policy_requeue(&eng->p, &jb1->pj, &j1->pj);
	KUNIT_EXPECT_PTR_EQ(test, tern_policy_entity_pop(&eng->p, &b->e), &jb1->pj);
	KUNIT_EXPECT_PTR_EQ(test, tern_policy_entity_pop(&eng->p, &b->e), &jb2->pj);
	KUNIT_EXPECT_PTR_EQ(test, tern_policy_entity_pop(&eng->p, &a->e), &j1->pj);
	KUNIT_EXPECT_EQ(test, tern_policy_entity_pop(&eng->p, &a->e)->seq,
			j1->pj.seq + 1);
	KUNIT_EXPECT_NULL(test, tern_policy_entity_pop(&eng->p, &a->e));
}

/*
 * Under sustained HIGH load, a LOW job completes after at most STARVE + a
 * quantum of HIGH device time: once picked it is not preempted at once.
 */
static void tern_policy_no_starvation(struct kunit *test)
{
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_FAIR);
	struct fake_ctx *h1 = fake_ctx(eng, 2, TERN_POLICY_WEIGHT_SCALE, 700 * US, true);
	struct fake_ctx *h2 = fake_ctx(eng, 2, TERN_POLICY_WEIGHT_SCALE, 3 * MS, true);
	struct fake_ctx *lo = fake_ctx(eng, 0, TERN_POLICY_WEIGHT_SCALE, 400 * US, true);
	u64 high_ns = 0, worst = 0, last_hi = 0, hi_now;
	unsigned int i, lo_done = 0;

	fake_submit(eng, h1, 1);
	fake_submit(eng, h1, 1);
	fake_submit(eng, h2, 2);
	fake_submit(eng, h2, 2);
	fake_submit(eng, lo, 3);

	for (i = 0; i < 20000 && fake_tick(eng); i++) {
		hi_now = h1->e.run_ns + h2->e.run_ns;
		high_ns += hi_now - last_hi;
		last_hi = hi_now;
		worst = max(worst, high_ns);
		if (lo->completed != lo_done) {
			lo_done = lo->completed;
			high_ns = 0;
		}
	}
	/* 1 s of device time: at least one LOW job per 5 + 1 + 0.4 ms */
	KUNIT_EXPECT_GE(test, lo_done, 1000 * MS / (STARVE + QUANTUM + 400 * US));
	KUNIT_EXPECT_LE(test, worst, STARVE + QUANTUM + TICK);
	/* and LOW stays a small share: the classes are still strict */
	KUNIT_EXPECT_LT(test, lo->e.run_ns * 5, h1->e.run_ns + h2->e.run_ns);
}

static void tern_policy_fifo(struct kunit *test)
{
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_FIFO);
	struct fake_ctx *lo = fake_ctx(eng, 0, TERN_POLICY_WEIGHT_SCALE, 5 * MS, false);
	struct fake_ctx *hi = fake_ctx(eng, 2, 4 * TERN_POLICY_WEIGHT_SCALE, MS, false);
	struct fake_ctx *no = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, 3 * MS, false);
	static const unsigned int want[] = { 1, 2, 3, 4, 5, 6 };
	struct fake_job *jl;
	unsigned int i;

	jl = fake_submit(eng, lo, 1);
	fake_submit(eng, no, 2);
	fake_submit(eng, lo, 3);
	fake_submit(eng, hi, 4);
	fake_submit(eng, no, 5);
	fake_submit(eng, hi, 6);
	KUNIT_EXPECT_FALSE(test, tern_policy_should_preempt(&eng->p, &jl->pj,
							    100 * QUANTUM, NULL));
	fake_run(eng, 100 * MS);

	KUNIT_EXPECT_EQ(test, eng->preemptions, 0);
	KUNIT_ASSERT_EQ(test, eng->nlog, ARRAY_SIZE(want));
	for (i = 0; i < ARRAY_SIZE(want); i++)
		KUNIT_EXPECT_EQ_MSG(test, eng->log[i], want[i], "completion %u", i);
}

static void tern_policy_hang_vs_slow(struct kunit *test)
{
	struct tern_policy_progress pp;
	u64 t;
	u32 prog = 7;

	/* Slow: the counter moves once per 400 ms, timeout 500 ms: never hung. */
	tern_policy_progress_start(&pp, prog, 0);
	for (t = 0; t <= 10000 * MS; t += 50 * MS) {
		if (t && !(t % (400 * MS)))
			prog++;
		KUNIT_ASSERT_FALSE(test, tern_policy_hung(&pp, prog, t, 500 * MS));
	}
	/* Stuck: hung once the counter stood still for the timeout. */
	tern_policy_progress_start(&pp, prog, t);
	KUNIT_EXPECT_FALSE(test, tern_policy_hung(&pp, prog, t + 450 * MS, 500 * MS));
	KUNIT_EXPECT_TRUE(test, tern_policy_hung(&pp, prog, t + 500 * MS, 500 * MS));
	/* A wrapping counter still counts as progress. */
	tern_policy_progress_start(&pp, U32_MAX, 0);
	KUNIT_EXPECT_FALSE(test, tern_policy_hung(&pp, 0, 600 * MS, 500 * MS));
	KUNIT_EXPECT_FALSE(test, tern_policy_hung(&pp, 0, 1000 * MS, 500 * MS));
	KUNIT_EXPECT_TRUE(test, tern_policy_hung(&pp, 0, 1100 * MS, 500 * MS));
}

static void tern_policy_next_check_due(struct kunit *test)
{
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_FAIR);
	struct fake_ctx *a = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, 100 * MS, false);
	struct fake_ctx *b = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, 100 * MS, false);
	struct fake_ctx *lo = fake_ctx(eng, 0, TERN_POLICY_WEIGHT_SCALE, MS, false);
	struct fake_job *ja;
	u64 d;

	/* Alone: only an arrival can change the answer. */
	ja = fake_submit(eng, a, 1);
	KUNIT_ASSERT_PTR_EQ(test, fake_pick(eng), ja);
	KUNIT_EXPECT_EQ(test, tern_policy_next_check(&eng->p, &ja->pj, 300 * US, NULL),
			U64_MAX);

	/* A rival of the class waits: due at the end of the quantum, exactly. */
	fake_submit(eng, b, 2);
	d = tern_policy_next_check(&eng->p, &ja->pj, 300 * US, NULL);
	KUNIT_EXPECT_EQ(test, d, QUANTUM - 300 * US);
	KUNIT_EXPECT_FALSE(test, tern_policy_should_preempt(&eng->p, &ja->pj,
							    300 * US + d - 1, NULL));
	KUNIT_EXPECT_TRUE(test, tern_policy_should_preempt(&eng->p, &ja->pj,
							   300 * US + d, NULL));

	/* Past the quantum with the rival gone: nothing is due. */
	tern_policy_entity_pop(&eng->p, &b->e);
	KUNIT_EXPECT_EQ(test, tern_policy_next_check(&eng->p, &ja->pj, 2 * QUANTUM, NULL),
			U64_MAX);

	/* A lower class waits: due when it reaches its starvation bound. */
	fake_submit(eng, lo, 3);
	tern_policy_charge(&eng->p, &a->e, MS);
	d = tern_policy_next_check(&eng->p, &ja->pj, 2 * QUANTUM, NULL);
	KUNIT_EXPECT_EQ(test, d, STARVE - MS - 2 * QUANTUM);
	KUNIT_EXPECT_FALSE(test, tern_policy_should_preempt(&eng->p, &ja->pj,
							    2 * QUANTUM + d - 1, NULL));
	KUNIT_EXPECT_TRUE(test, tern_policy_should_preempt(&eng->p, &ja->pj,
							   2 * QUANTUM + d, NULL));

	/* fifo never preempts, so nothing is ever due. */
	eng->p.mode = TERN_POLICY_FIFO;
	KUNIT_EXPECT_EQ(test, tern_policy_next_check(&eng->p, &ja->pj, 0, NULL),
			U64_MAX);
}

static void tern_policy_forgets_finished_jobs(struct kunit *test)
{
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_FAIR);
	struct fake_ctx *hi = fake_ctx(eng, 2, TERN_POLICY_WEIGHT_SCALE, 10 * MS, false);
	struct fake_ctx *lo = fake_ctx(eng, 0, TERN_POLICY_WEIGHT_SCALE, MS, false);
	struct fake_ctx *b = fake_ctx(eng, 2, TERN_POLICY_WEIGHT_SCALE, MS, false);
	struct fake_job *jh, *jl, *jb;

	/* LOW waits past its bound: the next pick is owed to it. */
	jh = fake_submit(eng, hi, 1);
	fake_submit(eng, hi, 2);
	jl = fake_submit(eng, lo, 3);
	KUNIT_ASSERT_PTR_EQ(test, fake_pick(eng), jh);
	tern_policy_charge(&eng->p, &hi->e, 2 * STARVE);
	KUNIT_ASSERT_PTR_EQ(test, fake_pick(eng), jl);
	KUNIT_EXPECT_PTR_EQ(test, eng->p.owed, &jl->pj);
	/* it completes: the policy must hold no pointer to it any more */
	tern_policy_forget(&eng->p, &jl->pj);
	KUNIT_EXPECT_NULL(test, eng->p.owed);

	/* a promise made in fair mode does not survive a fifo pick */
	jb = fake_submit(eng, b, 4);
	tern_policy_requeue(&eng->p, &jh->pj, fake_pj(fake_pick(eng)));
	KUNIT_EXPECT_PTR_EQ(test, eng->p.promised, &jb->pj);
	eng->p.mode = TERN_POLICY_FIFO;
	KUNIT_EXPECT_NOT_NULL(test, fake_pick(eng));
	KUNIT_EXPECT_NULL(test, eng->p.promised);
	KUNIT_EXPECT_NULL(test, eng->p.owed);
}

static void tern_policy_owed_keeps_turn(struct kunit *test)
{
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_FAIR);
	struct fake_ctx *h1 = fake_ctx(eng, 2, TERN_POLICY_WEIGHT_SCALE, 10 * MS, false);
	struct fake_ctx *h2 = fake_ctx(eng, 2, TERN_POLICY_WEIGHT_SCALE, 10 * MS, false);
	struct fake_ctx *lo = fake_ctx(eng, 0, TERN_POLICY_WEIGHT_SCALE, 20 * MS, false);
	struct fake_job *jh, *jl, *next;

	jh = fake_submit(eng, h1, 1);
	fake_submit(eng, h1, 1);
	fake_submit(eng, h2, 2);
	fake_submit(eng, h2, 2);
	jl = fake_submit(eng, lo, 3);
	KUNIT_ASSERT_PTR_EQ(test, fake_pick(eng), jh);
	tern_policy_charge(&eng->p, &h1->e, 2 * STARVE);
	/* LOW reached its bound: picked for the PENDING slot behind jh */
	KUNIT_ASSERT_PTR_EQ(test, fake_pick(eng), jl);

	/*
	 * The request meant for jh is served after jh completed: it stops
	 * jl before its first packet.  jl keeps its turn, and its quantum.
	 */
	tern_policy_charge(&eng->p, &h1->e, 10 * MS);
	tern_policy_forget(&eng->p, &jh->pj);
	tern_policy_charge(&eng->p, &lo->e, 0);
	tern_policy_requeue(&eng->p, &jl->pj, NULL);
	KUNIT_EXPECT_PTR_EQ(test, fake_pick(eng), jl);
	KUNIT_EXPECT_FALSE(test, tern_policy_should_preempt(&eng->p, &jl->pj,
							    QUANTUM / 2, NULL));

	/* Preempted after a full quantum, it waits for its next turn. */
	tern_policy_charge(&eng->p, &lo->e, QUANTUM);
	tern_policy_requeue(&eng->p, &jl->pj, NULL);
	next = fake_pick(eng);
	KUNIT_EXPECT_PTR_NE(test, next, jl);
	KUNIT_EXPECT_EQ(test, next->ctx, 0u + (h1->e.vtime <= h2->e.vtime ? 0 : 1));
}

/* Each decision says why (the tracepoints report it). */
static void tern_policy_reasons(struct kunit *test)
{
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_FAIR);
	struct fake_ctx *a = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, 10 * MS, false);
	struct fake_ctx *b = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, MS, false);
	struct fake_ctx *lo = fake_ctx(eng, 0, TERN_POLICY_WEIGHT_SCALE, MS, false);
	struct fake_ctx *hi = fake_ctx(eng, 2, TERN_POLICY_WEIGHT_SCALE, MS, false);
	struct fake_job *ja, *jb, *jh, *jl;

	ja = fake_submit(eng, a, 1);
	KUNIT_ASSERT_PTR_EQ(test, fake_pick(eng), ja);
	KUNIT_EXPECT_EQ(test, eng->p.last_pick, TERN_POLICY_REASON_PRIORITY);
	KUNIT_EXPECT_EQ(test, tern_policy_should_preempt(&eng->p, &ja->pj, QUANTUM, NULL),
			TERN_POLICY_REASON_NONE);

	jb = fake_submit(eng, b, 2);
	KUNIT_EXPECT_EQ(test, tern_policy_should_preempt(&eng->p, &ja->pj, QUANTUM, NULL),
			TERN_POLICY_REASON_QUANTUM);
	jh = fake_submit(eng, hi, 3);
	KUNIT_EXPECT_EQ(test, tern_policy_should_preempt(&eng->p, &ja->pj, 1, NULL),
			TERN_POLICY_REASON_PRIORITY);

	/* a preempted for hi with b pending: b was promised its turn */
	KUNIT_ASSERT_PTR_EQ(test, fake_pick(eng), jh);
	tern_policy_charge(&eng->p, &a->e, 1);
	tern_policy_requeue(&eng->p, &ja->pj, &jh->pj);
	KUNIT_EXPECT_PTR_EQ(test, fake_pick(eng), jh);
	KUNIT_EXPECT_EQ(test, eng->p.last_pick, TERN_POLICY_REASON_PROMISED);
	tern_policy_charge(&eng->p, &hi->e, MS);
	tern_policy_forget(&eng->p, &jh->pj);

	/* lo waits while the normal class runs: once past the bound, it is picked */
	jl = fake_submit(eng, lo, 4);
	tern_policy_charge(&eng->p, &a->e, STARVE);
	KUNIT_EXPECT_EQ(test, tern_policy_should_preempt(&eng->p, &jb->pj, 0, NULL),
			TERN_POLICY_REASON_STARVATION);
	KUNIT_EXPECT_PTR_EQ(test, fake_pick(eng), jl);
	KUNIT_EXPECT_EQ(test, eng->p.last_pick, TERN_POLICY_REASON_STARVATION);

	eng->p.mode = TERN_POLICY_FIFO;
	KUNIT_EXPECT_NOT_NULL(test, fake_pick(eng));
	KUNIT_EXPECT_EQ(test, eng->p.last_pick, TERN_POLICY_REASON_FIFO);
	KUNIT_EXPECT_EQ(test, tern_policy_should_preempt(&eng->p, &ja->pj, 100 * QUANTUM,
							 NULL), TERN_POLICY_REASON_NONE);
}

/*
 * drmfair: virtual time as charged, shifted by class, orders the picks,
 * one job late: a context's key takes the time charged at its next pick
 * that leaves it a job, so each context's second job follows its first.
 */
static void tern_policy_drmfair_order(struct kunit *test)
{
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_DRMFAIR);
	struct fake_ctx *c[5];
	/* NORMAL a, b, c; HIGH h; LOW d: job r of context i has id 10 r + i */
	static const unsigned int prio[] = { 1, 1, 1, 2, 0 };
	static const u64 charge[] = { 3 * MS, 1 * MS, 2 * MS, 10 * MS, MS / 2 };
	/*
	 * h before the NORMAL ones, d after them (placement); h2 while h's
	 * key waits for its first run; a2 after c1 (a's key too), d2 after
	 * d1; then by the time charged: b 16, c 32, h 40, a 48, d 64 ms
	 */
	static const unsigned int want[] = { 3, 13, 0, 1, 2, 10, 11, 12, 4, 14,
					     21, 22, 23, 20, 24 };
	bool charged[5] = { false };
	struct fake_job *job;
	unsigned int i, r;

	for (i = 0; i < ARRAY_SIZE(prio); i++)
		c[i] = fake_ctx(eng, prio[i], TERN_POLICY_WEIGHT_SCALE, MS, false);
	for (r = 0; r < 3; r++)
		for (i = 0; i < ARRAY_SIZE(prio); i++)
			fake_submit(eng, c[i], 10 * r + i);
	/* each context's first job is charged as soon as it is picked */
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		job = fake_pick(eng);
		KUNIT_ASSERT_NOT_NULL(test, job);
		KUNIT_EXPECT_EQ_MSG(test, job->id, want[i], "pick %u", i);
		KUNIT_EXPECT_EQ(test, eng->p.last_pick, TERN_POLICY_REASON_DRMFAIR);
		if (!charged[job->ctx])
			tern_policy_charge(&eng->p, &c[job->ctx]->e, charge[job->ctx]);
		charged[job->ctx] = true;
	}
	KUNIT_EXPECT_NULL(test, fake_pick(eng));
}

/*
 * drmfair: under sustained load of every class, device time goes as
 * 32 : 8 : 1 (HIGH : NORMAL : LOW), whatever the jobs' lengths; nothing
 * starves and nothing is preempted.
 */
static void tern_policy_drmfair_aging(struct kunit *test)
{
	static const u64 len[] = { 1 * MS, 300 * US, 700 * US };
	static const u64 share[] = { 1, 8, 32 };
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_DRMFAIR);
	struct fake_ctx *c[ARRAY_SIZE(len)];
	unsigned int i;
	u64 total = 0;

	for (i = 0; i < ARRAY_SIZE(len); i++) {
		c[i] = fake_ctx(eng, i, TERN_POLICY_WEIGHT_SCALE, len[i], true);
		fake_submit(eng, c[i], i);
		fake_submit(eng, c[i], i);
		fake_submit(eng, c[i], i);
	}
	fake_run(eng, 2000 * MS);

	for (i = 0; i < ARRAY_SIZE(len); i++)
		total += c[i]->e.run_ns;
	for (i = 0; i < ARRAY_SIZE(len); i++)
		KUNIT_EXPECT_TRUE_MSG(test,
				      within(c[i]->e.run_ns, total * share[i] / 41, 10),
				      "class %u: %llu ns of %llu", i,
				      c[i]->e.run_ns, total);
	KUNIT_EXPECT_EQ(test, eng->preemptions, 0);
}

/*
 * drmfair: a context that becomes ready is placed at the head of the
 * queue (its own virtual time is no credit), a higher class 1 us per
 * class before the head, a lower one after it.  Time charged while the
 * context has no ready job waits for a pick that leaves it more jobs.  A
 * context idle for 100 ms gets half the engine when it wakes, not 100 ms.
 */
static void tern_policy_drmfair_placement(struct kunit *test)
{
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_DRMFAIR);
	struct fake_ctx *x = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, 500 * US, false);
	struct fake_ctx *c = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, 500 * US, false);
	struct fake_ctx *h = fake_ctx(eng, 2, TERN_POLICY_WEIGHT_SCALE, 500 * US, false);
	struct fake_ctx *l = fake_ctx(eng, 0, TERN_POLICY_WEIGHT_SCALE, 500 * US, false);
	struct fake_job *jx, *jh;

	jx = fake_submit(eng, x, 1);
	fake_submit(eng, x, 2);
	fake_submit(eng, x, 3);
	KUNIT_ASSERT_PTR_EQ(test, fake_pick(eng), jx);
	tern_policy_charge(&eng->p, &x->e, MS);
	KUNIT_EXPECT_EQ(test, x->e.dvtime, 0);
	KUNIT_EXPECT_EQ(test, x->e.dpending, 16 * MS);
	KUNIT_ASSERT_NOT_NULL(test, fake_pick(eng));
	KUNIT_EXPECT_EQ(test, x->e.dvtime, 16 * MS);

	/* never ran: at the head, not at 0 */
	fake_submit(eng, c, 4);
	KUNIT_EXPECT_EQ(test, c->e.dvtime, 16 * MS);
	/* higher class: just before x; lower: just after h, the head now */
	jh = fake_submit(eng, h, 5);
	KUNIT_EXPECT_EQ(test, h->e.dvtime, 16 * MS - 1000);
	fake_submit(eng, l, 6);
	KUNIT_EXPECT_EQ(test, l->e.dvtime, 16 * MS - 1000 + 2000);

	/* h runs alone: its 10 ms wait while it has no other job ready */
	KUNIT_ASSERT_PTR_EQ(test, fake_pick(eng), jh);
	KUNIT_EXPECT_FALSE(test, h->e.dplaced);
	tern_policy_charge(&eng->p, &h->e, 10 * MS);
	fake_submit(eng, h, 7);
	KUNIT_EXPECT_EQ(test, h->e.dvtime, 16 * MS - 1000);
	KUNIT_EXPECT_EQ(test, h->e.dpending, 40 * MS);
	/* with a job left after the pick, the key takes them */
	fake_submit(eng, h, 8);
	KUNIT_ASSERT_NOT_NULL(test, fake_pick(eng));
	KUNIT_EXPECT_EQ(test, h->e.dvtime, 56 * MS - 1000);
	KUNIT_EXPECT_EQ(test, h->e.dpending, 0);

	/* a sleeper does not catch up */
	sleeper_gets_half(test, TERN_POLICY_DRMFAIR);
}

/*
 * drmfair never preempts: a HIGH job waits for the LOW jobs already in
 * both slots, however long they run; nothing is ever due.
 */
static void tern_policy_drmfair_no_preemption(struct kunit *test)
{
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_DRMFAIR);
	struct fake_ctx *lo = fake_ctx(eng, 0, TERN_POLICY_WEIGHT_SCALE, 50 * MS, false);
	struct fake_ctx *no = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, 50 * MS, false);
	struct fake_ctx *hi = fake_ctx(eng, 2, TERN_POLICY_WEIGHT_SCALE, MS, false);
	static const unsigned int want[] = { 1, 2, 3, 4 };
	struct fake_job *jl;
	unsigned int i;

	jl = fake_submit(eng, lo, 1);
	fake_submit(eng, lo, 2);
	fake_fill(eng);
	KUNIT_EXPECT_NOT_NULL(test, eng->slot[1]);
	fake_submit(eng, hi, 3);
	fake_submit(eng, no, 4);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, tern_policy_should_preempt(&eng->p, &jl->pj,
								 i * 100 * QUANTUM,
								 &eng->slot[1]->pj),
				TERN_POLICY_REASON_NONE);
		KUNIT_EXPECT_EQ(test, tern_policy_next_check(&eng->p, &jl->pj,
							     i * 100 * QUANTUM,
							     &eng->slot[1]->pj),
				U64_MAX);
	}
	fake_run(eng, 500 * MS);

	KUNIT_EXPECT_EQ(test, eng->preemptions, 0);
	KUNIT_ASSERT_EQ(test, eng->nlog, ARRAY_SIZE(want));
	for (i = 0; i < ARRAY_SIZE(want); i++)
		KUNIT_EXPECT_EQ_MSG(test, eng->log[i], want[i], "completion %u", i);
}

/*
 * drmfair: a context's jobs run in submission order, among other contexts
 * and after a job is given back (the innocent PENDING job of a reset).
 */
static void tern_policy_drmfair_in_order(struct kunit *test)
{
	static const u64 len[] = { 300 * US, 2 * MS, 700 * US };
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_DRMFAIR);
	struct fake_ctx *c[ARRAY_SIZE(len)];
	unsigned int i, k, next[ARRAY_SIZE(len)];
	struct fake_job *j1, *j2;

	for (i = 0; i < ARRAY_SIZE(len); i++) {
		c[i] = fake_ctx(eng, i, TERN_POLICY_WEIGHT_SCALE, len[i], false);
		next[i] = 0;
	}
	/* job k of context i has id 10 * k + i */
	for (k = 0; k < 4; k++)
		for (i = 0; i < ARRAY_SIZE(len); i++)
			fake_submit(eng, c[i], 10 * k + i);
	/* the first two picks take the slots; a reset gives the second back */
	j1 = fake_pick(eng);
	j2 = fake_pick(eng);
	KUNIT_ASSERT_NOT_NULL(test, j1);
	KUNIT_ASSERT_NOT_NULL(test, j2);
	tern_policy_charge(&eng->p, &c[j1->ctx]->e, len[j1->ctx]);
	c[j1->ctx]->completed++;
	eng->log[eng->nlog++] = j1->id;
	tern_policy_requeue(&eng->p, NULL, &j2->pj);
	fake_run(eng, 500 * MS);

	KUNIT_EXPECT_EQ(test, eng->preemptions, 0);
	KUNIT_ASSERT_EQ(test, eng->nlog, 4 * ARRAY_SIZE(len));
	for (k = 0; k < eng->nlog; k++) {
		unsigned int id = eng->log[k], ctx = id % 10;

		KUNIT_EXPECT_EQ_MSG(test, id, 10 * next[ctx] + ctx,
				    "completion %u: context %u", k, ctx);
		next[ctx]++;
	}
}

/*
 * A switch from fair to drmfair with work queued applies at the next
 * pick: contexts that became ready in fair mode are placed then, and the
 * promise fair mode made does not hold a higher class back.
 */
static void tern_policy_drmfair_switch(struct kunit *test)
{
	struct fake_engine *eng = fake_engine(test, TERN_POLICY_FAIR);
	struct fake_ctx *lo = fake_ctx(eng, 0, TERN_POLICY_WEIGHT_SCALE, MS, false);
	struct fake_ctx *no = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, MS, false);
	struct fake_ctx *hi = fake_ctx(eng, 2, TERN_POLICY_WEIGHT_SCALE, MS, false);
	struct fake_job *jl, *jn, *jh;

	jl = fake_submit(eng, lo, 1);
	KUNIT_ASSERT_PTR_EQ(test, fake_pick(eng), jl);
	jn = fake_submit(eng, no, 2);
	KUNIT_ASSERT_PTR_EQ(test, fake_pick(eng), jn);
	tern_policy_requeue(&eng->p, &jl->pj, &jn->pj);
	KUNIT_EXPECT_PTR_EQ(test, eng->p.promised, &jn->pj);
	jh = fake_submit(eng, hi, 3);

	eng->p.mode = TERN_POLICY_DRMFAIR;
	KUNIT_EXPECT_PTR_EQ(test, fake_pick(eng), jh);
	KUNIT_EXPECT_EQ(test, eng->p.last_pick, TERN_POLICY_REASON_DRMFAIR);
	KUNIT_EXPECT_NULL(test, eng->p.promised);
	KUNIT_EXPECT_TRUE(test, lo->e.dplaced && no->e.dplaced);
	KUNIT_EXPECT_PTR_EQ(test, fake_pick(eng), jn);
	KUNIT_EXPECT_PTR_EQ(test, fake_pick(eng), jl);
	KUNIT_EXPECT_NULL(test, fake_pick(eng));
}

/*
 * The driver's own queue (tern_policy_set_kernel()), in every mode: its
 * job is picked before older jobs of others, a running job of another
 * context is preempted for it, and it is itself never asked to make way.
 */
static void tern_policy_kernel_first(struct kunit *test)
{
	unsigned int m;

	for (m = 0; m < ARRAY_SIZE(all_modes); m++) {
		struct fake_engine *eng = fake_engine(test, all_modes[m]);
		struct fake_ctx *a, *h, *k;
		struct fake_job *kj;

		a = fake_ctx(eng, 1, TERN_POLICY_WEIGHT_SCALE, 20 * MS, false);
		h = fake_ctx(eng, 2, TERN_POLICY_WEIGHT_SCALE, 20 * MS, false);
		k = fake_ctx(eng, 2, 64 * TERN_POLICY_WEIGHT_SCALE, 100 * US, false);
		tern_policy_set_kernel(&eng->p, &k->e);
		fake_submit(eng, a, 1);
		fake_submit(eng, a, 2);
		fake_submit(eng, a, 3);
		fake_run(eng, 2 * MS);
		KUNIT_ASSERT_NOT_NULL(test, eng->slot[0]);
		KUNIT_EXPECT_EQ_MSG(test, eng->slot[0]->id, 1, "mode %u", m);

		/* submitted last, it runs next: the running job is preempted */
		kj = fake_submit(eng, k, 100);
		fake_tick(eng);
		KUNIT_EXPECT_EQ_MSG(test, eng->preemptions, 1, "mode %u", m);
		KUNIT_EXPECT_PTR_EQ_MSG(test, eng->slot[0], kj, "mode %u", m);

		/* running, it yields to nothing, not even HIGH work */
		fake_submit(eng, h, 50);
		KUNIT_EXPECT_EQ(test, tern_policy_should_preempt(&eng->p, &kj->pj, 0,
								 fake_pj(eng->slot[1])),
				TERN_POLICY_REASON_NONE);
		fake_run(eng, 200 * US);
		KUNIT_EXPECT_EQ_MSG(test, k->completed, 1, "mode %u", m);
		KUNIT_EXPECT_EQ_MSG(test, eng->log[0], 100, "mode %u", m);
		fake_run(eng, 200 * MS);
		KUNIT_EXPECT_EQ_MSG(test, a->completed + h->completed, 4, "mode %u", m);
		tern_policy_entity_remove(&eng->p, &k->e);
		KUNIT_EXPECT_NULL(test, eng->p.kernel);
	}
}

/*
 * A queue of updates that never empties (many processes binding) does not
 * starve the others, in any mode: after TERN_POLICY_KERNEL_STREAK updates
 * in a row, one pick goes to them, and their work advances.
 */
static void tern_policy_kernel_bounded(struct kunit *test)
{
	unsigned int m;

	for (m = 0; m < ARRAY_SIZE(all_modes); m++) {
		struct fake_engine *eng = fake_engine(test, all_modes[m]);
		struct fake_ctx *low, *k;

		low = fake_ctx(eng, 0, TERN_POLICY_WEIGHT_SCALE, 1 * MS, true);
		k = fake_ctx(eng, 2, 64 * TERN_POLICY_WEIGHT_SCALE, 100 * US, true);
		tern_policy_set_kernel(&eng->p, &k->e);
		fake_submit(eng, low, 1);
		fake_submit(eng, k, 2);
		fake_submit(eng, k, 3);
		fake_run(eng, 200 * MS);
		KUNIT_EXPECT_GT_MSG(test, low->completed, 5, "mode %u", m);
		KUNIT_EXPECT_GT_MSG(test, k->completed, 1000, "mode %u", m);
		/* the updates still get most of the engine */
		KUNIT_EXPECT_GT_MSG(test, k->completed * 100 * US, 100 * MS, "mode %u", m);
	}
}

/*
 * The driver reads the engine's busy time only where it can change the
 * decisions: a context alone, or above idle classes, costs no read; a
 * rival of its class, a lower class that waits, or a turn owed to a
 * starved class does.  fake_tick() checks at every tick that the answers
 * do not depend on the time where it is said not to matter.
 */
static void tern_policy_time_matters_cases(struct kunit *test)
{
	unsigned int m;

	for (m = 0; m < ARRAY_SIZE(all_modes); m++) {
		struct fake_engine *alone = fake_engine(test, all_modes[m]);
		struct fake_engine *rivals = fake_engine(test, all_modes[m]);
		struct fake_engine *classes = fake_engine(test, all_modes[m]);
		struct fake_ctx *c;

		c = fake_ctx(alone, 1, TERN_POLICY_WEIGHT_SCALE, 300 * US, true);
		fake_submit(alone, c, 0);
		fake_submit(alone, c, 1);
		fake_run(alone, 20 * MS);
		KUNIT_EXPECT_EQ(test, alone->time_bound, 0);
		KUNIT_EXPECT_GT(test, alone->time_free, 0);

		c = fake_ctx(rivals, 1, TERN_POLICY_WEIGHT_SCALE, 3 * MS, true);
		fake_submit(rivals, c, 0);
		c = fake_ctx(rivals, 1, 2 * TERN_POLICY_WEIGHT_SCALE, 2 * MS, true);
		fake_submit(rivals, c, 1);
		fake_run(rivals, 50 * MS);

		/* HIGH alone in its class above a LOW that starves, then runs */
		c = fake_ctx(classes, 0, TERN_POLICY_WEIGHT_SCALE, 2 * MS, true);
		fake_submit(classes, c, 0);
		fake_submit(classes, c, 1);
		c = fake_ctx(classes, 2, TERN_POLICY_WEIGHT_SCALE, 2 * MS, true);
		fake_submit(classes, c, 2);
		fake_submit(classes, c, 3);
		fake_run(classes, 50 * MS);

		if (all_modes[m] == TERN_POLICY_FAIR) {
			KUNIT_EXPECT_GT(test, rivals->time_bound, 0);
			KUNIT_EXPECT_GT(test, classes->time_bound, 0);
			KUNIT_EXPECT_GT(test, classes->preemptions, 0);
		} else {
			KUNIT_EXPECT_EQ(test, rivals->time_bound, 0);
			KUNIT_EXPECT_EQ(test, classes->time_bound, 0);
		}
	}
}

static struct kunit_case tern_policy_cases[] = {
	KUNIT_CASE(tern_policy_strict_priority),
	KUNIT_CASE(tern_policy_fair_equal),
	KUNIT_CASE(tern_policy_fair_weights),
	KUNIT_CASE(tern_policy_fair_weights_figure4),
	KUNIT_CASE(tern_policy_sleeper_no_credit),
	KUNIT_CASE(tern_policy_quantum),
	KUNIT_CASE(tern_policy_alone_runs_on),
	KUNIT_CASE(tern_policy_higher_preempts),
	KUNIT_CASE(tern_policy_no_displacement),
	KUNIT_CASE(tern_policy_promise_survives_higher),
	KUNIT_CASE(tern_policy_promise_picked_starved),
	KUNIT_CASE(tern_policy_requeue_order),
	KUNIT_CASE(tern_policy_peek_pop),
	KUNIT_CASE(tern_policy_no_starvation),
	KUNIT_CASE(tern_policy_fifo),
	KUNIT_CASE(tern_policy_hang_vs_slow),
	KUNIT_CASE(tern_policy_next_check_due),
	KUNIT_CASE(tern_policy_forgets_finished_jobs),
	KUNIT_CASE(tern_policy_owed_keeps_turn),
	KUNIT_CASE(tern_policy_reasons),
	KUNIT_CASE(tern_policy_drmfair_order),
	KUNIT_CASE(tern_policy_kernel_first),
	KUNIT_CASE(tern_policy_kernel_bounded),
	KUNIT_CASE(tern_policy_drmfair_aging),
	KUNIT_CASE(tern_policy_drmfair_placement),
	KUNIT_CASE(tern_policy_drmfair_no_preemption),
	KUNIT_CASE(tern_policy_drmfair_in_order),
	KUNIT_CASE(tern_policy_drmfair_switch),
	KUNIT_CASE(tern_policy_time_matters_cases),
	{}
};

static struct kunit_suite tern_policy_suite = {
	.name = "tern_policy",
	.test_cases = tern_policy_cases,
};

kunit_test_suite(tern_policy_suite);
