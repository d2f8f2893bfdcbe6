// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/list.h>
#include <linux/math.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <asm/barrier.h>

#include <drm/tern_accel.h>

#include "tern_pt.h"
#include "tern_regs.h"

/**
 * DOC: device page tables
 *
 * The device translates every VA of a packet through four levels of tables
 * of 512 little-endian 64-bit entries (see tern_regs.h): the slot's ROOT
 * register holds the bus address of the level-3 table.  An entry is valid
 * with TERN_PTE_VALID; a non-leaf entry holds the bus address of the next
 * table; a leaf (level-0) entry holds the bus address of a 4 KiB page plus
 * TERN_PTE_WRITABLE and TERN_PTE_LOCAL.
 *
 * tern_pt builds and frees such a tree.  It is pure logic: tables come from
 * a &struct tern_pt_ops allocator, so the same code runs in the driver
 * (coherent DMA memory) and in KUnit (a fake allocator that counts).  Next to
 * each table the CPU keeps a &struct tern_pt_node with the table's bus
 * address, the number of valid entries and, for a non-leaf table, the
 * pointers to the child nodes; the device never sees those.
 *
 * Updates.  The device may walk a table at any time while a job of the
 * address space runs, so the owner (tern_vm) does not let the CPU write
 * the entries of a table that is in use.  It opens an update
 * (tern_pt_update_begin()), maps and unmaps, then closes it
 * (tern_pt_update_end()), which writes a DMA buffer: one privileged
 * PHYS_COPY per table whose entries changed, copying them from a staging
 * array, and a TLB_INVALIDATE.  The device then makes the change, in order
 * with the other buffers of the engine that runs it.  Inside an update:
 *
 * - the CPU's view changes at once (child pointers; the changed leaf
 *   entries are kept in the update's staging array), so a later map or
 *   unmap of the same update sees the tree as the update leaves it;
 * - tables the update makes are written by the CPU directly (zeroed,
 *   filled): nothing links them before the buffer runs;
 * - tables that existed before it are only marked dirty, from their first
 *   to their last changed entry; the entries they hold are read from the
 *   table itself, so an update begins only once the one before it ran;
 * - a table unlinked by the update is no longer written at all, and its
 *   memory goes to &tern_pt_ops.free_table, which must keep it until the
 *   buffer ran, the TLBs were invalidated and no job can still use it.
 *
 * tern_pt_update_size() says, before the update, how much room its buffer
 * may need, and tern_pt_reserve() allocates the tables a map will need, so
 * that neither the map nor the buffer can fail once the update is open.
 * Without an open update (KUnit, a tree no job uses) every write is direct.
 *
 * Rules kept by the code:
 *
 * - A table exists only while it holds a valid entry (the root always
 *   exists): unmapping the last page under a table frees it, and its parent
 *   if that becomes empty too.
 * - Mapping never replaces a valid entry (-EEXIST) and either maps every
 *   page or none: a failure half-way unmaps what was mapped and frees the
 *   tables made for it.
 * - No entry is ever seen half-written: direct writes use WRITE_ONCE,
 *   and the update's PHYS_COPY writes 8-byte aligned words of 8-byte
 *   aligned ranges, each with one access (docs/hardware.md 8.2).
 *   Children are linked only after they are initialised, with dma_wmb()
 *   between the CPU's writes to a new table and the entry that links it.
 *   The device TLB never caches invalid entries, so new mappings are
 *   usable as soon as the update ran.  Removing mappings needs
 *   the TLBs of every engine invalidated, which is the owner's job, as is
 *   not reusing freed tables before that invalidation (see
 *   &tern_pt_ops.free_table).
 * - The owner can learn how many tables a map would add before making it
 *   (tern_pt_tables_needed()), to keep the tree within a budget.
 *
 * The CPU bookkeeping (&struct tern_pt_node, and 4 KiB of child pointers
 * per non-leaf table) is charged to the caller's memory cgroup, like the
 * tables.
 */

#define TERN_VA_LIMIT		BIT_ULL(TERN_VA_BITS)
#define TERN_PT_ROOT_LEVEL	(TERN_PT_LEVELS - 1)
#define TERN_PT_LEAF_FLAGS	(TERN_PTE_WRITABLE | TERN_PTE_LOCAL)
#define TERN_PT_TABLE_BYTES	(TERN_PT_ENTRIES * sizeof(u64))

/**
 * struct tern_pt_node - CPU bookkeeping of one table
 * @table: CPU address of the table the device reads
 * @dev_addr: bus address of @table
 * @va: first VA the table translates
 * @used: number of valid entries in @table
 * @level: 0 for a leaf table, TERN_PT_ROOT_LEVEL for the root
 * @dirty: the open update recorded entries of @table
 * @dirty_first: first entry recorded
 * @dirty_last: last entry recorded
 * @window_first: first entry of the table that the open update's range
 *	covers, while @dirty
 * @window_count: entries the range covers, while @dirty
 * @window: where in the staging array of the open update those entries
 *	are, as the update leaves them (leaf tables; non-leaf ones get theirs
 *	from @children when the update ends)
 * @gen: &tern_pt.gen of the update that made the table (or of the last one
 *	before it): while that update is open the device cannot reach the
 *	table, and it is written directly
 * @link: in a &struct tern_pt_pool while reserved, in &tern_pt.dirty while dirty
 * @children: for a non-leaf table, the node of each valid entry (NULL for a
 *	leaf)
 */
