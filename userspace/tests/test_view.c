// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * test_view: the library's view of the mappings of binds (bind.c) follows
 * the kernel's rules of interface 1.5.  An unmap with TERN_BIND_CUT removes
 * what is mapped in its range and cuts a mapping that crosses an end of it
 * (the part outside stays, with its buffer offset: a mapping cut in the
 * middle becomes two entries); without it, an unmap removes whole mappings
 * and one that would cut changes nothing (the kernel refuses it with
 * -EINVAL), not even the mappings inside its range; a map with
 * TERN_BIND_REPLACE first removes what is in its range as a cutting unmap
 * does.  Every change is taken back exactly, and after binds fail the view
 * is rebuilt by running the operations of the binds that did run again on
 * what is left (an unmap may then cut what it did not cut in the view).
 * Checked against a page-by-page model that knows which mapping each page
 * belongs to, over thousands of random operations, with the view's order,
 * disjointness and the ends of its entries, and against hand-written
 * cases.  Pure: no file descriptor.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tap.h"

#define PAGE	4096ull
#define BASE	(1ull << 30)
#define NPAGES	64
#define NBOS	3

static struct tern_device dev = { .fd = -1 };
static struct tern_bo bos[NBOS];

/*
 * The model: which buffer (or -1) and which page of it each page maps, and
 * which mapping it belongs to (0: none).  A map makes a mapping of a new
 * number; the pieces of a cut keep theirs, and are never next to each other.
 */
struct page { int bo; uint64_t off; unsigned int id; };

static unsigned int next_id = 1;

static uint64_t rng = 88172645463325252ull;

static uint32_t below(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 32) % n;
}

static struct tern_bind_op op_unmap(uint64_t first, uint64_t pages)
{
	return (struct tern_bind_op){ .op = TERN_BIND_UNMAP, .va = BASE + first * PAGE,
				      .range = pages * PAGE };
}

/* An unmap with TERN_BIND_CUT. */
static struct tern_bind_op op_cut(uint64_t first, uint64_t pages)
{
	return (struct tern_bind_op){ .op = TERN_BIND_UNMAP, .flags = TERN_BIND_CUT,
				      .va = BASE + first * PAGE, .range = pages * PAGE };
}

static struct tern_bind_op op_map(int bo, uint64_t off, uint64_t first, uint64_t pages,
				  bool replace)
{
	return (struct tern_bind_op){ .op = TERN_BIND_MAP, .flags = replace ? TERN_BIND_REPLACE : 0,
				      .bo = &bos[bo], .bo_offset = off * PAGE,
				      .va = BASE + first * PAGE, .range = pages * PAGE };
}

/* Whether [first, end) of @m cuts a mapping: one crosses an end of it. */
static bool model_cuts(const struct page *m, uint64_t first, uint64_t end)
{
	return (first > 0 && m[first].id && m[first - 1].id == m[first].id) ||
	       (end < NPAGES && m[end].id && m[end - 1].id == m[end].id);
}

/* @op on the model, as the kernel does it; false if it changed nothing as it would cut. */
static bool model_apply(struct page *m, const struct tern_bind_op *op)
{
	uint64_t first = (op->va - BASE) / PAGE, n = op->range / PAGE, i;
	unsigned int id = next_id++;

	if (op->op == TERN_BIND_UNMAP && !(op->flags & TERN_BIND_CUT) &&
	    model_cuts(m, first, first + n))
		return false;
	for (i = 0; i < n; i++) {
		if (op->op == TERN_BIND_UNMAP)
			m[first + i] = (struct page){ -1, 0, 0 };
		else
			m[first + i] = (struct page){ (int)(op->bo - bos),
						      op->bo_offset / PAGE + i, id };
	}
	return true;
}

/*
 * @v is sorted, disjoint, inside the window, and maps each page as @m says,
 * each entry exactly one mapping of the model (its ends where the model's
 * mapping ends); the first difference in @why.
 */
