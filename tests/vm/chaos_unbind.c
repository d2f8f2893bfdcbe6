// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * chaos_unbind: remove the PCI device (sysfs remove) while several client
 * processes keep every engine busy, and bring it back with a bus rescan,
 * in a loop.  Every client must get a clean error (ENODEV from its next
 * ioctl, its last fence signalled, its file closing normally) instead of
 * hanging or crashing; after each rescan the device runs a correct job.
 *
 * Nothing leaks.  Buffer objects: tern counts the system memory of a
 * device's BOs (debugfs "memory", system_bytes) per device instance, and
 * the removal takes the removed device's debugfs files with it while its
 * clients still hold their BOs: what they free afterwards cannot be seen
 * from here, and the device the rescan makes counts from 0.  So the test
 * checks what it can see: with the clients busy the device counts their
 * 3 x 2 MiB (the counter sees their BOs, on every instance), and every
 * device the rescan makes has no BO memory once the job that shows it
 * works is freed (nothing of the old device is counted on the new one).
 * A BO of a removed device left behind shows as the driver's warning when
 * that device is released (pages still counted), and a reference left
 * behind as the old device never released (its minor taken, checked
 * below).  Kernel objects: SUnreclaim in /proc/meminfo is back near where
 * it was after the first cycle.
 *
 * TERN_CHAOS_CYCLES (default 4) scales the number of cycles.
 *
 * tern-vm: timeout=300
 */
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include "chaos_test.h"

#define VA	0x100000ull
#define BO_SIZE	(2ull << 20)

static struct drm_tern_get_info info;
static char node[300] = TERN_TEST_NODE;	/* where the device is now */

/* Once the device is back: does it run a job?  (Its info is kept for the clients.) */
static bool device_works(void)
{
	int fd;
	bool ok;

	if (!core_find_node(node, sizeof(node), 4000))
		return false;
	fd = open(node, O_RDWR | O_CLOEXEC);
	ok = fd >= 0 && !core_get_info(fd, &info);
	if (fd >= 0)
		close(fd);
	return ok && core_device_works(node, 0x4eb1d);
}

/*
 * A client keeping every engine busy until the device goes away.  Exit
 * status: 0 the clean error (ENODEV) and a signalled last fence, 10 + the
 * errno of any other error, 2-5 setup failures.
 */
static void busy_client(int ready)
{
	uint32_t ctx[DRM_TERN_MAX_ENGINES], bo, so, e;
	volatile uint32_t *mem;
	int fd = open(node, O_RDWR | O_CLOEXEC), ret, sync_fd = -1;

	if (fd < 0 || core_bo(fd, BO_SIZE, VA, &bo, (void **)&mem))
		_exit(2);
	memset((void *)mem, 0x33, BO_SIZE);
	munmap((void *)mem, BO_SIZE);
	for (e = 0; e < info.engine_count; e++)
		if (ctx_create(fd, 1, info.engine_class[e], 0, &ctx[e]))
			_exit(3);
	so = syncobj_new(fd);
	ret = chaos_keep_busy(fd, ctx, info.engine_count, bo, VA, so, ready);
	if (ret != -ENODEV)
		_exit(10 + -ret);
	/* the fence of the last queued job has signalled, or signals at once */
	if (drmSyncobjExportSyncFile(fd, so, &sync_fd) == 0) {
		struct pollfd pfd = { .fd = sync_fd, .events = POLLIN };

		if (poll(&pfd, 1, 10000) != 1)
			_exit(7);
		close(sync_fd);
	}
	_exit(close(fd) ? 6 : 0);
}

/* Who may still hold the old device: open files of any process, tern's users. */
static void show_holders(void)
{
	char link[600], target[300], line[300];
	struct dirent *p, *f;
	DIR *proc = opendir("/proc"), *fds;
	FILE *m;
	ssize_t n;

	while (proc && (p = readdir(proc))) {
		if (p->d_name[0] < '0' || p->d_name[0] > '9')
			continue;
		snprintf(link, sizeof(link), "/proc/%s/fd", p->d_name);
		fds = opendir(link);
		while (fds && (f = readdir(fds))) {
			snprintf(link, sizeof(link), "/proc/%s/fd/%s", p->d_name, f->d_name);
			n = readlink(link, target, sizeof(target) - 1);
			if (n > 0) {
				target[n] = 0;
				if (strstr(target, "accel"))
					tap_diag("  pid %s fd %s -> %s", p->d_name, f->d_name, target);
			}
		}
		if (fds)
			closedir(fds);
	}
	if (proc)
		closedir(proc);
	m = fopen("/proc/modules", "r");
	while (m && fgets(line, sizeof(line), m))
		if (!strncmp(line, "tern ", 5))
			tap_diag("  %s", line);
	if (m)
		fclose(m);
}