struct tern_pt_node {
	__le64 *table;
	u64 dev_addr;
	u64 va;
	unsigned int used;
	u8 level;
	bool dirty;
	u16 dirty_first;
	u16 dirty_last;
	u16 window_first;
	u16 window_count;
	u32 window;
	u64 gen;
	struct list_head link;
	struct tern_pt_node **children;
};

static u64 tern_pt_span(unsigned int level)
{
	return 1ull << TERN_PT_SHIFT(level);
}

static struct tern_pt_node *tern_pt_node_new(struct tern_pt *pt, bool children)
{
	struct tern_pt_node *node;

	node = kzalloc(sizeof(*node), GFP_KERNEL_ACCOUNT);
	if (!node)
		return NULL;
	if (children) {
		node->children = kcalloc(TERN_PT_ENTRIES, sizeof(*node->children),
					 GFP_KERNEL_ACCOUNT);
		if (!node->children)
			goto err_free;
	}
	node->table = pt->ops->alloc_table(pt->priv, &node->dev_addr);
	if (!node->table)
		goto err_free_children;
	if (WARN_ON(node->dev_addr & ~TERN_PTE_ADDR_MASK)) {
		pt->ops->free_table(pt->priv, node->table, node->dev_addr);
		goto err_free_children;
	}
	/* nothing links the table yet: the CPU may write it */
	memset(node->table, 0, TERN_PT_TABLE_BYTES);
	INIT_LIST_HEAD(&node->link);
	return node;

err_free_children:
	kfree(node->children);
err_free:
	kfree(node);
	return NULL;
}

static void tern_pt_node_delete(struct tern_pt *pt, struct tern_pt_node *node)
{
	pt->ops->free_table(pt->priv, node->table, node->dev_addr);
	kfree(node->children);
	kfree(node);
}

/*
 * A table for the tree at @level, translating from @va: reserved or new,
 * private to the open update.
 */
static struct tern_pt_node *tern_pt_node_alloc(struct tern_pt *pt,
					       unsigned int level, u64 va)
{
	struct tern_pt_pool *pool = pt->pool;
	struct tern_pt_node *node;

	node = list_first_entry_or_null(level ? &pool->spare : &pool->spare_leaves,
					struct tern_pt_node, link);
	if (node) {
		list_del_init(&node->link);
		if (level)
			pool->nr_spare--;
		else
			pool->nr_spare_leaves--;
	} else {
		/* the owner's pool was filled for the worst case: a bug */
		if (WARN_ON_ONCE(pool != &pt->reserve))
			return NULL;
		node = tern_pt_node_new(pt, level);
		if (!node)
			return NULL;
	}
	node->level = level;
	node->va = va;
	node->gen = pt->gen;
	pt->nr_tables++;
	return node;
}

/* @node left the tree; the device may still walk it (see tern_pt_ops). */
static void tern_pt_node_free(struct tern_pt *pt, struct tern_pt_node *node)
{
	if (node->dirty) {
		/* its recorded entries do not matter any more */
		list_del(&node->link);
		pt->nr_dirty--;
	}
	pt->nr_tables--;
	tern_pt_node_delete(pt, node);
}

/*
 * Whether @node is written directly: outside of an update (the owner then
 * knows no job runs), or a table the open update made, which nothing the
 * device can see links yet.  Otherwise the entry is recorded, and written
 * by the device when the update's DMA buffer runs.
 */
static bool tern_pt_direct(struct tern_pt *pt, struct tern_pt_node *node)
{
	return !pt->recording || node->gen == pt->gen;
}

/*
 * @node gets its first recorded entry: give it a window in the staging
 * array for the entries the update's range covers, holding their values
 * as the update starts from.  For a leaf those are in the table itself:
 * every update before this one ran.
 */
static void tern_pt_make_dirty(struct tern_pt *pt, struct tern_pt_node *node)
{
	unsigned int shift = TERN_PT_SHIFT(node->level);
	u64 start = max(pt->range_start, node->va);
	u64 end = min(pt->range_end, node->va + tern_pt_span(node->level + 1));
	unsigned int i;

	node->dirty = true;
	node->dirty_first = 1;
	node->dirty_last = 0;
	list_add_tail(&node->link, &pt->dirty);
	pt->nr_dirty++;
	node->window_first = (start - node->va) >> shift;
	node->window_count = ((end - 1 - node->va) >> shift) - node->window_first + 1;
	node->window = pt->staged;
	/* tern_pt_update_size() counted these: a bug otherwise */
	if (WARN_ON(end <= start ||
		    pt->staged + node->window_count > pt->staging_room)) {
		node->window_count = 0;
		pt->failed = true;
		return;
	}
	pt->staged += node->window_count;
	if (node->level)
		return;
	for (i = 0; i < node->window_count; i++)
		pt->staging[node->window + i] =
			READ_ONCE(node->table[node->window_first + i]);
}

/* Where the open update keeps entry @idx of dirty @node, or NULL. */
static __le64 *tern_pt_window(struct tern_pt *pt, struct tern_pt_node *node,
			      unsigned int idx)
{
	if (!node->dirty || idx < node->window_first ||
	    idx >= node->window_first + node->window_count)
		return NULL;
	return &pt->staging[node->window + idx - node->window_first];
}

