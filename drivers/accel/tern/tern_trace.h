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

TRACE_EVENT(tern_job_run,
	    TP_PROTO(u32 engine, u32 slot, u32 ctx_tag, u32 seqno, u32 hw_seqno),
	    TP_ARGS(engine, slot, ctx_tag, seqno, hw_seqno),
	    TP_STRUCT__entry(__field(u32, engine)
			     __field(u32, slot)
			     __field(u32, ctx_tag)
			     __field(u32, seqno)
			     __field(u32, hw_seqno)),
	    TP_fast_assign(__entry->engine = engine;
			   __entry->slot = slot;
			   __entry->ctx_tag = ctx_tag;
			   __entry->seqno = seqno;
			   __entry->hw_seqno = hw_seqno;),
	    TP_printk("engine=%u slot=%u ctx=%u seqno=%u hw_seqno=%u",
		      __entry->engine, __entry->slot, __entry->ctx_tag,
		      __entry->seqno, __entry->hw_seqno)
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

#endif /* __TERN_TRACE_H__ */

/* This part must be outside the include guard */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE tern_trace
#include <trace/define_trace.h>
