// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_nan: NaN inputs give what docs/hardware.md 8.2 says.  The arithmetic
 * packets (VECADD, SAXPY, REDUCE SUM) give a NaN; REDUCE MIN and MAX run
 * their comparison loop, where a comparison with a NaN is false: a NaN
 * after the first element is never selected (also across the 4096-element
 * chunk boundary, where the accumulator is carried over), a NaN first
 * element is the result bit for bit, and of +0.0 and -0.0 the first wins.
 *
 * tern-vm: timeout=60
 */
#include <math.h>

#include "core_test.h"

#define VA		0x100000ull
#define BO_SIZE		(256 * 1024)
#define SRC_OFF		0		/* the input vector */
#define B_OFF		(64 * 1024)	/* VECADD's second input */
#define DST_OFF		(128 * 1024)	/* results */
#define QNAN_BITS	0x7fc01234u	/* a quiet NaN with a payload */
#define COUNT_MAX	5000		/* more than one chunk of 4096 */

static int fd;
static uint32_t ctx, bo, so;
static volatile uint32_t *mem;

static float f32(uint32_t bits)
{
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

static uint32_t bits32(float f)
{
	uint32_t b;

	memcpy(&b, &f, sizeof(b));
	return b;
}

static int run(const uint32_t *dw, uint32_t n)
{
	int ret = submit(fd, ctx, dw, n, &bo, 1, 0, so, NULL);

	return ret ? ret : syncobj_wait(fd, so, 5000);
}

/* REDUCE @op over the first @count floats of the source: the result's bits. */
static uint32_t reduce(uint32_t op, uint32_t count, int *err)
{
	uint32_t dw[8], n = 0;

	mem[DST_OFF / 4] = 0xdeadbeef;
	dw[n++] = TERN_PKT_HEADER(TERN_OP_REDUCE, TERN_PKT_DWORDS_REDUCE);
	dw[n++] = (uint32_t)(VA + SRC_OFF);
	dw[n++] = (uint32_t)((VA + SRC_OFF) >> 32);
	dw[n++] = (uint32_t)(VA + DST_OFF);
	dw[n++] = (uint32_t)((VA + DST_OFF) >> 32);
	dw[n++] = TERN_REDUCE_COUNT_OP(count, op);
	*err = run(dw, n);
	return mem[DST_OFF / 4];
}

/* src[i] = (i % 97) - 40.5 + i / 8192.0: distinct values */
static void fill_src(uint32_t count)
{
	uint32_t i;

	for (i = 0; i < count; i++)
		mem[SRC_OFF / 4 + i] = bits32((float)(i % 97) - 40.5f +
					      (float)i / 8192.0f);
}

/* MIN or MAX of the first @count floats of the source but the one at @skip */
static float cpu_minmax(uint32_t op, uint32_t count, uint32_t skip)
{
	float acc = 0;
	bool first = true;
	uint32_t i;

	for (i = 0; i < count; i++) {
		float x = f32(mem[SRC_OFF / 4 + i]);

		if (i == skip)
			continue;
		if (first || (op == TERN_REDUCE_MIN ? x < acc : x > acc))
			acc = x;
		first = false;
	}
	return acc;
}

static void check_skip(uint32_t op, uint32_t count, uint32_t nan_at)
{
	const char *name = op == TERN_REDUCE_MIN ? "MIN" : "MAX";
	float want;
	uint32_t got;
	int err;

	fill_src(count);
	mem[SRC_OFF / 4 + nan_at] = QNAN_BITS;
	want = cpu_minmax(op, count, nan_at);
	got = reduce(op, count, &err);
	tap_ok(!err && got == bits32(want),
	       "REDUCE %s of %u with a NaN at %u: the NaN is skipped (%g, want %g)",
	       name, count, nan_at, f32(got), want);
}

int main(void)
{
	struct drm_tern_get_info info;
	uint32_t dw[16], n, got, i;
	void *cpu;
	int err;

	fd = tern_test_open();
	if (!tap_ok(fd >= 0, "open the device") || core_get_info(fd, &info))
		return tap_exit_status();
	if (ctx_create(fd, DRM_TERN_PRIORITY_NORMAL, DRM_TERN_ENGINE_CLASS_COMPUTE,
		       0, &ctx) || core_bo(fd, BO_SIZE, VA, &bo, &cpu)) {
		tap_ok(false, "a context and a BO");
		return tap_exit_status();
	}
	mem = cpu;
	so = syncobj_new(fd);

	/* a NaN after the first element is never selected */
	check_skip(TERN_REDUCE_MIN, 8, 3);
	check_skip(TERN_REDUCE_MAX, 8, 3);
	check_skip(TERN_REDUCE_MIN, 8, 7);
	check_skip(TERN_REDUCE_MAX, COUNT_MAX, 4096);	/* first of chunk 2 */
	check_skip(TERN_REDUCE_MIN, COUNT_MAX, 4095);	/* last of chunk 1 */

	/* a NaN first element is the result, bit for bit */
	fill_src(COUNT_MAX);
	mem[SRC_OFF / 4] = QNAN_BITS;
	got = reduce(TERN_REDUCE_MIN, COUNT_MAX, &err);
	tap_ok(!err && got == QNAN_BITS,
	       "REDUCE MIN with a NaN first: that NaN (%#x)", got);
	got = reduce(TERN_REDUCE_MAX, COUNT_MAX, &err);
	tap_ok(!err && got == QNAN_BITS,
	       "REDUCE MAX with a NaN first: that NaN (%#x)", got);

	/* only NaNs: a NaN */
	for (i = 0; i < 8; i++)
		mem[SRC_OFF / 4 + i] = QNAN_BITS;
	got = reduce(TERN_REDUCE_MAX, 8, &err);
	tap_ok(!err && isnan(f32(got)), "REDUCE MAX of NaNs only: a NaN (%#x)", got);

	/* +0.0 and -0.0 compare equal: the first one stays */
	mem[SRC_OFF / 4] = bits32(0.0f);
	mem[SRC_OFF / 4 + 1] = bits32(-0.0f);
	got = reduce(TERN_REDUCE_MIN, 2, &err);
	tap_ok(!err && got == bits32(0.0f), "REDUCE MIN of +0, -0: +0 (%#x)", got);
	mem[SRC_OFF / 4] = bits32(-0.0f);
	mem[SRC_OFF / 4 + 1] = bits32(0.0f);
	got = reduce(TERN_REDUCE_MAX, 2, &err);
	tap_ok(!err && got == bits32(-0.0f), "REDUCE MAX of -0, +0: -0 (%#x)", got);

	/* the arithmetic packets: a NaN operand gives a NaN */
	fill_src(COUNT_MAX);
	mem[SRC_OFF / 4 + 4097] = QNAN_BITS;
	got = reduce(TERN_REDUCE_SUM, COUNT_MAX, &err);
	tap_ok(!err && isnan(f32(got)), "REDUCE SUM with a NaN at 4097: a NaN (%#x)", got);

	for (i = 0; i < 8; i++) {
		mem[SRC_OFF / 4 + i] = bits32((float)i);
		mem[B_OFF / 4 + i] = bits32(0.5f);
	}
	mem[SRC_OFF / 4 + 2] = QNAN_BITS;
	n = 0;
	dw[n++] = TERN_PKT_HEADER(TERN_OP_VECADD, TERN_PKT_DWORDS_VECADD);
	dw[n++] = (uint32_t)(VA + SRC_OFF);
	dw[n++] = (uint32_t)((VA + SRC_OFF) >> 32);
	dw[n++] = (uint32_t)(VA + B_OFF);
	dw[n++] = (uint32_t)((VA + B_OFF) >> 32);
	dw[n++] = (uint32_t)(VA + DST_OFF);
	dw[n++] = (uint32_t)((VA + DST_OFF) >> 32);
	dw[n++] = 8;
	err = run(dw, n);
	got = 0;
	for (i = 0; i < 8; i++)
		got += i == 2 ? !isnan(f32(mem[DST_OFF / 4 + i])) :
			mem[DST_OFF / 4 + i] != bits32((float)i + 0.5f);
	tap_ok(!err && !got, "VECADD: the NaN element is a NaN, the others exact (%u wrong)",
	       got);

	for (i = 0; i < 8; i++)
		mem[DST_OFF / 4 + i] = bits32(1.0f);
	n = 0;
	dw[n++] = TERN_PKT_HEADER(TERN_OP_SAXPY, TERN_PKT_DWORDS_SAXPY);
	dw[n++] = (uint32_t)(VA + SRC_OFF);
	dw[n++] = (uint32_t)((VA + SRC_OFF) >> 32);
	dw[n++] = (uint32_t)(VA + DST_OFF);
	dw[n++] = (uint32_t)((VA + DST_OFF) >> 32);
	dw[n++] = 8;
	dw[n++] = bits32(2.0f);
	err = run(dw, n);
	got = 0;
	for (i = 0; i < 8; i++)
		got += i == 2 ? !isnan(f32(mem[DST_OFF / 4 + i])) :
			mem[DST_OFF / 4 + i] != bits32(2.0f * (float)i + 1.0f);
	tap_ok(!err && !got, "SAXPY: the NaN element is a NaN, the others exact (%u wrong)",
	       got);

	ctx_destroy(fd, ctx);
	close(fd);
	tap_done();
	return tap_exit_status();
}
