// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * vm_bind_split: an unmap with DRM_TERN_VM_BIND_CUT cuts the mappings that
 * cross an end of its range, and DRM_TERN_VM_BIND_REPLACE maps over what is
 * there, always cutting (interface 1.5).  Without DRM_TERN_VM_BIND_CUT an
 * unmap that would cut is EINVAL and changes nothing (vm_bind and
 * vm_bind_async check that further).
 * Every outcome is checked by jobs that really access memory: a COPY job
 * reads the pieces into another buffer, bit for bit against the BO's bytes
 * at the pieces' offsets; WRITE_IMM jobs write through them into the BO;
 * a job that touches a hole faults (its context FAULTED, NOT_PRESENT at
 * that address), on the engine whose TLB held the range before the cut.
 * debugfs "vms" must list exactly the pieces (VA range, BO by its size, BO
 * offset, read-only flag), and count the BO's pins once, whole; no check
 * leaves a pin behind.  Checked here:
 *
 * - an unmap of the middle of a mapping: without DRM_TERN_VM_BIND_CUT it is
 *   EINVAL and the mapping stays whole (debugfs, a COPY of all of it);
 *   with it, the head and the tail read and
 *   write the BO at their offsets, up to the last word before the hole and
 *   from the first word after it; reads and writes in the hole fault;
 * - an unmap of the first page only, of the tail only, of the tail and
 *   free pages after it, of free pages and the head, of a single page,
 *   of every other page (eight pieces of one page);
 * - an unmap across two adjacent mappings cuts both; one over a whole
 *   mapping and parts of two neighbours removes it and cuts them, a
 *   read-only piece stays read-only (writes fault WRITE_PROTECT), the BO
 *   removed whole gives its pins back;
 * - after cutting, unmapping the pieces one by one (not in address
 *   order): the BO stays pinned once, whole, until the last goes, then
 *   debugfs shows no mapping of it and the pinned bytes drop by its size,
 *   its pages stay until GEM close, which frees it (drm-total-memory and
 *   the system memory of the device's BOs, debugfs "memory", come back); a
 *   BO whose handle is closed while pieces remain is freed with the last
 *   piece;
 * - REPLACE: B over part of a mapping of A (A's parts keep A's data, the
 *   range shows B's at B's offset), over exactly one mapping, over an empty
 *   range, over a whole mapping and parts of two, read-only, A over part of
 *   A at another offset; without REPLACE the same map is EEXIST and changes
 *   nothing; REPLACE on an unmap is EINVAL (VM_BIND and VM_BIND_OPS);
 *   refused REPLACE maps (no such BO, range past the BO, with
 *   DRM_TERN_VM_BIND_CUT, unknown flag, misaligned, outside the VA space)
 *   remove nothing;
 * - a job that reads a range page by page while a REPLACE of it runs, and
 *   does not list the BOs, never faults: each page it copied is A's or B's
 *   whole, and after the bind's fence only B's (no job sees the range
 *   empty);
 * - asynchronous REPLACE and cut behind a gate: a job that waits for the
 *   bind's out-syncobj reads B's data; a REPLACE, then a cut, behind an
 *   in-syncobj that fails (a job that faults) fail with EIO, the binds
 *   queued after them are cancelled (ECANCELED), and the address space is
 *   exactly as before: the original mapping whole, readable, writable;
 * - a cut (and a REPLACE) while a gated job reads the other part of the same
 *   mapping and lists the BO: the bind's fence signals only after that job,
 *   whose result is right; VM_BIND's cut returns only once the job ended;
 * - two threads on one address space cut and restore pages of a shared
 *   mapping, and of their own, and check their data with jobs, while the
 *   other reads the shared mapping's pages it never cuts;
 * - four processes each map a BO, cut it with random unmaps with and
 *   without DRM_TERN_VM_BIND_CUT (EINVAL where it would cut without),
 *   REPLACE maps and plain maps (VM_BIND and VM_BIND_OPS), each call's
 *   result predicted by a model that knows each page's mapping, and check
 *   with jobs the data of random pieces and a fault in holes, for hundreds
 *   of rounds.
 *
 * tern-vm: timeout=600
 */
#include <pthread.h>
#include <sys/wait.h>

#include "core_test.h"

#define P		PAGE4K
#define WIN		0x400000000ull		/* each check's range, 256 MiB apart */
#define WIN_STEP	0x10000000ull
#define DST_VA		0x100000000ull		/* COPY jobs write here */
#define DST_PAGES	64
#define GATE_VA		0x110000000ull
#define MARK_VA		0x7e5700000000ull	/* finds this file's VM in debugfs */
#define MARK_SIZE	(3 * P)
#define BAD_VA		0x7000000000ull		/* never mapped */

#define FAULT_NOT_PRESENT	1	/* docs/hardware.md section 10 */
#define FAULT_WRITE_PROTECT	2

#define PROCS		4
#define ROUNDS		300
#define THREAD_ROUNDS	150

#define MAP		DRM_TERN_VM_BIND_OP_MAP
#define UNMAP		DRM_TERN_VM_BIND_OP_UNMAP
#define RO		DRM_TERN_VM_BIND_READ_ONLY
#define REPLACE		DRM_TERN_VM_BIND_REPLACE
#define CUT		DRM_TERN_VM_BIND_CUT

/* A BO filled with its pattern: the u32 at byte offset o is pat(tag, o). */
struct bo {
	uint32_t h;
	uint64_t size;
	uint32_t tag;
	volatile uint32_t *cpu;
};

static int fd;
static uint32_t ctx, ctx2;
static struct bo dst, gate, mark, A, B, C;

static uint32_t pat(uint32_t tag, uint64_t off)
{
	return tag << 24 | (uint32_t)(off / 4 & 0xffffff);
}

static bool bo_new(int f, struct bo *b, uint64_t size, uint32_t tag)
{
	uint64_t got, i;
	void *p;

	memset(b, 0, sizeof(*b));
	if (bo_create(f, size, &b->h) || !(p = bo_mmap(f, b->h, &got)))
		return false;
	b->size = size;
	b->tag = tag;
	b->cpu = p;
	for (i = 0; i < size / 4; i++)
		b->cpu[i] = pat(tag, i * 4);
	return true;
}

static const char *err_name(int err)
{
	return err ? strerror(-err) : "success";
}

/* ---- jobs ---- */

/* The context is still usable; if a check made it fault, a new one. */
static void ctx_heal(int f, uint32_t *c)
{
	struct drm_tern_context_get_state st;

	if (!ctx_state(f, *c, &st) &&
	    (st.state == DRM_TERN_CONTEXT_ACTIVE || st.state == DRM_TERN_CONTEXT_RESET))
		return;
	tap_diag("context %u is in state %u (fault kind %u at %#llx): a new one", *c, st.state,
		 st.fault_kind, (unsigned long long)st.fault_addr);
	ctx_destroy(f, *c);
	ctx_create_on(f, 0, 0, c);
}

/*
 * Run @n dwords on *@c listing @bos, after syncobj @in (0: none), and wait:
 * 0, or the job's error (-EIO: it faulted), or -ETIME.
 */
static int run_job_in(int f, uint32_t *c, const uint32_t *dw, uint32_t n, const uint32_t *bos,
		      uint32_t nbos, uint32_t in)
{
	uint32_t so = syncobj_new(f);
	int ret = submit(f, *c, dw, n, bos, nbos, in, so, NULL);

	if (!ret)
		ret = syncobj_wait(f, so, 30000);
	if (!ret) {
		ret = core_fence_status(f, so);
		ret = ret == 1 ? 0 : ret < 0 ? ret : -EPROTO;
	}
	drmSyncobjDestroy(f, so);
	if (ret)
		ctx_heal(f, c);
	return ret;
}

/*
 * Copy [va, va + len) into the destination buffer @d (at @d_va) with a job
 * on *@c after @in, listing @bos; compare with @b's pattern from @off.  True
 * if bit-exact; else what went wrong in @why.
 */
static bool copy_cmp(int f, uint32_t *c, const struct bo *d, uint64_t d_va, uint64_t va,
		     uint64_t len, const struct bo *b, uint64_t off, const uint32_t *bos,
		     uint32_t nbos, uint32_t in, char *why, size_t wlen)
{
	uint32_t dw[8], n = 0;
	uint64_t i;
	int ret;

	for (i = 0; i < len / 4; i++)
		d->cpu[i] = 0xeeeeeeee;
	pkt_copy(dw, &n, va, d_va, (uint32_t)len);
	ret = run_job_in(f, c, dw, n, bos, nbos, in);
	if (ret) {
		snprintf(why, wlen, "the COPY job failed: %s", err_name(ret));
		return false;
	}
	for (i = 0; i < len / 4; i++)
		if (d->cpu[i] != pat(b->tag, off + i * 4)) {
			snprintf(why, wlen, "the word read at VA %#llx is %#010x, BO %#x has "
				 "%#010x at offset %#llx", (unsigned long long)(va + i * 4),
				 d->cpu[i], b->tag, pat(b->tag, off + i * 4),
				 (unsigned long long)(off + i * 4));
			return false;
		}
	snprintf(why, wlen, "bit-exact");
	return true;
}

/* Check [va, va + len) reads as @b's bytes from @off, through a COPY job. */
static bool copy_check(const char *what, uint64_t va, uint64_t len, const struct bo *b,
		       uint64_t off)
{
	uint32_t bos[] = { b->h, dst.h };
	char why[200];
	bool ok = copy_cmp(fd, &ctx, &dst, DST_VA, va, len, b, off, bos, 2, 0, why, sizeof(why));

	return tap_ok(ok, "%s: a COPY of %#llx..%#llx reads BO %#x from offset %#llx: %s", what,
		      (unsigned long long)va, (unsigned long long)(va + len),
		      b->tag, (unsigned long long)off, why);
}

/* A WRITE_IMM job at @va must land in @b at @off (which gets its pattern back). */
static bool write_check(const char *what, uint64_t va, const struct bo *b, uint64_t off)
{
	uint32_t dw[8], n = 0, bos[] = { b->h }, value = 0x5a000000 | (uint32_t)(va >> 12 & 0xffff);
	uint32_t got;
	int ret;

	pkt_write_imm(dw, &n, va, value);
	ret = run_job_in(fd, &ctx, dw, n, bos, 1, 0);
	got = b->cpu[off / 4];
	b->cpu[off / 4] = pat(b->tag, off);
	return tap_ok(!ret && got == value,
		      "%s: a write at %#llx lands in BO %#x at offset %#llx (%s, %#x there)",
		      what, (unsigned long long)va, b->tag, (unsigned long long)off,
		      err_name(ret), got);
}

/*
 * A job on a new context of file @f that reads (COPY of 4 bytes to page 4
 * of @d, mapped at DST_VA) or writes (WRITE_IMM) @va faults with @kind at
 * @va; nothing is read or written.  @b, @off: a BO word that must keep its
 * pattern (NULL: none).  The context is on engine 0, where the checks'
 * jobs ran: its TLB may have held the range's old translations.
 */
static bool fault_at(int f, const struct bo *d, uint64_t va, bool write, uint32_t kind,
		     const struct bo *b, uint64_t off, char *why, size_t wlen)
{
	struct drm_tern_context_get_state st;
	uint32_t dw[8], n = 0, c, so;
	int ret, status;

	if (ctx_create_on(f, 0, 0, &c)) {
		snprintf(why, wlen, "no context on engine 0");
		return false;
	}
	if (write)
		pkt_write_imm(dw, &n, va, 0xbadbad);
	else
		pkt_copy(dw, &n, va, DST_VA + 4 * P, 4);
	d->cpu[P] = 0xeeeeeeee;
	so = syncobj_new(f);
	ret = submit(f, c, dw, n, NULL, 0, 0, so, NULL);
	ret = ret ?: syncobj_wait(f, so, 30000);
	status = ret ? ret : core_fence_status(f, so);
	ret = ctx_state(f, c, &st);
	drmSyncobjDestroy(f, so);
	ctx_destroy(f, c);
	if (status >= 0 || ret || st.state != DRM_TERN_CONTEXT_FAULTED || st.fault_kind != kind ||
	    st.fault_addr != va) {
		snprintf(why, wlen, "the job ended with %s, its context in state %u, fault kind "
			 "%u at %#llx (want FAULTED, kind %u at %#llx)",
			 status == 1 ? "success" : err_name(status), st.state, st.fault_kind,
			 (unsigned long long)st.fault_addr, kind, (unsigned long long)va);
		return false;
	}
	if (!write && d->cpu[P] != 0xeeeeeeee) {
		snprintf(why, wlen, "the faulting COPY wrote %#x", d->cpu[P]);
		return false;
	}
	if (b && b->cpu[off / 4] != pat(b->tag, off)) {
		snprintf(why, wlen, "BO %#x changed at offset %#llx: %#x", b->tag,
			 (unsigned long long)off, b->cpu[off / 4]);
		b->cpu[off / 4] = pat(b->tag, off);
		return false;
	}
	snprintf(why, wlen, "%s fault at %#llx", kind == FAULT_NOT_PRESENT ? "NOT_PRESENT" :
		 "WRITE_PROTECT", (unsigned long long)va);
	return true;
}

static bool fault_check(const char *what, uint64_t va, bool write, uint32_t kind,
			const struct bo *b, uint64_t off)
{
	char why[256];
	bool ok = fault_at(fd, &dst, va, write, kind, b, off, why, sizeof(why));

	return tap_ok(ok, "%s: a job %s %#llx faults: %s", what, write ? "writing" : "reading",
		      (unsigned long long)va, why);
}

/* ---- binds ---- */

static int bind_ops(int f, struct drm_tern_vm_bind *ops, uint32_t count, uint32_t flags,
		    uint32_t in, uint32_t out, struct drm_tern_vm_bind_ops *res)
{
	struct drm_tern_sync i = { .handle = in }, o = { .handle = out };
	struct drm_tern_vm_bind_ops a = {
		.ops = (uintptr_t)ops,
		.count = count,
		.stride = sizeof(*ops),
		.flags = flags,
		.in_syncs = (uintptr_t)&i,
		.in_sync_count = in ? 1 : 0,
		.out_syncs = (uintptr_t)&o,
		.out_sync_count = out ? 1 : 0,
	};
	int ret = ioctl(f, DRM_IOCTL_TERN_VM_BIND_OPS, &a) ? -errno : 0;

	if (res)
		*res = a;
	return ret;
}

static struct drm_tern_vm_bind op_map(const struct bo *b, uint32_t flags, uint64_t va,
				      uint64_t off, uint64_t range)
{
	return (struct drm_tern_vm_bind){ .op = MAP, .flags = flags, .handle = b->h, .va = va,
					  .bo_offset = off, .range = range };
}

static struct drm_tern_vm_bind op_unmap(uint64_t va, uint64_t range)
{
	return (struct drm_tern_vm_bind){ .op = UNMAP, .va = va, .range = range };
}

/* An unmap that cuts the mappings crossing the ends of its range. */
static struct drm_tern_vm_bind op_cut(uint64_t va, uint64_t range)
{
	return (struct drm_tern_vm_bind){ .op = UNMAP, .flags = CUT, .va = va, .range = range };
}

static int bind1(int f, struct drm_tern_vm_bind op, uint32_t in, uint32_t out)
{
	return bind_ops(f, &op, 1, 0, in, out, NULL);
}

/* Status of the fence in @so once it signalled (at most 30 s): 1 or -errno. */
static int fence_result(int f, uint32_t so)
{
	int ret = syncobj_wait(f, so, 30000);

	return ret ? ret : core_fence_status(f, so);
}

static int vm_state(struct drm_tern_vm_get_state *st)
{
	memset(st, 0, sizeof(*st));
	return ioctl(fd, DRM_IOCTL_TERN_VM_GET_STATE, st) ? -errno : 0;
}

/* ---- debugfs "vms": this file's address space ---- */

struct vmmap {
	uint64_t start, end, bo_size, offset;
	bool ro;
};

#define VMMAPS_MAX	256

struct vmdump {
	long long mappings, pinned;
	int n;
	struct vmmap m[VMMAPS_MAX];
};

/*
 * The address space of this file: the one whose mappings include the
 * marker BO at MARK_VA.  False if debugfs has none.
 */
static bool vm_dump(struct vmdump *out)
{
	static struct vmdump cur;
	char path[512], line[512];
	bool in_vm = false, mine = false, found = false;
	FILE *f;

	if (!core_debugfs_path("vms", path, sizeof(path)) || !(f = fopen(path, "r")))
		return false;
	for (;;) {
		bool eof = !fgets(line, sizeof(line), f);
		unsigned long long s, e, size, a, b2, d2;
		char rw[8];

		if (eof || !strncmp(line, "vm ", 3)) {
			if (in_vm && mine) {
				*out = cur;
				found = true;
				break;
			}
			if (eof)
				break;
			memset(&cur, 0, sizeof(cur));
			cur.mappings = cur.pinned = -1;
			in_vm = true;
			mine = false;
			continue;
		}
		if (!in_vm)
			continue;
		if (sscanf(line, "  budget: %llu of %llu tables, %lld of %llu mappings, "
			   "%lld of %llu", &a, &b2, &cur.mappings, &d2, &cur.pinned, &s) == 6)
			continue;
		if (sscanf(line, " %llx-%llx %7s bo %llu bytes", &s, &e, rw, &size) == 4) {
			const char *o = strstr(line, "at offset ");

			if (s == MARK_VA && size == MARK_SIZE)
				mine = true;
			if (cur.n < VMMAPS_MAX)
				cur.m[cur.n++] = (struct vmmap){
					.start = s, .end = e, .bo_size = size,
					.offset = o ? strtoull(o + 10, NULL, 0) : ~0ull,
					.ro = !strcmp(rw, "ro"),
				};
		}
	}
	fclose(f);
	return found;
}

/* Pinned bytes of this address space, or -1. */
static long long pinned_bytes(void)
{
	struct vmdump d;

	return vm_dump(&d) ? d.pinned : -1;
}

/* Wait up to 3 s for the pinned bytes to be @want; the last value read. */
static long long pinned_wait(long long want)
{
	long long got = -1;
	int i;

	for (i = 0; i < 150 && (got = pinned_bytes()) != want; i++)
		usleep(20000);
	return got;
}

/*
 * Between the checks only the destination, gate and marker BOs are mapped:
 * wait for the pinned bytes to be theirs, and say so.  Returns them.
 */
static long long pinned_base(const char *what)
{
	long long want = (long long)(dst.size + gate.size + MARK_SIZE), got = pinned_wait(want);

	tap_ok(got == want, "%s: before, only the destination, gate and marker BOs are pinned "
	       "(%lld bytes, want %lld): nothing left pinned by the checks before", what, got,
	       want);
	return got;
}

struct want {
	uint64_t va, len;
	const struct bo *bo;
	uint64_t off;
	bool ro;
};

static void dump_window(uint64_t lo, uint64_t hi, const struct vmdump *d)
{
	int i;

	for (i = 0; i < d->n; i++)
		if (d->m[i].start < hi && d->m[i].end > lo)
			tap_diag("  debugfs: %#llx-%#llx %s bo of %llu bytes at offset %#llx",
				 (unsigned long long)d->m[i].start,
				 (unsigned long long)d->m[i].end, d->m[i].ro ? "ro" : "rw",
				 (unsigned long long)d->m[i].bo_size,
				 (unsigned long long)d->m[i].offset);
}

/*
 * debugfs lists exactly the mappings @w (in VA order) in [lo, hi): each
 * with its VA range, its BO (by size), BO offset and read-only flag.
 */
static bool layout_is(const char *what, uint64_t lo, uint64_t hi, const struct want *w, int n)
{
	struct vmdump *d = malloc(sizeof(*d));
	int i, k = 0, bad = -1;
	char why[200] = "";

	if (!d || !vm_dump(d)) {
		free(d);
		return tap_ok(false, "%s: debugfs \"vms\" shows this file's address space", what);
	}
	for (i = 0; i < d->n && bad < 0; i++) {
		const struct vmmap *m = &d->m[i];

		if (m->start >= hi || m->end <= lo)
			continue;
		if (k == n) {
			snprintf(why, sizeof(why), "an extra mapping %#llx-%#llx",
				 (unsigned long long)m->start, (unsigned long long)m->end);
			bad = k;
		} else if (m->start != w[k].va || m->end != w[k].va + w[k].len ||
			   m->bo_size != w[k].bo->size || m->offset != w[k].off ||
			   m->ro != w[k].ro) {
			snprintf(why, sizeof(why), "mapping %d is %#llx-%#llx %s bo of %llu bytes "
				 "at offset %#llx, want %#llx-%#llx %s bo of %llu bytes at offset "
				 "%#llx", k, (unsigned long long)m->start,
				 (unsigned long long)m->end, m->ro ? "ro" : "rw",
				 (unsigned long long)m->bo_size, (unsigned long long)m->offset,
				 (unsigned long long)w[k].va,
				 (unsigned long long)(w[k].va + w[k].len), w[k].ro ? "ro" : "rw",
				 (unsigned long long)w[k].bo->size, (unsigned long long)w[k].off);
			bad = k;
		} else {
			k++;
		}
	}
	if (bad < 0 && k != n) {
		snprintf(why, sizeof(why), "%d of the %d mappings expected", k, n);
		bad = k;
	}
	if (bad >= 0)
		dump_window(lo, hi, d);
	free(d);
	return tap_ok(bad < 0, "%s: debugfs lists %d mapping%s in %#llx..%#llx%s%s", what, n,
		      n == 1 ? "" : "s", (unsigned long long)lo, (unsigned long long)hi,
		      bad < 0 ? "" : ": ", why);
}

#define LAYOUT(what, lo, hi, ...)						\
	layout_is(what, lo, hi, (const struct want[]){ __VA_ARGS__ },		\
		  (int)(sizeof((const struct want[]){ __VA_ARGS__ }) / sizeof(struct want)))
#define LAYOUT_EMPTY(what, lo, hi)	layout_is(what, lo, hi, NULL, 0)

/* ---- memory of the file ---- */



/* ---- the checks ---- */

static uint64_t window(int n)
{
	return WIN + (uint64_t)n * WIN_STEP;
}

static void check_middle_cut(void)
{
	const uint64_t w = window(0);

	tap_errno(vm_map(fd, A.h, w, 0, 16 * P), 0, "middle: map A (16 pages)");
	copy_check("middle: A whole, the engine's TLB filled with it", w, 16 * P, &A, 0);
	tap_errno(vm_unmap(fd, w + 4 * P, 4 * P), -EINVAL,
		  "middle: unmap pages 4-7 without DRM_TERN_VM_BIND_CUT");
	LAYOUT("middle: refused", w, w + 64 * P, { w, 16 * P, &A, 0, false });
	copy_check("middle: A is still whole", w, 16 * P, &A, 0);
	tap_errno(vm_unmap_cut(fd, w + 4 * P, 4 * P), 0,
		  "middle: unmap pages 4-7 with DRM_TERN_VM_BIND_CUT");
	LAYOUT("middle", w, w + 64 * P, { w, 4 * P, &A, 0, false },
	       { w + 8 * P, 8 * P, &A, 8 * P, false });
	copy_check("middle: the head", w, 4 * P, &A, 0);
	copy_check("middle: the tail", w + 8 * P, 8 * P, &A, 8 * P);
	copy_check("middle: the last word before the hole", w + 4 * P - 4, 4, &A, 4 * P - 4);
	write_check("middle: head", w + 3 * P + 8, &A, 3 * P + 8);
	write_check("middle: the last word of the head", w + 4 * P - 4, &A, 4 * P - 4);
	write_check("middle: the first word of the tail", w + 8 * P, &A, 8 * P);
	write_check("middle: tail", w + 15 * P + 4092, &A, 15 * P + 4092);
	fault_check("middle: the hole's first page", w + 4 * P, true, FAULT_NOT_PRESENT, &A, 4 * P);
	fault_check("middle: the hole's last word", w + 8 * P - 4, false, FAULT_NOT_PRESENT,
		    NULL, 0);
	fault_check("middle: the hole", w + 6 * P + 8, true, FAULT_NOT_PRESENT, &A, 6 * P + 8);
	copy_check("middle: A is intact", w, 4 * P, &A, 0);
	tap_errno(vm_unmap_cut(fd, w + 4 * P, 4 * P), -ENOENT,
		  "middle: the hole unmaps with ENOENT, with DRM_TERN_VM_BIND_CUT too");
	tap_errno(vm_unmap(fd, w, 16 * P), 0, "middle: one unmap removes both pieces");
	LAYOUT_EMPTY("middle: nothing left", w, w + 64 * P);
}

static void check_edges(void)
{
	const uint64_t w = window(1);
	int i;

	tap_errno(vm_map(fd, A.h, w, 0, 16 * P), 0, "edges: map A");
	copy_check("edges: A whole", w, 16 * P, &A, 0);
	tap_errno(vm_unmap_cut(fd, w, P), 0, "edges: unmap the first page only");
	LAYOUT("edges: first page", w - 16 * P, w + 32 * P, { w + P, 15 * P, &A, P, false });
	fault_check("edges: the first page", w, false, FAULT_NOT_PRESENT, NULL, 0);
	copy_check("edges: the rest", w + P, 15 * P, &A, P);
	write_check("edges: the new first page", w + P, &A, P);

	tap_errno(vm_unmap_cut(fd, w + 12 * P, 4 * P), 0, "edges: unmap the tail only (4 pages)");
	LAYOUT("edges: tail", w - 16 * P, w + 32 * P, { w + P, 11 * P, &A, P, false });
	fault_check("edges: the tail's first page", w + 12 * P, true, FAULT_NOT_PRESENT, &A,
		    12 * P);
	fault_check("edges: the tail's last word", w + 16 * P - 4, false, FAULT_NOT_PRESENT,
		    NULL, 0);
	copy_check("edges: what is left", w + P, 11 * P, &A, P);

	tap_errno(vm_unmap_cut(fd, w + 11 * P, 10 * P), 0,
		  "edges: unmap the last page and free pages after it");
	tap_errno(vm_unmap_cut(fd, w - 4 * P, 6 * P), 0,
		  "edges: unmap free pages and the first page");
	LAYOUT("edges: both ends", w - 16 * P, w + 32 * P, { w + 2 * P, 9 * P, &A, 2 * P, false });
	copy_check("edges: pages 2-10", w + 2 * P, 9 * P, &A, 2 * P);

	tap_errno(vm_unmap_cut(fd, w + 3 * P, P), 0, "edges: unmap one page, the second of the piece");
	LAYOUT("edges: one-page hole", w - 16 * P, w + 32 * P,
	       { w + 2 * P, P, &A, 2 * P, false }, { w + 4 * P, 7 * P, &A, 4 * P, false });
	fault_check("edges: the one-page hole", w + 3 * P + 2048, false, FAULT_NOT_PRESENT,
		    NULL, 0);
	copy_check("edges: the one-page piece", w + 2 * P, P, &A, 2 * P);
	copy_check("edges: the piece after the hole", w + 4 * P, 7 * P, &A, 4 * P);
	tap_errno(vm_unmap(fd, w, 16 * P), 0, "edges: unmap the rest");

	/* eight pieces of one page */
	tap_errno(vm_map(fd, A.h, w, 0, 16 * P), 0, "edges: map A again");
	for (i = 1; i < 16; i += 2)
		if (vm_unmap_cut(fd, w + i * P, P))
			break;
	tap_ok(i >= 16, "edges: unmap every other page (stopped at page %d)", i);
	LAYOUT("edges: eight pieces", w, w + 16 * P, { w, P, &A, 0, false },
	       { w + 2 * P, P, &A, 2 * P, false }, { w + 4 * P, P, &A, 4 * P, false },
	       { w + 6 * P, P, &A, 6 * P, false }, { w + 8 * P, P, &A, 8 * P, false },
	       { w + 10 * P, P, &A, 10 * P, false }, { w + 12 * P, P, &A, 12 * P, false },
	       { w + 14 * P, P, &A, 14 * P, false });
	for (i = 0; i < 16; i += 2) {
		char what[64];

		snprintf(what, sizeof(what), "edges: piece %d", i / 2);
		copy_check(what, w + i * P, P, &A, i * P);
	}
	fault_check("edges: between pieces", w + 9 * P, true, FAULT_NOT_PRESENT, &A, 9 * P);
	tap_errno(vm_unmap(fd, w + P, 13 * P), 0,
		  "edges: one unmap removes the six pieces inside and cuts none");
	LAYOUT("edges: two pieces left", w, w + 16 * P, { w, P, &A, 0, false },
	       { w + 14 * P, P, &A, 14 * P, false });
	tap_errno(vm_unmap(fd, w, 16 * P), 0, "edges: and one more the last two");
	LAYOUT_EMPTY("edges: nothing left", w, w + 16 * P);
}

static void check_two_mappings(void)
{
	const uint64_t w = window(2);

	tap_errno(vm_map(fd, A.h, w, 0, 16 * P), 0, "two: map A (16 pages)");
	tap_errno(vm_map(fd, B.h, w + 16 * P, 0, 8 * P), 0, "two: map B (8 pages) right after");
	copy_check("two: A", w, 16 * P, &A, 0);
	copy_check("two: B", w + 16 * P, 8 * P, &B, 0);
	tap_errno(vm_unmap_cut(fd, w + 12 * P, 8 * P), 0,
		  "two: unmap A's last 4 pages and B's first 4");
	LAYOUT("two", w, w + 64 * P, { w, 12 * P, &A, 0, false },
	       { w + 20 * P, 4 * P, &B, 4 * P, false });
	copy_check("two: A's piece", w, 12 * P, &A, 0);
	copy_check("two: B's piece", w + 20 * P, 4 * P, &B, 4 * P);
	write_check("two: A's last word", w + 12 * P - 4, &A, 12 * P - 4);
	write_check("two: B's first word", w + 20 * P, &B, 4 * P);
	fault_check("two: A's cut part", w + 12 * P, false, FAULT_NOT_PRESENT, NULL, 0);
	fault_check("two: B's cut part", w + 19 * P + 4, true, FAULT_NOT_PRESENT, &B, 3 * P + 4);
	tap_errno(vm_unmap(fd, w, 24 * P), 0, "two: unmap both pieces");
}

static void check_whole_and_parts(void)
{
	const uint64_t w = window(3);
	long long pinned0, pinned1;

	pinned0 = pinned_base("parts");
	tap_errno(vm_map(fd, A.h, w, 0, 8 * P), 0, "parts: map A's first 8 pages");
	tap_errno(vm_map(fd, B.h, w + 8 * P, 0, 8 * P), 0, "parts: map B whole after it");
	tap_errno(vm_bind(fd, MAP, RO, C.h, w + 16 * P, 0, 4 * P), 0,
		  "parts: map C whole, read-only, after it");
	copy_check("parts: A", w, 8 * P, &A, 0);
	copy_check("parts: B", w + 8 * P, 8 * P, &B, 0);
	copy_check("parts: C", w + 16 * P, 4 * P, &C, 0);
	tap_errno(vm_unmap_cut(fd, w + 6 * P, 12 * P), 0,
		  "parts: unmap A's last 2 pages, B whole and C's first 2");
	LAYOUT("parts", w, w + 64 * P, { w, 6 * P, &A, 0, false },
	       { w + 18 * P, 2 * P, &C, 2 * P, true });
	copy_check("parts: A's piece", w, 6 * P, &A, 0);
	copy_check("parts: C's read-only piece", w + 18 * P, 2 * P, &C, 2 * P);
	fault_check("parts: C's piece stays read-only", w + 18 * P + 8, true, FAULT_WRITE_PROTECT,
		    &C, 2 * P + 8);
	fault_check("parts: A's cut part", w + 6 * P, true, FAULT_NOT_PRESENT, &A, 6 * P);
	fault_check("parts: B's range", w + 12 * P, false, FAULT_NOT_PRESENT, NULL, 0);
	fault_check("parts: C's cut part", w + 18 * P - 4, false, FAULT_NOT_PRESENT, NULL, 0);
	pinned1 = pinned_wait(pinned0 + (long long)(A.size + C.size));
	tap_ok(pinned0 >= 0 && pinned1 == pinned0 + (long long)(A.size + C.size),
	       "parts: B, no longer mapped, gives its pins back; A and C count whole (%lld, "
	       "then %lld pinned bytes)", pinned0, pinned1);
	tap_errno(vm_unmap(fd, w, 20 * P), 0, "parts: unmap the two pieces");
	pinned1 = pinned_wait(pinned0);
	tap_ok(pinned1 == pinned0, "parts: A and C give their pins back (%lld pinned bytes)",
	       pinned1);
}

/* Pieces unmapped one by one; the BO's pins, its memory, GEM close. */
static void check_release(void)
{
	const uint64_t w = window(4), size = 32ull << 20, mb = 1ull << 20;
	long long pinned0, pinned, total0, total;
	long sys0, sys1, sys2;
	struct bo e;
	char what[96], why[200];
	int i, order[] = { 2, 0, 3, 1 };
	bool ok;
	const struct want pieces[] = {
		{ w, 4 * mb, &e, 0, false }, { w + 8 * mb, 8 * mb, &e, 8 * mb, false },
		{ w + 20 * mb, 8 * mb, &e, 20 * mb, false },
		{ w + 30 * mb, 2 * mb, &e, 30 * mb, false },
	};
	bool gone[4] = { false };

	pinned0 = pinned_base("release");
	total0 = fdinfo_bytes(fd, "total");
	sys0 = tern_system_quiet_kb();
	if (!tap_ok(bo_new(fd, &e, size, 0xe1), "release: a 32 MiB BO E, filled from the CPU"))
		return;
	tap_errno(vm_map(fd, e.h, w, 0, size), 0, "release: map E whole");
	tap_ok(vm_unmap_cut(fd, w + 4 * mb, 4 * mb) == 0 && vm_unmap_cut(fd, w + 16 * mb, 4 * mb) == 0 &&
	       vm_unmap_cut(fd, w + 28 * mb, 2 * mb) == 0, "release: three unmaps cut it in four");
	layout_is("release: four pieces", w, w + size, pieces, 4);
	copy_check("release: the second piece's first pages", w + 8 * mb, DST_PAGES * P, &e,
		   8 * mb);
	copy_check("release: the third piece's last pages", w + 28 * mb - DST_PAGES * P,
		   DST_PAGES * P, &e, 28 * mb - DST_PAGES * P);
	write_check("release: the last piece", w + 31 * mb + 12, &e, 31 * mb + 12);
	munmap((void *)e.cpu, size);
	pinned = pinned_bytes();
	tap_ok(pinned == pinned0 + (long long)size,
	       "release: E counts once, whole, in the pinned bytes (%lld, %lld before)", pinned,
	       pinned0);
	for (i = 0; i < 4; i++) {
		const struct want *p = &pieces[order[i]];
		struct want left[4];
		int k, n = 0;

		snprintf(what, sizeof(what), "release: unmap piece %d (%#llx)", order[i],
			 (unsigned long long)p->va);
		tap_errno(vm_unmap(fd, p->va, p->len), 0, what);
		gone[order[i]] = true;
		for (k = 0; k < 4; k++)
			if (!gone[k])
				left[n++] = pieces[k];
		snprintf(what, sizeof(what), "release: %d pieces left", n);
		layout_is(what, w, w + size, left, n);
		if (i < 3) {
			pinned = pinned_bytes();
			tap_ok(pinned == pinned0 + (long long)size,
			       "release: E stays pinned whole while a piece is mapped (%lld)",
			       pinned);
		}
	}
	pinned = pinned_wait(pinned0);
	tap_ok(pinned == pinned0, "release: the last piece gives E's pins back (%lld, %lld before)",
	       pinned, pinned0);
	/* unmapped from the CPU and the device, E keeps its pages until it is freed */
	sys1 = tern_system_kb();
	tap_errno(bo_close(fd, e.h), 0, "release: GEM close of E");
	total = fdinfo_bytes(fd, "total");
	tap_ok(total == total0, "release: drm-total-memory as before E (%lld, %lld before)", total,
	       total0);
	sys2 = tern_system_settled_kb(sys0);
	tap_ok(sys0 >= 0 && sys1 >= sys0 + (long)(size >> 10) && sys2 >= 0 && sys2 <= sys0,
	       "release: E's 32 MiB stay allocated until its GEM close and come back with it "
	       "(BO system memory %ld kB before the close, %ld kB after, %ld kB before E)", sys1,
	       sys2, sys0);

	/* the handle closed while pieces are mapped: freed with the last piece */
	sys0 = tern_system_quiet_kb();
	if (!tap_ok(bo_new(fd, &e, size / 2, 0xe2), "release: a 16 MiB BO F"))
		return;
	munmap((void *)e.cpu, size / 2);
	tap_errno(vm_map(fd, e.h, w, 0, size / 2), 0, "release: map F whole");
	tap_errno(vm_unmap_cut(fd, w + 4 * mb, 4 * mb), 0, "release: cut F in two");
	tap_errno(bo_close(fd, e.h), 0, "release: GEM close of F while its pieces are mapped");
	/* its handle is gone: the jobs list only the destination */
	ok = copy_cmp(fd, &ctx, &dst, DST_VA, w + 8 * mb, DST_PAGES * P, &e, 8 * mb, &dst.h, 1,
		      0, why, sizeof(why));
	tap_ok(ok, "release: F's tail still reads F: %s", why);
	tap_errno(vm_unmap(fd, w + 8 * mb, 8 * mb), 0, "release: unmap F's tail");
	sys1 = tern_system_kb();
	ok = copy_cmp(fd, &ctx, &dst, DST_VA, w + 4 * mb - P, P, &e, 4 * mb - P, &dst.h, 1, 0,
		      why, sizeof(why));
	tap_ok(ok, "release: F's head still reads F: %s", why);
	tap_ok(sys0 >= 0 && sys1 >= sys0 + (long)((size / 2) >> 10),
	       "release: F's memory is all still there with a piece mapped (BO system memory "
	       "%ld kB, %ld kB before F)", sys1, sys0);
	tap_errno(vm_unmap(fd, w, 4 * mb), 0, "release: unmap F's head, the last piece");
	sys2 = tern_system_settled_kb(sys0);
	tap_ok(sys0 >= 0 && sys2 >= 0 && sys2 <= sys0,
	       "release: F is freed with its last piece (BO system memory %ld kB, %ld kB before "
	       "F)", sys2, sys0);
	pinned = pinned_wait(pinned0);
	tap_ok(pinned == pinned0, "release: and its pins are back (%lld)", pinned);
	tap_ok(fdinfo_bytes(fd, "total") == total0, "release: drm-total-memory as before");
	LAYOUT_EMPTY("release: nothing left", w, w + size);
}

static void check_replace(void)
{
	const uint64_t w = window(5), e = window(5) + 64 * P;
	struct drm_tern_vm_bind op;
	struct drm_tern_vm_bind_ops res;
	long long pinned0 = pinned_base("replace"), pinned;
	int err;

	tap_errno(vm_map(fd, A.h, w, 0, 16 * P), 0, "replace: map A (16 pages)");
	tap_errno(vm_bind(fd, MAP, REPLACE, B.h, w + 4 * P, 2 * P, 4 * P), 0,
		  "replace: REPLACE map of B (offset 2 pages) over pages 4-7");
	LAYOUT("replace: B in the middle of A", w, w + 64 * P, { w, 4 * P, &A, 0, false },
	       { w + 4 * P, 4 * P, &B, 2 * P, false }, { w + 8 * P, 8 * P, &A, 8 * P, false });
	copy_check("replace: A's head", w, 4 * P, &A, 0);
	copy_check("replace: B's range", w + 4 * P, 4 * P, &B, 2 * P);
	copy_check("replace: A's tail", w + 8 * P, 8 * P, &A, 8 * P);
	write_check("replace: B's range", w + 5 * P + 12, &B, 3 * P + 12);
	tap_ok(A.cpu[(5 * P + 12) / 4] == pat(A.tag, 5 * P + 12),
	       "replace: A's page under it is untouched");

	/* refusals change nothing */
	tap_errno(vm_map(fd, C.h, w + 5 * P, 0, P), -EEXIST,
		  "replace: the same kind of map without REPLACE");
	tap_errno(vm_bind(fd, MAP, REPLACE, 0xbad, w + 4 * P, 0, 4 * P), -ENOENT,
		  "replace: REPLACE with no such BO");
	tap_errno(vm_bind(fd, MAP, REPLACE, C.h, w + 4 * P, 2 * P, 4 * P), -EINVAL,
		  "replace: REPLACE of a range past its BO");
	tap_errno(vm_bind(fd, MAP, REPLACE | CUT, C.h, w + 4 * P, 0, 4 * P), -EINVAL,
		  "replace: REPLACE with DRM_TERN_VM_BIND_CUT (a map's REPLACE always cuts)");
	tap_errno(vm_bind(fd, MAP, REPLACE | 1u << 3, C.h, w + 4 * P, 0, 4 * P), -EINVAL,
		  "replace: REPLACE with an unknown flag");
	tap_errno(vm_bind(fd, MAP, REPLACE, C.h, w + 4 * P + 2048, 0, 2 * P), -EINVAL,
		  "replace: REPLACE at a misaligned VA");
	tap_errno(vm_bind(fd, MAP, REPLACE, C.h, (1ull << 48) - P, 0, 2 * P), -ERANGE,
		  "replace: REPLACE crossing 2^48");
	tap_errno(vm_bind(fd, UNMAP, REPLACE, 0, w + 4 * P, 0, 4 * P), -EINVAL,
		  "replace: REPLACE on an unmap (VM_BIND)");
	op = op_unmap(w + 4 * P, 4 * P);
	op.flags = REPLACE;
	err = bind_ops(fd, &op, 1, 0, 0, 0, &res);
	tap_ok(err == -EINVAL && res.error_index == 0 && res.seqno == 0,
	       "replace: REPLACE on an unmap (VM_BIND_OPS): %s, index %u, seqno %llu",
	       err_name(err), res.error_index, (unsigned long long)res.seqno);
	LAYOUT("replace: after the refusals", w, w + 64 * P, { w, 4 * P, &A, 0, false },
	       { w + 4 * P, 4 * P, &B, 2 * P, false }, { w + 8 * P, 8 * P, &A, 8 * P, false });
	copy_check("replace: after the refusals, B's range", w + 4 * P, 4 * P, &B, 2 * P);
	copy_check("replace: after the refusals, A", w, 4 * P, &A, 0);

	/* exactly one mapping */
	tap_errno(vm_bind(fd, MAP, REPLACE, C.h, w + 4 * P, 0, 4 * P), 0,
		  "replace: REPLACE map of C over exactly B's mapping");
	LAYOUT("replace: C for B", w, w + 64 * P, { w, 4 * P, &A, 0, false },
	       { w + 4 * P, 4 * P, &C, 0, false }, { w + 8 * P, 8 * P, &A, 8 * P, false });
	copy_check("replace: C's range", w + 4 * P, 4 * P, &C, 0);

	/* an empty range */
	tap_errno(vm_bind(fd, MAP, REPLACE, B.h, e, 0, 8 * P), 0,
		  "replace: REPLACE map of B over an empty range");
	LAYOUT("replace: over nothing", e, e + 64 * P, { e, 8 * P, &B, 0, false });
	copy_check("replace: B there", e, 8 * P, &B, 0);

	/* parts of two and a whole one */
	tap_errno(vm_bind(fd, MAP, REPLACE, B.h, w + 2 * P, 0, 8 * P), 0,
		  "replace: REPLACE map of B over pages 2-9: A's end, C whole, A's start");
	LAYOUT("replace: over three", w, w + 64 * P, { w, 2 * P, &A, 0, false },
	       { w + 2 * P, 8 * P, &B, 0, false }, { w + 10 * P, 6 * P, &A, 10 * P, false });
	copy_check("replace: B over three", w + 2 * P, 8 * P, &B, 0);
	copy_check("replace: A's head left", w, 2 * P, &A, 0);
	copy_check("replace: A's tail left", w + 10 * P, 6 * P, &A, 10 * P);
	write_check("replace: where C was, B", w + 4 * P + 8, &B, 2 * P + 8);

	/* read-only, and A over A */
	tap_errno(vm_bind(fd, MAP, REPLACE | RO, C.h, w + 12 * P, P, 2 * P), 0,
		  "replace: a read-only REPLACE map of C over pages 12-13");
	LAYOUT("replace: read-only", w + 10 * P, w + 16 * P,
	       { w + 10 * P, 2 * P, &A, 10 * P, false }, { w + 12 * P, 2 * P, &C, P, true },
	       { w + 14 * P, 2 * P, &A, 14 * P, false });
	copy_check("replace: C read-only", w + 12 * P, 2 * P, &C, P);
	fault_check("replace: the read-only range", w + 13 * P, true, FAULT_WRITE_PROTECT, &C,
		    2 * P);
	write_check("replace: the page after it is A's, read-write", w + 14 * P + 4, &A,
		    14 * P + 4);
	tap_errno(vm_bind(fd, MAP, REPLACE, A.h, w + 10 * P, 0, 2 * P), 0,
		  "replace: REPLACE map of A's first pages over A's pages 10-11");
	LAYOUT("replace: A over A", w + 10 * P, w + 12 * P, { w + 10 * P, 2 * P, &A, 0, false });
	copy_check("replace: A over A", w + 10 * P, 2 * P, &A, 0);

	tap_errno(vm_unmap(fd, w, 64 * P + 8 * P), 0, "replace: unmap everything");
	LAYOUT_EMPTY("replace: nothing left", w, w + 128 * P);
	pinned = pinned_wait(pinned0);
	tap_ok(pinned == pinned0, "replace: every pin is back (%lld, %lld before)", pinned,
	       pinned0);
}

/*
 * A job that does not list the BOs copies the range page by page while a
 * REPLACE of it runs: no page faults, each is A's or B's, B's after the fence.
 */
static void check_replace_atomic(void)
{
	const uint64_t w = window(6);
	const int before = 40, after = 8;
	uint32_t dw[8 * (40 + 8) + 16], n = 0, job = syncobj_new(fd), bind = syncobj_new(fd);
	uint32_t bos[] = { dst.h, gate.h };
	volatile uint32_t *word = &gate.cpu[16];
	int i, a = 0, b = 0, other = 0, late_a = 0, err, r;
	char why[160] = "";

	tap_errno(vm_map(fd, A.h, w, 0, 4 * P), 0, "atomic: map A's first 4 pages");
	*word = 0;
	for (i = 0; i < before; i++) {
		pkt_copy(dw, &n, w + 2 * P, DST_VA + i * P, P);
		pkt_spin(dw, &n, 2000);
	}
	pkt_wait_mem(dw, &n, GATE_VA + 64, 1, TERN_WAIT_TIMEOUT_MAX_US);
	for (i = before; i < before + after; i++)
		pkt_copy(dw, &n, w + 2 * P, DST_VA + i * P, P);
	for (i = 0; i < (before + after) * (int)(P / 4); i++)
		dst.cpu[i] = 0xeeeeeeee;
	err = submit(fd, ctx2, dw, n, bos, 2, 0, job, NULL);
	for (i = 0; !err && i < 2000 && dst.cpu[0] == 0xeeeeeeee; i++)
		usleep(1000);
	tap_ok(!err && dst.cpu[0] != 0xeeeeeeee,
	       "atomic: a job copies page 2 again and again, not listing A or B (%s)",
	       err_name(err));
	err = bind1(fd, op_map(&B, REPLACE, w + P, 0, 2 * P), 0, bind);
	r = err ? err : fence_result(fd, bind);
	tap_ok(r == 1, "atomic: a REPLACE map of B over pages 1-2 meanwhile, queued: %s",
	       r == 1 ? "done" : err_name(r));
	*word = 1;
	r = fence_result(fd, job);
	for (i = 0; i < before + after; i++) {
		bool is_a = dst.cpu[i * P / 4] == pat(A.tag, 2 * P);
		bool is_b = dst.cpu[i * P / 4] == pat(B.tag, P);
		uint64_t k, base = is_a ? 2 * P : P;
		uint32_t tag = is_a ? A.tag : B.tag;

		for (k = 0; (is_a || is_b) && k < P / 4; k++)
			if (dst.cpu[i * P / 4 + k] != pat(tag, base + k * 4)) {
				is_a = is_b = false;
				break;
			}
		a += is_a;
		b += is_b;
		late_a += is_a && i >= before;
		if (!is_a && !is_b && !other++)
			snprintf(why, sizeof(why), "; copy %d has %#x at word %llu", i,
				 dst.cpu[i * P / 4 + k], (unsigned long long)k);
	}
	tap_ok(r == 1 && !other, "atomic: the job never faulted, each copy is A's page 2 or B's "
	       "page 1, whole (%s: %d A, %d B, %d neither%s)", r == 1 ? "done" : err_name(r), a, b,
	       other, why);
	tap_ok(r == 1 && !late_a && b >= after,
	       "atomic: the copies after the bind's fence are all B's (%d A among them)", late_a);
	LAYOUT("atomic", w, w + 4 * P, { w, P, &A, 0, false }, { w + P, 2 * P, &B, 0, false },
	       { w + 3 * P, P, &A, 3 * P, false });
	tap_errno(vm_unmap(fd, w, 4 * P), 0, "atomic: unmap");
	drmSyncobjDestroy(fd, job);
	drmSyncobjDestroy(fd, bind);
}

/*
 * A job on a new context (in *@c) that waits for u32 @index of the gate BO
 * to be 1, then faults: its out-syncobj, which then signals with -EIO.
 */
static uint32_t failing_gate(int index, uint32_t *c)
{
	uint32_t dw[16], n = 0, so = syncobj_new(fd), bos[] = { gate.h };

	gate.cpu[index] = 0;
	if (ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0, c))
		tap_diag("failing gate: no context");
	pkt_wait_mem(dw, &n, GATE_VA + index * 4, 1, TERN_WAIT_TIMEOUT_MAX_US);
	pkt_write_imm(dw, &n, BAD_VA, 1);
	if (submit(fd, *c, dw, n, bos, 1, 0, so, NULL))
		tap_diag("failing gate: submit failed");
	return so;
}

