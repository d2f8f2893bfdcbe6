// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * chaos_kill: clients with work in flight die at the worst moments while an
 * innocent client keeps running checked jobs on every engine:
 * - SIGKILL in the middle of a stream of submits,
 * - SIGKILL while blocked in a syncobj wait behind a full queue,
 * - a client that fills its queues (until EAGAIN) and closes its file.
 * The innocent client's results must all be correct and it must never see
 * an error; afterwards every context of the dead clients is gone (debugfs),
 * their buffer objects are freed (the system memory of the device's BOs,
 * debugfs "memory", back to where it was, after it counted them) and the
 * device runs a correct job.
 *
 * Queues only fill if a client submits faster than the engines finish
 * its jobs: the clients that must fill them make each job last at least
 * four times what submitting one job to every engine has cost them so far
 * (2 ms, or more on a slow guest such as a KASAN kernel), so that they
 * reach the limit whatever the guest's speed.
 *
 * TERN_CHAOS_CYCLES (default 4) scales the number of rounds.
 *
 * tern-vm: timeout=300
 */
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include "chaos_test.h"

#define VA		0x100000ull
#define BO_SIZE		(4ull << 20)	/* per dying client: a leak shows */
#define CHECK_WORDS	256

enum { ST_START, ST_SUBMITTING, ST_WAITING, ST_DONE };

struct shared {
	volatile int state[8];
	volatile unsigned long submits[8];
	volatile uint32_t spin_us[8];	/* of the last job submitted */
};
static struct shared *sh;
static struct drm_tern_get_info info;

/*
 * Device time of a job of a client that must fill its queues: four times
 * what one round of submits (one job per engine) cost so far, 2 ms at least,
 * 200 ms at most.  @elapsed_ns of submitting, @jobs submitted.
 */
static uint32_t fill_spin_us(int64_t elapsed_ns, uint32_t jobs)
{
	int64_t us = jobs ? 4 * elapsed_ns / 1000 * info.engine_count / jobs : 0;

	return us < 2000 ? 2000 : us > 200000 ? 200000 : (uint32_t)us;
}

/* A client with all engines busy; returns what it did, or exits. */
static void client(int id, int mode)
{
	uint32_t dw[16], n, ctx[DRM_TERN_MAX_ENGINES], bo, so, e, j = 0;
	volatile uint32_t *mem;
	int fd = tern_test_open();
	int64_t t0;

	if (fd < 0 || core_bo(fd, BO_SIZE, VA, &bo, (void **)&mem))
		_exit(2);
	memset((void *)mem, 0x11, BO_SIZE);	/* make the pages real */
	for (e = 0; e < info.engine_count; e++)
		if (ctx_create(fd, DRM_TERN_PRIORITY_NORMAL,
			       info.engine_class[e], 0, &ctx[e]))
			_exit(3);
	so = syncobj_new(fd);
	sh->state[id] = ST_SUBMITTING;
	t0 = now_ns();
	for (;;) {
		int ret;

		n = 0;
		sh->spin_us[id] = mode == 0 ? 50 : fill_spin_us(now_ns() - t0, j);
		pkt_spin(dw, &n, sh->spin_us[id]);
		pkt_write_imm(dw, &n, VA + 4 * (j % 1024), j);
		ret = submit(fd, ctx[j % info.engine_count], dw, n, &bo, 1, 0, so, NULL);
		j++;
		if (ret == -EAGAIN) {
			if (mode == 2) {
				/* queues full: close the file with everything queued */
				munmap((void *)mem, BO_SIZE);
				close(fd);
				sh->state[id] = ST_DONE;
				_exit(0);
			}
			if (mode == 1) {
				sh->state[id] = ST_WAITING;
				/* blocks far longer than the test lets it live */
				syncobj_wait(fd, so, 600000);
				sh->state[id] = ST_SUBMITTING;
			}
			usleep(1000);
		} else if (ret) {
			_exit(10 - ret);
		}
		sh->submits[id]++;
	}
}

struct innocent {
	int fd;
	uint32_t ctx[DRM_TERN_MAX_ENGINES], bo, so;
	volatile uint32_t *mem;
	volatile int stop;
	unsigned long jobs, bad, errors;
};

static void *innocent_main(void *p)
{
	struct innocent *in = p;
	uint32_t dw[16], n, seq = 0, e, i;

	while (!in->stop) {
		for (e = 0; e < info.engine_count; e++) {
			uint32_t v = (e << 24) | ++seq;

			n = 0;
			pkt_fill(dw, &n, VA, CHECK_WORDS * 4, v);
			drmSyncobjReset(in->fd, &in->so, 1);
			if (submit(in->fd, in->ctx[e], dw, n, &in->bo, 1, 0, in->so, NULL) ||
			    syncobj_wait(in->fd, in->so, 60000)) {
				in->errors++;
				continue;
			}
			in->jobs++;
			for (i = 0; i < CHECK_WORDS && in->mem[i] == v; i++)
				;
			in->bad += i < CHECK_WORDS;
		}
	}
	return NULL;
}

enum { REACHED, LATE, ENDED };

/*
 * Wait (120 s at most) until client @id reaches @state: REACHED, LATE (it
 * still runs) or ENDED (it ended before, and was reaped).
 */
