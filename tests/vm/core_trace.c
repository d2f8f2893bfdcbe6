// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_trace: the tern tracepoints report a job's submit, run and
 * completion, and a fault; a lost completion interrupt (injected) delays
 * the job only until the watchdog polls the slots.
 *
 * tern-vm: timeout=60
 */
#include "core_test.h"

#define VA	0x100000ull
#define TRACING	"/sys/kernel/debug/tracing"

static bool put(const char *file, const char *s)
{
	char path[256];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), TRACING "/%s", file);
	f = fopen(path, "w");
	if (!f)
		return false;
	ok = fputs(s, f) >= 0;
	return !fclose(f) && ok;
}

/* Read the trace buffer into @buf. */
static size_t read_trace(char *buf, size_t len)
{
	FILE *f = fopen(TRACING "/trace", "r");
	size_t n = 0;

	if (!f)
		return 0;
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
	return n;
}

int main(void)
{
	static char buf[1 << 20];
	uint32_t dw[16], n, ctx = 0, ctx2 = 0, bo = 0, so, engine;
	struct drm_tern_context_create cc = { .priority = 1 };
	volatile uint32_t *mem;
	int64_t t0, dt;
	int fd, ret;

	tap_plan(9);
	fd = tern_test_open();
	if (!tap_ok(fd >= 0, "open the device") ||
	    mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &cc) ||
	    ctx_create(fd, 1, 0, 0, &ctx2) ||
	    core_bo(fd, 4096, VA, &bo, (void **)&mem))
		return tap_exit_status();
	ctx = cc.handle;
	engine = cc.engine;
	so = syncobj_new(fd);

	tap_ok(put("trace", "") && put("events/tern/enable", "1") &&
	       put("tracing_on", "1"), "enable the tern events");
	n = 0;
	pkt_write_imm(dw, &n, VA, 0x77);
	submit(fd, ctx, dw, n, &bo, 1, 0, so, NULL);
	syncobj_wait(fd, so, 5000);
	n = 0;
	pkt_write_imm(dw, &n, 0x7000000ull, 1);
	drmSyncobjReset(fd, &so, 1);
	submit(fd, ctx2, dw, n, &bo, 1, 0, so, NULL);
	syncobj_wait(fd, so, 5000);
	put("tracing_on", "0");
	read_trace(buf, sizeof(buf));
	tap_ok(strstr(buf, "tern_job_submit:") != NULL, "tern_job_submit");
	tap_ok(strstr(buf, "tern_job_run:") != NULL, "tern_job_run");
	tap_ok(strstr(buf, "tern_job_complete:") != NULL &&
	       strstr(buf, "outcome=1") != NULL, "tern_job_complete");
	tap_ok(strstr(buf, "tern_job_fault:") != NULL &&
	       strstr(buf, "kind=1 addr=0x7000000") != NULL,
	       "tern_job_fault with kind and address");
	put("events/tern/enable", "0");

	/* a completion whose interrupt is lost */
	tap_ok(core_inject(engine, 2), "arm DROP_IRQ on engine %u", engine);
	n = 0;
	pkt_write_imm(dw, &n, VA + 4, 0x88);
	drmSyncobjReset(fd, &so, 1);
	t0 = now_ns();
	ret = submit(fd, ctx, dw, n, &bo, 1, 0, so, NULL);
	ret = ret ?: syncobj_wait(fd, so, 3000);
	dt = now_ns() - t0;
	tap_ok(!ret && mem[1] == 0x88,
	       "the job still completes (%lld ms)", (long long)(dt / 1000000));
	tap_ok(dt < 1000000000ll, "within a watchdog period or so");

	close(fd);
	return tap_exit_status();
}
