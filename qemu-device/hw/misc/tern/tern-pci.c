/*
 * tern compute accelerator: PCI function, global registers and resets
 *
 * Copyright (c) 2026 The tern authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * See docs/hardware.md for the specification.
 */

#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "hw/pci/msix.h"
#include "hw/pci/pcie.h"
#include "hw/qdev-properties.h"
#include "hw/resettable.h"
#include "migration/vmstate.h"
#include "system/dma.h"
#include "tern.h"

#define TERN_LOCAL_MEM_MIN      (1 * MiB)
#define TERN_LOCAL_MEM_MAX      (16 * GiB)
#define TERN_TIME_SCALE_MAX     1000000
#define TERN_PCIE_CAP_OFFSET    0x80

int64_t tern_now_ns(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
}

uint64_t tern_clock(TernState *s)
{
    return tern_now_ns() - qatomic_read_i64(&s->clock_base);
}

/*
 * Every access the engines make to bus addresses goes through here: it is
 * restricted to RAM, so that no engine thread ever dispatches MMIO (which
 * would need the BQL) and a stray address fails cleanly.
 */
static const MemTxAttrs tern_dma_attrs = { .memory = 1 };

bool tern_dma_valid(TernState *s, uint64_t addr, uint64_t len, bool write)
{
    return addr + len >= addr &&
           address_space_access_valid(pci_get_address_space(PCI_DEVICE(s)),
                                      addr, len, write, tern_dma_attrs);
}

bool tern_dma(TernState *s, uint64_t addr, void *buf, uint64_t len,
              bool write)
{
    if (!tern_dma_valid(s, addr, len, write)) {
        return false;
    }
    return pci_dma_rw(PCI_DEVICE(s), addr, buf, len,
                      write ? DMA_DIRECTION_FROM_DEVICE
                            : DMA_DIRECTION_TO_DEVICE,
                      tern_dma_attrs) == MEMTX_OK;
}

/*
 * One little-endian 64-bit word with one access: a page-table entry that a
 * PHYS_COPY writes while another engine's walk reads it is seen whole, old
 * or new (docs/hardware.md 8.2).
 */
bool tern_dma_ldq(TernState *s, uint64_t addr, uint64_t *val)
{
    if (!tern_dma_valid(s, addr, 8, false)) {
        return false;
    }
    return ldq_le_pci_dma(PCI_DEVICE(s), addr, val, tern_dma_attrs) == MEMTX_OK;
}

bool tern_dma_stq(TernState *s, uint64_t addr, uint64_t val)
{
    if (!tern_dma_valid(s, addr, 8, true)) {
        return false;
    }
    return stq_le_pci_dma(PCI_DEVICE(s), addr, val, tern_dma_attrs) == MEMTX_OK;
}

/* One little-endian 32-bit word with one access: a done record's INFO. */
bool tern_dma_stl(TernState *s, uint64_t addr, uint32_t val)
{
    if (!tern_dma_valid(s, addr, 4, true)) {
        return false;
    }
    return stl_le_pci_dma(PCI_DEVICE(s), addr, val, tern_dma_attrs) == MEMTX_OK;
}

/* ---- Interrupts ---------------------------------------------------------- */

static void tern_irq_bh(void *opaque)
{
    TernState *s = opaque;
    PCIDevice *pdev = PCI_DEVICE(s);
    uint32_t pending = qatomic_xchg(&s->irq_pending, 0);

    while (pending) {
        unsigned vector = ctz32(pending);

        pending &= pending - 1;
        msix_notify(pdev, vector);
    }
}

/*
 * Send a message on @vector, unless the DROP_IRQ injection of @eng (the
 * engine the message is about, or NULL) swallows it.  Called with @eng's
 * lock held when @eng is given.
 */
void tern_send_msg(TernState *s, TernEngine *eng, unsigned vector)
{
    if (eng && (eng->inject & (1u << TERN_INJECT_DROP_IRQ))) {
        eng->inject &= ~(1u << TERN_INJECT_DROP_IRQ);
        return;
    }
    qatomic_or(&s->irq_pending, 1u << vector);
    qemu_bh_schedule(s->irq_bh);
}

