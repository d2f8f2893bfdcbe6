// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * fuzz_ioctl: a uAPI-aware fuzzer of the tern ioctls and of the DRM core
 * ioctls tern uses (GEM close, syncobj create/destroy/wait/reset/signal/
 * timeline signal/timeline wait/query, PRIME handle<->fd, mmap of BO
 * offsets), SUBMIT_MANY, VM_BIND_OPS and VM_GET_STATE included, with the
 * unmaps that cut mappings (DRM_TERN_VM_BIND_CUT; without it such an unmap
 * is EINVAL and changes nothing) and the REPLACE maps of interface 1.5 (the
 * model of the mappings cuts them as the kernel does; CUT on a map, and on
 * an unmap with another flag, is EINVAL).  Each worker keeps a model of what it
 * created (files and their dup()ed aliases, BOs, mappings, contexts,
 * syncobjs) and issues valid call
 * sequences with mutated fields, random and stale handles, and user
 * pointers that are valid, NULL, unmapped, or straddle the end of a
 * mapping.  For every call the model says which results the uAPI documents
 * (tern_accel.h, drm.h); any other result is a failure.  Valid jobs write
 * values the worker checks afterwards.
 *
 * Several processes with two threads each run at once, with fd churn, and
 * children are SIGKILLed in the middle of their calls.  The run is
 * deterministic in what it asks (fixed seed, fixed count; the interleaving
 * of processes is up to the scheduler): TERN_FUZZ_ITERATIONS (calls per
 * thread) and TERN_FUZZ_SEED change it; make soak runs it long.  At the end
 * the device must still run a correct job.
 *
 * tern-vm: timeout=300
 */
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include "core_test.h"

#define WORKERS		3	/* processes, each with THREADS threads */
#define THREADS		2
#define KILLED		6	/* children killed mid-call */
#define DEF_ITER	40000	/* calls per thread in make test */
#define MAX_FILES	4
#define MAX_BOS		16
#define MAX_MAPS	16
#define MAX_CTX		8
#define MAX_SYNC	8
#define BASE_VA		0x100000ull	/* the per-file BO that checked jobs use */
#define BASE_SIZE	0x10000ull
#define CHECK_VA	0x3000000ull	/* checked jobs only: no fuzz job writes here */
#define CHECK_SIZE	0x4000ull
#define FUZZ_VA		0x10000000ull	/* where the fuzzer maps BOs */
#define FUZZ_SPAN	0x01000000ull
#define NERR		140
#define OK		0

/* ---- results shared by every process ---- */
struct shared {
	unsigned long calls;
	unsigned long unexpected;
	unsigned long hist[NERR + 1];	/* [0] success, [e] errno e, [NERR] other */
	unsigned long jobs_checked, jobs_bad;
	unsigned long killed_calls;
	const char *kind[16];	/* call sites with an unexpected result */
	char first[16][200];
};
static struct shared *sh;

/* ---- per-thread model ---- */
struct bo { uint32_t handle; uint64_t size; };
struct map { uint64_t va, range; };
struct ctx { uint32_t handle; uint32_t class; bool dirty; };
struct file {
	int fd[3];		/* aliases (dup) of one open file */
	int nfd;
	uint32_t base_bo, check_bo, clean_ctx, clean_so;
	volatile uint32_t *base, *check;
	struct bo bo[MAX_BOS];
	int nbo;
	struct map map[MAX_MAPS];
	int nmap;
	struct ctx ctx[MAX_CTX];
	int nctx;
	uint32_t so[MAX_SYNC];
	bool timeline[MAX_SYNC];
	int nso;
};
struct worker {
	uint64_t rng;
	struct file f[MAX_FILES];
	int nf;
	char *guard;		/* 2 pages: RW then PROT_NONE */
	char *hole;		/* a PROT_NONE page: no access (never reused) */
	bool child;		/* killed-mid-call child: do not judge */
};

static struct drm_tern_get_info info;

static uint32_t rnd(struct worker *w)
{
	/* xorshift64* */
	w->rng ^= w->rng >> 12;
	w->rng ^= w->rng << 25;
	w->rng ^= w->rng >> 27;
	return (uint32_t)((w->rng * 0x2545f4914f6cdd1dull) >> 32);
}

static uint32_t below(struct worker *w, uint32_t n)
{
	return n ? rnd(w) % n : 0;
}

static bool chance(struct worker *w, unsigned int pct)
{
	return below(w, 100) < pct;
}

/* a handle no object of this file has */
static uint32_t bogus_handle(struct worker *w)
{
	switch (below(w, 3)) {
	case 0: return 0;
	case 1: return 0xffffffff;
	default: return 0x40000000 | rnd(w);
	}
}

/* ---- expected results ---- */
struct expect { bool allow[NERR + 1]; const char *what; char detail[64]; };

static void ex_init(struct expect *e, const char *what)
{
	memset(e, 0, sizeof(*e));
	e->what = what;
}

static void ex(struct expect *e, int err)
{
	e->allow[err < 0 ? -err : err] = true;
}

static void record(struct worker *w, struct expect *e, int ret)
{
	int err = ret < 0 ? -ret : ret;

	if (err > NERR)
		err = NERR;
	__atomic_fetch_add(&sh->calls, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&sh->hist[err], 1, __ATOMIC_RELAXED);
	if (w->child)
		return;
	if (err < NERR && e->allow[err])
		return;
	__atomic_fetch_add(&sh->unexpected, 1, __ATOMIC_RELAXED);
	/* the first of each kind: the same call site has the same string */
	for (int i = 0; i < 16; i++) {
		const char *cur = NULL;

		if (__atomic_load_n(&sh->kind[i], __ATOMIC_RELAXED) == e->what)
			return;
		if (__atomic_compare_exchange_n(&sh->kind[i], &cur, e->what, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
			char list[96] = "";
			int j, len = 0;

			for (j = 0; j < NERR && len < 80; j++)
				if (e->allow[j])
					len += snprintf(list + len, sizeof(list) - len, "%s%d",
							len ? "," : "", j);
			snprintf(sh->first[i], sizeof(sh->first[i]),
				 "%s%s: got %d (%s), documented: %s", e->what, e->detail, ret,
				 ret ? strerror(-ret) : "success", list);
			return;
		}
		if (cur == e->what)
			return;
	}
}

/* the call itself, no retries (unlike drmIoctl): 0 or -errno */
static int xioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? -errno : 0;
}

/* ---- user pointers ---- */
enum ptr_kind { PTR_VALID, PTR_NULL, PTR_HOLE, PTR_STRADDLE, PTR_KINDS };

/*
 * What a syncobj ioctl on one handle answers once its flags and count are
 * good: EFAULT when the handle array is not readable (@kh), ENOENT for a
 * handle the file does not have.  True when the call gets past both.
 */
static bool ex_handle(struct expect *e, enum ptr_kind kh, bool valid)
{
	if (kh != PTR_VALID)
		ex(e, EFAULT);
	else if (!valid)
		ex(e, ENOENT);
	return kh == PTR_VALID && valid;
}

static enum ptr_kind pick_ptr(struct worker *w, unsigned int bad_pct)
{
	return chance(w, bad_pct) ? 1 + below(w, PTR_KINDS - 1) : PTR_VALID;
}

/* Where an argument of @size bytes goes: @valid, or a bad place. */
static void *place(struct worker *w, enum ptr_kind k, void *valid, size_t size)
{
	switch (k) {
	case PTR_NULL: return NULL;
	case PTR_HOLE:
		/* no access, or a kernel address */
		return chance(w, 50) ? w->hole : (void *)(~0ul - 0xfff);
	case PTR_STRADDLE: return w->guard + 4096 - (size > 1 ? size / 2 : 1);
	default: return valid;
	}
}

/* An ioctl whose whole argument may be misplaced: EFAULT if it is. */
static int arg_ioctl(struct worker *w, int fd, unsigned long req, void *arg,
		     size_t size, enum ptr_kind k, struct expect *e)
{
	if (k != PTR_VALID) {
		ex_init(e, e->what);
		ex(e, EFAULT);
		return xioctl(fd, req, place(w, k, arg, size));
	}
	return xioctl(fd, req, arg);
}

/* ---- the model ---- */
static struct file *pick_file(struct worker *w)
{
	return w->nf ? &w->f[below(w, w->nf)] : NULL;
}

static int fd_of(struct worker *w, struct file *f)
{
	return f->fd[below(w, f->nfd)];
}

static bool file_setup(struct file *f, int fd)
{
	memset(f, 0, sizeof(*f));
	f->fd[0] = fd;
	f->nfd = 1;
	if (core_bo(fd, BASE_SIZE, BASE_VA, &f->base_bo, (void **)&f->base) ||
	    core_bo(fd, CHECK_SIZE, CHECK_VA, &f->check_bo, (void **)&f->check) ||
	    ctx_create(fd, DRM_TERN_PRIORITY_NORMAL,
		       DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &f->clean_ctx) ||
	    drmSyncobjCreate(fd, 0, &f->clean_so))
		return false;
	return true;
}

