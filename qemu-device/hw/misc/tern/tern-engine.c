/*
 * tern compute accelerator: engines, slots, preemption and engine registers
 *
 * Copyright (c) 2026 The tern authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Each engine is a host thread that sleeps on its condition variable until
 * a doorbell, a preemption request or a reset wakes it.  The register side
 * (vCPU, BQL held) only changes state under the engine lock and signals the
 * thread; the thread does all the work, dropping the lock while it runs a
 * buffer and taking it at every preemption point ("checkpoint") to look at
 * requests, pace itself against the cost model and count progress.  While
 * the VM is stopped (tern_engine_pause()) it parks at those points, and
 * before it starts a run or writes its end to memory.
 */

#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/bswap.h"
#include "qemu/bitops.h"
#include "qemu/log.h"
#include "qemu/rcu.h"
#include "tern.h"

/* Where done records go; 0: none (bits 3:0 are ignored, section 7.1). */
static uint64_t tern_done_record_base(TernEngine *eng)
{
    return eng->done_record & ~(uint64_t)(TERN_DONE_RECORD_ALIGN - 1);
}

/*
 * Set status bits and send the engine message they call for (section 6);
 * @completed: a slot went DONE/COMPLETED, which with done records sends a
 * message every time.  A message that follows done records not yet
 * written is sent by tern_engine_flush_locked(), after them.  Lock held.
 */
static void tern_engine_raise(TernEngine *eng, uint32_t bits, bool completed)
{
    bool send = bits & ~eng->irq_status & ~eng->irq_mask;

    if (completed && tern_done_record_base(eng) &&
        !(eng->irq_mask & TERN_ENG_IRQ_SLOT_DONE)) {
        send = true;
    }
    eng->irq_status |= bits;
    if (!send) {
        return;
    }
    if (eng->done_out_count) {
        eng->done_out_msg |= bits;
    } else {
        tern_send_msg(eng->dev, eng, eng->index);
    }
}

/* A slot goes DONE: its registers, and its done record to write.  Lock held. */
static void tern_slot_done(TernEngine *eng, int slot, uint32_t outcome,
                           uint64_t run_ns)
{
    TernSlot *sl = &eng->slot[slot];

    sl->state = TERN_SLOT_STATE_DONE;
    sl->outcome = outcome;
    sl->run_ns = run_ns;
    sl->done_seq = ++eng->done_count;
    if (tern_done_record_base(eng)) {
        TernDoneOut *o = &eng->done_out[eng->done_out_count++];

        o->addr = tern_done_record_base(eng) + slot * TERN_DONE_RECORD_SIZE;
        o->run_ns = run_ns;
        o->seqno = sl->seqno;
        o->info = outcome | (sl->done_seq << TERN_DONE_INFO_SEQ_SHIFT);
    }
}

/*
 * Write the done records made while the lock was held, INFO last, then
 * send the message that waited for them.  Called at the end of every
 * locked section that may make a slot DONE; drops the lock for the DMA,
 * as the engine does for all its DMA.  A reset or a mask written
 * meanwhile drops the message (sections 6 and 15).
 */
static void tern_engine_flush_locked(TernEngine *eng)
{
    TernDoneOut out[TERN_SLOTS_PER_ENGINE];
    unsigned n = eng->done_out_count, i;
    uint32_t msg = eng->done_out_msg, err = eng->done_out_err;

    if (!n) {
        return;
    }
    memcpy(out, eng->done_out, n * sizeof(out[0]));
    eng->done_out_count = 0;
    eng->done_out_msg = 0;
    eng->done_out_err = 0;
    /* an engine reset waits for this write (tern_engine_do_reset()) */
    eng->flushing++;
    qemu_mutex_unlock(&eng->lock);
    for (i = 0; i < n; i++) {
        uint8_t head[TERN_DONE_OFF_INFO];

        stq_le_p(head + TERN_DONE_OFF_RUN_NS, out[i].run_ns);
        stl_le_p(head + TERN_DONE_OFF_SEQNO, out[i].seqno);
        if (!tern_dma(eng->dev, out[i].addr, head, sizeof(head), true) ||
            !tern_dma_stl(eng->dev, out[i].addr + TERN_DONE_OFF_INFO,
                          out[i].info)) {
            qemu_log_mask(LOG_GUEST_ERROR, "tern: engine %u: done record "
                          "at 0x%" PRIx64 " failed\n", eng->index,
                          out[i].addr);
        }
    }
    qemu_mutex_lock(&eng->lock);
    if (!--eng->flushing) {
        qemu_cond_broadcast(&eng->parked);
    }
    if ((msg & ~eng->irq_mask) && !eng->reset_req && !eng->exit_req) {
        tern_send_msg(eng->dev, eng, eng->index);
    }
    if (err) {
        tern_raise_error(eng->dev, eng, err);
    }
}

