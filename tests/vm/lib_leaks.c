// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_leaks: libtern gives back what it takes.  Many rounds of every kind of
 * call (open, contexts, buffers, export/import, command buffers, submits,
 * fences, sync_files, timelines, reserved addresses and binds (one that
 * fails, one cancelled), and the error paths) leave the heap in use, the open
 * file descriptors and the process's mappings as they were after the first
 * round.  (valgrind does not run in the test VM; this is its stand-in for
 * the paths that need a device.)
 *
 * tern-vm: timeout=180
 */
#include <dirent.h>
#include <malloc.h>
#include <stdint.h>
#include <tern/tern.h>

#include "tern_test.h"

static int count_fds(void)
{
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static int count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0, c;

	while (f && (c = fgetc(f)) != EOF)
		n += c == '\n';
	if (f)
		fclose(f);
	return n;
}

/*
 * Binds: a reserved range, a map after fence @after, one refused, a job
 * through the mapping, a map that fails after a faulting job and one
 * cancelled behind it, the state, synchronous binds, the release.
 */
static int bind_round(struct tern_device *dev, struct tern_bo *bo, struct tern_cmdbuf *cb,
		      struct tern_fence *after)
{
	struct tern_fence *bf = NULL, *bad = NULL, *j = NULL, *ff = NULL, *bx = NULL, *by = NULL;
	struct tern_deps d = { .fences = &after, .fence_count = 1 };
	struct tern_context *ctx = NULL;
	struct tern_bo *ro = NULL;
	struct tern_vm_state st;
	volatile uint32_t *gate = (uint32_t *)tern_bo_map(bo) + 65532 / 4;
	struct tern_bind_op op;
	int bad_results = 0;
	uint64_t va = 0;

	bad_results += tern_va_reserve(dev, 0, 0, &va) != -EINVAL;
	bad_results += tern_va_reserve(dev, 65536, 0, &va) != 0;
	bad_results += tern_context_create(dev, NULL, &ctx) != 0;
	bad_results += tern_bo_alloc(dev, 4096, TERN_BO_DEVICE_READ_ONLY, &ro) != 0;
	if (!ctx || !ro || !va)
		return bad_results + 1;
	op = (struct tern_bind_op){ .op = TERN_BIND_MAP, .bo = bo, .va = va, .range = 65536 };
	bad_results += tern_vm_bind(dev, &op, 1, &d, &bf) != 0;
	bad_results += tern_vm_bind(dev, &op, 1, NULL, &bad) != -EEXIST;
	tern_cmdbuf_reset(cb);
	bad_results += tern_cmd_write_imm(cb, va + 8, 4) != 0;
	bad_results += tern_submit(ctx, cb, &bf, 1, &j) != 0;
	bad_results += tern_fence_wait(j, 10 * 1000000000ll) != 0;
	op.op = TERN_BIND_UNMAP;
	op.bo = NULL;
	bad_results += tern_vm_bind(dev, &op, 1, NULL, NULL) != 0;

	/* a job that faults once the gate (bo's last word) opens, a map after it, one behind */
	gate[0] = 0;
	tern_cmdbuf_reset(cb);
	bad_results += tern_cmd_wait_mem(cb, tern_bo_va(bo) + 65532, 1, 8000000) != 0;
	bad_results += tern_cmd_write_imm(cb, tern_bo_va(ro), 1) != 0;
	bad_results += tern_submit(ctx, cb, NULL, 0, &ff) != 0;
	d.fences = &ff;
	op = (struct tern_bind_op){ .op = TERN_BIND_MAP, .bo = bo, .va = va, .range = 4096 };
	bad_results += tern_vm_bind(dev, &op, 1, &d, &bx) != 0;
	op.va += 4096;
	bad_results += tern_vm_bind(dev, &op, 1, NULL, &by) != 0;
	gate[0] = 1;
	bad_results += tern_fence_wait(by, 10 * 1000000000ll) != -ECANCELED;
	bad_results += tern_vm_state(dev, &st) != 0 || st.bind_error != -EIO;
	bad_results += tern_vm_bind(dev, &op, 1, NULL, NULL) != 0;
	op = (struct tern_bind_op){ .op = TERN_BIND_UNMAP, .va = va, .range = 65536 };
	bad_results += tern_vm_bind(dev, &op, 1, NULL, NULL) != 0;
	bad_results += tern_va_release(dev, va, 65536) != 0;
	bad_results += tern_va_release(dev, va, 65536) != -EINVAL;

