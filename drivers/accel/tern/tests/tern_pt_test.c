// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * KUnit tests of the page-table code, with a fake table allocator that
 * counts tables, fails on request and lets the test walk the tables the way
 * the device does.
 */

#include <kunit/test.h>
#include <linux/slab.h>

#include <drm/tern_accel.h>

#include "../tern_pt.c"

#define PAGE4K		TERN_PAGE_SIZE
#define FAKE_TABLES	64
#define FAKE_DEV_BASE	0x0000123400000000ull	/* above 4 GiB on purpose */

/**
 * struct tern_fake_alloc - table allocator of the tests
 * @test: the running test
 * @calls: alloc_table calls so far
 * @fail_at: fail the alloc_table call of this number (1-based), 0: never
 * @allocs: tables handed out
 * @frees: tables given back
 * @next_dev: next fake bus address
 * @cpu: CPU address of each live table, indexed like @dev
 * @dev: bus address of each live table, 0 if the entry is unused
 * @defer: free_table only marks the table dead; tern_fake_reap() frees it
 *	(as tern_vm does once the update ran)
 * @dead: the table was given back, not yet freed
 */
struct tern_fake_alloc {
	struct kunit *test;
	unsigned int calls;
	unsigned int fail_at;
	unsigned int allocs;
	unsigned int frees;
	u64 next_dev;
	void *cpu[FAKE_TABLES];
	u64 dev[FAKE_TABLES];
	bool defer;
	bool dead[FAKE_TABLES];
};

static void *tern_fake_alloc_table(void *priv, u64 *dev_addr)
{
	struct tern_fake_alloc *fa = priv;
	unsigned int i;
	void *table;

	if (++fa->calls == fa->fail_at)
		return NULL;
	for (i = 0; i < FAKE_TABLES && fa->dev[i]; i++)
		;
	KUNIT_ASSERT_LT(fa->test, i, FAKE_TABLES);

	table = kmalloc(PAGE4K, GFP_KERNEL);
	if (!table)
		return NULL;
	/* The tree must not rely on zeroed memory. */
	memset(table, 0xa5, PAGE4K);
	fa->cpu[i] = table;
	fa->dev[i] = fa->next_dev;
	fa->next_dev += PAGE4K;
	fa->allocs++;
	*dev_addr = fa->dev[i];
	return table;
}

static void tern_fake_free_table(void *priv, void *table, u64 dev_addr)
{
	struct tern_fake_alloc *fa = priv;
	unsigned int i;

	for (i = 0; i < FAKE_TABLES; i++) {
		if (fa->dev[i] == dev_addr) {
			KUNIT_EXPECT_PTR_EQ(fa->test, fa->cpu[i], table);
			KUNIT_EXPECT_FALSE(fa->test, fa->dead[i]);
			if (fa->defer) {
				fa->dead[i] = true;
				return;
			}
			fa->dev[i] = 0;
			fa->cpu[i] = NULL;
			fa->frees++;
			kfree(table);
			return;
		}
	}
	KUNIT_FAIL(fa->test, "freeing unknown table %#llx", dev_addr);
}

/* A table never in the tree goes at once, deferred or not. */
static void tern_fake_discard_table(void *priv, void *table, u64 dev_addr)
{
	struct tern_fake_alloc *fa = priv;
	bool defer = fa->defer;

	fa->defer = false;
	tern_fake_free_table(priv, table, dev_addr);
	fa->defer = defer;
}

static const struct tern_pt_ops tern_fake_ops = {
	.alloc_table = tern_fake_alloc_table,
	.free_table = tern_fake_free_table,
	.discard_table = tern_fake_discard_table,
};

/* Free the tables given back while @defer was set. */
static unsigned int tern_fake_reap(struct tern_fake_alloc *fa)
{
	unsigned int i, n = 0;

	for (i = 0; i < FAKE_TABLES; i++) {
		if (!fa->dead[i])
			continue;
		kfree(fa->cpu[i]);
		fa->cpu[i] = NULL;
		fa->dev[i] = 0;
		fa->dead[i] = false;
		fa->frees++;
		n++;
	}
	return n;
}

static unsigned int tern_fake_live(struct tern_fake_alloc *fa)
{
	return fa->allocs - fa->frees;
}

static __le64 *tern_fake_table(struct tern_fake_alloc *fa, u64 dev_addr)
{
	unsigned int i;

	for (i = 0; i < FAKE_TABLES; i++)
		if (fa->dev[i] && fa->dev[i] == dev_addr)
			return fa->cpu[i];
	return NULL;
}

/* Translate @va the way the device does: from the root, through memory. */
static int tern_fake_walk(struct tern_fake_alloc *fa, u64 root, u64 va, u64 *pte)
{
	u64 table_addr = root;
	int level;

	for (level = TERN_PT_LEVELS - 1; level >= 0; level--) {
		__le64 *table = tern_fake_table(fa, table_addr);
		u64 entry;

		KUNIT_ASSERT_NOT_NULL_MSG(fa->test, table,
					  "entry points to no table: %#llx",
					  table_addr);
		entry = le64_to_cpu(table[TERN_PT_INDEX(va, level)]);
		if (!(entry & TERN_PTE_VALID))
			return -ENOENT;
		if (!level) {
			*pte = entry;
			return 0;
		}
		KUNIT_EXPECT_EQ(fa->test, entry & ~TERN_PTE_ADDR_MASK,
				(u64)TERN_PTE_VALID);
		table_addr = entry & TERN_PTE_ADDR_MASK;
	}
	return -ENOENT;
}

struct tern_pt_fixture {
	struct tern_fake_alloc fa;
	struct tern_pt pt;
};

static int tern_pt_test_init(struct kunit *test)
{
	struct tern_pt_fixture *f;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->fa.test = test;
	f->fa.next_dev = FAKE_DEV_BASE;
	KUNIT_ASSERT_EQ(test, tern_pt_init(&f->pt, &tern_fake_ops, &f->fa), 0);
	test->priv = f;
	return 0;
}

static void tern_pt_test_exit(struct kunit *test)
{
	struct tern_pt_fixture *f = test->priv;

	tern_pt_fini(&f->pt);
	tern_fake_reap(&f->fa);
	KUNIT_EXPECT_EQ(test, tern_fake_live(&f->fa), 0);
	KUNIT_EXPECT_EQ(test, f->pt.nr_tables, 0);
}

