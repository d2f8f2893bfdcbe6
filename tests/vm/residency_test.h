/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * residency_test.h - what the VM tests of per-job residency (interface 1.7:
 * bo_residency, bo_oversubscribe, vm_retarget_race) share: BOs whose
 * contents the test models (a pattern, and the 64 KiB slots jobs filled
 * or copied since) and checks word by word through the CPU, jobs that list
 * BOs and are waited for, the counters of debugfs "memory" read in one go,
 * and a gate that keeps jobs (and so the BOs they list) busy as long as the
 * test needs.
 */
#ifndef TERN_RESIDENCY_TEST_H
#define TERN_RESIDENCY_TEST_H

#include "core_test.h"

#define KIB			1024ull
#define MIB			(1024 * KIB)
/* the granule of what jobs write into a modelled BO */
#define RT_SLOT			(64 * KIB)
#define RT_SLOT_WORDS		(RT_SLOT / 4)
/* per-job residency, and CONTEXT_GET_STATE's paging counters */
#define RT_INTERFACE_1_7	((1u << 16) | 7)

/* Word @i of the pattern of @seed: every word of a BO differs. */
static inline uint32_t rt_pattern(uint32_t seed, size_t i)
{
	uint32_t x = (uint32_t)i * 0x9e3779b1u ^ (seed * 0x85ebca6bu + 0x27d4eb2fu);

	return x ^ (x >> 15);
}

/* What a slot of a modelled BO holds: its pattern (of a seed) or a value. */
struct rt_slot {
	bool filled;
	uint32_t v;	/* the seed of the pattern, or the value filled */
};

/* A BO, its CPU mapping, its device VA (0: not mapped) and its model. */
struct rt_bo {
	const char *name;
	uint32_t handle;
	uint64_t size;
	uint64_t va;
	volatile uint32_t *cpu;
	uint32_t seed;
	uint32_t nslots;
	struct rt_slot *slot;
};

/*
 * Create @b: @size bytes (a multiple of RT_SLOT) of @placement, mapped for
 * the CPU; with @write the CPU writes its pattern now (so that it has
 * pages: its first move into local memory is a page-in, not a clear).
 * Not mapped for the device.  0 or -errno.
 */
static inline int rt_bo_new(int fd, const char *name, uint32_t placement,
			    uint64_t size, uint32_t seed, bool write,
			    struct rt_bo *b)
{
	uint64_t got;
	size_t i;
	int ret;

	memset(b, 0, sizeof(*b));
	b->name = name;
	b->size = size;
	b->seed = seed;
	b->nslots = (uint32_t)(size / RT_SLOT);
	b->slot = calloc(b->nslots, sizeof(*b->slot));
	if (!b->slot || size % RT_SLOT)
		return -EINVAL;
	for (i = 0; i < b->nslots; i++)
		b->slot[i].v = seed;
	ret = bo_create_placed(fd, size, placement, &b->handle);
	if (ret)
		return ret;
	b->cpu = bo_mmap(fd, b->handle, &got);
	if (!b->cpu || got != size)
		return -ENOMEM;
	for (i = 0; write && i < size / 4; i++)
		b->cpu[i] = rt_pattern(seed, i);
	return 0;
}

/* Map @b at @va in @fd's address space. */
static inline int rt_bo_map(int fd, struct rt_bo *b, uint64_t va)
{
	int ret = vm_map(fd, b->handle, va, 0, b->size);

	if (!ret)
		b->va = va;
	return ret;
}

/* Unmap @b (if mapped), drop its CPU mapping and its handle. */
static inline void rt_bo_free(int fd, struct rt_bo *b)
{
	if (b->va)
		vm_unmap(fd, b->va, b->size);
	if (b->cpu)
		munmap((void *)b->cpu, b->size);
	if (b->handle)
		bo_close(fd, b->handle);
	free(b->slot);
	memset(b, 0, sizeof(*b));
}

/* What word @i of @b should hold. */
static inline uint32_t rt_want(const struct rt_bo *b, size_t i)
{
	const struct rt_slot *s = &b->slot[i / RT_SLOT_WORDS];

	return s->filled ? s->v : rt_pattern(s->v, i);
}