/* Set bits of ERR_IRQ_STATUS; @eng (locked) is the engine it is about. */
void tern_raise_error(TernState *s, TernEngine *eng, uint32_t bits)
{
    bool send;

    qemu_mutex_lock(&s->lock);
    send = bits & ~s->err_irq_status & ~s->err_irq_mask;
    s->err_irq_status |= bits;
    qemu_mutex_unlock(&s->lock);
    if (send) {
        tern_send_msg(s, eng, s->num_engines);
    }
}

void tern_reg_error(TernState *s, hwaddr addr, const char *why)
{
    qemu_log_mask(LOG_GUEST_ERROR, "tern: register 0x%04" HWADDR_PRIx
                  ": %s\n", addr, why);
    qemu_mutex_lock(&s->lock);
    s->reg_error_addr = addr;
    qemu_mutex_unlock(&s->lock);
    tern_raise_error(s, NULL, TERN_ERR_IRQ_REG_ERROR);
}

uint64_t tern_single_root(TernState *s)
{
    uint64_t root;

    qemu_mutex_lock(&s->lock);
    root = s->single_root;
    qemu_mutex_unlock(&s->lock);
    return root;
}

/* ---- Device reset -------------------------------------------------------- */

/* Called by an engine thread (engine lock held) when its reset is done. */
void tern_engine_reset_done(TernState *s, bool device_reset)
{
    if (!device_reset) {
        return;
    }
    qemu_mutex_lock(&s->lock);
    assert(s->resets_pending > 0);
    if (--s->resets_pending == 0) {
        qemu_cond_broadcast(&s->reset_done);
    }
    qemu_mutex_unlock(&s->lock);
}

/*
 * Start a device reset: global registers go back to their reset values at
 * once, the engines reset in their threads; STATUS.READY is 0 until the
 * last one is done.
 */
static void tern_start_device_reset(TernState *s)
{
    unsigned i;

    /* Engines first: from here on they report nothing of their old work. */
    for (i = 0; i < s->num_engines; i++) {
        tern_engine_request_reset(&s->engine[i], true);
    }
    qemu_mutex_lock(&s->lock);
    s->err_irq_status = 0;
    s->err_irq_mask = ~0u;
    s->reg_error_addr = 0;
    s->single_root = 0;
    qemu_mutex_unlock(&s->lock);
    s->scratch = 0;
    s->latch_valid = false;
    qatomic_set_i64(&s->clock_base, tern_now_ns());
    qatomic_set(&s->irq_pending, 0);
}

static bool tern_ready(TernState *s)
{
    bool ready;

    qemu_mutex_lock(&s->lock);
    ready = s->resets_pending == 0;
    qemu_mutex_unlock(&s->lock);
    return ready;
}

static void tern_reset_hold(Object *obj, ResetType type)
{
    TernState *s = TERN(obj);

    tern_start_device_reset(s);
    /* Engine threads never wait for the BQL, so waiting here is safe. */
    qemu_mutex_lock(&s->lock);
    while (s->resets_pending) {
        qemu_cond_wait(&s->reset_done, &s->lock);
    }
    qemu_mutex_unlock(&s->lock);
}

/* ---- Registers ----------------------------------------------------------- */

static bool tern_is_engine_reg(TernState *s, hwaddr addr)
{
    return addr >= TERN_ENGINE_BASE(0) &&
           addr < TERN_ENGINE_BASE(s->num_engines);
}

