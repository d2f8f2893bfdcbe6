// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_placement: which engine a context runs on.  With
 * DRM_TERN_CONTEXT_CREATE_ENGINE a context lands on the engine it names,
 * as CONTEXT_CREATE's @engine, debugfs "contexts" and the engine's own
 * completion counter all show, however many contexts are on it already;
 * an engine the device does not have, or of another class, is -EINVAL.
 * Without the flag the driver picks the engine of the class with the
 * fewest contexts, and @engine is not read.
 *
 * tern-vm: timeout=60
 */
#include "core_test.h"

#define VA	0x100000ull

/* The engine debugfs "contexts" shows for context @handle (one file), or -1. */
static int dbg_ctx_engine(uint32_t handle)
{
	static char buf[1 << 16];
	unsigned int tag, h, vm, engine;
	char path[512], *p = buf;
	size_t len;
	FILE *f;

	if (!core_debugfs_path("contexts", path, sizeof(path)))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	buf[len] = 0;
	fclose(f);
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (sscanf(p, "ctx tag %u handle %u vm %u engine %u", &tag, &h,
			   &vm, &engine) == 4 && h == handle)
			return (int)engine;
	return -1;
}

/* The "completed" count of every engine in debugfs "engines"; false if unreadable. */
static bool completed(const struct drm_tern_get_info *info, long long *out)
{
	char path[512], line[512];
	unsigned int e, i, done = 0;
	long long v;
	FILE *f;

	if (!core_debugfs_path("engines", path, sizeof(path)))
		return false;
	f = fopen(path, "r");
	if (!f)
		return false;
	e = ~0u;
	while (fgets(line, sizeof(line), f)) {
		char *p;

		if (sscanf(line, "engine %u:", &i) == 1) {
			e = i;
			continue;
		}
		p = strstr(line, " completed ");
		if (p && e < info->engine_count &&
		    sscanf(p, " completed %lld", &v) == 1) {
			out[e] = v;
			done |= 1u << e;
		}
	}
	fclose(f);
	return done == (1u << info->engine_count) - 1;
}

/* Create with the flag; the errno, and *@engine_out the engine it reports. */
static int create_on(int fd, uint32_t class, uint32_t engine, uint32_t *handle,
		     uint32_t *engine_out)
{
	struct drm_tern_context_create c = {
		.flags = DRM_TERN_CONTEXT_CREATE_ENGINE,
		.priority = DRM_TERN_PRIORITY_NORMAL,
		.engine_class = class,
		.engine = engine,
	};
	int ret = mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &c);

	if (!ret) {
		*handle = c.handle;
		*engine_out = c.engine;
	}
	return ret;
}

