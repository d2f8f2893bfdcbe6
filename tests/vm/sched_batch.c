// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * sched_batch: jobs of one context given in one DRM_IOCTL_TERN_SUBMIT_MANY
 * run several to a slot under the fair policy (debugfs engines counts the
 * batches), each with its own fence, in order, with its own result; a
 * fault in the middle of a batch completes the jobs before it, fails that
 * one and cancels the rest; a HIGH job preempts a batch in the middle, the
 * batch's jobs before the preemption point signal before the HIGH job
 * does, and the rest resume and complete; a hang in the middle of a batch
 * is charged to the job that hung, as a fault is; a context destroyed
 * while its batch runs has every job signalled in order; fifo does not
 * batch.
 *
 * The device runs at time-scale 200: a SPIN of 100 us, the longest a job
 * may have to join a batch behind another, lasts 20 ms.
 *
 * tern-vm: device=compute-engines=1,time-scale=200 timeout=180
 */
#include "core_test.h"

#define VA_DATA		0x100000ull
#define VA_GATE		0x400000ull
#define VA_NOWHERE	0x7000000ull
#define N		12

struct batch {
	struct drm_tern_submit sub[N];
	struct drm_tern_sync out[N];
	uint32_t so[N];
	uint32_t dw[N][16];
};

/* debugfs engines: the batches and batched jobs of engine 0 so far */
static bool batch_counts(uint64_t *batches, uint64_t *jobs)
{
	char path[512], line[512];
	bool in0 = false, ok = false;
	FILE *f;

	if (!core_debugfs_path("engines", path, sizeof(path)))
		return false;
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "engine ", 7))
			in0 = !strncmp(line, "engine 0:", 9);
		else if (in0 && sscanf(line, " batches %lu batched_jobs %lu",
				       (unsigned long *)batches,
				       (unsigned long *)jobs) == 2)
			ok = true;
	}
	if (f)
		fclose(f);
	return ok;
}

/* Entry @i: optionally SPIN @spin_us, then write i + 1 to data[@base + i]. */
static void entry(int fd, struct batch *b, uint32_t ctx, uint32_t *bo, unsigned int i,
		  uint32_t spin_us, uint64_t va)
{
	uint32_t n = 0;

	if (spin_us)
		pkt_spin(b->dw[i], &n, spin_us);
	pkt_write_imm(b->dw[i], &n, va, i + 1);
	if (!b->so[i])
		b->so[i] = syncobj_new(fd);
	else
		drmSyncobjReset(fd, &b->so[i], 1);	/* no fence of an earlier run */
	b->out[i] = (struct drm_tern_sync){ .handle = b->so[i] };
	b->sub[i] = (struct drm_tern_submit){
		.context = ctx,
		.cmdbuf = (uintptr_t)b->dw[i],
		.cmdbuf_size = n * 4,
		.bo_count = 1,
		.bo_handles = (uintptr_t)bo,
		.out_syncs = (uintptr_t)&b->out[i],
		.out_sync_count = 1,
	};
}

static int submit_all(int fd, struct batch *b, unsigned int count)
{
	struct drm_tern_submit_many m = {
		.submits = (uintptr_t)b->sub,
		.count = count,
		.stride = sizeof(b->sub[0]),
	};

	if (ioctl(fd, DRM_IOCTL_TERN_SUBMIT_MANY, &m))
		return -errno;
	return m.submitted == count ? 0 : m.error;
}

/* A context on engine 0 whose first job waits for the gate word. */
static int gated_ctx_on(int fd, uint32_t prio, uint32_t timeout_ms, uint32_t gate_bo,
			volatile uint32_t *gate, uint32_t *ctx)
{
	uint32_t dw[8], n = 0;
	int ret = ctx_create_class_on(fd, prio, DRM_TERN_ENGINE_CLASS_COMPUTE, timeout_ms, 0,
				      ctx);

	if (ret)
		return ret;
	*gate = 0;
	__sync_synchronize();
	pkt_wait_mem(dw, &n, VA_GATE, 1, 10000000);
	return submit(fd, *ctx, dw, n, &gate_bo, 1, 0, 0, NULL);
}

