// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * results.c - the result store of tern-benchsuite: every value of every
 * repetition, printed as a table (median, min, max, spread) and written as
 * JSON for scripts/bench-report.py.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

struct metric {
	int fig;
	char name[48];
	char series[24];
	double x;
	char unit[16];
	double v[BENCH_MAX_REPS];
	unsigned int n;
};

struct missing {
	int fig;
	char name[48];
	char why[160];
};

static struct metric *metrics;
static unsigned int nmetrics, cap_metrics;
static struct missing *missing;
static unsigned int nmissing, cap_missing;

static void *grow(void *p, unsigned int *cap, size_t size)
{
	unsigned int n = *cap ? *cap * 2 : 32;
	void *q = realloc(p, n * size);

	if (!q) {
		fprintf(stderr, "%s: out of memory for results\n", tool_name);
		exit(TOOL_EXIT_FAIL);
	}
	*cap = n;
	return q;
}

void bench_record(int fig, const char *name, const char *series, double x,
		  const char *unit, double value)
{
	struct metric *m = NULL;
	unsigned int i;

	if (x < 0)
		x = -1;
	for (i = 0; i < nmetrics; i++) {
		if (metrics[i].fig == fig && metrics[i].x == x &&
		    !strcmp(metrics[i].name, name) && !strcmp(metrics[i].series, series)) {
			m = &metrics[i];
			break;
		}
	}
	if (!m) {
		if (nmetrics == cap_metrics)
			metrics = grow(metrics, &cap_metrics, sizeof(*metrics));
		m = &metrics[nmetrics++];
		memset(m, 0, sizeof(*m));
		m->fig = fig;
		m->x = x;
		snprintf(m->name, sizeof(m->name), "%s", name);
		snprintf(m->series, sizeof(m->series), "%s", series);
		snprintf(m->unit, sizeof(m->unit), "%s", unit);
	}
	if (m->n < BENCH_MAX_REPS)
		m->v[m->n++] = value;
}

void bench_missing(int fig, const char *name, const char *fmt, ...)
{
	struct missing *m;
	unsigned int i;
	va_list ap;

	for (i = 0; i < nmissing; i++)
		if (missing[i].fig == fig && !strcmp(missing[i].name, name))
			return;
	if (nmissing == cap_missing)
		missing = grow(missing, &cap_missing, sizeof(*missing));
	m = &missing[nmissing++];
	m->fig = fig;
	snprintf(m->name, sizeof(m->name), "%s", name);
	va_start(ap, fmt);
	vsnprintf(m->why, sizeof(m->why), fmt, ap);
	va_end(ap);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double bench_quantile(double *v, unsigned int n, double p)
{
	unsigned int i;

	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	/* nearest rank: the smallest value with at least p of them at or below */
	i = (unsigned int)ceil(p * n);
	return v[i ? i - 1 : 0];
}

/* median, min and max of a metric's values (a sorted copy) */
static void summary(const struct metric *m, double *med, double *lo, double *hi)
{
	double v[BENCH_MAX_REPS];

	memcpy(v, m->v, m->n * sizeof(*v));
	qsort(v, m->n, sizeof(*v), cmp_double);
	*lo = v[0];
	*hi = v[m->n - 1];
	*med = m->n % 2 ? v[m->n / 2] : (v[m->n / 2 - 1] + v[m->n / 2]) / 2;
}

static const char *fig_title[BENCH_FIGURES + 1] = {
	"",
	"submit-to-signal latency of a NOP job against the raw round trip",
	"small-job throughput against both slots kept full",
	"high-priority latency under long low-priority jobs: fair against fifo and drmfair",
	"fairness: equal contexts, weights, starvation of LOW",
	"scale: driver CPU and memory against contexts and processes",
	"COPY, GEMM and SAXPY through the driver against the device",
	"preemption latency, request to PREEMPT_DONE (driver's measurement)",
	"changes of an address space: map, unmap, and what an unmap waits for",
	"oversubscription: multi-process jobs on LOCAL buffers fitting in local memory and 2x it",
};

void bench_print_table(FILE *f)
{
	unsigned int i;
	int fig;

	for (fig = 1; fig <= BENCH_FIGURES; fig++) {
		bool title = false;

		for (i = 0; i < nmetrics; i++) {
			const struct metric *m = &metrics[i];
			double med, lo, hi;
			char x[16] = "";

			if (m->fig != fig)
				continue;
			if (!title) {
				fprintf(f, "\nFigure %d: %s\n", fig, fig_title[fig]);
				fprintf(f, "  %-26s %-10s %6s %12s %12s %12s %7s %3s  %s\n",
					"metric", "series", "x", "median", "min", "max",
					"spread", "n", "unit");
				title = true;
			}
			summary(m, &med, &lo, &hi);
			if (m->x >= 0)
				snprintf(x, sizeof(x), "%g", m->x);
			fprintf(f, "  %-26s %-10s %6s %12.4g %12.4g %12.4g %6.1f%% %3u  %s\n",
				m->name, m->series, x, med, lo, hi,
				med != 0 ? 100.0 * (hi - lo) / fabs(med) : 0.0, m->n, m->unit);
		}
		for (i = 0; i < nmissing; i++) {
			if (missing[i].fig != fig)
				continue;
			if (!title) {
				fprintf(f, "\nFigure %d: %s\n", fig, fig_title[fig]);
				title = true;
			}
			fprintf(f, "  %-26s not measured: %s\n", missing[i].name, missing[i].why);
		}
	}
}

/* a JSON string (our names hold no control characters; quote what needs it) */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('"', f);
}