/* Asynchronous REPLACE and cut: behind a gate that opens, and one that fails. */
static void check_async(void)
{
	const uint64_t w = window(7);
	struct drm_tern_vm_get_state st0, st;
	uint32_t s1 = syncobj_new(fd), s2 = syncobj_new(fd), sj = syncobj_new(fd), bad, g, c = 0;
	uint32_t dw[16], n = 0, bos[] = { gate.h }, rbos[] = { A.h, B.h, dst.h };
	char why[200];
	int round, err, r1, r2;
	bool ok;

	tap_errno(vm_map(fd, A.h, w, 0, 16 * P), 0, "async: map A (16 pages)");

	/* behind a gate that opens: a job waits for the REPLACE */
	gate.cpu[20] = 0;
	g = syncobj_new(fd);
	pkt_wait_mem(dw, &n, GATE_VA + 80, 1, TERN_WAIT_TIMEOUT_MAX_US);
	err = submit(fd, ctx2, dw, n, bos, 1, 0, g, NULL);
	err = err ?: bind1(fd, op_map(&B, REPLACE, w + 4 * P, 0, 4 * P), g, s1);
	tap_ok(!err, "async: a REPLACE map of B over pages 4-7, behind a closed gate, is queued "
	       "(%s)", err_name(err));
	dst.cpu[0] = 0xeeeeeeee;
	n = 0;
	pkt_copy(dw, &n, w + 4 * P, DST_VA, 4);
	err = submit(fd, ctx, dw, n, rbos, 3, s1, sj, NULL);
	usleep(200000);
	r1 = syncobj_wait(fd, s1, 0);
	r2 = syncobj_wait(fd, sj, 0);
	tap_ok(!err && r1 == -ETIME && r2 == -ETIME && dst.cpu[0] == 0xeeeeeeee,
	       "async: a job reading the range waits for the bind's out-syncobj, which waits "
	       "for the gate (%s, %s, %s)", err_name(err), err_name(r1), err_name(r2));
	gate.cpu[20] = 1;
	r1 = fence_result(fd, s1);
	r2 = fence_result(fd, sj);
	tap_ok(r1 == 1 && r2 == 1 && dst.cpu[0] == pat(B.tag, 0),
	       "async: the gate opens: the bind, then the job, which read B's first word (%d, %d, "
	       "%#x)", r1, r2, dst.cpu[0]);
	LAYOUT("async: REPLACE done", w, w + 16 * P, { w, 4 * P, &A, 0, false },
	       { w + 4 * P, 4 * P, &B, 0, false },
	       { w + 8 * P, 8 * P, &A, 8 * P, false });
	tap_errno(vm_bind(fd, MAP, REPLACE, A.h, w + 4 * P, 4 * P, 4 * P), 0,
		  "async: REPLACE map of A's pages 4-7 over B");
	copy_check("async: A in three mappings reads as A whole", w, 16 * P, &A, 0);
	tap_ok(vm_unmap(fd, w, 16 * P) == 0 && vm_map(fd, A.h, w, 0, 16 * P) == 0,
	       "async: map A whole again");
	drmSyncobjDestroy(fd, g);

	/* behind a gate that fails: round 0 a REPLACE, round 1 a cut */
	for (round = 0; round < 2; round++) {
		const char *kind = round ? "a cut" : "a REPLACE";
		struct drm_tern_vm_bind first = round ? op_cut(w + 6 * P, 2 * P)
						      : op_map(&B, REPLACE, w + 4 * P, 0, 4 * P);
		struct drm_tern_vm_bind next[2] = {
			round ? op_map(&C, REPLACE, w + 12 * P, 0, 2 * P)
			      : op_cut(w + 10 * P, 2 * P),
			op_cut(w, P),
		};

		vm_state(&st0);
		bad = failing_gate(21 + round, &c);
		err = bind1(fd, first, bad, s1);
		err = err ?: bind_ops(fd, next, 2, 0, 0, s2, NULL);
		tap_ok(!err, "async: %s behind a gate that will fail, and a REPLACE and cuts "
		       "behind it, are queued (%s)", kind, err_name(err));
		usleep(100000);
		r1 = syncobj_wait(fd, s1, 0);
		tap_ok(r1 == -ETIME, "async: %s waits for the gate (%s)", kind, err_name(r1));
		gate.cpu[21 + round] = 1;
		r1 = fence_result(fd, s1);
		r2 = fence_result(fd, s2);
		tap_ok(r1 == -EIO && r2 == -ECANCELED,
		       "async: %s fails with the gate's error, the bind after it is cancelled (%s, "
		       "%s)", kind, err_name(r1), err_name(r2));
		err = vm_state(&st);
		tap_ok(!err && !st.error && st.bind_error == -EIO &&
		       st.binds_failed == st0.binds_failed + 1 &&
		       st.binds_cancelled == st0.binds_cancelled + 1 && st.mapped == st0.mapped,
		       "async: VM_GET_STATE: error %d, %llu failed, %llu cancelled, %llu bytes "
		       "mapped (%llu before)", st.bind_error, (unsigned long long)st.binds_failed,
		       (unsigned long long)st.binds_cancelled, (unsigned long long)st.mapped,
		       (unsigned long long)st0.mapped);
		LAYOUT(round ? "async: after the failed cut" : "async: after the failed REPLACE",
		       w, w + 16 * P, { w, 16 * P, &A, 0, false });
		ok = copy_cmp(fd, &ctx, &dst, DST_VA, w, 16 * P, &A, 0, rbos, 3, 0, why,
			      sizeof(why));
		tap_ok(ok, "async: after the failed %s, A is whole and readable: %s",
		       round ? "cut" : "REPLACE", why);
		write_check("async: and writable where it would have gone", w + 6 * P + 4, &A,
			    6 * P + 4);
		ctx_destroy(fd, c);
		drmSyncobjDestroy(fd, bad);
	}
	/* later binds are taken as usual */
	err = bind1(fd, op_cut(w + 6 * P, 2 * P), 0, s1);
	r1 = err ? err : fence_result(fd, s1);
	tap_ok(r1 == 1, "async: then an asynchronous cut works (%d)", r1);
	LAYOUT("async: cut", w, w + 16 * P, { w, 6 * P, &A, 0, false },
	       { w + 8 * P, 8 * P, &A, 8 * P, false });
	tap_errno(vm_unmap(fd, w, 16 * P), 0, "async: unmap");
	drmSyncobjDestroy(fd, s1);
	drmSyncobjDestroy(fd, s2);
	drmSyncobjDestroy(fd, sj);
}