int main(void)
{
	int cycles = chaos_cycles(), cyc, i, status;
	int clean = 0, removed = 0, back = 0, lingered = 0, counted = 0, fresh = 0;
	const long bos_kb = 3 * (long)(BO_SIZE >> 10);
	long slab0 = -1, slab1, idle, busy;
	char dev[512], path[600];

	tap_plan(7);
	if (!tap_ok(device_works() && core_pci_dev(dev, sizeof(dev)),
		    "the device works; find its PCI function"))
		return tap_exit_status();
	idle = chaos_idle_kb();
	snprintf(path, sizeof(path), "%s/remove", dev);
	for (cyc = 0; cyc < cycles; cyc++) {
		pid_t pid[3];
		int p[2];
		char ch;

		if (pipe(p))
			break;
		for (i = 0; i < 3; i++) {
			pid[i] = fork();
			if (pid[i] == 0) {
				close(p[0]);
				busy_client(p[1]);
			}
		}
		close(p[1]);
		for (i = 0; i < 3; i++)
			if (read(p[0], &ch, 1) != 1)
				break;
		close(p[0]);
		busy = tern_system_kb();
		if (idle >= 0 && busy >= idle + bos_kb)
			counted++;
		else
			tap_diag("cycle %d: BO system memory %ld kB with the clients busy, %ld kB idle",
				 cyc, busy, idle);
		if (!core_write_file(path, "1"))
			break;
		removed++;
		for (i = 0; i < 3; i++) {
			waitpid(pid[i], &status, 0);
			if (WIFEXITED(status) && !WEXITSTATUS(status))
				clean++;
			else
				tap_diag("cycle %d: client %d: %s %d", cyc, i,
					 WIFEXITED(status) ? "exit" : "signal",
					 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		}
		if (!core_write_file("/sys/bus/pci/rescan", "1") || !device_works())
			break;
		back++;
		fresh += chaos_new_device_empty(cyc, &idle);
		/* the old device must be gone: else the new one gets another minor */
		if (strcmp(node, TERN_TEST_NODE)) {
			lingered++;
			tap_diag("cycle %d: the old device outlived its removal: the new one is %s",
				 cyc, node);
			show_holders();
		}
		if (!core_pci_dev(dev, sizeof(dev)))
			break;
		snprintf(path, sizeof(path), "%s/remove", dev);
		if (cyc == 0)
			slab0 = meminfo_kb("SUnreclaim");
	}
	/* leave the device at its usual node for the tests that follow */
	for (i = 0; lingered && i < 30 && strcmp(node, TERN_TEST_NODE); i++) {
		sleep(1);
		if (!core_pci_dev(dev, sizeof(dev)))
			break;
		snprintf(path, sizeof(path), "%s/remove", dev);
		if (!core_write_file(path, "1") ||
		    (sleep(1), !core_write_file("/sys/bus/pci/rescan", "1")) ||
		    !core_find_node(node, sizeof(node), 4000))
			break;
	}
	slab1 = meminfo_kb("SUnreclaim");
	tap_diag("%d of %d rescans found the old device still holding its minor", lingered,
		 cycles);
	tap_diag("%d cycles: %d removals with 3 busy clients each, %d clean client exits, "
		 "%d rescans; SUnreclaim %ld -> %ld kB", cycles, removed, clean, back, slab0,
		 slab1);
	tap_ok(removed == cycles, "the device removed while busy %d of %d times", removed, cycles);
	tap_ok(clean == 3 * cycles,
	       "every busy client got ENODEV and closed cleanly (%d of %d)", clean, 3 * cycles);
	/*
	 * The last references of a removed device may go from a work item
	 * just after its clients closed: a rescan in that moment gets another
	 * minor, which is not an error.  One that is never released is.
	 */
	tap_ok(!strcmp(node, TERN_TEST_NODE),
	       "the old devices are released: the device is back at %s (%d of %d rescans "
	       "came before the old device's release)", node, lingered, cycles);
	tap_ok(back == cycles, "after every rescan the device runs a correct job (%d of %d)",
	       back, cycles);
	tap_ok(counted == cycles && fresh == back,
	       "the device counts its busy clients' %ld kB of BOs in its system memory (%d of %d "
	       "cycles), a device the rescan makes starts without any (%d of %d)", bos_kb,
	       counted, cycles, fresh, back);
	chaos_slab_check(slab0, slab1, cycles);
	return tap_exit_status();
}