/* The RUNNING slot has ended: start the PENDING one, or cancel it. */
static void tern_engine_next(TernEngine *eng, bool cancel)
{
    int p = eng->pending;

    eng->running = -1;
    if (p < 0) {
        return;
    }
    eng->pending = -1;
    if (cancel) {
        tern_slot_done(eng, p, TERN_OUTCOME_CANCELLED, 0);
    } else {
        eng->slot[p].state = TERN_SLOT_STATE_RUNNING;
        eng->running = p;
        eng->run_start_ns = tern_now_ns();
    }
}

TernStep tern_fault(TernRun *run, uint32_t kind, uint64_t addr, bool write)
{
    run->fault_kind = kind;
    run->fault_addr = addr;
    run->fault_write = write;
    return TERN_STOP_FAULT;
}

void tern_charge(TernEngine *eng, TernRun *run, uint64_t ns)
{
    run->model_ns += ns * eng->dev->time_scale;
}

/*
 * While the VM is stopped, wait without touching guest memory until it runs
 * again or a reset or teardown is requested.  Engine lock held.
 */
static void tern_engine_park(TernEngine *eng)
{
    bool working = eng->working;

    if (!eng->pause_req) {
        return;
    }
    eng->working = false;
    qemu_cond_broadcast(&eng->parked);
    while (eng->pause_req && !eng->reset_req && !eng->exit_req) {
        qemu_cond_wait(&eng->cond, &eng->lock);
    }
    eng->working = working;
}

/* Requests that stop a run at a preemption point.  Engine lock held. */
static TernStep tern_check_requests(TernEngine *eng, TernRun *run)
{
    if (eng->reset_req || eng->exit_req) {
        return TERN_STOP_ABORT;
    }
    if (eng->inject & (1u << TERN_INJECT_FAULT)) {
        eng->inject &= ~(1u << TERN_INJECT_FAULT);
        return tern_fault(run, TERN_FAULT_INJECTED, run->offset, false);
    }
    if (eng->inject & (1u << TERN_INJECT_HANG)) {
        eng->inject &= ~(1u << TERN_INJECT_HANG);
        return TERN_STOP_HANG;
    }
    if (eng->preempt_req && run->resume) {
        return TERN_STOP_PREEMPT;
    }
    return TERN_CONTINUE;
}

/*
 * Wait while the run is ahead of its modelled time by the pacing slack or
 * more (to_end: until it is not ahead at all).  Engine lock held; the wait
 * is cut short by requests.
 */
static TernStep tern_pace(TernEngine *eng, TernRun *run, bool to_end)
{
    for (;;) {
        int64_t elapsed;
        int64_t ahead;
        TernStep step;

        tern_engine_park(eng);
        elapsed = tern_now_ns() - run->start_ns;
        if ((int64_t)run->model_ns < elapsed) {
            run->model_ns = elapsed;    /* a slow host earns no credit */
        }
        ahead = run->model_ns - elapsed;
        if (ahead <= 0 || (!to_end && ahead < TERN_PACE_SLACK_NS)) {
            return TERN_CONTINUE;
        }
        if (ahead < 1000000) {
            qemu_mutex_unlock(&eng->lock);
            g_usleep(ahead / 1000);
            qemu_mutex_lock(&eng->lock);
        } else {
            qemu_cond_timedwait(&eng->cond, &eng->lock, ahead / 1000000);
        }
        if (eng->reset_req || eng->exit_req) {
            return TERN_STOP_ABORT;
        }
        if (!to_end) {
            /* the chunk is done: a request may stop the run right here */
            step = tern_check_requests(eng, run);
            if (step != TERN_CONTINUE) {
                return step;
            }
        }
    }
}

/*
 * A preemption point: between packets and at chunk boundaries inside long
 * packets.  Returns TERN_CONTINUE (and counts progress) or why to stop.
 */
TernStep tern_checkpoint(TernEngine *eng, TernRun *run)
{
    TernStep step;

    qemu_mutex_lock(&eng->lock);
    tern_engine_park(eng);
    eng->cur_offset = run->offset;
    step = tern_check_requests(eng, run);
    if (step == TERN_CONTINUE) {
        step = tern_pace(eng, run, false);
    }
    if (step == TERN_CONTINUE) {
        eng->progress++;
    }
    qemu_mutex_unlock(&eng->lock);
    return step;
}

