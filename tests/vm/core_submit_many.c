// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_submit_many: DRM_IOCTL_TERN_SUBMIT_MANY queues several jobs with one
 * system call, exactly as that many DRM_IOCTL_TERN_SUBMITs would: in array
 * order, across contexts, an entry waiting for a syncobj an earlier entry
 * signals.  Bad arguments queue nothing; an entry the kernel refuses ends
 * the call with the ones before it queued and said so (a short submit, not
 * an error), whether it is refused for its packets, for a full context or
 * for a context destroyed meanwhile; a seqno that cannot be written back
 * gives -EFAULT with the jobs still queued and run.  Two threads on one
 * context each keep their own order, and a destroy racing the call leaves
 * every job accounted for.
 *
 * tern-vm: timeout=180
 */
#include <pthread.h>
#include <sys/mman.h>

#include "core_test.h"

#define VA_DATA		0x100000ull
#define VA_GATE		0x400000ull
#define DATA_SIZE	0x10000ull
#define SENTINEL	0xdeadbeefu

/* One WRITE_IMM job per entry: @dw holds room for each entry's packet. */
struct many {
	struct drm_tern_submit sub[DRM_TERN_SUBMIT_MANY_MAX];
	uint32_t dw[DRM_TERN_SUBMIT_MANY_MAX][4];
	uint32_t bo;
};

/* Entry @i writes @value to the u32 @slot of the data BO, on @ctx. */
static void set_write(struct many *m, unsigned int i, uint32_t ctx,
		      uint32_t slot, uint32_t value)
{
	uint32_t n = 0;

	pkt_write_imm(m->dw[i], &n, VA_DATA + 4ull * slot, value);
	memset(&m->sub[i], 0, sizeof(m->sub[i]));
	m->sub[i].context = ctx;
	m->sub[i].cmdbuf = (uintptr_t)m->dw[i];
	m->sub[i].cmdbuf_size = n * 4;
	m->sub[i].bo_count = 1;
	m->sub[i].bo_handles = (uintptr_t)&m->bo;
	m->sub[i].seqno = SENTINEL;
}

static int submit_many(int fd, struct drm_tern_submit *sub, uint32_t count,
		       struct drm_tern_submit_many *out)
{
	struct drm_tern_submit_many a = {
		.submits = (uintptr_t)sub,
		.count = count,
		.stride = sizeof(*sub),
	};
	int ret = ioctl(fd, DRM_IOCTL_TERN_SUBMIT_MANY, &a) ? -errno : 0;

	if (out)
		*out = a;
	return ret;
}

static uint32_t submitted_jobs(int fd, uint32_t ctx)
{
	struct drm_tern_context_get_state st;

	return ctx_state(fd, ctx, &st) ? ~0u : (uint32_t)st.jobs_submitted;
}

static void check_bad_args(int fd, struct many *m, uint32_t ctx)
{
	static const struct {
		const char *what;
		uint32_t count, stride, flags, pad;
		bool bad_ptr;
		int err;
	} cases[] = {
		{ "count 0", 0, sizeof(struct drm_tern_submit), 0, 0, false, -EINVAL },
		{ "count above DRM_TERN_SUBMIT_MANY_MAX", DRM_TERN_SUBMIT_MANY_MAX + 1,
		  sizeof(struct drm_tern_submit), 0, 0, false, -EINVAL },
		{ "a stride 8 bytes short", 2, sizeof(struct drm_tern_submit) - 8, 0, 0,
		  false, -EINVAL },
		{ "a stride 8 bytes long", 2, sizeof(struct drm_tern_submit) + 8, 0, 0,
		  false, -EINVAL },
		{ "flags 1", 2, sizeof(struct drm_tern_submit), 1, 0, false, -EINVAL },
		{ "pad 1", 2, sizeof(struct drm_tern_submit), 0, 1, false, -EINVAL },
		{ "an unreadable array", 2, sizeof(struct drm_tern_submit), 0, 0, true,
		  -EFAULT },
	};
	uint32_t before = submitted_jobs(fd, ctx), i;

	set_write(m, 0, ctx, 0, 1);
	set_write(m, 1, ctx, 1, 2);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct drm_tern_submit_many a = {
			.submits = cases[i].bad_ptr ? 8 : (uintptr_t)m->sub,
			.count = cases[i].count,
			.stride = cases[i].stride,
			.flags = cases[i].flags,
			.pad = cases[i].pad,
			.submitted = 77,
		};
		int ret = ioctl(fd, DRM_IOCTL_TERN_SUBMIT_MANY, &a) ? -errno : 0;

		tap_ok(ret == cases[i].err && a.submitted == 0,
		       "%s: %s, 0 submitted (got %s, %u)", cases[i].what,
		       strerror(-cases[i].err), strerror(-ret), a.submitted);
	}
	tap_ok(submitted_jobs(fd, ctx) == before, "and none of them queued a job");
}

