// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * chaos_reload: unload and reload the module while clients are busy, in a
 * loop.  Each cycle starts clients that keep every engine busy (one of them
 * also holding a CPU mapping and an exported dma-buf); unloading must then
 * fail with EWOULDBLOCK (the kernel's answer while the module is in use,
 * the open files holding it); the clients are SIGKILLed, after which the
 * module unloads, loads again, and the device runs a correct job.
 *
 * Nothing leaks.  Buffer objects: tern counts the system memory of a
 * device's BOs (debugfs "memory", system_bytes), but per device instance:
 * the count of the device a load makes starts at 0, so comparing counts
 * across reloads proves nothing.  So in every cycle, on the device that is
 * about to be unloaded: with the clients busy the count holds their
 * 3 x 2 MiB (the counter sees their BOs), and once they are killed and
 * their files released (the module's reference count at 0) it comes back
 * to the device's idle level, measured before the clients started: any BO
 * of theirs, or its pages, left behind shows there, before the unload
 * that would hide it (where the driver warns of pages still counted).  A
 * device the load makes has no BO memory once the job that shows it works
 * is freed.  Kernel objects: SUnreclaim in /proc/meminfo is back near where
 * it was after the first cycle.
 *
 * TERN_CHAOS_CYCLES (default 4) scales the number of cycles.
 *
 * tern-vm: timeout=300
 */
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "chaos_test.h"

#define VA	0x100000ull
#define BO_SIZE	(2ull << 20)

static struct drm_tern_get_info info;
static char node[300] = TERN_TEST_NODE;	/* where the device is now */

static int delete_module(void)
{
	return syscall(SYS_delete_module, "tern", O_NONBLOCK) ? -errno : 0;
}

/* The module's reference count (its open files, dma-bufs...), or -1. */
static int module_refs(void)
{
	char line[32];

	return core_read_line("/sys/module/tern/refcnt", line, sizeof(line)) ? atoi(line) : -1;
}

/*
 * Wait until nothing holds the module, at most as long as unload() tries:
 * killed clients' files close asynchronously, slowly on a debug kernel.
 */
static void wait_released(void)
{
	int i;

	for (i = 0; i < 1200 && module_refs() > 0; i++)
		usleep(50000);
}

/*
 * unload, retried while the last files are still being released: killed
 * clients' files close asynchronously, slowly on a debug kernel (60 s)
 */
static bool unload(void)
{
	int i;

	for (i = 0; i < 1200; i++) {
		if (!delete_module())
			return true;
		usleep(50000);
	}
	return false;
}

static bool load(char *node, size_t len)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "insmod %s", tern_test_module_path());
	return !system(cmd) && core_find_node(node, len, 2000);
}

/* Does the device at @node run a job?  (Its info is kept for the clients.) */
static bool device_works(const char *node)
{
	int fd = open(node, O_RDWR | O_CLOEXEC);
	bool ok = fd >= 0 && !core_get_info(fd, &info);

	if (fd >= 0)
		close(fd);
	return ok && core_device_works(node, 0x7e10ad);
}

/*
 * A client keeping every engine busy until killed; writes to @ready.  One
 * of them (@extra) keeps a CPU mapping and exports its BO as a dma-buf.
 */
static void busy_client(int ready, bool extra)
{
	uint32_t ctx[DRM_TERN_MAX_ENGINES], bo, e;
	volatile uint32_t *mem;
	int fd = open(node, O_RDWR | O_CLOEXEC), buf_fd = -1;

	if (fd < 0 || core_bo(fd, BO_SIZE, VA, &bo, (void **)&mem))
		_exit(2);
	memset((void *)mem, 0x22, BO_SIZE);
	for (e = 0; e < info.engine_count; e++)
		if (ctx_create(fd, 1, info.engine_class[e], 0, &ctx[e]))
			_exit(3);
	if (extra && drmPrimeHandleToFD(fd, bo, DRM_CLOEXEC, &buf_fd))
		_exit(4);
	if (!extra)
		munmap((void *)mem, BO_SIZE);
	_exit(10 - chaos_keep_busy(fd, ctx, info.engine_count, bo, VA, 0, ready));
}