static void json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.9g", v);
	else
		fputs("null", f);
}

int bench_write_json(const char *path, const struct bench *b, const char *mode)
{
	const struct tern_device_info *info = tern_device_info(b->dev);
	FILE *f = fopen(path, "w");
	unsigned int i, j;
	int ret = 0;

	if (!f)
		return -errno;
	fprintf(f, "{\n  \"suite\": \"tern-benchsuite\",\n  \"mode\": ");
	json_str(f, mode);
	fprintf(f, ",\n  \"reps\": %u,\n  \"time\": %lld,\n", b->reps, (long long)time(NULL));
	fprintf(f, "  \"device\": {\"path\": ");
	json_str(f, info->path);
	fprintf(f, ", \"engines\": %u, \"compute_engines\": %u, \"hw_version\": %u},\n",
		info->engine_count, info->compute_engine_count, info->hw_version);
	fprintf(f, "  \"scaled_device\": {\"path\": ");
	json_str(f, tern_device_info(b->sdev)->path);
	fprintf(f, ", \"time_scale\": %u},\n", b->time_scale);
	fprintf(f, "  \"titles\": {");
	for (i = 1; i <= BENCH_FIGURES; i++) {
		fprintf(f, "%s\"%u\": ", i > 1 ? ", " : "", i);
		json_str(f, fig_title[i]);
	}
	fprintf(f, "},\n  \"metrics\": [\n");
	for (i = 0; i < nmetrics; i++) {
		const struct metric *m = &metrics[i];
		double med, lo, hi;

		summary(m, &med, &lo, &hi);
		fprintf(f, "    {\"figure\": %d, \"name\": ", m->fig);
		json_str(f, m->name);
		fprintf(f, ", \"series\": ");
		json_str(f, m->series);
		fprintf(f, ", \"x\": ");
		if (m->x >= 0)
			json_num(f, m->x);
		else
			fputs("null", f);
		fprintf(f, ", \"unit\": ");
		json_str(f, m->unit);
		fprintf(f, ", \"median\": ");
		json_num(f, med);
		fprintf(f, ", \"min\": ");
		json_num(f, lo);
		fprintf(f, ", \"max\": ");
		json_num(f, hi);
		fprintf(f, ", \"values\": [");
		for (j = 0; j < m->n; j++) {
			if (j)
				fputs(", ", f);
			json_num(f, m->v[j]);
		}
		fprintf(f, "]}%s\n", i + 1 < nmetrics ? "," : "");
	}
	fprintf(f, "  ],\n  \"missing\": [\n");
	for (i = 0; i < nmissing; i++) {
		fprintf(f, "    {\"figure\": %d, \"name\": ", missing[i].fig);
		json_str(f, missing[i].name);
		fprintf(f, ", \"why\": ");
		json_str(f, missing[i].why);
		fprintf(f, "}%s\n", i + 1 < nmissing ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	if (ferror(f))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

void bench_results_free(void)
{
	free(metrics);
	free(missing);
	metrics = NULL;
	missing = NULL;
	nmetrics = cap_metrics = nmissing = cap_missing = 0;
}

void bench_log(const struct bench *b, const char *fmt, ...)
{
	va_list ap;

	if (!b->verbose)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "[bench] ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}