/* 200 jobs, each writing its own slot: every seqno back, every write done. */
static void check_all(int fd, struct many *m, uint32_t ctx, volatile uint32_t *data)
{
	struct drm_tern_submit_many a;
	uint32_t i, first, bad_seq = 0, bad_data = 0;
	int ret;

	for (i = 0; i < 200; i++) {
		data[i] = 0;
		set_write(m, i, ctx, i, 1000 + i);
	}
	first = submitted_jobs(fd, ctx) + 1;
	ret = submit_many(fd, m->sub, 200, &a);
	tap_ok(!ret && a.submitted == 200 && a.error == 0,
	       "200 entries: all queued (%s, %u, error %d)", strerror(-ret),
	       a.submitted, a.error);
	for (i = 0; i < 200; i++)
		if (m->sub[i].seqno != first + i)
			bad_seq++;
	tap_ok(!bad_seq, "each entry got its seqno, in array order (%u wrong)", bad_seq);
	tap_ok(ctx_idle(fd, ctx, 20000), "the 200 jobs finish");
	for (i = 0; i < 200; i++)
		if (data[i] != 1000 + i)
			bad_data++;
	tap_ok(!bad_data, "and each did its write (%u missing)", bad_data);
}

/*
 * Entries alternate between two contexts on different engines; each waits
 * for the syncobj the entry before it signals (a syncobj with no fence yet
 * would be refused: the earlier entry's out-sync is in place when the next
 * entry is taken).  All write one cell; the last value stands only if they
 * ran one after the other in array order.
 */
static void check_chain(int fd, struct many *m, uint32_t ctx_a, uint32_t ctx_b,
			volatile uint32_t *data)
{
	struct drm_tern_sync in[64], out[64];
	struct drm_tern_submit_many a;
	uint32_t so[65], i;
	int ret, last;

	for (i = 0; i < 65; i++)
		so[i] = syncobj_new(fd);
	data[300] = 0;
	for (i = 0; i < 64; i++) {
		set_write(m, i, i % 2 ? ctx_b : ctx_a, 300, i + 1);
		in[i].handle = so[i];
		out[i].handle = so[i + 1];
		in[i].point = out[i].point = 0;
		in[i].flags = out[i].flags = 0;
		m->sub[i].in_syncs = (uintptr_t)&in[i];
		m->sub[i].in_sync_count = i ? 1 : 0;
		m->sub[i].out_syncs = (uintptr_t)&out[i];
		m->sub[i].out_sync_count = 1;
	}
	ret = submit_many(fd, m->sub, 64, &a);
	tap_ok(!ret && a.submitted == 64,
	       "64 entries on two contexts, each waiting for the one before: queued (%s, %u)",
	       strerror(-ret), a.submitted);
	last = syncobj_wait(fd, so[64], 20000);
	tap_ok(!last && core_fence_status(fd, so[64]) == 1 && data[300] == 64,
	       "they ran in array order: the last write stands (%u)", data[300]);
	for (i = 0; i < 65; i++)
		drmSyncobjDestroy(fd, so[i]);
}