static void tern_pt_write(struct tern_pt *pt, struct tern_pt_node *node,
			  unsigned int idx, u64 entry)
{
	__le64 *slot;

	if (tern_pt_direct(pt, node)) {
		WRITE_ONCE(node->table[idx], cpu_to_le64(entry));
		return;
	}
	if (!node->dirty)
		tern_pt_make_dirty(pt, node);
	slot = tern_pt_window(pt, node, idx);
	/* outside the update's range: a bug of the caller */
	if (!slot) {
		WARN_ON_ONCE(node->window_count);
		pt->failed = true;
		return;
	}
	if (node->dirty_first > node->dirty_last) {
		node->dirty_first = idx;
		node->dirty_last = idx;
	} else {
		node->dirty_first = min_t(u16, node->dirty_first, idx);
		node->dirty_last = max_t(u16, node->dirty_last, idx);
	}
	if (!node->level)
		*slot = cpu_to_le64(entry);
}

/* A non-leaf entry as the open update leaves it. */
static u64 tern_pt_link_value(struct tern_pt_node *node, unsigned int idx)
{
	struct tern_pt_node *child = node->children[idx];

	return child ? child->dev_addr | TERN_PTE_VALID : 0;
}

/* A leaf entry as the open update leaves it, or as it is. */
static u64 tern_pt_get(struct tern_pt *pt, struct tern_pt_node *leaf,
		       unsigned int idx)
{
	__le64 *slot = tern_pt_window(pt, leaf, idx);

	return le64_to_cpu(slot ? *slot : READ_ONCE(leaf->table[idx]));
}

static void tern_pt_link(struct tern_pt *pt, struct tern_pt_node *node,
			 unsigned int idx, struct tern_pt_node *child)
{
	node->children[idx] = child;
	node->used++;
	/*
	 * The device may walk the new table as soon as it sees the link: the
	 * zeroes and entries the CPU wrote into it must reach memory first.
	 * dma_wmb() orders CPU writes to coherent DMA memory as the device
	 * observes them; a recorded link is written by the device itself,
	 * after the doorbell.
	 */
	dma_wmb();
	tern_pt_write(pt, node, idx, child->dev_addr | TERN_PTE_VALID);
}

static void tern_pt_unlink(struct tern_pt *pt, struct tern_pt_node *node,
			   unsigned int idx)
{
	tern_pt_write(pt, node, idx, 0);
	node->children[idx] = NULL;
	node->used--;
}

/**
 * tern_pt_init() - make an empty tree
 * @pt: the tree
 * @ops: allocator of its tables
 * @priv: argument of @ops
 *
 * Return: 0, or -ENOMEM if the root table cannot be allocated.
 */
int tern_pt_init(struct tern_pt *pt, const struct tern_pt_ops *ops, void *priv)
{
	pt->ops = ops;
	pt->priv = priv;
	pt->nr_tables = 0;
	pt->recording = false;
	pt->gen = 0;
	INIT_LIST_HEAD(&pt->dirty);
	pt->nr_dirty = 0;
	tern_pt_pool_init(&pt->reserve);
	pt->pool = &pt->reserve;
	pt->failed = false;
	pt->root = tern_pt_node_alloc(pt, TERN_PT_ROOT_LEVEL, 0);
	return pt->root ? 0 : -ENOMEM;
}

static void tern_pt_free_level(struct tern_pt *pt, struct tern_pt_node *node,
			       unsigned int level)
{
	unsigned int i;

	if (level) {
		for (i = 0; i < TERN_PT_ENTRIES; i++)
			if (node->children[i])
				tern_pt_free_level(pt, node->children[i], level - 1);
	}
	tern_pt_node_free(pt, node);
}

/**
 * tern_pt_fini() - free every table of a tree, mapped or not
 * @pt: the tree; the device must no longer use it
 */
void tern_pt_fini(struct tern_pt *pt)
{
	tern_pt_unreserve(pt);
	if (!pt->root)
		return;
	tern_pt_free_level(pt, pt->root, TERN_PT_ROOT_LEVEL);
	pt->root = NULL;
	pt->recording = false;
	WARN_ON(pt->nr_tables || pt->nr_dirty);
}

/**
 * tern_pt_root() - the value of a slot's ROOT register for this tree
 * @pt: the tree
 *
 * Return: the bus address of the root table.
 */
u64 tern_pt_root(struct tern_pt *pt)
{
	return pt->root->dev_addr;
}

/*
 * Clear the valid entries of [start, end) under @node, a table of @level
 * covering them, and free the tables left empty (even ones that were empty
 * before, as an interrupted map may leave them).  A table whose whole span
 * goes is unlinked without clearing its entries one by one: the device
 * cannot reach them once the link is gone.
 */