/*
 * For packets whose chunks are long (a GEMM row can be 16M multiply-adds):
 * has a reset or teardown been requested?  Parks while the VM is stopped.
 * Called without the lock, between two accesses to memory.
 */
bool tern_engine_aborting(TernEngine *eng)
{
    bool abort;

    qemu_mutex_lock(&eng->lock);
    tern_engine_park(eng);
    abort = eng->reset_req || eng->exit_req;
    qemu_mutex_unlock(&eng->lock);
    return abort;
}

static bool tern_write_resume_record(TernEngine *eng, TernRun *run,
                                     uint64_t run_ns)
{
    uint8_t rec[TERN_RESUME_RECORD_SIZE] = { 0 };

    stl_le_p(rec + TERN_RESUME_OFF_MAGIC, TERN_RESUME_MAGIC);
    stl_le_p(rec + TERN_RESUME_OFF_SEQNO, run->seqno);
    stl_le_p(rec + TERN_RESUME_OFF_OFFSET, run->offset);
    stl_le_p(rec + TERN_RESUME_OFF_PROGRESS, run->pkt_progress);
    stq_le_p(rec + TERN_RESUME_OFF_ACC, run->acc);
    stq_le_p(rec + TERN_RESUME_OFF_ELAPSED_NS, run->elapsed_base + run_ns);
    return tern_dma(eng->dev, run->resume, rec, sizeof(rec), true);
}

/* Report the end of a run.  Engine lock held. */
static void tern_engine_finish(TernEngine *eng, TernRun *run, TernStep step)
{
    uint64_t run_ns = tern_now_ns() - eng->run_start_ns;
    uint32_t bits = TERN_ENG_IRQ_SLOT_DONE;
    bool preempt = eng->preempt_req;

    if (eng->reset_req || eng->exit_req) {
        return;     /* abandoned: the reset clears everything */
    }
    switch (step) {
    case TERN_STOP_ABORT:
        return;
    case TERN_STOP_HANG:
        eng->hung = true;
        return;
    case TERN_CONTINUE:
    case TERN_STOP_PREEMPT:
        tern_slot_done(eng, run->slot, step == TERN_CONTINUE ?
                       TERN_OUTCOME_COMPLETED : TERN_OUTCOME_PREEMPTED,
                       run_ns);
        eng->busy_ns += run_ns;
        eng->preempt_req = false;
        tern_engine_next(eng, preempt);
        tern_engine_raise(eng, bits | (preempt ? TERN_ENG_IRQ_PREEMPT_DONE
                                               : 0),
                          step == TERN_CONTINUE);
        return;
    case TERN_STOP_FAULT:
        tern_slot_done(eng, run->slot, TERN_OUTCOME_FAULTED, run_ns);
        eng->busy_ns += run_ns;
        eng->preempt_req = false;
        tern_engine_next(eng, true);
        eng->fault_addr = run->fault_addr;
        eng->fault_info = run->fault_kind | (run->slot << 8) |
                          (run->fault_write ? TERN_FAULT_WRITE : 0) |
                          ((run->offset / 4) << 12);
        eng->fault_ctx_tag = run->ctx_tag;
        /* The engine vector stays quiet: the error vector reports it. */
        eng->irq_status |= bits | TERN_ENG_IRQ_FAULT |
                           (preempt ? TERN_ENG_IRQ_PREEMPT_DONE : 0);
        if (eng->done_out_count) {
            /* after the done records, as every message (section 6) */
            eng->done_out_err |= TERN_ERR_IRQ_ENGINE(eng->index);
        } else {
            tern_raise_error(eng->dev, eng, TERN_ERR_IRQ_ENGINE(eng->index));
        }
        return;
    }
}