static bool view_is(const struct tern_vm_view *v, const struct page *m, char *why, size_t len)
{
	struct page got[NPAGES];
	size_t i;
	uint64_t p, q;

	for (p = 0; p < NPAGES; p++)
		got[p] = (struct page){ -1, 0, 0 };
	for (i = 0; i < v->count; i++) {
		const struct tern_vm_map *e = &v->maps[i];

		if (!e->range || e->range % PAGE || e->va % PAGE || e->va < BASE ||
		    e->va + e->range > BASE + NPAGES * PAGE) {
			snprintf(why, len, "entry %zu: 0x%llx+0x%llx is not a range of pages of "
				 "the window", i, (unsigned long long)e->va,
				 (unsigned long long)e->range);
			return false;
		}
		if (i && v->maps[i - 1].va + v->maps[i - 1].range > e->va) {
			snprintf(why, len, "entry %zu at 0x%llx overlaps or precedes the one "
				 "before", i, (unsigned long long)e->va);
			return false;
		}
		for (p = 0; p < e->range / PAGE; p++)
			got[(e->va - BASE) / PAGE + p] =
				(struct page){ (int)(e->bo - bos), e->bo_offset / PAGE + p, 0 };
		p = (e->va - BASE) / PAGE;
		for (q = p; q < p + e->range / PAGE && m[q].id == m[p].id; q++)
			;
		if (m[p].id && (q < p + e->range / PAGE || model_cuts(m, p, q))) {
			snprintf(why, len, "entry %zu (pages %llu-%llu) is not one whole mapping of "
				 "the model", i, (unsigned long long)p,
				 (unsigned long long)(p + e->range / PAGE - 1));
			return false;
		}
	}
	for (p = 0; p < NPAGES; p++)
		if (got[p].bo != m[p].bo || (m[p].bo >= 0 && got[p].off != m[p].off)) {
			snprintf(why, len, "page %llu maps buffer %d page %llu, the model says "
				 "buffer %d page %llu", (unsigned long long)p, got[p].bo,
				 (unsigned long long)got[p].off, m[p].bo,
				 (unsigned long long)m[p].off);
			return false;
		}
	return true;
}

/* The view has exactly these entries (va, pages, buffer, page offset). */
struct want { uint64_t first, pages; int bo; uint64_t off; };

static bool entries_are(const struct tern_vm_view *v, const struct want *w, size_t n)
{
	size_t i;

	if (v->count != n) {
		printf("# %zu entries, want %zu\n", v->count, n);
		return false;
	}
	for (i = 0; i < n; i++) {
		const struct tern_vm_map *e = &v->maps[i];

		if (e->va != BASE + w[i].first * PAGE || e->range != w[i].pages * PAGE ||
		    e->bo != &bos[w[i].bo] || e->bo_offset != w[i].off * PAGE) {
			printf("# entry %zu: page %llu, %llu pages, buffer %d, page offset %llu\n",
			       i, (unsigned long long)((e->va - BASE) / PAGE),
			       (unsigned long long)(e->range / PAGE), (int)(e->bo - bos),
			       (unsigned long long)(e->bo_offset / PAGE));
			return false;
		}
	}
	return true;
}

/* Queue a bind by hand, as bind_queue() does without the ioctl. */
static struct tern_bind_rec *queue(const struct tern_bind_op *ops, unsigned int n)
{
	struct tern_bind_rec *rec = calloc(1, sizeof(*rec));
	unsigned int i;

	if (!rec || !(rec->ops = calloc(n, sizeof(*ops))))
		abort();
	memcpy(rec->ops, ops, n * sizeof(*ops));
	rec->nops = n;
	for (i = 0; i < n; i++)
		if (tern_vm_view_apply(&dev.view, &ops[i], &rec->changes))
			abort();
	rec->prev = dev.binds_last;
	if (dev.binds_last)
		dev.binds_last->next = rec;
	else
		dev.binds = rec;
	dev.binds_last = rec;
	rec->seqno = rec->prev ? rec->prev->seqno + 1 : 1;
	return rec;
}

/* Forget every record and mapping. */
static void reset(void)
{
	tern_vm_fini(&dev);
}

