// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_fence: fences of libtern: waits with a timeout, status, sync_file
 * export that poll() reports, dependencies between jobs of two contexts and
 * (through a sync_file) of two open devices, waiting for several, and the
 * -ECANCELED of jobs cancelled by destroying their context.
 *
 * tern-vm: timeout=120
 */
#include <poll.h>
#include <stdint.h>
#include <tern/tern.h>

#include "tern_test.h"

#define SEC	1000000000ll

int main(void)
{
	struct tern_context *ctx, *ctx2, *ctx3, *other;
	struct tern_fence *fa = NULL, *fb = NULL, *fc = NULL, *imp = NULL;
	struct tern_fence *jobs[4] = { NULL };
	struct tern_device *dev, *dev2;
	struct tern_bo *bo, *bo2;
	struct tern_cmdbuf *cb;
	struct pollfd pfd;
	volatile uint32_t *w, *w2;
	uint64_t va;
	int ret, fd = -1, i;

	if (tern_device_open(0, &dev) || tern_device_open(0, &dev2) ||
	    tern_context_create(dev, NULL, &ctx) || tern_context_create(dev, NULL, &ctx2) ||
	    tern_context_create(dev, NULL, &ctx3) || tern_context_create(dev2, NULL, &other) ||
	    tern_bo_alloc(dev, 4096, 0, &bo) || tern_bo_alloc(dev2, 4096, 0, &bo2) ||
	    tern_cmdbuf_create(0, &cb)) {
		tap_ok(false, "set-up: %s", tern_last_error());
		return tap_exit_status();
	}
	w = tern_bo_map(bo);
	w2 = tern_bo_map(bo2);
	va = tern_bo_va(bo);

	/* A waits for the CPU to write w[0] */
	tern_cmd_wait_mem(cb, va, 1, 8000000);
	tern_cmd_write_imm(cb, va + 4, 11);
	ret = tern_submit(ctx, cb, NULL, 0, &fa);
	tap_ok(ret == 0 && tern_fence_seqno(fa) == 1 && tern_fence_syncobj(fa),
	       "job A submitted (seqno %u)", fa ? tern_fence_seqno(fa) : 0);
	if (ret)
		return tap_exit_status();
	ret = tern_fence_wait(fa, 20000000);
	tap_ok(ret == -ETIME && strstr(tern_last_error(), "timed out"),
	       "a 20 ms wait for the blocked job: -ETIME, \"%s\"", tern_last_error());
	tap_ok(tern_fence_status(fa) == -EBUSY, "its status is -EBUSY");
	ret = tern_fence_export_sync_file(fa, &fd);
	tap_ok(ret == 0 && fd >= 0, "export it as a sync_file");
	pfd.fd = fd;
	pfd.events = POLLIN;
	tap_ok(poll(&pfd, 1, 0) == 0, "poll() says the sync_file is not ready");

	/* B, on another context, depends on A */
	tern_cmdbuf_reset(cb);
	tern_cmd_write_imm(cb, va + 8, 22);
	ret = tern_submit(ctx2, cb, &fa, 1, &fb);
	tap_ok(ret == 0, "job B submitted on another context, depending on A");
	/* C, on another open device, depends on A through the sync_file */
	ret = tern_fence_import_sync_file(dev2, fd, &imp);
	tap_ok(ret == 0 && tern_fence_seqno(imp) == 0, "import the sync_file into another open");
	tern_cmdbuf_reset(cb);
	tern_cmd_write_imm(cb, tern_bo_va(bo2), 33);
	ret = tern_submit(other, cb, &imp, 1, &fc);
	tap_ok(ret == 0, "job C submitted there, depending on the imported fence");
	usleep(100000);
	tap_ok(w[2] == 0 && w2[0] == 0 && tern_fence_status(fb) == -EBUSY &&
	       tern_fence_status(fc) == -EBUSY, "100 ms later B and C have not run");

	w[0] = 1;
	ret = poll(&pfd, 1, 10000);
	tap_ok(ret == 1 && (pfd.revents & POLLIN), "once the CPU releases A, poll() wakes up");
	{
		struct tern_fence *both[2] = { fa, fb };

		ret = tern_fence_wait_all(both, 2, 10 * SEC);
		tap_ok(ret == 0 && w[1] == 11 && w[2] == 22, "wait_all(A, B): both ran, in order");
	}
	ret = tern_fence_wait(fc, 10 * SEC);
	tap_ok(ret == 0 && w2[0] == 33, "C ran after A");
	tap_ok(tern_fence_status(fa) == 0 && tern_fence_wait(fa, 0) == 0,
	       "a finished fence: status 0, a zero wait 0");
	{
		struct tern_fence *mixed[2] = { fa, fc };

		ret = tern_fence_wait_all(mixed, 2, 0);
		tap_ok(ret == -EINVAL && strstr(tern_last_error(), "another open device"),
		       "wait_all over two devices: -EINVAL, \"%s\"", tern_last_error());
	}
	close(fd);

	/* cancellation: destroy a context with jobs queued behind a blocked one */
	w[3] = 0;
	tern_cmdbuf_reset(cb);
	tern_cmd_wait_mem(cb, va + 12, 1, 8000000);
	ret = tern_submit(ctx3, cb, NULL, 0, &jobs[0]);
	tern_cmdbuf_reset(cb);
	tern_cmd_write_imm(cb, va + 16, 44);
	for (i = 1; i < 4 && !ret; i++)
		ret = tern_submit(ctx3, cb, NULL, 0, &jobs[i]);
	tap_ok(ret == 0, "a blocked job and three behind it");
	usleep(50000);
	tap_ok(tern_context_destroy(ctx3) == 0, "destroy their context");
	w[3] = 1;
	ret = tern_fence_wait(jobs[3], 10 * SEC);
	tap_ok(ret == -ECANCELED && strstr(tern_last_error(), "cancelled"),
	       "the last queued job's fence: -ECANCELED, \"%s\"", tern_last_error());
	ret = tern_fence_wait(jobs[0], 10 * SEC);
	tap_ok(ret == 0, "the job that was running finished (%d)", ret);

	for (i = 0; i < 4; i++)
		tern_fence_free(jobs[i]);
	tern_fence_free(imp);
	tern_fence_free(fc);
	tern_fence_free(fb);
	tern_fence_free(fa);
	tern_fence_free(NULL);
	tern_cmdbuf_free(cb);
	tern_bo_free(bo2);
	tern_bo_free(bo);
	tern_context_destroy(other);
	tern_context_destroy(ctx2);
	tern_context_destroy(ctx);
	tern_device_close(dev2);
	tern_device_close(dev);
	tap_done();
	return tap_exit_status();
}
