/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * chaos_test.h - what the chaos tests (chaos_*.c) share: their cycle count,
 * a client that keeps every engine busy, the BO memory of an idle device and
 * the leak check of kernel objects after the cycles.
 */
#ifndef TERN_CHAOS_TEST_H
#define TERN_CHAOS_TEST_H

#include "core_test.h"

/* TERN_CHAOS_CYCLES, default 4: rounds or cycles of a chaos test */
static inline int chaos_cycles(void)
{
	const char *c = getenv("TERN_CHAOS_CYCLES");

	return c && atoi(c) > 0 ? atoi(c) : 4;
}

/*
 * Keep every engine busy: 1 ms jobs (their BO @bo at @va gets a counter)
 * on @ctx[0..@nctx-1] in turn, out-fence in @so (0: none), retried 2 ms
 * later while the context is full.  After 32 submits one byte goes to
 * @ready.  Returns the first error other than EAGAIN (never on a healthy
 * device: such a client is killed or sees the device go away).
 */
static inline int chaos_keep_busy(int fd, const uint32_t *ctx, uint32_t nctx,
				  uint32_t bo, uint64_t va, uint32_t so, int ready)
{
	uint32_t dw[8], n, j = 0;
	int ret;

	for (;;) {
		n = 0;
		pkt_spin(dw, &n, 1000);
		pkt_write_imm(dw, &n, va, j);
		ret = submit(fd, ctx[j++ % nctx], dw, n, &bo, 1, 0, so, NULL);
		if (j == 32 && write(ready, "r", 1) != 1)
			return -EPIPE;
		if (ret == -EAGAIN)
			usleep(2000);
		else if (ret)
			return ret;
	}
}

/*
 * The system memory of the BOs of an idle device (tern_system_kb()): what
 * is left once the files that used it are closed and what they freed late
 * is gone (10 s at most).  A device no file holds has no BO, so 0 unless
 * something leaked.
 */
static inline long chaos_idle_kb(void)
{
	return tern_system_settled_kb(0);
}

/*
 * The BO memory of the device a load or a rescan just made, once idle, in
 * *@idle: true if it has none (a new device counts from 0, and the job that
 * showed it works is freed), else a diagnostic for cycle @cyc.
 */
static inline bool chaos_new_device_empty(int cyc, long *idle)
{
	*idle = chaos_idle_kb();
	if (!*idle)
		return true;
	tap_diag("cycle %d: the new device holds %ld kB of BO system memory once idle", cyc,
		 *idle);
	return false;
}

/*
 * The leak check of kernel objects after the cycles: SUnreclaim in
 * /proc/meminfo, measured after the first cycle (which warms caches up)
 * and after the last.  (The buffer objects' memory is counted per device
 * instance, by tern's debugfs "memory": each test checks it in every cycle.)
 */
static inline void chaos_slab_check(long slab0, long slab1, int cycles)
{
	/*
	 * On the debug kernel KASAN's quarantine keeps freed objects in the
	 * slabs: SUnreclaim says nothing there, soak_kmemleak does the job.
	 */
	if (!access("/sys/kernel/debug/kmemleak", F_OK))
		tap_skip("SUnreclaim %+ld kB: no measure on the debug kernel (soak_kmemleak is)",
			 slab1 - slab0);
	else
		tap_ok(slab0 >= 0 && slab1 <= slab0 + 2048,
		       "no kernel memory leaked beyond noise (SUnreclaim %+ld kB over %d cycles)",
		       slab1 - slab0, cycles - 1);
}

#endif /* TERN_CHAOS_TEST_H */
