/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Copyright (c) 2026 The tern authors
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tern

#if !defined(__TERN_TRACE_H__) || defined(TRACE_HEADER_MULTI_READ)
#define __TERN_TRACE_H__

#include <linux/tracepoint.h>
#include <linux/types.h>

#include "tern_policy.h"

/*
 * The events and their fields are an interface of tern-trace and of anyone
 * who records them: docs/tracepoints.md describes each one.  Add fields at
 * the end; do not rename or remove one.
 */

TRACE_DEFINE_ENUM(TERN_POLICY_REASON_NONE);
TRACE_DEFINE_ENUM(TERN_POLICY_REASON_FIFO);
TRACE_DEFINE_ENUM(TERN_POLICY_REASON_PRIORITY);
TRACE_DEFINE_ENUM(TERN_POLICY_REASON_QUANTUM);
TRACE_DEFINE_ENUM(TERN_POLICY_REASON_STARVATION);
TRACE_DEFINE_ENUM(TERN_POLICY_REASON_PROMISED);
TRACE_DEFINE_ENUM(TERN_POLICY_REASON_OWED);
TRACE_DEFINE_ENUM(TERN_POLICY_REASON_DRMFAIR);
TRACE_DEFINE_ENUM(TERN_POLICY_REASON_KERNEL);

#define tern_trace_reason_name(r)					\
	__print_symbolic(r,						\
			 { TERN_POLICY_REASON_NONE, "none" },		\
			 { TERN_POLICY_REASON_FIFO, "fifo" },		\
			 { TERN_POLICY_REASON_PRIORITY, "priority" },	\
			 { TERN_POLICY_REASON_QUANTUM, "quantum" },	\
			 { TERN_POLICY_REASON_STARVATION, "starvation" }, \
			 { TERN_POLICY_REASON_PROMISED, "promised" },	\
			 { TERN_POLICY_REASON_OWED, "owed" },		\
			 { TERN_POLICY_REASON_DRMFAIR, "drmfair" },	\
			 { TERN_POLICY_REASON_KERNEL, "kernel" })

TRACE_EVENT(tern_job_submit,
	    TP_PROTO(u32 ctx_tag, u32 seqno, u32 engine, u32 size, u32 bo_count),
	    TP_ARGS(ctx_tag, seqno, engine, size, bo_count),
	    TP_STRUCT__entry(__field(u32, ctx_tag)
			     __field(u32, seqno)
			     __field(u32, engine)
			     __field(u32, size)
			     __field(u32, bo_count)),
	    TP_fast_assign(__entry->ctx_tag = ctx_tag;
			   __entry->seqno = seqno;
			   __entry->engine = engine;
			   __entry->size = size;
			   __entry->bo_count = bo_count;),
	    TP_printk("ctx=%u seqno=%u engine=%u size=%u bos=%u",
		      __entry->ctx_tag, __entry->seqno, __entry->engine,
		      __entry->size, __entry->bo_count)
);

TRACE_EVENT(tern_job_queue,
	    TP_PROTO(u32 engine, u32 ctx_tag, u32 seqno, u32 prio, u32 weight),
	    TP_ARGS(engine, ctx_tag, seqno, prio, weight),
	    TP_STRUCT__entry(__field(u32, engine)
			     __field(u32, ctx_tag)
			     __field(u32, seqno)
			     __field(u32, prio)
			     __field(u32, weight)),
	    TP_fast_assign(__entry->engine = engine;
			   __entry->ctx_tag = ctx_tag;
			   __entry->seqno = seqno;
			   __entry->prio = prio;
			   __entry->weight = weight;),
	    TP_printk("engine=%u ctx=%u seqno=%u prio=%u weight=%u",
		      __entry->engine, __entry->ctx_tag, __entry->seqno,
		      __entry->prio, __entry->weight)
);

