/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * core_test.h - raw-ioctl helpers of the driver-core VM tests (core_*.c):
 * device information, contexts, submission, syncobjs, command packets.
 */
#ifndef TERN_CORE_TEST_H
#define TERN_CORE_TEST_H

#include <dirent.h>
#include <linux/sync_file.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>

#include "mem_test.h"

static inline int core_get_info(int fd, struct drm_tern_get_info *info)
{
	memset(info, 0, sizeof(*info));
	return mem_ioctl(fd, DRM_IOCTL_TERN_GET_INFO, info);
}

static inline int ctx_create(int fd, uint32_t prio, uint32_t class,
			     uint32_t timeout_ms, uint32_t *handle)
{
	struct drm_tern_context_create c = {
		.priority = prio, .engine_class = class, .timeout_ms = timeout_ms,
	};
	int ret = mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &c);

	if (!ret && handle)
		*handle = c.handle;
	return ret;
}

/*
 * A context of @prio and @class on engine @engine, named at creation
 * (DRM_TERN_CONTEXT_CREATE_ENGINE); -EPROTO if the driver put it elsewhere.
 */
static inline int ctx_create_class_on(int fd, uint32_t prio, uint32_t class,
				      uint32_t timeout_ms, uint32_t engine,
				      uint32_t *handle)
{
	struct drm_tern_context_create c = {
		.flags = DRM_TERN_CONTEXT_CREATE_ENGINE,
		.priority = prio,
		.engine_class = class,
		.timeout_ms = timeout_ms,
		.engine = engine,
	};
	int ret = mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &c);

	if (!ret && c.engine != engine) {
		struct drm_tern_context_destroy d = { .handle = c.handle };

		mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_DESTROY, &d);
		return -EPROTO;
	}
	if (!ret)
		*handle = c.handle;
	return ret;
}

/* A normal compute context on engine @engine. */
static inline int ctx_create_on(int fd, uint32_t timeout_ms, uint32_t engine,
				uint32_t *handle)
{
	return ctx_create_class_on(fd, DRM_TERN_PRIORITY_NORMAL,
				   DRM_TERN_ENGINE_CLASS_COMPUTE, timeout_ms,
				   engine, handle);
}

static inline int ctx_destroy(int fd, uint32_t handle)
{
	struct drm_tern_context_destroy d = { .handle = handle };

	return mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_DESTROY, &d);
}

static inline int ctx_state(int fd, uint32_t handle,
			    struct drm_tern_context_get_state *st)
{
	memset(st, 0, sizeof(*st));
	st->handle = handle;
	return mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_GET_STATE, st);
}

/*
 * Submit @ndw dwords on @ctx; optional BO list, in- and out-syncobj (0: none).
 * Through ioctl(): drmIoctl() would retry a full context's -EAGAIN forever.
 */
static inline int submit(int fd, uint32_t ctx, const uint32_t *dw, uint32_t ndw,
			 const uint32_t *bos, uint32_t nbos, uint32_t in_sync,
			 uint32_t out_sync, struct drm_tern_submit *out)
{
	struct drm_tern_sync in = { .handle = in_sync };
	struct drm_tern_sync o = { .handle = out_sync };
	struct drm_tern_submit s = {
		.context = ctx,
		.cmdbuf = (uintptr_t)dw,
		.cmdbuf_size = ndw * 4,
		.bo_count = nbos,
		.bo_handles = (uintptr_t)bos,
		.in_syncs = (uintptr_t)&in,
		.in_sync_count = in_sync ? 1 : 0,
		.out_syncs = (uintptr_t)&o,
		.out_sync_count = out_sync ? 1 : 0,
	};
	int ret = ioctl(fd, DRM_IOCTL_TERN_SUBMIT, &s) ? -errno : 0;

	if (out)
		*out = s;
	return ret;
}

static inline uint32_t syncobj_new(int fd)
{
	uint32_t h = 0;

	if (drmSyncobjCreate(fd, 0, &h))
		tap_diag("drmSyncobjCreate: %s", strerror(errno));
	return h;
}