/* Entry 5 of 10 is refused: 0 to 4 queued and run, 5 reported, 6 on untouched. */
static void check_short(int fd, struct many *m, uint32_t ctx, volatile uint32_t *data)
{
	struct drm_tern_submit_many a;
	uint32_t i, before, first;
	int ret;

	for (i = 0; i < 10; i++) {
		data[400 + i] = 0;
		set_write(m, i, ctx, 400 + i, 7 + i);
	}
	/* entry 5: a privileged packet alone */
	m->dw[5][0] = TERN_PKT_HEADER(TERN_OP_TLB_INVALIDATE, 1);
	m->sub[5].cmdbuf_size = 4;
	before = submitted_jobs(fd, ctx);
	first = before + 1;
	ret = submit_many(fd, m->sub, 10, &a);
	tap_ok(!ret && a.submitted == 5 && a.error == -EPERM,
	       "a privileged packet in entry 5: the call returns 0, 5 submitted, error "
	       "-EPERM (%s, %u, %d)", strerror(-ret), a.submitted, a.error);
	tap_ok(m->sub[4].seqno == first + 4 && m->sub[5].seqno == 0 &&
	       m->sub[5].error_opcode == TERN_OP_TLB_INVALIDATE &&
	       m->sub[5].error_offset == 0 && m->sub[6].seqno == SENTINEL,
	       "entry 4 has its seqno, entry 5 names the packet, entry 6 is untouched");
	tap_ok(submitted_jobs(fd, ctx) == before + 5 && ctx_idle(fd, ctx, 10000) &&
	       data[404] == 11 && data[405] == 0 && data[406] == 0,
	       "the 5 before it ran, nothing after it did");

	/* the first entry refused: the ioctl fails, with the same report */
	set_write(m, 0, 9999, 0, 1);
	set_write(m, 1, ctx, 1, 1);
	set_write(m, 2, ctx, 2, 1);
	ret = submit_many(fd, m->sub, 3, &a);
	tap_ok(ret == -ENOENT && a.submitted == 0 && a.error == -ENOENT &&
	       m->sub[0].seqno == 0 && m->sub[1].seqno == SENTINEL,
	       "an unknown context in entry 0: -ENOENT, 0 submitted (%s, %u, %d)",
	       strerror(-ret), a.submitted, a.error);
}

/* A full context: the call stops at the limit, the rest goes later. */
static void check_full(int fd, struct many *m, const struct drm_tern_get_info *info,
		       uint32_t ctx, volatile uint32_t *data, uint32_t gate_bo,
		       volatile uint32_t *gate_word)
{
	uint32_t limit = info->max_jobs_per_context, want, i, bad = 0;
	struct drm_tern_submit_many a;
	struct core_gate gate;
	int ret;

	if (core_gate_init(&gate, fd, ctx, gate_bo, VA_GATE, gate_word, 0)) {
		tap_ok(false, "a gate on the context");
		return;
	}
	/* the gate holds CORE_GATE_STEPS jobs: this many more fit */
	want = limit - CORE_GATE_STEPS;
	if (want > DRM_TERN_SUBMIT_MANY_MAX - 8)
		want = DRM_TERN_SUBMIT_MANY_MAX - 8;
	for (i = 0; i < want + 8; i++) {
		data[1000 + i] = 0;
		set_write(m, i, ctx, 1000 + i, 5000 + i);
	}
	if (limit - CORE_GATE_STEPS > want) {
		/* fill the context up to @want free places first */
		tap_skip("the context's limit (%u) is above what one call can fill", limit);
		core_gate_open(&gate);
		ctx_idle(fd, ctx, 20000);
		return;
	}
	ret = submit_many(fd, m->sub, want + 8, &a);
	tap_ok(!ret && a.submitted == want && a.error == -EAGAIN,
	       "%u entries into a context with room for %u: %u submitted, -EAGAIN "
	       "(%s, %u, %d)", want + 8, want, want, strerror(-ret), a.submitted, a.error);
	core_gate_open(&gate);
	tap_ok(ctx_idle(fd, ctx, 30000), "the gate opens and the context drains");
	ret = submit_many(fd, &m->sub[a.submitted], want + 8 - a.submitted, &a);
	tap_ok(!ret && a.submitted == 8, "the rest goes in a second call (%s, %u)",
	       strerror(-ret), a.submitted);
	ctx_idle(fd, ctx, 20000);
	for (i = 0; i < want + 8; i++)
		if (data[1000 + i] != 5000 + i)
			bad++;
	tap_ok(!bad, "all %u jobs did their write (%u missing)", want + 8, bad);
}

