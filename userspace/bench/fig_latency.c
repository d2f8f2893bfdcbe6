// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * Figure 1: submit-to-signal latency of a NOP job through libtern and the
 * scheduler, beside the device's own round trip (doorbell, interrupt, waiter
 * woken) that the driver measures through debugfs raw_nop without the
 * scheduler.  Both on the same engine, p50 and p99, and their ratio.
 */
#include <errno.h>
#include <stdlib.h>

#include "bench.h"

#define FIG 1

int bench_fig_latency(struct bench *b)
{
	unsigned int n = b->quick ? 20 : 300, rep, i;
	struct tern_context *ctx = NULL;
	struct tern_cmdbuf *cb = NULL;
	double *lat = calloc(n, sizeof(*lat));
	uint32_t engine;
	int ret;

	if (!lat)
		return -ENOMEM;
	ret = tern_context_create(b->dev, NULL, &ctx);
	if (!ret)
		ret = tern_cmdbuf_create(0, &cb);
	if (!ret)
		ret = tern_cmd_nop(cb, 1);
	if (ret) {
		tool_error(ret, "figure 1 set-up");
		goto out;
	}
	engine = tern_context_engine(ctx);
	for (i = 0; i < 5 && !ret; i++) {	/* warm the paths */
		uint64_t ns;

		ret = bench_run_one(ctx, cb, 10000000000ll, &ns);
	}
	for (rep = 0; rep < b->reps && !ret; rep++) {
		uint64_t *raw = NULL, total, ns;
		double p50, p99, r50, r99;

		for (i = 0; i < n && !ret; i++) {
			ret = bench_run_one(ctx, cb, 10000000000ll, &ns);
			lat[i] = ns / 1e3;
		}
		if (ret)
			break;
		p50 = bench_quantile(lat, n, 0.5);
		p99 = bench_quantile(lat, n, 0.99);
		bench_record(FIG, "nop_latency_p50", "driver", -1, "us", p50);
		bench_record(FIG, "nop_latency_p99", "driver", -1, "us", p99);

		ret = bench_raw_nop(b->dev, engine, n, true, &raw, &total);
		if (ret == -ENOENT) {
			bench_missing(FIG, "raw_round_trip", "the driver has no debugfs raw_nop");
			ret = 0;
			continue;
		}
		if (ret) {
			fprintf(stderr, "%s: raw_nop serial: %s\n", tool_name, tern_strerror(ret));
			break;
		}
		for (i = 0; i < n; i++)
			lat[i] = raw[i] / 1e3;
		free(raw);
		r50 = bench_quantile(lat, n, 0.5);
		r99 = bench_quantile(lat, n, 0.99);
		bench_record(FIG, "raw_round_trip_p50", "device", -1, "us", r50);
		bench_record(FIG, "raw_round_trip_p99", "device", -1, "us", r99);
		bench_record(FIG, "ratio_p50", "driver/raw", -1, "x", p50 / r50);
		bench_record(FIG, "ratio_p99", "driver/raw", -1, "x", p99 / r99);
		bench_log(b, "fig 1 rep %u: driver p50 %.1f us, raw p50 %.1f us", rep, p50, r50);
	}
out:
	tern_cmdbuf_free(cb);
	tern_context_destroy(ctx);
	free(lat);
	return ret;
}
