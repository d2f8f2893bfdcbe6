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
 * buffer uses; for the mappings of binds it looks in dev->view, the
 * library's view of them as the binds queued leave the address space,
 * which is also what the kernel checks binds against.  Each operation
 * changes the view as the kernel changes the address space (interface
 * 1.5): an unmap removes the mappings in its range; with TERN_BIND_CUT it
 * also cuts a mapping that crosses an end of it, whose parts outside stay,
 * as mappings of their own (a mapping cut in the middle becomes two);
 * without it, an unmap that would cut changes nothing (the kernel refuses
 * it with -EINVAL).  A map with TERN_BIND_REPLACE first removes what is in
 * its range as an unmap with TERN_BIND_CUT does.  A bind is applied to the
 * view before its ioctl (and undone if the kernel refuses it), and kept as
 * a struct tern_bind_rec, with its operations and the changes they made,
 * until it is known to be done.
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
 * from the first of them on, the last first, and runs the operations of
 * the others again, in order, on what is left (the kernel checked and ran
 * them against the address space without the failed binds: an unmap may
 * now cut or remove other mappings than it did in the view).  That is
 * done on a copy of the view, which replaces it only once every step
 * succeeded.  A bind may be cancelled after the look that saw its
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
_Static_assert(TERN_BIND_REPLACE == DRM_TERN_VM_BIND_REPLACE, "replace");
_Static_assert(TERN_BIND_CUT == DRM_TERN_VM_BIND_CUT, "cut");
_Static_assert(TERN_BIND_MAX_OPS == DRM_TERN_VM_BIND_OPS_MAX, "operations per bind");

/*
 * The ioctls of this file came with interface 1.4, TERN_BIND_REPLACE and
 * TERN_BIND_CUT with 1.5.
 */
#define TERN_BIND_INTERFACE	(1u << 16 | 4)
#define TERN_CUT_INTERFACE	(1u << 16 | 5)

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

/* Index of the first mapping of @v whose VA is above @va. */
static size_t view_upper(const struct tern_vm_view *v, uint64_t va)
{
	return tern_array_upper(v->maps, v->count, sizeof(v->maps[0]), va);
}

/* Index of the first mapping of @v that ends above @va. */
static size_t view_first_after(const struct tern_vm_view *v, uint64_t va)
{
	size_t i = view_upper(v, va);

	if (i && va - v->maps[i - 1].va < v->maps[i - 1].range)
		i--;
	return i;
}

struct tern_bo *tern_vm_map_lookup_locked(struct tern_device *dev, uint64_t va, uint64_t size)
{
	size_t i = view_upper(&dev->view, va);
	const struct tern_vm_map *m;

	if (!i)
		return NULL;
	m = &dev->view.maps[i - 1];
	if (va - m->va >= m->range || size > m->range - (va - m->va))
		return NULL;
	return m->bo;
}

/* Room for @n more mappings in @v. */
static int view_room(struct tern_vm_view *v, size_t n)
{
	return tern_array_room(&v->maps, &v->cap, v->count + n, sizeof(v->maps[0]));
}

/* Add @m, with room for it, over no other mapping. */
static void view_insert(struct tern_vm_view *v, const struct tern_vm_map *m)
{
	size_t i = view_upper(v, m->va);

	memmove(&v->maps[i + 1], &v->maps[i], (v->count - i) * sizeof(v->maps[0]));
	v->maps[i] = *m;
	v->count++;
}

static void view_remove_at(struct tern_vm_view *v, size_t i)
{
	memmove(&v->maps[i], &v->maps[i + 1], (v->count - i - 1) * sizeof(v->maps[0]));
	v->count--;
}

/* Remove the mapping equal to @m: true, or false if there is none. */
static bool view_remove(struct tern_vm_view *v, const struct tern_vm_map *m)
{
	size_t i = view_upper(v, m->va);
	const struct tern_vm_map *o;

	if (!i)
		return false;
	o = &v->maps[i - 1];
	if (o->va != m->va || o->range != m->range || o->bo != m->bo ||
	    o->bo_offset != m->bo_offset)
		return false;
	view_remove_at(v, i - 1);
	return true;
}

/* Room for @n more changes in @ch. */
static int changes_room(struct tern_bind_changes *ch, size_t n)
{
	return tern_array_room(&ch->c, &ch->cap, ch->n + n, sizeof(ch->c[0]));
}

static void change(struct tern_bind_changes *ch, bool added, const struct tern_vm_map *m)
{
	ch->c[ch->n++] = (struct tern_bind_change){ added, *m };
}

int tern_vm_view_apply(struct tern_vm_view *v, const struct tern_bind_op *op,
		       struct tern_bind_changes *ch)
{
	const uint64_t va = op->va, end = op->va + op->range;
	size_t first = view_first_after(v, va), n = 0, adds, i;
	struct tern_vm_map head = { 0 }, tail = { 0 };
	bool has_head = false, has_tail = false;

