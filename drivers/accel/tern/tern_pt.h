/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#ifndef __TERN_PT_H__
#define __TERN_PT_H__

#include <linux/list.h>
#include <linux/types.h>

struct tern_pt_node;

/**
 * struct tern_pt_pool - tables allocated ahead, not in any tree
 * @spare: non-leaf tables
 * @nr_spare: entries of @spare
 * @spare_leaves: leaf tables
 * @nr_spare_leaves: entries of @spare_leaves
 *
 * A change recorded where it must not allocate takes its tables from a
 * pool filled beforehand (tern_pt_pool_fill(), tern_pt_use_pool()).
 */
struct tern_pt_pool {
	struct list_head spare;
	unsigned int nr_spare;
	struct list_head spare_leaves;
	unsigned int nr_spare_leaves;
};

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
 * @discard_table: release a table obtained from @alloc_table that was never
 *	in the tree (a reserved one left over): the device cannot know it.
 */
struct tern_pt_ops {
	void *(*alloc_table)(void *priv, u64 *dev_addr);
	void (*free_table)(void *priv, void *table, u64 dev_addr);
	void (*discard_table)(void *priv, void *table, u64 dev_addr);
};

/**
 * struct tern_pt - one tree of device page tables (one address space)
 * @ops: allocator of the tables
 * @priv: argument of @ops
 * @root: the level-3 table
 * @nr_tables: number of tables in the tree, root included
 * @recording: an update is open (tern_pt_update_begin()): entries of
 *	tables the device may walk are not written but recorded
 * @gen: number of the open update; tables made during it carry it
 * @dirty: tables with recorded entries (&tern_pt_node.dirty_link)
 * @nr_dirty: entries of @dirty
 * @reserve: tables reserved by tern_pt_reserve(), not in the tree
 * @pool: where new tables come from: @reserve, then the allocator; or a
 *	pool of the owner's (tern_pt_use_pool()), and nothing else
 * @failed: the open update could not record a change (a bug): its buffer
 *	is not written
 * @range_start: first VA of the open update's range
 * @range_end: end of that range
 * @staging: the open update's staging array
 * @staging_room: its size in entries
 * @staged: entries of it given to dirty tables
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
	bool recording;
	u64 gen;
	struct list_head dirty;
	unsigned int nr_dirty;
	struct tern_pt_pool reserve;
	struct tern_pt_pool *pool;
	bool failed;
	u64 range_start;
	u64 range_end;
	__le64 *staging;
	u64 staging_room;
	u64 staged;
};

/**
 * struct tern_pt_update_room - room an update of a range may need
 * @tables: tables whose entries it may record, at most
 * @entries: entries it may record, at most
 * @cmd_bytes: bytes of commands tern_pt_update_end() may write
 * @staging_bytes: bytes of staged entries it may write
 */
struct tern_pt_update_room {
	u64 tables;
	u64 entries;
	u64 cmd_bytes;
	u64 staging_bytes;
};

int tern_pt_init(struct tern_pt *pt, const struct tern_pt_ops *ops, void *priv);
void tern_pt_fini(struct tern_pt *pt);
u64 tern_pt_root(struct tern_pt *pt);
int tern_pt_map(struct tern_pt *pt, u64 va, const u64 *page_addrs, u64 npages,
		u64 pte_flags);
void tern_pt_unmap(struct tern_pt *pt, u64 va, u64 npages);
s64 tern_pt_retarget(struct tern_pt *pt, u64 va, const u64 *page_addrs,
		     u64 npages, u64 pte_flags);
u64 tern_pt_tables_needed(struct tern_pt *pt, u64 va, u64 npages);
int tern_pt_lookup(struct tern_pt *pt, u64 va, u64 *pte);

u64 tern_pt_tables_split(struct tern_pt *pt, u64 va, u64 npages, u64 *leaves);

int tern_pt_reserve(struct tern_pt *pt, u64 va, u64 npages);
void tern_pt_unreserve(struct tern_pt *pt);
void tern_pt_pool_init(struct tern_pt_pool *pool);
int tern_pt_pool_fill(struct tern_pt *pt, struct tern_pt_pool *pool,
		      u64 tables, u64 leaves);
void tern_pt_pool_drain(struct tern_pt *pt, struct tern_pt_pool *pool);
void tern_pt_use_pool(struct tern_pt *pt, struct tern_pt_pool *pool);
void tern_pt_update_size(struct tern_pt *pt, u64 va, u64 npages,
			 struct tern_pt_update_room *size);
void tern_pt_update_size_max(u64 va, u64 npages,
			     struct tern_pt_update_room *size);
void tern_pt_retarget_size(u64 va, u64 npages,
			   struct tern_pt_update_room *size);
void tern_pt_update_begin(struct tern_pt *pt, u64 va, u64 npages,
			  void *staging, u64 staging_bytes);
int tern_pt_update_end(struct tern_pt *pt, u32 *cmd, u64 staging_addr,
		       bool invalidate, u32 *dwords);
u32 tern_pt_emit_phys_copy(u32 *cmd, u64 src, u64 dst, u32 size, u32 flags);

#endif /* __TERN_PT_H__ */
