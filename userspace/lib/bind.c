// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * bind.c - device addresses the caller manages: ranges reserved from the
 * allocator of tern_bo_alloc() (va.c), asynchronous binds that map and
 * unmap buffers in them (DRM_IOCTL_TERN_VM_BIND_OPS), and the address
 * space's state (DRM_IOCTL_TERN_VM_GET_STATE).
 *
 * tern_submit() finds the buffer behind each address range a command
 * buffer uses; for the mappings of binds it looks in dev->maps, the
 * library's view of them as the binds queued leave the address space,
 * which is also what the kernel checks binds against.  A bind is applied
 * to the view before its ioctl (and undone if the kernel refuses it), and
 * kept as a struct tern_bind_rec, with the changes it made, until it is
 * known to be done.
 *
 * A bind one of whose in-fences failed does not run: the kernel fails it,
 * cancels the binds queued after it and undoes them all.  The library
 * learns of it at its next look at the address space's state (the next
 * tern_vm_bind(), tern_vm_state() or tern_va_release(); the last two also
 * take in the binds whose fence signalled but that the kernel does not
 * count done yet): only when the counts of failed and cancelled binds
 * moved since the last look is each bind done since asked for its
 * outcome, on a fence of its own (the caller's may be freed at any time).
 * The view then drops the binds that did not run: it takes back every bind
 * from the first of them on, the last first, and makes the others again,
 * in order.  A bind may be cancelled after the look that saw its
 * predecessor fail: the binds still queued then are suspects, asked for
 * their outcome once done.
 *
 * Locking: dev->bind_lock orders the binds (their records are in the
 * kernel's order) and the looks at the state; dev->lock guards the view,
 * the reservations and the records (tern_bo_free() clears its buffer from
 * their changes).  The list of records changes with both held, so a
 * holder of either may walk it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <xf86drm.h>

#include "internal.h"
#include "tern_accel.h"

_Static_assert((int)TERN_BIND_MAP == (int)DRM_TERN_VM_BIND_OP_MAP, "map");
_Static_assert((int)TERN_BIND_UNMAP == (int)DRM_TERN_VM_BIND_OP_UNMAP, "unmap");
_Static_assert(TERN_BIND_READ_ONLY == DRM_TERN_VM_BIND_READ_ONLY, "read-only");
_Static_assert(TERN_BIND_MAX_OPS == DRM_TERN_VM_BIND_OPS_MAX, "operations per bind");

/* The ioctls of this file came with interface 1.4. */
#define TERN_BIND_INTERFACE	(1u << 16 | 4)

/* One change of the view: @map added, or removed. */
struct tern_bind_change {
	bool added;
	struct tern_vm_map map;
};

/* A bind queued and not known to be done. */
struct tern_bind_rec {
	struct tern_bind_rec *prev, *next;
	uint64_t seqno;
	struct tern_fence *fence;	/* the bind's, the library's own */
	bool suspect;			/* may have been cancelled: ask it */
	int status;			/* once done: 0 or its error */
	struct tern_bind_change *changes;	/* in the order made */
	size_t nchanges, cap;
};

static bool have_binds(const struct tern_device *dev, const char *what)
{
	if (dev->info.driver_version >= TERN_BIND_INTERFACE)
		return true;
	tern_seterr(-EOPNOTSUPP, "%s: the driver (interface %u.%u) is older than interface "
		    "1.4, which brought asynchronous binds", what,
		    dev->info.driver_version >> 16, dev->info.driver_version & 0xffff);
	return false;
}

static uint64_t page_up(uint64_t n)
{
	return (n + TERN_LIB_PAGE_SIZE - 1) & ~(uint64_t)(TERN_LIB_PAGE_SIZE - 1);
}

/* ---- reservations ---- */

/* Index of the first reservation whose VA is above @va.  dev->lock held. */
static size_t rsv_upper(const struct tern_device *dev, uint64_t va)
{
	return tern_array_upper(dev->rsv, dev->rsv_count, sizeof(dev->rsv[0]), va);
}

/* The reservation holding [va, va + size), or NULL.  dev->lock held. */
static const struct tern_va_rsv *rsv_find(const struct tern_device *dev, uint64_t va,
					  uint64_t size)
{
	size_t i = rsv_upper(dev, va);
	const struct tern_va_rsv *r;

	if (!i)
		return NULL;
	r = &dev->rsv[i - 1];
	if (va - r->va >= r->size || size > r->size - (va - r->va))
		return NULL;
	return r;
}

int tern_va_reserve(struct tern_device *dev, uint64_t size, uint64_t align, uint64_t *va)
{
	size_t i;
	int ret;

	*va = 0;
	tern_clearerr();
	if (!size)
		return tern_seterr(-EINVAL, "reserving addresses: size 0");
	if (align & (align - 1))
		return tern_seterr(-EINVAL, "reserving addresses: alignment 0x%llx is not a "
				   "power of two", (unsigned long long)align);
	if (size > UINT64_MAX - 2 * TERN_LIB_PAGE_SIZE)
		return tern_seterr(-ENOSPC, "reserving addresses: %llu bytes do not fit in "
				   "the device address space", (unsigned long long)size);
	if (align < TERN_LIB_PAGE_SIZE)
		align = TERN_LIB_PAGE_SIZE;
	size = page_up(size);

	pthread_mutex_lock(&dev->lock);
	if (tern_array_room(&dev->rsv, &dev->rsv_cap, dev->rsv_count + 1, sizeof(dev->rsv[0]))) {
		pthread_mutex_unlock(&dev->lock);
		return tern_seterr(-ENOMEM, "reserving addresses: out of memory");
	}
	/* the guard page after it, as after a buffer */
	ret = tern_va_alloc(&dev->va, size + TERN_LIB_PAGE_SIZE, align, va);
	if (ret) {
		pthread_mutex_unlock(&dev->lock);
		return tern_seterr(ret, "reserving addresses: no room for %llu bytes aligned to "
				   "0x%llx in the device address space (%u-bit)",
				   (unsigned long long)size, (unsigned long long)align,
				   dev->info.va_bits);
	}
	i = rsv_upper(dev, *va);
	memmove(&dev->rsv[i + 1], &dev->rsv[i], (dev->rsv_count - i) * sizeof(dev->rsv[0]));
	dev->rsv[i] = (struct tern_va_rsv){ .va = *va, .size = size };
	dev->rsv_count++;
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

/* ---- the view: the mappings of binds, sorted by VA ---- */

/* Index of the first mapping whose VA is above @va.  dev->lock held. */
static size_t map_upper(const struct tern_device *dev, uint64_t va)
{
	return tern_array_upper(dev->maps, dev->map_count, sizeof(dev->maps[0]), va);
}

struct tern_bo *tern_vm_map_lookup_locked(struct tern_device *dev, uint64_t va, uint64_t size)
{
	size_t i = map_upper(dev, va);
	const struct tern_vm_map *m;

	if (!i)
		return NULL;
	m = &dev->maps[i - 1];
	if (va - m->va >= m->range || size > m->range - (va - m->va))
		return NULL;
	return m->bo;
}

/* Room for @n more mappings.  dev->lock held. */
static int map_room(struct tern_device *dev, size_t n)
{
	return tern_array_room(&dev->maps, &dev->map_cap, dev->map_count + n,
			       sizeof(dev->maps[0]));
}

/* Add @m, with room for it.  dev->lock held. */
static void map_insert(struct tern_device *dev, const struct tern_vm_map *m)
{
	size_t i = map_upper(dev, m->va);

	memmove(&dev->maps[i + 1], &dev->maps[i], (dev->map_count - i) * sizeof(dev->maps[0]));
	dev->maps[i] = *m;
	dev->map_count++;
}

static void map_remove_at(struct tern_device *dev, size_t i)
{
	memmove(&dev->maps[i], &dev->maps[i + 1],
		(dev->map_count - i - 1) * sizeof(dev->maps[0]));
	dev->map_count--;
}

/* Remove the mapping equal to @m: true, or false if there is none.  dev->lock held. */
static bool map_remove(struct tern_device *dev, const struct tern_vm_map *m)
{
	size_t i = map_upper(dev, m->va);

	for (; i > 0 && dev->maps[i - 1].va == m->va; i--) {
		const struct tern_vm_map *o = &dev->maps[i - 1];

		if (o->range == m->range && o->bo == m->bo) {
			map_remove_at(dev, i - 1);
			return true;
		}
	}
	return false;
}

/* Room for @n more changes in @rec. */
static int rec_room(struct tern_bind_rec *rec, size_t n)
{
	return tern_array_room(&rec->changes, &rec->cap, rec->nchanges + n,
			       sizeof(rec->changes[0]));
}

/*
 * Apply @op to the view, recording what changed into @rec: a map adds its
 * mapping, an unmap removes the mappings inside its range (the kernel
 * refuses one that cuts a mapping: the bind is then taken back).  0 or
 * -ENOMEM, with nothing of @op applied.  dev->lock held.
 */
static int apply_op(struct tern_device *dev, const struct tern_bind_op *op,
		    struct tern_bind_rec *rec)
{
	uint64_t end = op->va + op->range;
	size_t i, first, n = 0;

	if (op->op == TERN_BIND_MAP) {
		struct tern_vm_map m = { .va = op->va, .range = op->range, .bo = op->bo };

		if (map_room(dev, 1) || rec_room(rec, 1))
			return -ENOMEM;
		map_insert(dev, &m);
		rec->changes[rec->nchanges++] = (struct tern_bind_change){ true, m };
		return 0;
	}
	first = map_upper(dev, op->va - 1);
	for (i = first; i < dev->map_count && dev->maps[i].va < end; i++)
		n += dev->maps[i].range <= end - dev->maps[i].va;
	if (rec_room(rec, n))
		return -ENOMEM;
	for (i = first; i < dev->map_count && dev->maps[i].va < end;) {
		if (dev->maps[i].range > end - dev->maps[i].va) {
			i++;
			continue;
		}
		rec->changes[rec->nchanges++] = (struct tern_bind_change){ false, dev->maps[i] };
		map_remove_at(dev, i);
	}
	return 0;
}

/* Take @rec's changes back, the last first.  Room for them.  dev->lock held. */
static void rec_undo(struct tern_device *dev, struct tern_bind_rec *rec)
{
	size_t i = rec->nchanges;

	while (i--) {
		const struct tern_bind_change *c = &rec->changes[i];

		if (c->added)
			map_remove(dev, &c->map);
		else
			map_insert(dev, &c->map);
	}
}

/*
 * Make @rec's changes again after the binds before it changed; a removal
 * of a mapping that is not there (it came from a bind that did not run)
 * did not happen: it is forgotten.  Room for them.  dev->lock held.
 */
static void rec_redo(struct tern_device *dev, struct tern_bind_rec *rec)
{
	size_t i, n = 0;

	for (i = 0; i < rec->nchanges; i++) {
		const struct tern_bind_change *c = &rec->changes[i];

		if (c->added)
			map_insert(dev, &c->map);
		else if (!map_remove(dev, &c->map))
			continue;
		rec->changes[n++] = *c;
	}
	rec->nchanges = n;
}

static void rec_free(struct tern_bind_rec *rec)
{
	if (!rec)
		return;
	tern_fence_free(rec->fence);
	free(rec->changes);
	free(rec);
}

void tern_vm_forget_bo_locked(struct tern_device *dev, const struct tern_bo *bo)
{
	struct tern_bind_rec *rec;
	size_t i;

	/*
	 * The mapping stays in the address space, in the view too (its range
	 * is in use), but jobs no longer find a buffer there.
	 */
	for (i = 0; i < dev->map_count; i++)
		if (dev->maps[i].bo == bo)
			dev->maps[i].bo = NULL;
	for (rec = dev->binds; rec; rec = rec->next)
		for (i = 0; i < rec->nchanges; i++)
			if (rec->changes[i].map.bo == bo)
				rec->changes[i].map.bo = NULL;
}

/* ---- what the kernel did with the binds ---- */

static int get_state(struct tern_device *dev, struct drm_tern_vm_get_state *st)
{
	memset(st, 0, sizeof(*st));
	return tern_ioctl(dev, DRM_IOCTL_TERN_VM_GET_STATE, st, TERN_IOC_VM_GET_STATE,
			  "querying the address space");
}

/*
 * Bring the view in line with what the kernel did with the binds queued
 * (see the top of the file), and retire the binds that are done: those
 * the kernel counts done and, if @exact, every bind whose fence signalled
 * (the kernel counts a bind done a little after its fence signalled; a
 * bind's failure is counted before).  @st: out, may be NULL: the state the
 * kernel reported.  0 or a negative errno with the thread's error set.
 * dev->bind_lock held.
 */
static int reconcile(struct tern_device *dev, bool exact,
		     struct drm_tern_vm_get_state *st_out)
{
	struct drm_tern_vm_get_state st;
	struct tern_bind_rec *rec, *first_failed = NULL, *done, *done_end;
	uint64_t faults, signalled = 0;
	size_t room = 0;
	bool clean;
	int ret;

	if (!dev->binds && !st_out)
		return 0;
	/* fences first, then the counts: they include those binds' failures */
	for (rec = exact ? dev->binds : NULL; rec; rec = rec->next) {
		if (drmSyncobjWait(dev->fd, &rec->fence->syncobj, 1, 0, 0, NULL))
			break;
		signalled = rec->seqno;
	}
	ret = get_state(dev, &st);
	if (ret)
		return ret;
	if (st_out)
		*st_out = st;	/* as the kernel said */
	faults = st.binds_failed + st.binds_cancelled;
	clean = faults == dev->bind_faults_seen;
	dev->bind_faults_seen = faults;

	/* the outcome of each bind done; only this thread takes records off */
	if (st.done < signalled)
		st.done = signalled;
	for (rec = dev->binds; rec && rec->seqno <= st.done; rec = rec->next) {
		int status = 0;

		if (!clean || rec->suspect) {
			/* done: its fence signals at once, if it has not */
			ret = tern_fence_outcome(rec->fence, INT64_MAX, &status);
			if (ret)
				status = ret;
		}
		rec->status = status;
		if (status && !first_failed)
			first_failed = rec;
	}
	done_end = rec;

	pthread_mutex_lock(&dev->lock);
	if (first_failed) {
		for (rec = first_failed; rec; rec = rec->next)
			room += rec->nchanges;
		if (map_room(dev, room)) {
			/* ask them all again next time */
			for (rec = dev->binds; rec; rec = rec->next)
				rec->suspect = true;
			pthread_mutex_unlock(&dev->lock);
			return tern_seterr(-ENOMEM, "bind: out of memory");
		}
		/* back to before the first that did not run, then the others again */
		for (rec = dev->binds_last; rec != first_failed->prev; rec = rec->prev)
			rec_undo(dev, rec);
		for (rec = first_failed; rec; rec = rec->next)
			if (!rec->status)
				rec_redo(dev, rec);
	}
	if (!clean)
		for (rec = done_end; rec; rec = rec->next)
			rec->suspect = true;
	/* the binds done leave the list */
	done = dev->binds == done_end ? NULL : dev->binds;
	if (done) {
		dev->binds = done_end;
		if (done_end) {
			done_end->prev->next = NULL;
			done_end->prev = NULL;
		} else {
			dev->binds_last = NULL;
		}
	}
	pthread_mutex_unlock(&dev->lock);

	while (done) {
		rec = done->next;
		rec_free(done);
		done = rec;
	}
	return 0;
}

/* ---- binds ---- */

static const char *const op_names[] = { "map", "unmap" };

/* Check @ops as far as the library can.  dev->lock held (the reservations). */
static int check_ops(struct tern_device *dev, const struct tern_bind_op *ops,
		     unsigned int count)
{
	const uint64_t page = TERN_LIB_PAGE_SIZE;
	unsigned int i;

	if (!count || !ops)
		return tern_seterr(-EINVAL, "bind: no operation");
	if (count > TERN_BIND_MAX_OPS)
		return tern_seterr(-EINVAL, "bind: %u operations, a bind takes at most %u "
				   "(TERN_BIND_MAX_OPS)", count, TERN_BIND_MAX_OPS);
	for (i = 0; i < count; i++) {
		const struct tern_bind_op *op = &ops[i];
		bool map = op->op == TERN_BIND_MAP;

		if (op->op != TERN_BIND_MAP && op->op != TERN_BIND_UNMAP)
			return tern_seterr(-EINVAL, "bind: operation %u: unknown op %u "
					   "(TERN_BIND_MAP or TERN_BIND_UNMAP)", i, op->op);
		if (op->flags & ~(map ? TERN_BIND_READ_ONLY : 0))
			return tern_seterr(-EINVAL, "bind: operation %u: flags 0x%x that %s "
					   "does not take", i, op->flags,
					   map ? "a map" : "an unmap");
		if (map && !op->bo)
			return tern_seterr(-EINVAL, "bind: operation %u: a map without a buffer",
					   i);
		if (map && op->bo->dev != dev)
			return tern_seterr(-EINVAL, "bind: operation %u: a buffer of another open "
					   "device: import it with tern_bo_import()", i);
		if (!map && (op->bo || op->bo_offset))
			return tern_seterr(-EINVAL, "bind: operation %u: an unmap takes no buffer "
					   "and no offset", i);
		if (!op->range || (op->va | op->bo_offset | op->range) & (page - 1))
			return tern_seterr(-EINVAL, "bind: operation %u: address 0x%llx, offset "
					   "0x%llx and size 0x%llx must be multiples of the page "
					   "size (0x%llx), and the size not 0", i,
					   (unsigned long long)op->va,
					   (unsigned long long)op->bo_offset,
					   (unsigned long long)op->range, (unsigned long long)page);
		if (map && (op->bo_offset > op->bo->size ||
			    op->range > op->bo->size - op->bo_offset))
			return tern_seterr(-EINVAL, "bind: operation %u: 0x%llx bytes from offset "
					   "0x%llx go beyond the buffer's 0x%llx", i,
					   (unsigned long long)op->range,
					   (unsigned long long)op->bo_offset,
					   (unsigned long long)op->bo->size);
		if (!rsv_find(dev, op->va, op->range))
			return tern_seterr(-ERANGE, "bind: operation %u (%s of 0x%llx..0x%llx): "
					   "not inside one range of tern_va_reserve()", i,
					   op_names[op->op], (unsigned long long)op->va,
					   (unsigned long long)(op->va + op->range - 1));
	}
	return 0;
}

/* The kernel refused the bind: say why, naming the operation it gave. */
static int bind_refused(const struct tern_bind_op *ops, unsigned int count,
			const struct drm_tern_vm_bind_ops *args, int err)
{
	const char *msg = tern_ioctl_errmsg(TERN_IOC_VM_BIND_OPS, err);
	const struct tern_bind_op *op;

	if (!msg)
		msg = strerror(-err);
	switch (-err) {
	case EINVAL:
	case ERANGE:
	case EEXIST:
	case ENOENT:
	case ENOSPC:
		if (args->error_index >= count)
			break;
		op = &ops[args->error_index];
		return tern_seterr(err, "bind: operation %u (%s of 0x%llx..0x%llx): %s",
				   args->error_index, op_names[op->op],
				   (unsigned long long)op->va,
				   (unsigned long long)(op->va + op->range - 1), msg);
	}
	return tern_seterr(err, "bind: %s", msg);
}

/* A bind made ready for the ioctl. */
struct bind_prep {
	struct drm_tern_vm_bind_ops args;
	struct drm_tern_vm_bind *ops;
	struct drm_tern_sync *in, *out;
	struct tern_bind_rec *rec;
	struct tern_fence *fence;	/* the caller's */
};

static void bind_prep_release(struct bind_prep *p)
{
	rec_free(p->rec);
	tern_fence_free(p->fence);
	free(p->ops);
	free(p->in);
	free(p->out);
}

/* The ioctl's arguments, the bind's record and fences.  Nothing held on failure. */
static int bind_prepare(struct tern_device *dev, const struct tern_bind_op *ops,
			unsigned int count, const struct tern_deps *deps, struct bind_prep *p)
{
	unsigned int nin, nout, i;
	int ret;

	/* out-syncs: the record's fence, the caller's, then the points */
	ret = tern_deps_prepare(dev, deps, 2, "bind", &p->in, &nin, &p->out, &nout);
	if (ret)
		return ret;
	p->ops = calloc(count, sizeof(*p->ops));
	p->rec = calloc(1, sizeof(*p->rec));
	if (!p->ops || !p->rec) {
		ret = tern_seterr(-ENOMEM, "bind: out of memory");
		goto err;
	}
	ret = tern_fence_new(dev, "bind", &p->rec->fence);
	if (!ret)
		ret = tern_fence_new(dev, "bind", &p->fence);
	if (ret)
		goto err;
	p->rec->fence->bind = true;
	p->fence->bind = true;
	p->out[0].handle = p->rec->fence->syncobj;
	p->out[1].handle = p->fence->syncobj;
	for (i = 0; i < count; i++) {
		p->ops[i].op = ops[i].op;
		p->ops[i].flags = ops[i].flags;
		p->ops[i].handle = ops[i].bo ? ops[i].bo->handle : 0;
		p->ops[i].va = ops[i].va;
		p->ops[i].bo_offset = ops[i].bo_offset;
		p->ops[i].range = ops[i].range;
	}
	p->args.ops = (uintptr_t)p->ops;
	p->args.count = count;
	p->args.stride = sizeof(*p->ops);
	p->args.in_syncs = (uintptr_t)p->in;
	p->args.in_sync_count = nin;
	p->args.out_syncs = (uintptr_t)p->out;
	p->args.out_sync_count = nout;
	return 0;

err:
	bind_prep_release(p);
	memset(p, 0, sizeof(*p));
	return ret;
}

/*
 * Queue the bind of @p: in the view, then in the kernel, then in the list
 * of records, which takes @p->rec over.  dev->bind_lock held.
 */
static int bind_queue(struct tern_device *dev, const struct tern_bind_op *ops,
		      unsigned int count, struct bind_prep *p)
{
	struct tern_bind_rec *rec = p->rec;
	unsigned int i;
	int ret = 0;

	pthread_mutex_lock(&dev->lock);
	for (i = 0; i < count && !ret; i++)
		ret = apply_op(dev, &ops[i], rec);
	if (ret) {
		rec_undo(dev, rec);
		pthread_mutex_unlock(&dev->lock);
		return tern_seterr(ret, "bind: out of memory");
	}
	pthread_mutex_unlock(&dev->lock);

	/* not drmIoctl(), which would spin on -EAGAIN */
	do {
		ret = ioctl(dev->fd, DRM_IOCTL_TERN_VM_BIND_OPS, &p->args);
	} while (ret == -1 && errno == EINTR);
	ret = ret ? -errno : 0;

	pthread_mutex_lock(&dev->lock);
	if (ret) {
		rec_undo(dev, rec);
	} else {
		rec->seqno = p->args.seqno;
		rec->fence->seqno = (uint32_t)p->args.seqno;
		rec->prev = dev->binds_last;
		if (dev->binds_last)
			dev->binds_last->next = rec;
		else
			dev->binds = rec;
		dev->binds_last = rec;
		p->rec = NULL;
	}
	pthread_mutex_unlock(&dev->lock);
	return ret ? bind_refused(ops, count, &p->args, ret) : 0;
}

int tern_vm_bind(struct tern_device *dev, const struct tern_bind_op *ops, unsigned int count,
		 const struct tern_deps *deps, struct tern_fence **fencep)
{
	struct bind_prep p = { 0 };
	struct tern_fence *fence;
	int ret, status;

	if (fencep)
		*fencep = NULL;
	tern_clearerr();
	if (!have_binds(dev, "bind"))
		return -EOPNOTSUPP;
	pthread_mutex_lock(&dev->lock);
	ret = check_ops(dev, ops, count);
	pthread_mutex_unlock(&dev->lock);
	if (ret)
		return ret;
	ret = bind_prepare(dev, ops, count, deps, &p);
	if (ret)
		return ret;

	pthread_mutex_lock(&dev->bind_lock);
	/* a bind that failed since: its changes leave the view first */
	reconcile(dev, false, NULL);
	tern_clearerr();
	ret = bind_queue(dev, ops, count, &p);
	pthread_mutex_unlock(&dev->bind_lock);
	fence = p.fence;
	p.fence = NULL;
	bind_prep_release(&p);
	if (ret) {
		tern_fence_free(fence);
		return ret;
	}
	fence->seqno = (uint32_t)p.args.seqno;
	if (fencep) {
		*fencep = fence;
		return 0;
	}

	/* synchronous: its outcome, and the view without it if it failed */
	ret = tern_fence_outcome(fence, INT64_MAX, &status);
	if (!ret && status) {
		pthread_mutex_lock(&dev->bind_lock);
		reconcile(dev, true, NULL);
		pthread_mutex_unlock(&dev->bind_lock);
		ret = tern_fence_result(fence, status);
	}
	tern_fence_free(fence);
	return ret;
}

/* ---- releasing reservations, the state, closing ---- */

/* A bind still queued changes [va, va + size).  dev->lock held. */
static bool range_pending(const struct tern_device *dev, uint64_t va, uint64_t size)
{
	const struct tern_bind_rec *rec;
	size_t i;

	for (rec = dev->binds; rec; rec = rec->next)
		for (i = 0; i < rec->nchanges; i++) {
			const struct tern_vm_map *m = &rec->changes[i].map;

			if (m->va < va + size && va < m->va + m->range)
				return true;
		}
	return false;
}

int tern_va_release(struct tern_device *dev, uint64_t va, uint64_t size)
{
	const struct tern_va_rsv *r;
	size_t i;
	int ret = 0;

	tern_clearerr();
	size = size > UINT64_MAX - TERN_LIB_PAGE_SIZE ? 0 : page_up(size);
	pthread_mutex_lock(&dev->bind_lock);
	reconcile(dev, true, NULL);
	tern_clearerr();
	pthread_mutex_lock(&dev->lock);
	r = rsv_find(dev, va, size);
	if (!size || !r || r->va != va || r->size != size) {
		ret = tern_seterr(-EINVAL, "releasing addresses: 0x%llx (0x%llx bytes) is not a "
				  "range tern_va_reserve() gave", (unsigned long long)va,
				  (unsigned long long)size);
	} else {
		i = map_upper(dev, va + size - 1);
		if (i && dev->maps[i - 1].va + dev->maps[i - 1].range > va)
			ret = tern_seterr(-EBUSY, "releasing addresses: 0x%llx..0x%llx is still "
					  "mapped: unmap it first",
					  (unsigned long long)dev->maps[i - 1].va,
					  (unsigned long long)(dev->maps[i - 1].va +
							       dev->maps[i - 1].range - 1));
		else if (range_pending(dev, va, size))
			ret = tern_seterr(-EBUSY, "releasing addresses: a bind of 0x%llx..0x%llx "
					  "is not done yet: wait for its fence",
					  (unsigned long long)va,
					  (unsigned long long)(va + size - 1));
	}
	if (!ret) {
		i = r - dev->rsv;
		tern_va_free(&dev->va, va, size + TERN_LIB_PAGE_SIZE);
		memmove(&dev->rsv[i], &dev->rsv[i + 1],
			(dev->rsv_count - i - 1) * sizeof(dev->rsv[0]));
		dev->rsv_count--;
	}
	pthread_mutex_unlock(&dev->lock);
	pthread_mutex_unlock(&dev->bind_lock);
	return ret;
}

int tern_vm_state(struct tern_device *dev, struct tern_vm_state *st)
{
	struct drm_tern_vm_get_state args;
	const char *msg;
	int ret;

	memset(st, 0, sizeof(*st));
	tern_clearerr();
	if (!have_binds(dev, "address space state"))
		return -EOPNOTSUPP;
	pthread_mutex_lock(&dev->bind_lock);
	ret = reconcile(dev, true, &args);
	pthread_mutex_unlock(&dev->bind_lock);
	if (ret)
		return ret;
	st->error = args.error;
	st->bind_error = args.bind_error;
	st->bind_error_seqno = args.bind_error_seqno;
	st->queued = args.queued;
	st->done = args.done;
	st->binds_failed = args.binds_failed;
	st->binds_cancelled = args.binds_cancelled;
	st->mapped = args.mapped;
	st->update_ns = args.update_ns;

	tern_clearerr();
	if (st->error) {
		tern_seterr(0, "the address space takes no more changes: %s",
			    st->error == -ENODEV ? "the device is gone" :
			    "the device failed to make one");
	} else if (st->bind_error) {
		msg = tern_ioctl_errmsg(TERN_IOC_BIND_FENCE, st->bind_error);
		tern_seterr(0, "bind %llu failed: %s (%llu failed and %llu cancelled in all)",
			    (unsigned long long)st->bind_error_seqno,
			    msg ? msg : strerror(-st->bind_error),
			    (unsigned long long)st->binds_failed,
			    (unsigned long long)st->binds_cancelled);
	}
	return 0;
}

void tern_vm_fini(struct tern_device *dev)
{
	struct tern_bind_rec *rec = dev->binds, *next;

	for (; rec; rec = next) {
		next = rec->next;
		rec_free(rec);
	}
	dev->binds = dev->binds_last = NULL;
	free(dev->maps);
	free(dev->rsv);
	dev->maps = NULL;
	dev->rsv = NULL;
}