static void file_close(struct file *f)
{
	int i;

	if (f->base)
		munmap((void *)f->base, BASE_SIZE);
	if (f->check)
		munmap((void *)f->check, CHECK_SIZE);
	for (i = 0; i < f->nfd; i++)
		close(f->fd[i]);
	f->nfd = 0;
}

static void op_open(struct worker *w)
{
	struct file *f;
	int fd;

	if (w->nf == MAX_FILES)
		return;
	fd = open(TERN_TEST_NODE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	f = &w->f[w->nf];
	if (!file_setup(f, fd)) {
		struct expect e;

		ex_init(&e, "set up a new file");
		record(w, &e, -EIO);
		file_close(f);
		return;
	}
	w->nf++;
}

static void op_dup_close(struct worker *w)
{
	struct file *f = pick_file(w);
	int i;

	if (!f)
		return;
	if (f->nfd < 3 && chance(w, 60)) {
		int fd = dup(f->fd[0]);

		if (fd >= 0)
			f->fd[f->nfd++] = fd;
		return;
	}
	if (f->nfd > 1) {
		i = below(w, f->nfd);
		close(f->fd[i]);
		f->fd[i] = f->fd[--f->nfd];
		return;
	}
	/* the last alias: the file goes with everything in it */
	if (w->nf > 1) {
		file_close(f);
		*f = w->f[--w->nf];
	}
}

static void op_get_info(struct worker *w, struct file *f)
{
	struct drm_tern_get_info g = { 0 };
	struct expect e;
	enum ptr_kind k = pick_ptr(w, 15);
	int ret;

	ex_init(&e, "GET_INFO");
	if (chance(w, 20))
		g.flags = rnd(w) | 1;
	if (chance(w, 10))
		g.pad = rnd(w) | 1;
	if (g.flags || g.pad)
		ex(&e, EINVAL);
	else
		ex(&e, OK);
	snprintf(e.detail, sizeof(e.detail), " (flags %#x pad %#x)", g.flags, g.pad);
	ret = arg_ioctl(w, fd_of(w, f), DRM_IOCTL_TERN_GET_INFO, &g, sizeof(g), k, &e);
	record(w, &e, ret);
	if (!ret && !w->child && (g.engine_count != info.engine_count ||
				  g.max_bo_size != info.max_bo_size))
		record(w, &e, -EPROTO);	/* the answer changed: never documented */
}

static void op_bo_create(struct worker *w, struct file *f)
{
	struct drm_tern_bo_create c = { .size = (1 + below(w, 16)) * 4096 };
	struct expect e;
	enum ptr_kind k = pick_ptr(w, 10);
	bool bad = false;
	int ret;

	ex_init(&e, "BO_CREATE");
	if (chance(w, 10))
		c.size = below(w, 4096) + 1;	/* rounded up */
	if (chance(w, 5)) {
		c.size = 0;
		ex(&e, EINVAL);
		bad = true;
	}
	if (chance(w, 5)) {
		c.size = info.max_bo_size + 1 + below(w, 1 << 20);
		if (chance(w, 30))
			c.size = ~0ull - below(w, 4096);
		ex(&e, E2BIG);
		bad = true;
	}
	if (chance(w, 8)) {
		c.flags = rnd(w) | 1;
		ex(&e, EINVAL);
		bad = true;
	}
	if (chance(w, 8)) {
		c.pad = rnd(w) | 1;
		ex(&e, EINVAL);
		bad = true;
	}
	if (chance(w, 8)) {
		c.placement = below(w, 4);
		/* LOCAL, LOCAL_PREFERRED (interface 1.6): the sizes fit */
		if (c.placement > DRM_TERN_BO_PLACEMENT_LOCAL_PREFERRED) {
			ex(&e, EINVAL);
			bad = true;
		}
	}
	if (!bad) {
		ex(&e, OK);
		ex(&e, ENOMEM);
	}
	if (f->nbo == MAX_BOS && !bad && k == PTR_VALID)
		return;
	ret = arg_ioctl(w, fd_of(w, f), DRM_IOCTL_TERN_BO_CREATE, &c, sizeof(c), k, &e);
	record(w, &e, ret);
	if (!ret) {
		if (f->nbo < MAX_BOS && c.handle && c.size % 4096 == 0) {
			f->bo[f->nbo].handle = c.handle;
			f->bo[f->nbo++].size = c.size;
		} else {
			bo_close(f->fd[0], c.handle);
		}
	}
}

static int pick_bo(struct worker *w, struct file *f)
{
	return f->nbo ? (int)below(w, f->nbo) : -1;
}

static void op_bo_info_mmap(struct worker *w, struct file *f)
{
	struct drm_tern_bo_info i = { 0 };
	struct expect e;
	enum ptr_kind k = pick_ptr(w, 10);
	int b = pick_bo(w, f), ret;
	bool valid = b >= 0 && chance(w, 85);

	ex_init(&e, "BO_INFO");
	i.handle = valid ? f->bo[b].handle : bogus_handle(w);
	if (chance(w, 8))
		i.flags = rnd(w) | 1;
	if (chance(w, 8))
		i.pad = rnd(w) | 1;
	if (i.flags || i.pad)
		ex(&e, EINVAL);
	if (!valid)
		ex(&e, ENOENT);
	if (valid && !i.flags && !i.pad)
		ex(&e, OK);
	ret = arg_ioctl(w, fd_of(w, f), DRM_IOCTL_TERN_BO_INFO, &i, sizeof(i), k, &e);
	record(w, &e, ret);
	if (ret || k != PTR_VALID)
		return;
	if (!w->child && (i.size != f->bo[b].size || i.pad)) {
		ex_init(&e, "BO_INFO size/pad");
		record(w, &e, -EPROTO);
	}

	/* mmap: the right offset and length, or a mutated one */
	{
		uint64_t off = i.mmap_offset, len = i.size;
		bool good = true;
		void *p;

		ex_init(&e, "mmap of a BO");
		if (chance(w, 15)) {
			/* past the whole DRM mmap offset space */
			off += (1ull << 44) * (1 + below(w, 3));
			good = false;
		} else if (chance(w, 15)) {
			len += 4096 * (1 + below(w, 4));
			good = false;
		}
		ex(&e, good ? OK : EINVAL);
		if (!good)
			ex(&e, EACCES);
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd_of(w, f), off);
		ret = p == MAP_FAILED ? -errno : 0;
		record(w, &e, ret);
		if (!ret) {
			volatile uint32_t *u = p;
			uint32_t v = rnd(w);

			u[len / 4 - 1] = v;
			if (!w->child && u[len / 4 - 1] != v) {
				ex_init(&e, "CPU write through mmap reads back");
				record(w, &e, -EPROTO);
			}
			munmap(p, len);
		}
	}
}

static void op_gem_close(struct worker *w, struct file *f)
{
	struct drm_gem_close c = { 0 };
	struct expect e;
	enum ptr_kind k = pick_ptr(w, 8);
	int b = pick_bo(w, f), ret;
	bool valid = b >= 0 && chance(w, 80);

	ex_init(&e, "GEM_CLOSE");
	c.handle = valid ? f->bo[b].handle : bogus_handle(w);
	if (chance(w, 8))
		c.pad = rnd(w) | 1;
	/* the DRM core ignores drm_gem_close.pad */
	ex(&e, valid ? OK : EINVAL);
	snprintf(e.detail, sizeof(e.detail), " (handle %#x pad %#x)", c.handle, c.pad);
	ret = arg_ioctl(w, fd_of(w, f), DRM_IOCTL_GEM_CLOSE, &c, sizeof(c), k, &e);
	record(w, &e, ret);
	if (!ret && valid)
		f->bo[b] = f->bo[--f->nbo];
}

/*
 * The model after an unmap of [va, va + range) (interface 1.5): mappings
 * inside it go, a mapping across an end keeps its part outside, as one of
 * its own.  False, with the model unchanged, if that would take more than
 * MAX_MAPS entries (only a range inside one mapping adds one).
 */
static bool model_cut(struct map *map, int *n, uint64_t va, uint64_t range)
{
	struct map out[MAX_MAPS + 2];
	uint64_t end = va + range;
	int i, k = 0;

	for (i = 0; i < *n; i++) {
		const struct map *m = &map[i];

		if (m->va + m->range <= va || m->va >= end) {
			out[k++] = *m;
			continue;
		}
		if (m->va < va)
			out[k++] = (struct map){ m->va, va - m->va };
		if (m->va + m->range > end)
			out[k++] = (struct map){ end, m->va + m->range - end };
	}
	if (k > MAX_MAPS)
		return false;
	memcpy(map, out, k * sizeof(out[0]));
	*n = k;
	return true;
}

/*
 * Whether an unmap of [va, va + range) would cut a mapping of @map (@n
 * entries): one crosses an end of the range.  Without DRM_TERN_VM_BIND_CUT
 * that is EINVAL (interface 1.5, as before it).
 */
static bool model_cuts(const struct map *map, int n, uint64_t va, uint64_t range)
{
	uint64_t end = va + range;
	int i;

	for (i = 0; i < n; i++) {
		const struct map *m = &map[i];

		if ((m->va < va && m->va + m->range > va) ||
		    (m->va < end && m->va + m->range > end))
			return true;
	}
	return false;
}