/* Run the RUNNING slot.  Called and returns with the engine lock held. */
static void tern_engine_run(TernEngine *eng)
{
    TernState *s = eng->dev;
    TernSlot *sl = &eng->slot[eng->running];
    TernRun run = {
        .slot = eng->running,
        .buf = sl->buf,
        .buf_size = sl->buf_size,
        .root = s->single_use ? tern_single_root(s) : sl->root,
        .ctx_tag = sl->ctx_tag,
        .seqno = sl->seqno,
        .flags = sl->flags,
        .resume = sl->resume,
        .start_ns = eng->run_start_ns,
    };
    uint64_t writeback = eng->writeback & ~3ull;
    TernStep step;

    run.root &= TERN_PTE_ADDR_MASK | TERN_PTE_LOCAL;
    eng->working = true;
    qemu_mutex_unlock(&eng->lock);

    step = tern_exec_buffer(eng, &run);

    qemu_mutex_lock(&eng->lock);
    if (step == TERN_CONTINUE) {
        step = tern_pace(eng, &run, true);
        writeback = eng->writeback & ~3ull;
    }
    if (step == TERN_CONTINUE || step == TERN_STOP_PREEMPT) {
        /* the end of the run goes to memory: not while the VM is stopped */
        tern_engine_park(eng);
        if (eng->reset_req || eng->exit_req) {
            step = TERN_STOP_ABORT;
        }
    }
    qemu_mutex_unlock(&eng->lock);

    if (step == TERN_CONTINUE && writeback) {
        uint8_t seqno[4];

        stl_le_p(seqno, run.seqno);
        if (!tern_dma(s, writeback, seqno, sizeof(seqno), true)) {
            qemu_log_mask(LOG_GUEST_ERROR, "tern: engine %u: seqno "
                          "writeback to 0x%" PRIx64 " failed\n",
                          eng->index, writeback);
        }
    } else if (step == TERN_STOP_PREEMPT &&
               !tern_write_resume_record(eng, &run,
                                         tern_now_ns() - run.start_ns)) {
        step = tern_fault(&run, TERN_FAULT_BUS_ERROR, run.resume, true);
    }

    qemu_mutex_lock(&eng->lock);
    tern_engine_finish(eng, &run, step);
    tern_engine_flush_locked(eng);
    eng->working = false;
    qemu_cond_broadcast(&eng->parked);
}

/* Engine lock held. */
static void tern_engine_do_reset(TernEngine *eng)
{
    bool device_reset = eng->device_reset;

    /*
     * A vCPU may still be writing the done record of a slot it cancelled:
     * no memory access of the engine's after IDLE (section 15).
     */
    while (eng->flushing) {
        qemu_cond_wait(&eng->parked, &eng->lock);
    }

    if (eng->running >= 0) {
        eng->busy_ns += tern_now_ns() - eng->run_start_ns;
    }
    memset(eng->slot, 0, sizeof(eng->slot));
    eng->running = -1;
    eng->pending = -1;
    eng->preempt_req = false;
    eng->hung = false;
    eng->inject = 0;
    eng->irq_status = 0;
    eng->fault_addr = 0;
    eng->fault_info = 0;
    eng->fault_ctx_tag = 0;
    eng->cur_offset = 0;
    qatomic_set(&eng->tlb_flush_req, false);
    tern_tlb_flush(eng);
    if (device_reset) {
        eng->irq_mask = ~0u;
        eng->writeback = 0;
        eng->done_record = 0;
        eng->progress = 0;
        eng->busy_ns = 0;
        eng->done_count = 0;
        qatomic_set(&eng->tlb_misses, 0);
    }
    eng->reset_req = false;
    eng->device_reset = false;
    tern_engine_reset_done(eng->dev, device_reset);
}

static void *tern_engine_thread(void *opaque)
{
    TernEngine *eng = opaque;

    rcu_register_thread();
    qemu_mutex_lock(&eng->lock);
    while (!eng->exit_req) {
        if (eng->reset_req && !eng->device_reset &&
            (eng->inject & (1u << TERN_INJECT_RESET_STUCK))) {
            /*
             * Abandoned, as a reset abandons work, but RESETTING until
             * a device reset ends it (docs/hardware.md 13).
             */
            qemu_cond_wait(&eng->cond, &eng->lock);
        } else if (eng->reset_req) {
            tern_engine_do_reset(eng);
        } else if (eng->pause_req) {
            qemu_cond_wait(&eng->cond, &eng->lock);
        } else if (eng->running >= 0 && !eng->hung) {
            tern_engine_run(eng);
        } else if (eng->running < 0 && eng->preempt_req) {
            /* Nothing to preempt: the request is served at once. */
            eng->preempt_req = false;
            tern_engine_raise(eng, TERN_ENG_IRQ_PREEMPT_DONE, false);
        } else {
            qemu_cond_wait(&eng->cond, &eng->lock);
        }
    }
    qemu_mutex_unlock(&eng->lock);
    rcu_unregister_thread();
    return NULL;
}