struct opener {
	volatile uint32_t *word;
	int ms;
};

static void *open_later(void *p)
{
	struct opener *o = p;

	usleep(o->ms * 1000);
	__sync_synchronize();
	*o->word = 1;
	return NULL;
}

/* A bind that cuts waits for the job reading the other part and listing the BO. */
static void check_waits_for_users(void)
{
	const uint64_t w = window(8);
	uint32_t sj = syncobj_new(fd), sb = syncobj_new(fd), dw[16], n;
	uint32_t bos[] = { A.h, gate.h, dst.h };
	uint64_t tj = 0, tb = 0;
	int i, r1, r2, err, st;
	struct opener o;
	pthread_t t;
	int64_t t0, t1;

	for (i = 0; i < 3; i++) {
		const char *what = i == 0 ? "an asynchronous cut" :
				   i == 1 ? "an asynchronous REPLACE" : "VM_BIND's cut";
		uint64_t head = i == 1 ? 2 * P : 4 * P;
		volatile uint32_t *word = &gate.cpu[24 + i];

		tap_errno(vm_map(fd, A.h, w, 0, 16 * P), 0, "users: map A (16 pages)");
		*word = 0;
		for (n = 0; n < head / 4; n++)
			dst.cpu[n] = 0xeeeeeeee;
		n = 0;
		pkt_wait_mem(dw, &n, GATE_VA + (24 + i) * 4, 1, TERN_WAIT_TIMEOUT_MAX_US);
		pkt_copy(dw, &n, w, DST_VA, (uint32_t)head);
		err = submit(fd, ctx2, dw, n, bos, 3, 0, sj, NULL);
		if (i < 2) {
			struct drm_tern_vm_bind op =
				i == 0 ? op_cut(w + 8 * P, 8 * P)
				       : op_map(&B, REPLACE, w + 4 * P, 0, 2 * P);

			err = err ?: bind1(fd, op, 0, sb);
			tap_ok(!err, "users: a gated job reads A's first pages and lists A, %s of "
			       "another part of A is queued (%s)", what, err_name(err));
			usleep(300000);
			r1 = syncobj_wait(fd, sb, 0);
			r2 = syncobj_wait(fd, sj, 0);
			tap_ok(r1 == -ETIME && r2 == -ETIME,
			       "users: %s waits for the job (%s, %s)", what, err_name(r1),
			       err_name(r2));
			*word = 1;
			r1 = fence_result(fd, sb);
			r2 = fence_result(fd, sj);
			core_fence_info(fd, sj, &st, &tj);
			core_fence_info(fd, sb, &st, &tb);
			tap_ok(r1 == 1 && r2 == 1 && tj <= tb,
			       "users: the gate opens: the job ends, then %s (%d, %d, %lld ns "
			       "apart)", what, r2, r1, (long long)(tb - tj));
		} else {
			o = (struct opener){ word, 300 };
			tap_ok(!err && !pthread_create(&t, NULL, open_later, &o),
			       "users: a gated job reads A's first pages, the gate opens in "
			       "300 ms");
			t0 = now_ns();
			err = vm_unmap_cut(fd, w + 8 * P, 8 * P);
			t1 = now_ns();
			r2 = syncobj_wait(fd, sj, 0);
			tap_ok(!err && r2 == 0 && core_fence_status(fd, sj) == 1,
			       "users: %s returns once the job ended (%s, after %lld ms)", what,
			       err_name(err), (long long)(t1 - t0) / 1000000);
			pthread_join(t, NULL);
		}
		for (n = 0; n < head / 4; n++)
			if (dst.cpu[n] != pat(A.tag, n * 4))
				break;
		tap_ok(n == head / 4, "users: the job read A's first %llu bytes bit-exact (word %u "
		       "differs)", (unsigned long long)head, n);
		if (i == 1)
			LAYOUT("users: REPLACE", w, w + 16 * P, { w, 4 * P, &A, 0, false },
			       { w + 4 * P, 2 * P, &B, 0, false },
			       { w + 6 * P, 10 * P, &A, 6 * P, false });
		else
			LAYOUT("users: cut", w, w + 16 * P, { w, 8 * P, &A, 0, false });
		tap_errno(vm_unmap(fd, w, 16 * P), 0, "users: unmap");
	}
	drmSyncobjDestroy(fd, sj);
	drmSyncobjDestroy(fd, sb);
}

