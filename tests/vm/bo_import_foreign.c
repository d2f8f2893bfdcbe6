// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bo_import_foreign: dma-bufs made by other exporters (the system DMA heap
 * and udmabuf over a memfd) import as tern BOs, map into the address space,
 * and jobs read and write their pages, seen by the exporter's CPU mapping.
 * After the BO is unmapped and closed, the exporter's buffer is intact.
 *
 * tern-vm: timeout=120
 */
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/udmabuf.h>
#include <sys/syscall.h>
#include <time.h>

#include "mem_test.h"

#define SIZE	(4 * PAGE4K)
#define VA_F	0x100000ull	/* the foreign buffer */
#define VA_T	0x200000ull	/* a tern BO */

static int fd;

static uint32_t new_context(void)
{
	struct drm_tern_context_create c = {
		.priority = DRM_TERN_PRIORITY_NORMAL,
		.engine_class = DRM_TERN_ENGINE_CLASS_COMPUTE,
	};

	return mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_CREATE, &c) ? 0 : c.handle;
}

static int run(const uint32_t *dw, uint32_t ndw)
{
	struct drm_tern_sync out = { 0 };
	struct drm_tern_submit s = {
		.context = new_context(), .cmdbuf = (uintptr_t)dw,
		.cmdbuf_size = ndw * 4, .out_syncs = (uintptr_t)&out,
		.out_sync_count = 1,
	};
	struct drm_tern_context_get_state st = { .handle = s.context };
	struct timespec ts;
	int ret;

	if (!s.context || drmSyncobjCreate(fd, 0, &out.handle))
		return -ENOMEM;
	ret = mem_ioctl(fd, DRM_IOCTL_TERN_SUBMIT, &s);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (!ret && drmSyncobjWait(fd, &out.handle, 1,
				   (ts.tv_sec + 10) * 1000000000ll + ts.tv_nsec,
				   DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL))
		ret = -errno;
	if (!ret && (mem_ioctl(fd, DRM_IOCTL_TERN_CONTEXT_GET_STATE, &st) ||
		     st.state != DRM_TERN_CONTEXT_ACTIVE))
		ret = -EIO;
	drmSyncobjDestroy(fd, out.handle);
	return ret;
}

static void cpu_access(int dmabuf, bool begin)
{
	struct dma_buf_sync sync = {
		.flags = (begin ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) |
			 DMA_BUF_SYNC_RW,
	};

	ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync);
}

/* Import @dmabuf whose CPU view is @cpu, and use it from jobs. */
static void exercise(const char *who, int dmabuf, uint32_t *cpu, uint32_t *tern)
{
	uint32_t dw[16], n = 0, h = 0;
	struct drm_tern_bo_info in = { 0 };
	int ret;

	memset(tern, 0, PAGE4K);
	cpu_access(dmabuf, true);
	for (int i = 0; i < (int)(SIZE / 4); i++)
		cpu[i] = 0xf0000000u + i;
	cpu_access(dmabuf, false);

	ret = drmPrimeFDToHandle(fd, dmabuf, &h) ? -errno : 0;
	tap_errno(ret, 0, who);
	in.handle = h;
	ret = mem_ioctl(fd, DRM_IOCTL_TERN_BO_INFO, &in);
	tap_ok(!ret && in.size == SIZE, "%s: BO_INFO gives its size (%llu)", who,
	       (unsigned long long)in.size);
	tap_errno(vm_map(fd, h, VA_F, 0, SIZE), 0, "map the import");

	/* copy its last page into the tern BO, then write into it */
	dw[n++] = TERN_PKT_HEADER(TERN_OP_COPY, TERN_PKT_DWORDS_COPY);
	dw[n++] = (uint32_t)(VA_F + 3 * PAGE4K);
	dw[n++] = 0;
	dw[n++] = (uint32_t)VA_T;
	dw[n++] = 0;
	dw[n++] = PAGE4K;
	dw[n++] = TERN_PKT_HEADER(TERN_OP_WRITE_IMM, TERN_PKT_DWORDS_WRITE_IMM);
	dw[n++] = (uint32_t)(VA_F + PAGE4K + 8);
	dw[n++] = 0;
	dw[n++] = 0x600d;
	tap_errno(run(dw, n), 0, "a job reads and writes the import");
	tap_ok(tern[0] == 0xf0000000u + 3 * 1024 && tern[1023] == 0xf0000000u + 4095,
	       "%s: the job read the exporter's data (%#x)", who, tern[0]);
	cpu_access(dmabuf, true);
	tap_ok(cpu[1024 + 2] == 0x600d && cpu[1024 + 3] == 0xf0000000u + 1027,
	       "%s: the exporter sees the job's write (%#x)", who, cpu[1026]);
	cpu_access(dmabuf, false);

	tap_errno(vm_unmap(fd, VA_F, SIZE), 0, "unmap the import");
	tap_errno(bo_close(fd, h), 0, "close the imported handle");
	tap_ok(cpu[0] == 0xf0000000u && cpu[1026] == 0x600d,
	       "%s: the exporter's buffer is intact afterwards", who);
}

