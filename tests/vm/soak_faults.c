// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * soak_faults: on every engine in turn, inject hangs, faults and dropped
 * interrupts (the device's fault injection, through debugfs "inject") into
 * jobs of short-lived guilty contexts, while innocent contexts keep
 * running checked workloads: one per other engine in the background (their
 * own files, never reset), and one queued right behind each guilty job on
 * the same engine (cancelled by the reset and run again).  Every hang must
 * be recovered without reloading the module, every innocent result must be
 * correct, and every guilty context must say why it stopped
 * (CONTEXT_GET_STATE: BANNED for a hang, FAULTED with kind INJECTED for a
 * fault; a lost interrupt loses nothing).
 *
 * TERN_SOAK_ROUNDS (default 2) is the number of injections of each kind
 * per engine; make soak runs many.
 *
 * tern-vm: timeout=400
 */
#include <pthread.h>

#include "core_test.h"

#define VA		0x100000ull
#define GVA		0x200000ull
#define BG_WORDS	1024
#define OP_HANG		1	/* docs/hardware.md section 13 */
#define OP_DROP_IRQ	2
#define OP_FAULT	3
#define FAULT_INJECTED	11	/* fault kind of an injected fault */

struct bg {
	pthread_t thread;
	unsigned int engine;
	int fd;
	uint32_t ctx, bo, so;
	volatile uint32_t *mem;
	volatile int pause, parked, stop;
	unsigned long jobs, bad, errors;
	int first_err;		/* the first error: -errno of SUBMIT or the wait */
	const char *first_what;
};

static struct drm_tern_get_info info;

static int ctx_on_engine(int fd, uint32_t prio, uint32_t timeout_ms,
			 unsigned int engine, uint32_t *h)
{
	return ctx_create_class_on(fd, prio, info.engine_class[engine], timeout_ms,
				   engine, h);
}

/* Background innocent: fill its BO with a new pattern, check every word. */
static void *bg_main(void *p)
{
	struct bg *b = p;
	uint32_t dw[16], n, seq = 0, i;
	const char *what;
	int ret;

	while (!b->stop) {
		if (b->pause) {
			b->parked = 1;
			usleep(2000);
			continue;
		}
		b->parked = 0;
		seq++;
		n = 0;
		pkt_fill(dw, &n, VA, BG_WORDS * 4, 0xb6000000 | (b->engine << 16) | seq);
		pkt_write_imm(dw, &n, VA + BG_WORDS * 4, seq);
		drmSyncobjReset(b->fd, &b->so, 1);
		ret = submit(b->fd, b->ctx, dw, n, &b->bo, 1, 0, b->so, NULL);
		what = "SUBMIT";
		if (!ret) {
			ret = syncobj_wait(b->fd, b->so, 60000);
			what = "the wait";
		}
		if (ret) {
			if (!b->errors++) {
				b->first_err = ret;
				b->first_what = what;
			}
			continue;
		}
		b->jobs++;
		for (i = 0; i < BG_WORDS; i++)
			if (b->mem[i] != (0xb6000000 | (b->engine << 16) | seq))
				break;
		if (i < BG_WORDS || b->mem[BG_WORDS] != seq)
			b->bad++;
	}
	b->parked = 1;
	return NULL;
}

static void bg_pause(struct bg *b, bool on)
{
	if (!b)
		return;
	b->pause = on;
	if (!on)
		return;
	while (!b->parked)
		usleep(1000);
}

int main(void)
{
	static const unsigned int ops[] = { OP_HANG, OP_FAULT, OP_DROP_IRQ };
	static const char *const op_name[] = { "", "hang", "drop-irq", "fault" };
	const char *r = getenv("TERN_SOAK_ROUNDS");
	unsigned int rounds = r ? (unsigned int)atoi(r) : 2;
	unsigned long injected[4] = { 0 }, told[4] = { 0 }, recovered = 0;
	unsigned long inno_jobs = 0, inno_bad = 0, guilty_wrong = 0, bg_jobs = 0, bg_bad = 0;
	unsigned long bg_err = 0, bg_touched = 0, resets_before = 0;
	struct drm_tern_context_get_state st;
	struct bg bgs[DRM_TERN_MAX_ENGINES];
	unsigned int e, o, k, i;
	uint32_t ibo, gbo, ictx[DRM_TERN_MAX_ENGINES], iso, gso;
	volatile uint32_t *imem, *gmem;
	int fd, gfd;
	bool setup_ok = true;

	tap_plan(8);
	fd = tern_test_open();
	gfd = tern_test_open();
	if (!tap_ok(fd >= 0 && gfd >= 0 && !core_get_info(fd, &info) &&
		    (info.caps & DRM_TERN_CAP_FAULT_INJECT) && core_inject(0, 0),
		    "open the device; it has fault injection and debugfs inject"))
		return tap_exit_status();
	tap_diag("%u engines, %u injections of each kind per engine", info.engine_count, rounds);

	/* innocent file: one context per engine for the jobs queued behind */
	setup_ok = !core_bo(fd, 2 * BG_WORDS * 4, VA, &ibo, (void **)&imem) &&
		   !core_bo(gfd, 4096, GVA, &gbo, (void **)&gmem);
	for (e = 0; setup_ok && e < info.engine_count; e++)
		setup_ok = !ctx_on_engine(fd, DRM_TERN_PRIORITY_NORMAL, 0, e, &ictx[e]);
	iso = syncobj_new(fd);
	gso = syncobj_new(gfd);
	/* background innocents, one file each */
	memset(bgs, 0, sizeof(bgs));
	for (e = 0; setup_ok && e < info.engine_count; e++) {
		struct bg *b = &bgs[e];

		b->engine = e;
		b->fd = tern_test_open();
		setup_ok = b->fd >= 0 &&
			   !core_bo(b->fd, 2 * BG_WORDS * 4, VA, &b->bo, (void **)&b->mem) &&
			   !ctx_on_engine(b->fd, DRM_TERN_PRIORITY_NORMAL, 0, e, &b->ctx);
		b->so = syncobj_new(b->fd);
		b->pause = 1;
		setup_ok = setup_ok && !pthread_create(&b->thread, NULL, bg_main, b);
	}
	if (!tap_ok(setup_ok, "innocent and guilty files, contexts on every engine"))
		return tap_exit_status();

	for (e = 0; e < info.engine_count; e++) {
		/* the others run in the background, this one is the target */
		for (i = 0; i < info.engine_count; i++)
			bg_pause(&bgs[i], i == e);
		for (k = 0; k < rounds; k++) {
			for (o = 0; o < 3; o++) {
				unsigned int op = ops[o];
				uint32_t dw[32], n = 0, g = 0, v = (e << 24) | (k << 8) | op;
				bool ok;

				if (ctx_on_engine(gfd, DRM_TERN_PRIORITY_HIGH, 200, e, &g)) {
					guilty_wrong++;
					continue;
				}
				if (!core_inject(e, op)) {
					guilty_wrong++;
					ctx_destroy(gfd, g);
					continue;
				}
				injected[op]++;
				/* guilty (high priority, runs first), then an innocent behind */
				pkt_spin(dw, &n, 2000);
				pkt_write_imm(dw, &n, GVA, v);
				drmSyncobjReset(gfd, &gso, 1);
				ok = !submit(gfd, g, dw, n, &gbo, 1, 0, gso, NULL);
				n = 0;
				pkt_fill(dw, &n, VA, BG_WORDS * 4, v);
				pkt_write_imm(dw, &n, VA + BG_WORDS * 4, ~v);
				drmSyncobjReset(fd, &iso, 1);
				ok = !submit(fd, ictx[e], dw, n, &ibo, 1, 0, iso, NULL) && ok;
				ok = ok && !syncobj_wait(fd, iso, 60000) &&
				     !syncobj_wait(gfd, gso, 60000);
				if (ok) {
					inno_jobs++;
					for (i = 0; i < BG_WORDS && imem[i] == v; i++)
						;
					if (i < BG_WORDS || imem[BG_WORDS] != ~v)
						inno_bad++;
				} else {
					inno_bad++;
				}
				/* the guilty context says why */
				if (!ctx_state(gfd, g, &st)) {
					n = 0;
					pkt_write_imm(dw, &n, GVA + 4, 1);
					if (op == OP_HANG &&
					    st.state == DRM_TERN_CONTEXT_BANNED &&
					    st.reason == DRM_TERN_REASON_HANG && st.fault_seqno == 1 &&
					    submit(gfd, g, dw, n, &gbo, 1, 0, 0, NULL) == -EIO)
						told[op]++;
					else if (op == OP_FAULT &&
						 st.state == DRM_TERN_CONTEXT_FAULTED &&
						 st.reason == DRM_TERN_REASON_FAULT &&
						 st.fault_kind == FAULT_INJECTED && st.fault_seqno == 1 &&
						 submit(gfd, g, dw, n, &gbo, 1, 0, 0, NULL) == -EIO)
						told[op]++;
					else if (op == OP_DROP_IRQ &&
						 st.state == DRM_TERN_CONTEXT_ACTIVE &&
						 st.jobs_completed == 1 && gmem[0] == v)
						told[op]++;
					else
						tap_diag("engine %u %s round %u: guilty state %u reason %u kind %u seqno %u",
							 e, op_name[op], k, st.state, st.reason,
							 st.fault_kind, st.fault_seqno);
				}
				ctx_destroy(gfd, g);
				/* the engine works again: one more checked job */
				n = 0;
				pkt_write_imm(dw, &n, VA + BG_WORDS * 4 + 4, v);
				drmSyncobjReset(fd, &iso, 1);
				if (!submit(fd, ictx[e], dw, n, &ibo, 1, 0, iso, NULL) &&
				    !syncobj_wait(fd, iso, 60000) && imem[BG_WORDS + 1] == v)
					recovered++;
			}
		}
	}
	for (e = 0; e < info.engine_count; e++) {
		bgs[e].stop = 1;
		bgs[e].pause = 0;
	}
	for (e = 0; e < info.engine_count; e++) {
		struct bg *b = &bgs[e];

		pthread_join(b->thread, NULL);
		bg_jobs += b->jobs;
		bg_bad += b->bad;
		bg_err += b->errors;
		if (b->errors)
			tap_diag("engine %u background: %lu errors, the first from %s: %s",
				 b->engine, b->errors, b->first_what, strerror(-b->first_err));
		/* never on an engine that was reset while it ran: untouched */
		if (ctx_state(b->fd, b->ctx, &st) || st.state != DRM_TERN_CONTEXT_ACTIVE ||
		    st.reset_count)
			bg_touched++;
		close(b->fd);
	}
	for (e = 0; e < info.engine_count; e++)
		if (!ctx_state(fd, ictx[e], &st) &&
		    (st.state == DRM_TERN_CONTEXT_ACTIVE || st.state == DRM_TERN_CONTEXT_RESET))
			resets_before += st.reset_count;

	k = rounds * info.engine_count;
	tap_diag("injected: %lu hangs, %lu faults, %lu dropped interrupts; %lu innocent jobs "
		 "queued behind them, %lu background jobs, %lu resets of innocent contexts",
		 injected[OP_HANG], injected[OP_FAULT], injected[OP_DROP_IRQ], inno_jobs,
		 bg_jobs, resets_before);
	tap_ok(injected[OP_HANG] == k && injected[OP_FAULT] == k &&
	       injected[OP_DROP_IRQ] == k && !guilty_wrong,
	       "%u injections of each kind armed", k);
	tap_ok(told[OP_HANG] == injected[OP_HANG],
	       "every hung context is banned for a hang and refuses work (%lu of %lu)",
	       told[OP_HANG], injected[OP_HANG]);
	tap_ok(told[OP_FAULT] == injected[OP_FAULT],
	       "every faulted context says INJECTED fault and refuses work (%lu of %lu)",
	       told[OP_FAULT], injected[OP_FAULT]);
	tap_ok(told[OP_DROP_IRQ] == injected[OP_DROP_IRQ],
	       "a lost interrupt loses no job (%lu of %lu)", told[OP_DROP_IRQ],
	       injected[OP_DROP_IRQ]);
	tap_ok(inno_jobs == 3 * k && !inno_bad && recovered == 3 * k,
	       "every innocent job behind a guilty one is correct (%lu, %lu bad) and the engine "
	       "recovered each time without a reload (%lu)", inno_jobs, inno_bad, recovered);
	tap_ok(bg_jobs > 0 && !bg_bad && !bg_err && !bg_touched,
	       "background innocents on the other engines: %lu jobs, %lu wrong, %lu errors, "
	       "%lu contexts touched", bg_jobs, bg_bad, bg_err, bg_touched);
	close(gfd);
	close(fd);
	return tap_exit_status();
}