static uint64_t tern_regs_read(void *opaque, hwaddr addr, unsigned size)
{
    TernState *s = opaque;
    uint64_t val;

    if (s->latch_valid && s->latch_off == addr) {
        s->latch_valid = false;
        return s->latch_val;
    }
    if (tern_is_engine_reg(s, addr)) {
        TernEngine *eng = &s->engine[(addr - TERN_ENGINE_BASE(0)) >> 8];

        return tern_engine_read(eng, addr & 0xff, addr);
    }

    switch (addr) {
    case TERN_REG_ID:
        return TERN_ID_MAGIC;
    case TERN_REG_VERSION:
        return s->done_records ? TERN_HW_VERSION : TERN_HW_VERSION_1_0;
    case TERN_REG_CAPS:
        return (s->single_use ? TERN_CAPS_SINGLE_USE : 0) |
               (s->fault_inject ? TERN_CAPS_FAULT_INJECT : 0) |
               (s->done_records ? TERN_CAPS_DONE_RECORDS : 0);
    case TERN_REG_ENGINES:
        return s->num_engines | (s->compute_engines << 8);
    case TERN_REG_LOCAL_MEM_SIZE_LO:
        return (uint32_t)s->local_mem_size;
    case TERN_REG_LOCAL_MEM_SIZE_HI:
        return s->local_mem_size >> 32;
    case TERN_REG_CLOCK_LO:
        val = tern_clock(s);
        s->latch_valid = true;
        s->latch_off = TERN_REG_CLOCK_HI;
        s->latch_val = val >> 32;
        return (uint32_t)val;
    case TERN_REG_CLOCK_HI:
        return tern_clock(s) >> 32;
    case TERN_REG_RESET:
        return 0;
    case TERN_REG_STATUS:
        return tern_ready(s) ? TERN_STATUS_READY : 0;
    case TERN_REG_BUF_SIZE_MAX:
        return TERN_BUF_SIZE_MAX;
    case TERN_REG_TLB_ENTRIES:
        return TERN_TLB_SIZE;
    case TERN_REG_SCRATCH:
        return s->scratch;
    case TERN_REG_ERR_IRQ_STATUS:
    case TERN_REG_ERR_IRQ_MASK:
    case TERN_REG_REG_ERROR_ADDR:
        qemu_mutex_lock(&s->lock);
        val = addr == TERN_REG_ERR_IRQ_STATUS ? s->err_irq_status :
              addr == TERN_REG_ERR_IRQ_MASK ? s->err_irq_mask :
              s->reg_error_addr;
        qemu_mutex_unlock(&s->lock);
        return val;
    case TERN_REG_SINGLE_ROOT_LO:
    case TERN_REG_SINGLE_ROOT_HI:
        if (!s->single_use) {
            break;
        }
        val = tern_single_root(s);
        return addr == TERN_REG_SINGLE_ROOT_LO ? (uint32_t)val : val >> 32;
    case TERN_REG_INJECT:
    case TERN_REG_INJECT_STATUS:
        if (!s->fault_inject) {
            break;
        }
        if (addr == TERN_REG_INJECT) {
            return 0;
        }
        val = 0;
        for (unsigned i = 0; i < s->num_engines; i++) {
            if (tern_engine_inject_armed(&s->engine[i])) {
                val |= 1u << i;
            }
        }
        return val;
    }
    tern_reg_error(s, addr, "read of an unknown register");
    return 0;
}

static void tern_err_mask_write(TernState *s, uint32_t val)
{
    bool send;

    qemu_mutex_lock(&s->lock);
    send = s->err_irq_status & s->err_irq_mask & ~val;
    s->err_irq_mask = val;
    qemu_mutex_unlock(&s->lock);
    if (send) {
        tern_send_msg(s, NULL, s->num_engines);
    }
}

