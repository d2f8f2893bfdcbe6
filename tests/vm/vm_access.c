// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * vm_access: the device reaches memory exactly as the address space says.
 * Jobs write through read-write mappings; a write through a read-only
 * mapping or to an unmapped VA faults with that kind and address and
 * changes nothing; an unmap waits for the job that is still using the
 * range; after the unmap the old pages are unreachable even though the
 * engine's TLB had them (it was invalidated); a new BO mapped at the same
 * VA receives the writes.
 *
 * tern-vm: timeout=120
 */
#include <time.h>

#include "mem_test.h"

#define VA_RW	0x100000ull
#define VA_RO	0x200000ull
#define VA_NONE	0x300000ull

#define FAULT_NOT_PRESENT	1	/* docs/hardware.md section 10 */
#define FAULT_WRITE_PROTECT	2

static int fd;

static uint32_t new_context(void)
{
	struct drm_tern_context_create c = {
		.priority = DRM_TERN_PRIORITY_NORMAL,
		.engine_class = DRM_TERN_ENGINE_CLASS_COMPUTE,
	};

	return mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &c) ? 0 : c.handle;
}

/* Submit @ndw dwords on @ctx with a new out-syncobj; returns it, or 0. */
static uint32_t run(uint32_t ctx, const uint32_t *dw, uint32_t ndw)
{
	struct drm_tern_sync out = { 0 };
	struct drm_tern_submit s = {
		.context = ctx,
		.cmdbuf = (uintptr_t)dw,
		.cmdbuf_size = ndw * 4,
		.out_syncs = (uintptr_t)&out,
		.out_sync_count = 1,
	};
	int ret;

	if (drmSyncobjCreate(fd, 0, &out.handle))
		return 0;
	ret = mem_ioctl(fd, DRM_IOCTL_TERN_SUBMIT, &s);
	if (ret) {
		tap_diag("submit: %s", strerror(-ret));
		drmSyncobjDestroy(fd, out.handle);
		return 0;
	}
	return out.handle;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* Wait for a job's syncobj up to @ms; true if it signalled. */
static bool wait_job(uint32_t sync, int ms)
{
	return sync && !drmSyncobjWait(fd, &sync, 1, now_ns() + ms * 1000000ll,
				       DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL);
}

static void fault_of(uint32_t ctx, uint32_t *state, uint32_t *kind, uint64_t *addr)
{
	struct drm_tern_context_get_state st = { .handle = ctx };

	*state = *kind = 0;
	*addr = 0;
	if (!mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_GET_STATE, &st)) {
		*state = st.state;
		*kind = st.fault_kind;
		*addr = st.fault_addr;
	}
}

static int write_imm(uint32_t *dw, uint64_t va, uint32_t value)
{
	dw[0] = TERN_PKT_HEADER(TERN_OP_WRITE_IMM, TERN_PKT_DWORDS_WRITE_IMM);
	dw[1] = (uint32_t)va;
	dw[2] = (uint32_t)(va >> 32);
	dw[3] = value;
	return TERN_PKT_DWORDS_WRITE_IMM;
}

/* A job that writes @value at @va must fault with @kind at @va. */
static void expect_fault(const char *what, uint64_t va, uint32_t want_kind)
{
	uint32_t ctx = new_context(), dw[4], sync, state, kind;
	uint64_t addr;

	write_imm(dw, va, 0xbad);
	sync = ctx ? run(ctx, dw, 4) : 0;
	tap_ok(wait_job(sync, 10000), "%s: the job finishes", what);
	fault_of(ctx, &state, &kind, &addr);
	tap_ok(state == DRM_TERN_CONTEXT_FAULTED && kind == want_kind && addr == va,
	       "%s: the context is faulted with kind %u at %#llx (state %u kind %u addr %#llx)",
	       what, want_kind, (unsigned long long)va, state, kind,
	       (unsigned long long)addr);
}

