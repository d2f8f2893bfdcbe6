/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * sched_test.h - helpers of the scheduler VM tests (sched_*.c): contexts
 * with a priority and a weight, jobs stamped with the device clock, the
 * scheduler's debugfs knobs, and CPU references of GEMM and REDUCE.
 *
 * The sched_* tests boot a device with one compute engine, so that every
 * compute context shares engine 0, and with time-scale 200 (their
 * "tern-vm: device=compute-engines=1,time-scale=200" line), so that device
 * work is long and preemptible while the guest's CPU stays cheap: a SPIN of
 * d us lasts d * 200 us of device time with a preemption point every 2 ms,
 * a 64x64x128 GEMM lasts 105 ms with one every row (1.6 ms).
 *
 * The tests assert orders and shares, both read from the device: TIMESTAMP
 * packets write the device clock at a job's start and end, and busy_ns of
 * CONTEXT_GET_STATE is the device time a context ran.  No check compares a
 * device time with the guest's wall clock, which emulation stretches.
 */
#ifndef TERN_SCHED_TEST_H
#define TERN_SCHED_TEST_H

#include <signal.h>


#include "core_test.h"

/* time-scale of the sched_* boots: SPIN(SCHED_SPIN_MS(x)) lasts x ms */
#define SCHED_TIME_SCALE	200
#define SCHED_SPIN_MS(ms)	((ms) * 1000 / SCHED_TIME_SCALE)
#define SCHED_ENGINE		0

/*
 * A compute context of class @prio and @weight (0: the default) on the
 * device's only compute engine; @timeout_ms 0 is the default.
 */
static inline int sched_ctx(int fd, uint32_t prio, uint32_t weight,
			    uint32_t timeout_ms, uint32_t *handle)
{
	struct drm_tern_context_create c = {
		.priority = prio, .engine_class = DRM_TERN_ENGINE_CLASS_COMPUTE,
		.timeout_ms = timeout_ms, .weight = weight,
	};
	int ret = mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &c);

	if (ret)
		return ret;
	if (c.engine != SCHED_ENGINE) {
		tap_diag("context on engine %u: boot with compute-engines=1",
			 c.engine);
		ctx_destroy(fd, c.handle);
		return -EXDEV;
	}
	*handle = c.handle;
	return 0;
}

/* The device clock (ns), or 0. */
static inline uint64_t sched_clock(int fd)
{
	struct drm_tern_get_info info;

	return core_get_info(fd, &info) ? 0 : info.device_clock_ns;
}

/* ---- packets that core_test.h does not build ---- */

static inline void pkt_timestamp(uint32_t *dw, uint32_t *n, uint64_t va)
{
	dw[(*n)++] = TERN_PKT_HEADER(TERN_OP_TIMESTAMP, TERN_PKT_DWORDS_TIMESTAMP);
	dw[(*n)++] = (uint32_t)va;
	dw[(*n)++] = (uint32_t)(va >> 32);
}

static inline void pkt_saxpy(uint32_t *dw, uint32_t *n, uint64_t x,
			     uint64_t y, uint32_t count, float alpha)
{
	uint32_t bits;

	memcpy(&bits, &alpha, sizeof(bits));
	dw[(*n)++] = TERN_PKT_HEADER(TERN_OP_SAXPY, TERN_PKT_DWORDS_SAXPY);
	dw[(*n)++] = (uint32_t)x;
	dw[(*n)++] = (uint32_t)(x >> 32);
	dw[(*n)++] = (uint32_t)y;
	dw[(*n)++] = (uint32_t)(y >> 32);
	dw[(*n)++] = count;
	dw[(*n)++] = bits;
}

static inline void pkt_reduce_sum(uint32_t *dw, uint32_t *n, uint64_t src,
				  uint64_t dst, uint32_t count)
{
	dw[(*n)++] = TERN_PKT_HEADER(TERN_OP_REDUCE, TERN_PKT_DWORDS_REDUCE);
	dw[(*n)++] = (uint32_t)src;
	dw[(*n)++] = (uint32_t)(src >> 32);
	dw[(*n)++] = (uint32_t)dst;
	dw[(*n)++] = (uint32_t)(dst >> 32);
	dw[(*n)++] = TERN_REDUCE_COUNT_OP(count, TERN_REDUCE_SUM);
}

/* ---- jobs stamped with the device clock ---- */

/* Where a job writes the device clock when it starts and when it ends. */
struct sched_stamp {
	uint64_t start;
	uint64_t end;
};

/*
 * A job under construction: its packets go between a TIMESTAMP into
 * @stamp_va (start) and one into @stamp_va + 8 (end).
 */
struct sched_job {
	uint32_t dw[128];
	uint32_t n;
	uint64_t stamp_va;
};