/* The array is read-only: the seqnos cannot go back, the jobs still run. */
static void check_readonly(int fd, struct many *m, uint32_t ctx, volatile uint32_t *data)
{
	struct drm_tern_submit *ro;
	struct drm_tern_submit_many a;
	uint32_t before = submitted_jobs(fd, ctx), i;
	int ret;

	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED) {
		tap_ok(false, "mmap: %s", strerror(errno));
		return;
	}
	for (i = 0; i < 4; i++) {
		data[1500 + i] = 0;
		set_write(m, i, ctx, 1500 + i, 77 + i);
	}
	memcpy(ro, m->sub, 4 * sizeof(*ro));
	mprotect(ro, 4096, PROT_READ);
	ret = submit_many(fd, ro, 4, &a);
	tap_ok(ret == -EFAULT && a.submitted == 4,
	       "a read-only array: -EFAULT, with the 4 jobs reported queued (%s, %u)",
	       strerror(-ret), a.submitted);
	tap_ok(submitted_jobs(fd, ctx) == before + 4 && ctx_idle(fd, ctx, 10000) &&
	       data[1503] == 80, "and they did run");
	munmap(ro, 4096);
}

struct racer {
	int fd;
	uint32_t ctx;
	uint32_t base;		/* first data slot */
	struct many *m;
	int ret;
	struct drm_tern_submit_many res;
};

static void *race_submit(void *arg)
{
	struct racer *r = arg;
	uint32_t i;

	for (i = 0; i < 128; i++)
		set_write(r->m, i, r->ctx, r->base + i, r->base + i);
	r->ret = submit_many(r->fd, r->m->sub, 128, &r->res);
	return NULL;
}

/* Two threads on one context: each call's seqnos increase in its order. */
static void check_threads(int fd, uint32_t ctx, uint32_t bo)
{
	static struct many ma, mb;
	struct racer a = { fd, ctx, 2000, &ma, 0, { 0 } };
	struct racer b = { fd, ctx, 2200, &mb, 0, { 0 } };
	uint32_t round, i, bad = 0, first = submitted_jobs(fd, ctx);
	pthread_t ta, tb;
	uint8_t seen[257];

	ma.bo = mb.bo = bo;
	for (round = 0; round < 20; round++) {
		memset(seen, 0, sizeof(seen));
		pthread_create(&ta, NULL, race_submit, &a);
		pthread_create(&tb, NULL, race_submit, &b);
		pthread_join(ta, NULL);
		pthread_join(tb, NULL);
		if (a.ret || b.ret || a.res.submitted != 128 || b.res.submitted != 128) {
			bad++;
			break;
		}
		for (i = 0; i < 128; i++) {
			uint32_t sa = ma.sub[i].seqno - first, sb = mb.sub[i].seqno - first;

			if (sa < 1 || sa > 256 || sb < 1 || sb > 256 || seen[sa]++ || seen[sb]++)
				bad++;
			if (i && (ma.sub[i].seqno <= ma.sub[i - 1].seqno ||
				  mb.sub[i].seqno <= mb.sub[i - 1].seqno))
				bad++;
		}
		first += 256;
		if (!ctx_idle(fd, ctx, 20000)) {
			bad++;
			break;
		}
	}
	tap_ok(!bad, "two threads, 20 rounds of 128 entries each on one context: "
	       "distinct seqnos, increasing within each call (%u bad)", bad);
}