static inline int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Wait for a binary syncobj for at most @ms: 0, or -ETIME, or -errno. */
static inline int syncobj_wait(int fd, uint32_t h, int ms)
{
	int ret = drmSyncobjWait(fd, &h, 1, now_ns() + (int64_t)ms * 1000000,
				 DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);

	return ret ? -errno : 0;
}

/*
 * The fence of syncobj @so: false if it has not signalled, else its status
 * (1, or the job's negative error) in *@status and the time it signalled
 * (CLOCK_MONOTONIC ns) in *@ns.  Signal times give the order of fences.
 */
static inline bool core_fence_info(int fd, uint32_t so, int *status,
				   uint64_t *ns)
{
	struct sync_fence_info fi;
	struct sync_file_info info;
	int sf = -1;
	bool ok;

	if (drmSyncobjExportSyncFile(fd, so, &sf))
		return false;
	memset(&fi, 0, sizeof(fi));
	memset(&info, 0, sizeof(info));
	info.num_fences = 1;
	info.sync_fence_info = (uintptr_t)&fi;
	ok = !ioctl(sf, SYNC_IOC_FILE_INFO, &info) && info.num_fences == 1 &&
	     fi.status != 0;
	close(sf);
	*status = fi.status;
	*ns = fi.timestamp_ns;
	return ok;
}

/* Status of the fence in syncobj @so: 1 done, its error, or -1000. */
static inline int core_fence_status(int fd, uint32_t so)
{
	uint64_t ns;
	int status = -1000;

	return core_fence_info(fd, so, &status, &ns) ? status : -1000;
}

/* Wait for the context to have no unfinished job, at most @ms. */
static inline bool ctx_idle(int fd, uint32_t ctx, int ms)
{
	struct drm_tern_context_get_state st;
	int64_t end = now_ns() + (int64_t)ms * 1000000;

	do {
		if (ctx_state(fd, ctx, &st))
			return false;
		if (st.jobs_completed == st.jobs_submitted)
			return true;
		usleep(1000);
	} while (now_ns() < end);
	return false;
}

/*
 * A normal compute context with a progress page (interface 1.2), on
 * @engine (-1: where the driver puts it), mapped read-only at *@page (NULL:
 * not mapped, the caller maps the offset).
 */
static inline int ctx_create_progress_on(int fd, int engine, uint32_t *handle,
					 const struct drm_tern_progress **page,
					 uint64_t *offset)
{
	struct drm_tern_context_create c = {
		.flags = DRM_TERN_CONTEXT_CREATE_PROGRESS |
			 (engine >= 0 ? DRM_TERN_CONTEXT_CREATE_ENGINE : 0),
		.priority = DRM_TERN_PRIORITY_NORMAL,
		.engine = engine >= 0 ? (uint32_t)engine : 0,
	};
	int ret = mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &c);
	void *p;

	if (ret)
		return ret;
	*handle = c.handle;
	if (offset)
		*offset = c.progress_offset;
	if (!page)
		return 0;
	p = mmap(NULL, DRM_TERN_PROGRESS_SIZE, PROT_READ, MAP_SHARED, fd,
		 (off_t)c.progress_offset);
	if (p == MAP_FAILED)
		return -errno;
	*page = p;
	return 0;
}

static inline int ctx_create_progress(int fd, uint32_t *handle,
				      const struct drm_tern_progress **page,
				      uint64_t *offset)
{
	return ctx_create_progress_on(fd, -1, handle, page, offset);
}

/* DRM_IOCTL_TERN_WAIT for at most @ms: 0 (the job's outcome in *@error) or -errno. */
static inline int job_wait(int fd, uint32_t ctx, uint32_t seqno, int ms,
			   int *error)
{
	struct drm_tern_wait w = {
		.context = ctx,
		.seqno = seqno,
		.timeout_ns = ms ? now_ns() + (int64_t)ms * 1000000 : 0,
	};
	int ret = ioctl(fd, DRM_IOCTL_TERN_WAIT, &w) ? -errno : 0;

	if (error)
		*error = w.error;
	return ret;
}