	/* the mappings it meets: the first may start before, the last end after */
	while (first + n < v->count && v->maps[first + n].va < end)
		n++;
	if (n) {
		const struct tern_vm_map *f = &v->maps[first], *l = &v->maps[first + n - 1];

		has_head = f->va < va;
		if (has_head) {
			head = *f;
			head.range = va - f->va;
		}
		has_tail = l->range > end - l->va;
		if (has_tail) {
			tail = *l;
			tail.va = end;
			tail.range = l->range - (end - l->va);
			tail.bo_offset = l->bo_offset + (end - l->va);
		}
	}
	/*
	 * Without TERN_BIND_CUT an unmap removes whole mappings: the kernel
	 * refuses one that would cut (-EINVAL), and nothing changes.
	 */
	if ((has_head || has_tail) && op->op == TERN_BIND_UNMAP && !(op->flags & TERN_BIND_CUT))
		return 0;
	adds = has_head + has_tail + (op->op == TERN_BIND_MAP);
	if (view_room(v, adds) || changes_room(ch, n + adds))
		return -ENOMEM;
	for (i = 0; i < n; i++)
		change(ch, false, &v->maps[first + i]);
	memmove(&v->maps[first], &v->maps[first + n], (v->count - first - n) * sizeof(v->maps[0]));
	v->count -= n;
	if (has_head) {
		view_insert(v, &head);
		change(ch, true, &head);
	}
	if (has_tail) {
		view_insert(v, &tail);
		change(ch, true, &tail);
	}
	if (op->op == TERN_BIND_MAP) {
		struct tern_vm_map m = { .va = va, .range = op->range, .bo = op->bo,
					 .bo_offset = op->bo_offset };

		view_insert(v, &m);
		change(ch, true, &m);
	}
	return 0;
}

void tern_vm_view_undo(struct tern_vm_view *v, const struct tern_bind_changes *ch)
{
	size_t i = ch->n;

	/* each step restores a state the view had: the room is there */
	while (i--) {
		const struct tern_bind_change *c = &ch->c[i];

		if (c->added)
			view_remove(v, &c->map);
		else
			view_insert(v, &c->map);
	}
}

int tern_vm_rebuild_locked(struct tern_device *dev, struct tern_bind_rec *first_failed)
{
	struct tern_vm_view v = { 0 };
	struct tern_bind_changes *fresh;
	struct tern_bind_rec *rec;
	size_t nrec = 0, room = 0, k;
	unsigned int i;

	for (rec = first_failed; rec; rec = rec->next) {
		nrec++;
		room += rec->changes.n;
	}
	fresh = calloc(nrec, sizeof(*fresh));
	if (!fresh || tern_array_room(&v.maps, &v.cap, dev->view.count + room, sizeof(v.maps[0])))
		goto nomem;
	if (dev->view.count)
		memcpy(v.maps, dev->view.maps, dev->view.count * sizeof(v.maps[0]));
	v.count = dev->view.count;
	/* back to before the first that did not run, then the others again */
	for (rec = dev->binds_last; rec != first_failed->prev; rec = rec->prev)
		tern_vm_view_undo(&v, &rec->changes);
	for (rec = first_failed, k = 0; rec; rec = rec->next, k++)
		for (i = 0; !rec->status && i < rec->nops; i++)
			if (tern_vm_view_apply(&v, &rec->ops[i], &fresh[k]))
				goto nomem;

	free(dev->view.maps);
	dev->view = v;
	for (rec = first_failed, k = 0; rec; rec = rec->next, k++) {
		free(rec->changes.c);
		rec->changes = fresh[k];
	}
	free(fresh);
	return 0;

nomem:
	for (k = 0; fresh && k < nrec; k++)
		free(fresh[k].c);
	free(fresh);
	free(v.maps);
	return -ENOMEM;
}

static void rec_free(struct tern_bind_rec *rec)
{
	if (!rec)
		return;
	tern_fence_free(rec->fence);
	free(rec->ops);
	free(rec->changes.c);
	free(rec);
}

static void tern_bind_rec_forget_bo(struct tern_bind_rec *rec,
				    const struct tern_bo *bo)
{
	size_t i;

	for (i = 0; i < rec->changes.n; i++)
		if (rec->changes.c[i].map.bo == bo)
			rec->changes.c[i].map.bo = NULL;
	for (i = 0; i < rec->nops; i++)
		if (rec->ops[i].bo == bo)
			rec->ops[i].bo = NULL;
}