TRACE_EVENT(tern_job_run,
	    TP_PROTO(u32 engine, u32 slot, u32 ctx_tag, u32 seqno, u32 hw_seqno,
		     bool resume, u32 reason),
	    TP_ARGS(engine, slot, ctx_tag, seqno, hw_seqno, resume, reason),
	    TP_STRUCT__entry(__field(u32, engine)
			     __field(u32, slot)
			     __field(u32, ctx_tag)
			     __field(u32, seqno)
			     __field(u32, hw_seqno)
			     __field(u32, resume)
			     __field(u32, reason)),
	    TP_fast_assign(__entry->engine = engine;
			   __entry->slot = slot;
			   __entry->ctx_tag = ctx_tag;
			   __entry->seqno = seqno;
			   __entry->hw_seqno = hw_seqno;
			   __entry->resume = resume;
			   __entry->reason = reason;),
	    TP_printk("engine=%u slot=%u ctx=%u seqno=%u hw_seqno=%u resume=%u reason=%s",
		      __entry->engine, __entry->slot, __entry->ctx_tag,
		      __entry->seqno, __entry->hw_seqno, __entry->resume,
		      tern_trace_reason_name(__entry->reason))
);

TRACE_EVENT(tern_job_start,
	    TP_PROTO(u32 engine, u32 slot, u32 ctx_tag, u32 seqno),
	    TP_ARGS(engine, slot, ctx_tag, seqno),
	    TP_STRUCT__entry(__field(u32, engine)
			     __field(u32, slot)
			     __field(u32, ctx_tag)
			     __field(u32, seqno)),
	    TP_fast_assign(__entry->engine = engine;
			   __entry->slot = slot;
			   __entry->ctx_tag = ctx_tag;
			   __entry->seqno = seqno;),
	    TP_printk("engine=%u slot=%u ctx=%u seqno=%u",
		      __entry->engine, __entry->slot, __entry->ctx_tag,
		      __entry->seqno)
);

TRACE_EVENT(tern_job_complete,
	    TP_PROTO(u32 engine, u32 slot, u32 ctx_tag, u32 seqno, u32 outcome,
		     u64 run_ns),
	    TP_ARGS(engine, slot, ctx_tag, seqno, outcome, run_ns),
	    TP_STRUCT__entry(__field(u32, engine)
			     __field(u32, slot)
			     __field(u32, ctx_tag)
			     __field(u32, seqno)
			     __field(u32, outcome)
			     __field(u64, run_ns)),
	    TP_fast_assign(__entry->engine = engine;
			   __entry->slot = slot;
			   __entry->ctx_tag = ctx_tag;
			   __entry->seqno = seqno;
			   __entry->outcome = outcome;
			   __entry->run_ns = run_ns;),
	    TP_printk("engine=%u slot=%u ctx=%u seqno=%u outcome=%u run_ns=%llu",
		      __entry->engine, __entry->slot, __entry->ctx_tag,
		      __entry->seqno, __entry->outcome, __entry->run_ns)
);

TRACE_EVENT(tern_job_signal,
	    TP_PROTO(u32 engine, u32 ctx_tag, u32 seqno, int error),
	    TP_ARGS(engine, ctx_tag, seqno, error),
	    TP_STRUCT__entry(__field(u32, engine)
			     __field(u32, ctx_tag)
			     __field(u32, seqno)
			     __field(int, error)),
	    TP_fast_assign(__entry->engine = engine;
			   __entry->ctx_tag = ctx_tag;
			   __entry->seqno = seqno;
			   __entry->error = error;),
	    TP_printk("engine=%u ctx=%u seqno=%u error=%d",
		      __entry->engine, __entry->ctx_tag, __entry->seqno,
		      __entry->error)
);

TRACE_EVENT(tern_preempt_request,
	    TP_PROTO(u32 engine, u32 ctx_tag, u32 seqno, u32 reason, u64 ran_ns),
	    TP_ARGS(engine, ctx_tag, seqno, reason, ran_ns),
	    TP_STRUCT__entry(__field(u32, engine)
			     __field(u32, ctx_tag)
			     __field(u32, seqno)
			     __field(u32, reason)
			     __field(u64, ran_ns)),
	    TP_fast_assign(__entry->engine = engine;
			   __entry->ctx_tag = ctx_tag;
			   __entry->seqno = seqno;
			   __entry->reason = reason;
			   __entry->ran_ns = ran_ns;),
	    TP_printk("engine=%u ctx=%u seqno=%u reason=%s ran_ns=%llu",
		      __entry->engine, __entry->ctx_tag, __entry->seqno,
		      tern_trace_reason_name(__entry->reason), __entry->ran_ns)
);