/* A flag an unmap does not take: any bit but DRM_TERN_VM_BIND_CUT's. */
static uint32_t unmap_bad_flag(struct worker *w)
{
	uint32_t bit = below(w, 31);

	return 1u << (bit + (bit >= 2));
}

/*
 * The range of unmap @b that removes part of mapping @m: its head, its
 * tail, across one of its ends into whatever lies beyond, or (@middle_ok)
 * its middle, which leaves two pieces.  It holds at least one page of @m.
 */
static void pick_cut(struct worker *w, const struct map *m, bool middle_ok,
		     struct drm_tern_vm_bind *b)
{
	uint64_t n = m->range / 4096, i, j, k = 1 + below(w, 8);

	switch (below(w, 4)) {
	case 0:		/* the head */
		b->va = m->va;
		b->range = 4096 * (1 + below(w, n));
		break;
	case 1:		/* the tail */
		j = 1 + below(w, n);
		b->va = m->va + m->range - j * 4096;
		b->range = j * 4096;
		break;
	case 2:		/* across the start, or the end */
		if (chance(w, 50)) {
			b->va = m->va - k * 4096;
			b->range = (k + 1 + below(w, n)) * 4096;
		} else {
			j = 1 + below(w, n);
			b->va = m->va + m->range - j * 4096;
			b->range = (j + k) * 4096;
		}
		break;
	default:	/* the middle, else the whole */
		b->va = m->va;
		b->range = m->range;
		if (middle_ok && n >= 3) {
			i = 1 + below(w, n - 2);
			j = 1 + below(w, n - 1 - i);
			b->va = m->va + i * 4096;
			b->range = j * 4096;
		}
		break;
	}
}

static bool overlaps(struct file *f, uint64_t va, uint64_t range)
{
	int i;

	for (i = 0; i < f->nmap; i++)
		if (va < f->map[i].va + f->map[i].range && f->map[i].va < va + range)
			return true;
	return false;
}

static void op_vm_bind(struct worker *w, struct file *f)
{
	struct drm_tern_vm_bind b = { 0 };
	struct expect e;
	enum ptr_kind k = pick_ptr(w, 8);
	bool unmap = f->nmap && chance(w, 45), bad = false, replace = false;
	int bi = pick_bo(w, f), mi = -1, ret;

	ex_init(&e, unmap ? "VM_BIND unmap" : "VM_BIND map");
	if (unmap) {
		mi = below(w, f->nmap);
		b.op = DRM_TERN_VM_BIND_OP_UNMAP;
		b.va = f->map[mi].va;
		b.range = f->map[mi].range;
		if (chance(w, 50))	/* interface 1.5; on whole mappings it changes nothing */
			b.flags = DRM_TERN_VM_BIND_CUT;
		if (chance(w, 10)) {	/* nothing there */
			b.va = FUZZ_VA + FUZZ_SPAN + below(w, 256) * 4096ull;
			ex(&e, ENOENT);
			bad = true;
		} else if (chance(w, 25)) {	/* cuts it, maybe its neighbours (1.5) */
			pick_cut(w, &f->map[mi], f->nmap < MAX_MAPS, &b);
			if (!b.flags && model_cuts(f->map, f->nmap, b.va, b.range)) {
				/* without DRM_TERN_VM_BIND_CUT: refused, nothing changed */
				ex(&e, EINVAL);
				bad = true;
			}
		}
	} else {
		if (bi < 0)
			return;
		b.op = DRM_TERN_VM_BIND_OP_MAP;
		b.handle = f->bo[bi].handle;
		b.range = 4096ull * (1 + below(w, f->bo[bi].size / 4096));
		b.bo_offset = 4096ull * below(w, (f->bo[bi].size - b.range) / 4096 + 1);
		b.va = FUZZ_VA + 4096ull * below(w, FUZZ_SPAN / 4096 - 64);
		if (chance(w, 10))
			b.flags = DRM_TERN_VM_BIND_READ_ONLY;
		if (chance(w, 3)) {	/* an unmap's flag */
			b.flags |= DRM_TERN_VM_BIND_CUT;
			ex(&e, EINVAL);
			bad = true;
		}
		if (f->nmap + 2 <= MAX_MAPS && chance(w, 15)) {
			/* over what is there, often a mapping of the model (1.5) */
			b.flags |= DRM_TERN_VM_BIND_REPLACE;
			replace = true;
			if (f->nmap && chance(w, 60)) {
				const struct map *m = &f->map[below(w, f->nmap)];

				b.va = m->va + 4096ull * below(w, m->range / 4096) -
				       4096ull * below(w, 2);
			}
			/* nothing is mapped past the span: unmaps of nothing go there */
			if (b.va + b.range > FUZZ_VA + FUZZ_SPAN)
				b.va = FUZZ_VA + FUZZ_SPAN - b.range;
		}
		if (chance(w, 8)) {
			b.handle = bogus_handle(w);
			ex(&e, ENOENT);
			bad = true;
		}
		if (chance(w, 6)) {	/* not inside the BO */
			b.bo_offset = f->bo[bi].size;
			ex(&e, EINVAL);
			bad = true;
		}
		if (chance(w, 6)) {
			b.va = chance(w, 50) ? below(w, DRM_TERN_VA_START / 4096) * 4096ull
					     : (1ull << info.va_bits) + 4096ull * below(w, 16);
			ex(&e, ERANGE);
			bad = true;
		}
		if (!bad && !replace && overlaps(f, b.va, b.range)) {
			ex(&e, EEXIST);
			bad = true;
		}
	}
	if (chance(w, 5)) {
		b.op = 2 + below(w, 100);
		ex(&e, EINVAL);
		bad = true;
	}
	if (chance(w, 5)) {
		/* REPLACE is a map's flag, CUT an unmap's: elsewhere unknown too */
		b.flags |= unmap ? unmap_bad_flag(w) : 4u << below(w, 30);
		ex(&e, EINVAL);
		bad = true;
	}
	if (chance(w, 5)) {
		b.pad = rnd(w) | 1;
		ex(&e, EINVAL);
		bad = true;
	}
	if (chance(w, 5)) {
		b.va += 1 + below(w, 4095);
		ex(&e, EINVAL);
		ex(&e, ERANGE);
		bad = true;
	}
	if (chance(w, 5)) {
		b.range = chance(w, 50) ? 0 : b.range + 1 + below(w, 4095);
		ex(&e, EINVAL);
		bad = true;
	}
	if (unmap && chance(w, 5)) {
		b.handle = 1 + below(w, 8);
		ex(&e, EINVAL);
		bad = true;
	}
	if (!bad) {
		/* an unmap that cuts a mapping in two allocates too */
		ex(&e, OK);
		ex(&e, ENOMEM);
	} else if (!unmap && !replace && !(b.flags & DRM_TERN_VM_BIND_CUT)) {
		/* a mutation may hit a range that is also mapped already */
		if (overlaps(f, b.va & ~4095ull, b.range ? b.range : 4096))
			ex(&e, EEXIST);
	}
	/* interrupted: nothing was changed (tern_accel.h) */
	ex(&e, EINTR);
	ret = arg_ioctl(w, fd_of(w, f), DRM_IOCTL_TERN_VM_BIND, &b, sizeof(b), k, &e);
	record(w, &e, ret);
	if (ret)
		return;
	/* what the unmap, or the REPLACE map, removed; room checked above */
	if ((unmap || replace) && !model_cut(f->map, &f->nmap, b.va, b.range))
		f->nmap = 0;	/* cannot happen: forget the model rather than lie */
	if (unmap)
		return;
	if (f->nmap < MAX_MAPS) {
		f->map[f->nmap].va = b.va;
		f->map[f->nmap++].range = b.range;
	} else {
		vm_unmap(f->fd[0], b.va, b.range);
	}
}

/* Whether [va, va + range) meets a mapping of @map (@n entries). */
static bool overlaps_in(const struct map *map, int n, uint64_t va, uint64_t range)
{
	int i;

	for (i = 0; i < n; i++)
		if (va < map[i].va + map[i].range && map[i].va < va + range)
			return true;
	return false;
}

/*
 * VM_BIND_OPS: an array of maps and unmaps, checked one after the other
 * against the model as the ones before them leave it, with mutations; a
 * success changes the model at once (the kernel's bookkeeping does: only
 * a failed in-sync would undo it, and the only in-sync used is the clean
 * syncobj, whose jobs succeed).
 */
