/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_PT_H__
#define __TERN_PT_H__

#include <linux/types.h>

struct tern_pt_node;

/**
 * struct tern_pt_ops - how a page-table tree gets the memory of its tables
 * @alloc_table: allocate one 4 KiB table the device can read, return its
 *	CPU address (or NULL) and store its bus address in @dev_addr; the
 *	address must be 4 KiB aligned and fit TERN_PTE_ADDR_MASK.  The content
 *	need not be zeroed.  Called from process context; may sleep.
 * @free_table: release a table obtained from @alloc_table.  The tree
 *	unlinks the table from its parent before calling this, but the device
 *	may still be walking it: the owner must not reuse the memory before the
 *	TLBs have been invalidated (e.g. defer the free).
 */
struct tern_pt_ops {
	void *(*alloc_table)(void *priv, u64 *dev_addr);
	void (*free_table)(void *priv, void *table, u64 dev_addr);
};

/**
 * struct tern_pt - one tree of device page tables (one address space)
 * @ops: allocator of the tables
 * @priv: argument of @ops
 * @root: the level-3 table
 * @nr_tables: number of tables in the tree, root included
 *
 * The tree itself is not locked: its owner serialises map, unmap and fini
 * (tern_vm does it with its own lock).  Lookups may run concurrently with
 * nothing else either.
 */
struct tern_pt {
	const struct tern_pt_ops *ops;
	void *priv;
	struct tern_pt_node *root;
	u64 nr_tables;
};

int tern_pt_init(struct tern_pt *pt, const struct tern_pt_ops *ops, void *priv);
void tern_pt_fini(struct tern_pt *pt);
u64 tern_pt_root(struct tern_pt *pt);
int tern_pt_map(struct tern_pt *pt, u64 va, const u64 *page_addrs, u64 npages,
		u64 pte_flags);
void tern_pt_unmap(struct tern_pt *pt, u64 va, u64 npages);
u64 tern_pt_tables_needed(struct tern_pt *pt, u64 va, u64 npages);
int tern_pt_lookup(struct tern_pt *pt, u64 va, u64 *pte);

#endif /* __TERN_PT_H__ */
