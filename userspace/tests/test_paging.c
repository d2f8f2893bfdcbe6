// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * test_paging: tern_context_paging() refuses a NULL context or structure
 * (-EINVAL) and a driver older than interface 1.7 (-EOPNOTSUPP, without an
 * ioctl, naming both versions), zeroes its output whenever it fails, and
 * otherwise issues DRM_IOCTL_TERN_CONTEXT_GET_STATE with the whole
 * structure of the uAPI header and hands its four paging counters back
 * field by field; tern_context_status() keeps its size and its fields.
 * The device is built by hand and drmIoctl() is replaced by a fake that
 * plays the driver, so no device is needed.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <xf86drm.h>

#include "internal.h"
#include "tern_accel.h"
#include "tap.h"

/* what the fake driver saw and answers */
static unsigned int calls;
static unsigned long last_request;
static struct drm_tern_context_get_state last_in, answer;
static int fail_errno;

/* Takes the place of libdrm's drmIoctl() for libtern.a in this program. */
int drmIoctl(int fd, unsigned long request, void *arg)
{
	(void)fd;
	calls++;
	last_request = request;
	if (request != DRM_IOCTL_TERN_CONTEXT_GET_STATE) {
		errno = ENOTTY;
		return -1;
	}
	memcpy(&last_in, arg, sizeof(last_in));
	if (fail_errno) {
		errno = fail_errno;
		return -1;
	}
	memcpy(arg, &answer, sizeof(answer));
	return 0;
}

static bool has(const char *s)
{
	return strstr(tern_last_error(), s) != NULL;
}

static bool zeroed(const struct tern_context_paging *p)
{
	return !p->bytes_in && !p->bytes_out && !p->evictions && !p->paging_ns;
}

int main(void)
{
	struct tern_device dev = { .fd = -1 };
	struct tern_context ctx = { .dev = &dev, .handle = 7 };
	struct tern_context_paging p;
	struct tern_context_status st;
	int ret;

	ok(sizeof(struct tern_context_status) == 64,
	   "struct tern_context_status keeps its size (%zu bytes): the paging counters "
	   "are not in it", sizeof(struct tern_context_status));
	ok(sizeof(struct tern_context_paging) == 32 &&
	   offsetof(struct tern_context_paging, paging_ns) == 24,
	   "struct tern_context_paging: four u64 counters");
	ok(_IOC_SIZE(DRM_IOCTL_TERN_CONTEXT_GET_STATE) ==
	   offsetof(struct drm_tern_context_get_state, paging_ns) + 8,
	   "the uAPI's CONTEXT_GET_STATE ends with the paging counters (%u bytes)",
	   (unsigned int)_IOC_SIZE(DRM_IOCTL_TERN_CONTEXT_GET_STATE));

	/* arguments */
	memset(&p, 0xff, sizeof(p));
	ret = tern_context_paging(NULL, &p);
	ok(ret == -EINVAL && zeroed(&p) && has("context"),
	   "a NULL context: -EINVAL, the counters zeroed, \"%s\"", tern_last_error());
	ret = tern_context_paging(&ctx, NULL);
	ok(ret == -EINVAL && has("NULL"), "a NULL structure: -EINVAL, \"%s\"",
	   tern_last_error());

	/* a driver before 1.7 */
	dev.info.driver_version = 1u << 16 | 6;
	memset(&p, 0xff, sizeof(p));
	calls = 0;
	ret = tern_context_paging(&ctx, &p);
	ok(ret == -EOPNOTSUPP && zeroed(&p) && calls == 0,
	   "interface 1.6: -EOPNOTSUPP, the counters zeroed, no ioctl");
	ok(has("1.6") && has("1.7"), "the message names both versions: \"%s\"",
	   tern_last_error());
	dev.info.driver_version = 0;
	ok(tern_context_paging(&ctx, &p) == -EOPNOTSUPP, "interface 0.0: -EOPNOTSUPP");

	/* interface 1.7: the fake driver answers */
	dev.info.driver_version = 1u << 16 | 7;
	memset(&answer, 0, sizeof(answer));
	answer.state = DRM_TERN_CONTEXT_ACTIVE;
	answer.busy_ns = 5000;
	answer.preemptions = 3;
	answer.paging_bytes_in = 8ull << 20;
	answer.paging_bytes_out = 4ull << 20;
	answer.evictions = 2;
	answer.paging_ns = 123456789ull;
	memset(&p, 0xff, sizeof(p));
	memset(&last_in, 0xaa, sizeof(last_in));
	calls = 0;
	ret = tern_context_paging(&ctx, &p);
	ok(ret == 0 && calls == 1 && last_request == DRM_IOCTL_TERN_CONTEXT_GET_STATE,
	   "interface 1.7: one CONTEXT_GET_STATE (%d, \"%s\")", ret, tern_last_error());
	ok(_IOC_SIZE(last_request) == sizeof(struct drm_tern_context_get_state),
	   "issued with the whole structure (%u bytes)", (unsigned int)_IOC_SIZE(last_request));
	ok(last_in.handle == 7 && last_in.flags == 0 && last_in.paging_bytes_in == 0 &&
	   last_in.paging_ns == 0, "for the context's handle, flags 0, the rest zeroed");
	ok(p.bytes_in == 8ull << 20 && p.bytes_out == 4ull << 20 && p.evictions == 2 &&
	   p.paging_ns == 123456789ull, "bytes in and out, evictions and paging time, "
	   "each from its own field");
	ok(tern_last_error()[0] == 0, "a success leaves no error message");

	/* the kernel refuses */
	fail_errno = ENOENT;
	memset(&p, 0xff, sizeof(p));
	ret = tern_context_paging(&ctx, &p);
	ok(ret == -ENOENT && zeroed(&p) && has("no such context"),
	   "no such context: -ENOENT, the counters zeroed, \"%s\"", tern_last_error());
	fail_errno = 0;

	/* the status is unchanged by the longer structure */
	memset(&st, 0xff, sizeof(st));
	ret = tern_context_status(&ctx, &st);
	ok(ret == 0 && st.state == TERN_CONTEXT_ACTIVE && st.busy_ns == 5000 &&
	   st.preemptions == 3, "tern_context_status() still reads its fields (%d)", ret);
	return tap_end();
}
