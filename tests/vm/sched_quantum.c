// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sched_quantum: contexts of one class take turns of a quantum of device
 * time; a job with nothing else ready runs to its end, never preempted; a
 * job in the PENDING slot is not displaced by a later arrival.
 *
 * 1. Two NORMAL contexts, each a 200 ms SPIN then a 40 ms SPIN, quantum
 *    20 ms (debugfs quantum_us): the second context's long job starts
 *    before the first one's ends (they interleave), each context is
 *    preempted at least twice, and at most once per half quantum of its
 *    device time: a quantum preemption comes after a whole quantum of
 *    running, less at most one chunk (2 ms) that the device cuts short
 *    and the driver's start-of-run estimate, so no run is shorter than
 *    Q/2 unless it ended by itself.  Each context's jobs run in order.
 * 2. A context alone with a 200 ms and a 100 ms SPIN: never preempted,
 *    though each job is many quanta long and its own next job is ready.
 * 3. While a 200 ms job runs, a job D of another context waits in the
 *    PENDING slot; a job E of a third context (weight 64) arrives later:
 *    D starts before E.
 *
 * tern-vm: device=compute-engines=1,time-scale=200 timeout=120
 */
#include "sched_test.h"

#define VA_STAMP	0x100000ull
#define LIMIT_S		120
#define QUANTUM_MS	20

/* Submit a SPIN of @ms between the stamps at index @idx; 0 or -errno */
static int spin_job(int fd, uint32_t ctx, uint32_t bo, unsigned int idx,
		    unsigned int ms)
{
	struct sched_job j;

	sched_job_begin(&j, VA_STAMP + 16 * idx);
	pkt_spin(j.dw, &j.n, SCHED_SPIN_MS(ms));
	return sched_job_submit(fd, ctx, &j, &bo, 1, 0, 0);
}

int main(void)
{
	volatile struct sched_stamp *s = NULL;
	uint32_t a = 0, b = 0, c = 0, d = 0, e = 0, bo = 0;
	uint64_t pa, pb, ba, bb, half = QUANTUM_MS * 1000000ull / 2;
	char v[16];
	int fd, ret;

	fd = tern_test_open();
	if (!tap_ok(fd >= 0 && sched_knobs_save(LIMIT_S) &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_NORMAL, 0, 0, &a) &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_NORMAL, 0, 0, &b) &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_NORMAL, 0, 0, &c) &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_NORMAL, 0, 0, &d) &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_NORMAL, 64, 0, &e) &&
		    !core_bo(fd, 4096, VA_STAMP, &bo, (void **)&s),
		    "five NORMAL contexts on engine 0; knobs saved"))
		return tap_exit_status();
	memset((void *)s, 0, 4096);
	snprintf(v, sizeof(v), "%d", QUANTUM_MS * 1000);
	tap_errno(sched_dbg_write("quantum_us", v), 0, "quantum_us 20000");

	/* 1: A (stamps 0, 1) and B (stamps 2, 3) */
	ret = spin_job(fd, a, bo, 0, 200) ?: spin_job(fd, a, bo, 1, 40);
	ret = ret ?: !sched_wait_u64(&s[0].start, 5000);
	ret = ret ?: spin_job(fd, b, bo, 2, 200) ?: spin_job(fd, b, bo, 3, 40);
	ret = ret || !ctx_idle(fd, a, 10000) || !ctx_idle(fd, b, 10000);
	tap_ok(!ret, "two NORMAL contexts ran 240 ms each");
	tap_ok(s[2].start && s[2].start < s[0].end,
	       "B's long job started before A's ended: they took turns");
	pa = sched_preemptions(fd, a);
	pb = sched_preemptions(fd, b);
	ba = sched_busy_ns(fd, a);
	bb = sched_busy_ns(fd, b);
	tap_ok(pa >= 2 && pb >= 2, "both were preempted at quantum expiry (%llu, %llu)",
	       (unsigned long long)pa, (unsigned long long)pb);
	tap_ok(pa <= ba / half + 1 && pb <= bb / half + 1,
	       "no run cut before half a quantum (%llu preemptions in %llu ms, %llu in %llu ms)",
	       (unsigned long long)pa, (unsigned long long)(ba / 1000000),
	       (unsigned long long)pb, (unsigned long long)(bb / 1000000));
	tap_ok(s[0].end <= s[1].start && s[2].end <= s[3].start && s[1].end &&
	       s[3].end, "each context's jobs ran in submission order");

	/* 2: C alone (stamps 4, 5) */
	ret = spin_job(fd, c, bo, 4, 200) ?: spin_job(fd, c, bo, 5, 100);
	ret = ret ?: !ctx_idle(fd, c, 10000);
	tap_ok(!ret && s[4].end <= s[5].start && s[5].end,
	       "a lone context ran a 200 ms and a 100 ms job");
	tap_ok(sched_preemptions(fd, c) == 0 &&
	       sched_busy_ns(fd, c) >= 300000000ull,
	       "nothing else was ready: never preempted (%llu preemptions, %llu ms)",
	       (unsigned long long)sched_preemptions(fd, c),
	       (unsigned long long)(sched_busy_ns(fd, c) / 1000000));

	/* 3: A runs 200 ms (stamp 6), D waits in PENDING (7), E arrives (8) */
	ret = spin_job(fd, a, bo, 6, 200);
	ret = ret ?: !sched_wait_u64(&s[6].start, 5000);
	/*
	 * A job with no in-fence is given to the scheduler by the submit
	 * ioctl: D is in the PENDING slot (or already running, promised)
	 * when its submit returns.  Not waited for on debugfs: on a loaded
	 * host D may be done before a poll sees it there.
	 */
	ret = ret ?: spin_job(fd, d, bo, 7, 10);
	ret = ret ?: spin_job(fd, e, bo, 8, 10);
	ret = ret || !ctx_idle(fd, a, 10000) || !ctx_idle(fd, d, 10000) ||
	      !ctx_idle(fd, e, 10000);
	tap_ok(!ret && s[7].start && s[8].start && s[7].start < s[8].start,
	       "the job in the PENDING slot ran before a later arrival (%llu < %llu)",
	       (unsigned long long)s[7].start, (unsigned long long)s[8].start);

	close(fd);
	tap_done();
	return tap_exit_status();
}