static void check_cases(void)
{
	struct tern_bind_changes ch = { 0 };
	struct tern_bind_op op;
	struct tern_vm_map *snap;
	size_t nsnap, n0;
	int ret;

	/* without TERN_BIND_CUT, an unmap that would cut changes nothing */
	op = op_map(0, 0, 0, 16, false);
	tern_vm_view_apply(&dev.view, &op, &ch);
	op = op_map(1, 0, 16, 4, false);
	tern_vm_view_apply(&dev.view, &op, &ch);
	n0 = ch.n;
	op = op_unmap(4, 4);
	ret = tern_vm_view_apply(&dev.view, &op, &ch);
	ok(ret == 0 && ch.n == n0 &&
	   entries_are(&dev.view, (struct want[]){ { 0, 16, 0, 0 }, { 16, 4, 1, 0 } }, 2),
	   "an unmap of pages 4-7 of a 16-page mapping without TERN_BIND_CUT: no change "
	   "(%d, %zu changes)", ret, ch.n - n0);
	op = op_unmap(0, 1);
	tern_vm_view_apply(&dev.view, &op, &ch);
	op = op_unmap(15, 1);
	tern_vm_view_apply(&dev.view, &op, &ch);
	ok(ch.n == n0 && entries_are(&dev.view, (struct want[]){ { 0, 16, 0, 0 },
								 { 16, 4, 1, 0 } }, 2),
	   "nor of its first page, nor of its last");
	op = op_unmap(10, 10);
	tern_vm_view_apply(&dev.view, &op, &ch);
	ok(ch.n == n0 && entries_are(&dev.view, (struct want[]){ { 0, 16, 0, 0 },
								 { 16, 4, 1, 0 } }, 2),
	   "an unmap of pages 10-19 (B whole, A's end) without it removes nothing, not even B");
	ok(tern_vm_map_lookup_locked(&dev, BASE, 16 * PAGE) == &bos[0] &&
	   tern_vm_map_lookup_locked(&dev, BASE + 16 * PAGE, 4 * PAGE) == &bos[1],
	   "jobs find A whole and B whole");
	op = op_unmap(16, 8);
	tern_vm_view_apply(&dev.view, &op, &ch);
	ok(ch.n == n0 + 1 && entries_are(&dev.view, (struct want[]){ { 0, 16, 0, 0 } }, 1),
	   "an unmap of pages 16-23 without it removes B, whole inside it");
	op = op_cut(0, 20);
	tern_vm_view_apply(&dev.view, &op, &ch);
	ok(ch.n == n0 + 2 && dev.view.count == 0,
	   "with it, an unmap of pages 0-19 removes A, whole inside it, as without it");
	tern_vm_view_undo(&dev.view, &ch);
	ch.n = 0;
	ok(dev.view.count == 0, "undone, with the maps: nothing left");

	/* a cut in the middle: two entries, the tail with its offset */
	op = op_map(0, 0, 0, 16, false);
	tern_vm_view_apply(&dev.view, &op, &ch);
	op = op_cut(4, 4);
	tern_vm_view_apply(&dev.view, &op, &ch);
	ok(entries_are(&dev.view, (struct want[]){ { 0, 4, 0, 0 }, { 8, 8, 0, 8 } }, 2),
	   "an unmap with TERN_BIND_CUT of pages 4-7 of a 16-page mapping leaves pages 0-3 "
	   "and 8-15 (offset 8)");
	ok(tern_vm_map_lookup_locked(&dev, BASE + 3 * PAGE, PAGE) == &bos[0] &&
	   tern_vm_map_lookup_locked(&dev, BASE + 8 * PAGE, 8 * PAGE) == &bos[0],
	   "jobs find the buffer in the head and in the whole tail");
	ok(!tern_vm_map_lookup_locked(&dev, BASE + 4 * PAGE, 4) &&
	   !tern_vm_map_lookup_locked(&dev, BASE + 7 * PAGE + 4092, 8) &&
	   !tern_vm_map_lookup_locked(&dev, BASE + 3 * PAGE, 2 * PAGE),
	   "not in the hole, nor across an end of it");

	/* REPLACE inside the tail: three pieces */
	op = op_map(1, 2, 10, 3, true);
	tern_vm_view_apply(&dev.view, &op, &ch);
	ok(entries_are(&dev.view, (struct want[]){ { 0, 4, 0, 0 }, { 8, 2, 0, 8 },
						   { 10, 3, 1, 2 }, { 13, 3, 0, 13 } }, 4),
	   "a REPLACE map of B over pages 10-12 cuts the tail around it");
	ok(tern_vm_map_lookup_locked(&dev, BASE + 11 * PAGE, PAGE) == &bos[1] &&
	   tern_vm_map_lookup_locked(&dev, BASE + 15 * PAGE, PAGE) == &bos[0],
	   "jobs find B in the replaced range and A after it");

	/* an unmap across two mappings, and one over a whole one and two parts */
	op = op_unmap(9, 2);
	n0 = ch.n;
	tern_vm_view_apply(&dev.view, &op, &ch);
	ok(ch.n == n0, "an unmap of pages 9-10 without TERN_BIND_CUT changes nothing");
	op = op_cut(9, 2);
	tern_vm_view_apply(&dev.view, &op, &ch);
	ok(entries_are(&dev.view, (struct want[]){ { 0, 4, 0, 0 }, { 8, 1, 0, 8 },
						   { 11, 2, 1, 3 }, { 13, 3, 0, 13 } }, 4),
	   "an unmap of pages 9-10 cuts A's piece and B's");
	op = op_cut(2, 10);
	tern_vm_view_apply(&dev.view, &op, &ch);
	ok(entries_are(&dev.view, (struct want[]){ { 0, 2, 0, 0 }, { 12, 1, 1, 4 },
						   { 13, 3, 0, 13 } }, 3),
	   "an unmap of pages 2-11 removes a whole piece and cuts two");

	/* REPLACE over an empty range, and over exactly one mapping */
	op = op_map(2, 0, 20, 4, true);
	tern_vm_view_apply(&dev.view, &op, &ch);
	op = op_map(1, 7, 20, 4, true);
	tern_vm_view_apply(&dev.view, &op, &ch);
	ok(entries_are(&dev.view, (struct want[]){ { 0, 2, 0, 0 }, { 12, 1, 1, 4 },
						   { 13, 3, 0, 13 }, { 20, 4, 1, 7 } }, 4),
	   "REPLACE over an empty range, then over exactly that mapping");

	/* every change taken back, the last first */
	tern_vm_view_undo(&dev.view, &ch);
	ok(dev.view.count == 0, "undoing them all leaves the view empty (%zu entries)",
	   dev.view.count);

	/* a refused bind's changes go, the view is as before it */
	ch.n = 0;
	op = op_map(0, 0, 0, 32, false);
	tern_vm_view_apply(&dev.view, &op, &ch);
	nsnap = dev.view.count;
	snap = malloc(nsnap * sizeof(*snap));
	memcpy(snap, dev.view.maps, nsnap * sizeof(*snap));
	ch.n = 0;
	op = op_cut(5, 3);
	tern_vm_view_apply(&dev.view, &op, &ch);
	op = op_map(2, 1, 30, 10, true);
	tern_vm_view_apply(&dev.view, &op, &ch);
	tern_vm_view_undo(&dev.view, &ch);
	ok(dev.view.count == nsnap && !memcmp(snap, dev.view.maps, nsnap * sizeof(*snap)),
	   "a cut and a REPLACE taken back leave the 32-page mapping whole");
	free(snap);
	free(ch.c);
	reset();
}