static void op_vm_bind_ops(struct worker *w, struct file *f)
{
	struct drm_tern_vm_bind ops[5 * 2];
	struct drm_tern_sync in = { 0 }, out = { 0 };
	struct drm_tern_vm_bind_ops a = { 0 };
	enum ptr_kind k = pick_ptr(w, 5), ko = pick_ptr(w, 5), ks = pick_ptr(w, 5);
	uint32_t count = 1 + below(w, 4), stride = chance(w, 20) ? 2 : 1, i;
	struct map model[MAX_MAPS];
	int nmodel = f->nmap, ret;
	bool bad = false;
	struct expect e;

	ex_init(&e, "VM_BIND_OPS");
	memcpy(model, f->map, sizeof(model));
	/* between entries of a larger stride: zero, or a tail that is not */
	memset(ops, chance(w, 20) ? 0xa5 : 0, sizeof(ops));
	for (i = 0; i < count; i++) {
		struct drm_tern_vm_bind *b = &ops[i * stride];
		int bi = pick_bo(w, f), mi;

		memset(b, 0, sizeof(*b));
		if (nmodel && (chance(w, 45) || bi < 0 || nmodel == MAX_MAPS)) {
			mi = below(w, nmodel);
			b->op = DRM_TERN_VM_BIND_OP_UNMAP;
			b->va = model[mi].va;
			b->range = model[mi].range;
			if (chance(w, 50))
				b->flags = DRM_TERN_VM_BIND_CUT;
			if (chance(w, 8)) {
				b->va = FUZZ_VA + FUZZ_SPAN + below(w, 256) * 4096ull;
				ex(&e, ENOENT);
				bad = true;
			} else {
				/* whole, or a cut of it and maybe its neighbours (1.5) */
				if (chance(w, 25))
					pick_cut(w, &model[mi], nmodel < MAX_MAPS, b);
				if (!b->flags && model_cuts(model, nmodel, b->va, b->range)) {
					/* without DRM_TERN_VM_BIND_CUT: refused */
					ex(&e, EINVAL);
					bad = true;
				} else {
					model_cut(model, &nmodel, b->va, b->range);
				}
			}
		} else if (bi >= 0) {
			b->op = DRM_TERN_VM_BIND_OP_MAP;
			b->handle = f->bo[bi].handle;
			b->range = 4096ull * (1 + below(w, f->bo[bi].size / 4096));
			b->bo_offset = 4096ull * below(w, (f->bo[bi].size - b->range) / 4096 + 1);
			b->va = FUZZ_VA + 4096ull * below(w, FUZZ_SPAN / 4096 - 64);
			if (chance(w, 10))
				b->flags = DRM_TERN_VM_BIND_READ_ONLY;
			if (chance(w, 3)) {	/* an unmap's flag */
				b->flags |= DRM_TERN_VM_BIND_CUT;
				ex(&e, EINVAL);
				bad = true;
			}
			if (nmodel + 2 <= MAX_MAPS && chance(w, 15)) {
				/* over what is there, often a mapping of the model (1.5) */
				b->flags |= DRM_TERN_VM_BIND_REPLACE;
				if (nmodel && chance(w, 60)) {
					const struct map *m = &model[below(w, nmodel)];

					b->va = m->va + 4096ull * below(w, m->range / 4096) -
						4096ull * below(w, 2);
				}
				if (b->va + b->range > FUZZ_VA + FUZZ_SPAN)
					b->va = FUZZ_VA + FUZZ_SPAN - b->range;
			}
			if (chance(w, 6)) {
				b->handle = bogus_handle(w);
				ex(&e, ENOENT);
				bad = true;
			} else if (chance(w, 5)) {
				b->bo_offset = f->bo[bi].size;
				ex(&e, EINVAL);
				bad = true;
			} else if (!(b->flags & DRM_TERN_VM_BIND_REPLACE) &&
				   overlaps_in(model, nmodel, b->va, b->range)) {
				ex(&e, EEXIST);
				bad = true;
			} else {
				if (b->flags & DRM_TERN_VM_BIND_REPLACE)
					model_cut(model, &nmodel, b->va, b->range);
				model[nmodel].va = b->va;
				model[nmodel++].range = b->range;
			}
		} else {
			/* nothing to map or unmap: an unmap of nothing */
			b->op = DRM_TERN_VM_BIND_OP_UNMAP;
			b->va = FUZZ_VA;
			b->range = 4096;
			ex(&e, ENOENT);
			bad = true;
		}
		if (chance(w, 3)) {
			b->op = 2 + below(w, 100);
			ex(&e, EINVAL);
			bad = true;
		}
		if (chance(w, 3)) {
			b->va += 1 + below(w, 4095);
			ex(&e, EINVAL);
			ex(&e, ERANGE);
			bad = true;
		}
		if (chance(w, 3)) {
			b->pad = rnd(w) | 1;
			ex(&e, EINVAL);
			bad = true;
		}
		if (chance(w, 2)) {
			/* REPLACE is a map's flag, CUT an unmap's: elsewhere unknown too */
			b->flags |= b->op == DRM_TERN_VM_BIND_OP_MAP ? 4u << below(w, 30)
								       : unmap_bad_flag(w);
			ex(&e, EINVAL);
			bad = true;
		}
	}
	if (stride > 1 && ((unsigned char *)&ops[1])[0] == 0xa5) {
		ex(&e, E2BIG);
		bad = true;
	}
	a.ops = (uintptr_t)place(w, ko, ops, sizeof(ops[0]) * count * stride);
	a.count = count;
	a.stride = stride * sizeof(ops[0]);
	if (chance(w, 30))
		a.flags = DRM_TERN_VM_BIND_OPS_SYNC;
	if (f->nso && chance(w, 40)) {
		out.handle = f->so[below(w, f->nso)];
		a.out_sync_count = 1;
	}
	a.out_syncs = (uintptr_t)place(w, ks, &out, sizeof(out));
	if (chance(w, 20)) {
		/* a fence that succeeds, if the syncobj has one yet */
		in.handle = f->clean_so;
		a.in_sync_count = 1;
		ex(&e, ENOENT);
	}
	a.in_syncs = (uintptr_t)&in;
	if (chance(w, 3)) {
		a.count = chance(w, 50) ? 0 : DRM_TERN_VM_BIND_OPS_MAX + 1 + below(w, 100);
		ex(&e, EINVAL);
		bad = true;
	}
	if (chance(w, 3)) {
		a.stride = below(w, sizeof(ops[0]));
		ex(&e, EINVAL);
		bad = true;
	}
	if (chance(w, 3)) {
		a.flags |= 2 << below(w, 30);
		ex(&e, EINVAL);
		bad = true;
	}
	if (chance(w, 3)) {
		a.pad = rnd(w) | 1;
		ex(&e, EINVAL);
		bad = true;
	}
	if (chance(w, 3)) {
		a.in_sync_count = info.max_syncs_per_submit + 1 + below(w, 100);
		ex(&e, EINVAL);
		ex(&e, EFAULT);
		bad = true;
	}
	if (chance(w, 3)) {
		out.handle = bogus_handle(w);
		a.out_sync_count = 1;
		ex(&e, ENOENT);
		bad = true;
	}
	if (ko != PTR_VALID || (ks != PTR_VALID && a.out_sync_count)) {
		ex(&e, EFAULT);
		/* the readable half of a straddling array: zeroed operations */
		ex(&e, EINVAL);
		bad = true;
	}
	if (!bad) {
		ex(&e, OK);
		ex(&e, ENOMEM);
	}
	/* a mutated map may land on a mapped range, or a budget */
	ex(&e, EEXIST);
	ex(&e, ENOSPC);
	ex(&e, EAGAIN);
	ex(&e, EINTR);
	snprintf(e.detail, sizeof(e.detail), " (count %u stride %u flags %#x)", a.count,
		 a.stride, a.flags);
	ret = arg_ioctl(w, fd_of(w, f), DRM_IOCTL_TERN_VM_BIND_OPS, &a, sizeof(a), k, &e);
	if (k == PTR_VALID && a.error_index > a.count)
		ret = -NERR;	/* error_index is an operation's, or the count */
	record(w, &e, ret);
	if (ret)
		return;
	memcpy(f->map, model, sizeof(model));
	f->nmap = nmodel;
}

/* VM_GET_STATE: flags and pad must be 0. */
static void op_vm_get_state(struct worker *w, struct file *f)
{
	struct drm_tern_vm_get_state st = { 0 };
	enum ptr_kind k = pick_ptr(w, 10);
	struct expect e;
	int ret;

	ex_init(&e, "VM_GET_STATE");
	if (chance(w, 10))
		st.flags = rnd(w) | 1;
	else if (chance(w, 10))
		st.pad = rnd(w) | 1;
	ex(&e, st.flags || st.pad ? EINVAL : OK);
	ret = arg_ioctl(w, fd_of(w, f), DRM_IOCTL_TERN_VM_GET_STATE, &st, sizeof(st), k, &e);
	record(w, &e, ret);
}

