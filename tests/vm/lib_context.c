// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_context: contexts of every priority, engine class and weight, on an
 * engine of their choice, their limits and state, and the errors libtern reports for bad parameters, a
 * missing privilege and too many contexts.
 *
 * tern-vm: timeout=90
 */
#include <sys/wait.h>
#include <tern/tern.h>

#include "tern_test.h"

int main(void)
{
	const struct tern_device_info *info;
	struct tern_context_params p = { 0 };
	struct tern_context_status st;
	struct tern_context *ctx = NULL, *ctxs[256];
	struct tern_device *dev;
	unsigned int i, n;
	int ret, status;
	pid_t pid;

	if (tern_device_open(0, &dev)) {
		tap_ok(false, "open: %s", tern_last_error());
		return tap_exit_status();
	}
	info = tern_device_info(dev);

	ret = tern_context_create(dev, NULL, &ctx);
	tap_ok(ret == 0 && ctx && tern_context_handle(ctx) != 0,
	       "a default context (handle %u)", ctx ? tern_context_handle(ctx) : 0);
	tap_ok(ctx && tern_context_engine(ctx) < info->compute_engine_count,
	       "it is placed on a compute engine (%u)", ctx ? tern_context_engine(ctx) : 99);
	ret = ctx ? tern_context_status(ctx, &st) : -1;
	tap_ok(ret == 0 && st.state == TERN_CONTEXT_ACTIVE && st.reason == TERN_REASON_NONE &&
	       st.jobs_submitted == 0 && st.jobs_completed == 0 && st.reset_count == 0 &&
	       st.preemptions == 0 && st.busy_ns == 0,
	       "a new context is active, with no jobs, resets, preemptions or device time");
	tap_ok(tern_context_destroy(ctx) == 0, "destroy it");

	for (i = TERN_PRIORITY_LOW; i <= TERN_PRIORITY_HIGH; i++) {
		p.priority = i;
		p.engine_class = TERN_ENGINE_COMPUTE;
		ret = tern_context_create(dev, &p, &ctx);
		tap_ok(ret == 0, "priority %u: %s", i, ret ? tern_last_error() : "created");
		tern_context_destroy(ctx);
	}
	p.priority = TERN_PRIORITY_NORMAL;
	p.engine_class = TERN_ENGINE_COPY;
	ret = tern_context_create(dev, &p, &ctx);
	tap_ok(ret == 0 && tern_context_engine(ctx) == info->engine_count - 1,
	       "a copy context runs on the copy engine (%u)", ret ? 99 : tern_context_engine(ctx));
	tern_context_destroy(ctx);
	p.engine_class = TERN_ENGINE_COMPUTE;
	p.timeout_ms = info->max_timeout_ms;
	ret = tern_context_create(dev, &p, &ctx);
	tap_ok(ret == 0, "the largest timeout (%u ms) is taken", info->max_timeout_ms);
	tern_context_destroy(ctx);

	p.timeout_ms = 0;
	p.weight = TERN_WEIGHT_MAX;
	ret = tern_context_create(dev, &p, &ctx);
	tap_ok(ret == 0, "the largest weight (%u) is taken", TERN_WEIGHT_MAX);
	tern_context_destroy(ctx);
	p.weight = TERN_WEIGHT_MAX + 1;
	ctx = (void *)1;
	ret = tern_context_create(dev, &p, &ctx);
	tap_ok(ret == -EINVAL && !ctx && strstr(tern_last_error(), "weight 65"),
	       "weight %u: -EINVAL, \"%s\"", TERN_WEIGHT_MAX + 1, tern_last_error());
	p.weight = 0;

	/* a chosen engine: each one, then ones that do not fit */
	for (i = 0; i < info->engine_count; i++) {
		struct tern_context *on[3] = { NULL };
		unsigned int j, right = 0;

		p.engine_class = info->engine_class[i];
		for (j = 0; j < 3; j++)
			right += !tern_context_create_on(dev, &p, i, &on[j]) &&
				 tern_context_engine(on[j]) == i;
		tap_ok(right == 3, "three contexts asking for engine %u (class %u) run on it "
		       "(%u of 3): %s", i, p.engine_class, right, tern_last_error());
		for (j = 0; j < 3; j++)
			tern_context_destroy(on[j]);
	}
	p.engine_class = TERN_ENGINE_COMPUTE;
	ctx = (void *)1;
	ret = tern_context_create_on(dev, &p, info->engine_count, &ctx);
	tap_ok(ret == -EINVAL && !ctx && strstr(tern_last_error(), "engine"),
	       "engine %u (one past the last): -EINVAL, \"%s\"", info->engine_count,
	       tern_last_error());
	/* the copy engine */
	ret = tern_context_create_on(dev, &p, info->engine_count - 1, &ctx);
	tap_ok(ret == -EINVAL && !ctx && strstr(tern_last_error(), "not a compute engine"),
	       "the copy engine as a compute engine: -EINVAL, \"%s\"", tern_last_error());
	ret = tern_context_create(dev, &p, &ctx);
	tap_ok(ret == 0 && tern_context_engine(ctx) < info->compute_engine_count,
	       "without an engine the driver places it (engine %u)",
	       ret ? 99 : tern_context_engine(ctx));
	tern_context_destroy(ctx);

	p.timeout_ms = info->max_timeout_ms + 1;
	ctx = (void *)1;
	ret = tern_context_create(dev, &p, &ctx);
	tap_ok(ret == -EINVAL && !ctx && strstr(tern_last_error(), "timeout"),
	       "a timeout above the maximum: -EINVAL, \"%s\"", tern_last_error());
	p.timeout_ms = 0;
	p.priority = 3;
	ret = tern_context_create(dev, &p, &ctx);
	tap_ok(ret == -EINVAL && strstr(tern_last_error(), "priority"),
	       "priority 3: -EINVAL, \"%s\"", tern_last_error());
	p.priority = TERN_PRIORITY_NORMAL;
	p.engine_class = 2;
	ret = tern_context_create(dev, &p, &ctx);
	tap_ok(ret == -EINVAL && strstr(tern_last_error(), "class"),
	       "engine class 2: -EINVAL, \"%s\"", tern_last_error());

	/*
	 * A priority or weight above the default needs CAP_SYS_NICE: user
	 * nobody has not got it.  Lowering is free.
	 */
	fflush(stdout);
	pid = fork();
	if (!pid) {
		p.priority = TERN_PRIORITY_HIGH;
		p.engine_class = TERN_ENGINE_COMPUTE;
		if (setgid(65534) || setuid(65534))
			_exit(10);
		ret = tern_context_create(dev, &p, &ctx);
		if (ret != -EACCES)
			_exit(11);
		if (!strstr(tern_last_error(), "CAP_SYS_NICE") ||
		    !strstr(tern_last_error(), "high-priority"))
			_exit(12);
		p.priority = TERN_PRIORITY_NORMAL;
		p.weight = TERN_WEIGHT_MAX;
		ret = tern_context_create(dev, &p, &ctx);
		if (ret != -EACCES)
			_exit(13);
		if (!strstr(tern_last_error(), "CAP_SYS_NICE") ||
		    !strstr(tern_last_error(), "weight 64"))
			_exit(14);
		p.priority = TERN_PRIORITY_LOW;
		p.weight = 0;
		if (tern_context_create(dev, &p, &ctx))
			_exit(15);
		/* the file is shared with the parent: leave it as it was */
		_exit(tern_context_destroy(ctx) ? 16 : 0);
	}
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "without CAP_SYS_NICE: high priority and weight 64 are -EACCES naming "
	       "CAP_SYS_NICE, low is fine (child status %d)",
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);

	/* the per-file limit */
	n = 0;
	ret = 0;
	while (n < 256 && !(ret = tern_context_create(dev, NULL, &ctxs[n])))
		n++;
	tap_ok(ret == -EMFILE && n == info->max_contexts,
	       "context %u is -EMFILE (limit %u): \"%s\"", n + 1, info->max_contexts,
	       tern_last_error());
	tap_ok(strstr(tern_last_error(), "max_contexts") != NULL, "the message names the limit");
	for (i = 0; i < n; i++)
		tern_context_destroy(ctxs[i]);
	ret = tern_context_create(dev, NULL, &ctx);
	tap_ok(ret == 0, "after destroying them a context can be created again");
	tern_context_destroy(ctx);
	tern_device_close(dev);
	tap_done();
	return tap_exit_status();
}