static inline void sched_job_begin(struct sched_job *j, uint64_t stamp_va)
{
	j->n = 0;
	j->stamp_va = stamp_va;
	pkt_timestamp(j->dw, &j->n, stamp_va);
}

/* Close the job with its end stamp and submit it; 0 or -errno. */
static inline int sched_job_submit(int fd, uint32_t ctx, struct sched_job *j,
				   const uint32_t *bos, uint32_t nbos,
				   uint32_t in_sync, uint32_t out_sync)
{
	pkt_timestamp(j->dw, &j->n, j->stamp_va + 8);
	return submit(fd, ctx, j->dw, j->n, bos, nbos, in_sync, out_sync, NULL);
}

/* Wait until a device-written u64 is non-zero, at most @ms. */
static inline bool sched_wait_u64(volatile uint64_t *p, int ms)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;

	while (!*p) {
		if (now_ns() > end)
			return false;
		usleep(500);
	}
	return true;
}

/* [a.start, a.end] contains [b.start, b.end]: b ran inside a's run */
static inline bool sched_stamp_inside(const volatile struct sched_stamp *a,
				      const volatile struct sched_stamp *b)
{
	return a->start && b->start && a->start < b->start &&
	       b->end < a->end;
}

static inline uint64_t sched_preemptions(int fd, uint32_t ctx)
{
	struct drm_tern_context_get_state st;

	return ctx_state(fd, ctx, &st) ? ~0ull : st.preemptions;
}

/* Wait until @ctx was preempted at least @n times, at most @ms. */
static inline bool sched_wait_preemptions(int fd, uint32_t ctx, uint64_t n,
					  int ms)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;
	uint64_t p;

	while ((p = sched_preemptions(fd, ctx)) == ~0ull || p < n) {
		if (now_ns() > end)
			return false;
		usleep(1000);
	}
	return true;
}

static inline uint64_t sched_busy_ns(int fd, uint32_t ctx)
{
	struct drm_tern_context_get_state st;

	return ctx_state(fd, ctx, &st) ? 0 : st.busy_ns;
}

/*
 * A gate for whole contexts: a WAIT_MEM on the copy engine that waits for
 * the u32 at @va to become non-zero.  Its out-syncobj, used as the
 * in-fence of a context's first job, holds all of that context's jobs
 * until the CPU writes the word, so that every job is queued before any
 * runs.  Returns the syncobj, or 0.
 */
static inline uint32_t sched_gate(int fd, uint32_t copy_ctx, uint32_t bo,
				  uint64_t va)
{
	uint32_t dw[8], n = 0, so = syncobj_new(fd);

	pkt_wait_mem(dw, &n, va, 1, TERN_WAIT_TIMEOUT_MAX_US);
	if (!so || submit(fd, copy_ctx, dw, n, &bo, 1, 0, so, NULL))
		return 0;
	return so;
}

/*
 * Queue @count SPIN jobs on @ctx, lengths cycling through @ms, the first
 * behind @gate.  With a BO @stamp_bo, job i writes the device clock at its
 * end to @stamp_va + 8 i.  0 or -errno.
 */
static inline int sched_queue_spins(int fd, uint32_t ctx,
				    const unsigned int *ms, unsigned int nms,
				    unsigned int count, uint32_t gate,
				    uint32_t stamp_bo, uint64_t stamp_va)
{
	uint32_t dw[8], n, i;
	int ret = 0;

	for (i = 0; i < count && !ret; i++) {
		n = 0;
		pkt_spin(dw, &n, SCHED_SPIN_MS(ms[i % nms]));
		if (stamp_bo)
			pkt_timestamp(dw, &n, stamp_va + 8 * i);
		ret = submit(fd, ctx, dw, n, &stamp_bo, stamp_bo ? 1 : 0,
			     i ? 0 : gate, 0, NULL);
	}
	return ret;
}

/* jobs not yet completed beyond the one running */
static inline bool sched_backlogged(int fd, uint32_t ctx)
{
	struct drm_tern_context_get_state st;

	return !ctx_state(fd, ctx, &st) &&
	       st.jobs_submitted > st.jobs_completed + 1;
}

/* ---- debugfs of the device ---- */

/* Read a debugfs file into @buf (NUL-terminated): bytes read or -errno. */
static inline int sched_dbg_read(const char *name, char *buf, size_t len)
{
	char path[512];
	size_t got = 0;
	ssize_t r;
	int fd;

	if (!core_debugfs_path(name, path, sizeof(path)))
		return -ENOENT;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	while (got < len - 1 && (r = read(fd, buf + got, len - 1 - got)) > 0)
		got += r;
	buf[got] = '\0';
	close(fd);
	return (int)got;
}

