// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * context.c - contexts: creation with a priority, engine class (or a chosen
 * engine) and weight, state and paging queries and the names of what can
 * happen to a context.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tern_accel.h"
#include "tern_regs.h"

_Static_assert((int)TERN_PRIORITY_LOW == DRM_TERN_PRIORITY_LOW &&
	       (int)TERN_PRIORITY_NORMAL == DRM_TERN_PRIORITY_NORMAL &&
	       (int)TERN_PRIORITY_HIGH == DRM_TERN_PRIORITY_HIGH, "priorities");
_Static_assert((int)TERN_ENGINE_COMPUTE == DRM_TERN_ENGINE_CLASS_COMPUTE &&
	       (int)TERN_ENGINE_COPY == DRM_TERN_ENGINE_CLASS_COPY, "engine classes");
_Static_assert((int)TERN_CONTEXT_ACTIVE == DRM_TERN_CONTEXT_ACTIVE &&
	       (int)TERN_CONTEXT_RESET == DRM_TERN_CONTEXT_RESET &&
	       (int)TERN_CONTEXT_FAULTED == DRM_TERN_CONTEXT_FAULTED &&
	       (int)TERN_CONTEXT_BANNED == DRM_TERN_CONTEXT_BANNED, "context states");
_Static_assert((int)TERN_REASON_NONE == DRM_TERN_REASON_NONE &&
	       (int)TERN_REASON_FAULT == DRM_TERN_REASON_FAULT &&
	       (int)TERN_REASON_HANG == DRM_TERN_REASON_HANG &&
	       (int)TERN_REASON_INNOCENT_RESET == DRM_TERN_REASON_INNOCENT_RESET &&
	       (int)TERN_REASON_DEVICE_LOST == DRM_TERN_REASON_DEVICE_LOST, "reasons");
_Static_assert(TERN_WEIGHT_DEFAULT == DRM_TERN_WEIGHT_DEFAULT &&
	       TERN_WEIGHT_MAX == DRM_TERN_WEIGHT_MAX, "weights");
_Static_assert((int)TERN_DEVICE_MAX_ENGINES == DRM_TERN_MAX_ENGINES, "engine count");
_Static_assert((int)TERN_CAP_SINGLE_USE == DRM_TERN_CAP_SINGLE_USE &&
	       (int)TERN_CAP_FAULT_INJECT == DRM_TERN_CAP_FAULT_INJECT, "caps");

/* CONTEXT_GET_STATE reports the paging of per-job residency from 1.7 on */
#define TERN_PAGING_INTERFACE	(1u << 16 | 7)

static const char *const priority_names[] = { "low", "normal", "high" };
static const char *const class_names[] = { "compute", "copy" };

static bool has_class(const struct tern_device *dev, uint32_t engine_class)
{
	uint32_t i;

	for (i = 0; i < dev->info.engine_count && i < TERN_DEVICE_MAX_ENGINES; i++)
		if (dev->info.engine_class[i] == engine_class)
			return true;
	return false;
}