void tern_engine_init(TernState *s, unsigned index, bool paused)
{
    TernEngine *eng = &s->engine[index];
    char name[16];

    eng->dev = s;
    eng->index = index;
    eng->copy = index == s->compute_engines;
    eng->running = -1;
    eng->pending = -1;
    eng->irq_mask = ~0u;
    eng->pause_req = paused;
    qemu_mutex_init(&eng->lock);
    qemu_cond_init(&eng->cond);
    qemu_cond_init(&eng->parked);
    snprintf(name, sizeof(name), "tern-eng%u", index);
    qemu_thread_create(&eng->thread, name, tern_engine_thread, eng,
                       QEMU_THREAD_JOINABLE);
}

void tern_engine_fini(TernEngine *eng)
{
    qemu_mutex_lock(&eng->lock);
    eng->exit_req = true;
    qemu_cond_broadcast(&eng->cond);
    qemu_mutex_unlock(&eng->lock);
    qemu_thread_join(&eng->thread);
    qemu_cond_destroy(&eng->parked);
    qemu_cond_destroy(&eng->cond);
    qemu_mutex_destroy(&eng->lock);
}

/*
 * The VM stops (@pause) or runs again.  On a stop, returns once the engine
 * has parked: from then on it leaves guest memory alone until it runs
 * again.  It parks within a chunk of work (docs/hardware.md 11), a
 * millisecond or so, since the engine thread never waits for the BQL.
 */
void tern_engine_pause(TernEngine *eng, bool pause)
{
    qemu_mutex_lock(&eng->lock);
    eng->pause_req = pause;
    qemu_cond_broadcast(&eng->cond);
    while (pause && eng->working) {
        qemu_cond_wait(&eng->parked, &eng->lock);
    }
    qemu_mutex_unlock(&eng->lock);
}

void tern_engine_request_reset(TernEngine *eng, bool device_reset)
{
    TernState *s = eng->dev;

    qemu_mutex_lock(&eng->lock);
    if (device_reset && !eng->device_reset) {
        qemu_mutex_lock(&s->lock);
        s->resets_pending++;
        qemu_mutex_unlock(&s->lock);
        eng->device_reset = true;
    }
    eng->reset_req = true;
    qemu_cond_broadcast(&eng->cond);
    qemu_mutex_unlock(&eng->lock);
}

bool tern_engine_inject(TernEngine *eng, unsigned op)
{
    bool ok;

    qemu_mutex_lock(&eng->lock);
    ok = !eng->reset_req;
    if (ok && op == TERN_INJECT_NONE) {
        eng->inject = 0;
    } else if (ok) {
        eng->inject |= 1u << op;
        qemu_cond_broadcast(&eng->cond);
    }
    qemu_mutex_unlock(&eng->lock);
    return ok;
}

bool tern_engine_inject_armed(TernEngine *eng)
{
    bool armed;

    qemu_mutex_lock(&eng->lock);
    armed = eng->inject || eng->hung;
    qemu_mutex_unlock(&eng->lock);
    return armed;
}

/* ---- Registers ----------------------------------------------------------- */

static uint32_t tern_engine_state(TernEngine *eng)
{
    if (eng->reset_req) {
        return TERN_ENG_STATE_RESETTING;
    }
    if (eng->running < 0) {
        return TERN_ENG_STATE_IDLE;
    }
    return (eng->preempt_req ? TERN_ENG_STATE_PREEMPTING
                             : TERN_ENG_STATE_RUNNING) | (eng->running << 4);
}

static void tern_latch(TernState *s, hwaddr hi_addr, uint64_t val)
{
    s->latch_valid = true;
    s->latch_off = hi_addr;
    s->latch_val = val >> 32;
}

static bool tern_slot_read(TernEngine *eng, TernSlot *sl, hwaddr off,
                           hwaddr addr, uint32_t *val)
{
    switch (off) {
    case TERN_SLOT_BUF_LO:
        *val = sl->buf;
        return true;
    case TERN_SLOT_BUF_HI:
        *val = sl->buf >> 32;
        return true;
    case TERN_SLOT_BUF_SIZE:
        *val = sl->buf_size;
        return true;
    case TERN_SLOT_ROOT_LO:
        *val = sl->root;
        return true;
    case TERN_SLOT_ROOT_HI:
        *val = sl->root >> 32;
        return true;
    case TERN_SLOT_CTX_TAG:
        *val = sl->ctx_tag;
        return true;
    case TERN_SLOT_SEQNO:
        *val = sl->seqno;
        return true;
    case TERN_SLOT_FLAGS:
        *val = sl->flags;
        return true;
    case TERN_SLOT_RESUME_LO:
        *val = sl->resume;
        return true;
    case TERN_SLOT_RESUME_HI:
        *val = sl->resume >> 32;
        return true;
    case TERN_SLOT_STATE:
        *val = sl->state | (sl->outcome << 4);
        return true;
    case TERN_SLOT_ACK:
        *val = 0;
        return true;
    case TERN_SLOT_RUN_NS_LO:
        tern_latch(eng->dev, addr + 4, sl->run_ns);
        *val = sl->run_ns;
        return true;
    case TERN_SLOT_RUN_NS_HI:
        *val = sl->run_ns >> 32;
        return true;
    case TERN_SLOT_DONE_SEQ:
        *val = sl->done_seq;
        return true;
    }
    return false;
}

