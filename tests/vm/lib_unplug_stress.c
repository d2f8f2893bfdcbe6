// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * lib_unplug_stress: take the device away and bring it back many times in
 * one boot, with every engine busy: PCI remove and rescan, driver unbind
 * and bind, and, while the driver is unbound, memory decoding switched off
 * and on in the command register (what the kernel does around BAR sizing)
 * while a process on every CPU reads the device's registers through a
 * mapping of BAR0.  Each of these changes the guest's physical memory map
 * while CPUs are in the middle of MMIO accesses (the registers read here,
 * the kernel's own APIC and timer accesses), which once aborted QEMU
 * ("iotlb_to_section: Assertion `section_index < d->map.sections_nb'
 * failed", docs/reliability.md).  It runs after the tests that ran before
 * lib_unplug when that abort was seen.
 *
 * Checks: every busy client sees its device go away cleanly (ENODEV), the
 * device comes back and runs a job after every rescan and bind, and every
 * register read returned the device's ID or, while BAR0 was not decoded,
 * all ones or zero: never the contents of another register or device.
 * (BAR0 can be mapped from user space only while no driver holds it.)
 *
 * TERN_UNPLUG_CYCLES (default 6) sets the number of remove/rescan cycles,
 * and as many unbind/bind cycles.
 *
 * tern-vm: timeout=300
 */
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "chaos_test.h"

#define VA		0x100000ull
#define BO_SIZE		(64ull << 10)
#define ID_MAGIC	0x5445524eu	/* TERN_REG_ID (docs/hardware.md 4) */
#define CMD_MEMORY	0x2		/* PCI_COMMAND_MEMORY */
#define DECODE_TOGGLES	50
#define MAX_CPUS	64

/* What each register-reading child counts, in memory shared with the parent. */
struct mmio_count {
	uint64_t reads;
	uint64_t foreign;	/* values that are neither the ID, ~0 nor 0 */
	uint32_t first_foreign;
};

static struct drm_tern_get_info info;
static char node[300] = TERN_TEST_NODE;

static bool device_works(void)
{
	int fd;
	bool ok;

	if (!core_find_node(node, sizeof(node), 10000))
		return false;
	fd = open(node, O_RDWR | O_CLOEXEC);
	ok = fd >= 0 && !core_get_info(fd, &info);
	if (fd >= 0)
		close(fd);
	return ok && core_device_works(node, 0x57e55);
}

/*
 * Read register ID through a mapping of BAR0 for ever, on @cpu, eight
 * reads in a row without a branch: under TCG they are one translation
 * block, so when another CPU changes the memory map during the first
 * read, the next ones run before this CPU has seen the change.
 */
static void mmio_reader(const char *resource0, int cpu, volatile struct mmio_count *c,
			int ready)
{
	int fd = open(resource0, O_RDONLY | O_SYNC);
	volatile uint32_t *bar0;
	uint32_t v[8];
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (fd < 0 || sched_setaffinity(0, sizeof(set), &set))
		_exit(2);
	bar0 = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (bar0 == MAP_FAILED)
		_exit(3);
	if (write(ready, "r", 1) != 1)
		_exit(4);
	for (;;) {
		v[0] = bar0[0];
		v[1] = bar0[0];
		v[2] = bar0[0];
		v[3] = bar0[0];
		v[4] = bar0[0];
		v[5] = bar0[0];
		v[6] = bar0[0];
		v[7] = bar0[0];
		for (i = 0; i < 8; i++) {
			if (v[i] != ID_MAGIC && v[i] != ~0u && v[i] != 0) {
				if (!c->foreign)
					c->first_foreign = v[i];
				c->foreign++;
			}
		}
		c->reads += 8;
	}
}

/*
 * A client keeping every engine busy until the device goes away.  Exit
 * status: 0 the clean error (ENODEV), 10 + the errno of any other error,
 * 2-3 setup failures.
 */
static void busy_client(int ready)
{
	uint32_t ctx[DRM_TERN_MAX_ENGINES], bo, e;
	void *mem;
	int fd = open(node, O_RDWR | O_CLOEXEC), ret;

	if (fd < 0 || core_bo(fd, BO_SIZE, VA, &bo, &mem))
		_exit(2);
	munmap(mem, BO_SIZE);
	for (e = 0; e < info.engine_count; e++)
		if (ctx_create(fd, 1, info.engine_class[e], 0, &ctx[e]))
			_exit(3);
	ret = chaos_keep_busy(fd, ctx, info.engine_count, bo, VA, 0, ready);
	_exit(ret == -ENODEV ? (close(fd) ? 6 : 0) : 10 + -ret);
}

/* Start two busy clients; wait until both have work running. */
static int start_clients(pid_t *pid)
{
	int p[2], i, n = 0;
	char ch;

	if (pipe(p))
		return 0;
	for (i = 0; i < 2; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			close(p[0]);
			busy_client(p[1]);
		}
	}
	close(p[1]);
	for (i = 0; i < 2; i++)
		n += read(p[0], &ch, 1) == 1;
	close(p[0]);
	return n;
}

/* Reap the clients: how many went away cleanly. */
static int reap_clients(const pid_t *pid, const char *what, int cyc)
{
	int i, status, clean = 0;

	for (i = 0; i < 2; i++) {
		waitpid(pid[i], &status, 0);
		if (WIFEXITED(status) && !WEXITSTATUS(status))
			clean++;
		else
			tap_diag("%s %d: client %d: %s %d", what, cyc, i,
				 WIFEXITED(status) ? "exit" : "signal",
				 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	}
	return clean;
}

/* A register reader on each of the @ncpu CPUs: how many mapped BAR0. */
static int start_readers(const char *dev, int ncpu, pid_t *pid, struct mmio_count *count)
{
	char path[600], ch;
	int p[2], i, n = 0;

	snprintf(path, sizeof(path), "%s/resource0", dev);
	if (pipe(p))
		return 0;
	for (i = 0; i < ncpu; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			close(p[0]);
			mmio_reader(path, i, &count[i], p[1]);
		}
	}
	close(p[1]);
	for (i = 0; i < ncpu; i++)
		n += read(p[0], &ch, 1) == 1;
	close(p[0]);
	return n;
}

/* Stop the readers; false if one did not read or died of its own. */
static bool stop_readers(int ncpu, const pid_t *pid, const struct mmio_count *count)
{
	bool ok = true;
	int i, status;

	for (i = 0; i < ncpu; i++) {
		kill(pid[i], SIGKILL);
		waitpid(pid[i], &status, 0);
		if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL || !count[i].reads) {
			tap_diag("reader on CPU %d: %s %d after %llu reads", i,
				 WIFEXITED(status) ? "exit" : "signal",
				 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
				 (unsigned long long)count[i].reads);
			ok = false;
		}
	}
	return ok;
}