static void tern_regs_write(void *opaque, hwaddr addr, uint64_t val64,
                            unsigned size)
{
    TernState *s = opaque;
    uint32_t val = val64;

    if (tern_is_engine_reg(s, addr)) {
        TernEngine *eng = &s->engine[(addr - TERN_ENGINE_BASE(0)) >> 8];

        tern_engine_write(eng, addr & 0xff, addr, val);
        return;
    }

    switch (addr) {
    case TERN_REG_RESET:
        if (val != TERN_RESET_MAGIC) {
            tern_reg_error(s, addr, "bad RESET value");
            return;
        }
        tern_start_device_reset(s);
        return;
    case TERN_REG_SCRATCH:
        s->scratch = val;
        return;
    case TERN_REG_ERR_IRQ_STATUS:
        qemu_mutex_lock(&s->lock);
        s->err_irq_status &= ~val;
        qemu_mutex_unlock(&s->lock);
        return;
    case TERN_REG_ERR_IRQ_MASK:
        tern_err_mask_write(s, val);
        return;
    case TERN_REG_SINGLE_ROOT_LO:
    case TERN_REG_SINGLE_ROOT_HI:
        if (!s->single_use) {
            break;
        }
        qemu_mutex_lock(&s->lock);
        if (addr == TERN_REG_SINGLE_ROOT_LO) {
            s->single_root = deposit64(s->single_root, 0, 32, val);
        } else {
            s->single_root = deposit64(s->single_root, 32, 32, val);
        }
        qemu_mutex_unlock(&s->lock);
        return;
    case TERN_REG_INJECT: {
        unsigned e = val & 0xff, op = (val >> 8) & 0xff;

        if (!s->fault_inject) {
            break;
        }
        if (e >= s->num_engines || op > TERN_INJECT_OP_MAX || (val >> 16)) {
            tern_reg_error(s, addr, "bad INJECT value");
            return;
        }
        if (!tern_engine_inject(&s->engine[e], op)) {
            tern_reg_error(s, addr, "INJECT on a resetting engine");
        }
        return;
    }
    case TERN_REG_ID:
    case TERN_REG_VERSION:
    case TERN_REG_CAPS:
    case TERN_REG_ENGINES:
    case TERN_REG_LOCAL_MEM_SIZE_LO:
    case TERN_REG_LOCAL_MEM_SIZE_HI:
    case TERN_REG_CLOCK_LO:
    case TERN_REG_CLOCK_HI:
    case TERN_REG_STATUS:
    case TERN_REG_BUF_SIZE_MAX:
    case TERN_REG_TLB_ENTRIES:
    case TERN_REG_REG_ERROR_ADDR:
        tern_reg_error(s, addr, "write to a read-only register");
        return;
    case TERN_REG_INJECT_STATUS:
        if (!s->fault_inject) {
            break;
        }
        tern_reg_error(s, addr, "write to a read-only register");
        return;
    }
    tern_reg_error(s, addr, "write to an unknown register");
}

