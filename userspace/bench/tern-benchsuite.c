// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * tern-benchsuite: the figures of docs/performance.md, each measured several
 * times in one run, printed as a table with median and spread and written
 * as JSON for scripts/bench-report.py.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

const char *tool_name = "tern-benchsuite";

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tern-benchsuite [-q] [-r REPS] [-f FIGURES] [-o FILE] [-d DEV] [-D DEV]\n"
		"Measure a tern device against its own limits and its scheduling\n"
		"policies (docs/performance.md):\n"
		"  1  submit-to-signal latency of a NOP job against the raw round trip\n"
		"  2  small-job throughput, 1 to 64 contexts and several processes, against\n"
		"     the device with both slots kept full\n"
		"  3  high-priority latency under long low-priority SPIN and GEMM jobs,\n"
		"     fair against fifo and drmfair (switched through debugfs)\n"
		"  4  fairness: Jain's index of 16 equal contexts, weights, LOW starvation\n"
		"  5  driver CPU per job and memory per context, 1 to 4096 contexts and\n"
		"     1 to 64 processes\n"
		"  6  COPY, GEMM and SAXPY through the driver against the device's rate\n"
		"  7  preemption latency as the driver measured it (taken with figure 3)\n"
		"  8  changes of an address space: map and unmap latency, (map, job,\n"
		"     unmap) triples per second, the wait of an unmap behind a long job\n"
		"  9  oversubscription: jobs/s of 3 processes whose device-local buffers\n"
		"     take half of local memory against twice it (interleaved pairs), and\n"
		"     the paging per job (driver interface 1.7)\n"
		"Every figure runs REPS times; the table gives median, min, max and spread.\n"
		"Needs root (debugfs, high priority).\n"
		"\n"
		"  -q, --quick            tiny counts: checks that everything runs\n"
		"  -r, --reps=REPS        repetitions of each figure (default 5, quick 2;\n"
		"                         at most %d)\n"
		"  -f, --figures=LIST     figures to run, e.g. 1,3-4 or 1+3-4 (default all)\n"
		"  -o, --json=FILE        write every value as JSON to FILE\n"
		"  -d, --device=DEV       device for figures 1, 2, 5, 6, 8, 9 (index or path;\n"
		"                         default 0)\n"
		"  -D, --slow-device=DEV  device for figures 3, 4, 7, best one with a\n"
		"                         time-scale (default: device 1 if there are two,\n"
		"                         else the -d device)\n"
		"  -v, --verbose          progress on stderr\n"
		"  -h, --help             this help\n"
		"\n"
		"Exit status: 0 success, 1 a measurement failed or a result was wrong,\n"
		"2 bad usage, 3 no tern device, 4 no permission.\n", BENCH_MAX_REPS);
}

/* "1,3-4" (or "1+3-4") -> bit i set for figure i */
static int parse_figures(const char *s, unsigned int *mask)
{
	*mask = 0;
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), z = a;

		if (end == s)
			return -1;
		if (*end == '-') {
			s = end + 1;
			z = strtol(s, &end, 10);
			if (end == s)
				return -1;
		}
		if (a < 1 || z > BENCH_FIGURES || a > z)
			return -1;
		for (; a <= z; a++)
			*mask |= 1u << a;
		if (*end == ',' || *end == '+')
			end++;
		else if (*end)
			return -1;
		s = end;
	}
	return *mask ? 0 : -1;
}

/*
 * The device's time-scale: the device time of a run of one 1 ms SPIN (the
 * growth of its context's busy_ns, the run's RUN_NS) in ms, rounded down,
 * the least of three runs.  A completed run lasts at least its modelled
 * cost times the time-scale, and more when the host lags behind the model
 * (docs/hardware.md, section 12).
 */
