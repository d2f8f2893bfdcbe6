// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * tern-load: keep contexts of given priorities and weights busy with SPIN
 * jobs for a while, one thread per context, so that the scheduler has
 * something to share (what the pictures of docs/scheduler.md are recorded
 * from, with tern-trace).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

const char *tool_name = "tern-load";

#define MAX_LOADS	8
#define MAX_DEPTH	8
#define DEFAULT_LOAD	"normal:1:1000:2"

struct load {
	struct tern_device *dev;
	uint32_t prio, weight, job_us, depth, delay_ms;
	uint64_t end_ns;
	struct tern_context *ctx;
	unsigned int done;
	int ret;
	pthread_t thread;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tern-load [-d DEVICE] [-t MS] PRIO:WEIGHT:JOB_US:DEPTH[:DELAY_MS]...\n"
		"Keep one context per argument busy for MS ms (default 100): a context\n"
		"of priority PRIO (low, normal or high) and weight WEIGHT (1 to 64) that\n"
		"keeps DEPTH (1 to 8) jobs of JOB_US device microseconds of SPIN each\n"
		"submitted, starting DELAY_MS ms after the others (default 0); without an\n"
		"argument, " DEFAULT_LOAD ".  Prints the\n"
		"jobs each context completed.  All contexts are created before any\n"
		"submits; the driver places them on engines (a device with one compute\n"
		"engine puts them all on one).\n"
		"\n"
		"  -d, --device=DEVICE  an index (default 0) or a node path\n"
		"  -t, --time=MS        how long the contexts submit (default 100)\n"
		"  -h, --help           this help\n"
		"\n"
		"High priority needs CAP_SYS_NICE.\n"
		"Exit status: 0 every job completed; 1 a job failed or a step failed; 2 bad\n"
		"usage; 3 no tern device; 4 no permission.\n");
}

static int parse_load(const char *s, struct load *l)
{
	char prio[16];
	int n;

	l->delay_ms = 0;
	n = sscanf(s, "%15[a-z]:%" SCNu32 ":%" SCNu32 ":%" SCNu32 ":%" SCNu32, prio,
		   &l->weight, &l->job_us, &l->depth, &l->delay_ms);
	if (n < 4)
		return -1;
	if (!strcmp(prio, "low"))
		l->prio = TERN_PRIORITY_LOW;
	else if (!strcmp(prio, "normal"))
		l->prio = TERN_PRIORITY_NORMAL;
	else if (!strcmp(prio, "high"))
		l->prio = TERN_PRIORITY_HIGH;
	else
		return -1;
	if (l->weight < 1 || l->weight > TERN_WEIGHT_MAX || !l->job_us ||
	    l->job_us > 1000000 || l->depth < 1 || l->depth > MAX_DEPTH ||
	    l->delay_ms > 60000)
		return -1;
	return 0;
}

static void *run_load(void *arg)
{
	struct load *l = arg;
	struct tern_fence *fences[MAX_DEPTH] = { NULL };
	struct tern_cmdbuf *cb = NULL;
	unsigned int head = 0, i;
	int ret;

	if (l->delay_ms)
		usleep(l->delay_ms * 1000u);
	ret = tern_cmdbuf_create(0, &cb);
	if (!ret)
		ret = tern_cmd_spin(cb, l->job_us);
	for (i = 0; !ret && i < l->depth; i++)
		ret = tern_submit(l->ctx, cb, NULL, 0, &fences[i]);
	while (!ret) {
		ret = tern_fence_wait(fences[head], -1);
		tern_fence_free(fences[head]);
		fences[head] = NULL;
		if (ret)
			break;
		l->done++;
		if (tool_now_ns() < l->end_ns)
			ret = tern_submit(l->ctx, cb, NULL, 0, &fences[head]);
		head = (head + 1) % l->depth;
		if (!fences[head])
			break;
	}
	for (i = 0; i < l->depth; i++) {
		if (!fences[i])
			continue;
		if (!tern_fence_wait(fences[i], -1))
			l->done++;
		tern_fence_free(fences[i]);
	}
	tern_cmdbuf_free(cb);
	l->ret = ret;
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "time", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct load loads[MAX_LOADS];
	const char *device = NULL;
	struct tern_device *dev;
	uint64_t ms = 100, end;
	unsigned int n = 0, i;
	int c, ret, status = TOOL_EXIT_OK;

	while ((c = getopt_long(argc, argv, "d:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			device = optarg;
			break;
		case 't':
			if (tool_parse_u64(optarg, &ms) || !ms || ms > 600000) {
				fprintf(stderr, "%s: bad --time '%s'\n", tool_name, optarg);
				return TOOL_EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return TOOL_EXIT_OK;
		default:
			usage(stderr);
			return TOOL_EXIT_USAGE;
		}
	}
	if (argc - optind > MAX_LOADS) {
		usage(stderr);
		return TOOL_EXIT_USAGE;
	}
	memset(loads, 0, sizeof(loads));
	if (optind == argc)
		parse_load(DEFAULT_LOAD, &loads[n++]);
	for (i = optind; i < (unsigned int)argc; i++, n++) {
		if (parse_load(argv[i], &loads[n])) {
			fprintf(stderr, "%s: bad load '%s'\n", tool_name, argv[i]);
			return TOOL_EXIT_USAGE;
		}
	}
	ret = tool_open(device, &dev);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		struct tern_context_params p = {
			.priority = loads[i].prio,
			.weight = loads[i].weight,
		};

		ret = tern_context_create(dev, &p, &loads[i].ctx);
		if (ret) {
			tool_error(ret, "creating a context");
			status = tool_exit_code(ret);
			goto out;
		}
	}
	end = tool_now_ns() + ms * 1000000ull;
	for (i = 0; i < n; i++) {
		loads[i].dev = dev;
		loads[i].end_ns = end + loads[i].delay_ms * 1000000ull;
		if (pthread_create(&loads[i].thread, NULL, run_load, &loads[i])) {
			fprintf(stderr, "%s: cannot start a thread\n", tool_name);
			status = TOOL_EXIT_FAIL;
			n = i;
			break;
		}
	}
	for (i = 0; i < n; i++) {
		pthread_join(loads[i].thread, NULL);
		printf("context %u (engine %u, %s, weight %u, %u us jobs): %u jobs done\n", i,
		       tern_context_engine(loads[i].ctx),
		       loads[i].prio == TERN_PRIORITY_HIGH ? "high" :
		       loads[i].prio == TERN_PRIORITY_LOW ? "low" : "normal",
		       loads[i].weight, loads[i].job_us, loads[i].done);
		if (loads[i].ret) {
			tool_error(loads[i].ret, "a job");
			status = TOOL_EXIT_FAIL;
		}
	}
out:
	for (i = 0; i < MAX_LOADS; i++)
		if (loads[i].ctx)
			tern_context_destroy(loads[i].ctx);
	tern_device_close(dev);
	return status;
}
