// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_fence_order: a context's fences signal in submission order in the
 * paths where its jobs do not complete, read from the fences' own
 * timestamps (SYNC_IOC_FILE_INFO on a sync_file of each out-syncobj):
 *
 * - a job faults with the next job of its context in the PENDING slot
 *   (cancelled by the device) and two more queued: -EIO, then -ECANCELED
 *   three times, in seqno order;
 * - a context is destroyed while its job runs and the next one is PENDING,
 *   with a third queued; another context's job then preempts the running
 *   one for its quantum: all three signal -ECANCELED (or complete) in order.
 *
 * Each case runs several times: the order must hold every time.
 *
 * tern-vm: timeout=180
 */
#include "core_test.h"

#define VA	0x100000ull
#define VA_BAD	0x7000000ull
#define ROUNDS	5
#define NJOBS	4

/*
 * Wait for the @n syncobjs and check they signalled in order, with the
 * errors in @want (0: completed, 1 expected as status).
 */
static bool signalled_in_order(int fd, const uint32_t *so, unsigned int n,
			       const int32_t *want, const char *what)
{
	uint64_t ts = 0, prev = 0;
	unsigned int i;
	int st = 0;
	bool ok = true;

	for (i = 0; i < n; i++) {
		if (syncobj_wait(fd, so[i], 30000) ||
		    !core_fence_info(fd, so[i], &st, &ts)) {
			tap_diag("%s: job %u did not signal", what, i);
			return false;
		}
		if (want[i] != INT32_MIN && st != want[i]) {
			tap_diag("%s: job %u status %d, want %d", what, i, st,
				 want[i]);
			ok = false;
		}
		if (ts < prev) {
			tap_diag("%s: job %u signalled %llu ns before job %u",
				 what, i, (unsigned long long)(prev - ts), i - 1);
			ok = false;
		}
		prev = ts;
	}
	return ok;
}

/* A job faults with the next job PENDING behind it and two queued. */
static bool fault_with_pending(int fd, uint32_t bo, volatile uint32_t *mem)
{
	int32_t want[NJOBS] = { -EIO, -ECANCELED, -ECANCELED, -ECANCELED };
	uint32_t dw[32], n, ctx = 0, so[NJOBS], i;
	bool ok;

	if (ctx_create_on(fd, 0, 0, &ctx))
		return false;
	mem[0] = 0;
	__sync_synchronize();
	for (i = 0; i < NJOBS; i++)
		so[i] = syncobj_new(fd);
	/* the first job waits for the CPU, then faults */
	n = 0;
	pkt_wait_mem(dw, &n, VA, 1, 10000000);
	pkt_write_imm(dw, &n, VA_BAD, 0xbad);
	if (submit(fd, ctx, dw, n, &bo, 1, 0, so[0], NULL))
		return false;
	for (i = 1; i < NJOBS; i++) {
		n = 0;
		pkt_write_imm(dw, &n, VA + 4 * i, i);
		if (submit(fd, ctx, dw, n, &bo, 1, 0, so[i], NULL))
			return false;
	}
	usleep(20000);	/* the second job reaches the PENDING slot */
	mem[0] = 1;
	__sync_synchronize();
	ok = signalled_in_order(fd, so, NJOBS, want, "fault");
	for (i = 1; i < NJOBS; i++)
		ok &= mem[i] == 0;	/* nothing ran after the fault */
	for (i = 0; i < NJOBS; i++)
		drmSyncobjDestroy(fd, so[i]);
	ctx_destroy(fd, ctx);
	return ok;
}

/*
 * A destroyed context whose running job is preempted for another
 * context's quantum, with its next job PENDING and a third queued.
 */
static bool destroyed_then_preempted(int fd, uint32_t bo)
{
	/* the first job may complete before the preemption */
	int32_t want[NJOBS - 1] = { INT32_MIN, -ECANCELED, -ECANCELED };
	uint32_t dw[32], n, ctx = 0, other = 0, so[NJOBS - 1], so_other, i;
	bool ok;

	if (ctx_create_on(fd, 0, 0, &ctx) || ctx_create_on(fd, 0, 0, &other))
		return false;
	for (i = 0; i < NJOBS - 1; i++) {
		so[i] = syncobj_new(fd);
		n = 0;
		pkt_spin(dw, &n, 400000);	/* preemptible every 10 us */
		if (submit(fd, ctx, dw, n, &bo, 1, 0, so[i], NULL))
			return false;
	}
	usleep(5000);
	/* jobs not started are cancelled; the two in slots go on */
	if (ctx_destroy(fd, ctx))
		return false;
	/* same class, waiting: the running job yields at its quantum */
	so_other = syncobj_new(fd);
	n = 0;
	pkt_write_imm(dw, &n, VA + 64, 1);
	if (submit(fd, other, dw, n, &bo, 1, 0, so_other, NULL))
		return false;
	ok = signalled_in_order(fd, so, NJOBS - 1, want, "destroyed");
	ok &= syncobj_wait(fd, so_other, 30000) == 0;
	for (i = 0; i < NJOBS - 1; i++)
		drmSyncobjDestroy(fd, so[i]);
	drmSyncobjDestroy(fd, so_other);
	ctx_destroy(fd, other);
	return ok;
}

int main(void)
{
	volatile uint32_t *mem = NULL;
	uint32_t bo = 0;
	bool ok;
	int fd, r;

	tap_plan(3);
	fd = tern_test_open();
	if (!tap_ok(fd >= 0 && !core_bo(fd, 4096, VA, &bo, (void **)&mem),
		    "open the device, map a BO"))
		return tap_exit_status();

	for (ok = true, r = 0; r < ROUNDS && ok; r++)
		ok = fault_with_pending(fd, bo, mem);
	tap_ok(ok, "fault with a pending and two queued jobs: EIO then ECANCELED, in order (%d rounds)",
	       r);
	for (ok = true, r = 0; r < ROUNDS && ok; r++)
		ok = destroyed_then_preempted(fd, bo);
	tap_ok(ok, "destroyed context preempted with a pending and a queued job: in order (%d rounds)",
	       r);
	close(fd);
	return tap_exit_status();
}