void tern_vm_forget_bo_locked(struct tern_device *dev, const struct tern_bo *bo)
{
	struct tern_bind_rec *rec;
	size_t i;

	/*
	 * The mapping stays in the address space, in the view too (its range
	 * is in use), but jobs no longer find a buffer there.
	 */
	for (i = 0; i < dev->view.count; i++)
		if (dev->view.maps[i].bo == bo)
			dev->view.maps[i].bo = NULL;
	for (rec = dev->binds; rec; rec = rec->next)
		tern_bind_rec_forget_bo(rec, bo);
	if (dev->bind_inflight)
		tern_bind_rec_forget_bo(dev->bind_inflight, bo);
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
	if (first_failed && tern_vm_rebuild_locked(dev, first_failed)) {
		/* ask them all again next time */
		for (rec = dev->binds; rec; rec = rec->next)
			rec->suspect = true;
		pthread_mutex_unlock(&dev->lock);
		return tern_seterr(-ENOMEM, "bind: out of memory");
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

/* What @op is, for messages; its op is known. */
static const char *op_name(const struct tern_bind_op *op)
{
	if (op->op == TERN_BIND_UNMAP)
		return op->flags & TERN_BIND_CUT ? "cutting unmap" : "unmap";
	return op->flags & TERN_BIND_REPLACE ? "replacing map" : "map";
}

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
		if (op->flags & ~(map ? TERN_BIND_READ_ONLY | TERN_BIND_REPLACE : TERN_BIND_CUT))
			return tern_seterr(-EINVAL, "bind: operation %u: flags 0x%x that %s "
					   "does not take", i, op->flags,
					   map ? "a map" : "an unmap");
		if ((op->flags & (TERN_BIND_REPLACE | TERN_BIND_CUT)) &&
		    dev->info.driver_version < TERN_CUT_INTERFACE)
			return tern_seterr(-EOPNOTSUPP, "bind: operation %u: %s needs driver "
					   "interface 1.5 (this one is %u.%u)", i,
					   map ? "TERN_BIND_REPLACE" : "TERN_BIND_CUT",
					   dev->info.driver_version >> 16,
					   dev->info.driver_version & 0xffff);
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
					   op_name(op), (unsigned long long)op->va,
					   (unsigned long long)(op->va + op->range - 1));
	}
	return 0;
}

/* The kernel refused the bind: say why, naming the operation it gave. */
static int bind_refused(const struct tern_device *dev,
			const struct tern_bind_op *ops, unsigned int count,
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
		/* the library checked the rest of what the kernel refuses so */
		if (err == -EINVAL && op->op == TERN_BIND_UNMAP && !(op->flags & TERN_BIND_CUT) &&
		    dev->info.driver_version >= TERN_CUT_INTERFACE)
			msg = "a mapping crosses an end of the range: an unmap that cuts it "
			      "needs TERN_BIND_CUT (driver interface 1.5)";
		return tern_seterr(err, "bind: operation %u (%s of 0x%llx..0x%llx): %s",
				   args->error_index, op_name(op),
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
	if (p->rec)
		p->rec->ops = calloc(count, sizeof(*p->rec->ops));
	if (!p->ops || !p->rec || !p->rec->ops) {
		ret = tern_seterr(-ENOMEM, "bind: out of memory");
		goto err;
	}
	/* to run them again on the view if a bind before fails */
	memcpy(p->rec->ops, ops, count * sizeof(*ops));
	p->rec->nops = count;
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
		ret = tern_vm_view_apply(&dev->view, &ops[i], &rec->changes);
	if (ret) {
		tern_vm_view_undo(&dev->view, &rec->changes);
		rec->changes.n = 0;
		pthread_mutex_unlock(&dev->lock);
		return tern_seterr(ret, "bind: out of memory");
	}
	/*
	 * A buffer freed while the ioctl runs must leave this record too: it
	 * may put the buffer's mapping back into the view, now (the ioctl
	 * fails) or when the bind fails later.
	 */
	dev->bind_inflight = rec;
	pthread_mutex_unlock(&dev->lock);

	/* not drmIoctl(), which would spin on -EAGAIN */
	do {
		ret = ioctl(dev->fd, DRM_IOCTL_TERN_VM_BIND_OPS, &p->args);
	} while (ret == -1 && errno == EINTR);
	ret = ret ? -errno : 0;

	pthread_mutex_lock(&dev->lock);
	dev->bind_inflight = NULL;
	if (ret) {
		tern_vm_view_undo(&dev->view, &rec->changes);
		rec->changes.n = 0;
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
	return ret ? bind_refused(dev, ops, count, &p->args, ret) : 0;
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

	for (rec = dev->binds; rec; rec = rec->next) {
		for (i = 0; i < rec->changes.n; i++) {
			const struct tern_vm_map *m = &rec->changes.c[i].map;

			if (m->va < va + size && va < m->va + m->range)
				return true;
		}
		for (i = 0; i < rec->nops; i++) {
			const struct tern_bind_op *op = &rec->ops[i];

			if (op->va < va + size && va < op->va + op->range)
				return true;
		}
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
		const struct tern_vm_map *m;

		i = view_upper(&dev->view, va + size - 1);
		m = i ? &dev->view.maps[i - 1] : NULL;
		if (m && m->va + m->range > va)
			ret = tern_seterr(-EBUSY, "releasing addresses: 0x%llx..0x%llx is still "
					  "mapped: unmap it first", (unsigned long long)m->va,
					  (unsigned long long)(m->va + m->range - 1));
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
	free(dev->view.maps);
	free(dev->rsv);
	dev->view = (struct tern_vm_view){ 0 };
	dev->rsv = NULL;
}