/* Words [@first, @first + @count) of @b as the model says? (CPU reads) */
static inline bool rt_check_words(const struct rt_bo *b, size_t first,
				  size_t count)
{
	size_t i;

	for (i = first; i < first + count; i++)
		if (b->cpu[i] != rt_want(b, i)) {
			tap_diag("%s: word %zu (slot %zu) is 0x%08x, want 0x%08x", b->name,
				 i, (size_t)(i / RT_SLOT_WORDS), b->cpu[i], rt_want(b, i));
			return false;
		}
	return true;
}

/* All of @b as the model says?  (Every word: a misplaced page shows.) */
static inline bool rt_check(const struct rt_bo *b)
{
	return b->cpu && rt_check_words(b, 0, b->size / 4);
}

/* Slot @k of @b, in the model. */
static inline void rt_model_fill(struct rt_bo *b, uint32_t k, uint32_t v)
{
	b->slot[k].filled = true;
	b->slot[k].v = v;
}

/* A FILL of slot @k of @b with @v (the model changes once the job ran). */
static inline void rt_pkt_fill_slot(uint32_t *dw, uint32_t *n,
				    const struct rt_bo *b, uint32_t k, uint32_t v)
{
	pkt_fill(dw, n, b->va + (uint64_t)k * RT_SLOT, (uint32_t)RT_SLOT, v);
}

/* A COPY of slot @k of @src to slot @k of @dst. */
static inline void rt_pkt_copy_slot(uint32_t *dw, uint32_t *n,
				    const struct rt_bo *src,
				    const struct rt_bo *dst, uint32_t k)
{
	pkt_copy(dw, n, src->va + (uint64_t)k * RT_SLOT,
		 dst->va + (uint64_t)k * RT_SLOT, (uint32_t)RT_SLOT);
}

/* Do the words at CPU @p hold the pattern of @seed from word @first on? */
static inline bool rt_words_pattern(const volatile uint32_t *p, size_t count,
				    uint32_t seed, size_t first)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (p[i] != rt_pattern(seed, first + i)) {
			tap_diag("word %zu: 0x%08x, want 0x%08x", i, p[i],
				 rt_pattern(seed, first + i));
			return false;
		}
	return true;
}

/* Do the words at CPU @p all hold @v? */
static inline bool rt_words_are(const volatile uint32_t *p, size_t count,
				uint32_t v)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (p[i] != v) {
			tap_diag("word %zu: 0x%08x, want 0x%08x", i, p[i], v);
			return false;
		}
	return true;
}

/*
 * Submit @n dwords on @ctx listing @bos (through ioctl(): an -EAGAIN of
 * the residency is returned, not retried) and wait for the job, 20 s at
 * most: 0, the submit's -errno, or the job's error.
 */
static inline int rt_run(int fd, uint32_t ctx, const uint32_t *dw, uint32_t n,
			 const uint32_t *bos, uint32_t nbos)
{
	struct drm_tern_submit s;
	int ret, error = 0;

	ret = submit(fd, ctx, dw, n, bos, nbos, 0, 0, &s);
	if (ret)
		return ret;
	ret = job_wait(fd, ctx, s.seqno, 20000, &error);
	return ret ?: error;
}

/* The counters of debugfs "memory" a residency test looks at. */
struct rt_counts {
	long long in, out, clear;			/* paging buffers */
	long long in_bytes, out_bytes, clear_bytes;
	long long failures;
	long long evictions, retargets, retarget_cpu, retries;
	long long local, local_size;
};

/* Read them, all from one read of the file: false if one is missing. */
static inline bool rt_counts(struct rt_counts *c)
{
	char path[512], line[256];
	long long j, b;
	int found = 0;
	FILE *f;

	memset(c, 0xff, sizeof(*c));	/* -1 each */
	if (!core_debugfs_path("memory", path, sizeof(path)) || !(f = fopen(path, "r")))
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "paging_in: %lld buffers %lld bytes", &j, &b) == 2) {
			c->in = j;
			c->in_bytes = b;
		} else if (sscanf(line, "paging_out: %lld buffers %lld bytes", &j, &b) == 2) {
			c->out = j;
			c->out_bytes = b;
		} else if (sscanf(line, "paging_clear: %lld buffers %lld bytes", &j, &b) == 2) {
			c->clear = j;
			c->clear_bytes = b;
		} else if (sscanf(line, "paging_failures: %lld", &j) == 1) {
			c->failures = j;
		} else if (sscanf(line, "evictions: %lld", &j) == 1) {
			c->evictions = j;
		} else if (sscanf(line, "retargets: %lld", &j) == 1) {
			c->retargets = j;
		} else if (sscanf(line, "retarget_cpu: %lld", &j) == 1) {
			c->retarget_cpu = j;
		} else if (sscanf(line, "residency_retries: %lld", &j) == 1) {
			c->retries = j;
		} else if (sscanf(line, "local_bytes: %lld", &j) == 1) {
			c->local = j;
		} else if (sscanf(line, "local_size: %lld", &j) == 1) {
			c->local_size = j;
		} else {
			continue;
		}
		found++;
	}
	fclose(f);
	return found == 10;
}