/* Fake page addresses: distinct, aligned, above 4 GiB. */
static u64 *tern_pages(struct kunit *test, u64 n, u64 base)
{
	u64 *pages, i;

	pages = kunit_kcalloc(test, n, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	for (i = 0; i < n; i++)
		pages[i] = base + i * 3 * PAGE4K;
	return pages;
}

/* Both the CPU-side lookup and the device-side walk agree on @va. */
static void tern_expect_mapped(struct kunit *test, struct tern_pt_fixture *f,
			       u64 va, u64 want)
{
	u64 pte = 0, walked = 0;

	KUNIT_EXPECT_EQ_MSG(test, tern_pt_lookup(&f->pt, va, &pte), 0,
			    "va %#llx", va);
	KUNIT_EXPECT_EQ_MSG(test, pte, want, "va %#llx", va);
	KUNIT_EXPECT_EQ_MSG(test, tern_fake_walk(&f->fa, tern_pt_root(&f->pt),
						 va, &walked), 0, "va %#llx", va);
	KUNIT_EXPECT_EQ_MSG(test, walked, want, "va %#llx", va);
}

static void tern_expect_unmapped(struct kunit *test, struct tern_pt_fixture *f,
				 u64 va)
{
	u64 pte;

	KUNIT_EXPECT_EQ_MSG(test, tern_pt_lookup(&f->pt, va, &pte), -ENOENT,
			    "va %#llx", va);
	KUNIT_EXPECT_EQ_MSG(test, tern_fake_walk(&f->fa, tern_pt_root(&f->pt),
						 va, &pte), -ENOENT,
			    "va %#llx", va);
}

static void tern_pt_empty(struct kunit *test)
{
	struct tern_pt_fixture *f = test->priv;

	KUNIT_EXPECT_EQ(test, tern_fake_live(&f->fa), 1);
	KUNIT_EXPECT_EQ(test, f->pt.nr_tables, 1);
	KUNIT_EXPECT_EQ(test, tern_pt_root(&f->pt), FAKE_DEV_BASE);
	tern_expect_unmapped(test, f, 0);
	tern_expect_unmapped(test, f, 0x7ffffffff000ull);
}

static void tern_pt_map_one(struct kunit *test)
{
	struct tern_pt_fixture *f = test->priv;
	u64 page = 0xabcdef000ull;

	KUNIT_ASSERT_EQ(test, tern_pt_map(&f->pt, 0x1000, &page, 1,
					  TERN_PTE_WRITABLE), 0);
	KUNIT_EXPECT_EQ(test, f->pt.nr_tables, 4);
	KUNIT_EXPECT_EQ(test, tern_fake_live(&f->fa), 4);
	tern_expect_mapped(test, f, 0x1000, page | TERN_PTE_VALID | TERN_PTE_WRITABLE);
	/* Any address inside the page translates. */
	tern_expect_mapped(test, f, 0x1ffc, page | TERN_PTE_VALID | TERN_PTE_WRITABLE);
	tern_expect_unmapped(test, f, 0x0);
	tern_expect_unmapped(test, f, 0x2000);

	tern_pt_unmap(&f->pt, 0x1000, 1);
	tern_expect_unmapped(test, f, 0x1000);
	KUNIT_EXPECT_EQ(test, f->pt.nr_tables, 1);
	KUNIT_EXPECT_EQ(test, tern_fake_live(&f->fa), 1);
}

static void tern_pt_flags(struct kunit *test)
{
	struct tern_pt_fixture *f = test->priv;
	u64 pages[3] = { 0x10000, 0x20000, 0x30000 };

	KUNIT_ASSERT_EQ(test, tern_pt_map(&f->pt, 0x10000, &pages[0], 1, 0), 0);
	KUNIT_ASSERT_EQ(test, tern_pt_map(&f->pt, 0x11000, &pages[1], 1,
					  TERN_PTE_LOCAL), 0);
	KUNIT_ASSERT_EQ(test, tern_pt_map(&f->pt, 0x12000, &pages[2], 1,
					  TERN_PTE_LOCAL | TERN_PTE_WRITABLE), 0);
	tern_expect_mapped(test, f, 0x10000, 0x10000 | TERN_PTE_VALID);
	tern_expect_mapped(test, f, 0x11000, 0x20000 | TERN_PTE_VALID | TERN_PTE_LOCAL);
	tern_expect_mapped(test, f, 0x12000, 0x30000 | TERN_PTE_VALID |
			   TERN_PTE_LOCAL | TERN_PTE_WRITABLE);
	/* One leaf table holds all three. */
	KUNIT_EXPECT_EQ(test, f->pt.nr_tables, 4);

	KUNIT_EXPECT_EQ(test, tern_pt_map(&f->pt, 0x13000, &pages[0], 1,
					  TERN_PTE_VALID), -EINVAL);
	KUNIT_EXPECT_EQ(test, tern_pt_map(&f->pt, 0x13000, &pages[0], 1,
					  BIT_ULL(3)), -EINVAL);
	KUNIT_EXPECT_EQ(test, tern_pt_map(&f->pt, 0x13000, &pages[0], 1,
					  BIT_ULL(63)), -EINVAL);
	tern_expect_unmapped(test, f, 0x13000);
}

/*
 * A range crossing the boundary of a leaf table (2 MiB), a level-1 table
 * (1 GiB) and a level-2 table (512 GiB) at once.
 */
static void tern_pt_cross_boundaries(struct kunit *test)
{
	struct tern_pt_fixture *f = test->priv;
	const u64 va = (1ull << 39) - 2 * PAGE4K;
	u64 *pages = tern_pages(test, 4, 0x100000000ull);
	u64 i;

	KUNIT_ASSERT_EQ(test, tern_pt_map(&f->pt, va, pages, 4, TERN_PTE_WRITABLE), 0);
	/* root + two tables at each of the three lower levels */
	KUNIT_EXPECT_EQ(test, f->pt.nr_tables, 7);
	for (i = 0; i < 4; i++)
		tern_expect_mapped(test, f, va + i * PAGE4K, pages[i] |
				   TERN_PTE_VALID | TERN_PTE_WRITABLE);
	tern_expect_unmapped(test, f, va - PAGE4K);
	tern_expect_unmapped(test, f, va + 4 * PAGE4K);

	/* Unmapping the lower half frees the lower branch only. */
	tern_pt_unmap(&f->pt, va, 2);
	KUNIT_EXPECT_EQ(test, f->pt.nr_tables, 4);
	tern_expect_unmapped(test, f, va);
	tern_expect_unmapped(test, f, va + PAGE4K);
	tern_expect_mapped(test, f, va + 2 * PAGE4K,
			   pages[2] | TERN_PTE_VALID | TERN_PTE_WRITABLE);

	/* Unmapping more than is mapped is fine. */
	tern_pt_unmap(&f->pt, va - 16 * PAGE4K, 64);
	KUNIT_EXPECT_EQ(test, f->pt.nr_tables, 1);
	KUNIT_EXPECT_EQ(test, tern_fake_live(&f->fa), 1);
}

static void tern_pt_top_of_va_space(struct kunit *test)
{
	struct tern_pt_fixture *f = test->priv;
	const u64 top = (1ull << TERN_VA_BITS) - PAGE4K;
	u64 page = 0x5000;

	KUNIT_ASSERT_EQ(test, tern_pt_map(&f->pt, top, &page, 1, 0), 0);
	tern_expect_mapped(test, f, top + 0xfff, page | TERN_PTE_VALID);
	tern_pt_unmap(&f->pt, top, 1);
	KUNIT_EXPECT_EQ(test, f->pt.nr_tables, 1);
}

static void tern_pt_bad_arguments(struct kunit *test)
{
	struct tern_pt_fixture *f = test->priv;
	const u64 end = 1ull << TERN_VA_BITS;
	u64 pages[2] = { 0x1000, 0x2000 };
	u64 bad;
	u64 pte;

	KUNIT_EXPECT_EQ(test, tern_pt_map(&f->pt, 0x1001, pages, 1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, tern_pt_map(&f->pt, 0x1800, pages, 1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, tern_pt_map(&f->pt, 0x1000, pages, 0, 0), -EINVAL);
	bad = 0x1234;
	KUNIT_EXPECT_EQ(test, tern_pt_map(&f->pt, 0x1000, &bad, 1, 0), -EINVAL);
	bad = 1ull << 52;
	KUNIT_EXPECT_EQ(test, tern_pt_map(&f->pt, 0x1000, &bad, 1, 0), -EINVAL);
	/* A bad second page address maps nothing at all. */
	pages[1] = 0x2001;
	KUNIT_EXPECT_EQ(test, tern_pt_map(&f->pt, 0x1000, pages, 2, 0), -EINVAL);
	pages[1] = 0x2000;

	KUNIT_EXPECT_EQ(test, tern_pt_map(&f->pt, end, pages, 1, 0), -ERANGE);
	KUNIT_EXPECT_EQ(test, tern_pt_map(&f->pt, end - PAGE4K, pages, 2, 0), -ERANGE);
	KUNIT_EXPECT_EQ(test, tern_pt_map(&f->pt, 0, pages, U64_MAX, 0), -ERANGE);
	KUNIT_EXPECT_EQ(test, tern_pt_map(&f->pt, 0xfffffffffffff000ull, pages, 1, 0),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, tern_pt_lookup(&f->pt, end, &pte), -ERANGE);

	/* Nothing of the above allocated a table. */
	KUNIT_EXPECT_EQ(test, f->fa.calls, 1);
	KUNIT_EXPECT_EQ(test, f->pt.nr_tables, 1);
	tern_expect_unmapped(test, f, 0x1000);
}

static void tern_pt_no_overwrite(struct kunit *test)
{
	struct tern_pt_fixture *f = test->priv;
	u64 *pages = tern_pages(test, 8, 0x200000000ull);
	u64 other[3] = { 0x7000, 0x8000, 0x9000 };

	KUNIT_ASSERT_EQ(test, tern_pt_map(&f->pt, 0x1000, pages, 3, 0), 0);
	KUNIT_EXPECT_EQ(test, tern_pt_map(&f->pt, 0x0, other, 2, 0), -EEXIST);
	KUNIT_EXPECT_EQ(test, tern_pt_map(&f->pt, 0x3000, other, 1, 0), -EEXIST);
	tern_expect_unmapped(test, f, 0x0);
	tern_expect_mapped(test, f, 0x1000, pages[0] | TERN_PTE_VALID);
	tern_expect_mapped(test, f, 0x3000, pages[2] | TERN_PTE_VALID);
	KUNIT_EXPECT_EQ(test, f->pt.nr_tables, 4);

	/*
	 * Conflict after new tables were made for the first pages: the range
	 * starts in a fresh leaf table and ends on a mapped page of the next.
	 */
	KUNIT_ASSERT_EQ(test, tern_pt_map(&f->pt, 0x40000000, pages, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, f->pt.nr_tables, 6);
	KUNIT_EXPECT_EQ(test, tern_pt_map(&f->pt, 0x40000000 - 4 * PAGE4K, pages,
					  5, 0), -EEXIST);
	KUNIT_EXPECT_EQ(test, f->pt.nr_tables, 6);
	KUNIT_EXPECT_EQ(test, tern_fake_live(&f->fa), 6);
	tern_expect_unmapped(test, f, 0x40000000 - 4 * PAGE4K);
	tern_expect_mapped(test, f, 0x40000000, pages[0] | TERN_PTE_VALID);
}

/*
 * Whichever table allocation fails, a map that needs six new tables leaves
 * no mapping and no table behind.
 */
static void tern_pt_alloc_failure(struct kunit *test)
{
	struct tern_pt_fixture *f = test->priv;
	const u64 va = (1ull << 39) - 2 * PAGE4K;
	u64 *pages = tern_pages(test, 4, 0x100000000ull);
	u64 keep = 0x9000;
	unsigned int n, i;

	/* An unrelated mapping that must survive every failure. */
	KUNIT_ASSERT_EQ(test, tern_pt_map(&f->pt, 1ull << 40, &keep, 1, 0), 0);
	KUNIT_ASSERT_EQ(test, f->pt.nr_tables, 4);

	for (n = 1; n <= 6; n++) {
		f->fa.fail_at = f->fa.calls + n;
		KUNIT_EXPECT_EQ_MSG(test, tern_pt_map(&f->pt, va, pages, 4, 0),
				    -ENOMEM, "failing allocation %u", n);
		KUNIT_EXPECT_EQ_MSG(test, f->pt.nr_tables, 4,
				    "failing allocation %u", n);
		KUNIT_EXPECT_EQ_MSG(test, tern_fake_live(&f->fa), 4,
				    "failing allocation %u", n);
		for (i = 0; i < 4; i++)
			tern_expect_unmapped(test, f, va + i * PAGE4K);
		tern_expect_mapped(test, f, 1ull << 40, keep | TERN_PTE_VALID);
	}

	f->fa.fail_at = f->fa.calls + 7;
	KUNIT_EXPECT_EQ(test, tern_pt_map(&f->pt, va, pages, 4, 0), 0);
	KUNIT_EXPECT_EQ(test, f->pt.nr_tables, 10);
	for (i = 0; i < 4; i++)
		tern_expect_mapped(test, f, va + i * PAGE4K, pages[i] | TERN_PTE_VALID);
}

static void tern_pt_init_failure(struct kunit *test)
{
	struct tern_fake_alloc *fa;
	struct tern_pt pt;

	fa = kunit_kzalloc(test, sizeof(*fa), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fa);
	fa->test = test;
	fa->next_dev = FAKE_DEV_BASE;
	fa->fail_at = 1;
	KUNIT_EXPECT_EQ(test, tern_pt_init(&pt, &tern_fake_ops, fa), -ENOMEM);
	KUNIT_EXPECT_EQ(test, fa->allocs, 0);
	/* fini after a failed init is harmless */
	tern_pt_fini(&pt);
}

/* Many pages, then every other one unmapped, then the rest. */
static void tern_pt_sparse_unmap(struct kunit *test)
{
	struct tern_pt_fixture *f = test->priv;
	const u64 n = 1024, va = 0x3ff000;	/* crosses two leaf boundaries */
	u64 *pages = tern_pages(test, n, 0x300000000ull);
	u64 i;

	KUNIT_ASSERT_EQ(test, tern_pt_map(&f->pt, va, pages, n, TERN_PTE_WRITABLE), 0);
	KUNIT_EXPECT_EQ(test, f->pt.nr_tables, 6);
	for (i = 0; i < n; i += 2)
		tern_pt_unmap(&f->pt, va + i * PAGE4K, 1);
	for (i = 0; i < n; i++) {
		if (i % 2)
			tern_expect_mapped(test, f, va + i * PAGE4K, pages[i] |
					   TERN_PTE_VALID | TERN_PTE_WRITABLE);
		else
			tern_expect_unmapped(test, f, va + i * PAGE4K);
	}
	/* The first leaf table held only page 0: it is gone. */
	KUNIT_EXPECT_EQ(test, f->pt.nr_tables, 5);
	for (i = 1; i < n; i += 2)
		tern_pt_unmap(&f->pt, va + i * PAGE4K, 1);
	KUNIT_EXPECT_EQ(test, f->pt.nr_tables, 1);
	KUNIT_EXPECT_EQ(test, tern_fake_live(&f->fa), 1);
}

/* fini frees the tables of mappings still present. */
static void tern_pt_fini_with_mappings(struct kunit *test)
{
	struct tern_pt_fixture *f = test->priv;
	u64 *pages = tern_pages(test, 4, 0x100000000ull);

	KUNIT_ASSERT_EQ(test, tern_pt_map(&f->pt, 0x1000, pages, 2, 0), 0);
	KUNIT_ASSERT_EQ(test, tern_pt_map(&f->pt, 1ull << 40, pages + 2, 2, 0), 0);
	KUNIT_EXPECT_EQ(test, f->pt.nr_tables, 7);
	/* tern_pt_test_exit() checks that everything is freed. */
}

#define MODEL_PAGES	4096
#define MODEL_BASE	((1ull << 39) - MODEL_PAGES / 2 * PAGE4K)

static u32 tern_pt_rand(u64 *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return (*state * 0x2545f4914f6cdd1dull) >> 32;
}

/* Tables a tree needs for the pages marked in @model, root included. */
static u64 tern_pt_model_tables(const u64 *model)
{
	u64 tables = 1, last[3] = { U64_MAX, U64_MAX, U64_MAX };
	unsigned int i, level;

	/* Pages in VA order: a new table starts where its prefix changes. */
	for (i = 0; i < MODEL_PAGES; i++) {
		u64 va = MODEL_BASE + i * PAGE4K;

		if (!model[i])
			continue;
		for (level = 1; level < TERN_PT_LEVELS; level++) {
			u64 prefix = va >> TERN_PT_SHIFT(level);

			if (prefix != last[level - 1]) {
				last[level - 1] = prefix;
				tables++;
			}
		}
	}
	return tables;
}

/*
 * Random maps (a third of them with a failing table allocation) and unmaps
 * over 4096 pages around the 512 GiB boundary, against a model of which
 * page maps what:
 * after every step the tree translates every page as the model says, both
 * through lookups and through the tables in memory, and holds exactly the
 * tables the model needs.
 */
static void tern_pt_random_model(struct kunit *test)
{
	struct tern_pt_fixture *f = test->priv;
	u64 state = 0x7e70beef, pages[64], *model;
	unsigned int step, i, nomem = 0;

	model = kunit_kcalloc(test, MODEL_PAGES, sizeof(*model), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, model);

	for (step = 0; step < 400; step++) {
		u32 r = tern_pt_rand(&state);
		u32 first = tern_pt_rand(&state) % MODEL_PAGES;
		u32 n = min_t(u32, r % 64 + 1, MODEL_PAGES - first);
		u64 va = MODEL_BASE + (u64)first * PAGE4K;
		u64 flags = r & 0x100 ? TERN_PTE_WRITABLE : 0;
		u64 before = f->pt.nr_tables, needed;
		bool busy = false;
		u32 fail;
		int ret;

		if (r % 2) {
			for (i = 0; i < n; i++) {
				pages[i] = ((u64)tern_pt_rand(&state) << 12) & TERN_PTE_ADDR_MASK;
				busy |= model[first + i] != 0;
			}
			fail = tern_pt_rand(&state);
			f->fa.fail_at = fail % 3 ? 0 : f->fa.calls + 1 + fail % 2;
			needed = tern_pt_tables_needed(&f->pt, va, n);
			ret = tern_pt_map(&f->pt, va, pages, n, flags);
			if (busy) {
				KUNIT_ASSERT_EQ_MSG(test, ret, -EEXIST, "step %u", step);
			} else if (ret) {
				KUNIT_ASSERT_EQ_MSG(test, ret, -ENOMEM, "step %u", step);
				nomem++;
			} else {
				for (i = 0; i < n; i++)
					model[first + i] = pages[i] | flags | TERN_PTE_VALID;
				/* the budget check of tern_vm relies on this */
				KUNIT_ASSERT_EQ_MSG(test, f->pt.nr_tables - before, needed,
						    "step %u", step);
			}
			f->fa.fail_at = 0;
		} else {
			/* Unmaps are larger, so that tables keep coming and going. */
			n = min_t(u32, r % 1024 + 1, MODEL_PAGES - first);
			tern_pt_unmap(&f->pt, va, n);
			for (i = 0; i < n; i++)
				model[first + i] = 0;
		}

		KUNIT_ASSERT_EQ_MSG(test, f->pt.nr_tables, tern_pt_model_tables(model),
				    "step %u", step);
		KUNIT_ASSERT_EQ(test, tern_fake_live(&f->fa), f->pt.nr_tables);
		if (step % 20 && step != 399)
			continue;
		for (i = 0; i < MODEL_PAGES; i++) {
			u64 pte = 0, walked = 0;
			int lret = tern_pt_lookup(&f->pt, MODEL_BASE + i * PAGE4K, &pte);
			int wret = tern_fake_walk(&f->fa, tern_pt_root(&f->pt),
						  MODEL_BASE + i * PAGE4K, &walked);

			if (model[i]) {
				KUNIT_ASSERT_TRUE_MSG(test, !lret && !wret && pte == model[i] &&
						      walked == model[i],
						      "step %u page %u", step, i);
			} else {
				KUNIT_ASSERT_TRUE_MSG(test, lret == -ENOENT && wret == -ENOENT,
						      "step %u page %u", step, i);
			}
		}
	}
	/* The failure path must have been taken, not just the happy one. */
	KUNIT_EXPECT_GT(test, nomem, 10);
}

/*
 * tern_pt_tables_needed() predicts what a map adds: one 4 KiB page bound at
 * a 2 MiB stride costs a whole leaf table per page, plus a level-1 table
 * per GiB and a level-2 table per 512 GiB, which is what tern_vm's table
 * budget (DRM_TERN_VM_MAX_TABLES) must count.
 */
static void tern_pt_tables_needed_stride(struct kunit *test)
{
	struct tern_pt_fixture *f = test->priv;
	/* 24 binds that cross a 1 GiB and a 512 GiB boundary */
	const u64 stride = 2ull << 20, va0 = (1ull << 39) - 12 * stride;
	u64 page = 0x7000, i, total = 0;

	for (i = 0; i < 24; i++) {
		u64 va = va0 + i * stride, before = f->pt.nr_tables, want;

		/* the first needs a branch; a new GiB, a new 512 GiB more */
		want = 1 + !(va % (1ull << 30)) + !(va % (1ull << 39));
		if (!i)
			want = 3;
		KUNIT_EXPECT_EQ_MSG(test, tern_pt_tables_needed(&f->pt, va, 1), want,
				    "bind %llu", i);
		KUNIT_ASSERT_EQ(test, tern_pt_map(&f->pt, va, &page, 1, 0), 0);
		KUNIT_EXPECT_EQ_MSG(test, f->pt.nr_tables - before, want,
				    "bind %llu", i);
		/* a second page in the same leaf costs nothing */
		KUNIT_EXPECT_EQ(test, tern_pt_tables_needed(&f->pt, va + PAGE4K, 1), 0);
		total += want;
	}
	KUNIT_EXPECT_EQ(test, f->pt.nr_tables, 1 + total);
	/* 24 leaves, 2 level-1 tables (one per GiB touched), 2 level-2 */
	KUNIT_EXPECT_EQ(test, total, 24 + 2 + 2);
	tern_pt_unmap(&f->pt, va0, 24 * stride / PAGE4K);
	KUNIT_EXPECT_EQ(test, f->pt.nr_tables, 1);
}

static void tern_pt_tables_needed_ranges(struct kunit *test)
{
	struct tern_pt_fixture *f = test->priv;
	const u64 gib = 1ull << 30;
	u64 page = 0x7000;

	/* a 2 MiB-aligned 64 GiB range: 32768 leaves, 64 + 1 tables above */
	KUNIT_EXPECT_EQ(test, tern_pt_tables_needed(&f->pt, 64 * gib, 64 * gib / PAGE4K),
			32768 + 64 + 1);
	/* misaligned by a page: one more table at the two lower levels */
	KUNIT_EXPECT_EQ(test, tern_pt_tables_needed(&f->pt, 64 * gib + PAGE4K,
						    64 * gib / PAGE4K),
			32769 + 65 + 1);
	/*
	 * The budget of an address space holds DRM_TERN_VM_MAX_MAPPED mapped
	 * from the lowest VA, plus the root.
	 */
	KUNIT_EXPECT_LE(test, 1 + tern_pt_tables_needed(&f->pt, DRM_TERN_VA_START,
							DRM_TERN_VM_MAX_MAPPED / PAGE4K),
			(u64)DRM_TERN_VM_MAX_TABLES);
	/* refused arguments need nothing */
	KUNIT_EXPECT_EQ(test, tern_pt_tables_needed(&f->pt, 0x1000, 0), 0);
	KUNIT_EXPECT_EQ(test, tern_pt_tables_needed(&f->pt, 0x1800, 1), 0);
	KUNIT_EXPECT_EQ(test, tern_pt_tables_needed(&f->pt, 1ull << TERN_VA_BITS, 1), 0);
	KUNIT_EXPECT_EQ(test, tern_pt_tables_needed(&f->pt, (1ull << TERN_VA_BITS) - PAGE4K,
						    2), 0);

	/* with part of the range's tables present, only the rest is counted */
	KUNIT_ASSERT_EQ(test, tern_pt_map(&f->pt, gib + 2 * PAGE4K, &page, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, tern_pt_tables_needed(&f->pt, gib, 1), 0);
	KUNIT_EXPECT_EQ(test, tern_pt_tables_needed(&f->pt, gib, 1024), 1);
	KUNIT_EXPECT_EQ(test, tern_pt_tables_needed(&f->pt, gib - PAGE4K, 2), 2);
	/* nothing is allocated by asking */
	KUNIT_EXPECT_EQ(test, f->pt.nr_tables, 4);
	KUNIT_EXPECT_EQ(test, tern_fake_live(&f->fa), 4);
	tern_pt_unmap(&f->pt, gib + 2 * PAGE4K, 1);
}

#define FAKE_STAGING_DEV	0x0000567800000000ull

/**
 * struct tern_fake_buf - an update's DMA buffer as the test allocates it
 * @size: what tern_pt_update_size() asked for
 * @cmd: room for the packets
 * @staging: room for the entries, at FAKE_STAGING_DEV for the "device"
 * @dwords: what tern_pt_update_end() wrote
 */
struct tern_fake_buf {
	struct tern_pt_update_room size;
	u32 *cmd;
	void *staging;
	u32 dwords;
};

static void tern_fake_buf_alloc(struct kunit *test, struct tern_pt *pt, u64 va,
				u64 npages, struct tern_fake_buf *b)
{
	tern_pt_update_size(pt, va, npages, &b->size);
	KUNIT_ASSERT_GT(test, b->size.tables, 0);
	b->cmd = kunit_kzalloc(test, b->size.cmd_bytes, GFP_KERNEL);
	b->staging = kunit_kzalloc(test, b->size.staging_bytes, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b->cmd);
	KUNIT_ASSERT_NOT_NULL(test, b->staging);
}

/*
 * The same, with the room tern_pt_update_size_max() asks for, which holds
 * what tern_pt_update_size() says of any tree.
 */
static void tern_fake_buf_alloc_max(struct kunit *test, struct tern_pt *pt,
				    u64 va, u64 npages, struct tern_fake_buf *b)
{
	struct tern_pt_update_room exact;

	tern_pt_update_size(pt, va, npages, &exact);
	tern_pt_update_size_max(va, npages, &b->size);
	KUNIT_ASSERT_LE(test, exact.tables, b->size.tables);
	KUNIT_ASSERT_LE(test, exact.entries, b->size.entries);
	KUNIT_ASSERT_LE(test, exact.cmd_bytes, b->size.cmd_bytes);
	KUNIT_ASSERT_LE(test, exact.staging_bytes, b->size.staging_bytes);
	/* the root, and at most two tables per level below it */
	KUNIT_ASSERT_LE(test, b->size.tables, 1 + 2 * TERN_PT_ROOT_LEVEL);
	b->cmd = kunit_kzalloc(test, b->size.cmd_bytes, GFP_KERNEL);
	b->staging = kunit_kzalloc(test, b->size.staging_bytes, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b->cmd);
	KUNIT_ASSERT_NOT_NULL(test, b->staging);
}

/* A buffer for a retarget of the range (tern_pt_retarget_size()). */
static void tern_fake_buf_alloc_retarget(struct kunit *test, u64 va, u64 npages,
					 struct tern_fake_buf *b)
{
	tern_pt_retarget_size(va, npages, &b->size);
	b->cmd = kunit_kzalloc(test, b->size.cmd_bytes, GFP_KERNEL);
	b->staging = kunit_kzalloc(test, b->size.staging_bytes, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b->cmd);
	KUNIT_ASSERT_NOT_NULL(test, b->staging);
}

static void tern_fake_buf_begin(struct tern_pt *pt, u64 va, u64 npages,
				struct tern_fake_buf *b)
{
	tern_pt_update_begin(pt, va, npages, b->staging, b->size.staging_bytes);
}

static void tern_fake_buf_end(struct kunit *test, struct tern_pt *pt,
			      struct tern_fake_buf *b, bool invalidate)
{
	KUNIT_ASSERT_EQ(test, tern_pt_update_end(pt, b->cmd, FAKE_STAGING_DEV,
						 invalidate, &b->dwords), 0);
	KUNIT_ASSERT_LE(test, (u64)b->dwords * 4, b->size.cmd_bytes);
}

/*
 * Execute the packet at dword @off of an update's buffer the way the device
 * does, against the fake tables: it must be a PHYS_COPY from the staged
 * entries into a live table, or a TLB_INVALIDATE (counted in @tlb).
 * Returns the offset of the next packet.
 */
static unsigned int tern_fake_run_packet(struct kunit *test,
					 struct tern_fake_alloc *fa,
					 const struct tern_fake_buf *b,
					 unsigned int off, unsigned int *tlb)
{
	u32 op = b->cmd[off] & 0xff, len = b->cmd[off] >> 16;

	KUNIT_ASSERT_LE(test, off + len, b->dwords);
	if (op == TERN_OP_TLB_INVALIDATE) {
		KUNIT_ASSERT_EQ(test, len, TERN_PKT_DWORDS_TLB_INVALIDATE);
		(*tlb)++;
	} else {
		const struct tern_pkt_phys_copy *p = (const void *)&b->cmd[off];
		u64 src = (u64)p->src_hi << 32 | p->src_lo;
		u64 dst = (u64)p->dst_hi << 32 | p->dst_lo;
		unsigned int i;
		__le64 *table;

		KUNIT_ASSERT_EQ(test, op, TERN_OP_PHYS_COPY);
		KUNIT_ASSERT_EQ(test, len, TERN_PKT_DWORDS_PHYS_COPY);
		KUNIT_ASSERT_EQ(test, p->flags, 0);
		KUNIT_ASSERT_TRUE(test, p->size && p->size % 8 == 0);
		KUNIT_ASSERT_TRUE(test, src >= FAKE_STAGING_DEV &&
				  src - FAKE_STAGING_DEV + p->size <=
				  b->size.staging_bytes);
		KUNIT_ASSERT_LE(test, dst % PAGE4K + p->size, PAGE4K);
		table = tern_fake_table(fa, round_down(dst, PAGE4K));
		KUNIT_ASSERT_NOT_NULL_MSG(test, table, "copy to %#llx", dst);
		for (i = 0; i < FAKE_TABLES; i++)
			if (fa->dev[i] == round_down(dst, PAGE4K))
				KUNIT_ASSERT_FALSE_MSG(test, fa->dead[i],
						       "copy into a freed table");
		memcpy((u8 *)table + dst % PAGE4K,
		       (u8 *)b->staging + (src - FAKE_STAGING_DEV), p->size);
	}
	return off + len;
}

/* Execute a whole buffer; returns the TLB_INVALIDATEs seen. */
static unsigned int tern_fake_run(struct kunit *test, struct tern_fake_alloc *fa,
				  const struct tern_fake_buf *b)
{
	unsigned int off = 0, tlb = 0;

	while (off < b->dwords)
		off = tern_fake_run_packet(test, fa, b, off, &tlb);
	return tlb;
}

/*
 * The smallest buffers: a map under an existing table records only the
 * link of the new tables, a map into an existing leaf only its entries,
 * and an unmap that empties a branch only the entry that cuts it off.
 * The device sees nothing before the buffer runs.
 */
static void tern_pt_update_minimal(struct kunit *test)
{
	struct tern_pt_fixture *f = test->priv;
	const u64 gib = 1ull << 30;
	u64 *pages = tern_pages(test, 32, 0x40000000);
	struct tern_fake_buf b = {};
	const struct tern_pkt_phys_copy *p;
	u64 pte, i;

	f->fa.defer = true;
	tern_fake_buf_alloc(test, &f->pt, gib, 16, &b);
	/* only the root exists: one table, one entry */
	KUNIT_EXPECT_EQ(test, b.size.tables, 1);
	KUNIT_EXPECT_EQ(test, b.size.entries, 1);
	KUNIT_ASSERT_EQ(test, tern_pt_reserve(&f->pt, gib, 16), 0);
	KUNIT_EXPECT_EQ(test, f->pt.reserve.nr_spare, 2);
	KUNIT_EXPECT_EQ(test, f->pt.reserve.nr_spare_leaves, 1);
	f->fa.fail_at = f->fa.calls + 1;
	tern_fake_buf_begin(&f->pt, gib, 16, &b);
	KUNIT_ASSERT_EQ(test, tern_pt_map(&f->pt, gib, pages, 16, 0), 0);
	tern_fake_buf_end(test, &f->pt, &b, false);
	f->fa.fail_at = 0;
	KUNIT_ASSERT_EQ(test, b.dwords, TERN_PKT_DWORDS_PHYS_COPY);
	p = (const void *)b.cmd;
	KUNIT_EXPECT_EQ(test, p->size, 8);
	KUNIT_EXPECT_EQ(test, (u64)p->dst_hi << 32 | p->dst_lo,
			tern_pt_root(&f->pt) + TERN_PT_INDEX(gib, 3) * 8);
	/* the CPU's view has it, the device not yet */
	KUNIT_EXPECT_EQ(test, tern_pt_lookup(&f->pt, gib, &pte), 0);
	KUNIT_EXPECT_EQ(test, tern_fake_walk(&f->fa, tern_pt_root(&f->pt), gib, &pte),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, tern_fake_run(test, &f->fa, &b), 0);
	for (i = 0; i < 16; i++)
		tern_expect_mapped(test, f, gib + i * PAGE4K, pages[i] | TERN_PTE_VALID);

	memset(&b, 0, sizeof(b));
	tern_fake_buf_alloc(test, &f->pt, gib + 16 * PAGE4K, 16, &b);
	tern_fake_buf_begin(&f->pt, gib + 16 * PAGE4K, 16, &b);
	KUNIT_ASSERT_EQ(test, tern_pt_map(&f->pt, gib + 16 * PAGE4K, pages + 16,
					  16, TERN_PTE_WRITABLE), 0);
	tern_fake_buf_end(test, &f->pt, &b, false);
	KUNIT_ASSERT_EQ(test, b.dwords, TERN_PKT_DWORDS_PHYS_COPY);
	p = (const void *)b.cmd;
	KUNIT_EXPECT_EQ(test, p->size, 16 * 8);
	KUNIT_EXPECT_EQ(test, tern_fake_walk(&f->fa, tern_pt_root(&f->pt),
					     gib + 16 * PAGE4K, &pte), -ENOENT);
	tern_fake_run(test, &f->fa, &b);
	for (i = 16; i < 32; i++)
		tern_expect_mapped(test, f, gib + i * PAGE4K,
				   pages[i] | TERN_PTE_WRITABLE | TERN_PTE_VALID);

	memset(&b, 0, sizeof(b));
	tern_fake_buf_alloc(test, &f->pt, gib, 32, &b);
	tern_fake_buf_begin(&f->pt, gib, 32, &b);
	tern_pt_unmap(&f->pt, gib, 32);
	tern_fake_buf_end(test, &f->pt, &b, true);
	KUNIT_EXPECT_EQ(test, f->pt.nr_tables, 1);
	/* the three tables are given back, but not freed */
	KUNIT_EXPECT_EQ(test, tern_fake_live(&f->fa), 4);
	KUNIT_ASSERT_EQ(test, b.dwords, TERN_PKT_DWORDS_PHYS_COPY +
			TERN_PKT_DWORDS_TLB_INVALIDATE);
	p = (const void *)b.cmd;
	KUNIT_EXPECT_EQ(test, p->size, 8);
	/* until the buffer ran, the device still translates */
	KUNIT_EXPECT_EQ(test, tern_fake_walk(&f->fa, tern_pt_root(&f->pt), gib, &pte), 0);
	KUNIT_EXPECT_EQ(test, tern_fake_run(test, &f->fa, &b), 1);
	for (i = 0; i < 32; i++)
		tern_expect_unmapped(test, f, gib + i * PAGE4K);
	KUNIT_EXPECT_EQ(test, tern_fake_reap(&f->fa), 3);
}

/*
 * The device, walking the fake tables, translates every page of the model
 * as @model says: to its entry, or not at all.
 */
static void tern_expect_walks(struct kunit *test, struct tern_pt_fixture *f,
			      const u64 *model, const char *when,
			      unsigned int step)
{
	unsigned int i;

	for (i = 0; i < MODEL_PAGES; i++) {
		u64 walked = 0;
		int wret = tern_fake_walk(&f->fa, tern_pt_root(&f->pt),
					  MODEL_BASE + i * PAGE4K, &walked);

		KUNIT_ASSERT_TRUE_MSG(test, model[i] ? !wret && walked == model[i] :
				      wret == -ENOENT,
				      "%s: step %u page %u", when, step, i);
	}
}

/*
 * Random maps and unmaps over the model's pages, each in an update: before
 * its buffer runs, the device translates every page as before it; after,
 * as the model says, through exactly the tables the model needs; the
 * buffer stays inside the room tern_pt_update_size() asked for (every
 * other step: tern_pt_update_size_max(), which holds it), and a map takes
 * every table from the reserve, or every other step from a pool of the
 * owner's filled for the worst case, which holds enough.
 */
static void tern_pt_update_random_model(struct kunit *test)
{
	struct tern_pt_fixture *f = test->priv;
	u64 state = 0x5eed0f7e, pages[64], *model, *old;
	unsigned int step, i, maps = 0, unmaps = 0, copies = 0;
	struct tern_pt_pool pool;

	model = kunit_kcalloc(test, MODEL_PAGES, sizeof(*model), GFP_KERNEL);
	old = kunit_kcalloc(test, MODEL_PAGES, sizeof(*old), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, model);
	KUNIT_ASSERT_NOT_NULL(test, old);
	f->fa.defer = true;

	for (step = 0; step < 300; step++) {
		u32 r = tern_pt_rand(&state);
		u32 first = tern_pt_rand(&state) % MODEL_PAGES;
		u32 n = min_t(u32, r % 64 + 1, MODEL_PAGES - first);
		u64 va = MODEL_BASE + (u64)first * PAGE4K;
		u64 flags = r & 0x100 ? TERN_PTE_WRITABLE : 0;
		struct tern_fake_buf b = {};
		bool map = r % 2, busy = false;

		memcpy(old, model, MODEL_PAGES * sizeof(*model));
		for (i = 0; map && i < n; i++)
			busy |= model[first + i] != 0;
		if (!map || busy)
			n = min_t(u32, r % 1024 + 1, MODEL_PAGES - first);
		if (step % 2)
			tern_fake_buf_alloc_max(test, &f->pt, va, n, &b);
		else
			tern_fake_buf_alloc(test, &f->pt, va, n, &b);
		tern_pt_pool_init(&pool);
		if (map && !busy && step % 2) {
			u64 leaves, worst = tern_pt_tables_split(NULL, va, n, &leaves);
			u64 exact_leaves, exact;

			exact = tern_pt_tables_split(&f->pt, va, n, &exact_leaves);
			KUNIT_ASSERT_LE(test, exact, worst);
			KUNIT_ASSERT_LE(test, exact_leaves, leaves);
			KUNIT_ASSERT_EQ(test, tern_pt_pool_fill(&f->pt, &pool, worst, leaves), 0);
			tern_pt_use_pool(&f->pt, &pool);
		}
		if (map && !busy) {
			u64 needed = tern_pt_tables_needed(&f->pt, va, n);

			if (!(step % 2)) {
				KUNIT_ASSERT_EQ(test, tern_pt_reserve(&f->pt, va, n), 0);
				KUNIT_ASSERT_EQ(test, f->pt.reserve.nr_spare +
						f->pt.reserve.nr_spare_leaves, needed);
			}
			/* nothing is allocated once the update is open */
			f->fa.fail_at = f->fa.calls + 1;
			tern_fake_buf_begin(&f->pt, va, n, &b);
			for (i = 0; i < n; i++)
				pages[i] = ((u64)tern_pt_rand(&state) << 12) &
					   TERN_PTE_ADDR_MASK;
			KUNIT_ASSERT_EQ_MSG(test, tern_pt_map(&f->pt, va, pages, n, flags),
					    0, "step %u", step);
			for (i = 0; i < n; i++)
				model[first + i] = pages[i] | flags | TERN_PTE_VALID;
			maps++;
		} else {
			tern_fake_buf_begin(&f->pt, va, n, &b);
			tern_pt_unmap(&f->pt, va, n);
			for (i = 0; i < n; i++)
				model[first + i] = 0;
			unmaps++;
		}
		tern_fake_buf_end(test, &f->pt, &b, !map || busy);
		f->fa.fail_at = 0;
		tern_pt_use_pool(&f->pt, NULL);
		tern_pt_pool_drain(&f->pt, &pool);
		tern_pt_unreserve(&f->pt);
		KUNIT_ASSERT_EQ_MSG(test, f->pt.nr_tables, tern_pt_model_tables(model),
				    "step %u", step);

		tern_expect_walks(test, f, old, "before", step);
		tern_fake_run(test, &f->fa, &b);
		copies += b.dwords / TERN_PKT_DWORDS_PHYS_COPY;
		for (i = 0; i < MODEL_PAGES; i++) {
			u64 pte = 0, walked = 0;
			int lret = tern_pt_lookup(&f->pt, MODEL_BASE + i * PAGE4K, &pte);
			int wret = tern_fake_walk(&f->fa, tern_pt_root(&f->pt),
						  MODEL_BASE + i * PAGE4K, &walked);

			if (model[i])
				KUNIT_ASSERT_TRUE_MSG(test, !lret && !wret && pte == model[i] &&
						      walked == model[i],
						      "after: step %u page %u", step, i);
			else
				KUNIT_ASSERT_TRUE_MSG(test, lret == -ENOENT && wret == -ENOENT,
						      "after: step %u page %u", step, i);
		}
		tern_fake_reap(&f->fa);
		KUNIT_ASSERT_EQ(test, tern_fake_live(&f->fa), f->pt.nr_tables);
	}
	KUNIT_EXPECT_GT(test, maps, 50);
	KUNIT_EXPECT_GT(test, unmaps, 50);
	/* every map copies at least the entry that links it */
	KUNIT_EXPECT_GE(test, copies, maps);
}

/*
 * Run the update @b packet by packet: each entry is written once, from its
 * old value to its new one, so a page of [@first, @first + @n) mapped
 * before translates to the old or the new page at every point, never to
 * none; one TLB invalidation; @model after.
 */
static void tern_expect_run_old_or_new(struct kunit *test,
				       struct tern_pt_fixture *f,
				       struct tern_fake_buf *b, const u64 *old,
				       const u64 *model, u32 first, u32 n,
				       unsigned int step)
{
	unsigned int off, tlb, i;

	tern_expect_walks(test, f, old, "before", step);
	for (off = 0, tlb = 0; off < b->dwords;) {
		off = tern_fake_run_packet(test, &f->fa, b, off, &tlb);
		for (i = first; i < first + n; i++) {
			u64 walked = 0;
			int wret = tern_fake_walk(&f->fa, tern_pt_root(&f->pt),
						  MODEL_BASE + i * PAGE4K, &walked);

			KUNIT_ASSERT_TRUE_MSG(test, (!wret && (walked == old[i] ||
							       walked == model[i])) ||
					      (wret == -ENOENT && !old[i]),
					      "during: step %u page %u", step, i);
		}
	}
	KUNIT_EXPECT_EQ(test, tlb, 1);
	tern_expect_walks(test, f, model, "after", step);
}

/*
 * A map that replaces (DRM_TERN_VM_BIND_REPLACE): in one update, sized by
 * tern_pt_update_size_max() with a pool filled for an empty tree, as
 * tern_vm makes it, unmap a random range whatever it holds (cutting the
 * maps it crosses) and map it again with new pages.  Before the buffer
 * runs the device translates as before; after, as the model says, with no
 * allocation once the update is open and the tables the model needs; and
 * while it runs, packet by packet, every page of the range mapped before
 * translates to its old or its new page, never to none.
 */
static void tern_pt_update_replace_model(struct kunit *test)
{
	struct tern_pt_fixture *f = test->priv;
	u64 state = 0x4e91ace, *model, *old, *pages;
	unsigned int step, i, cuts = 0;

	model = kunit_kcalloc(test, MODEL_PAGES, sizeof(*model), GFP_KERNEL);
	old = kunit_kcalloc(test, MODEL_PAGES, sizeof(*old), GFP_KERNEL);
	pages = kunit_kcalloc(test, 1024, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, model);
	KUNIT_ASSERT_NOT_NULL(test, old);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	f->fa.defer = true;

	for (step = 0; step < 200; step++) {
		u32 r = tern_pt_rand(&state);
		u32 first = tern_pt_rand(&state) % MODEL_PAGES;
		u32 n = min_t(u32, r % 1024 + 1, MODEL_PAGES - first);
		u64 va = MODEL_BASE + (u64)first * PAGE4K, leaves, worst;
		u64 flags = r & 0x100 ? TERN_PTE_WRITABLE : 0;
		struct tern_fake_buf b = {};
		struct tern_pt_pool pool;

		memcpy(old, model, MODEL_PAGES * sizeof(*model));
		/* a mapping crosses an end of the range: it is cut there */
		if ((first && model[first - 1] && model[first]) ||
		    (first + n < MODEL_PAGES && model[first + n] &&
		     model[first + n - 1]))
			cuts++;
		tern_fake_buf_alloc_max(test, &f->pt, va, n, &b);
		tern_pt_pool_init(&pool);
		worst = tern_pt_tables_split(NULL, va, n, &leaves);
		KUNIT_ASSERT_EQ(test, tern_pt_pool_fill(&f->pt, &pool, worst, leaves), 0);
		tern_pt_use_pool(&f->pt, &pool);
		/* nothing is allocated once the update is open */
		f->fa.fail_at = f->fa.calls + 1;
		tern_fake_buf_begin(&f->pt, va, n, &b);
		tern_pt_unmap(&f->pt, va, n);
		for (i = 0; i < n; i++)
			pages[i] = ((u64)tern_pt_rand(&state) << 12) &
				   TERN_PTE_ADDR_MASK;
		KUNIT_ASSERT_EQ_MSG(test, tern_pt_map(&f->pt, va, pages, n, flags),
				    0, "step %u", step);
		for (i = 0; i < n; i++)
			model[first + i] = pages[i] | flags | TERN_PTE_VALID;
		tern_fake_buf_end(test, &f->pt, &b, true);
		f->fa.fail_at = 0;
		tern_pt_use_pool(&f->pt, NULL);
		tern_pt_pool_drain(&f->pt, &pool);
		KUNIT_ASSERT_EQ_MSG(test, f->pt.nr_tables, tern_pt_model_tables(model),
				    "step %u", step);

		tern_expect_run_old_or_new(test, f, &b, old, model, first, n, step);
		tern_fake_reap(&f->fa);
		KUNIT_ASSERT_EQ(test, tern_fake_live(&f->fa), f->pt.nr_tables);
		/* now and then a hole, so that later steps replace sparse ranges */
		if (r & 0x200) {
			u32 hole = tern_pt_rand(&state) % MODEL_PAGES;
			u32 len = min_t(u32, r % 256 + 1, MODEL_PAGES - hole);

			tern_pt_unmap(&f->pt, MODEL_BASE + (u64)hole * PAGE4K, len);
			memset(model + hole, 0, len * sizeof(*model));
			tern_fake_reap(&f->fa);
		}
	}
	KUNIT_EXPECT_GT(test, cuts, 20);
}

/*
 * A BO moved: the pages of its mappings get other addresses in one update
 * (tern_pt_retarget()), recorded with no allocation and no table made or
 * freed; while it runs, each page translates to its old or its new
 * address, never to none; holes in the range stay holes, and pages
 * outside it do not change.
 */
static void tern_pt_update_retarget_model(struct kunit *test)
{
	struct tern_pt_fixture *f = test->priv;
	u64 state = 0x7e7a49e7, *model, *old, *pages;
	unsigned int step, i, holes = 0;

	model = kunit_kcalloc(test, MODEL_PAGES, sizeof(*model), GFP_KERNEL);
	old = kunit_kcalloc(test, MODEL_PAGES, sizeof(*old), GFP_KERNEL);
	pages = kunit_kcalloc(test, MODEL_PAGES, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, model);
	KUNIT_ASSERT_NOT_NULL(test, old);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	f->fa.defer = true;

	/* mappings of random length with holes between them */
	for (i = 0; i < MODEL_PAGES;) {
		u32 r = tern_pt_rand(&state);
		u32 n = min_t(u32, r % 300 + 1, MODEL_PAGES - i);
		u32 j;

		if (r & 0x10000) {
			for (j = 0; j < n; j++) {
				pages[j] = ((u64)tern_pt_rand(&state) << 12) &
					   TERN_PTE_ADDR_MASK;
				model[i + j] = pages[j] | TERN_PTE_WRITABLE |
					       TERN_PTE_VALID;
			}
			KUNIT_ASSERT_EQ(test, tern_pt_map(&f->pt, MODEL_BASE +
							 (u64)i * PAGE4K, pages,
							 n, TERN_PTE_WRITABLE), 0);
		}
		i += n;
	}

	for (step = 0; step < 200; step++) {
		u32 r = tern_pt_rand(&state);
		u32 first = tern_pt_rand(&state) % MODEL_PAGES, n;
		u64 flags = r & 0x100 ? TERN_PTE_LOCAL : TERN_PTE_WRITABLE;
		u64 tables = f->pt.nr_tables, va;
		struct tern_fake_buf b = {};
		u32 mapped = 0;
		s64 ret;

		/* mostly inside one mapping: from a mapped page, its run */
		if (!(r & 0x200))
			while (first < MODEL_PAGES - 1 && !model[first])
				first++;
		n = min_t(u32, r % 1024 + 1, MODEL_PAGES - first);
		if (!(r & 0x200) && model[first])
			for (i = 1; i < n; i++)
				if (!model[first + i])
					n = i;
		va = MODEL_BASE + (u64)first * PAGE4K;
		memcpy(old, model, MODEL_PAGES * sizeof(*model));
		tern_fake_buf_alloc_retarget(test, va, n, &b);
		/* nothing is allocated once the update is open */
		f->fa.fail_at = f->fa.calls + 1;
		tern_fake_buf_begin(&f->pt, va, n, &b);
		for (i = 0; i < n; i++)
			pages[i] = ((u64)tern_pt_rand(&state) << 12) &
				   TERN_PTE_ADDR_MASK;
		ret = tern_pt_retarget(&f->pt, va, pages, n, flags);
		for (i = 0; i < n; i++) {
			if (!model[first + i])
				continue;
			model[first + i] = pages[i] | flags | TERN_PTE_VALID;
			mapped++;
		}
		KUNIT_ASSERT_EQ_MSG(test, ret, (s64)mapped, "step %u", step);
		if (mapped < n)
			holes++;
		tern_fake_buf_end(test, &f->pt, &b, true);
		f->fa.fail_at = 0;
		KUNIT_ASSERT_EQ_MSG(test, f->pt.nr_tables, tables, "step %u", step);

		tern_expect_run_old_or_new(test, f, &b, old, model, first, n, step);
	}
	/* both kinds of range were tried */
	KUNIT_EXPECT_GT(test, holes, 5);
	KUNIT_EXPECT_LT(test, holes, 150);
}

/*
 * A change outside the range its update was opened for (a caller's bug,
 * warned about) is not written half: the update reports -EIO and writes no
 * buffer, so that the owner does not run it.
 */
static void tern_pt_update_outside_range(struct kunit *test)
{
	struct tern_pt_fixture *f = test->priv;
	const u64 gib = 1ull << 30;
	u64 *pages = tern_pages(test, 2, 0x40000000);
	struct tern_fake_buf b = {};

	KUNIT_ASSERT_EQ(test, tern_pt_map(&f->pt, gib, pages, 2, 0), 0);
	tern_fake_buf_alloc(test, &f->pt, gib + PAGE4K, 1, &b);
	tern_fake_buf_begin(&f->pt, gib + PAGE4K, 1, &b);
	tern_pt_unmap(&f->pt, gib, 1);
	KUNIT_EXPECT_EQ(test, tern_pt_update_end(&f->pt, b.cmd, FAKE_STAGING_DEV,
						 true, &b.dwords), -EIO);
	KUNIT_EXPECT_EQ(test, b.dwords, 0);
	KUNIT_EXPECT_FALSE(test, f->pt.recording);
}

static struct kunit_case tern_pt_cases[] = {
	KUNIT_CASE(tern_pt_empty),
	KUNIT_CASE(tern_pt_map_one),
	KUNIT_CASE(tern_pt_flags),
	KUNIT_CASE(tern_pt_cross_boundaries),
	KUNIT_CASE(tern_pt_top_of_va_space),
	KUNIT_CASE(tern_pt_bad_arguments),
	KUNIT_CASE(tern_pt_no_overwrite),
	KUNIT_CASE(tern_pt_alloc_failure),
	KUNIT_CASE(tern_pt_init_failure),
	KUNIT_CASE(tern_pt_sparse_unmap),
	KUNIT_CASE(tern_pt_fini_with_mappings),
	KUNIT_CASE(tern_pt_random_model),
	KUNIT_CASE(tern_pt_tables_needed_stride),
	KUNIT_CASE(tern_pt_tables_needed_ranges),
	KUNIT_CASE(tern_pt_update_minimal),
	KUNIT_CASE(tern_pt_update_random_model),
	KUNIT_CASE(tern_pt_update_replace_model),
	KUNIT_CASE(tern_pt_update_retarget_model),
	KUNIT_CASE(tern_pt_update_outside_range),
	{}
};

static struct kunit_suite tern_pt_suite = {
	.name = "tern_pt",
	.init = tern_pt_test_init,
	.exit = tern_pt_test_exit,
	.test_cases = tern_pt_cases,
};

kunit_test_suite(tern_pt_suite);