static void tern_pt_unmap_level(struct tern_pt *pt, struct tern_pt_node *node,
				unsigned int level, u64 start, u64 end)
{
	u64 span = tern_pt_span(level);

	while (start < end) {
		unsigned int idx = TERN_PT_INDEX(start, level);
		u64 next = min(round_down(start, span) + span, end);
		struct tern_pt_node *child;

		if (!level) {
			if (tern_pt_get(pt, node, idx) & TERN_PTE_VALID) {
				tern_pt_write(pt, node, idx, 0);
				node->used--;
			}
		} else if (node->children[idx]) {
			child = node->children[idx];
			if (next - start < span)
				tern_pt_unmap_level(pt, child, level - 1, start,
						    next);
			if (next - start == span || !child->used) {
				tern_pt_unlink(pt, node, idx);
				tern_pt_free_level(pt, child, level - 1);
			}
		}
		start = next;
	}
}

static void __tern_pt_unmap(struct tern_pt *pt, u64 start, u64 end)
{
	tern_pt_unmap_level(pt, pt->root, TERN_PT_ROOT_LEVEL, start, end);
}

/* The leaf table covering @va, made (with its parents) if @va has none. */
static struct tern_pt_node *tern_pt_leaf(struct tern_pt *pt, u64 va)
{
	struct tern_pt_node *node = pt->root;
	unsigned int level;

	for (level = TERN_PT_ROOT_LEVEL; level > 0; level--) {
		unsigned int idx = TERN_PT_INDEX(va, level);
		struct tern_pt_node *child = node->children[idx];

		if (!child) {
			child = tern_pt_node_alloc(pt, level - 1,
						   round_down(va, tern_pt_span(level)));
			if (!child)
				return NULL;
			tern_pt_link(pt, node, idx, child);
		}
		node = child;
	}
	return node;
}

/* The arguments of tern_pt_map() and tern_pt_retarget(): 0 or -errno. */
static int tern_pt_check_pages(u64 va, const u64 *page_addrs, u64 npages,
			       u64 pte_flags)
{
	u64 i;

	if (!npages || va % TERN_PAGE_SIZE || pte_flags & ~TERN_PT_LEAF_FLAGS)
		return -EINVAL;
	if (va >= TERN_VA_LIMIT ||
	    npages > (TERN_VA_LIMIT - va) >> TERN_PAGE_SHIFT)
		return -ERANGE;
	for (i = 0; i < npages; i++)
		if (page_addrs[i] & ~TERN_PTE_ADDR_MASK)
			return -EINVAL;
	return 0;
}

/**
 * tern_pt_map() - map pages at consecutive VAs
 * @pt: the tree
 * @va: first VA, 4 KiB aligned
 * @page_addrs: bus address (or device-local offset with TERN_PTE_LOCAL) of
 *	each page, 4 KiB aligned
 * @npages: number of pages
 * @pte_flags: TERN_PTE_WRITABLE and/or TERN_PTE_LOCAL
 *
 * Maps all pages or none.
 *
 * Return: 0; -EINVAL for a misaligned @va or page address, zero @npages or
 * an unknown flag; -ERANGE if the range leaves the VA space; -EEXIST if a
 * page of the range is already mapped; -ENOMEM if a table cannot be
 * allocated.
 */
int tern_pt_map(struct tern_pt *pt, u64 va, const u64 *page_addrs, u64 npages,
		u64 pte_flags)
{
	struct tern_pt_node *leaf = NULL;
	u64 i;
	int ret;

	ret = tern_pt_check_pages(va, page_addrs, npages, pte_flags);
	if (ret)
		return ret;

	for (i = 0; i < npages; i++) {
		u64 cur = va + (i << TERN_PAGE_SHIFT);
		unsigned int idx = TERN_PT_INDEX(cur, 0);

		if (!leaf || !idx) {
			leaf = tern_pt_leaf(pt, cur);
			if (!leaf) {
				/* Also frees the empty tables made for @cur. */
				__tern_pt_unmap(pt, va, cur + TERN_PAGE_SIZE);
				return -ENOMEM;
			}
		}
		if (tern_pt_get(pt, leaf, idx) & TERN_PTE_VALID) {
			ret = -EEXIST;
			goto err_unmap;
		}
		tern_pt_write(pt, leaf, idx, page_addrs[i] | pte_flags | TERN_PTE_VALID);
		leaf->used++;
	}
	return 0;

err_unmap:
	__tern_pt_unmap(pt, va, va + (i << TERN_PAGE_SHIFT));
	return ret;
}

/* The leaf table covering @va, or NULL: never makes one. */
static struct tern_pt_node *tern_pt_find_leaf(struct tern_pt *pt, u64 va)
{
	struct tern_pt_node *node = pt->root;
	unsigned int level;

	for (level = TERN_PT_ROOT_LEVEL; node && level > 0; level--)
		node = node->children[TERN_PT_INDEX(va, level)];
	return node;
}

/**
 * tern_pt_retarget() - point the mapped pages of a range at other addresses
 * @pt: the tree
 * @va: first VA, 4 KiB aligned
 * @page_addrs: the new bus address (or device-local offset with
 *	TERN_PTE_LOCAL) of each page, 4 KiB aligned
 * @npages: number of pages
 * @pte_flags: the new TERN_PTE_WRITABLE and TERN_PTE_LOCAL of the entries
 *
 * The valid entries of the range are rewritten in place; pages that are
 * not mapped are skipped and stay so.  No table is made or freed, so it
 * never allocates.  What a move of a BO (a paging buffer) does to its
 * mappings.  The caller invalidates the TLBs afterwards.
 *
 * Return: the number of entries rewritten; -EINVAL for a misaligned @va or
 * page address, zero @npages or an unknown flag; -ERANGE if the range
 * leaves the VA space.  Nothing changed on error.
 */