/* Run @ndw dwords on @ctx and wait (10 s): the fence's status (0 on success). */
static inline int core_run(int fd, uint32_t ctx, const uint32_t *dw,
			   uint32_t ndw)
{
	struct drm_tern_submit s;
	int ret = submit(fd, ctx, dw, ndw, NULL, 0, 0, 0, &s), error = 0;

	if (ret)
		return ret;
	ret = job_wait(fd, ctx, s.seqno, 10000, &error);
	return ret ?: error;
}

/* Wait for a progress page to reach @seqno, at most @ms. */
static inline bool page_reaches(const struct drm_tern_progress *page,
				uint32_t seqno, int ms)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;

	while ((int32_t)(seqno - __atomic_load_n(&page->completed,
						  __ATOMIC_ACQUIRE)) > 0) {
		if (now_ns() > end)
			return false;
		usleep(1000);
	}
	return true;
}

/* packet builders: append to @dw at *@n */
static inline void pkt_write_imm(uint32_t *dw, uint32_t *n, uint64_t va,
				 uint32_t value)
{
	dw[(*n)++] = TERN_PKT_HEADER(TERN_OP_WRITE_IMM, TERN_PKT_DWORDS_WRITE_IMM);
	dw[(*n)++] = (uint32_t)va;
	dw[(*n)++] = (uint32_t)(va >> 32);
	dw[(*n)++] = value;
}

static inline void pkt_fill(uint32_t *dw, uint32_t *n, uint64_t va,
			    uint32_t size, uint32_t value)
{
	dw[(*n)++] = TERN_PKT_HEADER(TERN_OP_FILL, TERN_PKT_DWORDS_FILL);
	dw[(*n)++] = (uint32_t)va;
	dw[(*n)++] = (uint32_t)(va >> 32);
	dw[(*n)++] = size;
	dw[(*n)++] = value;
}

static inline void pkt_copy(uint32_t *dw, uint32_t *n, uint64_t src,
			    uint64_t dst, uint32_t size)
{
	dw[(*n)++] = TERN_PKT_HEADER(TERN_OP_COPY, TERN_PKT_DWORDS_COPY);
	dw[(*n)++] = (uint32_t)src;
	dw[(*n)++] = (uint32_t)(src >> 32);
	dw[(*n)++] = (uint32_t)dst;
	dw[(*n)++] = (uint32_t)(dst >> 32);
	dw[(*n)++] = size;
}

static inline void pkt_spin(uint32_t *dw, uint32_t *n, uint32_t us)
{
	dw[(*n)++] = TERN_PKT_HEADER(TERN_OP_SPIN, TERN_PKT_DWORDS_SPIN);
	dw[(*n)++] = us;
}

/* wait (device side) until the u32 at @va is >= @value, @timeout_us at most */
static inline void pkt_wait_mem(uint32_t *dw, uint32_t *n, uint64_t va,
				uint32_t value, uint32_t timeout_us)
{
	dw[(*n)++] = TERN_PKT_HEADER(TERN_OP_WAIT_MEM, TERN_PKT_DWORDS_WAIT_MEM);
	dw[(*n)++] = (uint32_t)va;
	dw[(*n)++] = (uint32_t)(va >> 32);
	dw[(*n)++] = value;
	dw[(*n)++] = timeout_us;
}

static inline void pkt_gemm(uint32_t *dw, uint32_t *n, uint64_t a, uint64_t b,
			    uint64_t c, uint32_t m, uint32_t nn, uint32_t k)
{
	dw[(*n)++] = TERN_PKT_HEADER(TERN_OP_GEMM, TERN_PKT_DWORDS_GEMM);
	dw[(*n)++] = (uint32_t)a;
	dw[(*n)++] = (uint32_t)(a >> 32);
	dw[(*n)++] = (uint32_t)b;
	dw[(*n)++] = (uint32_t)(b >> 32);
	dw[(*n)++] = (uint32_t)c;
	dw[(*n)++] = (uint32_t)(c >> 32);
	dw[(*n)++] = m;
	dw[(*n)++] = nn;
	dw[(*n)++] = k;
}

/* A BO of @size bytes, CPU-mapped at *@cpu and mapped at @va in the device. */
static inline int core_bo(int fd, uint64_t size, uint64_t va, uint32_t *handle,
			  void **cpu)
{
	uint64_t got;
	int ret;

	ret = bo_create(fd, size, handle);
	if (ret)
		return ret;
	*cpu = bo_mmap(fd, *handle, &got);
	if (!*cpu)
		return -ENOMEM;
	return vm_map(fd, *handle, va, 0, size);
}

