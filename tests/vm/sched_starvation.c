// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sched_starvation: under sustained HIGH load a LOW job still runs, after
 * at most starve_ms + quantum of HIGH device time (plus slack), while HIGH
 * work is still waiting; and not much before starve_ms either: strict
 * priority holds until the bound.
 *
 * Two HIGH contexts keep the engine busy with 4 s of 10 ms jobs, all
 * queued up front (they are cancelled at the end).  Three LOW jobs are
 * then submitted one after another; for each, the wait is the HIGH
 * device time from just before its submission (device clock from
 * GET_INFO) to its start stamp: the time covered by the HIGH jobs' own
 * start and end stamps, so that an engine left idle by a stalled guest
 * does not count.  Strict priority without the starvation bound would
 * make each wait seconds long, until the HIGH work is gone.
 *
 * Upper bound: starve_ms (200, set through debugfs) + quantum (10 ms) +
 * 150 ms of slack.  The slack covers what the policy does not count: the
 * device time that passes while the guest notices the bound (at a HIGH
 * job's end, at most 10 ms apart, or at the scheduler's tick), requests
 * the preemption and programs the LOW job (one chunk of 2 ms to reach a
 * preemption point, then interrupt, work item and register writes, which
 * a loaded emulator stretches to tens of ms), and the LOW job's own way
 * through drm_sched.
 * Lower bound: starve_ms / 2.  Only HIGH device time counts towards the
 * bound, and the wait measured is longer than the one the policy sees
 * (it starts before the submission); the policy may count at most the one
 * HIGH run (10 ms) that began before the LOW job was ready.  With the
 * default starve_ms (50) in force instead, every wait would be under it.
 *
 * tern-vm: device=compute-engines=1,time-scale=200 timeout=120
 */
#include "sched_test.h"

#define VA_STAMP	0x100000ull
#define LIMIT_S		120
#define STARVE_MS	200
#define QUANTUM_MS	10
#define SLACK_MS	150
#define HIGH_JOBS	200	/* per context, 10 ms each */
#define LOW_JOBS	3
#define HIGH_STAMP(k, i)	(16 + (k) * HIGH_JOBS + (i))

/*
 * Device time in [@from, @to] during which a HIGH job was between its
 * start and end stamps: the union of their spans, so that time the engine
 * sat idle between jobs (a guest too slow to refill the slots) is not
 * counted as HIGH work.
 */
static uint64_t high_time(const volatile struct sched_stamp *stamp,
			  uint64_t from, uint64_t to)
{
	uint64_t covered = 0, reach = from;
	unsigned int i, n = 0;
	static uint64_t a[2 * HIGH_JOBS], b[2 * HIGH_JOBS];

	for (i = 0; i < 2 * HIGH_JOBS; i++) {
		const volatile struct sched_stamp *h = &stamp[16 + i];
		uint64_t s = h->start, e = h->end ? h->end : to;

		if (!s || s >= to || e <= from)
			continue;
		a[n] = s > from ? s : from;
		b[n++] = e < to ? e : to;
	}
	/* few intervals: a selection sort by start is plenty */
	for (i = 0; i < n; i++) {
		unsigned int m = i, x;
		uint64_t t;

		for (x = i + 1; x < n; x++)
			if (a[x] < a[m])
				m = x;
		t = a[i], a[i] = a[m], a[m] = t;
		t = b[i], b[i] = b[m], b[m] = t;
		if (b[i] > reach) {
			covered += b[i] - (a[i] > reach ? a[i] : reach);
			reach = b[i];
		}
	}
	return covered;
}

int main(void)
{
	uint32_t hi[2] = { 0, 0 }, lo = 0, bo = 0, so, i, k;
	volatile struct sched_stamp *stamp = NULL;
	uint64_t bound = (uint64_t)(STARVE_MS + QUANTUM_MS + SLACK_MS) * 1000000;
	uint64_t floor = (uint64_t)STARVE_MS / 2 * 1000000;
	uint64_t high_left = 0;
	struct sched_job j;
	char v[16];
	int fd, ret = 0;

	fd = tern_test_open();
	if (!tap_ok(fd >= 0 && sched_knobs_save(LIMIT_S) &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_HIGH, 0, 0, &hi[0]) &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_HIGH, 0, 0, &hi[1]) &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_LOW, 0, 0, &lo) &&
		    !core_bo(fd, 16384, VA_STAMP, &bo, (void **)&stamp),
		    "two HIGH and a LOW context on engine 0; knobs saved"))
		return tap_exit_status();
	memset((void *)stamp, 0, 16384);
	so = syncobj_new(fd);
	snprintf(v, sizeof(v), "%d", STARVE_MS);
	ret = sched_dbg_write("starve_ms", v);
	snprintf(v, sizeof(v), "%d", QUANTUM_MS * 1000);
	ret = ret ?: sched_dbg_write("quantum_us", v);
	tap_errno(ret, 0, "starve_ms 200, quantum_us 10000");

	/* HIGH: job i of context k stamps at HIGH_STAMP(k, i) */
	for (i = 0; i < HIGH_JOBS && !ret; i++)
		for (k = 0; k < 2 && !ret; k++) {
			sched_job_begin(&j, VA_STAMP + 16 * HIGH_STAMP(k, i));
			pkt_spin(j.dw, &j.n, SCHED_SPIN_MS(10));
			ret = sched_job_submit(fd, hi[k], &j, &bo, 1, 0, 0);
		}
	if (!tap_ok(!ret && sched_wait_u64(&stamp[HIGH_STAMP(0, 0)].start, 5000),
		    "%d s of HIGH work queued and running",
		    2 * HIGH_JOBS * 10 / 1000))
		return tap_exit_status();

	for (i = 0; i < LOW_JOBS; i++) {
		volatile struct sched_stamp *s = &stamp[8 + i];
		uint64_t t_sub = sched_clock(fd), wait;

		drmSyncobjReset(fd, &so, 1);
		sched_job_begin(&j, VA_STAMP + 16 * (8 + i));
		pkt_spin(j.dw, &j.n, SCHED_SPIN_MS(20));
		ret = sched_job_submit(fd, lo, &j, &bo, 1, 0, so);
		ret = ret ?: syncobj_wait(fd, so, 10000);
		wait = s->start > t_sub ? high_time(stamp, t_sub, s->start) : 0;
		tap_diag("LOW job %u: %llu ms of device time, %llu of HIGH work",
			 i, (unsigned long long)((s->start - t_sub) / 1000000),
			 (unsigned long long)(wait / 1000000));
		tap_ok(!ret && t_sub && s->start && wait <= bound &&
		       wait >= floor,
		       "LOW job %u started after %llu ms of HIGH work (%llu to %llu ms)",
		       i, (unsigned long long)(wait / 1000000),
		       (unsigned long long)(floor / 1000000),
		       (unsigned long long)(bound / 1000000));
	}

	/* the HIGH work was still there when the last LOW job ended */
	for (k = 0; k < 2; k++) {
		struct drm_tern_context_get_state st;

		if (!ctx_state(fd, hi[k], &st))
			high_left += st.jobs_submitted - st.jobs_completed;
	}
	tap_ok(high_left > 2,
	       "the LOW jobs ran while HIGH work waited (%llu HIGH jobs left)",
	       (unsigned long long)high_left);

	close(fd);
	tap_done();
	return tap_exit_status();
}