/* @engine: an engine index, or -1 for where the driver places the context */
static int context_create(struct tern_device *dev, const struct tern_context_params *params,
			  int64_t engine, struct tern_context **ctxp)
{
	static const struct tern_context_params defaults = {
		.priority = TERN_PRIORITY_NORMAL,
		.engine_class = TERN_ENGINE_COMPUTE,
	};
	struct drm_tern_context_create args = { 0 };
	struct tern_context *ctx;
	int ret;

	*ctxp = NULL;
	tern_clearerr();
	if (!params)
		params = &defaults;
	if (params->priority > TERN_PRIORITY_HIGH)
		return tern_seterr(-EINVAL, "context: priority %u out of range (0 low to 2 high)",
				   params->priority);
	if (params->engine_class > TERN_ENGINE_COPY)
		return tern_seterr(-EINVAL, "context: engine class %u out of range "
				   "(0 compute, 1 copy)", params->engine_class);
	if (params->weight > TERN_WEIGHT_MAX)
		return tern_seterr(-EINVAL, "context: weight %u out of range (1 to %u, "
				   "or 0 for the default %u)", params->weight,
				   TERN_WEIGHT_MAX, TERN_WEIGHT_DEFAULT);
	if (engine >= 0 &&
	    (engine >= dev->info.engine_count || engine >= TERN_DEVICE_MAX_ENGINES ||
	     dev->info.engine_class[engine] != params->engine_class))
		return tern_seterr(-EINVAL, "context: engine %lld is not a %s engine of the "
				   "device (it has %u engines; tern_device_info() lists "
				   "their classes)", (long long)engine,
				   class_names[params->engine_class],
				   dev->info.engine_count);
	if (dev->info.max_timeout_ms && params->timeout_ms > dev->info.max_timeout_ms)
		return tern_seterr(-EINVAL, "context: timeout %u ms above the device's "
				   "maximum of %u ms", params->timeout_ms,
				   dev->info.max_timeout_ms);

	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return tern_seterr(-ENOMEM, "context: out of memory");
	args.priority = params->priority;
	args.engine_class = params->engine_class;
	args.timeout_ms = params->timeout_ms;
	args.weight = params->weight;
	if (engine >= 0) {
		args.flags = DRM_TERN_CONTEXT_CREATE_ENGINE;
		args.engine = (uint32_t)engine;
	}
	/* interface 1.2 has progress pages: fences then need no syscall to read */
	if (dev->info.driver_version >= (1u << 16 | 2))
		args.flags |= DRM_TERN_CONTEXT_CREATE_PROGRESS;
	ret = tern_ioctl(dev, DRM_IOCTL_TERN_CONTEXT_CREATE, &args,
			 TERN_IOC_CONTEXT_CREATE, "creating a context");
	if (ret) {
		const char *msg = tern_ioctl_errmsg(TERN_IOC_CONTEXT_CREATE, ret);

		/* -ENODEV: no engine of the class, or no device any more */
		if (ret == -ENODEV && has_class(dev, params->engine_class))
			msg = tern_ioctl_errmsg(TERN_IOC_GET_INFO, ret);
		tern_seterr(ret, "creating a %s-priority %s context of weight %u: %s",
			    priority_names[params->priority],
			    class_names[params->engine_class],
			    params->weight ? params->weight : TERN_WEIGHT_DEFAULT,
			    msg ? msg : tern_strerror(ret));
		free(ctx);
		return ret;
	}
	ctx->dev = dev;
	ctx->handle = args.handle;
	ctx->engine = args.engine;
	ctx->engine_class = params->engine_class;
	/* without the page (mmap refused), fences use their syncobjs */
	if (args.progress_offset &&
	    tern_progress_map(dev, args.progress_offset, &ctx->progress))
		ctx->progress = NULL;
	/* with the page, a job's fence needs a syncobj only when asked for */
	if (ctx->progress)
		ctx->progress->lazy = tern_lazy_supported(dev);
	*ctxp = ctx;
	return 0;
}

int tern_context_create(struct tern_device *dev, const struct tern_context_params *params,
			struct tern_context **ctxp)
{
	return context_create(dev, params, -1, ctxp);
}

int tern_context_create_on(struct tern_device *dev, const struct tern_context_params *params,
			   uint32_t engine, struct tern_context **ctxp)
{
	return context_create(dev, params, engine, ctxp);
}

int tern_context_destroy(struct tern_context *ctx)
{
	struct drm_tern_context_destroy args = { 0 };
	int ret;

	if (!ctx)
		return 0;
	args.handle = ctx->handle;
	/* its handle goes: the fences that need it get their syncobjs now */
	tern_lazy_context_destroy(ctx->progress);
	ret = tern_ioctl(ctx->dev, DRM_IOCTL_TERN_CONTEXT_DESTROY, &args,
			 TERN_IOC_CONTEXT_DESTROY, "destroying a context");
	tern_progress_put(ctx->progress);
	free(ctx);
	return ret;
}

uint32_t tern_context_engine(const struct tern_context *ctx)
{
	return ctx->engine;
}

uint32_t tern_context_handle(const struct tern_context *ctx)
{
	return ctx->handle;
}

int tern_context_status(struct tern_context *ctx, struct tern_context_status *st)
{
	struct drm_tern_context_get_state args = { 0 };
	int ret;

	args.handle = ctx->handle;
	ret = tern_ioctl(ctx->dev, DRM_IOCTL_TERN_CONTEXT_GET_STATE, &args,
			 TERN_IOC_CONTEXT_GET_STATE, "querying a context");
	if (ret)
		return ret;
	st->state = args.state;
	st->reason = args.reason;
	st->fault_kind = args.fault_kind;
	st->fault_offset = args.fault_offset;
	st->fault_addr = args.fault_addr;
	st->fault_seqno = args.fault_seqno;
	st->reset_count = args.reset_count;
	st->jobs_submitted = args.jobs_submitted;
	st->jobs_completed = args.jobs_completed;
	st->busy_ns = args.busy_ns;
	st->preemptions = args.preemptions;

	switch (st->state) {
	case TERN_CONTEXT_FAULTED:
		tern_seterr(0, "context faulted: job %u, packet at dword %u: %s at 0x%llx",
			    st->fault_seqno, st->fault_offset,
			    tern_fault_kind_name(st->fault_kind),
			    (unsigned long long)st->fault_addr);
		break;
	case TERN_CONTEXT_BANNED:
		tern_seterr(0, "context banned: job %u %s", st->fault_seqno,
			    st->reason == TERN_REASON_DEVICE_LOST ? "was lost with the device" :
			    "hung (no progress for the context's timeout)");
		break;
	case TERN_CONTEXT_RESET:
		tern_seterr(0, "context reset: %s; its interrupted job was run again",
			    tern_context_reason_name(st->reason));
		break;
	default:
		tern_clearerr();
		break;
	}
	return 0;
}

