// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sched_params: the module parameters sched_policy, quantum_us and
 * starve_ms set the scheduler of every engine at load.  tern.ko is loaded
 * with "sched_policy=fifo quantum_us=5000 starve_ms=80": debugfs and the
 * engines' policy lines show those values, and a HIGH job arriving while a
 * LOW job runs waits for it (fifo never preempts).  Loaded again without
 * parameters, the driver is back to fair.
 *
 * tern-vm: device=compute-engines=1,time-scale=200 timeout=120
 */
#include "sched_test.h"

#define VA_STAMP	0x100000ull

/* Unload tern.ko (retrying while files are released), load it with @args. */
static bool reload(const char *args)
{
	char cmd[512];
	int i;

	for (i = 0; i < 100 && system("rmmod tern 2>/dev/null"); i++)
		usleep(50000);
	snprintf(cmd, sizeof(cmd), "insmod %s %s", tern_test_module_path(),
		 args);
	if (i == 100 || system(cmd))
		return false;
	for (i = 0; i < 100 && access(TERN_TEST_NODE, F_OK); i++)
		usleep(20000);
	return i < 100;
}

static bool param_is(const char *name, const char *want)
{
	char got[32];

	return !strcmp(sched_module_param(name, got, sizeof(got)), want);
}

int main(void)
{
	static char buf[1 << 14];
	volatile struct sched_stamp *s = NULL;
	uint32_t lo = 0, hi = 0, bo = 0, so;
	struct sched_job j;
	int fd, ret;

	tap_ok(reload("sched_policy=fifo quantum_us=5000 starve_ms=80"),
	       "load tern.ko with sched_policy=fifo quantum_us=5000 starve_ms=80");
	tap_ok(param_is("sched_policy", "fifo") && param_is("quantum_us", "5000") &&
	       param_is("starve_ms", "80"), "the module parameters read back");
	tap_ok(sched_dbg_read("sched_policy", buf, sizeof(buf)) > 0 &&
	       !strcmp(buf, "fifo\n") && sched_dbg_long("quantum_us") == 5000 &&
	       sched_dbg_long("starve_ms") == 80,
	       "debugfs sched_policy, quantum_us and starve_ms start from them");
	tap_ok(sched_dbg_read("engines", buf, sizeof(buf)) > 0 &&
	       strstr(buf, "  policy fifo quantum_us 5000 starve_ms 80\n") &&
	       !strstr(buf, "  policy fair"), "every engine runs fifo");

	fd = tern_test_open();
	if (!tap_ok(fd >= 0 && !sched_ctx(fd, DRM_TERN_PRIORITY_LOW, 0, 0, &lo) &&
		    !sched_ctx(fd, DRM_TERN_PRIORITY_HIGH, 0, 0, &hi) &&
		    !core_bo(fd, 4096, VA_STAMP, &bo, (void **)&s),
		    "LOW and HIGH contexts"))
		return tap_exit_status();
	memset((void *)s, 0, 4096);
	so = syncobj_new(fd);
	sched_job_begin(&j, VA_STAMP);
	pkt_spin(j.dw, &j.n, SCHED_SPIN_MS(100));
	ret = sched_job_submit(fd, lo, &j, &bo, 1, 0, 0);
	ret = ret ?: !sched_wait_u64(&s[0].start, 5000);
	sched_job_begin(&j, VA_STAMP + 16);
	pkt_spin(j.dw, &j.n, SCHED_SPIN_MS(10));
	ret = ret ?: sched_job_submit(fd, hi, &j, &bo, 1, 0, so);
	ret = ret ?: syncobj_wait(fd, so, 5000);
	tap_ok(!ret && s[0].end && s[0].end <= s[1].start &&
	       sched_preemptions(fd, lo) == 0,
	       "a HIGH arrival waits for the running LOW job: no preemption");
	munmap((void *)s, 4096);
	close(fd);

	tap_ok(reload(""), "load tern.ko again without parameters");
	tap_ok(param_is("sched_policy", "fair") &&
	       sched_dbg_read("sched_policy", buf, sizeof(buf)) > 0 &&
	       !strcmp(buf, "fair\n"), "the policy is fair again");
	tap_done();
	return tap_exit_status();
}