int main(void)
{
	int cycles = chaos_cycles(), cyc, i, status;
	int busy_refused = 0, unloaded = 0, lingered = 0, loaded = 0, works = 0, killed = 0, wrong_err = 0;
	int counted = 0, back = 0, fresh = 0;
	const long bos_kb = 3 * (long)(BO_SIZE >> 10);
	long slab0 = -1, slab1, idle, busy, left;

	tap_plan(9);
	if (!tap_ok(device_works(TERN_TEST_NODE), "the device works before"))
		return tap_exit_status();
	idle = chaos_idle_kb();
	for (cyc = 0; cyc < cycles; cyc++) {
		pid_t pid[3];
		int p[2], ret;
		char ch;

		if (pipe(p))
			break;
		for (i = 0; i < 3; i++) {
			pid[i] = fork();
			if (pid[i] == 0) {
				close(p[0]);
				busy_client(p[1], i == 0);
			}
		}
		close(p[1]);
		for (i = 0; i < 3; i++)
			if (read(p[0], &ch, 1) != 1)
				break;
		close(p[0]);
		busy = tern_system_kb();
		counted += idle >= 0 && busy >= idle + bos_kb;
		ret = delete_module();
		if (ret == -EWOULDBLOCK)
			busy_refused++;
		else
			tap_diag("cycle %d: unloading while busy: %s", cyc, strerror(-ret));
		wrong_err += ret != -EWOULDBLOCK;
		for (i = 0; i < 3; i++) {
			kill(pid[i], SIGKILL);
			waitpid(pid[i], &status, 0);
			killed += WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
		}
		/* the device is still there: its BO memory must come back */
		wait_released();
		left = tern_system_settled_kb(idle);
		back += idle >= 0 && left >= 0 && left <= idle;
		if (idle < 0 || left < 0 || left > idle || busy < idle + bos_kb)
			tap_diag("cycle %d: BO system memory %ld kB idle, %ld kB with the clients busy, "
				 "%ld kB once they were gone", cyc, idle, busy, left);
		if (!unload()) {
			tap_diag("cycle %d: the module does not unload", cyc);
			break;
		}
		unloaded++;
		if (!load(node, sizeof(node))) {
			tap_diag("cycle %d: no device node after loading the module again", cyc);
			break;
		}
		loaded++;
		/*
		 * The old DRM device must be gone with the module: if anything
		 * still holds it, the new device gets another minor.  Counted,
		 * and the node is used as it is so that the cycles go on.
		 */
		if (strcmp(node, TERN_TEST_NODE)) {
			lingered++;
			tap_diag("cycle %d: the old device outlived the unload: the new one is %s",
				 cyc, node);
		}
		if (!device_works(node))
			break;
		works++;
		fresh += chaos_new_device_empty(cyc, &idle);
		/* the first cycle warms caches up: measure from here */
		if (cyc == 0)
			slab0 = meminfo_kb("SUnreclaim");
	}
	/* leave the device at its usual node for the tests that follow */
	for (i = 0; lingered && i < 30 && strcmp(node, TERN_TEST_NODE); i++) {
		sleep(1);
		if (!unload() || (sleep(1), !load(node, sizeof(node))))
			break;
	}
	slab1 = meminfo_kb("SUnreclaim");
	tap_diag("%d of %d reloads found the old device still holding its minor", lingered,
		 cycles);
	tap_diag("%d cycles: %d unloads refused while busy, %d clients killed, %d unloads, "
		 "%d loads; SUnreclaim %ld -> %ld kB", cycles, busy_refused, killed, unloaded,
		 loaded, slab0, slab1);
	tap_ok(busy_refused == cycles && !wrong_err,
	       "unloading fails with EWOULDBLOCK while clients are busy (%d of %d)",
	       busy_refused, cycles);
	tap_ok(killed == 3 * cycles, "%d busy clients killed", killed);
	tap_ok(unloaded == cycles && loaded == cycles,
	       "the module unloads once they are gone and loads again (%d, %d of %d)",
	       unloaded, loaded, cycles);
	tap_ok(!lingered, "the old device is released by the time the unload returns "
	       "(%d of %d cycles it was not)", lingered, cycles);
	tap_ok(works == cycles, "the device works after every load (%d of %d)", works, cycles);
	tap_ok(counted == cycles,
	       "the device counts the busy clients' %ld kB of BOs in its system memory (%d of %d "
	       "cycles)", bos_kb, counted, cycles);
	tap_ok(back == cycles && fresh == works,
	       "no buffer object leaked: the BO system memory is back to the device's idle level "
	       "once the clients are gone, before every unload (%d of %d cycles), and a loaded "
	       "device starts without any (%d of %d)", back, cycles, fresh, works);
	chaos_slab_check(slab0, slab1, cycles);
	return tap_exit_status();
}