/* Switch memory decoding of @bdf off and on again @n times (config space). */
static bool toggle_decode(const char *dev, int n)
{
	char path[600];
	uint16_t cmd, off;
	bool ok;
	int fd, i;

	snprintf(path, sizeof(path), "%s/config", dev);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return false;
	ok = pread(fd, &cmd, 2, 4) == 2;
	off = cmd & ~CMD_MEMORY;
	for (i = 0; ok && i < n; i++) {
		ok = pwrite(fd, &off, 2, 4) == 2 && pwrite(fd, &cmd, 2, 4) == 2;
		usleep(2000);	/* the readers run in between */
	}
	close(fd);
	return ok;
}

int main(void)
{
	int cycles = getenv("TERN_UNPLUG_CYCLES") && atoi(getenv("TERN_UNPLUG_CYCLES")) > 0 ?
		     atoi(getenv("TERN_UNPLUG_CYCLES")) : 6;
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), cyc, i;
	int removed = 0, rm_clean = 0, back = 0, unbound = 0, ub_clean = 0, bound = 0;
	int toggled = 0, busy = 0, mapped = 0;
	pid_t reader[MAX_CPUS], client[2];
	struct mmio_count *count;
	char dev[512], bdf[64], path[600];
	uint64_t reads = 0, foreign = 0;
	uint32_t first_foreign = 0;
	bool readers_ok = true;

	tap_plan(9);
	if (ncpu < 1 || ncpu > MAX_CPUS)
		ncpu = 1;
	if (!tap_ok(device_works() && core_pci_dev(dev, sizeof(dev)),
		    "the device works; find its PCI function"))
		return tap_exit_status();
	snprintf(bdf, sizeof(bdf), "%s", strrchr(dev, '/') + 1);
	count = mmap(NULL, sizeof(*count) * MAX_CPUS, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!tap_ok(count != MAP_FAILED, "shared counters"))
		return tap_exit_status();

	for (cyc = 0; cyc < cycles; cyc++) {
		busy += start_clients(client);
		snprintf(path, sizeof(path), "%s/remove", dev);
		if (!core_write_file(path, "1"))
			break;
		removed++;
		rm_clean += reap_clients(client, "remove", cyc);
		if (!core_write_file("/sys/bus/pci/rescan", "1") || !device_works() ||
		    !core_pci_dev(dev, sizeof(dev)))
			break;
		back++;
	}
	snprintf(bdf, sizeof(bdf), "%s", strrchr(dev, '/') + 1);
	for (cyc = 0; cyc < cycles; cyc++) {
		busy += start_clients(client);
		if (!core_write_file("/sys/bus/pci/drivers/tern/unbind", bdf))
			break;
		unbound++;
		ub_clean += reap_clients(client, "unbind", cyc);
		/* no driver holds BAR0 now: it can be mapped */
		memset(count, 0, sizeof(*count) * MAX_CPUS);
		mapped += start_readers(dev, ncpu, reader, count) == ncpu;
		toggled += toggle_decode(dev, DECODE_TOGGLES);
		readers_ok &= stop_readers(ncpu, reader, count);
		for (i = 0; i < ncpu; i++) {
			if (count[i].foreign && !foreign)
				first_foreign = count[i].first_foreign;
			reads += count[i].reads;
			foreign += count[i].foreign;
		}
		if (!core_write_file("/sys/bus/pci/drivers/tern/bind", bdf) || !device_works())
			break;
		bound++;
	}

	tap_diag("%d CPUs, %d cycles: %llu register reads, %llu foreign values (first 0x%08x)",
		 ncpu, cycles, (unsigned long long)reads, (unsigned long long)foreign,
		 first_foreign);
	tap_ok(busy == 4 * cycles, "two clients had work queued on every engine before each "
	       "removal and unbind (%d of %d)", busy, 4 * cycles);
	tap_ok(removed == cycles && back == cycles,
	       "removed while busy and rescanned %d times, the device ran a job after each "
	       "(%d, %d)", cycles, removed, back);
	tap_ok(rm_clean == 2 * removed && removed,
	       "every client of a removed device got ENODEV and closed cleanly (%d of %d)",
	       rm_clean, 2 * removed);
	tap_ok(unbound == cycles && bound == cycles,
	       "unbound while busy and bound %d times, the device ran a job after each (%d, %d)",
	       cycles, unbound, bound);
	tap_ok(ub_clean == 2 * unbound && unbound,
	       "every client of an unbound device got ENODEV and closed cleanly (%d of %d)",
	       ub_clean, 2 * unbound);
	tap_ok(toggled == unbound && mapped == unbound && unbound,
	       "while unbound, BAR0 mapped on every CPU (%d times) and memory decoding "
	       "switched off and on %d times (%d times)", mapped, DECODE_TOGGLES, toggled);
	tap_ok(readers_ok && reads && !foreign,
	       "register ID read %llu times during the switches: never another value "
	       "(%llu foreign)", (unsigned long long)reads, (unsigned long long)foreign);
	return tap_exit_status();
}