static void op_ctx_create(struct worker *w, struct file *f)
{
	struct drm_tern_context_create c = {
		.priority = below(w, 3),
		.engine_class = chance(w, 70) ? DRM_TERN_ENGINE_CLASS_COMPUTE
					      : DRM_TERN_ENGINE_CLASS_COPY,
		.timeout_ms = chance(w, 50) ? 0 : 1 + below(w, info.max_timeout_ms),
	};
	struct expect e;
	enum ptr_kind k = pick_ptr(w, 8);
	bool bad = false;
	uint32_t asked;
	int ret;

	ex_init(&e, "CONTEXT_CREATE");
	if (chance(w, 20)) {
		/* a named engine: mostly one that exists, of either class */
		c.flags = DRM_TERN_CONTEXT_CREATE_ENGINE;
		c.engine = chance(w, 85) ? below(w, info.engine_count) : rnd(w);
		if (c.engine >= info.engine_count ||
		    info.engine_class[c.engine] != c.engine_class) {
			ex(&e, EINVAL);
			bad = true;
		}
	} else if (chance(w, 10)) {
		c.engine = rnd(w);	/* not read without the flag */
	}
	if (chance(w, 30))
		c.flags |= DRM_TERN_CONTEXT_CREATE_PROGRESS;
	if (f->nmap < MAX_MAPS && chance(w, 10)) {
		/* the page in the address space, among the fuzzer's mappings */
		c.flags |= DRM_TERN_CONTEXT_CREATE_PROGRESS_VA;
		c.progress_va = chance(w, 90) ? FUZZ_VA + DRM_TERN_PAGE_SIZE *
				(uint64_t)below(w, FUZZ_SPAN / DRM_TERN_PAGE_SIZE) : rnd(w);
		ex(&e, EEXIST);
		ex(&e, ENOSPC);
		ex(&e, ERANGE);
		if (!(c.flags & DRM_TERN_CONTEXT_CREATE_PROGRESS) ||
		    c.progress_va % DRM_TERN_PAGE_SIZE) {
			ex(&e, EINVAL);
			bad = true;
		}
	}
	if (chance(w, 6)) {
		c.flags = rnd(w) | 8;	/* an unknown flag */
		ex(&e, EINVAL);
		bad = true;
	}
	if (chance(w, 6)) {
		c.priority = 3 + below(w, 1000);
		ex(&e, EINVAL);
		bad = true;
	}
	if (chance(w, 6)) {
		c.engine_class = 2 + below(w, 1000);
		ex(&e, EINVAL);
		bad = true;
	}
	if (chance(w, 6)) {
		c.timeout_ms = info.max_timeout_ms + 1 + below(w, 100000);
		ex(&e, EINVAL);
		bad = true;
	}
	if (!bad) {
		ex(&e, OK);
		ex(&e, EMFILE);	/* other aliases may hold contexts we forgot */
		ex(&e, ENOMEM);
	}
	if (!bad && f->nctx == MAX_CTX)
		return;
	asked = c.engine;
	ret = arg_ioctl(w, fd_of(w, f), DRM_IOCTL_TERN_CONTEXT_CREATE, &c, sizeof(c), k, &e);
	record(w, &e, ret);
	if (!ret) {
		if (!w->child && (!c.handle || c.engine >= info.engine_count ||
				  info.engine_class[c.engine] != c.engine_class ||
				  ((c.flags & DRM_TERN_CONTEXT_CREATE_ENGINE) &&
				   c.engine != asked) ||
				  !(c.flags & DRM_TERN_CONTEXT_CREATE_PROGRESS) !=
				  !c.progress_offset)) {
			ex_init(&e, "CONTEXT_CREATE handle/engine");
			record(w, &e, -EPROTO);
		}
		/* the page's mapping is the file's, as if VM_BIND made it */
		if ((c.flags & DRM_TERN_CONTEXT_CREATE_PROGRESS_VA) && f->nmap < MAX_MAPS) {
			f->map[f->nmap].va = c.progress_va;
			f->map[f->nmap++].range = DRM_TERN_PROGRESS_SIZE;
		}
		if (f->nctx < MAX_CTX) {
			f->ctx[f->nctx].handle = c.handle;
			f->ctx[f->nctx].class = c.engine_class;
			f->ctx[f->nctx++].dirty = false;
		} else {
			ctx_destroy(f->fd[0], c.handle);
		}
	}
}

static void op_ctx_destroy_state(struct worker *w, struct file *f)
{
	int ci = f->nctx ? (int)below(w, f->nctx) : -1, ret;
	bool valid = ci >= 0 && chance(w, 80);
	uint32_t h = valid ? f->ctx[ci].handle : bogus_handle(w);
	enum ptr_kind k = pick_ptr(w, 8);
	struct expect e;

	if (chance(w, 25)) {
		struct drm_tern_wait t = {
			.context = h,
			.seqno = chance(w, 80) ? below(w, 64) : rnd(w),
		};

		ex_init(&e, "WAIT");
		if (chance(w, 8)) {
			t.flags = rnd(w) | 1;
			ex(&e, EINVAL);
		}
		if (!valid)
			ex(&e, ENOENT);
		/* a past deadline: only looks */
		ex(&e, EINVAL);		/* seqno 0 or not submitted */
		if (valid && !t.flags) {
			ex(&e, OK);
			ex(&e, ETIME);
			ex(&e, ENODATA);
		}
		snprintf(e.detail, sizeof(e.detail), " (handle %#x, seqno %u)", h, t.seqno);
		ret = arg_ioctl(w, fd_of(w, f), DRM_IOCTL_TERN_WAIT, &t, sizeof(t), k, &e);
		record(w, &e, ret);
		return;
	}
	if (chance(w, 60)) {
		struct drm_tern_context_get_state s = { .handle = h };

		ex_init(&e, "CONTEXT_GET_STATE");
		if (chance(w, 8)) {
			s.flags = rnd(w) | 1;
			ex(&e, EINVAL);
		}
		if (!valid)
			ex(&e, ENOENT);
		if (valid && !s.flags)
			ex(&e, OK);
		snprintf(e.detail, sizeof(e.detail), " (handle %#x, file of %d)", h, f->nfd);
		ret = arg_ioctl(w, fd_of(w, f), DRM_IOCTL_TERN_CONTEXT_GET_STATE,
				&s, sizeof(s), k, &e);
		record(w, &e, ret);
		if (!ret && !w->child &&
		    (s.state > DRM_TERN_CONTEXT_BANNED || s.reason > DRM_TERN_REASON_DEVICE_LOST ||
		     s.jobs_completed > s.jobs_submitted)) {
			ex_init(&e, "CONTEXT_GET_STATE fields in range");
			record(w, &e, -EPROTO);
		}
		return;
	}
	{
		struct drm_tern_context_destroy d = { .handle = h };

		ex_init(&e, "CONTEXT_DESTROY");
		if (chance(w, 8)) {
			d.pad = rnd(w) | 1;
			ex(&e, EINVAL);
		}
		if (!valid)
			ex(&e, ENOENT);
		if (valid && !d.pad)
			ex(&e, OK);
		ret = arg_ioctl(w, fd_of(w, f), DRM_IOCTL_TERN_CONTEXT_DESTROY,
				&d, sizeof(d), k, &e);
		record(w, &e, ret);
		if (!ret && valid)
			f->ctx[ci] = f->ctx[--f->nctx];
	}
}

/* A job that only touches the file's base BO, with random packet mutations. */
static uint32_t build_job(struct worker *w, uint32_t *dw, bool *mutated)
{
	uint32_t n = 0, i, npk = 1 + below(w, 4);

	*mutated = false;
	for (i = 0; i < npk; i++) {
		uint64_t va = BASE_VA + 4 * below(w, BASE_SIZE / 4 - 64);

		switch (below(w, 4)) {
		case 0:
			pkt_write_imm(dw, &n, va, rnd(w));
			break;
		case 1:
			pkt_fill(dw, &n, va & ~3ull, 4 * (1 + below(w, 32)), rnd(w));
			break;
		case 2:
			dw[n++] = TERN_PKT_HEADER(TERN_OP_NOP, 1);
			break;
		default:
			pkt_spin(dw, &n, 1 + below(w, 200));
			break;
		}
	}
	if (chance(w, 25)) {
		/* a header or an operand turned into garbage */
		uint32_t at = below(w, n);

		switch (below(w, 4)) {
		case 0: dw[at] = rnd(w); break;
		case 1: dw[at] ^= 1u << below(w, 32); break;
		case 2: dw[at] = TERN_PKT_HEADER(below(w, 256), below(w, 16)); break;
		default:
			/* an unmapped address: the job faults on the device */
			dw[at] = TERN_PKT_HEADER(TERN_OP_WRITE_IMM, TERN_PKT_DWORDS_WRITE_IMM);
			if (at + 3 < 64 && at + 3 >= n)
				n = at + 4;
			if (at + 3 < 64) {
				dw[at + 1] = rnd(w) & ~3u;
				dw[at + 2] = below(w, 0x10000);
				dw[at + 3] = 0;
			}
			break;
		}
		*mutated = true;
	}
	/* no garbage may keep an engine busy for long: clamp waits and spins */
	for (i = 0; i < n;) {
		uint32_t len = TERN_PKT_LENGTH(dw[i]), op = TERN_PKT_OPCODE(dw[i]);

		if (op == TERN_OP_SPIN && i + 1 < n && dw[i + 1] > 500)
			dw[i + 1] = 1 + dw[i + 1] % 500;
		if (op == TERN_OP_WAIT_MEM && i + 4 < n && dw[i + 4] > 1000)
			dw[i + 4] = 1 + dw[i + 4] % 1000;
		if (!len)
			break;
		i += len;
	}
	return n;
}

/*
 * DRM_IOCTL_TERN_SUBMIT_MANY: 1 to 6 entries, each a small job on a context
 * of the file (or a bogus one), with the call's own fields mutated.  The
 * call returns 0 once an entry was queued, and then says where it stopped.
 */