/*
 * The paging counters sit at the end of struct drm_tern_context_get_state,
 * appended in interface 1.7.  The ioctl is issued with the whole structure
 * as this header has it; a driver before 1.7 would hand the tail back as
 * it got it (zeros), which is why the version is checked first rather than
 * zeros reported as "no paging".
 */
int tern_context_paging(struct tern_context *ctx, struct tern_context_paging *p)
{
	struct drm_tern_context_get_state args = { 0 };
	uint32_t v;
	int ret;

	tern_clearerr();
	if (p)
		memset(p, 0, sizeof(*p));
	if (!ctx || !p)
		return tern_seterr(-EINVAL, "context paging: %s is NULL",
				   !ctx ? "the context" : "the counters' structure");
	v = ctx->dev->info.driver_version;
	if (v < TERN_PAGING_INTERFACE)
		return tern_seterr(-EOPNOTSUPP, "context paging: the driver's interface %u.%u "
				   "keeps device-local buffers resident from their allocation "
				   "and counts no paging (per-job residency and its counters "
				   "need interface 1.7)", v >> 16, v & 0xffff);
	args.handle = ctx->handle;
	ret = tern_ioctl(ctx->dev, DRM_IOCTL_TERN_CONTEXT_GET_STATE, &args,
			 TERN_IOC_CONTEXT_GET_STATE, "querying a context's paging");
	if (ret)
		return ret;
	p->bytes_in = args.paging_bytes_in;
	p->bytes_out = args.paging_bytes_out;
	p->evictions = args.evictions;
	p->paging_ns = args.paging_ns;
	return 0;
}

const char *tern_context_state_name(uint32_t state)
{
	switch (state) {
	case TERN_CONTEXT_ACTIVE: return "active";
	case TERN_CONTEXT_RESET: return "reset (innocent, still usable)";
	case TERN_CONTEXT_FAULTED: return "faulted (takes no more work)";
	case TERN_CONTEXT_BANNED: return "banned (takes no more work)";
	}
	return "unknown state";
}

const char *tern_context_reason_name(uint32_t reason)
{
	switch (reason) {
	case TERN_REASON_NONE: return "nothing happened";
	case TERN_REASON_FAULT: return "a job faulted";
	case TERN_REASON_HANG: return "a job hung";
	case TERN_REASON_INNOCENT_RESET: return "the engine was reset for another context";
	case TERN_REASON_DEVICE_LOST: return "the device was lost (reset or unplugged)";
	}
	return "unknown reason";
}

/* The fault kinds of docs/hardware.md, defined in tern_regs.h. */
const char *tern_fault_kind_name(uint32_t kind)
{
	static const char *const names[] = {
		[TERN_FAULT_NONE] = "no fault",
		[TERN_FAULT_NOT_PRESENT] = "address not mapped",
		[TERN_FAULT_WRITE_PROTECT] = "write to a read-only page",
		[TERN_FAULT_BAD_OPCODE] = "bad opcode",
		[TERN_FAULT_BAD_LENGTH] = "bad packet length",
		[TERN_FAULT_PRIVILEGED] = "privileged packet",
		[TERN_FAULT_BAD_OPERAND] = "bad operand",
		[TERN_FAULT_WAIT_TIMEOUT] = "WAIT_MEM timed out",
		[TERN_FAULT_BAD_RESUME] = "bad resume record",
		[TERN_FAULT_PAGE_TABLE] = "page table outside memory",
		[TERN_FAULT_BUS_ERROR] = "bus error",
		[TERN_FAULT_INJECTED] = "injected fault",
	};

	if (kind < sizeof(names) / sizeof(names[0]))
		return names[kind];
	return "unknown fault";
}
