// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * fdinfo.c - parser of the DRM fdinfo keys (drm-usage-stats.rst), and of
 * the preemption counters in tern's debugfs engines file.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdinfo.h"

static void copy_value(char *dst, size_t len, const char *v, size_t vlen)
{
	if (vlen >= len)
		vlen = len - 1;
	memcpy(dst, v, vlen);
	dst[vlen] = 0;
}

static struct fdinfo_engine *engine(struct drm_fdinfo *fi, const char *name, size_t len)
{
	unsigned int i;

	if (!len || len >= sizeof(fi->engines[0].name))
		return NULL;
	for (i = 0; i < fi->engine_count; i++)
		if (strlen(fi->engines[i].name) == len && !memcmp(fi->engines[i].name, name, len))
			return &fi->engines[i];
	if (fi->engine_count == FDINFO_MAX_ENGINES)
		return NULL;
	copy_value(fi->engines[fi->engine_count].name, sizeof(fi->engines[0].name), name, len);
	fi->engines[fi->engine_count].capacity = 1;
	return &fi->engines[fi->engine_count++];
}

/* A memory amount: "<n>" bytes, or "<n> KiB" / "<n> MiB" / "<n> GiB". */
static uint64_t parse_mem(const char *v)
{
	char *end;
	uint64_t n = strtoull(v, &end, 10);

	while (*end == ' ' || *end == '\t')
		end++;
	if (!strncmp(end, "KiB", 3))
		n <<= 10;
	else if (!strncmp(end, "MiB", 3))
		n <<= 20;
	else if (!strncmp(end, "GiB", 3))
		n <<= 30;
	return n;
}

int drm_fdinfo_parse(const char *text, struct drm_fdinfo *fi)
{
	const char *line = text;

	memset(fi, 0, sizeof(*fi));
	while (line && *line) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		const char *colon = memchr(line, ':', len);
		const char *v;
		size_t klen, vlen;

		if (!colon)
			goto next;
		klen = (size_t)(colon - line);
		v = colon + 1;
		while (v < line + len && (*v == ' ' || *v == '\t'))
			v++;
		vlen = (size_t)(line + len - v);

#define KEY_IS(k) (klen == sizeof(k) - 1 && !memcmp(line, k, klen))
#define KEY_HAS(p) (klen > sizeof(p) - 1 && !memcmp(line, p, sizeof(p) - 1))
		if (KEY_IS("drm-driver")) {
			copy_value(fi->driver, sizeof(fi->driver), v, vlen);
		} else if (KEY_IS("drm-pdev")) {
			copy_value(fi->pdev, sizeof(fi->pdev), v, vlen);
		} else if (KEY_IS("drm-client-id")) {
			fi->client_id = strtoull(v, NULL, 10);
			fi->has_client_id = true;
		} else if (KEY_HAS("drm-engine-capacity-")) {
			struct fdinfo_engine *e = engine(fi, line + 20, klen - 20);

			if (e)
				e->capacity = (uint32_t)strtoul(v, NULL, 10);
		} else if (KEY_HAS("drm-engine-")) {
			struct fdinfo_engine *e = engine(fi, line + 11, klen - 11);

			if (e)
				e->busy_ns = strtoull(v, NULL, 10);
		} else if (KEY_HAS("drm-total-")) {
			fi->total_bytes += parse_mem(v);
		} else if (KEY_HAS("drm-resident-")) {
			fi->resident_bytes += parse_mem(v);
		}
#undef KEY_IS
#undef KEY_HAS
next:
		line = eol ? eol + 1 : NULL;
	}
	return fi->driver[0] ? 0 : -1;
}

const struct fdinfo_engine *drm_fdinfo_engine(const struct drm_fdinfo *fi, const char *name)
{
	unsigned int i;

	for (i = 0; i < fi->engine_count; i++)
		if (!strcmp(fi->engines[i].name, name))
			return &fi->engines[i];
	return NULL;
}

/*
 * The engines file has, per engine, a line "engine <id>: <class>, ..." and
 * later "  preempt requested <n> served <n> jobs <n> latency_ns last <n>
 * max <n>" (docs/scheduler.md).
 */
unsigned int tern_engines_parse(const char *text, struct tern_engine_preempt *out,
				unsigned int max)
{
	struct tern_engine_preempt cur = { 0 };
	const char *line = text;
	bool in_engine = false;
	unsigned int n = 0;

	while (line && *line && n < max) {
		const char *eol = strchr(line, '\n');
		unsigned long long req, served;
		const char *p;
		char cls[16];

		if (sscanf(line, "engine %u: %15[a-z]", &cur.id, cls) == 2) {
			snprintf(cur.class_name, sizeof(cur.class_name), "%s", cls);
			in_engine = true;
		} else if (in_engine && sscanf(line, " preempt requested %llu served %llu",
					       &req, &served) == 2) {
			cur.requested = req;
			cur.served = served;
			p = strstr(line, " jobs ");
			cur.jobs = p && (!eol || p < eol) ? strtoull(p + 6, NULL, 10) : served;
			p = strstr(line, " max ");
			cur.max_latency_ns = p && (!eol || p < eol) ? strtoull(p + 5, NULL, 10) : 0;
			out[n++] = cur;
			in_engine = false;
		}
		line = eol ? eol + 1 : NULL;
	}
	return n;
}