/* ---- two threads of one process on the same address space ---- */

struct thr {
	int id;
	uint32_t ctx;
	struct bo d, own;
	uint64_t d_va, own_va;
	int errors;
	char first[512];
};

static struct bo shared;
static uint64_t shared_va;

static void thr_fail(struct thr *t, int round, const char *what, const char *why)
{
	if (!t->errors++)
		snprintf(t->first, sizeof(t->first), "round %d: %s: %s", round, what, why);
}

/* Cut page @k of the mapping of @b (at @va) and put it back; check it. */
static void cut_and_restore(struct thr *t, int round, const struct bo *b, uint64_t va, int k,
			    bool async)
{
	uint32_t so = syncobj_new(fd), bos[] = { b->h, t->d.h };
	char why[200];
	int err;

	if (async) {
		struct drm_tern_vm_bind ops[2] = {
			op_cut(va + k * P, P), op_map(b, REPLACE, va + k * P, k * P, P),
		};

		/* both in one bind, or a cut, then a REPLACE: both ways */
		err = round % 4 < 2 ? bind_ops(fd, ops, 2, 0, 0, so, NULL)
				    : bind_ops(fd, ops, 1, 0, 0, 0, NULL) ?:
				      bind_ops(fd, ops + 1, 1, 0, 0, so, NULL);
	} else {
		err = vm_unmap_cut(fd, va + k * P, P) ?:
		      vm_bind(fd, MAP, round % 2 ? REPLACE : 0, b->h, va + k * P, k * P, P);
	}
	if (err) {
		snprintf(why, sizeof(why), "%s", err_name(err));
		thr_fail(t, round, async ? "async cut and REPLACE" : "VM_BIND cut and map", why);
	} else if (!copy_cmp(fd, &t->ctx, &t->d, t->d_va, va + (k & ~1) * P, 2 * P, b,
			     (k & ~1) * P, bos, 2, async ? so : 0, why, sizeof(why))) {
		thr_fail(t, round, "reading the restored page", why);
	}
	drmSyncobjDestroy(fd, so);
}

