// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * tern-info: list tern devices with their engines, memory, limits and
 * driver version.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

const char *tool_name = "tern-info";

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tern-info [-d DEVICE]\n"
		"List tern accelerators: engines, memory, limits, driver version.\n"
		"\n"
		"  -d, --device=DEVICE  only this device: an index (0 = the first tern\n"
		"                       device) or a node such as /dev/accel/accel0\n"
		"  -h, --help           this help\n"
		"\n"
		"Exit status: 0 success, 1 a query failed, 2 bad usage, 3 no tern device\n"
		"(module not loaded or no device), 4 no permission to open the device.\n");
}

static const char *class_name(uint32_t c)
{
	return c == TERN_ENGINE_COMPUTE ? "compute" : c == TERN_ENGINE_COPY ? "copy" : "unknown";
}

/* Bytes of local memory in use (sysfs tern_local_memory_used); false if unknown. */
static bool local_used(const struct tern_device_info *i, double *used)
{
	char path[256];
	unsigned long long v;
	bool ok;
	FILE *f;

	if (!i->pci_slot[0])
		return false;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/tern_local_memory_used",
		 i->pci_slot);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fscanf(f, "%llu", &v) == 1;
	fclose(f);
	*used = (double)v;
	return ok;
}

static int show(struct tern_device *dev)
{
	const struct tern_device_info *i = tern_device_info(dev);
	uint64_t clock;
	double used;
	unsigned int e;
	int ret;

	printf("%s: tern accelerator%s%s\n", i->path, i->pci_slot[0] ? " at PCI " : "",
	       i->pci_slot);
	printf("  driver          %s %d.%d.%d (%s), uAPI %u.%u\n", i->driver_name,
	       i->driver_major, i->driver_minor, i->driver_patch, i->driver_desc,
	       i->driver_version >> 16, i->driver_version & 0xffff);
	printf("  hardware        version %u.%u\n", i->hw_version >> 16, i->hw_version & 0xffff);
	printf("  capabilities   %s%s%s\n", i->caps & TERN_CAP_SINGLE_USE ? " single-use" : "",
	       i->caps & TERN_CAP_FAULT_INJECT ? " fault-injection" : "",
	       i->caps ? "" : " none");
	printf("  engines         %u (%u compute, %u copy)\n", i->engine_count,
	       i->compute_engine_count, i->engine_count - i->compute_engine_count);
	for (e = 0; e < i->engine_count && e < TERN_DEVICE_MAX_ENGINES; e++)
		printf("    engine %u      %s\n", e, class_name(i->engine_class[e]));
	printf("  local memory    %" PRIu64 " MiB", i->local_mem_size >> 20);
	if (local_used(i, &used))
		printf(", %.1f MiB in use", used / 1048576.0);
	printf("\n");
	printf("  largest buffer  %" PRIu64 " MiB\n", i->max_bo_size >> 20);
	printf("  address space   %u-bit\n", i->va_bits);
	printf("  TLB             %u entries per engine\n", i->tlb_entries);
	printf("  limits          command buffer %u bytes, %u contexts per open,\n"
	       "                  %u unfinished jobs per context, %u buffers and %u fences"
	       " per job,\n"
	       "                  %" PRIu64 " MiB of unfinished command buffers per open\n",
	       i->buf_size_max, i->max_contexts, i->max_jobs_per_context,
	       i->max_bos_per_submit, i->max_syncs_per_submit, i->max_queued_bytes >> 20);
	printf("  hang timeout    %u ms by default, at most %u ms\n", i->default_timeout_ms,
	       i->max_timeout_ms);
	ret = tern_device_clock(dev, &clock);
	if (ret) {
		tool_error(ret, "reading the device clock");
		return TOOL_EXIT_FAIL;
	}
	printf("  device clock    %" PRIu64 ".%09" PRIu64 " s since reset\n",
	       clock / 1000000000u, clock % 1000000000u);
	return TOOL_EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *spec = NULL;
	struct tern_device *dev;
	int c, n, i, ret, status = TOOL_EXIT_OK;

	while ((c = getopt_long(argc, argv, "d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			spec = optarg;
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

	if (spec) {
		ret = tool_open(spec, &dev);
		if (ret)
			return ret;
		status = show(dev);
		tern_device_close(dev);
		return status;
	}

	n = tern_device_count();
	if (!n) {
		fprintf(stderr, "%s: %s\n", tool_name, tern_last_error());
		return TOOL_EXIT_NODEV;
	}
	printf("%d tern device%s\n", n, n == 1 ? "" : "s");
	for (i = 0; i < n; i++) {
		char idx[16];

		snprintf(idx, sizeof(idx), "%d", i);
		ret = tool_open(idx, &dev);
		if (ret) {
			status = ret;
			continue;
		}
		ret = show(dev);
		if (ret)
			status = ret;
		tern_device_close(dev);
	}
	return status;
}