s64 tern_pt_retarget(struct tern_pt *pt, u64 va, const u64 *page_addrs,
		     u64 npages, u64 pte_flags)
{
	struct tern_pt_node *leaf = NULL;
	s64 done = 0;
	int ret;
	u64 i;

	ret = tern_pt_check_pages(va, page_addrs, npages, pte_flags);
	if (ret)
		return ret;
	for (i = 0; i < npages; i++) {
		u64 cur = va + (i << TERN_PAGE_SHIFT);
		unsigned int idx = TERN_PT_INDEX(cur, 0);

		if (!leaf || !idx)
			leaf = tern_pt_find_leaf(pt, cur);
		if (!leaf || !(tern_pt_get(pt, leaf, idx) & TERN_PTE_VALID))
			continue;
		tern_pt_write(pt, leaf, idx,
			      page_addrs[i] | pte_flags | TERN_PTE_VALID);
		done++;
	}
	return done;
}

/**
 * tern_pt_unmap() - unmap the pages of a VA range
 * @pt: the tree
 * @va: first VA, 4 KiB aligned
 * @npages: number of pages
 *
 * Pages of the range that are not mapped are skipped.  Tables left empty
 * are freed.  The caller invalidates the TLBs afterwards.
 */
void tern_pt_unmap(struct tern_pt *pt, u64 va, u64 npages)
{
	if (WARN_ON(va % TERN_PAGE_SIZE || va >= TERN_VA_LIMIT ||
		    npages > (TERN_VA_LIMIT - va) >> TERN_PAGE_SHIFT))
		return;
	if (npages)
		__tern_pt_unmap(pt, va, va + (npages << TERN_PAGE_SHIFT));
}

/* Blocks of @size (a power of two) that intersect [start, end). */
static u64 tern_pt_blocks(u64 start, u64 end, u64 size)
{
	return (round_up(end, size) - round_down(start, size)) / size;
}

/*
 * Tables a map of [start, end) adds under @node, a table of @level, or, for
 * a NULL @node, a table of @level that does not exist yet: it and every
 * table below it within the range are new.
 */
static u64 tern_pt_needed_level(struct tern_pt_node *node, unsigned int level,
				u64 start, u64 end, u64 *leaves)
{
	u64 span = tern_pt_span(level), n = 0;
	unsigned int l;

	if (!node) {
		/* one table per entry-span of each level above the leaves */
		for (l = 1; l <= level; l++)
			n += tern_pt_blocks(start, end, tern_pt_span(l));
		*leaves += level ? tern_pt_blocks(start, end, tern_pt_span(1)) : 1;
		return n + 1;
	}
	if (!level)
		return 0;
	while (start < end) {
		u64 next = min(round_down(start, span) + span, end);

		n += tern_pt_needed_level(node->children[TERN_PT_INDEX(start, level)],
					  level - 1, start, next, leaves);
		start = next;
	}
	return n;
}

/**
 * tern_pt_tables_needed() - how many tables a map would add
 * @pt: the tree
 * @va: first VA, 4 KiB aligned
 * @npages: number of pages, not 0
 *
 * What tern_pt_map() of the same range would allocate if it succeeded:
 * the owner checks it against its budget before mapping, so that a map
 * refused for lack of budget changes nothing.  Takes time linear in the
 * number of tables the range spans (one step per 2 MiB).
 *
 * Return: the number of new tables; 0 for a range outside the VA space or
 * misaligned (tern_pt_map() refuses those).
 */
u64 tern_pt_tables_needed(struct tern_pt *pt, u64 va, u64 npages)
{
	u64 leaves = 0;

	if (!npages || va % TERN_PAGE_SIZE || va >= TERN_VA_LIMIT ||
	    npages > (TERN_VA_LIMIT - va) >> TERN_PAGE_SHIFT)
		return 0;
	return tern_pt_needed_level(pt->root, TERN_PT_ROOT_LEVEL, va,
				    va + (npages << TERN_PAGE_SHIFT), &leaves);
}

/**
 * tern_pt_lookup() - translate a VA as the device would
 * @pt: the tree
 * @va: any VA; the page holding it is looked up
 * @pte: receives the leaf entry
 *
 * Return: 0 if the page is mapped, -ENOENT if it is not, -ERANGE if @va is
 * outside the VA space.
 */
int tern_pt_lookup(struct tern_pt *pt, u64 va, u64 *pte)
{
	struct tern_pt_node *node;
	u64 entry;

	if (va >= TERN_VA_LIMIT)
		return -ERANGE;
	node = tern_pt_find_leaf(pt, va);
	if (!node)
		return -ENOENT;
	entry = tern_pt_get(pt, node, TERN_PT_INDEX(va, 0));
	if (!(entry & TERN_PTE_VALID))
		return -ENOENT;
	*pte = entry;
	return 0;
}

/**
 * tern_pt_tables_split() - tables a map would add, and how many are leaves
 * @pt: the tree, or NULL for the most any tree may need: one with nothing
 *	mapped in the range's tables (the root apart)
 * @va: first VA, 4 KiB aligned
 * @npages: number of pages, not 0
 * @leaves: receives how many of them are leaf tables
 *
 * Return: the number of new tables; 0 for a range outside the VA space or
 * misaligned.
 */