/*
 * A gate that holds jobs back for as long as a test needs, whatever the
 * guest's speed (a SPIN of fixed length does not: a slow guest may still
 * be submitting when it ends).  It is a row of CORE_GATE_STEPS WAIT_MEMs
 * on one context, the i-th waiting for the u32 at @va to reach i + 1; the
 * fence of the last one is the gate.  A WAIT_MEM gives up after 10 s, so
 * while the gate must stay closed the test calls core_gate_hold() at least
 * every few seconds, which lets one more WAIT_MEM pass every 5 s: the gate
 * holds 85 s at most.  core_gate_open() lets the rest through.
 */
#define CORE_GATE_STEPS		16
#define CORE_GATE_TICK_NS	5000000000ll

struct core_gate {
	volatile uint32_t *word;	/* CPU address of the u32 at @va */
	int64_t tick;			/* when the next WAIT_MEM may pass */
};

/* Set up @g on @ctx (a BO @bo mapped at @va, at CPU @word); fence to @out. */
static inline int core_gate_init(struct core_gate *g, int fd, uint32_t ctx,
				 uint32_t bo, uint64_t va,
				 volatile uint32_t *word, uint32_t out)
{
	uint32_t dw[8], n, i;
	int ret = 0;

	g->word = word;
	*word = 0;
	__sync_synchronize();
	for (i = 0; !ret && i < CORE_GATE_STEPS; i++) {
		n = 0;
		pkt_wait_mem(dw, &n, va, i + 1, 10000000);
		ret = submit(fd, ctx, dw, n, &bo, 1, 0,
			     i == CORE_GATE_STEPS - 1 ? out : 0, NULL);
	}
	g->tick = now_ns() + CORE_GATE_TICK_NS;
	return ret;
}

/* Keep @g closed: call at least every few seconds. */
static inline void core_gate_hold(struct core_gate *g)
{
	if (now_ns() < g->tick)
		return;
	if (*g->word < CORE_GATE_STEPS - 1)
		(*g->word)++;
	g->tick += CORE_GATE_TICK_NS;
}

static inline void core_gate_open(struct core_gate *g)
{
	__sync_synchronize();
	*g->word = CORE_GATE_STEPS;
}

/* Path of a file in the device's debugfs directory, or false. */
static inline bool core_debugfs_path(const char *name, char *path, size_t len)
{
	const char *root = "/sys/kernel/debug/accel";
	struct dirent *de;
	bool found = false;
	DIR *d = opendir(root);

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, len, "%s/%s/%s", root, de->d_name, name);
		found = access(path, F_OK) == 0;
	}
	closedir(d);
	return found;
}

/* The key "@key: <n>" of debugfs "memory" of the first tern device, or -1. */
static inline long long core_memory_value(const char *key)
{
	char path[512];

	if (!core_debugfs_path("memory", path, sizeof(path)))
		return -1;
	return file_key_value(path, key);
}

/* Paging buffers (one per move) of a kind ("in", "out", "clear"); -1. */
static inline long long core_paging_jobs(const char *kind)
{
	char path[512], line[256], key[64];
	long long jobs = -1, bytes;
	FILE *f;

	snprintf(key, sizeof(key), "paging_%s: %%lld buffers %%lld bytes", kind);
	if (!core_debugfs_path("memory", path, sizeof(path)))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, key, &jobs, &bytes) == 2)
			break;
	fclose(f);
	return jobs;
}

/*
 * The mappings inside [@lo, @hi) of the address space that maps exactly
 * [@mark, @mark + @mark_size) (a marker mapping only the caller's file
 * has), as debugfs "vms" lists them, into @out: "start-end rw|ro @offset"
 * each (hex, end exclusive), "; " between them, or "none".  False if
 * debugfs shows no such address space.
 */