static int gated_ctx(int fd, uint32_t prio, uint32_t gate_bo, volatile uint32_t *gate,
		     uint32_t *ctx)
{
	return gated_ctx_on(fd, prio, 0, gate_bo, gate, ctx);
}

static int gated_ctx_timeout(int fd, uint32_t timeout_ms, uint32_t gate_bo,
			     volatile uint32_t *gate, uint32_t *ctx)
{
	return gated_ctx_on(fd, DRM_TERN_PRIORITY_NORMAL, timeout_ms, gate_bo, gate, ctx);
}

static void check_order_and_results(int fd, struct batch *b, volatile uint32_t *data,
				    unsigned int count, const char *what)
{
	uint64_t prev = 0, ns = 0;
	unsigned int i, bad = 0;
	int status;

	for (i = 0; i < count; i++) {
		if (syncobj_wait(fd, b->so[i], 20000) ||
		    !core_fence_info(fd, b->so[i], &status, &ns) || status != 1 ||
		    ns < prev || data[i] != i + 1)
			bad++;
		prev = ns;
	}
	tap_ok(!bad, "%s: every job signalled success, in order, and wrote its value "
	       "(%u bad)", what, bad);
}

int main(void)
{
	static struct batch b;
	uint64_t b0 = 0, j0 = 0, b1 = 0, j1 = 0, hns = 0, ns = 0;
	volatile uint32_t *data, *gate;
	struct drm_tern_context_get_state st;
	uint32_t data_bo, gate_bo, ctx, low, high, so_high, dw[8], n, i;
	void *cpu, *gcpu;
	int fd, status;
	bool ok;

	fd = tern_test_open();
	if (fd < 0 || core_bo(fd, 0x10000, VA_DATA, &data_bo, &cpu) ||
	    core_bo(fd, 4096, VA_GATE, &gate_bo, &gcpu) || !batch_counts(&b0, &j0)) {
		tap_ok(false, "set-up (device, BOs, debugfs engines)");
		tap_done();
		return tap_exit_status();
	}
	data = cpu;
	gate = gcpu;
	core_drain_coredumps();	/* one dump per device at a time */

	/* 1. twelve jobs behind a gate: they go to the engine in batches */
	memset((void *)data, 0, 0x10000);
	tap_ok(!gated_ctx(fd, DRM_TERN_PRIORITY_NORMAL, gate_bo, gate, &ctx),
	       "a context on engine 0 held by a gate job");
	for (i = 0; i < N; i++)
		entry(fd, &b, ctx, &data_bo, i, 0, VA_DATA + 4 * i);
	tap_ok(!submit_all(fd, &b, N), "%u jobs in one SUBMIT_MANY", N);
	*gate = 1;
	check_order_and_results(fd, &b, data, N, "batched");
	ok = batch_counts(&b1, &j1);
	tap_ok(ok && b1 > b0 && j1 - j0 >= N / 2,
	       "they ran in batches: %lu batch(es) of %lu jobs in all",
	       (unsigned long)(b1 - b0), (unsigned long)(j1 - j0));
	ctx_destroy(fd, ctx);

	/* 1b. on an idle engine, one call's jobs still go as one batch */
	memset((void *)data, 0, 0x10000);
	tap_ok(!ctx_create_class_on(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE,
				    0, 0, &ctx), "a context on the idle engine");
	batch_counts(&b0, &j0);
	for (i = 0; i < 8; i++)
		entry(fd, &b, ctx, &data_bo, i, 0, VA_DATA + 4 * i);
	tap_ok(!submit_all(fd, &b, 8), "8 jobs in one SUBMIT_MANY");
	check_order_and_results(fd, &b, data, 8, "idle engine");
	ok = batch_counts(&b1, &j1);
	tap_ok(ok && b1 - b0 == 1 && j1 - j0 == 8,
	       "all 8 ran as one batch (%lu batch(es) of %lu jobs)", (unsigned long)(b1 - b0),
	       (unsigned long)(j1 - j0));
	ctx_destroy(fd, ctx);

	/* 2. a fault in the middle of a batch */
	memset((void *)data, 0, 0x10000);
	tap_ok(!gated_ctx(fd, DRM_TERN_PRIORITY_NORMAL, gate_bo, gate, &ctx),
	       "a new gated context");
	batch_counts(&b0, &j0);
	for (i = 0; i < 10; i++)
		entry(fd, &b, ctx, &data_bo, i, 0, i == 5 ? VA_NOWHERE : VA_DATA + 4 * i);
	tap_ok(!submit_all(fd, &b, 10), "10 jobs, the 6th writing where nothing is mapped");
	*gate = 1;
	{
		unsigned int bad = 0;

		for (i = 0; i < 10; i++) {
			int want = i < 5 ? 1 : i == 5 ? -EIO : -ECANCELED;

			status = syncobj_wait(fd, b.so[i], 20000) ?: core_fence_status(fd, b.so[i]);
			if (status != want || (i < 5) != (data[i] == i + 1)) {
				if (bad++ < 3)
					tap_diag("job %u: status %d (want %d), value %u", i, status,
						 want, data[i]);
			}
		}
		tap_ok(!bad, "jobs 1-5 completed with their writes, job 6 -EIO, 7-10 "
		       "-ECANCELED without theirs (%u bad)", bad);
	}
	ok = !ctx_state(fd, ctx, &st);
	tap_ok(ok && st.state == DRM_TERN_CONTEXT_FAULTED &&
	       st.fault_seqno == 7 && st.fault_kind == 1,
	       "the context is FAULTED at job 7 (gate + 6), kind NOT_PRESENT (%u at %u, kind %u)",
	       st.state, st.fault_seqno, st.fault_kind);
	ok = batch_counts(&b1, &j1);
	tap_ok(ok && b1 > b0,
	       "the faulting job was in a batch (%lu batch(es))", (unsigned long)(b1 - b0));
	{
		static char text[16384];
		int k2;

		/* the fault's dump: the faulting job, at its own packet offset */
		for (k2 = 0; k2 < 100 && !core_read_coredump("tern devcoredump: fault", text,
							   sizeof(text)); k2++)
			usleep(20000);
		tap_ok(k2 < 100 && strstr(text, "job seqno: 7\n") &&
		       strstr(text, "packet dword 0 "),
		       "its devcoredump names job 7, the fault at its packet 0");
		core_drain_coredumps();
	}
	ctx_destroy(fd, ctx);

	/* 3. a HIGH job preempts a LOW batch in the middle */
	memset((void *)data, 0, 0x10000);
	tap_ok(!gated_ctx(fd, DRM_TERN_PRIORITY_LOW, gate_bo, gate, &low) &&
	       !ctx_create_class_on(fd, DRM_TERN_PRIORITY_HIGH, DRM_TERN_ENGINE_CLASS_COMPUTE,
				    0, 0, &high),
	       "a gated LOW context and a HIGH one on engine 0");
	for (i = 0; i < N; i++)
		entry(fd, &b, low, &data_bo, i, 100, VA_DATA + 4 * i);
	tap_ok(!submit_all(fd, &b, N), "LOW: %u jobs of 20 ms in one SUBMIT_MANY", N);
	*gate = 1;
	for (i = 0; i < 2000 && !data[3]; i++)
		usleep(1000);
	n = 0;
	pkt_write_imm(dw, &n, VA_DATA + 4 * 100, 0x4849);
	so_high = syncobj_new(fd);
	tap_ok(data[3] && !data[N - 1] &&
	       !submit(fd, high, dw, n, &data_bo, 1, 0, so_high, NULL),
	       "HIGH submits while the LOW batch is part way (4 done)");
	ok = !syncobj_wait(fd, so_high, 20000) && core_fence_info(fd, so_high, &status, &hns) &&
	     status == 1 && !data[N - 1];
	tap_ok(ok, "HIGH completes before the LOW batch does");
	check_order_and_results(fd, &b, data, N, "LOW after the preemption");
	ok = core_fence_info(fd, b.so[2], &status, &ns);
	tap_ok(ok && ns < hns,
	       "LOW's 3rd job, done before the preemption, signalled before HIGH's job "
	       "(%.3f ms before)", ((double)hns - (double)ns) / 1e6);
	ok = !ctx_state(fd, low, &st);
	tap_ok(ok && st.preemptions >= 1,
	       "LOW was preempted (%llu)", (unsigned long long)st.preemptions);
	ctx_destroy(fd, low);
	ctx_destroy(fd, high);

	/* 4. a hang in the middle of a batch */
	memset((void *)data, 0, 0x10000);
	tap_ok(!gated_ctx_timeout(fd, 300, gate_bo, gate, &ctx), "a gated context, 300 ms timeout");
	for (i = 0; i < N; i++)
		entry(fd, &b, ctx, &data_bo, i, 100, VA_DATA + 4 * i);
	tap_ok(!submit_all(fd, &b, N), "%u jobs of 20 ms", N);
	*gate = 1;
	for (i = 0; i < 5000 && !data[3]; i++)
		usleep(1000);
	tap_ok(data[3] && !data[N - 1] && core_inject(0, 1),
	       "HANG injected while the batch runs");
	{
		unsigned int bad = 0, hung = N, k;
		int st_i[N];

		for (k = 0; k < N; k++) {
			st_i[k] = syncobj_wait(fd, b.so[k], 30000) ?: core_fence_status(fd, b.so[k]);
			if (st_i[k] == -ETIMEDOUT && hung == N)
				hung = k;
		}
		for (k = 0; k < N; k++) {
			int want = k < hung ? 1 : k == hung ? -ETIMEDOUT : -ECANCELED;

			if (st_i[k] != want || (k < hung) != (data[k] == k + 1))
				bad++;
		}
		tap_ok(hung >= 3 && hung < N && !bad,
		       "the job it hung in (%u) -ETIMEDOUT, the ones before it completed with "
		       "their writes, the ones after it -ECANCELED (%u bad)", hung + 1, bad);
		ok = !ctx_state(fd, ctx, &st);
		tap_ok(ok && st.state == DRM_TERN_CONTEXT_BANNED && st.fault_seqno == hung + 2,
		       "the context is BANNED at that job (gate + %u): state %u at %u", hung + 1,
		       st.state, st.fault_seqno);
		{
			static char text[16384];
			char want[64];
			int k2;

			/* the dump is the hung job's, not its batch's first */
			snprintf(want, sizeof(want), "job seqno: %u\n", hung + 2);
			for (k2 = 0; k2 < 100 && !core_read_coredump("tern devcoredump: hang", text,
								   sizeof(text)); k2++)
				usleep(20000);
			tap_ok(k2 < 100 && strstr(text, want),
			       "its devcoredump names that job (seqno %u)", hung + 2);
			/* one dump per device at a time: leave none for later tests */
			core_drain_coredumps();
		}
	}
	ctx_destroy(fd, ctx);

	/* 5. a context destroyed while its batch runs */
	memset((void *)data, 0, 0x10000);
	tap_ok(!gated_ctx(fd, DRM_TERN_PRIORITY_NORMAL, gate_bo, gate, &ctx), "a gated context");
	for (i = 0; i < N; i++)
		entry(fd, &b, ctx, &data_bo, i, 100, VA_DATA + 4 * i);
	tap_ok(!submit_all(fd, &b, N), "%u jobs of 20 ms", N);
	*gate = 1;
	for (i = 0; i < 5000 && !data[2]; i++)
		usleep(1000);
	tap_ok(data[2] && !ctx_destroy(fd, ctx), "destroyed while its batch runs");
	{
		uint64_t prev = 0;
		unsigned int bad = 0, done = 0, cancelled = 0;

		for (i = 0; i < N; i++) {
			if (syncobj_wait(fd, b.so[i], 20000) ||
			    !core_fence_info(fd, b.so[i], &status, &ns) || ns < prev ||
			    (status != 1 && status != -ECANCELED) ||
			    (status == 1 && cancelled) || (status == 1) != (data[i] == i + 1))
				bad++;
			done += status == 1;
			cancelled += status == -ECANCELED;
			prev = ns;
		}
		tap_ok(!bad, "every job signalled, in order: %u completed with their writes, "
		       "then %u cancelled (%u bad)", done, cancelled, bad);
	}
	if (core_context_count() < 0)
		tap_skip("no debugfs: contexts cannot be counted");
	else
		tap_ok(core_context_count_is(0, 10000), "the context is freed");

	/* 6. a job that waits for what the CPU does after the job before it */
	memset((void *)data, 0, 0x10000);
	tap_ok(!gated_ctx(fd, DRM_TERN_PRIORITY_NORMAL, gate_bo, gate, &ctx), "a gated context");
	for (i = 0; i < 4; i++)
		entry(fd, &b, ctx, &data_bo, i, 0, VA_DATA + 4 * i);
	/* entry 2 first waits for data[64], which the CPU sets once entry 1 signalled */
	n = 0;
	pkt_wait_mem(b.dw[2], &n, VA_DATA + 4 * 64, 1, 3000000);
	pkt_write_imm(b.dw[2], &n, VA_DATA + 4 * 2, 3);
	b.sub[2].cmdbuf_size = n * 4;
	tap_ok(!submit_all(fd, &b, 4), "4 jobs; the 3rd waits for a word the CPU writes "
	       "when the 2nd has signalled");
	*gate = 1;
	status = syncobj_wait(fd, b.so[1], 10000) ?: core_fence_status(fd, b.so[1]);
	data[64] = 1;
	{
		int s2 = syncobj_wait(fd, b.so[2], 10000) ?: core_fence_status(fd, b.so[2]);
		int s3 = syncobj_wait(fd, b.so[3], 10000) ?: core_fence_status(fd, b.so[3]);

		tap_ok(status == 1 && s2 == 1 && s3 == 1 && data[2] == 3,
		       "the 2nd signalled without waiting for the 3rd, which then ran "
		       "(%d, %d, %d): a waiting job joins no batch behind another", status, s2,
		       s3);
	}
	ctx_destroy(fd, ctx);

	/* 7. fifo does not batch */
	{
		char path[512];

		if (core_debugfs_path("sched_policy", path, sizeof(path)) &&
		    core_write_file(path, "fifo")) {
			memset((void *)data, 0, 0x10000);
			gated_ctx(fd, DRM_TERN_PRIORITY_NORMAL, gate_bo, gate, &ctx);
			batch_counts(&b0, &j0);
			for (i = 0; i < N; i++)
				entry(fd, &b, ctx, &data_bo, i, 0, VA_DATA + 4 * i);
			submit_all(fd, &b, N);
			*gate = 1;
			check_order_and_results(fd, &b, data, N, "fifo");
			ok = batch_counts(&b1, &j1);
			tap_ok(ok && b1 == b0,
			       "fifo ran them one to a slot (%lu batches)",
			       (unsigned long)(b1 - b0));
			core_write_file(path, "fair");
			ctx_destroy(fd, ctx);
		} else {
			tap_skip("no debugfs sched_policy");
		}
	}
	close(fd);
	tap_done();
	return tap_exit_status();
}