	tern_fence_free(by);
	tern_fence_free(bx);
	tern_fence_free(ff);
	tern_fence_free(j);
	tern_fence_free(bf);
	tern_bo_free(ro);
	bad_results += tern_context_destroy(ctx) != 0;
	return bad_results;
}

/* One round of everything; returns the number of unexpected results. */
static int round_trip(void)
{
	struct tern_context *ctx = NULL, *ctx2 = NULL;
	struct tern_device *dev = NULL, *dev2 = NULL, *none = NULL;
	struct tern_bo *bo = NULL, *imp = NULL, *bad = NULL;
	struct tern_fence *f = NULL, *g = NULL, *h = NULL;
	struct tern_timeline *tl = NULL, *tl2 = NULL, *tlbad = NULL;
	struct tern_timeline_point sig, wait;
	struct tern_deps d = { 0 };
	struct tern_fence *pf = NULL, *pfbad = NULL;
	struct tern_cmdbuf *cb = NULL;
	int bad_results = 0, fd = -1, sfd = -1, tfd = -1, psfd = -1;

	bad_results += tern_device_open(0, &dev) != 0;
	bad_results += tern_device_open(0, &dev2) != 0;
	bad_results += tern_device_open(5, &none) != -ENOENT;
	bad_results += tern_device_open_path("/dev/null", &none) != -ENODEV;
	if (!dev || !dev2)
		return bad_results + 1;
	bad_results += tern_context_create(dev, NULL, &ctx) != 0;
	bad_results += tern_context_create(dev2, NULL, &ctx2) != 0;
	bad_results += tern_bo_alloc(dev, 65536, 0, &bo) != 0;
	bad_results += tern_bo_alloc(dev, 0, 0, &bad) != -EINVAL;
	bad_results += tern_bo_export(bo, &fd) != 0;
	bad_results += tern_bo_import(dev2, fd, &imp) != 0;
	bad_results += tern_cmdbuf_create(0, &cb) != 0;
	bad_results += tern_cmd_fill(cb, tern_bo_va(bo), 65536, 7) != 0;
	bad_results += tern_cmd_gemm(cb, tern_bo_va(bo), tern_bo_va(bo), tern_bo_va(bo), 1, 1, 1)
		       != -EINVAL;
	bad_results += tern_submit(ctx, cb, NULL, 0, &f) != 0;
	bad_results += tern_fence_export_sync_file(f, &sfd) != 0;
	bad_results += tern_fence_import_sync_file(dev2, sfd, &g) != 0;
	tern_cmdbuf_reset(cb);
	bad_results += tern_cmd_write_imm(cb, tern_bo_va(imp), 9) != 0;
	bad_results += tern_submit(ctx2, cb, &g, 1, &h) != 0;
	bad_results += tern_fence_wait(h, 10 * 1000000000ll) != 0;
	bad_results += tern_fence_wait(f, 10 * 1000000000ll) != 0;
	bad_results += ((uint32_t *)tern_bo_map(bo))[0] != 9;
	tern_cmdbuf_reset(cb);
	bad_results += tern_cmd_raw(cb, (const uint32_t[]){ 0x00010080 }, 1) != 0;
	bad_results += tern_submit(ctx, cb, NULL, 0, NULL) != -EPERM;
	tern_cmdbuf_reset(cb);
	bad_results += tern_cmd_write_imm(cb, 0x10, 1) != 0;
	bad_results += tern_submit(ctx, cb, NULL, 0, NULL) != -EFAULT;

	/* timelines: a job signals point 1, another waits for it; errors */
	tern_cmdbuf_reset(cb);
	bad_results += tern_cmd_write_imm(cb, tern_bo_va(bo), 3) != 0;
	bad_results += tern_timeline_create(dev, &tl) != 0;
	sig = (struct tern_timeline_point){ tl, 1 };
	wait = (struct tern_timeline_point){ tl, 1 };
	d.signals = &sig;
	d.signal_count = 1;
	bad_results += tern_submit_deps(ctx, cb, &d, NULL) != 0;
	bad_results += tern_submit_deps(ctx, cb, &d, NULL) != -EINVAL;	/* point 1 again */
	d = (struct tern_deps){ .waits = &wait, .wait_count = 1 };
	bad_results += tern_submit_deps(ctx, cb, &d, NULL) != 0;
	wait.point = 5;
	bad_results += tern_submit_deps(ctx, cb, &d, NULL) != -ENOENT;
	bad_results += tern_timeline_wait(tl, 1, 10 * 1000000000ll) != 0;
	bad_results += tern_timeline_point_fence(tl, 1, &pf) != 0;
	bad_results += tern_timeline_point_fence(tl, 5, &pfbad) != -ENOENT;
	bad_results += tern_fence_export_sync_file(pf, &psfd) != 0;
	bad_results += tern_timeline_import_sync_file(tl, 2, psfd) != 0;
	bad_results += tern_timeline_import_sync_file(tl, 3, -1) == 0;
	bad_results += tern_timeline_signal(tl, 4) != 0;
	bad_results += tern_timeline_export(tl, &tfd) != 0;
	bad_results += tern_timeline_import(dev2, tfd, &tl2) != 0;
	bad_results += tern_timeline_import(dev2, -1, &tlbad) == 0;
	bad_results += tern_timeline_wait(tl2, 4, 0) != 0;

	bad_results += bind_round(dev, bo, cb, f);

	tern_timeline_free(tl2);
	tern_timeline_free(tl);
	tern_fence_free(pf);
	close(tfd);
	close(psfd);
	close(sfd);
	close(fd);
	tern_fence_free(h);
	tern_fence_free(g);
	tern_fence_free(f);
	tern_cmdbuf_free(cb);
	tern_bo_free(imp);
	tern_bo_free(bo);
	bad_results += tern_context_destroy(ctx2) != 0;
	bad_results += tern_context_destroy(ctx) != 0;
	tern_device_close(dev2);
	tern_device_close(dev);
	return bad_results;
}

