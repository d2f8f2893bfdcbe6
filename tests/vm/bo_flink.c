// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bo_flink: the DRM core's global names (DRM_IOCTL_GEM_FLINK, GEM_OPEN) on
 * the accel node, as docs/memory.md describes them.  A file opened with
 * CAP_SYS_ADMIN is "authenticated" and may name a BO and open a name: the
 * opened handle shares the BO (its pages through mmap, and the device's
 * writes through another file's address space), the name lives as long as
 * some file holds a handle to the BO.  A file opened without CAP_SYS_ADMIN can do neither (EACCES):
 * an accel node has no DRM master to authenticate it, so unprivileged
 * processes share BOs with PRIME.  What counts is the opener, not the caller.
 *
 * tern-vm: timeout=60
 */
#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "core_test.h"

#define VA	0x200000ull

static int flink(int fd, uint32_t handle, uint32_t *name)
{
	struct drm_gem_flink f = { .handle = handle };
	int ret = mem_ioctl(fd, DRM_IOCTL_GEM_FLINK, &f);

	if (!ret)
		*name = f.name;
	return ret;
}

static int gem_open(int fd, uint32_t name, uint32_t *handle, uint64_t *size)
{
	struct drm_gem_open o = { .name = name };
	int ret = mem_ioctl(fd, DRM_IOCTL_GEM_OPEN, &o);

	if (!ret) {
		*handle = o.handle;
		*size = o.size;
	}
	return ret;
}

static int drop_cap_sys_admin(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	data[0].effective &= ~(1u << CAP_SYS_ADMIN);
	data[0].permitted &= ~(1u << CAP_SYS_ADMIN);
	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

int main(void)
{
	uint32_t h, h2 = 0, name = 0, name2 = 0, ctx = 0, dw[8], n, so, hx = 0;
	uint64_t size = 0, osize = 0;
	volatile uint32_t *p, *q = NULL;
	int fd, fd2, ret, status, pfd[2], res[4] = { 1, 1, 1, 1 };
	pid_t pid;

	tap_plan(16);
	fd = tern_test_open();
	fd2 = tern_test_open();
	if (fd < 0 || fd2 < 0 || bo_create(fd, 2 * 4096, &h)) {
		tap_ok(false, "open the device twice and create a BO");
		return tap_exit_status();
	}
	p = bo_mmap(fd, h, &size);
	if (!tap_ok(p != NULL, "mmap the BO in the first file"))
		return tap_exit_status();
	p[0] = 0x1234abcd;
	p[2047] = 0x5a5a5a5a;

	/* root's files are authenticated: FLINK and GEM_OPEN work */
	ret = flink(fd, h, &name);
	tap_ok(!ret && name, "FLINK names the BO (%s, name %u)",
	       ret ? strerror(-ret) : "ok", name);
	tap_ok(!flink(fd, h, &name2) && name2 == name, "a second FLINK gives the same name");
	ret = gem_open(fd2, name, &h2, &osize);
	tap_ok(!ret && h2 && osize == size,
	       "GEM_OPEN in another file: handle %u, size %llu (%s)", h2,
	       (unsigned long long)osize, ret ? strerror(-ret) : "ok");
	if (!ret)
		q = bo_mmap(fd2, h2, &osize);
	tap_ok(q && q[0] == 0x1234abcd && q[2047] == 0x5a5a5a5a,
	       "the opened handle maps the same pages");
	if (q) {
		q[1] = 0xfeedf00d;
		tap_ok(p[1] == 0xfeedf00d, "a CPU write through it shows in the first file");
	} else {
		tap_ok(false, "a CPU write through it shows in the first file");
	}

	/* the device writes through the second file's address space */
	so = syncobj_new(fd2);
	ret = vm_map(fd2, h2, VA, 0, size);
	ret = ret ? ret : ctx_create(fd2, DRM_TERN_PRIORITY_NORMAL,
				     DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &ctx);
	n = 0;
	pkt_write_imm(dw, &n, VA + 8, 0xc0ffee);
	ret = ret ? ret : submit(fd2, ctx, dw, n, &h2, 1, 0, so, NULL);
	ret = ret ? ret : syncobj_wait(fd2, so, 5000);
	tap_ok(!ret && p[2] == 0xc0ffee,
	       "a job of the second file writes the BO the first file sees (%s, %#x)",
	       ret ? strerror(-ret) : "ok", p[2]);
	ctx_destroy(fd2, ctx);
	vm_unmap(fd2, VA, size);

	tap_errno(gem_open(fd2, 0x7fffffff, &hx, &osize), -ENOENT, "GEM_OPEN of an unused name");
	tap_errno(flink(fd, 0xdeadbeef, &name2), -ENOENT, "FLINK of a bad handle");

	/*
	 * Without CAP_SYS_ADMIN at open, a file is not authenticated: FLINK and
	 * GEM_OPEN are EACCES.  A file root opened stays authenticated.
	 */
	if (pipe(pfd) == 0) {
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			int fd3;

			close(pfd[0]);
			if (drop_cap_sys_admin())
				_exit(2);
			fd3 = tern_test_open();
			if (fd3 < 0)
				_exit(3);
			res[0] = bo_create(fd3, 4096, &hx);
			res[1] = res[0] ? res[0] : flink(fd3, hx, &name2);
			res[2] = gem_open(fd3, name, &hx, &osize);
			res[3] = gem_open(fd, name, &hx, &osize);
			if (!res[3])
				bo_close(fd, hx);
			_exit(write(pfd[1], res, sizeof(res)) == sizeof(res) ? 0 : 4);
		}
		close(pfd[1]);
		ret = read(pfd[0], res, sizeof(res)) == sizeof(res);
		close(pfd[0]);
		waitpid(pid, &status, 0);
		tap_ok(ret && WIFEXITED(status) && WEXITSTATUS(status) == 0,
		       "a child drops CAP_SYS_ADMIN and opens the node (exit %d)",
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		tap_errno(res[1], -EACCES, "its own file: FLINK");
		tap_errno(res[2], -EACCES, "its own file: GEM_OPEN");
		tap_errno(res[3], 0, "root's file, used by the child: GEM_OPEN");
	} else {
		tap_ok(false, "pipe: %s", strerror(errno));
	}

	/* the name lives as long as any handle, not only the first one */
	munmap((void *)p, size);
	tap_errno(bo_close(fd, h), 0, "close the first handle");
	ret = gem_open(fd2, name, &hx, &osize);
	tap_ok(!ret && osize == size, "the name still opens the BO the second file holds (%s)",
	       ret ? strerror(-ret) : "ok");
	if (!ret)
		bo_close(fd2, hx);
	if (q)
		munmap((void *)q, size);
	bo_close(fd2, h2);
	tap_errno(gem_open(fd2, name, &hx, &osize), -ENOENT,
		  "once no file has a handle, the name is gone");
	close(fd2);
	close(fd);
	return tap_exit_status();
}
