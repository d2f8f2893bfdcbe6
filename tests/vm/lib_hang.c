// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_hang: what libtern reports when a job hangs: its fence fails with
 * -ETIMEDOUT, its context is BANNED for a hang and says so, further
 * submits are -EIO with the reason, and a context whose work was caught in
 * the engine reset stays usable.  The hang is injected through the driver's
 * debugfs (the device's fault-injection block).
 *
 * tern-vm: timeout=120
 */
#include <dirent.h>
#include <stdint.h>
#include <tern/tern.h>

#include "tern_test.h"

#define SEC	1000000000ll

/* Arm a hang of @engine through debugfs: accel/<minor>/inject "<engine> 1". */
static bool inject_hang(uint32_t engine)
{
	const char *root = "/sys/kernel/debug/accel";
	char path[512];
	struct dirent *de;
	bool done = false;
	DIR *d = opendir(root);
	FILE *f;

	while (d && !done && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/inject", root, de->d_name);
		f = fopen(path, "w");
		if (!f)
			continue;
		done = fprintf(f, "%u 1\n", engine) > 0;
		done &= fclose(f) == 0;
	}
	if (d)
		closedir(d);
	return done;
}

int main(void)
{
	struct tern_context_params gp = { .timeout_ms = 300 };
	struct tern_context *guilty, *innocent = NULL;
	struct tern_fence *fg = NULL, *fi = NULL;
	struct tern_context_status st;
	struct tern_device *dev;
	struct tern_cmdbuf *cb;
	struct tern_bo *bo;
	volatile uint32_t *w;
	unsigned int i;
	int ret;

	if (tern_device_open(0, &dev) || tern_context_create(dev, &gp, &guilty) ||
	    tern_bo_alloc(dev, 4096, 0, &bo) || tern_cmdbuf_create(0, &cb)) {
		tap_ok(false, "set-up: %s", tern_last_error());
		return tap_exit_status();
	}
	if (!(tern_device_info(dev)->caps & TERN_CAP_FAULT_INJECT)) {
		tap_skip("the device has no fault-injection block");
		tap_done();
		return tap_exit_status();
	}
	/* an innocent context on the same engine */
	if (tern_context_create_on(dev, NULL, tern_context_engine(guilty), &innocent))
		innocent = NULL;
	if (!tap_ok(innocent && tern_context_engine(innocent) == tern_context_engine(guilty),
		    "an innocent context on the guilty one's engine (%u)",
		    tern_context_engine(guilty)))
		return tap_exit_status();
	w = tern_bo_map(bo);

	/*
	 * The hang hits the buffer running at the engine's next preemption
	 * point (or the next one to start): arm it once the guilty job is
	 * running (it writes a marker, then spins for 200 ms), and only then
	 * submit the innocent job, since the driver may order the jobs of
	 * different contexts either way.
	 */
	tern_cmd_write_imm(cb, tern_bo_va(bo) + 8, 1);
	tern_cmd_spin(cb, 200000);
	tern_cmd_write_imm(cb, tern_bo_va(bo), 0xbad);
	ret = tern_submit(guilty, cb, NULL, 0, &fg);
	for (i = 0; i < 5000 && !ret && !w[2]; i++)
		usleep(1000);
	tap_ok(ret == 0 && w[2] == 1, "a job of the guilty context (300 ms timeout) is running");
	tap_ok(inject_hang(tern_context_engine(guilty)), "arm a hang of that engine");
	tern_cmdbuf_reset(cb);
	tern_cmd_write_imm(cb, tern_bo_va(bo) + 4, 0x600d);
	ret = tern_submit(innocent, cb, NULL, 0, &fi);
	tap_ok(ret == 0, "submit an innocent job behind it");

	ret = tern_fence_wait(fi, 20 * SEC);
	tap_ok(ret == 0 && w[1] == 0x600d, "the innocent job completes after the reset (%d)", ret);
	ret = tern_fence_wait(fg, 20 * SEC);
	tap_ok(ret == -ETIMEDOUT && strstr(tern_last_error(), "hung"),
	       "the hung job's fence: -ETIMEDOUT, \"%s\"", tern_last_error());
	tap_ok(w[0] != 0xbad, "the hung job did not get past its hang");
	ret = tern_context_status(guilty, &st);
	tap_ok(ret == 0 && st.state == TERN_CONTEXT_BANNED && st.reason == TERN_REASON_HANG &&
	       st.fault_seqno == tern_fence_seqno(fg) && st.reset_count >= 1,
	       "the guilty context is BANNED for a hang, job %u, %u reset(s)", st.fault_seqno,
	       st.reset_count);
	tap_ok(strstr(tern_last_error(), "banned") && strstr(tern_last_error(), "hung"),
	       "tern_context_status explains it: \"%s\"", tern_last_error());
	ret = tern_submit(guilty, cb, NULL, 0, NULL);
	tap_ok(ret == -EIO && strstr(tern_last_error(), "banned"),
	       "a later submit there: -EIO, \"%s\"", tern_last_error());
	ret = tern_context_status(innocent, &st);
	tap_ok(ret == 0 && (st.state == TERN_CONTEXT_ACTIVE ||
			    (st.state == TERN_CONTEXT_RESET &&
			     st.reason == TERN_REASON_INNOCENT_RESET)),
	       "the innocent context is %s (%s)", tern_context_state_name(st.state),
	       tern_context_reason_name(st.reason));
	tern_fence_free(fi);
	fi = NULL;
	ret = tern_submit(innocent, cb, NULL, 0, &fi);
	tap_ok(ret == 0 && tern_fence_wait(fi, 10 * SEC) == 0, "and takes work again");

	tern_fence_free(fi);
	tern_fence_free(fg);
	tern_cmdbuf_free(cb);
	tern_bo_free(bo);
	tern_context_destroy(innocent);
	tern_context_destroy(guilty);
	tern_device_close(dev);
	tap_done();
	return tap_exit_status();
}
