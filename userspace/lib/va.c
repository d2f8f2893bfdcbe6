// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * va.c - first-fit allocator of device virtual addresses over a sorted array
 * of holes.  Buffers are few (hundreds), so a linear scan is enough and the
 * code stays obviously right.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "va.h"

int tern_array_room(void *arrp, size_t *cap, size_t need, size_t size)
{
	void *arr;
	size_t n;

	if (need <= *cap)
		return 0;
	n = *cap ? *cap * 2 : 16;
	while (n < need)
		n *= 2;
	if (n > SIZE_MAX / size)
		return -ENOMEM;
	memcpy(&arr, arrp, sizeof(arr));
	arr = realloc(arr, n * size);
	if (!arr)
		return -ENOMEM;
	memcpy(arrp, &arr, sizeof(arr));
	*cap = n;
	return 0;
}

size_t tern_array_upper(const void *arr, size_t n, size_t size, uint64_t va)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t at;

		memcpy(&at, (const char *)arr + mid * size, sizeof(at));
		if (at <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int va_reserve(struct tern_va_space *vs, size_t n)
{
	return tern_array_room(&vs->holes, &vs->cap, n, sizeof(vs->holes[0]));
}

int tern_va_init(struct tern_va_space *vs, uint64_t start, uint64_t end)
{
	memset(vs, 0, sizeof(*vs));
	if (start >= end)
		return -EINVAL;
	if (va_reserve(vs, 1))
		return -ENOMEM;
	vs->holes[0].start = start;
	vs->holes[0].end = end;
	vs->count = 1;
	return 0;
}

void tern_va_fini(struct tern_va_space *vs)
{
	free(vs->holes);
	memset(vs, 0, sizeof(*vs));
}

static void va_remove(struct tern_va_space *vs, size_t i)
{
	memmove(&vs->holes[i], &vs->holes[i + 1], (vs->count - i - 1) * sizeof(vs->holes[0]));
	vs->count--;
}

static void va_insert(struct tern_va_space *vs, size_t i, uint64_t start, uint64_t end)
{
	memmove(&vs->holes[i + 1], &vs->holes[i], (vs->count - i) * sizeof(vs->holes[0]));
	vs->holes[i].start = start;
	vs->holes[i].end = end;
	vs->count++;
}

int tern_va_alloc(struct tern_va_space *vs, uint64_t size, uint64_t align, uint64_t *va)
{
	size_t i;

	if (!size || !align || (align & (align - 1)))
		return -EINVAL;
	/* one more hole may be needed when an aligned start splits a hole */
	if (va_reserve(vs, vs->count + 1))
		return -ENOMEM;
	for (i = 0; i < vs->count; i++) {
		struct tern_va_hole *h = &vs->holes[i];
		uint64_t start = (h->start + align - 1) & ~(align - 1);

		if (start < h->start || start >= h->end || h->end - start < size)
			continue;
		*va = start;
		if (start == h->start && start + size == h->end) {
			va_remove(vs, i);
		} else if (start == h->start) {
			h->start += size;
		} else if (start + size == h->end) {
			h->end = start;
		} else {
			uint64_t end = h->end;

			h->end = start;
			va_insert(vs, i + 1, start + size, end);
		}
		return 0;
	}
	return -ENOSPC;
}

int tern_va_free(struct tern_va_space *vs, uint64_t va, uint64_t size)
{
	uint64_t end = va + size;
	size_t i;

	if (!size || end < va)
		return -EINVAL;
	/* i: the first hole after the range */
	for (i = 0; i < vs->count && vs->holes[i].start < end; i++)
		if (vs->holes[i].end > va)
			return -EINVAL;		/* overlaps a hole: double free */
	if (i > 0 && vs->holes[i - 1].end == va) {
		vs->holes[i - 1].end = end;
		if (i < vs->count && vs->holes[i].start == end) {
			vs->holes[i - 1].end = vs->holes[i].end;
			va_remove(vs, i);
		}
		return 0;
	}
	if (i < vs->count && vs->holes[i].start == end) {
		vs->holes[i].start = va;
		return 0;
	}
	if (va_reserve(vs, vs->count + 1))
		return -ENOMEM;
	va_insert(vs, i, va, end);
	return 0;
}

uint64_t tern_va_free_bytes(const struct tern_va_space *vs)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < vs->count; i++)
		n += vs->holes[i].end - vs->holes[i].start;
	return n;
}