static void *thread_main(void *p)
{
	struct thr *t = p;
	uint32_t bos[] = { shared.h, t->d.h };
	char why[200];
	int round;

	for (round = 0; round < THREAD_ROUNDS; round++) {
		/* the shared mapping: thread 0 cuts pages 8-15, thread 1 reads pages 0-7 */
		if (t->id == 0)
			cut_and_restore(t, round, &shared, shared_va, 8 + round % 8,
					round % 3 == 0);
		else if (!copy_cmp(fd, &t->ctx, &t->d, t->d_va, shared_va, 8 * P, &shared, 0, bos,
				   2, 0, why, sizeof(why)))
			thr_fail(t, round, "reading the shared pages nobody cuts", why);
		/* its own mapping */
		cut_and_restore(t, round, &t->own, t->own_va, round % 16, round % 2);
	}
	return NULL;
}

static void check_threads(void)
{
	struct thr t[2];
	pthread_t th[2];
	int i, ok_setup = 1;

	shared_va = window(9);
	ok_setup &= bo_new(fd, &shared, 16 * P, 0x5a) &&
		    !vm_map(fd, shared.h, shared_va, 0, 16 * P);
	for (i = 0; i < 2; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].id = i;
		t[i].d_va = window(10) + i * WIN_STEP / 2;
		t[i].own_va = window(11) + i * WIN_STEP / 2;
		ok_setup &= !ctx_create(fd, DRM_TERN_PRIORITY_NORMAL,
					DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &t[i].ctx) &&
			    bo_new(fd, &t[i].d, 8 * P, 0) &&
			    bo_new(fd, &t[i].own, 16 * P, 0x60 + i) &&
			    !vm_map(fd, t[i].d.h, t[i].d_va, 0, 8 * P) &&
			    !vm_map(fd, t[i].own.h, t[i].own_va, 0, 16 * P);
	}
	if (!tap_ok(ok_setup, "threads: set-up (a shared BO, a context and BOs per thread)"))
		return;
	for (i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, thread_main, &t[i]))
			t[i].errors = 1000;
	for (i = 0; i < 2; i++)
		if (t[i].errors < 1000)
			pthread_join(th[i], NULL);
	tap_ok(!t[0].errors, "threads: one cuts and restores pages of a shared mapping and of "
	       "its own and reads them back, %d rounds (%d errors%s%s)", THREAD_ROUNDS, t[0].errors,
	       t[0].errors ? "; the first: " : "", t[0].first);
	tap_ok(!t[1].errors, "threads: the other reads the shared pages nobody cuts, cuts and "
	       "restores its own, %d rounds (%d errors%s%s)", THREAD_ROUNDS, t[1].errors,
	       t[1].errors ? "; the first: " : "", t[1].first);
	LAYOUT("threads: the shared mapping, cut and restored", shared_va, shared_va + 16 * P,
	       { shared_va, 8 * P, &shared, 0, false },
	       { shared_va + 8 * P, P, &shared, 8 * P, false },
	       { shared_va + 9 * P, P, &shared, 9 * P, false },
	       { shared_va + 10 * P, P, &shared, 10 * P, false },
	       { shared_va + 11 * P, P, &shared, 11 * P, false },
	       { shared_va + 12 * P, P, &shared, 12 * P, false },
	       { shared_va + 13 * P, P, &shared, 13 * P, false },
	       { shared_va + 14 * P, P, &shared, 14 * P, false },
	       { shared_va + 15 * P, P, &shared, 15 * P, false });
	tap_errno(vm_unmap(fd, shared_va, 16 * P), 0, "threads: unmap the shared pieces");
	for (i = 0; i < 2; i++) {
		vm_unmap(fd, t[i].own_va, 16 * P);
		vm_unmap(fd, t[i].d_va, 8 * P);
		ctx_destroy(fd, t[i].ctx);
	}
	pinned_base("after the threads");
}