/* Random operations against the model; some taken back at once. */
static void check_random(void)
{
	struct page m[NPAGES], before[NPAGES];
	struct tern_vm_map *snap = NULL;
	unsigned int i, undone = 0, cut_middle = 0, refused = 0, whole = 0;
	bool good = true;
	char why[200] = "";

	for (i = 0; i < NPAGES; i++)
		m[i] = (struct page){ -1, 0, 0 };
	for (i = 0; i < 20000 && good; i++) {
		struct tern_bind_changes ch = { 0 };
		uint64_t first = below(NPAGES), pages = 1 + below(NPAGES - first);
		struct tern_bind_op op;
		size_t nsnap = dev.view.count, before_count = dev.view.count;
		bool changed;

		if (below(2))
			op = below(2) ? op_cut(first, pages) : op_unmap(first, pages);
		else
			op = op_map(below(NBOS), below(64), first, pages, below(2));
		snap = realloc(snap, (nsnap + 1) * sizeof(*snap));
		memcpy(snap, dev.view.maps, nsnap * sizeof(*snap));
		memcpy(before, m, sizeof(m));
		if (tern_vm_view_apply(&dev.view, &op, &ch)) {
			snprintf(why, sizeof(why), "operation %u: out of memory", i);
			good = false;
			break;
		}
		changed = model_apply(m, &op);
		if (op.op == TERN_BIND_UNMAP && dev.view.count > before_count)
			cut_middle++;
		if (op.op == TERN_BIND_UNMAP && !op.flags) {
			refused += !changed;
			whole += changed && dev.view.count < before_count;
		}
		if (!changed && ch.n) {
			snprintf(why, sizeof(why), "operation %u, an unmap without TERN_BIND_CUT "
				 "that would cut, made %zu changes", i, ch.n);
			good = false;
		} else if (!view_is(&dev.view, m, why, sizeof(why))) {
			good = false;
		} else if (below(4) == 0) {
			tern_vm_view_undo(&dev.view, &ch);
			memcpy(m, before, sizeof(m));
			undone++;
			if (dev.view.count != nsnap ||
			    memcmp(snap, dev.view.maps, nsnap * sizeof(*snap))) {
				snprintf(why, sizeof(why),
					 "operation %u taken back: the view differs", i);
				good = false;
			}
		}
		free(ch.c);
	}
	free(snap);
	ok(good && cut_middle > 100 && refused > 100 && whole > 100,
	   "20000 random maps, REPLACE maps and unmaps with and without TERN_BIND_CUT (%u "
	   "cutting a mapping in two, %u without it that would cut and changed nothing, %u "
	   "without it removing whole mappings, %u taken back) keep the view as the model%s%s",
	   cut_middle, refused, whole, undone, good ? "" : ": ", why);
	reset();
}