static inline bool core_vm_layout(uint64_t mark, uint64_t mark_size, uint64_t lo,
				  uint64_t hi, char *out, size_t len)
{
	char path[512], line[512], cur[1024] = "";
	bool in_vm = false, mine = false, found = false;
	size_t n = 0;
	FILE *f;

	if (!core_debugfs_path("vms", path, sizeof(path)) || !(f = fopen(path, "r")))
		return false;
	for (;;) {
		bool eof = !fgets(line, sizeof(line), f);
		unsigned long long s, e, size;
		const char *o;
		char rw[8];

		if (eof || !strncmp(line, "vm ", 3)) {
			if ((found = in_vm && mine) || eof)
				break;
			in_vm = true;
			mine = false;
			n = 0;
			cur[0] = 0;
			continue;
		}
		if (!in_vm || sscanf(line, " %llx-%llx %7s bo %llu", &s, &e, rw, &size) != 4)
			continue;
		if (s == mark && e == mark + mark_size)
			mine = true;
		if (s >= hi || e <= lo || n >= sizeof(cur))
			continue;
		o = strstr(line, "at offset ");
		n += snprintf(cur + n, sizeof(cur) - n, "%s%llx-%llx %s @%llx", n ? "; " : "", s, e,
			      rw, o ? strtoull(o + 10, NULL, 0) : ~0ull);
	}
	fclose(f);
	if (found)
		snprintf(out, len, "%s", cur[0] ? cur : "none");
	return found;
}

/*
 * "ok" when the mappings of the caller's address space (marked as for
 * core_vm_layout()) inside [@lo, @hi) are exactly @want.
 */
static inline bool core_layout_is(const char *what, uint64_t mark,
				  uint64_t mark_size, uint64_t lo, uint64_t hi,
				  const char *want)
{
	char got[1024];

	if (!core_vm_layout(mark, mark_size, lo, hi, got, sizeof(got)))
		return tap_ok(false, "%s: debugfs \"vms\" shows this file's address space", what);
	return tap_ok(!strcmp(got, want), "%s: debugfs lists \"%s\" (want \"%s\")", what, got,
		      want);
}

/* Write @s to the file @path (sysfs, debugfs, procfs): true on success. */
static inline bool core_write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	bool ok;

	if (!f)
		return false;
	ok = fputs(s, f) >= 0;
	return !fclose(f) && ok;
}

/* The first line of the file @path, without its newline: true if read. */
static inline bool core_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = 0;
	return ok;
}

/* sysfs path of the (first) PCI function tern is bound to, or false. */
static inline bool core_pci_dev(char *path, size_t len)
{
	const char *dir = "/sys/bus/pci/drivers/tern";
	struct dirent *de;
	bool found = false;
	DIR *d = opendir(dir);

	while (d && !found && (de = readdir(d))) {
		if (!strchr(de->d_name, ':'))
			continue;
		snprintf(path, len, "/sys/bus/pci/devices/%s", de->d_name);
		found = true;
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * The node of the (first) accel device in @node, once there is one: @ms at
 * most.  A device that comes back (reload, rescan) while the old one is
 * still held gets another minor.
 */
static inline bool core_find_node(char *node, size_t len, int ms)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;
	struct dirent *de;

	do {
		DIR *d = opendir("/dev/accel");
		bool found = false;

		while (d && !found && (de = readdir(d))) {
			if (strncmp(de->d_name, "accel", 5))
				continue;
			snprintf(node, len, "/dev/accel/%s", de->d_name);
			found = true;
		}
		if (d)
			closedir(d);
		if (found)
			return true;
		usleep(10000);
	} while (now_ns() < end);
	return false;
}

/*
 * Does the device at @node run a job on a fresh file, which writes @magic,
 * within 30 s?  The file is closed again (its CPU mapping too, which would
 * hold the file and the module).
 */
static inline bool core_device_works(const char *node, uint32_t magic)
{
	const uint64_t va = 0x100000;
	uint32_t dw[8], n = 0, ctx, bo, so;
	volatile uint32_t *mem;
	int fd = open(node, O_RDWR | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = !ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &ctx) &&
	     !core_bo(fd, 4096, va, &bo, (void **)&mem);
	so = syncobj_new(fd);
	pkt_write_imm(dw, &n, va + 8, magic);
	ok = ok && !submit(fd, ctx, dw, n, &bo, 1, 0, so, NULL) &&
	     !syncobj_wait(fd, so, 30000) && mem[2] == magic;
	if (ok)
		munmap((void *)mem, 4096);
	close(fd);
	return ok;
}

/* Number of contexts the device has (debugfs), or -1. */
static inline int core_context_count(void)
{
	char path[512], line[512];
	int n = 0;
	FILE *f;

	if (!core_debugfs_path("contexts", path, sizeof(path)))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += !strncmp(line, "ctx ", 4);
	fclose(f);
	return n;
}

/* Wait until the device has @want contexts, at most @ms. */
static inline bool core_context_count_is(int want, int ms)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;

	do {
		if (core_context_count() == want)
			return true;
		usleep(10000);
	} while (now_ns() < end);
	return false;
}