static const MemoryRegionOps tern_regs_ops = {
    .read = tern_regs_read,
    .write = tern_regs_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
        .unaligned = false,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

/* ---- VM state ------------------------------------------------------------ */

/*
 * A stopped VM's memory does not change: the engines park at their next
 * preemption point (their work resumes where it stopped when the VM runs
 * again).  Device time goes on (docs/hardware.md 12).
 */
static void tern_vm_state_change(void *opaque, bool running, RunState state)
{
    TernState *s = opaque;
    unsigned i;

    for (i = 0; i < s->num_engines; i++) {
        tern_engine_pause(&s->engine[i], !running);
    }
}

/* ---- QOM / PCI ----------------------------------------------------------- */

static void tern_realize(PCIDevice *pdev, Error **errp)
{
    TernState *s = TERN(pdev);
    unsigned i;

    if (s->compute_engines < 1 ||
        s->compute_engines > TERN_MAX_ENGINES - 1) {
        error_setg(errp, "tern: compute-engines must be 1 to %d",
                   TERN_MAX_ENGINES - 1);
        return;
    }
    if (s->local_mem_size < TERN_LOCAL_MEM_MIN ||
        s->local_mem_size > TERN_LOCAL_MEM_MAX ||
        !is_power_of_2(s->local_mem_size)) {
        error_setg(errp, "tern: local-mem-size must be a power of two "
                   "from 1 MiB to 16 GiB");
        return;
    }
    if (s->time_scale < 1 || s->time_scale > TERN_TIME_SCALE_MAX) {
        error_setg(errp, "tern: time-scale must be 1 to %d",
                   TERN_TIME_SCALE_MAX);
        return;
    }
    s->num_engines = s->compute_engines + 1;

    pci_config_set_interrupt_pin(pdev->config, 0);

    memory_region_init_io(&s->regs, OBJECT(s), &tern_regs_ops, s,
                          "tern-regs", TERN_REGS_SIZE);
    pci_register_bar(pdev, TERN_BAR_REGS, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->regs);

    if (!memory_region_init_ram(&s->local_mem, OBJECT(s), "tern-local-mem",
                                s->local_mem_size, errp)) {
        return;
    }
    s->local_ptr = memory_region_get_ram_ptr(&s->local_mem);
    pci_register_bar(pdev, TERN_BAR_LOCAL_MEM,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH, &s->local_mem);

    if (pci_bus_is_express(pci_get_bus(pdev))) {
        int ret = pcie_endpoint_cap_init(pdev, TERN_PCIE_CAP_OFFSET);

        assert(ret > 0);
    }
    if (msix_init_exclusive_bar(pdev, s->num_engines + 1, TERN_BAR_MSIX,
                                errp)) {
        return;
    }
    for (i = 0; i <= s->num_engines; i++) {
        msix_vector_use(pdev, i);
    }

    qemu_mutex_init(&s->lock);
    qemu_cond_init(&s->reset_done);
    s->err_irq_mask = ~0u;
    s->irq_bh = qemu_bh_new_guarded(tern_irq_bh, s,
                                    &DEVICE(pdev)->mem_reentrancy_guard);
    qatomic_set_i64(&s->clock_base, tern_now_ns());
    for (i = 0; i < s->num_engines; i++) {
        tern_engine_init(s, i, !runstate_is_running());
    }
    s->vm_state = qdev_add_vm_change_state_handler(DEVICE(pdev),
                                                   tern_vm_state_change, s);
}

static void tern_exit(PCIDevice *pdev)
{
    TernState *s = TERN(pdev);
    unsigned i;

    qemu_del_vm_change_state_handler(s->vm_state);
    for (i = 0; i < s->num_engines; i++) {
        tern_engine_fini(&s->engine[i]);
    }
    qemu_bh_delete(s->irq_bh);
    qemu_cond_destroy(&s->reset_done);
    qemu_mutex_destroy(&s->lock);
    msix_unuse_all_vectors(pdev);
    msix_uninit_exclusive_bar(pdev);
}

static void tern_instance_init(Object *obj)
{
    /* A hybrid device: PCI Express on an express bus, PCI elsewhere. */
    PCI_DEVICE(obj)->cap_present |= QEMU_PCI_CAP_EXPRESS;
}

static const VMStateDescription tern_vmstate = {
    .name = "tern",
    .unmigratable = 1,
};

static const Property tern_properties[] = {
    DEFINE_PROP_UINT32("compute-engines", TernState, compute_engines, 2),
    DEFINE_PROP_SIZE("local-mem-size", TernState, local_mem_size, 256 * MiB),
    DEFINE_PROP_UINT32("time-scale", TernState, time_scale, 1),
    DEFINE_PROP_BOOL("single-use", TernState, single_use, false),
    DEFINE_PROP_BOOL("fault-inject", TernState, fault_inject, true),
    DEFINE_PROP_BOOL("done-records", TernState, done_records, true),
};

static void tern_class_init(ObjectClass *oc, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(oc);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(oc);
    ResettableClass *rc = RESETTABLE_CLASS(oc);

    k->realize = tern_realize;
    k->exit = tern_exit;
    k->vendor_id = TERN_PCI_VENDOR_ID;
    k->device_id = TERN_PCI_DEVICE_ID;
    k->revision = TERN_PCI_REVISION;
    k->class_id = TERN_PCI_CLASS;
    rc->phases.hold = tern_reset_hold;
    dc->desc = "tern compute accelerator";
    dc->vmsd = &tern_vmstate;
    device_class_set_props(dc, tern_properties);
    set_bit(DEVICE_CATEGORY_MISC, dc->categories);
}

static const TypeInfo tern_info = {
    .name = TYPE_TERN,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(TernState),
    .instance_init = tern_instance_init,
    .class_init = tern_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static void tern_register_types(void)
{
    type_register_static(&tern_info);
}

type_init(tern_register_types)