static bool tern_engine_read_locked(TernEngine *eng, hwaddr off, hwaddr addr,
                                    uint32_t *val)
{
    uint64_t busy;

    if (off >= TERN_SLOT_BASE(0)) {
        unsigned slot = (off - TERN_SLOT_BASE(0)) / 0x40;

        return tern_slot_read(eng, &eng->slot[slot],
                              (off - TERN_SLOT_BASE(0)) % 0x40, addr, val);
    }
    switch (off) {
    case TERN_ENG_CAPS:
        *val = eng->copy ? TERN_ENG_CLASS_COPY : TERN_ENG_CLASS_COMPUTE;
        return true;
    case TERN_ENG_STATUS:
        *val = tern_engine_state(eng);
        return true;
    case TERN_ENG_DOORBELL:
    case TERN_ENG_PREEMPT:
    case TERN_ENG_RESET:
    case TERN_ENG_TLB_INVALIDATE:
        *val = 0;
        return true;
    case TERN_ENG_IRQ_STATUS:
        *val = eng->irq_status;
        return true;
    case TERN_ENG_IRQ_MASK:
        *val = eng->irq_mask;
        return true;
    case TERN_ENG_WRITEBACK_LO:
        *val = eng->writeback;
        return true;
    case TERN_ENG_WRITEBACK_HI:
        *val = eng->writeback >> 32;
        return true;
    case TERN_ENG_PROGRESS:
        *val = eng->progress;
        return true;
    case TERN_ENG_CUR_OFFSET:
        *val = eng->cur_offset;
        return true;
    case TERN_ENG_BUSY_NS_LO:
    case TERN_ENG_BUSY_NS_HI:
        busy = eng->busy_ns;
        if (eng->running >= 0 && !eng->reset_req) {
            busy += tern_now_ns() - eng->run_start_ns;
        }
        if (off == TERN_ENG_BUSY_NS_LO) {
            tern_latch(eng->dev, addr + 4, busy);
            *val = busy;
        } else {
            *val = busy >> 32;
        }
        return true;
    case TERN_ENG_FAULT_ADDR_LO:
        *val = eng->fault_addr;
        return true;
    case TERN_ENG_FAULT_ADDR_HI:
        *val = eng->fault_addr >> 32;
        return true;
    case TERN_ENG_FAULT_INFO:
        *val = eng->fault_info;
        return true;
    case TERN_ENG_FAULT_CTX_TAG:
        *val = eng->fault_ctx_tag;
        return true;
    case TERN_ENG_TLB_MISSES:
        *val = qatomic_read(&eng->tlb_misses);
        return true;
    case TERN_ENG_DONE_RECORD_LO:
    case TERN_ENG_DONE_RECORD_HI:
        if (!eng->dev->done_records) {
            return false;
        }
        *val = off == TERN_ENG_DONE_RECORD_LO ? eng->done_record
                                              : eng->done_record >> 32;
        return true;
    }
    return false;
}

uint32_t tern_engine_read(TernEngine *eng, hwaddr off, hwaddr addr)
{
    uint32_t val = 0;
    bool ok;

    qemu_mutex_lock(&eng->lock);
    ok = tern_engine_read_locked(eng, off, addr, &val);
    qemu_mutex_unlock(&eng->lock);
    if (!ok) {
        tern_reg_error(eng->dev, addr, "read of an unknown register");
    }
    return val;
}

/*
 * After a fault the engine starts nothing until the driver has cleared
 * ENG_IRQ_STATUS.FAULT (docs/hardware.md 10): a doorbell rung meanwhile,
 * before the driver saw the fault, leaves its slot PENDING.  Engine lock
 * held.
 */