int main(void)
{
	uint32_t h_a, h_b, h_c, ctx, sync, state, kind, dw[16], n;
	uint32_t *a, *b, *c;
	uint64_t size, addr;
	int64_t t0, t1;

	fd = tern_test_open();
	if (fd < 0 || bo_create(fd, 16 * PAGE4K, &h_a) || bo_create(fd, PAGE4K, &h_b) ||
	    bo_create(fd, PAGE4K, &h_c)) {
		tap_ok(false, "open the device and create three BOs");
		return tap_exit_status();
	}
	a = bo_mmap(fd, h_a, &size);
	b = bo_mmap(fd, h_b, &size);
	c = bo_mmap(fd, h_c, &size);
	if (!a || !b || !c) {
		tap_ok(false, "mmap the BOs");
		return tap_exit_status();
	}
	tap_errno(vm_map(fd, h_a, VA_RW, 0, 16 * PAGE4K), 0, "map BO a read-write");
	tap_errno(vm_bind(fd, DRM_TERN_VM_BIND_OP_MAP, DRM_TERN_VM_BIND_READ_ONLY, h_b,
			  VA_RO, 0, PAGE4K), 0, "map BO b read-only");

	/* writes through a read-write mapping land in the BO */
	ctx = new_context();
	tap_ok(ctx != 0, "create a context");
	n = write_imm(dw, VA_RW, 0xa1);
	n += write_imm(dw + n, VA_RW + 15 * PAGE4K + 4, 0xa2);
	sync = run(ctx, dw, n);
	tap_ok(wait_job(sync, 10000), "a job writing through the mapping finishes");
	tap_ok(a[0] == 0xa1 && a[15 * 1024 + 1] == 0xa2,
	       "its writes are in BO a (%#x, %#x)", a[0], a[15 * 1024 + 1]);

	/* read-only and unmapped */
	expect_fault("write to the read-only mapping", VA_RO, FAULT_WRITE_PROTECT);
	tap_ok(b[0] == 0, "BO b is unchanged (%#x)", b[0]);
	expect_fault("write to an unmapped VA", VA_NONE, FAULT_NOT_PRESENT);
	expect_fault("write to VA 0", 0, FAULT_NOT_PRESENT);

	/* An unmap waits for the job that still uses the range. */
	n = 0;
	dw[n++] = TERN_PKT_HEADER(TERN_OP_SPIN, TERN_PKT_DWORDS_SPIN);
	dw[n++] = 500000;
	n += write_imm(dw + n, VA_RW + 4, 0xb2);
	sync = run(ctx, dw, n);
	t0 = now_ns();
	tap_errno(vm_unmap(fd, VA_RW, 16 * PAGE4K), 0, "unmap BO a while a job uses it");
	t1 = now_ns();
	tap_ok(wait_job(sync, 0), "the job had finished when the unmap returned (after %lld ms)",
	       (long long)(t1 - t0) / 1000000);
	fault_of(ctx, &state, &kind, &addr);
	tap_ok(state == DRM_TERN_CONTEXT_ACTIVE && a[1] == 0xb2,
	       "the job completed its write before the unmap (state %u, a[1] %#x)",
	       state, a[1]);

	/*
	 * The engine's TLB held BO a's page; after the unmap a job on the same
	 * context (same engine) must fault instead of reaching it.
	 */
	write_imm(dw, VA_RW + 8, 0xc3);
	sync = run(ctx, dw, 4);
	tap_ok(wait_job(sync, 10000), "a job writing to the unmapped range finishes");
	fault_of(ctx, &state, &kind, &addr);
	tap_ok(state == DRM_TERN_CONTEXT_FAULTED && kind == FAULT_NOT_PRESENT &&
	       addr == VA_RW + 8 && a[2] == 0,
	       "it faults NOT_PRESENT and the old page is untouched (kind %u, a[2] %#x)",
	       kind, a[2]);

	/* A new BO at the same VA gets the writes; the old one does not. */
	tap_errno(vm_map(fd, h_c, VA_RW, 0, PAGE4K), 0, "map BO c at the same VA");
	ctx = new_context();
	write_imm(dw, VA_RW, 0xd4);
	sync = ctx ? run(ctx, dw, 4) : 0;
	tap_ok(wait_job(sync, 10000), "a job writing to the new mapping finishes");
	tap_ok(c[0] == 0xd4 && a[0] == 0xa1, "the write is in BO c, not in BO a (%#x, %#x)",
	       c[0], a[0]);

	close(fd);
	tap_done();
	return tap_exit_status();
}