/* local_bytes once it is @want, or after @ms: the last value. */
static inline long long rt_local_settled(long long want, int ms)
{
	long long v = core_memory_value("local_bytes");
	int i;

	for (i = 0; i < ms / 20 && v != want; i++) {
		usleep(20000);
		v = core_memory_value("local_bytes");
	}
	return v;
}

/* The paging counters of CONTEXT_GET_STATE (interface 1.7) of @ctx. */
struct rt_paging {
	uint64_t in, out, evictions, ns, submitted;
	uint32_t state;
};

static inline bool rt_paging(int fd, uint32_t ctx, struct rt_paging *p)
{
	struct drm_tern_context_get_state st;

	memset(p, 0, sizeof(*p));
	if (ctx_state(fd, ctx, &st))
		return false;
	p->in = st.paging_bytes_in;
	p->out = st.paging_bytes_out;
	p->evictions = st.evictions;
	p->ns = st.paging_ns;
	p->submitted = st.jobs_submitted;
	p->state = st.state;
	return true;
}

/*
 * A gate for jobs that must stay unfinished (and so keep the BOs they
 * list busy) for as long as the test needs: a job made of RT_GATE_STEPS
 * WAIT_MEMs on the u32 at @va, the i-th waiting for it to reach i + 1.  A
 * WAIT_MEM gives up after 10 s: while the gate must hold, the test calls
 * rt_gate_hold() at least every few seconds, which lets one more WAIT_MEM
 * pass every 4 s (60 s at most); rt_gate_open() lets all of them pass.
 */
#define RT_GATE_STEPS		15
#define RT_GATE_TICK_NS		4000000000ll

struct rt_gate {
	volatile uint32_t *word;
	uint64_t va;
	int64_t tick;
};

static inline void rt_gate_init(struct rt_gate *g, volatile uint32_t *word,
				uint64_t va)
{
	g->word = word;
	g->va = va;
	*word = 0;
	__sync_synchronize();
	g->tick = now_ns() + RT_GATE_TICK_NS;
}

/* Append the gate's WAIT_MEMs to @dw: 5 dwords each. */
static inline void rt_pkt_gate(uint32_t *dw, uint32_t *n, const struct rt_gate *g)
{
	uint32_t i;

	for (i = 0; i < RT_GATE_STEPS; i++)
		pkt_wait_mem(dw, n, g->va, i + 1, TERN_WAIT_TIMEOUT_MAX_US);
}

static inline void rt_gate_hold(struct rt_gate *g)
{
	if (now_ns() < g->tick)
		return;
	if (*g->word < RT_GATE_STEPS - 1)
		(*g->word)++;
	g->tick += RT_GATE_TICK_NS;
}

static inline void rt_gate_open(struct rt_gate *g)
{
	__sync_synchronize();
	*g->word = RT_GATE_STEPS;
	__sync_synchronize();
}

/* DRM_IOCTL_TERN_VM_BIND_OPS of one operation, asynchronous, fence to @out. */
static inline int rt_bind_async(int fd, struct drm_tern_vm_bind op, uint32_t out)
{
	struct drm_tern_sync o = { .handle = out };
	struct drm_tern_vm_bind_ops a = {
		.ops = (uintptr_t)&op,
		.count = 1,
		.stride = sizeof(op),
		.out_syncs = (uintptr_t)&o,
		.out_sync_count = out ? 1 : 0,
	};

	return ioctl(fd, DRM_IOCTL_TERN_VM_BIND_OPS, &a) ? -errno : 0;
}

/* The status of the fence in @so once it signalled (20 s at most): 1 or -errno. */
static inline int rt_fence_result(int fd, uint32_t so)
{
	int ret = syncobj_wait(fd, so, 20000);

	return ret ? ret : core_fence_status(fd, so);
}

#endif /* TERN_RESIDENCY_TEST_H */
