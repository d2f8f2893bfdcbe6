// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * core_reload: the module cannot be unloaded while a file is open; it can
 * be unloaded and loaded again in a loop, also right after a process with
 * work in flight exits, and the device works after each load.
 *
 * tern-vm: timeout=180
 */
#include <sys/wait.h>

#include "core_test.h"

#define VA	0x100000ull
#define LOOPS	5

static bool device_works(void)
{
	uint32_t dw[16], n = 0, ctx = 0, bo = 0, so;
	volatile uint32_t *mem;
	bool ok;
	int fd = tern_test_open();

	if (fd < 0)
		return false;
	ok = !ctx_create(fd, 1, 0, 0, &ctx) &&
	     !core_bo(fd, 4096, VA, &bo, (void **)&mem);
	so = syncobj_new(fd);
	pkt_write_imm(dw, &n, VA, 0x4e4f);
	ok = ok && !submit(fd, ctx, dw, n, &bo, 1, 0, so, NULL) &&
	     !syncobj_wait(fd, so, 5000) && mem[0] == 0x4e4f;
	/* the CPU mapping holds the file (and the module) */
	if (ok)
		munmap((void *)mem, 4096);
	close(fd);
	return ok;
}

int main(void)
{
	int fd, i, ok, status;
	pid_t pid;

	tap_plan(6);
	fd = tern_test_open();
	tap_ok(fd >= 0 && system("rmmod tern 2>/dev/null") != 0,
	       "rmmod fails while a file is open");
	close(fd);

	ok = 0;
	for (i = 0; i < LOOPS; i++) {
		if (!core_module_unload() || !core_module_load() || !device_works())
			break;
		ok++;
	}
	tap_ok(ok == LOOPS, "%d of %d unload/load cycles, the device working after each",
	       ok, LOOPS);

	/* a process exits with work queued and running; unload right away */
	pid = fork();
	if (pid == 0) {
		uint32_t dw[16], n, ctx = 0, bo = 0, j;
		void *mem;
		int f = tern_test_open();

		if (f < 0 || ctx_create(f, 1, 0, 0, &ctx) ||
		    core_bo(f, 4096, VA, &bo, &mem))
			_exit(2);
		munmap(mem, 4096);
		for (j = 0; j < 20; j++) {
			n = 0;
			pkt_spin(dw, &n, 50000);
			pkt_write_imm(dw, &n, VA, j);
			if (submit(f, ctx, dw, n, &bo, 1, 0, 0, NULL))
				_exit(3);
		}
		_exit(0);
	}
	waitpid(pid, &status, 0);
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "a process queued 1 s of work and exited");
	tap_ok(core_module_unload(), "the module unloads right after");
	tap_ok(core_module_load(), "and loads again");
	tap_ok(device_works(), "the device works");

	return tap_exit_status();
}
