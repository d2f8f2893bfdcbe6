// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * vm_unmap_race: an unmap racing submits of the same file.  One thread
 * submits, one after the other, jobs that write their number into a page
 * of a BO (WRITE_IMM) and then stay busy for 50 ms (SPIN); another maps
 * the BO 16 times back to back (1 GiB of VA, the marker page last), lets
 * the jobs run a little, and unmaps the whole range in one call, over and
 * over.
 *
 * The rule checked: nothing is released while a job that could reach it
 * is unfinished, i.e. when the unmap returns, the job whose number is in
 * the page (it wrote through this mapping) has finished.  A job submitted
 * after the unmap waited for the file's jobs, but before it removed the
 * marker's entry, writes the marker and is still spinning when an unmap
 * that frees without waiting for it returns.  Clearing 1 GiB of entries
 * takes long enough that this happens in most rounds; the test also
 * requires that it happened ("window jobs") so that it cannot pass
 * without the race.
 *
 * tern-vm: timeout=150
 */
#include <pthread.h>
#include <stdatomic.h>

#include "core_test.h"

#define BO_SIZE		(64ull << 20)
#define NMAP		16
#define BASE		(1ull << 40)
#define RANGE		(NMAP * BO_SIZE)
#define MARKER_VA	(BASE + RANGE - PAGE4K)
#define MARKER_OFF	(BO_SIZE - PAGE4K)
#define SPIN_US		50000
#define RING		256
#define MAX_ROUNDS	400
#define MAX_SECONDS	80
#define WANT_WINDOW	10

struct race {
	int fd;
	atomic_bool stop;
	atomic_uint next_id;		/* number of the next job */
	uint32_t so[RING];		/* out-syncobj of job id: so[id % RING] */
	_Atomic int64_t submit_ns[RING];	/* when job id was submitted */
	atomic_uint faults;		/* submits refused: context faulted */
	atomic_int error;		/* unexpected submit error */
};

static void *submitter(void *arg)
{
	struct race *r = arg;
	uint32_t ctx = 0, dw[8], n;
	unsigned int seed = 1;
	int ret;

	while (!atomic_load(&r->stop)) {
		unsigned int id = atomic_load(&r->next_id);

		if (!ctx) {
			ret = ctx_create(r->fd, DRM_TERN_PRIORITY_NORMAL,
					 DRM_TERN_ENGINE_CLASS_COMPUTE, 0, &ctx);
			if (ret) {
				atomic_store(&r->error, ret);
				break;
			}
		}
		n = 0;
		pkt_write_imm(dw, &n, MARKER_VA, id);
		pkt_spin(dw, &n, SPIN_US);
		atomic_store(&r->submit_ns[id % RING], now_ns());
		ret = submit(r->fd, ctx, dw, n, NULL, 0, 0, r->so[id % RING], NULL);
		if (ret == -EIO) {
			/* a job faulted on the unmapped range: a new context */
			atomic_fetch_add(&r->faults, 1);
			ctx_destroy(r->fd, ctx);
			ctx = 0;
			continue;
		}
		if (ret) {
			atomic_store(&r->error, ret);
			break;
		}
		atomic_store(&r->next_id, id + 1);
		syncobj_wait(r->fd, r->so[id % RING], 10000);
		/* vary the phase against the unmap a little */
		usleep(rand_r(&seed) % 1500);
	}
	if (ctx)
		ctx_destroy(r->fd, ctx);
	return NULL;
}

int main(void)
{
	static struct race r;
	unsigned int rounds = 0, checked = 0, window = 0, violations = 0;
	int64_t t_start, unmap_ns_max = 0;
	volatile uint32_t *marker;
	unsigned int seed = 7, i;
	pthread_t t;
	uint64_t size;
	uint32_t h;
	void *cpu;
	int ret = 0;

	r.fd = tern_test_open();
	if (r.fd < 0 || bo_create(r.fd, BO_SIZE, &h) ||
	    !(cpu = bo_mmap(r.fd, h, &size))) {
		tap_ok(false, "open the device and create a 64 MiB BO");
		return tap_exit_status();
	}
	marker = (volatile uint32_t *)((char *)cpu + MARKER_OFF);
	for (i = 0; i < RING; i++) {
		/* signalled at first: an unused slot never looks busy */
		if (drmSyncobjCreate(r.fd, DRM_SYNCOBJ_CREATE_SIGNALED, &r.so[i])) {
			tap_ok(false, "create syncobjs: %s", strerror(errno));
			return tap_exit_status();
		}
	}
	atomic_store(&r.next_id, 1);
	if (pthread_create(&t, NULL, submitter, &r)) {
		tap_ok(false, "start the submitting thread");
		return tap_exit_status();
	}

	t_start = now_ns();
	while (rounds < MAX_ROUNDS && !ret &&
	       now_ns() - t_start < MAX_SECONDS * 1000000000ll &&
	       !(window >= WANT_WINDOW && rounds >= 40)) {
		int64_t t0, t1;
		uint32_t m;

		*marker = 0;
		for (i = 0; i < NMAP && !ret; i++)
			ret = vm_map(r.fd, h, BASE + i * BO_SIZE, 0, BO_SIZE);
		if (ret)
			break;
		usleep(rand_r(&seed) % 20000);
		t0 = now_ns();
		ret = vm_unmap(r.fd, BASE, RANGE);
		t1 = now_ns();
		/* what the unmap left behind, before anything can change */
		m = *marker;
		if (m) {
			uint32_t so = r.so[m % RING];
			bool busy = drmSyncobjWait(r.fd, &so, 1, 0, 0, NULL) &&
				    errno == ETIME;

			/* the slot is only reused RING jobs later */
			if (atomic_load(&r.next_id) < m + RING) {
				checked++;
				if (atomic_load(&r.submit_ns[m % RING]) > t0)
					window++;
				if (busy) {
					violations++;
					if (violations <= 5)
						tap_diag("round %u: job %u wrote through the mapping and was still running when the unmap returned",
							 rounds, m);
				}
			}
		}
		if (t1 - t0 > unmap_ns_max)
			unmap_ns_max = t1 - t0;
		rounds++;
	}
	atomic_store(&r.stop, true);
	pthread_join(t, NULL);

	tap_ok(!ret, "%u rounds of map 16 x 64 MiB, unmap 1 GiB (%s)", rounds,
	       ret ? strerror(-ret) : "ok");
	tap_ok(!atomic_load(&r.error), "the submitting thread saw no error but EIO (%s)",
	       strerror(-atomic_load(&r.error)));
	tap_diag("%u jobs, %u refused after a fault, %u rounds with a marker, longest unmap %.1f ms",
		 atomic_load(&r.next_id) - 1, atomic_load(&r.faults), checked,
		 unmap_ns_max / 1e6);
	tap_ok(window >= 1,
	       "jobs submitted while the unmap ran wrote through the mapping in %u rounds",
	       window);
	tap_ok(!violations,
	       "no unmap returned while a job that wrote through its mapping was running (%u did, of %u)",
	       violations, checked);

	close(r.fd);
	tap_done();
	return tap_exit_status();
}