static void op_submit_many(struct worker *w, struct file *f)
{
	static const int entry_errs[] = {
		EINVAL, EPERM, ENOEXEC, EBADMSG, E2BIG, ENOENT, EIO, EAGAIN, EINTR, ENOMEM,
	};
	struct drm_tern_submit sub[6];
	uint32_t dw[6][80], bos[6], count = 1 + below(w, 6), i;
	struct drm_tern_submit_many m = { 0 };
	enum ptr_kind k = pick_ptr(w, 5), ka = pick_ptr(w, 5);
	bool bad = false, mutated, dirty[6];
	int ci[6], ret, one;
	struct expect e;

	ex_init(&e, "SUBMIT_MANY");
	memset(sub, 0, sizeof(sub));
	/* half the calls on one context: entries the scheduler may batch */
	one = f->nctx && chance(w, 50) ? (int)below(w, f->nctx) : -1;
	for (i = 0; i < count; i++) {
		uint32_t n = build_job(w, dw[i], &mutated);

		ci[i] = one >= 0 ? one :
			f->nctx && chance(w, 90) ? (int)below(w, f->nctx) : -1;
		sub[i].context = ci[i] >= 0 ? f->ctx[ci[i]].handle : bogus_handle(w);
		bos[i] = f->base_bo;
		sub[i].cmdbuf = (uintptr_t)dw[i];
		sub[i].cmdbuf_size = n * 4;
		sub[i].bo_handles = (uintptr_t)&bos[i];
		sub[i].bo_count = 1;
		dirty[i] = mutated;
	}
	m.submits = (uintptr_t)place(w, ka, sub, count * sizeof(sub[0]));
	m.count = count;
	m.stride = sizeof(sub[0]);
	if (chance(w, 4)) {
		m.count = chance(w, 50) ? 0 : DRM_TERN_SUBMIT_MANY_MAX + 1 + below(w, 1000);
		bad = true;
	}
	if (chance(w, 4)) {
		m.stride = chance(w, 50) ? 0 : sizeof(sub[0]) + 4 * (1 + below(w, 8));
		bad = true;
	}
	if (chance(w, 3)) {
		m.flags = rnd(w) | 1;
		bad = true;
	}
	if (chance(w, 3)) {
		m.pad = rnd(w) | 1;
		bad = true;
	}
	if (bad) {
		ex(&e, EINVAL);
	} else if (ka != PTR_VALID) {
		ex(&e, EFAULT);
	} else {
		/* 0 once one entry went in; else the first entry's own error */
		ex(&e, OK);
		for (i = 0; i < sizeof(entry_errs) / sizeof(entry_errs[0]); i++)
			ex(&e, entry_errs[i]);
	}
	snprintf(e.detail, sizeof(e.detail), " (count %u stride %u flags %#x)", m.count,
		 m.stride, m.flags);
	ret = arg_ioctl(w, fd_of(w, f), DRM_IOCTL_TERN_SUBMIT_MANY, &m, sizeof(m), k, &e);
	record(w, &e, ret);
	if (ret || w->child)
		return;
	for (i = 0; i < m.submitted && i < count; i++)
		if (ci[i] >= 0 && dirty[i])
			f->ctx[ci[i]].dirty = true;
	bad = !m.submitted || m.submitted > count || (m.submitted == count) != !m.error;
	for (i = 0; i < m.submitted && i < count; i++)
		bad |= !sub[i].seqno;
	if (m.submitted < count) {
		bool known = false;

		for (i = 0; i < sizeof(entry_errs) / sizeof(entry_errs[0]); i++)
			known |= m.error == -entry_errs[i];
		bad |= !known || sub[m.submitted].seqno;
	}
	if (bad) {
		ex_init(&e, "SUBMIT_MANY submitted/error/seqnos");
		snprintf(e.detail, sizeof(e.detail), " (%u of %u, error %d)", m.submitted,
			 count, m.error);
		record(w, &e, -EPROTO);
	}
}

static void op_submit(struct worker *w, struct file *f)
{
	uint32_t dw[80], bos[4], nbos = 0, n, i;
	struct drm_tern_sync in[2], out[2];
	struct drm_tern_submit s = { 0 };
	enum ptr_kind k = pick_ptr(w, 5), kc = pick_ptr(w, 6), kb = pick_ptr(w, 5),
		      ks = pick_ptr(w, 5);
	int ci = f->nctx ? (int)below(w, f->nctx) : -1, ret;
	bool valid_ctx = ci >= 0 && chance(w, 90), mutated, bad = false;
	struct expect e;

	ex_init(&e, "SUBMIT");
	n = build_job(w, dw, &mutated);
	s.context = valid_ctx ? f->ctx[ci].handle : bogus_handle(w);
	if (!valid_ctx) {
		ex(&e, ENOENT);
		bad = true;
	}
	bos[nbos++] = f->base_bo;
	for (i = 0; i < 2 && f->nbo; i++)
		bos[nbos++] = f->bo[below(w, f->nbo)].handle;
	if (chance(w, 6)) {
		bos[below(w, nbos)] = bogus_handle(w);
		ex(&e, ENOENT);
		bad = true;
	}
	s.cmdbuf = (uintptr_t)place(w, kc, dw, n * 4);
	s.cmdbuf_size = n * 4;
	s.bo_handles = (uintptr_t)place(w, kb, bos, nbos * 4);
	s.bo_count = nbos;
	memset(in, 0, sizeof(in));
	memset(out, 0, sizeof(out));
	if (f->nso && chance(w, 40)) {
		out[0].handle = f->so[below(w, f->nso)];
		s.out_sync_count = 1;
	}
	if (f->nso && chance(w, 20)) {
		/* an in-sync that has a fence: the clean syncobj, once used */
		in[0].handle = f->clean_so;
		s.in_sync_count = 1;
		ex(&e, ENOENT);	/* it may have no fence yet */
	}
	s.out_syncs = (uintptr_t)place(w, ks, out, sizeof(out[0]) * (s.out_sync_count ? 1 : 2));
	s.in_syncs = (uintptr_t)in;
	if (mutated) {
		ex(&e, EINVAL);
		ex(&e, EPERM);
		ex(&e, ENOEXEC);
		ex(&e, EBADMSG);
		ex(&e, E2BIG);
		ex(&e, OK);
	}
	if (chance(w, 4)) {
		s.flags = rnd(w) | 1;
		ex(&e, EINVAL);
		bad = true;
	}
	if (chance(w, 4)) {
		s.pad = rnd(w) | 1;
		ex(&e, EINVAL);
		bad = true;
	}
	if (chance(w, 4)) {
		switch (below(w, 3)) {
		case 0: s.cmdbuf_size = 0; ex(&e, EINVAL); break;
		case 1: s.cmdbuf_size = n * 4 - 1 - below(w, 3); ex(&e, EINVAL); break;
		default:
			s.cmdbuf_size = info.buf_size_max + 4 * (1 + below(w, 1000));
			ex(&e, E2BIG);
			ex(&e, EFAULT);
			break;
		}
		ex(&e, EBADMSG);	/* a shorter buffer cuts a packet */
		bad = true;
	}
	if (chance(w, 4)) {
		s.bo_count = info.max_bos_per_submit + 1 + below(w, 1000);
		ex(&e, EINVAL);
		bad = true;
	}
	if (chance(w, 3)) {
		s.out_sync_count = info.max_syncs_per_submit + 1 + below(w, 1000);
		ex(&e, EINVAL);
		bad = true;
	}
	if (chance(w, 3) && s.out_sync_count == 1) {
		out[0].flags = rnd(w) | 1;
		ex(&e, EINVAL);
		bad = true;
	}
	if (chance(w, 3)) {
		in[0].handle = bogus_handle(w);
		s.in_sync_count = 1;
		ex(&e, ENOENT);
		ex(&e, EINVAL);	/* flags checked first may say so */
		bad = true;
	}
	if (chance(w, 3) && s.out_sync_count <= 1) {
		out[0].handle = bogus_handle(w);
		s.out_sync_count = 1;
		ex(&e, ENOENT);
		bad = true;
	}
	if ((kc != PTR_VALID && s.cmdbuf_size) || (kb != PTR_VALID && s.bo_count) ||
	    (ks != PTR_VALID && s.out_sync_count)) {
		ex(&e, EFAULT);
		bad = true;
	}
	if (!bad) {
		ex(&e, OK);
		ex(&e, ENOMEM);
	}
	/* any submit on a context that may have faulted or been banned */
	if (valid_ctx && f->ctx[ci].dirty)
		ex(&e, EIO);
	if (valid_ctx && f->ctx[ci].class == DRM_TERN_ENGINE_CLASS_COPY && mutated)
		ex(&e, ENOEXEC);
	ex(&e, EAGAIN);
	ex(&e, EINTR);
	snprintf(e.detail, sizeof(e.detail), " (ctx %#x bo %#x/%#x/%#x out %u:%#x)", s.context,
		 bos[0], bos[1], bos[2], s.out_sync_count, out[0].handle);
	ret = arg_ioctl(w, fd_of(w, f), DRM_IOCTL_TERN_SUBMIT, &s, sizeof(s), k, &e);
	record(w, &e, ret);
	if (!ret && valid_ctx && mutated)
		f->ctx[ci].dirty = true;
	if (!ret && !w->child && (!s.seqno || s.error_offset)) {
		ex_init(&e, "SUBMIT seqno/error_offset");
		record(w, &e, -EPROTO);
	}
}