static int measure_time_scale(struct tern_device *dev, uint32_t *scale)
{
	struct tern_context *ctx = NULL;
	struct tern_context_status st;
	struct tern_cmdbuf *cb = NULL;
	uint64_t ns, busy = 0, least = UINT64_MAX;
	int ret, i;

	ret = tern_context_create(dev, NULL, &ctx);
	if (!ret)
		ret = tern_cmdbuf_create(0, &cb);
	if (!ret)
		ret = tern_cmd_spin(cb, 1000);
	for (i = 0; i < 3 && !ret; i++) {
		ret = bench_run_one(ctx, cb, 120000000000ll, &ns);
		if (!ret)
			ret = tern_context_status(ctx, &st);
		if (!ret && st.busy_ns - busy < least)
			least = st.busy_ns - busy;
		busy = st.busy_ns;
	}
	if (!ret)
		*scale = least >= 1000000 ? (uint32_t)(least / 1000000) : 1;
	else
		tool_error(ret, "measuring the time-scale");
	tern_cmdbuf_free(cb);
	tern_context_destroy(ctx);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "reps", required_argument, NULL, 'r' },
		{ "figures", required_argument, NULL, 'f' },
		{ "json", required_argument, NULL, 'o' },
		{ "device", required_argument, NULL, 'd' },
		{ "slow-device", required_argument, NULL, 'D' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static int (*const run[BENCH_FIGURES + 1])(struct bench *) = {
		NULL, bench_fig_latency, bench_fig_throughput, bench_fig_priority,
		bench_fig_fairness, bench_fig_scale, bench_fig_compute, bench_fig_priority,
		bench_fig_bind, bench_fig_oversub,
	};
	const char *spec = NULL, *slow_spec = NULL, *json = NULL;
	unsigned int mask = ~0u, failed = 0;
	struct bench b = { .reps = 0 };
	uint64_t reps = 0;
	int c, ret, fig;

	while ((c = getopt_long(argc, argv, "qr:f:o:d:D:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			b.quick = true;
			break;
		case 'r':
			if (tool_parse_u64(optarg, &reps) || !reps || reps > BENCH_MAX_REPS) {
				fprintf(stderr, "%s: bad repetition count \"%s\" (1 to %d)\n",
					tool_name, optarg, BENCH_MAX_REPS);
				return TOOL_EXIT_USAGE;
			}
			break;
		case 'f':
			if (parse_figures(optarg, &mask)) {
				fprintf(stderr, "%s: bad figure list \"%s\" (e.g. 1,3-4)\n",
					tool_name, optarg);
				return TOOL_EXIT_USAGE;
			}
			break;
		case 'o':
			json = optarg;
			break;
		case 'd':
			spec = optarg;
			break;
		case 'D':
			slow_spec = optarg;
			break;
		case 'v':
			b.verbose = true;
			break;
		case 'h':
			usage(stdout);
			return TOOL_EXIT_OK;
		default:
			usage(stderr);
			return TOOL_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return TOOL_EXIT_USAGE;
	}
	b.reps = reps ? (unsigned int)reps : b.quick ? 2 : 5;

	ret = tool_open(spec, &b.dev);
	if (ret)
		return ret;
	if (!slow_spec && !spec && tern_device_count() >= 2)
		slow_spec = "1";
	if (slow_spec) {
		ret = tool_open(slow_spec, &b.sdev);
		if (ret) {
			tern_device_close(b.dev);
			return ret;
		}
	} else {
		b.sdev = b.dev;
	}
	ret = measure_time_scale(b.dev, &b.dev_scale);
	if (!ret)
		ret = measure_time_scale(b.sdev, &b.time_scale);
	if (ret)
		goto out;
	printf("tern-benchsuite: %s mode, %u repetitions; device %s (time-scale %u), "
	       "scheduling figures on %s (time-scale %u)\n", b.quick ? "quick" : "full",
	       b.reps, tern_device_info(b.dev)->path, b.dev_scale,
	       tern_device_info(b.sdev)->path, b.time_scale);
	fflush(stdout);

	for (fig = 1; fig <= BENCH_FIGURES; fig++) {
		if (!(mask & (1u << fig)))
			continue;
		/* figure 7 is taken with figure 3 */
		if (fig == 7 && (mask & (1u << 3)))
			continue;
		bench_log(&b, "figure %d", fig);
		if (run[fig](&b)) {
			fprintf(stderr, "%s: figure %d failed\n", tool_name, fig);
			failed++;
		}
	}
	bench_print_table(stdout);
	if (json) {
		ret = bench_write_json(json, &b, b.quick ? "quick" : "full");
		if (ret)
			fprintf(stderr, "%s: %s: %s\n", tool_name, json, strerror(-ret));
	}
	if (failed) {
		fprintf(stderr, "%s: %u figure(s) failed\n", tool_name, failed);
		ret = -EIO;
	}
out:
	bench_results_free();
	if (b.sdev != b.dev)
		tern_device_close(b.sdev);
	tern_device_close(b.dev);
	return ret ? TOOL_EXIT_FAIL : TOOL_EXIT_OK;
}
