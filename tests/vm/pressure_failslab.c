// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * pressure_failslab: every slab allocation on the paths of the tern ioctls
 * fails in turn (the kernel's failslab, limited to this task with
 * make-it-fail): for each operation and each k from 1 on, the k-th
 * allocation it makes fails, until the operation makes fewer than k.  Each
 * call must then succeed or fail with ENOMEM (nothing else), and afterwards,
 * with injection off, the same file must run a correct job.
 *
 * failslab needs CONFIG_FAILSLAB and CONFIG_FAULT_INJECTION_DEBUG_FS: the
 * kernel of make test-debug has them, the Debian kernel of make test does
 * not (the test skips there).
 *
 * tern-vm: timeout=300
 */
#include "core_test.h"

#define FS	"/sys/kernel/debug/failslab/"
#define VA	0x100000ull
#define VA2	0x400000ull
#define MAX_K	64

static long get(const char *file)
{
	char buf[64] = "";
	FILE *f = fopen(file, "r");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return strtol(buf, NULL, 10);
}

/* Fail the k-th slab allocation of this task from now on (k = 0: none). */
static bool arm(int k)
{
	char v[32];

	if (!k)
		return core_write_file("/proc/thread-self/make-it-fail", "0");
	snprintf(v, sizeof(v), "%d", k);
	return core_write_file(FS "interval", v) && core_write_file(FS "times", "1") &&
	       core_write_file(FS "probability", "100") &&
	       core_write_file("/proc/thread-self/make-it-fail", "1");
}

/* Did the armed failure happen? (times counts down when it does) */
static bool fired(void)
{
	return get(FS "times") == 0;
}

struct fx {
	int fd;
	uint32_t ctx, bo, so;
	volatile uint32_t *mem;
};

enum op { OP_BO_CREATE, OP_VM_MAP, OP_CTX_CREATE, OP_SUBMIT, OP_SYNCOBJ, OP_PRIME, OP_OPEN,
	  OP_COUNT };
static const char *const op_name[] = {
	"BO_CREATE", "VM_BIND map", "CONTEXT_CREATE", "SUBMIT", "SYNCOBJ_CREATE",
	"PRIME export+import", "open",
};

/* The operation under injection; undoes its effect when it succeeded. */
static int run_op(struct fx *x, enum op op)
{
	uint32_t h = 0, dw[8], n = 0;
	int ret, fd2;

	switch (op) {
	case OP_BO_CREATE:
		ret = bo_create(x->fd, 65536, &h);
		arm(0);
		if (!ret)
			bo_close(x->fd, h);
		return ret;
	case OP_VM_MAP:
		ret = vm_map(x->fd, x->bo, VA2, 0, 4096);
		arm(0);
		if (!ret)
			vm_unmap(x->fd, VA2, 4096);
		return ret;
	case OP_CTX_CREATE:
		ret = ctx_create(x->fd, DRM_TERN_PRIORITY_NORMAL,
				 DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &h);
		arm(0);
		if (!ret)
			ctx_destroy(x->fd, h);
		return ret;
	case OP_SUBMIT:
		pkt_write_imm(dw, &n, VA + 64, 0x51ab);
		drmSyncobjReset(x->fd, &x->so, 1);
		ret = submit(x->fd, x->ctx, dw, n, &x->bo, 1, 0, x->so, NULL);
		arm(0);
		if (!ret)
			ret = syncobj_wait(x->fd, x->so, 30000);
		return ret;
	case OP_SYNCOBJ:
		ret = drmSyncobjCreate(x->fd, 0, &h) ? -errno : 0;
		arm(0);
		if (!ret)
			drmSyncobjDestroy(x->fd, h);
		return ret;
	case OP_PRIME:
		ret = drmPrimeHandleToFD(x->fd, x->bo, DRM_CLOEXEC, &fd2) ? -errno : 0;
		if (!ret) {
			int other = tern_test_open();

			ret = other < 0 ? -errno :
			      drmPrimeFDToHandle(other, fd2, &h) ? -errno : 0;
			arm(0);
			close(fd2);
			if (other >= 0)
				close(other);
		}
		arm(0);
		return ret;
	default:
		fd2 = open(TERN_TEST_NODE, O_RDWR | O_CLOEXEC);
		ret = fd2 < 0 ? -errno : 0;
		arm(0);
		if (fd2 >= 0)
			close(fd2);
		return ret;
	}
}

static bool job_works(struct fx *x, uint32_t v)
{
	uint32_t dw[8], n = 0;

	pkt_write_imm(dw, &n, VA, v);
	drmSyncobjReset(x->fd, &x->so, 1);
	return !submit(x->fd, x->ctx, dw, n, &x->bo, 1, 0, x->so, NULL) &&
	       !syncobj_wait(x->fd, x->so, 30000) && x->mem[0] == v;
}

int main(void)
{
	unsigned long injected = 0, enomem = 0, other = 0, broken = 0;
	struct fx x = { 0 };
	int op, k, ret;

	tap_plan(4);
	if (access(FS "times", F_OK)) {
		tap_skip("no failslab in this kernel (CONFIG_FAILSLAB; make test-debug has it)");
		tap_skip("no injection");
		tap_skip("no injection");
		tap_skip("no injection");
		return tap_exit_status();
	}
	x.fd = tern_test_open();
	if (!tap_ok(x.fd >= 0 && !core_bo(x.fd, 4096, VA, &x.bo, (void **)&x.mem) &&
		    !ctx_create(x.fd, 1, 0, 0, &x.ctx) && (x.so = syncobj_new(x.fd)) &&
		    core_write_file(FS "task-filter", "Y") && core_write_file(FS "ignore-gfp-wait", "N") &&
		    core_write_file(FS "verbose", "0") && core_write_file(FS "space", "0"),
		    "set up a file and failslab for this task"))
		return tap_exit_status();

	for (op = 0; op < OP_COUNT; op++) {
		for (k = 1; k <= MAX_K; k++) {
			bool hit;

			if (!arm(k))
				break;
			ret = run_op(&x, op);
			hit = fired();
			if (!hit && !ret)
				break;	/* fewer than k allocations: done with this op */
			if (hit)
				injected++;
			if (ret == -ENOMEM)
				enomem++;
			else if (ret) {
				other++;
				tap_diag("%s, allocation %d failed: %s", op_name[op], k,
					 strerror(-ret));
			}
			if (!job_works(&x, (op << 16) | k)) {
				broken++;
				tap_diag("%s, allocation %d failed: the file no longer runs a job",
					 op_name[op], k);
			}
		}
	}
	arm(0);
	core_write_file(FS "probability", "0");
	tap_diag("%lu allocations failed on purpose, %lu calls returned ENOMEM", injected, enomem);
	tap_ok(injected > 0, "allocation failures were injected (%lu)", injected);
	tap_ok(!other, "every failing call returned ENOMEM or succeeded (%lu other)", other);
	tap_ok(!broken, "the device runs a correct job after each (%lu broken)", broken);
	close(x.fd);
	return tap_exit_status();
}