/*
 * Is there a devcoredump whose text starts with @prefix?  Its text goes to
 * @text (up to @len bytes, NUL-terminated) when @text is not NULL.  Reads
 * free the dumps.
 */
static inline bool core_read_coredump(const char *prefix, char *text,
				      size_t len)
{
	const char *root = "/sys/class/devcoredump";
	static char buf[16384];
	struct dirent *de;
	bool found = false;
	DIR *d;
	int i;

	/* devcoredump creates the dump from a work item: give it a moment */
	for (i = 0; i < 50 && !found; i++) {
		d = opendir(root);
		while (d && !found && (de = readdir(d))) {
			char path[512];
			ssize_t got = 0, r;
			int fd;

			if (strncmp(de->d_name, "devcd", 5))
				continue;
			snprintf(path, sizeof(path), "%s/%s/data", root, de->d_name);
			fd = open(path, O_RDWR);
			if (fd < 0)
				continue;
			while (got < (ssize_t)sizeof(buf) - 1 &&
			       (r = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
				got += r;
			buf[got] = 0;
			if (!strncmp(buf, prefix, strlen(prefix))) {
				found = true;
				if (text)
					snprintf(text, len, "%s", buf);
			}
			if (write(fd, "1", 1) < 0)
				tap_diag("cannot free %s", path);
			close(fd);
		}
		if (d)
			closedir(d);
		if (!found)
			usleep(20000);
	}
	return found;
}

static inline bool core_find_coredump(const char *prefix)
{
	return core_read_coredump(prefix, NULL, 0);
}

/* Free the devcoredumps earlier tests left, so that a search finds ours. */
static inline void core_drain_coredumps(void)
{
	const char *root = "/sys/class/devcoredump";
	struct dirent *de;
	DIR *d = opendir(root);

	while (d && (de = readdir(d))) {
		char path[512];
		int fd;

		if (strncmp(de->d_name, "devcd", 5))
			continue;
		snprintf(path, sizeof(path), "%s/%s/data", root, de->d_name);
		fd = open(path, O_WRONLY);
		if (fd < 0)
			continue;
		if (write(fd, "1", 1) < 0)
			tap_diag("cannot free %s", path);
		close(fd);
	}
	if (d)
		closedir(d);
}

/* Arm a fault injection: op 1 hang, 2 drop irq, 3 fault. */
static inline bool core_inject(unsigned int engine, unsigned int op)
{
	char path[512];
	FILE *f;
	bool ok;

	if (!core_debugfs_path("inject", path, sizeof(path)))
		return false;
	f = fopen(path, "w");
	if (!f)
		return false;
	ok = fprintf(f, "%u %u\n", engine, op) > 0;
	return fclose(f) == 0 && ok;
}

/* rmmod tern, retried while the last file is still being released */
static inline bool core_module_unload(void)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (system("rmmod tern 2>/dev/null") == 0)
			return true;
		usleep(50000);
	}
	return false;
}

/* insmod the module under test; true once its first node is there */
static inline bool core_module_load(void)
{
	char cmd[512];
	int i;

	snprintf(cmd, sizeof(cmd), "insmod %s", tern_test_module_path());
	if (system(cmd))
		return false;
	for (i = 0; i < 100; i++) {
		if (!access(TERN_TEST_NODE, F_OK))
			return true;
		usleep(20000);
	}
	return false;
}

#endif /* TERN_CORE_TEST_H */
