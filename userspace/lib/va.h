/* SPDX-License-Identifier: MIT */
/*
 * Copyright (c) 2026 The tern authors
 *
 * va.h - the allocator of device virtual addresses libtern hands to buffers.
 * Not locked: the caller serialises (struct tern_device's lock).
 */
#ifndef TERN_VA_H
#define TERN_VA_H

#include <stddef.h>
#include <stdint.h>

struct tern_va_hole {
	uint64_t start;
	uint64_t end;			/* exclusive */
};

/* The free ranges of an address space, sorted, never adjacent or empty. */
struct tern_va_space {
	struct tern_va_hole *holes;
	size_t count, cap;
};

/* An address space whose free range is [start, end). */
int tern_va_init(struct tern_va_space *vs, uint64_t start, uint64_t end);
void tern_va_fini(struct tern_va_space *vs);
/*
 * Take @size bytes aligned to @align (a power of two) from the lowest hole
 * that fits: 0 and *va set, or -ENOSPC, or -EINVAL for size 0 / bad align.
 */
int tern_va_alloc(struct tern_va_space *vs, uint64_t size, uint64_t align, uint64_t *va);
/*
 * Give [va, va + size) back, merging it with its neighbours: 0, -EINVAL if
 * any of it is already free, -ENOMEM.
 */
int tern_va_free(struct tern_va_space *vs, uint64_t va, uint64_t size);
/* Free bytes left. */
uint64_t tern_va_free_bytes(const struct tern_va_space *vs);

/*
 * Helpers for the sorted arrays of address ranges of libtern.  Room for
 * @need entries of @size bytes in the array that @arrp points to (a
 * pointer to the array's pointer), of *@cap entries: 0, the array moved
 * and *@cap grown (doubling) if need be, or -ENOMEM with nothing changed.
 */
int tern_array_room(void *arrp, size_t *cap, size_t need, size_t size);
/*
 * Index of the first of the @n entries of @size bytes of @arr, sorted by
 * the uint64_t address each starts with, whose address is above @va.
 */
size_t tern_array_upper(const void *arr, size_t n, size_t size, uint64_t va);

#endif /* TERN_VA_H */