/* ---- processes: random cuts against a model ---- */

/* bo: -1 none, 0 X, 1 Y; id: the page's mapping (0: none), a new one per map */
struct model_page { int bo; uint64_t off; unsigned int id; };

static uint64_t prng;

static uint32_t below(uint32_t n)
{
	prng ^= prng << 13;
	prng ^= prng >> 7;
	prng ^= prng << 17;
	return (uint32_t)(prng >> 32) % n;
}

#define NP	16

/* Whether a mapping crosses an end of pages [a, b): an unmap of them cuts it. */
static bool model_cuts(const struct model_page *m, uint32_t a, uint32_t b)
{
	return (a > 0 && m[a].id && m[a - 1].id == m[a].id) ||
	       (b < NP && m[b].id && m[b - 1].id == m[b].id);
}

static bool model_any(const struct model_page *m, uint32_t a, uint32_t b)
{
	for (; a < b; a++)
		if (m[a].bo >= 0)
			return true;
	return false;
}

__attribute__((format(printf, 4, 5)))
static void child_fail(int id, int round, int *errors, const char *fmt, ...)
{
	char msg[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	(*errors)++;
	tap_diag("process %d round %d: %s", id, round, msg);
}

static int child_main(int id)
{
	struct model_page m[NP];
	struct bo x, y, d;
	const struct bo *bo_of[2] = { &x, &y };
	const uint64_t w = WIN, d_va = DST_VA;
	uint32_t c, last, bos[3];
	int round, errors = 0, faults = 0, reads = 0, cuts = 0, refused = 0;
	unsigned int next_id = 2;
	char why[200];

	prng = 0x9e3779b97f4a7c15ull * (id + 1);
	fd = tern_test_open();
	if (fd < 0 || ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0,
				 &c) ||
	    !bo_new(fd, &x, NP * P, 0x10 + id) || !bo_new(fd, &y, 8 * P, 0x20 + id) ||
	    !bo_new(fd, &d, NP * P, 0) || vm_map(fd, d.h, d_va, 0, NP * P)) {
		tap_diag("process %d: set-up failed", id);
		return 1;
	}
	bos[0] = x.h;
	bos[1] = y.h;
	bos[2] = d.h;
	/* signalled: jobs and waits may take it before any asynchronous bind */
	if (drmSyncobjCreate(fd, DRM_SYNCOBJ_CREATE_SIGNALED, &last)) {
		tap_diag("process %d: no syncobj", id);
		return 1;
	}
	for (round = 0; round < ROUNDS && errors < 5; round++) {
		int k, nops = 2 + below(4), err, want;
		uint32_t a, b;
		bool async;

		for (k = 0; k < NP; k++)
			m[k] = (struct model_page){ 0, (uint64_t)k, 1 };
		err = below(2) ? vm_map(fd, x.h, w, 0, NP * P)
			       : bind1(fd, op_map(&x, 0, w, 0, NP * P), 0, last);
		if (err)
			child_fail(id, round, &errors, "map X whole at %#llx: %s",
				   (unsigned long long)w, err_name(err));
		for (k = 0; k < nops; k++) {
			unsigned int kind = below(3), id = next_id++;
			struct drm_tern_vm_bind op;
			uint64_t off = 0;
			bool cut = below(2);

			a = below(NP);
			b = a + 1 + below(NP - a);
			if (kind == 0) {
				op = cut ? op_cut(w + a * P, (b - a) * P)
					 : op_unmap(w + a * P, (b - a) * P);
				want = !cut && model_cuts(m, a, b) ? -EINVAL :
				       model_any(m, a, b) ? 0 : -ENOENT;
				cuts += cut && model_cuts(m, a, b);
				refused += want == -EINVAL;
			} else {
				if (b - a > 8)
					b = a + 8;
				off = below(8 - (b - a) + 1);
				op = op_map(&y, kind == 1 ? REPLACE : 0, w + a * P, off * P,
					    (b - a) * P);
				want = kind == 2 && model_any(m, a, b) ? -EEXIST : 0;
			}
			async = below(2);
			if (async)
				err = bind1(fd, op, 0, last);
			else
				err = mem_ioctl(fd, DRM_IOCTL_TERN_VM_BIND, &op);
			if (err != want)
				child_fail(id, round, &errors,
					   "%s %s of pages %u-%u (%#llx..%#llx): %s, want %s",
					   async ? "VM_BIND_OPS" : "VM_BIND",
					   kind == 0 ? (cut ? "cutting unmap" : "unmap") :
					   kind == 1 ? "REPLACE map" : "map",
					   a, b - 1, (unsigned long long)(w + a * P),
					   (unsigned long long)(w + b * P), err_name(err),
					   err_name(want));
			if (err)
				continue;
			for (; a < b; a++)
				m[a] = kind == 0 ? (struct model_page){ -1, 0, 0 }
						 : (struct model_page){ 1, off++, id };
		}
		/* a job reads a random run of mapped pages, after the last bind */
		a = below(NP);
		if (m[a].bo >= 0) {
			uint64_t i, len;

			for (b = a; b < NP && m[b].bo >= 0; b++)
				;
			b = a + 1 + below(b - a);
			len = (b - a) * P;
			for (i = 0; i < len / 4; i++)
				d.cpu[i] = 0xeeeeeeee;
			{
				uint32_t dw[8], n = 0;

				pkt_copy(dw, &n, w + a * P, d_va, (uint32_t)len);
				err = run_job_in(fd, &c, dw, n, bos, 3, last);
			}
			reads++;
			for (i = 0; !err && i < len / 4; i++) {
				const struct model_page *pg = &m[a + i * 4 / P];
				uint64_t off = pg->off * P + i * 4 % P;

				if (d.cpu[i] != pat(bo_of[pg->bo]->tag, off)) {
					child_fail(id, round, &errors, "a COPY of pages %u-%u read "
						   "%#x at %#llx, want BO %#x's word at %#llx",
						   a, b - 1, d.cpu[i],
						   (unsigned long long)(w + a * P + i * 4),
						   bo_of[pg->bo]->tag, (unsigned long long)off);
					break;
				}
			}
			if (err)
				child_fail(id, round, &errors, "a COPY job of pages %u-%u: %s", a,
					   b - 1, err_name(err));
		} else if (round % 10 == 0) {
			/* the hole faults; wait for the binds first */
			err = fence_result(fd, last);
			if (err != 1)
				child_fail(id, round, &errors, "the last bind's fence: %s",
					   err_name(err));
			if (!fault_at(fd, &d, w + a * P + 4 * below(1024), below(2),
				      FAULT_NOT_PRESENT, NULL, 0, why, sizeof(why)))
				child_fail(id, round, &errors, "page %u, unmapped: %s", a, why);
			faults++;
		}
		/* the whole window goes */
		want = model_any(m, 0, NP) ? 0 : -ENOENT;
		err = below(2) ? vm_unmap(fd, w, NP * P) : bind1(fd, op_unmap(w, NP * P), 0, last);
		if (err != want)
			child_fail(id, round, &errors, "unmap of the window: %s, want %s",
				   err_name(err), err_name(want));
		if (below(8) == 0) {
			err = fence_result(fd, last);
			if (err != 1)
				child_fail(id, round, &errors, "the last bind's fence: %s",
					   err_name(err));
		}
	}
	fence_result(fd, last);
	tap_diag("process %d: %d rounds, %d reads, %d faults checked, %d cuts, %d unmaps "
		 "refused as they would cut without DRM_TERN_VM_BIND_CUT, %d errors", id, round,
		 reads, faults, cuts, refused, errors);
	close(fd);
	return errors ? 1 : 0;
}