static bool tern_engine_halted(TernEngine *eng)
{
    return eng->irq_status & TERN_ENG_IRQ_FAULT;
}

/* FAULT was cleared: start the slot queued while halted.  Lock held. */
static void tern_engine_unhalt(TernEngine *eng)
{
    if (tern_engine_halted(eng) || eng->running >= 0 || eng->pending < 0) {
        return;
    }
    eng->running = eng->pending;
    eng->pending = -1;
    eng->slot[eng->running].state = TERN_SLOT_STATE_RUNNING;
    eng->run_start_ns = tern_now_ns();
    qemu_cond_broadcast(&eng->cond);
}

/*
 * A preemption request while halted is served at once, before the write
 * completes: the slot queued while halted is cancelled.  Lock held.
 */
static void tern_engine_preempt_halted(TernEngine *eng)
{
    uint32_t bits = TERN_ENG_IRQ_PREEMPT_DONE;

    if (eng->pending >= 0) {
        tern_slot_done(eng, eng->pending, TERN_OUTCOME_CANCELLED, 0);
        eng->pending = -1;
        bits |= TERN_ENG_IRQ_SLOT_DONE;
    }
    tern_engine_raise(eng, bits, false);
}

static const char *tern_doorbell(TernEngine *eng, uint32_t val)
{
    TernSlot *sl;

    if (val >= TERN_SLOTS_PER_ENGINE) {
        return "DOORBELL: no such slot";
    }
    sl = &eng->slot[val];
    if (sl->state != TERN_SLOT_STATE_FREE) {
        return "DOORBELL: slot not FREE";
    }
    sl->outcome = TERN_OUTCOME_NONE;
    sl->run_ns = 0;
    sl->done_seq = 0;
    if (eng->running < 0 && !tern_engine_halted(eng)) {
        sl->state = TERN_SLOT_STATE_RUNNING;
        eng->running = val;
        eng->run_start_ns = tern_now_ns();
        qemu_cond_broadcast(&eng->cond);
    } else {
        if (eng->pending >= 0) {
            /* only possible while halted: the other slot is queued */
            return "DOORBELL: a slot is already queued (engine halted)";
        }
        sl->state = TERN_SLOT_STATE_PENDING;
        eng->pending = val;
    }
    return NULL;
}

static const char *tern_slot_write(TernEngine *eng, TernSlot *sl, hwaddr off,
                                   uint32_t val)
{
    if (off == TERN_SLOT_ACK) {
        if (val != 1) {
            return "ACK: bad value";
        }
        if (sl->state != TERN_SLOT_STATE_DONE) {
            return "ACK: slot not DONE";
        }
        sl->state = TERN_SLOT_STATE_FREE;
        sl->outcome = TERN_OUTCOME_NONE;
        return NULL;
    }
    switch (off) {
    case TERN_SLOT_STATE:
    case TERN_SLOT_RUN_NS_LO:
    case TERN_SLOT_RUN_NS_HI:
    case TERN_SLOT_DONE_SEQ:
        return "write to a read-only register";
    case TERN_SLOT_BUF_LO:
    case TERN_SLOT_BUF_HI:
    case TERN_SLOT_BUF_SIZE:
    case TERN_SLOT_ROOT_LO:
    case TERN_SLOT_ROOT_HI:
    case TERN_SLOT_CTX_TAG:
    case TERN_SLOT_SEQNO:
    case TERN_SLOT_FLAGS:
    case TERN_SLOT_RESUME_LO:
    case TERN_SLOT_RESUME_HI:
        break;
    default:
        return "write to an unknown register";
    }
    if (sl->state != TERN_SLOT_STATE_FREE) {
        return "slot register written while the slot is not FREE";
    }
    switch (off) {
    case TERN_SLOT_BUF_LO:
        sl->buf = deposit64(sl->buf, 0, 32, val);
        break;
    case TERN_SLOT_BUF_HI:
        sl->buf = deposit64(sl->buf, 32, 32, val);
        break;
    case TERN_SLOT_BUF_SIZE:
        sl->buf_size = val;
        break;
    case TERN_SLOT_ROOT_LO:
        sl->root = deposit64(sl->root, 0, 32, val);
        break;
    case TERN_SLOT_ROOT_HI:
        sl->root = deposit64(sl->root, 32, 32, val);
        break;
    case TERN_SLOT_CTX_TAG:
        sl->ctx_tag = val;
        break;
    case TERN_SLOT_SEQNO:
        sl->seqno = val;
        break;
    case TERN_SLOT_FLAGS:
        if (val & ~(TERN_SLOT_FLAG_PRIVILEGED | TERN_SLOT_FLAG_RESUME)) {
            return "FLAGS: unknown bits";
        }
        sl->flags = val;
        break;
    case TERN_SLOT_RESUME_LO:
        sl->resume = deposit64(sl->resume, 0, 32, val);
        break;
    case TERN_SLOT_RESUME_HI:
        sl->resume = deposit64(sl->resume, 32, 32, val);
        break;
    }
    return NULL;
}