/*
 * Write @text to the file @path in one write(): 0 or -errno.  The file is
 * opened with O_TRUNC, as fopen("w") does: that is what clears a trace.
 */
static inline int sched_write_file(const char *path, const char *text)
{
	ssize_t r;
	int fd, err;

	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	r = write(fd, text, strlen(text));
	err = r < 0 ? -errno : 0;
	close(fd);
	return err;
}

/* Write @text to a debugfs file of the device: 0 or -errno. */
static inline int sched_dbg_write(const char *name, const char *text)
{
	char path[512];

	if (!core_debugfs_path(name, path, sizeof(path)))
		return -ENOENT;
	return sched_write_file(path, text);
}

/* A decimal debugfs knob, or -1. */
static inline long sched_dbg_long(const char *name)
{
	char buf[64];

	if (sched_dbg_read(name, buf, sizeof(buf)) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}

/*
 * The knobs a test changes are restored when it exits, on every path: at
 * exit(), and from SIGALRM, which sched_knobs_save() arms a few seconds
 * before the runner's time limit (it kills with SIGKILL, which cannot be
 * caught).  Later tests of the same boot then start from the defaults.
 */
static char sched_saved_policy[16];
static long sched_saved_quantum = -1, sched_saved_starve = -1;

static inline void sched_knobs_restore(void)
{
	char v[32];

	if (sched_saved_policy[0])
		sched_dbg_write("sched_policy", sched_saved_policy);
	if (sched_saved_quantum > 0) {
		snprintf(v, sizeof(v), "%ld", sched_saved_quantum);
		sched_dbg_write("quantum_us", v);
	}
	if (sched_saved_starve > 0) {
		snprintf(v, sizeof(v), "%ld", sched_saved_starve);
		sched_dbg_write("starve_ms", v);
	}
}

static inline void sched_knobs_alarm(int sig)
{
	(void)sig;
	sched_knobs_restore();
	_exit(EXIT_FAILURE);
}

/* Save the knobs, restore them at exit or @limit_s - 5 seconds from now. */
static inline bool sched_knobs_save(unsigned int limit_s)
{
	char *nl;

	if (sched_dbg_read("sched_policy", sched_saved_policy,
			   sizeof(sched_saved_policy)) <= 0)
		return false;
	nl = strchr(sched_saved_policy, '\n');
	if (nl)
		*nl = '\0';
	sched_saved_quantum = sched_dbg_long("quantum_us");
	sched_saved_starve = sched_dbg_long("starve_ms");
	atexit(sched_knobs_restore);
	signal(SIGALRM, sched_knobs_alarm);
	alarm(limit_s > 10 ? limit_s - 5 : limit_s);
	return sched_saved_quantum > 0 && sched_saved_starve > 0;
}

/* A module parameter of tern.ko as text without its newline, or "". */
static inline const char *sched_module_param(const char *name, char *out,
					      size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/tern/parameters/%s", name);
	out[0] = '\0';
	f = fopen(path, "r");
	if (f) {
		if (!fgets(out, (int)len, f))
			out[0] = '\0';
		fclose(f);
	}
	out[strcspn(out, "\n")] = '\0';
	return out;
}

/*
 * Jobs of @engine in its slots and ready in its queues (the first line of
 * the engine in debugfs "engines"); false if not found.
 */
static inline bool sched_engine_jobs(unsigned int engine, unsigned int *slots,
				     unsigned int *queued)
{
	static char buf[1 << 16];
	unsigned int e;
	char *p = buf, *q;

	if (sched_dbg_read("engines", buf, sizeof(buf)) <= 0)
		return false;
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (sscanf(p, "engine %u:", &e) != 1 || e != engine)
			continue;
		q = strstr(p, " in slots, ");
		while (q && q > p && q[-1] != ' ')
			q--;
		return q && sscanf(q, "%u in slots, %u queued", slots,
				   queued) == 2;
	}
	return false;
}

/* Wait until @engine has @slots jobs in slots and @queued ready, @ms at most. */
static inline bool sched_wait_jobs(unsigned int engine, unsigned int slots,
				   unsigned int queued, int ms)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;
	unsigned int s, q;

	do {
		if (sched_engine_jobs(engine, &s, &q) && s == slots &&
		    q == queued)
			return true;
		usleep(1000);
	} while (now_ns() < end);
	return false;
}

/*
 * Submit @n stamped SPIN jobs, job i of @ms[i] ms on @ctx[i] with its
 * stamps at @stamp[i] (@stamp_va + 16 i, in @bo), one at a time: each once
 * the one before it shows on SCHED_ENGINE (the first running, the second
 * in the PENDING slot, the others queued), so that the arrival order is
 * the submission order and not drm_sched's choice among ready contexts.
 * The last one signals @so.  0 or -errno; *@arrived false when a job was
 * not seen to arrive within 5 s.
 */
