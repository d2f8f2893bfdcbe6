// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/math.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <asm/barrier.h>

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
 * address, the number of valid entries and, for non-leaf tables, the
 * pointers to the child nodes; the device never sees those.
 *
 * Rules kept by the code:
 *
 * - A table exists only while it holds a valid entry (the root always
 *   exists): unmapping the last page under a table frees it, and its parent
 *   if that becomes empty too.
 * - Mapping never replaces a valid entry (-EEXIST) and either maps every
 *   page or none: a failure half-way unmaps what was mapped and frees the
 *   tables made for it.
 * - Entries are written with WRITE_ONCE (a 64-bit entry is never seen
 *   half-written), children are linked only after they are initialised,
 *   with dma_wmb() between the zeroing of a new table and the entry that
 *   links it (a job running in the address space may walk the table as soon
 *   as the link is visible).  The device TLB never caches invalid entries,
 *   so new mappings are usable at once.  Removing mappings needs a TLB
 *   invalidation, which is the owner's job (tern_vm), as is not reusing
 *   freed tables before that invalidation (see &tern_pt_ops.free_table).
 * - The owner can learn how many tables a map would add before making it
 *   (tern_pt_tables_needed()), to keep the tree within a budget.
 *
 * The CPU bookkeeping (&struct tern_pt_node, 4 KiB and more for a non-leaf
 * table) is charged to the caller's memory cgroup, like the tables.
 */

#define TERN_VA_LIMIT		BIT_ULL(TERN_VA_BITS)
#define TERN_PT_ROOT_LEVEL	(TERN_PT_LEVELS - 1)
#define TERN_PT_LEAF_FLAGS	(TERN_PTE_WRITABLE | TERN_PTE_LOCAL)

/**
 * struct tern_pt_node - CPU bookkeeping of one table
 * @table: CPU address of the table the device reads
 * @dev_addr: bus address of @table
 * @used: number of valid entries in @table
 * @children: for a non-leaf table, the node of each valid entry
 */
struct tern_pt_node {
	__le64 *table;
	u64 dev_addr;
	unsigned int used;
	struct tern_pt_node *children[];
};

static u64 tern_pt_span(unsigned int level)
{
	return 1ull << TERN_PT_SHIFT(level);
}

static struct tern_pt_node *tern_pt_node_alloc(struct tern_pt *pt,
					       unsigned int level)
{
	struct tern_pt_node *node;

	if (level)
		node = kzalloc(struct_size(node, children, TERN_PT_ENTRIES),
			       GFP_KERNEL_ACCOUNT);
	else
		node = kzalloc(sizeof(*node), GFP_KERNEL_ACCOUNT);
	if (!node)
		return NULL;

	node->table = pt->ops->alloc_table(pt->priv, &node->dev_addr);
	if (!node->table) {
		kfree(node);
		return NULL;
	}
	if (WARN_ON(node->dev_addr & ~TERN_PTE_ADDR_MASK)) {
		pt->ops->free_table(pt->priv, node->table, node->dev_addr);
		kfree(node);
		return NULL;
	}
	memset(node->table, 0, TERN_PT_ENTRIES * sizeof(*node->table));
	pt->nr_tables++;
	return node;
}

static void tern_pt_node_free(struct tern_pt *pt, struct tern_pt_node *node)
{
	pt->ops->free_table(pt->priv, node->table, node->dev_addr);
	pt->nr_tables--;
	kfree(node);
}

static void tern_pt_set(struct tern_pt_node *node, unsigned int idx, u64 entry)
{
	WRITE_ONCE(node->table[idx], cpu_to_le64(entry));
}

static u64 tern_pt_get(struct tern_pt_node *node, unsigned int idx)
{
	return le64_to_cpu(READ_ONCE(node->table[idx]));
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
	pt->root = tern_pt_node_alloc(pt, TERN_PT_ROOT_LEVEL);
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
	if (!pt->root)
		return;
	tern_pt_free_level(pt, pt->root, TERN_PT_ROOT_LEVEL);
	pt->root = NULL;
	WARN_ON(pt->nr_tables);
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
 * before, as an interrupted map may leave them).
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
			if (tern_pt_get(node, idx) & TERN_PTE_VALID) {
				tern_pt_set(node, idx, 0);
				node->used--;
			}
		} else if (node->children[idx]) {
			child = node->children[idx];
			tern_pt_unmap_level(pt, child, level - 1, start, next);
			if (!child->used) {
				tern_pt_set(node, idx, 0);
				node->children[idx] = NULL;
				node->used--;
				tern_pt_node_free(pt, child);
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
			child = tern_pt_node_alloc(pt, level - 1);
			if (!child)
				return NULL;
			node->children[idx] = child;
			node->used++;
			/*
			 * The device may walk the new table as soon as it
			 * sees the link: the zeroes written by
			 * tern_pt_node_alloc() must reach memory first.
			 * dma_wmb() orders CPU writes to coherent DMA memory
			 * as the device observes them.
			 */
			dma_wmb();
			tern_pt_set(node, idx, child->dev_addr | TERN_PTE_VALID);
		}
		node = child;
	}
	return node;
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

	if (!npages || va % TERN_PAGE_SIZE || pte_flags & ~TERN_PT_LEAF_FLAGS)
		return -EINVAL;
	if (va >= TERN_VA_LIMIT ||
	    npages > (TERN_VA_LIMIT - va) >> TERN_PAGE_SHIFT)
		return -ERANGE;
	for (i = 0; i < npages; i++)
		if (page_addrs[i] & ~TERN_PTE_ADDR_MASK)
			return -EINVAL;

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
		if (tern_pt_get(leaf, idx) & TERN_PTE_VALID) {
			ret = -EEXIST;
			goto err_unmap;
		}
		tern_pt_set(leaf, idx, page_addrs[i] | pte_flags | TERN_PTE_VALID);
		leaf->used++;
	}
	return 0;

err_unmap:
	__tern_pt_unmap(pt, va, va + (i << TERN_PAGE_SHIFT));
	return ret;
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
				u64 start, u64 end)
{
	u64 span = tern_pt_span(level), n = 0;
	unsigned int l;

	if (!node) {
		/* one table per entry-span of each level above the leaves */
		for (l = 1; l <= level; l++)
			n += tern_pt_blocks(start, end, tern_pt_span(l));
		return n + 1;
	}
	if (!level)
		return 0;
	while (start < end) {
		u64 next = min(round_down(start, span) + span, end);

		n += tern_pt_needed_level(node->children[TERN_PT_INDEX(start, level)],
					  level - 1, start, next);
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
	if (!npages || va % TERN_PAGE_SIZE || va >= TERN_VA_LIMIT ||
	    npages > (TERN_VA_LIMIT - va) >> TERN_PAGE_SHIFT)
		return 0;
	return tern_pt_needed_level(pt->root, TERN_PT_ROOT_LEVEL, va,
				    va + (npages << TERN_PAGE_SHIFT));
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
	struct tern_pt_node *node = pt->root;
	unsigned int level;
	u64 entry;

	if (va >= TERN_VA_LIMIT)
		return -ERANGE;

	for (level = TERN_PT_ROOT_LEVEL; level > 0; level--) {
		node = node->children[TERN_PT_INDEX(va, level)];
		if (!node)
			return -ENOENT;
	}
	entry = tern_pt_get(node, TERN_PT_INDEX(va, 0));
	if (!(entry & TERN_PTE_VALID))
		return -ENOENT;
	*pte = entry;
	return 0;
}