u64 tern_pt_tables_split(struct tern_pt *pt, u64 va, u64 npages, u64 *leaves)
{
	u64 end = va + (npages << TERN_PAGE_SHIFT);

	*leaves = 0;
	if (!npages || va % TERN_PAGE_SIZE || va >= TERN_VA_LIMIT ||
	    npages > (TERN_VA_LIMIT - va) >> TERN_PAGE_SHIFT)
		return 0;
	if (pt)
		return tern_pt_needed_level(pt->root, TERN_PT_ROOT_LEVEL, va,
					    end, leaves);
	/* the root exists in every tree */
	return tern_pt_needed_level(NULL, TERN_PT_ROOT_LEVEL, va, end,
				    leaves) - 1;
}

/**
 * tern_pt_pool_init() - make an empty pool
 * @pool: the pool
 */
void tern_pt_pool_init(struct tern_pt_pool *pool)
{
	INIT_LIST_HEAD(&pool->spare);
	INIT_LIST_HEAD(&pool->spare_leaves);
	pool->nr_spare = 0;
	pool->nr_spare_leaves = 0;
}

/**
 * tern_pt_pool_fill() - put tables in a pool
 * @pt: the tree whose allocator makes them
 * @pool: the pool
 * @tables: how many tables it must hold at least, leaves included
 * @leaves: how many of those are leaf tables
 *
 * Needs no lock of the tree's: the pool is the caller's.
 *
 * Context: process context; may sleep.
 * Return: 0, or -ENOMEM (the tables allocated stay in the pool).
 */
int tern_pt_pool_fill(struct tern_pt *pt, struct tern_pt_pool *pool,
		      u64 tables, u64 leaves)
{
	struct tern_pt_node *node;

	while (pool->nr_spare_leaves < leaves) {
		node = tern_pt_node_new(pt, false);
		if (!node)
			return -ENOMEM;
		list_add(&node->link, &pool->spare_leaves);
		pool->nr_spare_leaves++;
	}
	while (pool->nr_spare < tables - leaves) {
		node = tern_pt_node_new(pt, true);
		if (!node)
			return -ENOMEM;
		list_add(&node->link, &pool->spare);
		pool->nr_spare++;
	}
	return 0;
}

/**
 * tern_pt_reserve() - allocate the tables a map will need
 * @pt: the tree, with no update open
 * @va: first VA of the map, 4 KiB aligned
 * @npages: pages it maps, not 0
 *
 * As many tables as tern_pt_tables_needed() says, leaf and non-leaf ones
 * apart, are put in reserve; a map of the range made before the tree
 * changes otherwise takes its tables from there, allocates nothing and
 * cannot fail half-way.  What is left is released by tern_pt_unreserve().
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL for a bad range, or -ENOMEM (the tables allocated
 * stay in reserve).
 */
int tern_pt_reserve(struct tern_pt *pt, u64 va, u64 npages)
{
	u64 leaves, count;

	if (!npages || va % TERN_PAGE_SIZE || va >= TERN_VA_LIMIT ||
	    npages > (TERN_VA_LIMIT - va) >> TERN_PAGE_SHIFT)
		return -EINVAL;
	count = tern_pt_tables_split(pt, va, npages, &leaves);
	return tern_pt_pool_fill(pt, &pt->reserve, count, leaves);
}

/**
 * tern_pt_pool_drain() - release the tables of a pool
 * @pt: the tree whose allocator made them
 * @pool: the pool, not in use by the tree
 *
 * They never were in a tree: they go back at once, through
 * &tern_pt_ops.discard_table.
 */
void tern_pt_pool_drain(struct tern_pt *pt, struct tern_pt_pool *pool)
{
	struct tern_pt_node *node, *next;
	struct list_head *lists[] = { &pool->spare, &pool->spare_leaves };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		list_for_each_entry_safe(node, next, lists[i], link) {
			pt->ops->discard_table(pt->priv, node->table,
					       node->dev_addr);
			kfree(node->children);
			kfree(node);
		}
	}
	tern_pt_pool_init(pool);
}

/**
 * tern_pt_unreserve() - release the tables still in reserve
 * @pt: the tree
 */
void tern_pt_unreserve(struct tern_pt *pt)
{
	tern_pt_pool_drain(pt, &pt->reserve);
}

/**
 * tern_pt_use_pool() - where the tree's new tables come from
 * @pt: the tree
 * @pool: a pool of the owner's, filled for the worst case of the changes
 *	to come: the tree then allocates nothing, and a map that would need
 *	more tables than it holds fails (a bug, warned about).  NULL for the
 *	tree's own reserve, then its allocator.
 */
void tern_pt_use_pool(struct tern_pt *pt, struct tern_pt_pool *pool)
{
	pt->pool = pool ?: &pt->reserve;
}