/* After binds fail, the others run again on what is left. */
static void check_rebuild(void)
{
	struct tern_bind_op ops[2];
	struct tern_bind_rec *f;
	int ret;

	/* X, then a cut that fails, then a cut the kernel made on X whole */
	ops[0] = op_map(0, 0, 0, 16, false);
	queue(ops, 1);
	ops[0] = op_cut(4, 4);
	f = queue(ops, 1);
	ops[0] = op_cut(0, 2);
	queue(ops, 1);
	f->status = -EIO;
	ok(tern_vm_rebuild_locked(&dev, f) == 0 &&
	   entries_are(&dev.view, (struct want[]){ { 2, 14, 0, 2 } }, 1),
	   "a failed cut of pages 4-7, then a cut of pages 0-1 that ran: X is pages 2-15 "
	   "(offset 2), whole");
	reset();

	/* a failed map, then a REPLACE over it and more that ran */
	ops[0] = op_map(0, 0, 0, 16, false);
	queue(ops, 1);
	ops[0] = op_map(1, 0, 20, 4, false);
	f = queue(ops, 1);
	ops[0] = op_map(2, 5, 14, 8, true);
	ops[1] = op_cut(0, 1);
	queue(ops, 2);
	f->status = -EIO;
	ok(tern_vm_rebuild_locked(&dev, f) == 0 &&
	   entries_are(&dev.view, (struct want[]){ { 1, 13, 0, 1 }, { 14, 8, 2, 5 } }, 2),
	   "a failed map, then a REPLACE over its range and X's end and a cut of X's "
	   "first page that ran");
	reset();

	/* a failed unmap of X, then a cut of X that ran: X comes back, cut */
	ops[0] = op_map(0, 0, 0, 16, false);
	queue(ops, 1);
	ops[0] = op_unmap(0, 16);
	f = queue(ops, 1);
	ops[0] = op_cut(10, 2);
	queue(ops, 1);
	ops[0] = op_map(1, 0, 30, 2, false);
	queue(ops, 1)->status = -ECANCELED;
	f->status = -EIO;
	ok(tern_vm_rebuild_locked(&dev, f) == 0 &&
	   entries_are(&dev.view, (struct want[]){ { 0, 10, 0, 0 }, { 12, 4, 0, 12 } }, 2),
	   "a failed unmap of X, a cut of pages 10-11 that ran, a cancelled map: X in two "
	   "pieces, the cancelled map gone");
	ok(dev.binds && dev.binds->next && !dev.binds->next->changes.n &&
	   dev.binds->next->next && dev.binds->next->next->changes.n == 3 &&
	   !dev.binds_last->changes.n,
	   "the failed and cancelled binds keep no change, the cut that ran its three");
	reset();

	/* a failed cut, then an unmap without TERN_BIND_CUT of X's range that ran */
	ops[0] = op_map(0, 0, 0, 16, false);
	queue(ops, 1);
	ops[0] = op_cut(4, 4);
	f = queue(ops, 1);
	ops[0] = op_unmap(0, 16);
	queue(ops, 1);
	ok(dev.binds_last->changes.n == 2, "in the view, the unmap without TERN_BIND_CUT "
	   "removed the two pieces, whole (%zu changes)", dev.binds_last->changes.n);
	f->status = -EIO;
	ret = tern_vm_rebuild_locked(&dev, f);
	ok(ret == 0 && dev.view.count == 0 && dev.binds_last->changes.n == 1,
	   "the cut failed: run again, it removes X whole (%d, %zu entries, %zu changes)", ret,
	   dev.view.count, dev.binds_last->changes.n);
	reset();
}

