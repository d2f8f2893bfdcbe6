// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * race_submit_destroy: SUBMIT racing CONTEXT_DESTROY on the same context.
 * One thread submits large command buffers (copied and validated by the
 * kernel: a wide window between the context lookup and the push) as fast
 * as it can; another destroys the context after a varying delay.  Every
 * submission the kernel accepted must signal (completed or cancelled), an
 * UNMAP of the BO the jobs use must return, and the context must leave the
 * device (debugfs) once its jobs are done.  Many rounds, each with its own
 * delay.
 *
 * tern-vm: timeout=240
 */
#include <pthread.h>

#include "core_test.h"

#define VA		0x100000ull
#define ROUNDS		40
#define MAX_JOBS	64
#define BUF_DW		(64 * 1024)	/* 256 KiB of NOPs and a write */

struct racer {
	int fd;
	uint32_t ctx, bo;
	uint32_t *dw;
	uint32_t so[MAX_JOBS];
	int accepted;
	int last_error;
	volatile int go;
};

static void *submitter(void *arg)
{
	struct racer *r = arg;
	int i, ret;

	while (!r->go)
		;
	for (i = 0; i < MAX_JOBS; i++) {
		ret = submit(r->fd, r->ctx, r->dw, BUF_DW, &r->bo, 1, 0,
			     r->so[i], NULL);
		if (ret == -EAGAIN) {
			usleep(100);
			i--;
			continue;
		}
		if (ret) {
			r->last_error = ret;
			break;
		}
		r->accepted++;
	}
	return NULL;
}

int main(void)
{
	int base, fd, round, i, lost = 0, bad_err = 0, stuck_unmap = 0;
	int stuck_ctx = 0, total = 0;
	volatile uint32_t *mem;
	struct racer r = {};
	uint32_t bo = 0, n;
	pthread_t th;

	tap_plan(5);
	fd = tern_test_open();
	if (!tap_ok(fd >= 0, "open the device"))
		return tap_exit_status();
	base = core_context_count();
	r.dw = calloc(BUF_DW, 4);
	if (!r.dw)
		return 1;
	/* NOP padding, then a write at the end */
	r.dw[0] = TERN_PKT_HEADER(TERN_OP_NOP, BUF_DW - 4);
	n = BUF_DW - 4;
	pkt_write_imm(r.dw, &n, VA, 1);

	for (round = 0; round < ROUNDS; round++) {
		if (core_bo(fd, 4096, VA, &bo, (void **)&mem) ||
		    ctx_create(fd, DRM_TERN_PRIORITY_NORMAL,
			       DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &r.ctx))
			break;
		r.fd = fd;
		r.bo = bo;
		r.accepted = 0;
		r.last_error = 0;
		r.go = 0;
		for (i = 0; i < MAX_JOBS; i++)
			r.so[i] = syncobj_new(fd);
		pthread_create(&th, NULL, submitter, &r);
		r.go = 1;
		usleep((round % 10) * 300);
		ctx_destroy(fd, r.ctx);
		pthread_join(th, NULL);
		total += r.accepted;
		if (r.last_error && r.last_error != -ENOENT) {
			tap_diag("round %d: submit after destroy: %s", round,
				 strerror(-r.last_error));
			bad_err++;
		}
		for (i = 0; i < r.accepted; i++) {
			if (syncobj_wait(fd, r.so[i], 20000)) {
				tap_diag("round %d: accepted job %d of %d never signalled",
					 round, i, r.accepted);
				lost++;
				break;
			}
		}
		for (i = 0; i < MAX_JOBS; i++)
			drmSyncobjDestroy(fd, r.so[i]);
		{
			int64_t t0 = now_ns();

			if (vm_unmap(fd, VA, 4096) ||
			    now_ns() - t0 > 20000000000ll)
				stuck_unmap++;
		}
		bo_close(fd, bo);
		if (!core_context_count_is(base, 20000)) {
			tap_diag("round %d: %d contexts left, want %d", round,
				 core_context_count(), base);
			stuck_ctx++;
		}
		if (lost || stuck_unmap || stuck_ctx)
			break;
	}
	tap_ok(round == ROUNDS, "%d rounds of submit against destroy (%d jobs accepted)",
	       round, total);
	tap_ok(!lost, "every accepted job signalled");
	tap_ok(!bad_err, "submits after the destroy fail with ENOENT");
	tap_ok(!stuck_unmap, "the BO's unmap returned");
	tap_ok(!stuck_ctx, "destroyed contexts left the device");
	free(r.dw);
	close(fd);
	return tap_exit_status();
}