int main(int argc, char **argv)
{
	size_t heap0, heap1;
	int fds0, fds1, maps0, maps1, bad = 0, i;

	/*
	 * Chunks glibc keeps in its per-thread cache count as in use: run
	 * without that cache so the heap figure is exact.
	 */
	if (argc == 1 && !getenv("GLIBC_TUNABLES")) {
		setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=0", 1);
		execv("/proc/self/exe", (char *[]){ argv[0], "again", NULL });
		tap_diag("cannot run again without the malloc cache: %s", strerror(errno));
	}
	bad += round_trip();		/* warm up: one-time allocations of libc */
	heap0 = mallinfo2().uordblks;
	fds0 = count_fds();
	maps0 = count_maps();
	for (i = 0; i < 100; i++)
		bad += round_trip();
	heap1 = mallinfo2().uordblks;
	fds1 = count_fds();
	maps1 = count_maps();
	tap_ok(bad == 0, "100 rounds of every call and error path behave (%d surprises)", bad);
	tap_ok(heap1 <= heap0, "heap in use: %zu bytes before, %zu after", heap0, heap1);
	tap_ok(fds1 == fds0, "open file descriptors: %d before, %d after", fds0, fds1);
	tap_ok(maps1 == maps0, "memory mappings: %d before, %d after", maps0, maps1);
	tap_done();
	return tap_exit_status();
}