/* Existing tables under @node (of @level) meeting [start, end), and their entries there. */
static void tern_pt_size_level(struct tern_pt_node *node, unsigned int level,
			       u64 start, u64 end, struct tern_pt_update_room *size)
{
	u64 span = tern_pt_span(level);

	size->tables++;
	size->entries += (round_up(end, span) - round_down(start, span)) / span;
	if (!level)
		return;
	while (start < end) {
		u64 next = min(round_down(start, span) + span, end);
		struct tern_pt_node *child = node->children[TERN_PT_INDEX(start, level)];

		/*
		 * A table whose whole span is in the range is unlinked by an
		 * unmap, and cannot exist under a map (it would hold a
		 * mapping of the range): its own entries are never recorded.
		 */
		if (child && next - start < span)
			tern_pt_size_level(child, level - 1, start, next, size);
		start = next;
	}
}

/**
 * tern_pt_update_size() - room for the DMA buffer of an update of a range
 * @pt: the tree, with no update open
 * @va: first VA of the range the update will map or unmap, 4 KiB aligned
 * @npages: pages in the range, not 0
 * @size: filled in: at most what tern_pt_update_end() writes for an update
 *	whose maps and unmaps stay inside the range, the maps onto pages
 *	that hold no mapping
 *
 * Only tables that exist now can have entries recorded: the ones an update
 * makes are written directly.  Takes time linear in the tables of the range.
 */
void tern_pt_update_size(struct tern_pt *pt, u64 va, u64 npages,
			 struct tern_pt_update_room *size)
{
	memset(size, 0, sizeof(*size));
	if (WARN_ON(!npages || va % TERN_PAGE_SIZE || va >= TERN_VA_LIMIT ||
		    npages > (TERN_VA_LIMIT - va) >> TERN_PAGE_SHIFT))
		return;
	tern_pt_size_level(pt->root, TERN_PT_ROOT_LEVEL, va,
			   va + (npages << TERN_PAGE_SHIFT), size);
	size->cmd_bytes = size->tables * sizeof(struct tern_pkt_phys_copy) +
			  sizeof(struct tern_pkt_tlb_invalidate);
	size->staging_bytes = size->entries * sizeof(u64);
}

/**
 * tern_pt_update_size_max() - room for an update of a range, whatever the
 *	tree holds then
 * @va: first VA of the range, 4 KiB aligned
 * @npages: pages in the range, not 0
 * @size: filled in: at least what tern_pt_update_size() says for the
 *	range of any tree
 *
 * Only the root and, on each level below it, the first and the last table
 * that meet the range can be covered partly: a table in between is
 * covered whole, so it is made by a map or unlinked by an unmap, and its
 * own entries are never recorded.  Takes constant time: for a change
 * recorded later, on a tree that earlier changes will have changed.
 */
void tern_pt_update_size_max(u64 va, u64 npages,
			     struct tern_pt_update_room *size)
{
	u64 start = va, end = va + (npages << TERN_PAGE_SHIFT);
	int level;

	memset(size, 0, sizeof(*size));
	if (WARN_ON(!npages || va % TERN_PAGE_SIZE || va >= TERN_VA_LIMIT ||
		    npages > (TERN_VA_LIMIT - va) >> TERN_PAGE_SHIFT))
		return;
	for (level = TERN_PT_ROOT_LEVEL; level >= 0; level--) {
		u64 espan = tern_pt_span(level);
		u64 tspan = espan * TERN_PT_ENTRIES;
		u64 first = round_down(start, tspan);
		u64 last = round_down(end - 1, tspan);
		u64 t;

		for (t = first; ; t = last) {
			u64 s = max(start, t), e = min(end, t + tspan);

			if (level == TERN_PT_ROOT_LEVEL ||
			    s != t || e != t + tspan) {
				size->tables++;
				size->entries += tern_pt_blocks(s, e, espan);
			}
			if (t == last)
				break;
		}
	}
	size->cmd_bytes = size->tables * sizeof(struct tern_pkt_phys_copy) +
			  sizeof(struct tern_pkt_tlb_invalidate);
	size->staging_bytes = size->entries * sizeof(u64);
}

/**
 * tern_pt_retarget_size() - room an update of tern_pt_retarget() calls needs
 * @va: first VA of the range, 4 KiB aligned
 * @npages: pages in the range, not 0
 * @size: out: the room, for any tree
 *
 * A retarget rewrites leaf entries only, but of every leaf the range
 * spans, whole ones included (a map or an unmap of a whole leaf writes its
 * parent's entry instead): tern_pt_update_size_max() does not cover it.
 */
void tern_pt_retarget_size(u64 va, u64 npages,
			   struct tern_pt_update_room *size)
{
	memset(size, 0, sizeof(*size));
	if (WARN_ON(!npages || va % TERN_PAGE_SIZE || va >= TERN_VA_LIMIT ||
		    npages > (TERN_VA_LIMIT - va) >> TERN_PAGE_SHIFT))
		return;
	size->tables = tern_pt_blocks(va, va + (npages << TERN_PAGE_SHIFT),
				      tern_pt_span(1));
	size->entries = npages;
	size->cmd_bytes = size->tables * sizeof(struct tern_pkt_phys_copy) +
			  sizeof(struct tern_pkt_tlb_invalidate);
	size->staging_bytes = size->entries * sizeof(u64);
}