static int wait_state(int id, pid_t pid, int state, unsigned long submits)
{
	int64_t end = now_ns() + 120000000000ll;
	int status;

	do {
		if (sh->state[id] == state && sh->submits[id] >= submits)
			return REACHED;
		if (waitpid(pid, &status, WNOHANG) == pid) {
			tap_diag("client %d ended early: %s %d", id,
				 WIFEXITED(status) ? "exit" : "signal",
				 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
			return ENDED;
		}
		usleep(1000);
	} while (now_ns() < end);
	tap_diag("client %d: still in state %d after %lu submits, not in %d", id,
		 sh->state[id], sh->submits[id], state);
	return LATE;
}

int main(void)
{
	int cycles = chaos_cycles(), cyc, m, status, ctx_base;
	unsigned long killed_submit = 0, killed_wait = 0, closed_full = 0, odd = 0;
	uint32_t spin_max = 0;
	struct innocent in = { 0 };
	pthread_t t;
	long sys0, sys1, sys_alive = -1, kb;
	uint32_t e;
	bool ok;

	tap_plan(7);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	in.fd = tern_test_open();
	if (!tap_ok(sh != MAP_FAILED && in.fd >= 0 && !core_get_info(in.fd, &info),
		    "open the device"))
		return tap_exit_status();
	ok = !core_bo(in.fd, 4096, VA, &in.bo, (void **)&in.mem);
	for (e = 0; ok && e < info.engine_count; e++)
		ok = !ctx_create(in.fd, DRM_TERN_PRIORITY_NORMAL, info.engine_class[e], 0,
				 &in.ctx[e]);
	in.so = syncobj_new(in.fd);
	ctx_base = core_context_count();
	sys0 = tern_system_quiet_kb();
	if (!ok || ctx_base < 0 || sys0 < 0)
		tap_diag("setup %d, contexts %d, BO system memory %ld kB", ok, ctx_base, sys0);
	if (!tap_ok(ok && ctx_base >= 0 && sys0 >= 0 &&
		    !pthread_create(&t, NULL, innocent_main, &in),
		    "an innocent client runs checked jobs on all %u engines", info.engine_count))
		return tap_exit_status();

	for (cyc = 0; cyc < cycles; cyc++) {
		int got[3];
		pid_t pid[3];

		for (m = 0; m < 3; m++) {
			sh->state[m] = ST_START;
			sh->submits[m] = 0;
			pid[m] = fork();
			if (pid[m] == 0)
				client(m, m);
		}
		/* mode 0: killed while it streams submits */
		got[0] = wait_state(0, pid[0], ST_SUBMITTING, 20);
		/* its BO, written before it submits, is counted */
		kb = tern_system_kb();
		if (kb > sys_alive)
			sys_alive = kb;
		if (got[0] == REACHED)
			kill(pid[0], SIGKILL);
		/* mode 1: killed while blocked in a wait behind full queues */
		got[1] = wait_state(1, pid[1], ST_WAITING, 0);
		if (got[1] == REACHED) {
			usleep(20000);
			kill(pid[1], SIGKILL);
		}
		/* mode 2: closes its file once its queues are full */
		got[2] = wait_state(2, pid[2], ST_DONE, 0);
		for (m = 0; m < 3; m++) {
			if (got[m] != REACHED) {
				odd++;
				if (got[m] == LATE) {
					kill(pid[m], SIGKILL);
					waitpid(pid[m], &status, 0);
				}
				continue;
			}
			if (m && sh->spin_us[m] > spin_max)
				spin_max = sh->spin_us[m];
			waitpid(pid[m], &status, 0);
			if (m < 2 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
				m == 0 ? killed_submit++ : killed_wait++;
			else if (m == 2 && WIFEXITED(status) && !WEXITSTATUS(status))
				closed_full++;
			else
				odd++;
		}
	}
	in.stop = 1;
	pthread_join(t, NULL);

	tap_diag("%d rounds: %lu killed mid-submit, %lu killed mid-wait, %lu closed with full "
		 "queues (jobs of up to %u us); the innocent ran %lu jobs", cycles, killed_submit,
		 killed_wait, closed_full, spin_max, in.jobs);
	tap_ok(killed_submit == (unsigned long)cycles && killed_wait == (unsigned long)cycles &&
	       closed_full == (unsigned long)cycles && !odd,
	       "every client died or closed as planned (%lu did not)", odd);
	tap_ok(in.jobs > 0 && !in.bad && !in.errors,
	       "the innocent client: %lu jobs, %lu wrong, %lu errors", in.jobs, in.bad, in.errors);
	ok = core_context_count_is(ctx_base, 30000);
	tap_ok(ok, "the dead clients' contexts are gone (%d, was %d)", core_context_count(),
	       ctx_base);
	sys1 = tern_system_settled_kb(sys0);
	tap_ok(sys_alive >= sys0 + (long)(BO_SIZE >> 10) && sys1 >= 0 && sys1 <= sys0,
	       "their %d x 4 MiB of buffer objects are freed (BO system memory %ld kB, was %ld "
	       "kB, %ld kB with a client alive)", 3 * cycles, sys1, sys0, sys_alive);
	close(in.fd);
	tap_ok(core_device_works(TERN_TEST_NODE, 0xc4a05),
	       "the device runs a correct job afterwards");
	return tap_exit_status();
}