int main(void)
{
	uint32_t th, *tern, *cpu;
	uint64_t tsize;
	int heap, ufd, memfd, dmabuf;

	fd = tern_test_open();
	if (fd < 0 || bo_create(fd, PAGE4K, &th) || !(tern = bo_mmap(fd, th, &tsize)) ||
	    vm_map(fd, th, VA_T, 0, PAGE4K)) {
		tap_ok(false, "open the device, create and map a tern BO");
		return tap_exit_status();
	}

	/* the system DMA heap */
	heap = open("/dev/dma_heap/system", O_RDWR | O_CLOEXEC);
	if (heap >= 0) {
		struct dma_heap_allocation_data a = {
			.len = SIZE, .fd_flags = O_RDWR | O_CLOEXEC,
		};

		tap_ok(!ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &a), "allocate from the system heap");
		dmabuf = a.fd;
		cpu = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, dmabuf, 0);
		if (cpu != MAP_FAILED) {
			exercise("import a system-heap dma-buf", dmabuf, cpu, tern);
			munmap(cpu, SIZE);
		} else {
			tap_ok(false, "mmap the heap dma-buf: %s", strerror(errno));
		}
		close(dmabuf);
		close(heap);
	} else {
		tap_skip("no /dev/dma_heap/system: %s", strerror(errno));
	}

	/* udmabuf over a memfd */
	memfd = syscall(SYS_memfd_create, "tern", MFD_ALLOW_SEALING);
	ufd = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (memfd >= 0 && ufd >= 0) {
		struct udmabuf_create c = {
			.memfd = memfd, .flags = UDMABUF_FLAGS_CLOEXEC, .size = SIZE,
		};

		tap_ok(!ftruncate(memfd, SIZE) && !fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK),
		       "make a sealed memfd");
		dmabuf = ioctl(ufd, UDMABUF_CREATE, &c);
		tap_ok(dmabuf >= 0, "wrap it in a udmabuf (%s)",
		       dmabuf < 0 ? strerror(errno) : "ok");
		cpu = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
		if (dmabuf >= 0 && cpu != MAP_FAILED) {
			exercise("import a udmabuf", dmabuf, cpu, tern);
			munmap(cpu, SIZE);
		} else {
			tap_ok(false, "the udmabuf and its memfd mapping exist");
		}
		if (dmabuf >= 0)
			close(dmabuf);
	} else {
		tap_skip("no memfd or /dev/udmabuf: %s", strerror(errno));
	}
	if (memfd >= 0)
		close(memfd);
	if (ufd >= 0)
		close(ufd);

	close(fd);
	tap_done();
	return tap_exit_status();
}
