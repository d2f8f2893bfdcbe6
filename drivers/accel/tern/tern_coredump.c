// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * Copyright (c) 2026 The tern authors
 */

#include <linux/devcoredump.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "tern_coredump.h"
#include "tern_device.h"
#include "tern_sched.h"

/**
 * DOC: devcoredump
 *
 * When a job faults or hangs, the scheduler snapshots the engine (registers,
 * both slots, the fault registers) and the first TERN_DUMP_DWORDS dwords of
 * the job's command buffer.  The snapshot is taken with the scheduler's lock
 * held and must not sleep (GFP_NOWAIT: it is skipped under memory pressure);
 * the text is formatted later in a work item and handed to devcoredump,
 * which exposes it in /sys/class/devcoredump/devcdN/data until read or
 * timed out.
 */

#define TERN_DUMP_DWORDS	512
#define TERN_DUMP_ENG_REGS	(TERN_ENG_TLB_MISSES / 4 + 1)
#define TERN_DUMP_SLOT_REGS	(TERN_SLOT_DONE_SEQ / 4 + 1)

struct tern_coredump {
	struct work_struct work;
	struct tern_device *tdev;
	const char *reason;
	u32 engine;
	u32 ctx_tag;
	u32 seqno;
	u32 buf_size;
	u64 clock_ns;
	bool has_fault;
	u64 fault_addr;
	u32 fault_info;
	u32 fault_ctx_tag;
	u32 eng_regs[TERN_DUMP_ENG_REGS];
	u32 slot_regs[TERN_SLOTS_PER_ENGINE][TERN_DUMP_SLOT_REGS];
	u32 ndw;
	u32 cmd[TERN_DUMP_DWORDS];
};

static void tern_coredump_work(struct work_struct *work)
{
	struct tern_coredump *cd = container_of(work, struct tern_coredump, work);
	size_t size = 8192 + (size_t)cd->ndw * 12;
	unsigned int i, s;
	size_t len = 0;
	char *buf;

	buf = vmalloc(size);
	if (!buf)
		goto out;

#define OUT(...) (len += scnprintf(buf + len, size - len, __VA_ARGS__))
	OUT("tern devcoredump: %s\n", cd->reason);
	OUT("engine: %u\ncontext tag: %u\njob seqno: %u\nbuffer bytes: %u\n",
	    cd->engine, cd->ctx_tag, cd->seqno, cd->buf_size);
	OUT("device clock ns: %llu\n", cd->clock_ns);
	if (cd->has_fault)
		OUT("fault: kind %u addr 0x%llx packet dword %u %s ctx tag %u\n",
		    TERN_FAULT_KIND(cd->fault_info), cd->fault_addr,
		    TERN_FAULT_OFFSET(cd->fault_info),
		    cd->fault_info & TERN_FAULT_WRITE ? "write" : "read",
		    cd->fault_ctx_tag);
	OUT("engine registers:\n");
	for (i = 0; i < TERN_DUMP_ENG_REGS; i++)
		OUT("  0x%02x: 0x%08x\n", i * 4, cd->eng_regs[i]);
	for (s = 0; s < TERN_SLOTS_PER_ENGINE; s++) {
		OUT("slot %u registers:\n", s);
		for (i = 0; i < TERN_DUMP_SLOT_REGS; i++)
			OUT("  0x%02x: 0x%08x\n", i * 4, cd->slot_regs[s][i]);
	}
	OUT("command buffer (first %u dwords):\n", cd->ndw);
	for (i = 0; i < cd->ndw; i++)
		OUT("%s%08x%s", i % 8 ? "" : "  ", cd->cmd[i],
		    i % 8 == 7 || i + 1 == cd->ndw ? "\n" : " ");
#undef OUT

	dev_coredumpv(cd->tdev->drm.dev, buf, len, GFP_KERNEL);
out:
	kfree(cd);
}

/**
 * tern_coredump_capture() - snapshot an engine after a fault or hang
 * @sched: the scheduler of the engine, its lock held, the device present
 * @job: the guilty job, its buffer still allocated
 * @reason: "fault" or "hang"
 * @fault: the latched fault registers, or NULL
 *
 * Does not sleep.  The dump is produced asynchronously; nothing happens if
 * memory is short.
 */
void tern_coredump_capture(struct tern_sched *sched, struct tern_sched_job *job,
			   const char *reason, const struct tern_fault_info *fault)
{
	struct tern_engine *eng = sched->eng;
	struct tern_coredump *cd;
	unsigned int i, s;

	cd = kzalloc(sizeof(*cd), GFP_NOWAIT | __GFP_NOWARN);
	if (!cd)
		return;

	cd->tdev = sched->tdev;
	cd->reason = reason;
	cd->engine = eng->id;
	cd->ctx_tag = job->ctx->tag;
	cd->seqno = job->seqno;
	cd->buf_size = job->own_size;
	cd->clock_ns = tern_device_clock_ns(sched->tdev);
	if (fault) {
		cd->has_fault = true;
		cd->fault_addr = fault->addr;
		cd->fault_info = fault->info;
		cd->fault_ctx_tag = fault->ctx_tag;
	}
	/* the dump reads latching counters: no other latched read between */
	spin_lock(&sched->tdev->latch_lock);
	for (i = 0; i < TERN_DUMP_ENG_REGS; i++)
		cd->eng_regs[i] = tern_eng_read(eng, i * 4);
	for (s = 0; s < TERN_SLOTS_PER_ENGINE; s++)
		for (i = 0; i < TERN_DUMP_SLOT_REGS; i++)
			cd->slot_regs[s][i] =
				tern_eng_read(eng, TERN_SLOT_BASE(s) + i * 4);
	spin_unlock(&sched->tdev->latch_lock);
	cd->ndw = min_t(u32, job->own_size / 4, TERN_DUMP_DWORDS);
	memcpy(cd->cmd, job->cmd, cd->ndw * 4);

	/*
	 * Formatted on a workqueue of its own, which PCI remove flushes: not
	 * on the scheduler's, which must not allocate (it signals fences).
	 */
	INIT_WORK(&cd->work, tern_coredump_work);
	queue_work(sched->tdev->dump_wq, &cd->work);
}