/* A valid job on the file's clean context whose result is checked. */
/* A checked job did not signal: what the scheduler holds, for the log. */
static void dump_scheduler(void)
{
	static const char *const files[] = { "engines", "queues", "contexts" };
	char path[512], line[512];
	unsigned int i;

	for (i = 0; i < 3; i++) {
		FILE *fp;

		if (!core_debugfs_path(files[i], path, sizeof(path)))
			continue;
		fp = fopen(path, "r");
		while (fp && fgets(line, sizeof(line), fp))
			fprintf(stderr, "# %s: %s", files[i], line);
		if (fp)
			fclose(fp);
	}
}

static void op_checked_job(struct worker *w, struct file *f)
{
	uint32_t dw[16], n = 0, off = 4 * below(w, CHECK_SIZE / 4), v = rnd(w) | 1;
	struct expect e;
	int ret;

	ex_init(&e, "checked job: submit");
	ex(&e, OK);
	ex(&e, EAGAIN);
	ex(&e, EINTR);
	pkt_write_imm(dw, &n, CHECK_VA + off, v);
	ret = submit(fd_of(w, f), f->clean_ctx, dw, n, &f->check_bo, 1, 0,
		     f->clean_so, NULL);
	record(w, &e, ret);
	if (ret)
		return;
	ex_init(&e, "checked job: wait");
	ex(&e, OK);
	ret = syncobj_wait(f->fd[0], f->clean_so, 30000);
	if (ret == -ETIME)
		dump_scheduler();
	record(w, &e, ret);
	if (!ret && !w->child) {
		__atomic_fetch_add(&sh->jobs_checked, 1, __ATOMIC_RELAXED);
		if (f->check[off / 4] != v)
			__atomic_fetch_add(&sh->jobs_bad, 1, __ATOMIC_RELAXED);
	}
}

static void op_syncobj(struct worker *w, struct file *f)
{
	int fd = fd_of(w, f), ret, si = f->nso ? (int)below(w, f->nso) : -1;
	enum ptr_kind k = pick_ptr(w, 8), kh = pick_ptr(w, 8);
	bool valid = si >= 0 && chance(w, 85);
	uint32_t h = valid ? f->so[si] : bogus_handle(w);
	uint64_t point = 1 + below(w, 8);
	struct expect e;

	switch (below(w, 7)) {
	case 0: {
		struct drm_syncobj_create c = { 0 };

		ex_init(&e, "SYNCOBJ_CREATE");
		if (chance(w, 30))
			c.flags = DRM_SYNCOBJ_CREATE_SIGNALED;
		if (chance(w, 8)) {
			c.flags |= 2u << below(w, 30);
			ex(&e, EINVAL);
		} else {
			ex(&e, OK);
			ex(&e, ENOMEM);
		}
		if (f->nso == MAX_SYNC && !(c.flags & ~1u) && k == PTR_VALID)
			return;
		ret = arg_ioctl(w, fd, DRM_IOCTL_SYNCOBJ_CREATE, &c, sizeof(c), k, &e);
		record(w, &e, ret);
		if (!ret) {
			if (f->nso < MAX_SYNC) {
				f->timeline[f->nso] = chance(w, 50);
				f->so[f->nso++] = c.handle;
			} else {
				drmSyncobjDestroy(f->fd[0], c.handle);
			}
		}
		return;
	}
	case 1: {
		struct drm_syncobj_destroy d = { .handle = h };

		ex_init(&e, "SYNCOBJ_DESTROY");
		if (chance(w, 8))
			d.pad = rnd(w) | 1;
		ex(&e, d.pad || !valid ? EINVAL : OK);
		ret = arg_ioctl(w, fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d, sizeof(d), k, &e);
		record(w, &e, ret);
		if (!ret && valid)
			f->so[si] = f->so[--f->nso], f->timeline[si] = f->timeline[f->nso];
		return;
	}
	case 2: {
		struct drm_syncobj_wait wt = {
			.handles = (uintptr_t)place(w, kh, &h, 4), .count_handles = 1,
			.timeout_nsec = chance(w, 50) ? 0 : now_ns() + 1000000,
		};

		ex_init(&e, "SYNCOBJ_WAIT");
		if (chance(w, 50))
			wt.flags |= DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
		if (chance(w, 20))
			wt.flags |= DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
		if (chance(w, 6)) {
			wt.flags |= 1u << (4 + below(w, 28));
			ex(&e, EINVAL);
		} else if (ex_handle(&e, kh, valid)) {
			ex(&e, OK);
			ex(&e, ETIME);
			if (!(wt.flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT))
				ex(&e, EINVAL);	/* no fence yet */
			if (f->timeline[si])
				ex(&e, EINVAL);
		}
		ex(&e, EINTR);
		ret = arg_ioctl(w, fd, DRM_IOCTL_SYNCOBJ_WAIT, &wt, sizeof(wt), k, &e);
		record(w, &e, ret);
		return;
	}
	case 3: {
		struct drm_syncobj_array a = {
			.handles = (uintptr_t)place(w, kh, &h, 4), .count_handles = 1,
		};
		bool reset = chance(w, 50);

		ex_init(&e, reset ? "SYNCOBJ_RESET" : "SYNCOBJ_SIGNAL");
		if (chance(w, 6)) {
			a.pad = rnd(w) | 1;
			ex(&e, EINVAL);
		} else if (chance(w, 5)) {
			a.count_handles = 0;
			ex(&e, EINVAL);
		} else if (ex_handle(&e, kh, valid)) {
			ex(&e, OK);
			ex(&e, ENOMEM);
		}
		ret = arg_ioctl(w, fd, reset ? DRM_IOCTL_SYNCOBJ_RESET : DRM_IOCTL_SYNCOBJ_SIGNAL,
				&a, sizeof(a), k, &e);
		record(w, &e, ret);
		return;
	}
	case 4: {
		struct drm_syncobj_timeline_array a = {
			.handles = (uintptr_t)place(w, kh, &h, 4),
			.points = (uintptr_t)&point, .count_handles = 1,
		};
		bool query = chance(w, 50);

		ex_init(&e, query ? "SYNCOBJ_QUERY" : "SYNCOBJ_TIMELINE_SIGNAL");
		if (chance(w, 6)) {
			a.flags = 2u << below(w, 30);
			ex(&e, EINVAL);
		} else if (chance(w, 5)) {
			a.count_handles = 0;
			ex(&e, EINVAL);
		} else if (ex_handle(&e, kh, valid)) {
			ex(&e, OK);
			ex(&e, ENOMEM);
		}
		ret = arg_ioctl(w, fd, query ? DRM_IOCTL_SYNCOBJ_QUERY
					     : DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL,
				&a, sizeof(a), k, &e);
		record(w, &e, ret);
		return;
	}
	case 5: {
		struct drm_syncobj_timeline_wait wt = {
			.handles = (uintptr_t)place(w, kh, &h, 4),
			.points = (uintptr_t)&point, .count_handles = 1,
			.timeout_nsec = chance(w, 50) ? 0 : now_ns() + 1000000,
		};

		ex_init(&e, "SYNCOBJ_TIMELINE_WAIT");
		if (chance(w, 50))
			wt.flags |= DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
		if (chance(w, 20))
			wt.flags |= DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
		if (chance(w, 6)) {
			wt.flags |= 1u << (4 + below(w, 28));
			ex(&e, EINVAL);
		} else if (ex_handle(&e, kh, valid)) {
			ex(&e, OK);
			ex(&e, ETIME);
			ex(&e, EINVAL);	/* no fence at the point yet */
		}
		ex(&e, EINTR);
		ret = arg_ioctl(w, fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &wt, sizeof(wt), k, &e);
		record(w, &e, ret);
		return;
	}
	default: {
		/* a timeline point as the out-sync of a checked job */
		uint32_t dw[8], n = 0;
		struct drm_tern_sync o = { .handle = h, .point = point };
		struct drm_tern_submit s = {
			.context = f->clean_ctx, .cmdbuf = (uintptr_t)dw,
			.bo_count = 1, .bo_handles = (uintptr_t)&f->base_bo,
			.out_syncs = (uintptr_t)&o, .out_sync_count = 1,
		};

		if (!valid || !f->timeline[si])
			return;
		pkt_write_imm(dw, &n, BASE_VA, 7);
		s.cmdbuf_size = n * 4;
		ex_init(&e, "SUBMIT with a timeline out-sync");
		ex(&e, OK);
		ex(&e, EAGAIN);
		ex(&e, EINTR);
		ret = xioctl(fd, DRM_IOCTL_TERN_SUBMIT, &s);
		record(w, &e, ret);
		return;
	}
	}
}

