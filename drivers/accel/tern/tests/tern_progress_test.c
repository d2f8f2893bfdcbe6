// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * KUnit tests of a context's progress record: what the scheduler writes as
 * jobs finish, the page it mirrors to, and the reading rule of the uAPI
 * (which DRM_IOCTL_TERN_WAIT uses), including the window of kept failures
 * and seqnos that wrap.
 */

#include <kunit/test.h>
#include <linux/random.h>

#include "../tern_progress.c"

#define N	DRM_TERN_PROGRESS_ERRORS
#define KEPT	DRM_TERN_PROGRESS_KEPT

struct tern_progress_fixture {
	struct tern_progress prog;
	struct drm_tern_progress *page;
};

static int tern_progress_test_init(struct kunit *test)
{
	struct tern_progress_fixture *f;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->page = kunit_kzalloc(test, DRM_TERN_PROGRESS_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->page);
	memset(f->page, 0xa5, DRM_TERN_PROGRESS_SIZE);	/* init must clear it */
	tern_progress_init(&f->prog, f->page);
	test->priv = f;
	return 0;
}

/* The outcome of @seqno: 0 with the error in *@error, -EBUSY or -ENODATA. */
static int outcome(struct tern_progress_fixture *f, u32 seqno, int *error)
{
	int page_error, ret;

	ret = tern_progress_outcome(&f->prog.rec, seqno, error);
	/* the page, read by the same rule, always says the same */
	if (f->prog.page)
		WARN_ON(tern_progress_outcome(f->page, seqno, &page_error) != ret ||
			page_error != *error);
	return ret;
}

static void tern_progress_empty(struct kunit *test)
{
	struct tern_progress_fixture *f = test->priv;
	int error = 1;

	KUNIT_EXPECT_EQ(test, f->page->completed, 0);
	KUNIT_EXPECT_EQ(test, f->page->flags, 0);
	KUNIT_EXPECT_EQ(test, f->page->errors[N - 1].seqno, 0);
	KUNIT_EXPECT_FALSE(test, tern_progress_done(&f->prog, 1));
	KUNIT_EXPECT_EQ(test, outcome(f, 1, &error), -EBUSY);
	KUNIT_EXPECT_EQ(test, error, 0);
}

static void tern_progress_in_order(struct kunit *test)
{
	struct tern_progress_fixture *f = test->priv;
	int error;
	u32 i;

	for (i = 1; i <= 5; i++)
		tern_progress_finished(&f->prog, i, 0);
	for (i = 1; i <= 5; i++) {
		KUNIT_EXPECT_TRUE(test, tern_progress_done(&f->prog, i));
		KUNIT_EXPECT_EQ(test, outcome(f, i, &error), 0);
		KUNIT_EXPECT_EQ(test, error, 0);
	}
	KUNIT_EXPECT_FALSE(test, tern_progress_done(&f->prog, 6));
	KUNIT_EXPECT_EQ(test, outcome(f, 6, &error), -EBUSY);
	KUNIT_EXPECT_EQ(test, f->page->completed, 5);
	KUNIT_EXPECT_EQ(test, f->page->error_count, 0);
}

static void tern_progress_failures(struct kunit *test)
{
	struct tern_progress_fixture *f = test->priv;
	int error;

	tern_progress_finished(&f->prog, 1, 0);
	tern_progress_finished(&f->prog, 2, -EIO);
	tern_progress_finished(&f->prog, 3, 0);
	tern_progress_finished(&f->prog, 4, -ECANCELED);
	KUNIT_EXPECT_EQ(test, outcome(f, 1, &error), 0);
	KUNIT_EXPECT_EQ(test, error, 0);
	KUNIT_EXPECT_EQ(test, outcome(f, 2, &error), 0);
	KUNIT_EXPECT_EQ(test, error, -EIO);
	KUNIT_EXPECT_EQ(test, outcome(f, 3, &error), 0);
	KUNIT_EXPECT_EQ(test, error, 0);
	KUNIT_EXPECT_EQ(test, outcome(f, 4, &error), 0);
	KUNIT_EXPECT_EQ(test, error, -ECANCELED);
	KUNIT_EXPECT_EQ(test, f->page->error_count, 2);
	KUNIT_EXPECT_EQ(test, f->page->errors[1].seqno, 4);
	KUNIT_EXPECT_EQ(test, f->page->errors[1].error, -ECANCELED);
}

/* Failures beyond the window: old outcomes are forgotten, never guessed. */
static void tern_progress_window(struct kunit *test)
{
	struct tern_progress_fixture *f = test->priv;
	u32 seq = 0, i;
	int error;

	tern_progress_finished(&f->prog, ++seq, 0);		/* 1: completed */
	for (i = 0; i < N + 2; i++) {				/* 2 .. N + 3 fail */
		tern_progress_finished(&f->prog, ++seq, -EIO);
	}
	tern_progress_finished(&f->prog, ++seq, 0);		/* N + 4: completed */

	KUNIT_EXPECT_EQ(test, outcome(f, 1, &error), -ENODATA);
	KUNIT_EXPECT_EQ(test, outcome(f, 2, &error), -ENODATA);
	KUNIT_EXPECT_EQ(test, outcome(f, 4, &error), -ENODATA);
	/* N + 2 failures, KEPT of them kept: failure 3, job 5, is the oldest */
	KUNIT_EXPECT_EQ(test, outcome(f, 5, &error), 0);
	KUNIT_EXPECT_EQ(test, error, -EIO);
	KUNIT_EXPECT_EQ(test, outcome(f, N + 3, &error), 0);
	KUNIT_EXPECT_EQ(test, error, -EIO);
	KUNIT_EXPECT_EQ(test, outcome(f, N + 4, &error), 0);
	KUNIT_EXPECT_EQ(test, error, 0);
}