struct destroyer {
	int fd;
	uint32_t ctx;
	unsigned int spin;
};

static void *race_destroy(void *arg)
{
	struct destroyer *d = arg;
	volatile unsigned int i;

	for (i = 0; i < d->spin; i++)
		;
	ctx_destroy(d->fd, d->ctx);
	return NULL;
}

/* A destroy during the call: the call stops short or not, nothing is lost. */
static void check_destroy_race(int fd, uint32_t bo)
{
	static struct many m;
	uint32_t round, shorts = 0, bad = 0;

	m.bo = bo;
	for (round = 0; round < 40; round++) {
		struct destroyer d = { fd, 0, round * 20000 };
		struct drm_tern_submit_many res;
		pthread_t t;
		uint32_t i;
		int ret;

		if (ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE,
			       0, &d.ctx)) {
			bad++;
			break;
		}
		for (i = 0; i < 200; i++)
			set_write(&m, i, d.ctx, 3000 + i, i);
		pthread_create(&t, NULL, race_destroy, &d);
		ret = submit_many(fd, m.sub, 200, &res);
		pthread_join(t, NULL);
		if (res.submitted < 200) {
			shorts++;
			if (res.error != -ENOENT ||
			    (res.submitted ? ret != 0 : ret != -ENOENT))
				bad++;
		} else if (ret || res.error) {
			bad++;
		}
	}
	tap_ok(!bad, "40 destroys racing a call of 200 entries: each call complete or "
	       "short with -ENOENT (%u short, %u bad)", shorts, bad);
	if (core_context_count() < 0)
		tap_skip("no debugfs: the freed contexts cannot be counted");
	else
		tap_ok(core_context_count_is(0, 20000),
		       "every destroyed context is freed: no job left behind");
}

int main(void)
{
	static struct many m;
	struct drm_tern_get_info info;
	volatile uint32_t *data, *gate;
	uint32_t ctx, ctx_b, gate_bo;
	void *cpu, *gcpu;
	int fd;

	fd = tern_test_open();
	if (fd < 0 || core_get_info(fd, &info))
		info.driver_version = 0;
	if (!tap_ok(info.driver_version >= (1u << 16 | 3), "interface 1.3 (%u.%u)",
		    info.driver_version >> 16, info.driver_version & 0xffff)) {
		tap_done();
		return tap_exit_status();
	}
	if (!tap_ok(!core_bo(fd, DATA_SIZE, VA_DATA, &m.bo, &cpu) &&
		    !core_bo(fd, 4096, VA_GATE, &gate_bo, &gcpu) &&
		    !ctx_create_on(fd, 0, 0, &ctx) &&
		    !ctx_create_on(fd, 0, info.compute_engine_count > 1 ? 1 : 0, &ctx_b),
		    "two contexts and the BOs")) {
		tap_done();
		return tap_exit_status();
	}
	data = cpu;
	gate = gcpu;

	check_bad_args(fd, &m, ctx);
	check_all(fd, &m, ctx, data);
	check_chain(fd, &m, ctx, ctx_b, data);
	check_short(fd, &m, ctx, data);
	check_full(fd, &m, &info, ctx, data, gate_bo, gate);
	check_readonly(fd, &m, ctx, data);
	check_threads(fd, ctx, m.bo);
	ctx_destroy(fd, ctx);
	ctx_destroy(fd, ctx_b);
	check_destroy_race(fd, m.bo);

	close(fd);
	tap_done();
	return tap_exit_status();
}
