// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * chaos_local: processes SIGKILLed while their LOCAL BOs are paged.
 *
 * Each client makes three LOCAL BOs of a third of local memory and a MiB
 * more, that the CPU wrote first (so each first map pages it in), and
 * maps one while it unmaps the one before, in a loop: the third map finds
 * local memory full and pages the least recently used BO out, and so on.
 * Since interface 1.7 a map never fails for want of local memory (it
 * evicts idle BOs, mapped or not, or leaves its BO in system memory), so
 * any map error fails the client.  It is killed at a random point of it:
 * in the middle of a paging buffer, of a move (with the retarget of the
 * moved BO's mappings), of a map.  A paging buffer
 * runs to its end (the thread waits for it, not interruptibly), so killing
 * never leaves the device with half a copy to run, and the memory goes
 * back: after all rounds no local memory is used, the system memory of
 * BOs is back where it was, no paging buffer failed, and the device still
 * pages and runs jobs bit-exact.
 *
 * TERN_CHAOS_CYCLES (default 4) scales the number of rounds.
 *
 * tern-vm: timeout=240
 */
#include <signal.h>
#include <sys/wait.h>

#include "chaos_test.h"

#define MIB		(1024ull * 1024)
#define VA		0x100000000ull

static uint64_t big;	/* a third of local memory, and a MiB */

/* The client: pages LOCAL BOs in and out until it is killed, or @rounds. */
static void client(int ready, int rounds)
{
	uint32_t h[3];
	uint64_t got;
	char *p;
	int fd, i, round;

	fd = open(TERN_TEST_NODE, O_RDWR);
	for (i = 0; i < 3; i++) {
		if (fd < 0 || bo_create_local(fd, big, &h[i]))
			_exit(1);
		p = bo_mmap(fd, h[i], &got);
		if (!p)
			_exit(1);
		p[0] = (char)i;	/* populates the pages: maps page them in */
	}
	if (write(ready, "r", 1) != 1)
		_exit(1);
	for (round = 0; !rounds || round < rounds; round++) {
		i = round % 3;
		/*
		 * No map may fail (interface 1.7): not even while the client
		 * killed before is still being torn down (its file's release
		 * may come after its exit) and its BOs hold local memory.
		 */
		if (vm_map(fd, h[i], VA + i * big, 0, big))
			_exit(2);
		vm_unmap(fd, VA + ((i + 2) % 3) * big, big);
	}
	_exit(0);
}

int main(void)
{
	int rounds = 3 * chaos_cycles(), r, status, killed = 0, ok = 0;
	long long local0, sys0, fail0, out0, local_size;
	struct timespec ts;

	tap_plan(6);
	for (r = 0; r < 100 && core_memory_value("local_bytes") > 0; r++)
		usleep(100000);
	local0 = core_memory_value("local_bytes");
	local_size = core_memory_value("local_size");
	sys0 = tern_system_quiet_kb();
	fail0 = core_memory_value("paging_failures");
	out0 = core_paging_jobs("out");
	big = (uint64_t)local_size / 3 / MIB * MIB + MIB;
	tap_ok(local0 == 0 && local_size > 0 && sys0 >= 0 && fail0 >= 0 && out0 >= 0,
	       "debugfs memory: local %lld of %lld bytes, system %lld kB, %lld failures",
	       local0, local_size, sys0, fail0);
	/* one client that is not killed: its fourth map pages the first out */
	{
		int p[2];
		pid_t pid;
		char ch;

		if (pipe(p))
			return tap_exit_status();
		pid = fork();
		if (pid == 0) {
			close(p[0]);
			client(p[1], 4);
		}
		close(p[1]);
		if (read(p[0], &ch, 1) != 1)
			tap_diag("the client did not set up");
		close(p[0]);
		bool done = waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
			    !WEXITSTATUS(status);
		long long out = core_paging_jobs("out");

		tap_ok(done && out > out0,
		       "a client maps its three BOs in turn: one is paged out (%lld times)",
		       out - out0);
	}
	srand(1234);
	for (r = 0; r < rounds; r++) {
		int p[2];
		char ch;
		pid_t pid;

		if (pipe(p))
			break;
		pid = fork();
		if (pid == 0) {
			close(p[0]);
			client(p[1], 0);
		}
		close(p[1]);
		if (read(p[0], &ch, 1) == 1)
			ok++;
		close(p[0]);
		/* somewhere in the first few maps: 0 to 900 ms */
		ts.tv_sec = 0;
		ts.tv_nsec = (rand() % 900) * 1000000l;
		nanosleep(&ts, NULL);
		kill(pid, SIGKILL);
		if (waitpid(pid, &status, 0) == pid && WIFSIGNALED(status))
			killed++;
	}
	tap_ok(ok == rounds && killed == rounds, "%d clients set up, %d killed while paging",
	       ok, killed);
	for (r = 0; r < 100 && core_memory_value("local_bytes") != 0; r++)
		usleep(100000);
	tap_ok(core_memory_value("local_bytes") == 0, "no local memory is left used (%lld bytes)",
	       core_memory_value("local_bytes"));
	tap_ok(tern_system_settled_kb(sys0) <= sys0,
	       "the system memory of BOs is back (%ld kB, was %lld kB)", tern_system_kb(), sys0);
	tap_ok(core_memory_value("paging_failures") == fail0, "no paging buffer failed");
	return tap_exit_status();
}
