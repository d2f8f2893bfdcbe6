// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_submit: jobs run and their results land in memory (WRITE_IMM, FILL,
 * GEMM through BOs mapped with VM_BIND); the out-syncobj signals after the
 * job; seqnos count from 1; rewriting the command buffer after the ioctl
 * changes nothing; every submit error has its documented errno, and a
 * refused buffer reports the offset of the bad packet.
 *
 * tern-vm: timeout=120
 */
#include <math.h>

#include "core_test.h"

#define VA_DATA		0x100000ull
#define VA_A		0x200000ull
#define VA_B		0x300000ull
#define VA_C		0x400000ull
#define GM		24
#define GN		20
#define GK		28

static int submit_raw(int fd, struct drm_tern_submit *s)
{
	return mem_ioctl(fd, DRM_IOCTL_TERN_SUBMIT, s);
}

int main(void)
{
	static uint32_t dw[(1 << 20) / 4 + 16];
	struct drm_tern_get_info info;
	struct drm_tern_submit s, r;
	struct drm_tern_sync sync;
	struct drm_tern_context_get_state st;
	uint32_t ctx = 0, data_bo = 0, a_bo, b_bo, c_bo, so, bos[4];
	uint32_t *data, n, i, j, p, bad;
	float *A, *B, *C;
	int fd, ret;

	tap_plan(37);
	fd = tern_test_open();
	if (!tap_ok(fd >= 0, "open the device") || core_get_info(fd, &info))
		return tap_exit_status();
	if (!tap_errno(ctx_create(fd, 1, 0, 0, &ctx), 0, "create a context") ||
	    !tap_errno(core_bo(fd, 64 * 1024, VA_DATA, &data_bo, (void **)&data),
		       0, "a 64 KiB BO mapped at 1 MiB"))
		return tap_exit_status();
	so = syncobj_new(fd);
	bos[0] = data_bo;

	/* WRITE_IMM */
	memset(data, 0, 64 * 1024);
	n = 0;
	pkt_write_imm(dw, &n, VA_DATA, 0xcafe0001);
	pkt_write_imm(dw, &n, VA_DATA + 8, 0xcafe0002);
	ret = submit(fd, ctx, dw, n, bos, 1, 0, so, &r);
	tap_ok(!ret && r.seqno == 1, "submit WRITE_IMM (seqno %u)", r.seqno);
	/* rewrite the user's buffer at once: the job must not see it */
	dw[3] = 0xbad;
	dw[7] = 0xbad;
	tap_errno(syncobj_wait(fd, so, 5000), 0, "the out-syncobj signals");
	tap_ok(data[0] == 0xcafe0001 && data[2] == 0xcafe0002,
	       "the values are in memory, not the rewritten ones (0x%x 0x%x)",
	       data[0], data[2]);

	/* FILL */
	drmSyncobjReset(fd, &so, 1);
	n = 0;
	pkt_fill(dw, &n, VA_DATA + 4096, 8192, 0x5a5a1234);
	ret = submit(fd, ctx, dw, n, bos, 1, 0, so, &r);
	tap_ok(!ret && r.seqno == 2, "submit FILL (seqno %u)", r.seqno);
	tap_errno(syncobj_wait(fd, so, 5000), 0, "FILL done");
	bad = 0;
	for (i = 0; i < 8192 / 4; i++)
		bad += data[1024 + i] != 0x5a5a1234;
	tap_ok(!bad && data[1024 + 2048] == 0 && data[1023] == 0,
	       "FILL filled exactly its range (%u wrong)", bad);

	/* GEMM, compared with the CPU loop in the same order */
	if (core_bo(fd, 4096, VA_A, &a_bo, (void **)&A) ||
	    core_bo(fd, 4096, VA_B, &b_bo, (void **)&B) ||
	    core_bo(fd, 4096, VA_C, &c_bo, (void **)&C)) {
		tap_ok(false, "GEMM buffers");
		return tap_exit_status();
	}
	for (i = 0; i < GM * GK; i++)
		A[i] = (float)((i * 7) % 13) / 3.0f - 1.5f;
	for (i = 0; i < GK * GN; i++)
		B[i] = (float)((i * 5) % 11) / 7.0f - 0.25f;
	memset(C, 0, 4096);
	drmSyncobjReset(fd, &so, 1);
	n = 0;
	pkt_gemm(dw, &n, VA_A, VA_B, VA_C, GM, GN, GK);
	bos[1] = a_bo;
	bos[2] = b_bo;
	bos[3] = c_bo;
	tap_errno(submit(fd, ctx, dw, n, bos, 4, 0, so, NULL), 0, "submit GEMM");
	tap_errno(syncobj_wait(fd, so, 5000), 0, "GEMM done");
	bad = 0;
	for (i = 0; i < GM; i++)
		for (j = 0; j < GN; j++) {
			float acc = 0.0f;

			for (p = 0; p < GK; p++)
				acc += A[i * GK + p] * B[p * GN + j];
			if (memcmp(&acc, &C[i * GN + j], 4) && !bad++)
				tap_diag("C[%u][%u] = %a, CPU %a", i, j,
					 C[i * GN + j], acc);
		}
	tap_ok(!bad, "GEMM is bit-exact with the CPU (%u of %u differ)", bad,
	       GM * GN);

	tap_ok(!ctx_state(fd, ctx, &st) && st.jobs_submitted == 3 &&
	       st.jobs_completed == 3 && st.busy_ns > 0 &&
	       st.state == DRM_TERN_CONTEXT_ACTIVE,
	       "GET_STATE counts 3 jobs and their device time (%llu ns)",
	       (unsigned long long)st.busy_ns);

	/* errors of the arguments */
	n = 0;
	pkt_write_imm(dw, &n, VA_DATA, 1);
	memset(&s, 0, sizeof(s));
	s.context = ctx;
	s.cmdbuf = (uintptr_t)dw;
	s.cmdbuf_size = n * 4;
	r = s;
	r.flags = 1;
	tap_errno(submit_raw(fd, &r), -EINVAL, "flags");
	r = s;
	r.pad = 1;
	tap_errno(submit_raw(fd, &r), -EINVAL, "pad");
	r = s;
	r.cmdbuf_size = 0;
	tap_errno(submit_raw(fd, &r), -EINVAL, "size 0");
	r = s;
	r.cmdbuf_size = 6;
	tap_errno(submit_raw(fd, &r), -EINVAL, "size not a multiple of 4");
	r = s;
	r.cmdbuf_size = info.buf_size_max + 4;
	tap_errno(submit_raw(fd, &r), -E2BIG, "size above buf_size_max");
	r = s;
	r.context = 0xdead;
	tap_errno(submit_raw(fd, &r), -ENOENT, "unknown context");
	r = s;
	r.cmdbuf = 16;
	tap_errno(submit_raw(fd, &r), -EFAULT, "unreadable command buffer");
	r = s;
	r.bo_count = info.max_bos_per_submit + 1;
	tap_errno(submit_raw(fd, &r), -EINVAL, "too many BOs");
	r = s;
	bos[0] = 0xdead;
	r.bo_handles = (uintptr_t)bos;
	r.bo_count = 1;
	tap_errno(submit_raw(fd, &r), -ENOENT, "unknown BO handle");
	r = s;
	r.bo_handles = 16;
	r.bo_count = 1;
	tap_errno(submit_raw(fd, &r), -EFAULT, "unreadable BO list");
	r = s;
	sync.handle = 0xdead;
	sync.flags = 0;
	sync.point = 0;
	r.in_syncs = (uintptr_t)&sync;
	r.in_sync_count = 1;
	tap_errno(submit_raw(fd, &r), -ENOENT, "unknown in-syncobj");
	r = s;
	r.out_syncs = (uintptr_t)&sync;
	r.out_sync_count = 1;
	tap_errno(submit_raw(fd, &r), -ENOENT, "unknown out-syncobj");
	r = s;
	sync.handle = so;
	sync.flags = 1;
	r.out_syncs = (uintptr_t)&sync;
	r.out_sync_count = 1;
	tap_errno(submit_raw(fd, &r), -EINVAL, "sync with flags");
	r = s;
	r.in_sync_count = info.max_syncs_per_submit + 1;
	tap_errno(submit_raw(fd, &r), -EINVAL, "too many in-syncs");

	/* a bad handle after a good one: the good BO is not kept alive */
	{
		uint32_t big = 0, list[2];
		uint64_t got = 0;
		long before, with, after;
		char *p;

		before = tern_system_quiet_kb();
		bo_create(fd, 32 << 20, &big);
		p = bo_mmap(fd, big, &got);
		if (p) {
			memset(p, 1, got);
			munmap(p, got);
		}
		list[0] = big;
		list[1] = 0xdead;
		r = s;
		r.bo_handles = (uintptr_t)list;
		r.bo_count = 2;
		ret = submit_raw(fd, &r);
		/* its pages stay after the CPU unmap, until the BO is freed */
		with = tern_system_kb();
		bo_close(fd, big);
		after = tern_system_settled_kb(before);
		tap_ok(ret == -ENOENT && p && before >= 0 && with >= before + (32 << 10) &&
		       after >= 0 && after <= before,
		       "a BO listed before a bad handle is freed with its handle (%s, BO system "
		       "memory %+ld kB with it, %+ld kB after its close)", strerror(-ret),
		       with - before, after - before);
	}

	/* the validator's classes, with the offset of the bad packet */
	n = 0;
	pkt_write_imm(dw, &n, VA_DATA, 1);
	dw[n++] = TERN_PKT_HEADER(TERN_OP_TLB_INVALIDATE, 1);
	r = s;
	r.cmdbuf_size = n * 4;
	ret = submit_raw(fd, &r);
	tap_ok(ret == -EPERM && r.error_offset == 4 &&
	       r.error_opcode == TERN_OP_TLB_INVALIDATE,
	       "privileged packet: EPERM at dword 4 (%s, %u, 0x%x)",
	       strerror(-ret), r.error_offset, r.error_opcode);
	n = 0;
	pkt_spin(dw, &n, 1);
	dw[n++] = TERN_PKT_HEADER(0x55, 1);
	r = s;
	r.cmdbuf_size = n * 4;
	ret = submit_raw(fd, &r);
	tap_ok(ret == -ENOEXEC && r.error_offset == 2,
	       "unknown opcode: ENOEXEC at dword 2 (%s, %u)", strerror(-ret),
	       r.error_offset);
	n = 0;
	dw[n++] = TERN_PKT_HEADER(TERN_OP_WRITE_IMM, 3);
	dw[n++] = 0;
	dw[n++] = 0;
	r = s;
	r.cmdbuf_size = n * 4;
	tap_errno(submit_raw(fd, &r), -EBADMSG, "wrong packet length");
	n = 0;
	pkt_write_imm(dw, &n, VA_DATA, 1);
	r = s;
	r.cmdbuf_size = (n - 1) * 4;
	tap_errno(submit_raw(fd, &r), -EBADMSG, "packet past the end");
	n = 0;
	pkt_fill(dw, &n, VA_DATA + 2, 16, 0);
	r = s;
	r.cmdbuf_size = n * 4;
	tap_errno(submit_raw(fd, &r), -EINVAL, "misaligned FILL operand");

	{
		uint32_t copy = 0;

		n = 0;
		pkt_gemm(dw, &n, VA_A, VA_B, VA_C, 1, 1, 1);
		r = s;
		r.cmdbuf_size = n * 4;
		r.context = 0;
		ctx_create(fd, 1, DRM_TERN_ENGINE_CLASS_COPY, 0, &copy);
		r.context = copy;
		ret = submit_raw(fd, &r);
		tap_ok(ret == -ENOEXEC && r.error_opcode == TERN_OP_GEMM,
		       "GEMM on a copy-engine context: ENOEXEC (%s)",
		       strerror(-ret));
		ctx_destroy(fd, copy);
	}

	tap_ok(!ctx_state(fd, ctx, &st) && st.jobs_submitted == 3 &&
	       st.state == DRM_TERN_CONTEXT_ACTIVE,
	       "refused submissions queued nothing and left the context active");

	/* a full-size buffer of NOPs and one WRITE_IMM at its end */
	n = info.buf_size_max / 4;
	for (i = 0; i + 4 < n; i += 0xfff0) {
		uint32_t len = n - 4 - i < 0xfff0 ? n - 4 - i : 0xfff0;

		dw[i] = TERN_PKT_HEADER(TERN_OP_NOP, len);
	}
	i = n - 4;
	pkt_write_imm(dw, &i, VA_DATA + 16, 0x600d);
	drmSyncobjReset(fd, &so, 1);
	tap_errno(submit(fd, ctx, dw, n, &data_bo, 1, 0, so, NULL), 0,
		  "submit a buffer of buf_size_max bytes");
	tap_ok(!syncobj_wait(fd, so, 10000) && data[4] == 0x600d,
	       "and it ran to its last packet");

	close(fd);
	return tap_exit_status();
}