static void op_prime(struct worker *w, struct file *f)
{
	struct file *to = pick_file(w);
	int b = pick_bo(w, f), ret;
	bool valid = b >= 0 && chance(w, 85);
	struct drm_prime_handle p = {
		.handle = valid ? f->bo[b].handle : bogus_handle(w),
		.flags = DRM_CLOEXEC | (chance(w, 50) ? DRM_RDWR : 0),
		.fd = -1,
	};
	enum ptr_kind k = pick_ptr(w, 8);
	struct expect e;

	ex_init(&e, "PRIME_HANDLE_TO_FD");
	if (chance(w, 6)) {
		p.flags |= 4u << below(w, 16);
		ex(&e, EINVAL);
	} else if (!valid) {
		ex(&e, ENOENT);
	} else {
		ex(&e, OK);
		ex(&e, ENOMEM);
	}
	ret = arg_ioctl(w, fd_of(w, f), DRM_IOCTL_PRIME_HANDLE_TO_FD, &p, sizeof(p), k, &e);
	record(w, &e, ret);
	if (ret)
		return;

	{
		struct drm_prime_handle q = { .fd = p.fd };

		ex_init(&e, "PRIME_FD_TO_HANDLE");
		if (chance(w, 10)) {
			q.fd = chance(w, 50) ? -1 : 1000 + (int)below(w, 1000);
			ex(&e, EBADF);
		} else if (chance(w, 10)) {
			q.fd = to->fd[0];	/* not a dma-buf */
			ex(&e, EINVAL);
		} else {
			ex(&e, OK);
			ex(&e, ENOMEM);
		}
		ret = xioctl(fd_of(w, to), DRM_IOCTL_PRIME_FD_TO_HANDLE, &q);
		record(w, &e, ret);
		close(p.fd);
		if (ret)
			return;
		/* the import is the same BO: known size; keep it if there is room */
		if (to == f) {
			/* same file: the same handle comes back */
			if (!w->child && q.handle != f->bo[b].handle) {
				ex_init(&e, "PRIME self-import gives the same handle");
				record(w, &e, -EPROTO);
			}
		} else if (to->nbo < MAX_BOS) {
			int i;
			bool known = false;

			for (i = 0; i < to->nbo; i++)
				known |= to->bo[i].handle == q.handle;
			if (!known) {
				to->bo[to->nbo].handle = q.handle;
				to->bo[to->nbo++].size = f->bo[b].size;
			}
		}
	}
}

static void one_call(struct worker *w)
{
	struct file *f;
	unsigned int r = below(w, 100);

	if (!w->nf || r < 2) {
		op_open(w);
		return;
	}
	if (r < 5) {
		op_dup_close(w);
		return;
	}
	f = pick_file(w);
	if (r < 10)
		op_get_info(w, f);
	else if (r < 20)
		op_bo_create(w, f);
	else if (r < 28)
		op_bo_info_mmap(w, f);
	else if (r < 33)
		op_gem_close(w, f);
	else if (r < 45) {
		unsigned int v = below(w, 20);

		if (v < 14)
			op_vm_bind(w, f);
		else if (v < 19)
			op_vm_bind_ops(w, f);
		else
			op_vm_get_state(w, f);
	}
	else if (r < 51)
		op_ctx_create(w, f);
	else if (r < 57)
		op_ctx_destroy_state(w, f);
	else if (r < 69)
		op_submit(w, f);
	else if (r < 72)
		op_submit_many(w, f);
	else if (r < 77)
		op_checked_job(w, f);
	else if (r < 93)
		op_syncobj(w, f);
	else
		op_prime(w, f);
}

static bool worker_init(struct worker *w, uint64_t seed, bool child)
{
	memset(w, 0, sizeof(*w));
	w->rng = seed * 0x9e3779b97f4a7c15ull + 1;
	w->child = child;
	w->guard = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	w->hole = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w->guard == MAP_FAILED || w->hole == MAP_FAILED)
		return false;
	memset(w->guard, 0, 4096);
	mprotect(w->guard + 4096, 4096, PROT_NONE);
	return true;
}

static void worker_fini(struct worker *w)
{
	while (w->nf)
		file_close(&w->f[--w->nf]);
	munmap(w->guard, 2 * 4096);
	munmap(w->hole, 4096);
}

struct thread_arg { uint64_t seed; long iters; };

static void *thread_main(void *p)
{
	struct thread_arg *a = p;
	struct worker *w = malloc(sizeof(*w));
	long i;

	if (!w || !worker_init(w, a->seed, false))
		return (void *)1;
	for (i = 0; i < a->iters; i++)
		one_call(w);
	worker_fini(w);
	free(w);
	return NULL;
}

/* One worker process: THREADS threads of fuzzing, then exit 0. */
static int worker_process(uint64_t seed, long iters)
{
	pthread_t t[THREADS];
	struct thread_arg a[THREADS];
	void *r;
	int i, bad = 0;

	for (i = 0; i < THREADS; i++) {
		a[i].seed = seed * 16 + i;
		a[i].iters = iters;
		if (pthread_create(&t[i], NULL, thread_main, &a[i]))
			return 2;
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(t[i], &r);
		bad |= r != NULL;
	}
	return bad ? 3 : 0;
}

/* A child that fuzzes until killed: its calls are counted, not judged. */
static void doomed_child(uint64_t seed)
{
	struct worker w;

	if (!worker_init(&w, seed, true))
		_exit(2);
	for (;;) {
		one_call(&w);
		__atomic_fetch_add(&sh->killed_calls, 1, __ATOMIC_RELAXED);
	}
}

static bool device_runs_a_job(void)
{
	uint32_t dw[32], n = 0, ctx = 0, bo = 0, so, i;
	volatile uint32_t *mem;
	bool ok;
	int fd = tern_test_open();

	if (fd < 0)
		return false;
	ok = !ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &ctx) &&
	     !core_bo(fd, 4096, BASE_VA, &bo, (void **)&mem);
	so = syncobj_new(fd);
	pkt_fill(dw, &n, BASE_VA, 4096, 0x5a5a5a5a);
	for (i = 0; i < 4; i++)
		pkt_write_imm(dw, &n, BASE_VA + 64 * i, 0xf00d0000 | i);
	ok = ok && !submit(fd, ctx, dw, n, &bo, 1, 0, so, NULL) && !syncobj_wait(fd, so, 30000);
	for (i = 0; ok && i < 1024; i++)
		ok = mem[i] == ((i % 16 == 0 && i < 64) ? (0xf00d0000 | i / 16) : 0x5a5a5a5a);
	close(fd);
	return ok;
}

int main(void)
{
	const char *it = getenv("TERN_FUZZ_ITERATIONS"), *sd = getenv("TERN_FUZZ_SEED");
	long iters = it ? atol(it) : DEF_ITER;
	uint64_t seed = sd ? strtoull(sd, NULL, 0) : 0x7e70;
	int fd, i, status, crashed = 0, killed = 0;
	pid_t pid[WORKERS];
	unsigned long total;
	char line[1024];
	int len;

	tap_plan(7);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	fd = tern_test_open();
	if (!tap_ok(fd >= 0 && sh != MAP_FAILED && !core_get_info(fd, &info),
		    "open the device and read its limits"))
		return tap_exit_status();
	close(fd);
	tap_diag("seed 0x%llx, %ld calls per thread, %d processes x %d threads, %d killed children",
		 (unsigned long long)seed, iters, WORKERS, THREADS, KILLED);
	signal(SIGPIPE, SIG_IGN);

	for (i = 0; i < WORKERS; i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			_exit(worker_process(seed + i, iters));
	}
	/* meanwhile: children killed in the middle of their calls */
	{
		struct worker rw;

		worker_init(&rw, seed ^ 0xdead, true);
		for (i = 0; i < KILLED; i++) {
			pid_t c = fork();

			if (c == 0)
				doomed_child(seed * 1000 + i);
			/* let it get going: 20 to 300 ms */
			usleep(20000 + below(&rw, 280000));
			kill(c, SIGKILL);
			waitpid(c, &status, 0);
			killed += WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
		}
	}
	for (i = 0; i < WORKERS; i++) {
		waitpid(pid[i], &status, 0);
		crashed += !WIFEXITED(status) || WEXITSTATUS(status);
	}

	total = sh->calls;
	tap_diag("%lu calls made (%lu by children killed mid-run), %lu checked jobs",
		 total, sh->killed_calls, sh->jobs_checked);
	len = snprintf(line, sizeof(line), "errno histogram:");
	for (i = 0; i <= NERR; i++)
		if (sh->hist[i])
			len += snprintf(line + len, sizeof(line) - len, " %s=%lu",
					i == 0 ? "ok" : i == NERR ? "other" : strerrorname_np(i),
					sh->hist[i]);
	tap_diag("%s", line);
	for (i = 0; i < 16 && sh->kind[i]; i++)
		tap_diag("unexpected (first of its kind): %s", sh->first[i]);

	tap_ok(!crashed, "every worker process ran to the end (%d did not)", crashed);
	tap_ok(killed == KILLED, "%d of %d children killed with SIGKILL mid-call", killed, KILLED);
	tap_ok(total >= (unsigned long)(WORKERS * THREADS * iters),
	       "%lu calls made, at least %ld", total, WORKERS * THREADS * iters);
	tap_ok(sh->unexpected == 0, "every call returned a documented result (%lu did not)",
	       sh->unexpected);
	tap_ok(sh->jobs_checked > 0 && sh->jobs_bad == 0,
	       "%lu checked jobs wrote their values (%lu did not)", sh->jobs_checked, sh->jobs_bad);
	tap_ok(device_runs_a_job(), "the device runs a correct job afterwards");
	return tap_exit_status();
}