TRACE_EVENT(tern_job_preempt,
	    TP_PROTO(u32 engine, u32 ctx_tag, u32 seqno, u64 latency_ns),
	    TP_ARGS(engine, ctx_tag, seqno, latency_ns),
	    TP_STRUCT__entry(__field(u32, engine)
			     __field(u32, ctx_tag)
			     __field(u32, seqno)
			     __field(u64, latency_ns)),
	    TP_fast_assign(__entry->engine = engine;
			   __entry->ctx_tag = ctx_tag;
			   __entry->seqno = seqno;
			   __entry->latency_ns = latency_ns;),
	    TP_printk("engine=%u ctx=%u seqno=%u latency_ns=%llu",
		      __entry->engine, __entry->ctx_tag, __entry->seqno,
		      __entry->latency_ns)
);

TRACE_EVENT(tern_job_fault,
	    TP_PROTO(u32 engine, u32 ctx_tag, u32 seqno, u32 kind, u64 addr,
		     u32 offset),
	    TP_ARGS(engine, ctx_tag, seqno, kind, addr, offset),
	    TP_STRUCT__entry(__field(u32, engine)
			     __field(u32, ctx_tag)
			     __field(u32, seqno)
			     __field(u32, kind)
			     __field(u64, addr)
			     __field(u32, offset)),
	    TP_fast_assign(__entry->engine = engine;
			   __entry->ctx_tag = ctx_tag;
			   __entry->seqno = seqno;
			   __entry->kind = kind;
			   __entry->addr = addr;
			   __entry->offset = offset;),
	    TP_printk("engine=%u ctx=%u seqno=%u kind=%u addr=0x%llx offset=%u",
		      __entry->engine, __entry->ctx_tag, __entry->seqno,
		      __entry->kind, __entry->addr, __entry->offset)
);

TRACE_EVENT(tern_engine_reset,
	    TP_PROTO(u32 engine, u32 ctx_tag, u32 seqno),
	    TP_ARGS(engine, ctx_tag, seqno),
	    TP_STRUCT__entry(__field(u32, engine)
			     __field(u32, ctx_tag)
			     __field(u32, seqno)),
	    TP_fast_assign(__entry->engine = engine;
			   __entry->ctx_tag = ctx_tag;
			   __entry->seqno = seqno;),
	    TP_printk("engine=%u guilty ctx=%u seqno=%u",
		      __entry->engine, __entry->ctx_tag, __entry->seqno)
);

TRACE_EVENT(tern_paging,
	    TP_PROTO(u32 kind, u64 local, u64 bytes, u32 packets, u64 device_ns,
		     int error),
	    TP_ARGS(kind, local, bytes, packets, device_ns, error),
	    TP_STRUCT__entry(__field(u32, kind)
			     __field(u64, local)
			     __field(u64, bytes)
			     __field(u32, packets)
			     __field(u64, device_ns)
			     __field(int, error)),
	    TP_fast_assign(__entry->kind = kind;
			   __entry->local = local;
			   __entry->bytes = bytes;
			   __entry->packets = packets;
			   __entry->device_ns = device_ns;
			   __entry->error = error;),
	    TP_printk("%s local=0x%llx bytes=%llu packets=%u device_ns=%llu error=%d",
		      __print_symbolic(__entry->kind, { 0, "in" }, { 1, "out" },
				       { 2, "clear" }),
		      __entry->local, __entry->bytes, __entry->packets,
		      __entry->device_ns, __entry->error)
);

#endif /* __TERN_TRACE_H__ */

/* This part must be outside the include guard */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE tern_trace
#include <trace/define_trace.h>