static inline int sched_submit_arrivals(int fd, const uint32_t *ctx,
					const unsigned int *ms, unsigned int n,
					uint32_t bo, uint64_t stamp_va,
					volatile struct sched_stamp *stamp,
					uint32_t so, bool *arrived)
{
	struct sched_job j;
	unsigned int i;
	int ret = 0;

	*arrived = true;
	for (i = 0; i < n && !ret; i++) {
		sched_job_begin(&j, stamp_va + 16 * i);
		pkt_spin(j.dw, &j.n, SCHED_SPIN_MS(ms[i]));
		ret = sched_job_submit(fd, ctx[i], &j, &bo, 1, 0,
				       i == n - 1 ? so : 0);
		if (ret)
			break;
		if (i == 0)
			*arrived &= sched_wait_u64(&stamp[0].start, 5000);
		else
			*arrived &= sched_wait_jobs(SCHED_ENGINE, 2, i - 1, 5000);
	}
	return ret;
}

/* The number debugfs "engines" prints after @key (" irqs ") for @engine, or -1. */
static inline long long sched_engine_stat(unsigned int engine, const char *key)
{
	static char buf[1 << 16];
	long long v = -1;
	char head[32], *p;

	if (sched_dbg_read("engines", buf, sizeof(buf)) <= 0)
		return -1;
	snprintf(head, sizeof(head), "engine %u:", engine);
	p = strstr(buf, head);
	p = p ? strstr(p, key) : NULL;
	if (p)
		sscanf(p + strlen(key), "%lld", &v);
	return v;
}

/* Device-wide tag of the context @handle of the test's only file, or -1. */
static inline int sched_ctx_tag(uint32_t handle)
{
	static char buf[1 << 16];
	unsigned int tag, h;
	char *p = buf;

	if (sched_dbg_read("contexts", buf, sizeof(buf)) <= 0)
		return -1;
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (sscanf(p, "ctx tag %u handle %u", &tag, &h) == 2 &&
		    h == handle)
			return (int)tag;
	return -1;
}

/* The line of context @tag in debugfs "queues", or NULL. */
static inline const char *sched_queue_line(int tag)
{
	static char buf[1 << 16];
	unsigned int t;
	char *p = buf;

	if (tag < 0 || sched_dbg_read("queues", buf, sizeof(buf)) <= 0)
		return NULL;
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (sscanf(p, " ctx %u", &t) == 1 && (int)t == tag)
			return p;
	return NULL;
}

/*
 * The line of context @tag in debugfs "queues": its class, weight and
 * ready jobs (not in a slot).  False if it is not there.
 */
static inline bool sched_queue_entry(int tag, unsigned int *prio,
				     unsigned int *weight, unsigned int *queued)
{
	const char *p = sched_queue_line(tag);

	return p && sscanf(p, " ctx %*u prio %u weight %u queued %u", prio,
			   weight, queued) == 3;
}

/* Jobs of context @tag in the engine's slots (debugfs "queues"), or 0. */
static inline unsigned int sched_queue_in_slots(int tag)
{
	const char *p = sched_queue_line(tag);
	unsigned int slots = 0;

	p = p ? strstr(p, " in_slots ") : NULL;
	if (p)
		sscanf(p, " in_slots %u", &slots);
	return slots;
}

/* ---- CPU references, bit-exact with the device (docs/hardware.md 8) ---- */

/* C = A x B, each element summed over p in order, in f32 */
static inline void sched_gemm_ref(const float *a, const float *b, float *c,
				  uint32_t m, uint32_t n, uint32_t k)
{
	uint32_t i, j, p;

	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++) {
			float acc = 0.0f;

			for (p = 0; p < k; p++)
				acc += a[i * k + p] * b[p * n + j];
			c[i * n + j] = acc;
		}
}

/* f32 sum in index order */
static inline float sched_sum_ref(const float *x, uint32_t count)
{
	float acc = 0.0f;
	uint32_t i;

	for (i = 0; i < count; i++)
		acc += x[i];
	return acc;
}

/* Values whose f32 sum depends on the order it is taken in. */
static inline void sched_fill_floats(float *x, uint32_t count, uint32_t seed)
{
	uint32_t i, v = seed * 2654435761u + 1;

	for (i = 0; i < count; i++) {
		v = v * 1664525u + 1013904223u;
		x[i] = (float)(v >> 8) / (float)(1u << 20) - 8.0f;
	}
}

#endif /* TERN_SCHED_TEST_H */
