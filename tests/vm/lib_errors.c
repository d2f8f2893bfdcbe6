// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_errors: every submit error libtern reports, from its own checks and
 * from the kernel's validator, with a message that names the packet; a full
 * context (-EAGAIN); a faulting job (-EIO on its fence, the context FAULTED
 * with the fault's kind, place and job, later submits refused) that leaves
 * other contexts working.
 *
 * tern-vm: timeout=120
 */
#include <stdint.h>
#include <tern/tern.h>

#include "tern_test.h"

#define SEC	1000000000ll

static struct tern_cmdbuf *cb;

static int submit_raw(struct tern_context *ctx, const uint32_t *dw, size_t n)
{
	tern_cmdbuf_reset(cb);
	tern_cmd_raw(cb, dw, n);
	return tern_submit(ctx, cb, NULL, 0, NULL);
}

int main(void)
{
	struct tern_context_params copyp = { .engine_class = TERN_ENGINE_COPY };
	struct tern_context *ctx, *copy, *full, *victim, *other;
	const struct tern_device_info *info;
	struct tern_fence *deps[64] = { NULL }, *f = NULL, **queue;
	struct tern_device *dev, *dev2;
	struct tern_bo *bo, *ro;
	struct tern_context_status st;
	struct tern_cmdbuf *big;
	volatile uint32_t *w;
	unsigned int i, n;
	uint64_t va;
	int ret;

	if (tern_device_open(0, &dev) || tern_device_open(0, &dev2) ||
	    tern_context_create(dev, NULL, &ctx) || tern_context_create(dev, &copyp, &copy) ||
	    tern_context_create(dev, NULL, &full) || tern_context_create(dev, NULL, &victim) ||
	    tern_context_create(dev, NULL, &other) || tern_bo_alloc(dev, 8192, 0, &bo) ||
	    tern_bo_alloc(dev, 4096, TERN_BO_DEVICE_READ_ONLY, &ro) ||
	    tern_cmdbuf_create(0, &cb)) {
		tap_ok(false, "set-up: %s", tern_last_error());
		return tap_exit_status();
	}
	info = tern_device_info(dev);
	w = tern_bo_map(bo);
	va = tern_bo_va(bo);

	/* found by the library before the ioctl */
	ret = tern_submit(ctx, cb, NULL, 0, &f);
	tap_ok(ret == -EINVAL && !f && strstr(tern_last_error(), "empty"),
	       "an empty command buffer: -EINVAL, \"%s\"", tern_last_error());
	tern_cmd_write_imm(cb, va + 8192, 1);
	ret = tern_submit(ctx, cb, NULL, 0, NULL);
	tap_ok(ret == -EFAULT && strstr(tern_last_error(), "not inside"),
	       "an address in the guard page: -EFAULT, \"%s\"", tern_last_error());
	tern_cmdbuf_reset(cb);
	tern_cmd_write_imm(cb, va + 8188, 1);
	tern_cmd_copy(cb, va + 4200, va + 4090, 8);
	tern_cmd_vecadd(cb, va, va, va + 4096, 10);
	ret = tern_submit(copy, cb, NULL, 0, NULL);
	tap_ok(ret == -ENOEXEC && strstr(tern_last_error(), "VECADD packet at dword 10"),
	       "VECADD on the copy engine: -ENOEXEC, \"%s\"", tern_last_error());
	ret = tern_submit(ctx, cb, NULL, 0, &f);
	tap_ok(ret == 0 && tern_fence_wait(f, 10 * SEC) == 0, "the same buffer runs on a compute context");
	for (i = 0; i <= info->max_syncs_per_submit && i < 64; i++)
		deps[i] = f;
	ret = tern_submit(ctx, cb, deps, info->max_syncs_per_submit + 1, NULL);
	tap_ok(ret == -EINVAL && strstr(tern_last_error(), "dependencies"),
	       "%u dependencies: -EINVAL, \"%s\"", info->max_syncs_per_submit + 1,
	       tern_last_error());
	{
		struct tern_context *c2;
		struct tern_bo *b2;

		if (!tern_context_create(dev2, NULL, &c2) && !tern_bo_alloc(dev2, 4096, 0, &b2)) {
			tern_cmdbuf_reset(cb);
			tern_cmd_write_imm(cb, tern_bo_va(b2), 1);
			ret = tern_submit(c2, cb, &f, 1, NULL);
			tap_ok(ret == -EINVAL && strstr(tern_last_error(), "sync_file"),
			       "a fence of another open as dependency: -EINVAL, \"%s\"",
			       tern_last_error());
			tern_bo_free(b2);
			tern_context_destroy(c2);
		}
	}
	tern_fence_free(f);
	f = NULL;
	if (!tern_cmdbuf_create(info->buf_size_max + 4 * 0xffff, &big)) {
		while (!tern_cmd_nop(big, 0xffff))
			;
		ret = tern_submit(ctx, big, NULL, 0, NULL);
		tap_ok(ret == -E2BIG && strstr(tern_last_error(), "at most"),
		       "a command buffer above buf_size_max: -E2BIG, \"%s\"", tern_last_error());
		tern_cmdbuf_free(big);
	}

	/* refused by the kernel's validator, with the packet named */
	ret = submit_raw(ctx, (const uint32_t[]){ 0x00010000, 0x00010080 }, 2);
	tap_ok(ret == -EPERM && strstr(tern_last_error(), "privileged") &&
	       strstr(tern_last_error(), "dword 1 (TLB_INVALIDATE"),
	       "a privileged packet: -EPERM, \"%s\"", tern_last_error());
	ret = submit_raw(ctx, (const uint32_t[]){ 0x00020020, 0 }, 2);
	tap_ok(ret == -ENOEXEC && strstr(tern_last_error(), "unknown opcode"),
	       "opcode 0x20: -ENOEXEC, \"%s\"", tern_last_error());
	ret = submit_raw(ctx, (const uint32_t[]){ 0x00030001, 0, 0 }, 3);
	tap_ok(ret == -EBADMSG && strstr(tern_last_error(), "malformed"),
	       "a WRITE_IMM of 3 dwords: -EBADMSG, \"%s\"", tern_last_error());
	ret = submit_raw(ctx, (const uint32_t[]){ 0x00010100 }, 1);
	tap_ok(ret == -EBADMSG, "reserved header bits: -EBADMSG");
	ret = submit_raw(ctx, (const uint32_t[]){ 0x00010000, 0x00010000, 0x00020006, 0 }, 4);
	tap_ok(ret == -EINVAL && strstr(tern_last_error(), "dword 2 (SPIN"),
	       "a zero SPIN: -EINVAL, \"%s\"", tern_last_error());

	/* a full context */
	queue = calloc(info->max_jobs_per_context + 1, sizeof(*queue));
	w[0] = 0;
	tern_cmdbuf_reset(cb);
	tern_cmd_wait_mem(cb, va, 1, 8000000);
	ret = tern_submit(full, cb, NULL, 0, &queue[0]);
	tern_cmdbuf_reset(cb);
	tern_cmd_nop(cb, 1);
	for (n = 1; !ret && n <= info->max_jobs_per_context; n++)
		ret = tern_submit(full, cb, NULL, 0, &queue[n]);
	n--;
	tap_ok(ret == -EAGAIN && n == info->max_jobs_per_context &&
	       strstr(tern_last_error(), "wait for a fence"),
	       "job %u on a context with %u unfinished: -EAGAIN, \"%s\"", n + 1, n,
	       tern_last_error());
	w[0] = 1;
	ret = tern_fence_wait_all(queue, n, 20 * SEC);
	tap_ok(ret == 0, "the %u queued jobs all complete", n);
	ret = tern_submit(full, cb, NULL, 0, NULL);
	tap_ok(ret == 0, "then the context takes work again");
	for (i = 0; i < n; i++)
		tern_fence_free(queue[i]);
	free(queue);

	/* a faulting job: a device write to a read-only buffer */
	tern_cmdbuf_reset(cb);
	tern_cmd_nop(cb, 2);
	tern_cmd_fill(cb, tern_bo_va(ro) + 64, 64, 1);
	ret = tern_submit(victim, cb, NULL, 0, &f);
	tap_ok(ret == 0, "submit a FILL of a device-read-only buffer");
	ret = f ? tern_fence_wait(f, 10 * SEC) : -1;
	tap_ok(ret == -EIO && strstr(tern_last_error(), "faulted"),
	       "its fence: -EIO, \"%s\"", tern_last_error());
	ret = tern_context_status(victim, &st);
	tap_ok(ret == 0 && st.state == TERN_CONTEXT_FAULTED && st.reason == TERN_REASON_FAULT,
	       "the context is FAULTED by a fault (%s)", tern_context_state_name(st.state));
	tap_ok(st.fault_kind == 2 && st.fault_offset == 2 &&
	       st.fault_addr >= tern_bo_va(ro) + 64 && st.fault_addr < tern_bo_va(ro) + 128 &&
	       st.fault_seqno == tern_fence_seqno(f),
	       "fault: kind %u (%s), packet at dword %u, address 0x%llx, job %u",
	       st.fault_kind, tern_fault_kind_name(st.fault_kind), st.fault_offset,
	       (unsigned long long)st.fault_addr, st.fault_seqno);
	tap_ok(strstr(tern_last_error(), "write to a read-only page") != NULL,
	       "tern_context_status explains it: \"%s\"", tern_last_error());
	tern_cmdbuf_reset(cb);
	tern_cmd_write_imm(cb, va, 5);
	ret = tern_submit(victim, cb, NULL, 0, NULL);
	tap_ok(ret == -EIO && strstr(tern_last_error(), "faulted or banned") &&
	       strstr(tern_last_error(), "read-only"),
	       "a later submit: -EIO, \"%s\"", tern_last_error());
	tern_fence_free(f);
	f = NULL;
	ret = tern_submit(other, cb, NULL, 0, &f);
	tap_ok(ret == 0 && tern_fence_wait(f, 10 * SEC) == 0 && w[0] == 5,
	       "another context of the same file still works");
	ret = tern_context_status(other, &st);
	tap_ok(ret == 0 && st.state == TERN_CONTEXT_ACTIVE, "and is ACTIVE");
	tern_fence_free(f);

	tern_cmdbuf_free(cb);
	tern_bo_free(ro);
	tern_bo_free(bo);
	tern_context_destroy(other);
	tern_context_destroy(victim);
	tern_context_destroy(full);
	tern_context_destroy(copy);
	tern_context_destroy(ctx);
	tern_device_close(dev2);
	tern_device_close(dev);
	tap_done();
	return tap_exit_status();
}