/*
 * A buffer freed while a bind's ioctl runs (the bind in the view, its
 * record not yet in the list): the record forgets the buffer too, so that
 * the view put back when the ioctl fails holds no pointer to it.
 */
static void check_forget_inflight(void)
{
	struct tern_bind_op ops[1];
	struct tern_bind_rec *rec;
	size_t i;
	bool clean = true;

	ops[0] = op_map(0, 0, 0, 16, false);
	queue(ops, 1);
	rec = calloc(1, sizeof(*rec));
	if (!rec || !(rec->ops = calloc(1, sizeof(*rec->ops))))
		abort();
	rec->ops[0] = op_map(0, 0, 0, 16, true);
	rec->nops = 1;
	if (tern_vm_view_apply(&dev.view, &rec->ops[0], &rec->changes))
		abort();
	dev.bind_inflight = rec;
	tern_vm_forget_bo_locked(&dev, &bos[0]);
	for (i = 0; i < rec->changes.n; i++)
		clean &= rec->changes.c[i].map.bo != &bos[0];
	ok(clean && !rec->ops[0].bo,
	   "a buffer freed during the ioctl of a REPLACE over it: the bind in flight forgets it");
	/* the ioctl failed: bind_queue() takes the bind back out of the view */
	dev.bind_inflight = NULL;
	tern_vm_view_undo(&dev.view, &rec->changes);
	ok(dev.view.count == 1 && !dev.view.maps[0].bo,
	   "taken back, the view has the range in use and no buffer there (%zu entries)",
	   dev.view.count);
	free(rec->ops);
	free(rec->changes.c);
	free(rec);
	reset();
}

/* Random binds, random failures: the rebuilt view is what the kernel has. */
static void check_rebuild_random(void)
{
	unsigned int round, bad = 0;
	char why[200] = "";

	for (round = 0; round < 300; round++) {
		struct page m[NPAGES];
		struct tern_bind_rec *rec, *first_failed = NULL;
		unsigned int nrec = 2 + below(8), r, i;

		for (i = 0; i < NPAGES; i++)
			m[i] = (struct page){ -1, 0, 0 };
		for (r = 0; r < nrec; r++) {
			struct tern_bind_op ops[4];
			unsigned int n = 1 + below(4);

			for (i = 0; i < n; i++) {
				uint64_t first = below(NPAGES), pages = 1 + below(NPAGES - first);

				switch (below(4)) {
				case 0:
					ops[i] = op_unmap(first, pages);
					break;
				case 1:
					ops[i] = op_cut(first, pages);
					break;
				default:
					ops[i] = op_map(below(NBOS), below(64), first, pages,
							below(2));
				}
			}
			rec = queue(ops, n);
			/* the first bind runs; later ones may fail */
			if (r && below(3) == 0)
				rec->status = below(2) ? -EIO : -ECANCELED;
			if (rec->status && !first_failed)
				first_failed = rec;
			if (!rec->status)
				for (i = 0; i < n; i++)
					model_apply(m, &ops[i]);
		}
		if (first_failed && tern_vm_rebuild_locked(&dev, first_failed)) {
			snprintf(why, sizeof(why), "round %u: out of memory", round);
			bad++;
		} else if (!view_is(&dev.view, m, why, sizeof(why))) {
			bad++;
		}
		reset();
	}
	ok(!bad, "300 rounds of random binds, some failed: the rebuilt view is what the "
	   "binds that ran made (%u wrong%s%s)", bad, bad ? ", the last: " : "", why);
}

int main(void)
{
	int i;

	for (i = 0; i < NBOS; i++)
		bos[i] = (struct tern_bo){ .dev = &dev, .handle = 10 + i, .size = 128 * PAGE };
	if (pthread_mutex_init(&dev.lock, NULL))
		return 1;
	check_cases();
	check_random();
	check_rebuild();
	check_forget_inflight();
	check_rebuild_random();
	tern_vm_fini(&dev);
	pthread_mutex_destroy(&dev.lock);
	return tap_end();
}