static const char *tern_engine_write_locked(TernEngine *eng, hwaddr off,
                                            uint32_t val)
{
    uint32_t unmasked;

    if (eng->reset_req) {
        return "engine register written while RESETTING";
    }
    if (off >= TERN_SLOT_BASE(0)) {
        unsigned slot = (off - TERN_SLOT_BASE(0)) / 0x40;

        return tern_slot_write(eng, &eng->slot[slot],
                               (off - TERN_SLOT_BASE(0)) % 0x40, val);
    }
    switch (off) {
    case TERN_ENG_DOORBELL:
        return tern_doorbell(eng, val);
    case TERN_ENG_PREEMPT:
        if (val != 1) {
            return "PREEMPT: bad value";
        }
        if (tern_engine_halted(eng) && eng->running < 0) {
            tern_engine_preempt_halted(eng);
            return NULL;
        }
        if (eng->running < 0) {
            /*
             * Idle: served at once, before the write completes
             * (docs/hardware.md 11.1).  Left for the engine thread, the
             * request could still be outstanding when a DOORBELL starts
             * a slot, and would preempt a run the driver programmed
             * after it saw this request served.
             */
            tern_engine_raise(eng, TERN_ENG_IRQ_PREEMPT_DONE, false);
            return NULL;
        }
        eng->preempt_req = true;
        qemu_cond_broadcast(&eng->cond);
        return NULL;
    case TERN_ENG_RESET:
        if (val != 1) {
            return "ENG_RESET: bad value";
        }
        eng->reset_req = true;
        qemu_cond_broadcast(&eng->cond);
        return NULL;
    case TERN_ENG_TLB_INVALIDATE:
        if (val != 1) {
            return "TLB_INVALIDATE: bad value";
        }
        qatomic_set(&eng->tlb_flush_req, true);
        return NULL;
    case TERN_ENG_IRQ_STATUS:
        eng->irq_status &= ~val;
        tern_engine_unhalt(eng);
        return NULL;
    case TERN_ENG_IRQ_MASK:
        unmasked = eng->irq_status & eng->irq_mask & ~val;
        eng->irq_mask = val;
        if (unmasked) {
            tern_send_msg(eng->dev, eng, eng->index);
        }
        return NULL;
    case TERN_ENG_WRITEBACK_LO:
        eng->writeback = deposit64(eng->writeback, 0, 32, val);
        return NULL;
    case TERN_ENG_WRITEBACK_HI:
        eng->writeback = deposit64(eng->writeback, 32, 32, val);
        return NULL;
    case TERN_ENG_DONE_RECORD_LO:
    case TERN_ENG_DONE_RECORD_HI:
        if (!eng->dev->done_records) {
            return "write to an unknown register";
        }
        eng->done_record = deposit64(eng->done_record,
                                     off == TERN_ENG_DONE_RECORD_LO ? 0 : 32,
                                     32, val);
        return NULL;
    case TERN_ENG_CAPS:
    case TERN_ENG_STATUS:
    case TERN_ENG_PROGRESS:
    case TERN_ENG_CUR_OFFSET:
    case TERN_ENG_BUSY_NS_LO:
    case TERN_ENG_BUSY_NS_HI:
    case TERN_ENG_FAULT_ADDR_LO:
    case TERN_ENG_FAULT_ADDR_HI:
    case TERN_ENG_FAULT_INFO:
    case TERN_ENG_FAULT_CTX_TAG:
    case TERN_ENG_TLB_MISSES:
        return "write to a read-only register";
    }
    return "write to an unknown register";
}

void tern_engine_write(TernEngine *eng, hwaddr off, hwaddr addr, uint32_t val)
{
    const char *err;

    qemu_mutex_lock(&eng->lock);
    err = tern_engine_write_locked(eng, off, val);
    tern_engine_flush_locked(eng);
    qemu_mutex_unlock(&eng->lock);
    if (err) {
        tern_reg_error(eng->dev, addr, err);
    }
}
