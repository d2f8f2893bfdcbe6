// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * test_deps: how a submission's fences and timeline points become the
 * uAPI's in- and out-syncs, and the refusals made before any ioctl (point 0,
 * no timeline, a timeline or fence of another open device, the device's
 * limit on syncs).  Pure: the device and its objects are built by hand.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tern_accel.h"
#include "tap.h"

int main(void)
{
	struct tern_device dev = { .fd = -1 }, other = { .fd = -1 };
	struct tern_fence f1 = { .dev = &dev, .syncobj = 11 }, f2 = { .dev = &dev, .syncobj = 12 };
	struct tern_fence foreign_f = { .dev = &other, .syncobj = 13 };
	struct tern_timeline t1 = { .dev = &dev, .syncobj = 21 };
	struct tern_timeline t2 = { .dev = &dev, .syncobj = 22 };
	struct tern_timeline foreign_t = { .dev = &other, .syncobj = 23 };
	struct tern_fence *fences[2] = { &f1, &f2 };
	struct tern_timeline_point waits[2] = { { &t1, 5 }, { &t2, 1ull << 40 } };
	struct tern_timeline_point sigs[3] = { { &t1, 6 }, { &t2, 7 }, { &t1, 8 } };
	struct tern_deps d = { 0 };
	struct drm_tern_sync *in, *out;
	unsigned int nin, nout;
	int ret;

	dev.info.max_syncs_per_submit = 4;

	ret = tern_deps_syncs(&dev, NULL, 1, "submit", &in, &nin, &out, &nout);
	ok(ret == 0 && nin == 0 && !in && nout == 1 && out && out[0].handle == 0 &&
	   out[0].point == 0, "no deps: no in-sync, one free out-sync for the fence");
	free(out);
	ret = tern_deps_syncs(&dev, NULL, 0, "submit", &in, &nin, &out, &nout);
	ok(ret == 0 && !in && !out && !nin && !nout, "nothing at all: no arrays");

	d.fences = fences;
	d.fence_count = 2;
	d.waits = waits;
	d.wait_count = 2;
	d.signals = sigs;
	d.signal_count = 3;
	ret = tern_deps_syncs(&dev, &d, 1, "submit", &in, &nin, &out, &nout);
	ok(ret == 0 && nin == 4 && nout == 4, "2 fences + 2 waits in, fence + 3 signals out");
	ok(!ret && in[0].handle == 11 && in[0].point == 0 && in[1].handle == 12 &&
	   in[1].point == 0, "fences first, as binary syncs (point 0)");
	ok(!ret && in[2].handle == 21 && in[2].point == 5 && in[3].handle == 22 &&
	   in[3].point == 1ull << 40, "then the waits, with their 64-bit points");
	ok(!ret && out[0].handle == 0 && out[1].handle == 21 && out[1].point == 6 &&
	   out[2].handle == 22 && out[2].point == 7 && out[3].handle == 21 &&
	   out[3].point == 8, "signals after the fence's entry, in order");
	ok(!ret && !in[0].flags && !in[3].flags && !out[3].flags, "flags stay 0");
	free(in);
	free(out);

	d.signal_count = 3;
	ret = tern_deps_syncs(&dev, &d, 0, "submit", &in, &nin, &out, &nout);
	ok(ret == 0 && nout == 3 && out[0].handle == 21, "without a fence the signals start at 0");
	free(in);
	free(out);

	sigs[2].point = 0;
	in = out = (void *)1;
	ret = tern_deps_syncs(&dev, &d, 1, "submit", &in, &nin, &out, &nout);
	ok(ret == -EINVAL && !in && !out && strstr(tern_last_error(), "signal 2") &&
	   strstr(tern_last_error(), "point 0"), "signal point 0: -EINVAL, \"%s\"",
	   tern_last_error());
	sigs[2].point = 8;
	waits[1].timeline = NULL;
	ret = tern_deps_syncs(&dev, &d, 1, "submit", &in, &nin, &out, &nout);
	ok(ret == -EINVAL && strstr(tern_last_error(), "wait 1: no timeline"),
	   "a wait without a timeline: -EINVAL, \"%s\"", tern_last_error());
	waits[1].timeline = &foreign_t;
	ret = tern_deps_syncs(&dev, &d, 1, "submit", &in, &nin, &out, &nout);
	ok(ret == -EINVAL && strstr(tern_last_error(), "another open device") &&
	   strstr(tern_last_error(), "tern_timeline_export"),
	   "a timeline of another open device: -EINVAL, \"%s\"", tern_last_error());
	waits[1].timeline = &t2;
	fences[1] = &foreign_f;
	ret = tern_deps_syncs(&dev, &d, 1, "submit", &in, &nin, &out, &nout);
	ok(ret == -EINVAL && strstr(tern_last_error(), "dependency 1") &&
	   strstr(tern_last_error(), "sync_file"), "a fence of another open device: -EINVAL, "
	   "\"%s\"", tern_last_error());
	fences[1] = &f2;

	/* the limit counts fences and waits together, and signals with the fence */
	dev.info.max_syncs_per_submit = 3;
	ret = tern_deps_syncs(&dev, &d, 0, "submit", &in, &nin, &out, &nout);
	ok(ret == -EINVAL && strstr(tern_last_error(), "4 dependencies (2 fences, 2 timeline "
	   "waits)") && strstr(tern_last_error(), "at most 3"),
	   "4 in-syncs over a limit of 3: -EINVAL, \"%s\"", tern_last_error());
	d.wait_count = 1;
	ret = tern_deps_syncs(&dev, &d, 1, "submit", &in, &nin, &out, &nout);
	ok(ret == -EINVAL && strstr(tern_last_error(), "3 timeline signals and the job's fence"),
	   "3 signals and the fence over a limit of 3: -EINVAL, \"%s\"", tern_last_error());
	ret = tern_deps_syncs(&dev, &d, 0, "submit", &in, &nin, &out, &nout);
	ok(ret == 0 && nin == 3 && nout == 3, "exactly the limit without a fence is fine");
	free(in);
	free(out);
	d.fence_count = 1u << 31;
	d.wait_count = 1u << 31;
	ret = tern_deps_syncs(&dev, &d, 0, "submit", &in, &nin, &out, &nout);
	ok(ret == -EINVAL, "counts that wrap around are refused");
	return tap_end();
}