/**
 * tern_pt_update_begin() - start recording the changes to the tree
 * @pt: the tree, with no update open, and every update before this one
 *	run by the device (the tables hold what they say)
 * @va: first VA of the range the update maps and unmaps in, 4 KiB aligned
 * @npages: pages in the range, not 0
 * @staging: where the changed entries go: tern_pt_update_size().
 *	staging_bytes of room for the same range, 8-byte aligned (the buffer
 *	the device copies them from)
 * @staging_bytes: its size
 *
 * From now until tern_pt_update_end(), entries of tables the device may
 * walk (every table that exists now) are not written: tern_pt_map() and
 * tern_pt_unmap() change the CPU's view of the tree and keep the entries
 * they change in @staging.  Tables they make are written directly:
 * nothing the device can see links them before the update runs.  Maps and
 * unmaps of the update stay inside the range, and maps onto pages that
 * hold no mapping.
 */
void tern_pt_update_begin(struct tern_pt *pt, u64 va, u64 npages,
			  void *staging, u64 staging_bytes)
{
	WARN_ON(pt->recording || pt->nr_dirty);
	pt->gen++;
	pt->recording = true;
	pt->range_start = va;
	pt->range_end = va + (npages << TERN_PAGE_SHIFT);
	pt->staging = staging;
	pt->staging_room = staging_bytes / sizeof(u64);
	pt->staged = 0;
}

/**
 * tern_pt_emit_phys_copy() - write one PHYS_COPY packet
 * @cmd: where, TERN_PKT_DWORDS_PHYS_COPY dwords
 * @src: source: a bus address, or a local offset with %TERN_PHYS_COPY_SRC_LOCAL
 * @dst: destination, likewise with %TERN_PHYS_COPY_DST_LOCAL
 * @size: bytes
 * @flags: TERN_PHYS_COPY_*
 *
 * The one packet of the driver's own DMA buffers: page-table updates here,
 * paging buffers (tern_paging.c).
 *
 * Return: the dwords written.
 */
u32 tern_pt_emit_phys_copy(u32 *cmd, u64 src, u64 dst, u32 size, u32 flags)
{
	struct tern_pkt_phys_copy pkt = {
		.header = TERN_PKT_HEADER(TERN_OP_PHYS_COPY,
					  TERN_PKT_DWORDS_PHYS_COPY),
		.src_lo = lower_32_bits(src),
		.src_hi = upper_32_bits(src),
		.dst_lo = lower_32_bits(dst),
		.dst_hi = upper_32_bits(dst),
		.size = size,
		.flags = flags,
	};

	memcpy(cmd, &pkt, sizeof(pkt));
	return TERN_PKT_DWORDS_PHYS_COPY;
}

static u32 tern_pt_emit_invalidate(u32 *cmd)
{
	struct tern_pkt_tlb_invalidate pkt = {
		.header = TERN_PKT_HEADER(TERN_OP_TLB_INVALIDATE,
					  TERN_PKT_DWORDS_TLB_INVALIDATE),
	};

	memcpy(cmd, &pkt, sizeof(pkt));
	return TERN_PKT_DWORDS_TLB_INVALIDATE;
}

/**
 * tern_pt_update_end() - close an update and write its DMA buffer
 * @pt: the tree, with an update open
 * @cmd: where the packets go, tern_pt_update_size().cmd_bytes of room
 * @staging_addr: bus address of the update's staging array
 * @invalidate: end the buffer with TLB_INVALIDATE (the update removed or
 *	changed translations)
 *
 * For each table with recorded entries, one PHYS_COPY copies the entries
 * from its first to its last recorded one, as the update leaves them, from
 * the staging array into the table.  Entries in between that the update
 * did not change are copied with the value they have.  The buffer must run
 * in a privileged slot, and before the next update of the tree begins.
 *
 * @dwords: receives the buffer's length in dwords, 0 if the device has
 *	nothing to do (nothing recorded and no @invalidate)
 *
 * Return: 0; -EIO if the update could not record a change (a bug, warned
 * about): the CPU's view of the tree then differs from what the buffer
 * would make of the tables, and *@dwords is 0.
 */
int tern_pt_update_end(struct tern_pt *pt, u32 *cmd, u64 staging_addr,
		       bool invalidate, u32 *dwords)
{
	struct tern_pt_node *node, *next;
	u32 n = 0;

	WARN_ON(!pt->recording);
	list_for_each_entry_safe(node, next, &pt->dirty, link) {
		unsigned int count = node->dirty_last - node->dirty_first + 1;
		unsigned int i;
		u64 src, dst;

		list_del_init(&node->link);
		node->dirty = false;
		if (node->dirty_first > node->dirty_last)
			continue;
		src = staging_addr + (node->window + node->dirty_first -
				      node->window_first) * sizeof(u64);
		dst = node->dev_addr + node->dirty_first * sizeof(u64);
		for (i = 0; node->level && i < count; i++)
			pt->staging[node->window + node->dirty_first -
				    node->window_first + i] =
				cpu_to_le64(tern_pt_link_value(node,
							       node->dirty_first + i));
		n += tern_pt_emit_phys_copy(cmd + n, src, dst,
					    count * sizeof(u64), 0);
	}
	pt->nr_dirty = 0;
	if (invalidate)
		n += tern_pt_emit_invalidate(cmd + n);
	pt->recording = false;
	pt->staging = NULL;
	if (pt->failed) {
		/* the buffer does not hold the whole change */
		pt->failed = false;
		*dwords = 0;
		return -EIO;
	}
	*dwords = n;
	return 0;
}