static void check_processes(void)
{
	pid_t pids[PROCS];
	int i, status, failed = 0;

	fflush(stdout);
	for (i = 0; i < PROCS; i++) {
		pids[i] = fork();
		if (!pids[i])
			_exit(child_main(i));
	}
	for (i = 0; i < PROCS; i++)
		if (pids[i] < 0 || waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	tap_ok(!failed, "processes: %d processes map, cut, REPLACE and read through jobs, %d "
	       "rounds each, each result as the model says (%d failed)", PROCS, ROUNDS, failed);
}

int main(void)
{
	struct drm_tern_get_info info;

	fd = tern_test_open();
	if (fd < 0 || core_get_info(fd, &info)) {
		tap_ok(false, "open the device");
		return tap_exit_status();
	}
	if (!tap_ok(info.driver_version >= (1u << 16 | 5),
		    "the driver has interface 1.5 (cuts, REPLACE): %u.%u",
		    info.driver_version >> 16, info.driver_version & 0xffff))
		return tap_exit_status();
	/* the checks' jobs on engine 0, the gated jobs elsewhere if there is room */
	if (ctx_create_on(fd, 0, 0, &ctx) ||
	    ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &ctx2) ||
	    !bo_new(fd, &dst, DST_PAGES * P, 0) || vm_map(fd, dst.h, DST_VA, 0, dst.size) ||
	    !bo_new(fd, &gate, P, 0) || vm_map(fd, gate.h, GATE_VA, 0, P) ||
	    bo_create(fd, MARK_SIZE, &mark.h) || vm_map(fd, mark.h, MARK_VA, 0, MARK_SIZE) ||
	    !bo_new(fd, &A, 16 * P, 0xa1) || !bo_new(fd, &B, 8 * P, 0xb2) ||
	    !bo_new(fd, &C, 4 * P, 0xc3)) {
		tap_ok(false, "set-up: two contexts, the destination, gate and marker BOs, "
		       "A, B, C");
		return tap_exit_status();
	}
	mark.size = MARK_SIZE;
	memset((void *)gate.cpu, 0, P);

	check_middle_cut();
	check_edges();
	check_two_mappings();
	check_whole_and_parts();
	check_release();
	check_replace();
	check_replace_atomic();
	check_async();
	check_waits_for_users();
	check_threads();
	check_processes();

	close(fd);
	tap_done();
	return tap_exit_status();
}