/* A completed job between kept failures is known to have completed. */
static void tern_progress_success_inside_window(struct kunit *test)
{
	struct tern_progress_fixture *f = test->priv;
	u32 seq;
	int error;

	for (seq = 1; seq <= 4 * N; seq++)
		tern_progress_finished(&f->prog, seq, seq & 1 ? -EIO : 0);
	/* the last KEPT = N - 1 failures are the odd jobs from 2N + 3 on */
	KUNIT_EXPECT_EQ(test, outcome(f, 2 * N + 4, &error), 0);
	KUNIT_EXPECT_EQ(test, error, 0);
	KUNIT_EXPECT_EQ(test, outcome(f, 2 * N + 3, &error), 0);
	KUNIT_EXPECT_EQ(test, error, -EIO);
	KUNIT_EXPECT_EQ(test, outcome(f, 2 * N + 2, &error), -ENODATA);
	KUNIT_EXPECT_EQ(test, outcome(f, 4 * N, &error), 0);
	KUNIT_EXPECT_EQ(test, error, 0);
}

static void tern_progress_seqno_wrap(struct kunit *test)
{
	struct tern_progress_fixture *f = test->priv;
	int error;

	f->prog.rec.completed = U32_MAX - 2;
	tern_progress_finished(&f->prog, U32_MAX - 1, 0);
	tern_progress_finished(&f->prog, U32_MAX, -EIO);
	tern_progress_finished(&f->prog, 0, 0);
	tern_progress_finished(&f->prog, 1, -ETIMEDOUT);
	KUNIT_EXPECT_TRUE(test, tern_progress_done(&f->prog, U32_MAX));
	KUNIT_EXPECT_TRUE(test, tern_progress_done(&f->prog, 1));
	KUNIT_EXPECT_FALSE(test, tern_progress_done(&f->prog, 2));
	KUNIT_EXPECT_EQ(test, outcome(f, U32_MAX, &error), 0);
	KUNIT_EXPECT_EQ(test, error, -EIO);
	KUNIT_EXPECT_EQ(test, outcome(f, 0, &error), 0);
	KUNIT_EXPECT_EQ(test, error, 0);
	KUNIT_EXPECT_EQ(test, outcome(f, 1, &error), 0);
	KUNIT_EXPECT_EQ(test, error, -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, outcome(f, 2, &error), -EBUSY);
}

static void tern_progress_state_and_close(struct kunit *test)
{
	struct tern_progress_fixture *f = test->priv;

	tern_progress_set_state(&f->prog, DRM_TERN_CONTEXT_FAULTED);
	KUNIT_EXPECT_EQ(test, f->page->state, DRM_TERN_CONTEXT_FAULTED);
	tern_progress_finished(&f->prog, 1, 0);
	tern_progress_close(&f->prog);
	KUNIT_EXPECT_EQ(test, f->page->flags, DRM_TERN_PROGRESS_CLOSED);
	KUNIT_EXPECT_NULL(test, f->prog.page);
	/* the record goes on; the page no longer changes */
	tern_progress_finished(&f->prog, 2, -EIO);
	KUNIT_EXPECT_EQ(test, f->page->completed, 1);
	KUNIT_EXPECT_EQ(test, f->page->error_count, 0);
	KUNIT_EXPECT_EQ(test, f->prog.rec.completed, 2);
}

/* Random outcomes against a plain array of them. */
static void tern_progress_random_model(struct kunit *test)
{
	struct tern_progress_fixture *f = test->priv;
	const u32 jobs = 6 * N;
	u32 seq, failures = 0, kept_from;
	int *want, error, ret;

	want = kunit_kcalloc(test, jobs + 1, sizeof(*want), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, want);
	for (seq = 1; seq <= jobs; seq++) {
		want[seq] = get_random_u32_below(4) ? 0 : -EIO;
		failures += !!want[seq];
		tern_progress_finished(&f->prog, seq, want[seq]);
	}
	KUNIT_ASSERT_GT(test, failures, KEPT);
	/* the oldest kept failure is failure number failures - KEPT */
	for (kept_from = 1, seq = 1; seq <= jobs; seq++) {
		if (want[seq] && failures-- == KEPT) {
			kept_from = seq;
			break;
		}
	}
	for (seq = 1; seq <= jobs; seq++) {
		ret = outcome(f, seq, &error);
		if (seq < kept_from) {
			KUNIT_EXPECT_EQ_MSG(test, ret, -ENODATA, "job %u", seq);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "job %u", seq);
		KUNIT_EXPECT_EQ_MSG(test, error, want[seq], "job %u", seq);
	}
}

static struct kunit_case tern_progress_cases[] = {
	KUNIT_CASE(tern_progress_empty),
	KUNIT_CASE(tern_progress_in_order),
	KUNIT_CASE(tern_progress_failures),
	KUNIT_CASE(tern_progress_window),
	KUNIT_CASE(tern_progress_success_inside_window),
	KUNIT_CASE(tern_progress_seqno_wrap),
	KUNIT_CASE(tern_progress_state_and_close),
	KUNIT_CASE(tern_progress_random_model),
	{}
};

static struct kunit_suite tern_progress_suite = {
	.name = "tern_progress",
	.init = tern_progress_test_init,
	.test_cases = tern_progress_cases,
};

kunit_test_suite(tern_progress_suite);