int main(void)
{
	long long before[DRM_TERN_MAX_ENGINES], after[DRM_TERN_MAX_ENGINES];
	uint32_t h[DRM_TERN_MAX_ENGINES * 3], got, handle, bo, dw[8], n, so;
	struct drm_tern_context_create cc;
	struct drm_tern_get_info info;
	unsigned int e, i, nh = 0, other_class;
	volatile uint32_t *mem;
	bool same, distinct;
	int fd, ret;

	fd = tern_test_open();
	if (!tap_ok(fd >= 0, "open the device") || core_get_info(fd, &info))
		return tap_exit_status();
	tap_ok(info.driver_version >= (1u << 16 | 1),
	       "driver interface 1.1 or later (%u.%u) has the flag",
	       info.driver_version >> 16, info.driver_version & 0xffff);
	if (core_bo(fd, 4096, VA, &bo, (void **)&mem)) {
		tap_ok(false, "a BO mapped at %#llx", VA);
		return tap_exit_status();
	}
	so = syncobj_new(fd);

	/*
	 * Each engine, named, gets the context, and runs its job: its own
	 * completion counter moves by one and no other engine's does.
	 */
	for (e = 0; e < info.engine_count; e++) {
		ret = create_on(fd, info.engine_class[e], e, &handle, &got);
		tap_ok(!ret && got == e, "engine %u (class %u) named: created (%s) on engine %u",
		       e, info.engine_class[e], ret ? strerror(-ret) : "ok",
		       ret ? 99 : got);
		if (ret)
			continue;
		h[nh++] = handle;
		tap_ok(dbg_ctx_engine(handle) == (int)e,
		       "debugfs contexts shows context %u on engine %u (%d)", handle,
		       e, dbg_ctx_engine(handle));
		n = 0;
		pkt_write_imm(dw, &n, VA + 4 * e, 0x100 + e);
		if (!completed(&info, before)) {
			tap_ok(false, "debugfs engines readable");
			continue;
		}
		ret = submit(fd, handle, dw, n, &bo, 1, 0, so, NULL);
		ret = ret ? ret : syncobj_wait(fd, so, 5000);
		if (!ret && !completed(&info, after))
			ret = -EIO;
		same = !ret;
		for (i = 0; !ret && i < info.engine_count; i++)
			same &= after[i] - before[i] == (i == e ? 1 : 0);
		tap_ok(same && mem[e] == 0x100 + e,
		       "its job ran on engine %u and on no other (%s, value %#x)", e,
		       ret ? strerror(-ret) : "ok", mem[e]);
	}

	/* Named placement ignores the fewest-contexts rule: three on engine 0. */
	same = true;
	for (i = 0; i < 3; i++) {
		ret = create_on(fd, info.engine_class[0], 0, &handle, &got);
		same &= !ret && got == 0 && dbg_ctx_engine(handle) == 0;
		if (!ret)
			h[nh++] = handle;
	}
	tap_ok(same, "three more contexts named on engine 0 all land there");

	/*
	 * Unnamed, the driver picks the engine of the class with the fewest
	 * contexts: engine 0 has four now, so the next compute context goes
	 * elsewhere (if there is an elsewhere), and @engine is not read.
	 */
	memset(&cc, 0, sizeof(cc));
	cc.engine_class = DRM_TERN_ENGINE_CLASS_COMPUTE;
	cc.engine = 0;
	ret = mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &cc);
	tap_ok(!ret && (info.compute_engine_count == 1 ? cc.engine == 0 : cc.engine != 0) &&
	       cc.engine < info.compute_engine_count,
	       "without the flag, @engine 0 is ignored: the context goes to the "
	       "compute engine with the fewest contexts (%u of %u)", cc.engine,
	       info.compute_engine_count);
	if (!ret)
		h[nh++] = cc.handle;

	/* what does not exist, or is of another class, is refused */
	tap_errno(create_on(fd, DRM_TERN_ENGINE_CLASS_COMPUTE, info.engine_count,
			    &handle, &got), -EINVAL, "engine engine_count");
	tap_errno(create_on(fd, DRM_TERN_ENGINE_CLASS_COMPUTE, DRM_TERN_MAX_ENGINES,
			    &handle, &got), -EINVAL, "engine DRM_TERN_MAX_ENGINES");
	tap_errno(create_on(fd, DRM_TERN_ENGINE_CLASS_COMPUTE, UINT32_MAX, &handle,
			    &got), -EINVAL, "engine 2^32 - 1");
	distinct = true;
	for (e = 0; e < info.engine_count; e++) {
		other_class = info.engine_class[e] == DRM_TERN_ENGINE_CLASS_COMPUTE ?
			      DRM_TERN_ENGINE_CLASS_COPY : DRM_TERN_ENGINE_CLASS_COMPUTE;
		ret = create_on(fd, other_class, e, &handle, &got);
		distinct &= ret == -EINVAL;
		if (!ret)
			h[nh++] = handle;
	}
	tap_ok(distinct, "every engine named with the other class: EINVAL");
	memset(&cc, 0, sizeof(cc));
	cc.flags = DRM_TERN_CONTEXT_CREATE_PROGRESS_VA << 1;
	tap_errno(mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &cc), -EINVAL,
		  "an unknown flag next to it");

	for (i = 0; i < nh; i++)
		ctx_destroy(fd, h[i]);
	close(fd);
	tap_done();
	return tap_exit_status();
}
