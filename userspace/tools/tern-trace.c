// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2026 The tern authors
 *
 * tern-trace: record what tern's scheduler did, as a timeline.
 *
 * The tern tracepoints (docs/tracepoints.md) are enabled in a tracefs
 * instance of our own, with libtracefs, while a command runs or for a number
 * of seconds; the raw events are then read back and decoded with
 * libtraceevent, sorted by time and turned into:
 *
 * - a Chrome trace-event JSON file (-o) that Perfetto's UI and
 *   chrome://tracing open as it is: one track per engine, per engine slot
 *   and per context; every run of every DMA buffer with the moments it was
 *   programmed into a slot, started on the engine, completed and had its
 *   fence signalled; preemption requests with the policy's reason and their
 *   completion; resumes, faults and resets;
 * - an SVG picture of the same timeline (--svg).
 *
 * The JSON is written one event per line, so that line tools (and the VM
 * test) can read it without a JSON library; it is a single JSON document
 * all the same.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "common.h"

const char *tool_name = "tern-trace";

#define MAX_ENGINES	64
#define NO_TS		UINT64_MAX

enum ev_type {
	EV_SUBMIT,
	EV_QUEUE,
	EV_RUN,
	EV_START,
	EV_COMPLETE,
	EV_SIGNAL,
	EV_PREEMPT_REQUEST,
	EV_PREEMPT_DONE,
	EV_FAULT,
	EV_RESET,
	EV_TYPES,
};

/* tracepoint names, indexed by enum ev_type */
static const char *const ev_names[EV_TYPES] = {
	"tern_job_submit", "tern_job_queue", "tern_job_run", "tern_job_start",
	"tern_job_complete", "tern_job_signal", "tern_preempt_request",
	"tern_job_preempt", "tern_job_fault", "tern_engine_reset",
};

/* enum tern_policy_reason, as the tracepoints print it */
static const char *const reason_names[] = {
	"none", "fifo", "priority", "quantum", "starvation", "promised", "owed",
	"drmfair",
};

/* slot outcomes (docs/hardware.md), and what the driver did without one */
enum {
	OUT_NONE, OUT_COMPLETED, OUT_PREEMPTED, OUT_CANCELLED, OUT_FAULTED,
	OUT_RESET = 100,	/* the engine was reset */
	OUT_DROPPED,		/* signalled without an outcome (device gone) */
};

struct event {
	uint64_t ts;
	unsigned int order;	/* position in the buffer, for a stable sort */
	enum ev_type type;
	uint32_t engine, slot, ctx, seqno, hw_seqno, resume, reason, outcome;
	uint32_t prio, weight, size, bos, kind, offset;
	int32_t error;
	uint64_t run_ns, latency_ns, ran_ns, addr;
};

struct job {
	uint32_t ctx, seqno, engine;
	uint64_t submit, queue, signal;
	int32_t error;
	unsigned int runs, preemptions;
	int first_run, last_run;	/* indexes into runs[], -1 if none */
	int first_started;		/* the first run that started, or -1 */
};

struct run {
	int job;
	uint32_t engine, slot, hw_seqno, resume, reason, outcome;
	uint64_t prog, start, end, run_ns;
};

struct preempt {
	uint32_t engine, ctx, seqno, reason;
	uint64_t request, done, ran_ns, latency_ns;
};

struct mark {		/* faults and resets */
	enum ev_type type;
	uint64_t ts, addr;
	uint32_t engine, ctx, seqno, kind, offset;
};

struct context {
	uint32_t tag, engine, prio, weight;
	bool known;	/* prio and weight come from a tern_job_queue event */
};

struct trace {
	struct event *ev;
	size_t nev, cap_ev;
	struct job *jobs;
	size_t njobs, cap_jobs;
	int *job_hash;		/* open addressing, -1 empty */
	size_t hash_size;
	struct run *runs;
	size_t nruns, cap_runs;
	struct preempt *pre;
	size_t npre, cap_pre;
	struct mark *marks;
	size_t nmarks, cap_marks;
	struct context *ctxs;
	size_t nctxs, cap_ctxs;
	bool engine_used[MAX_ENGINES];
	uint64_t t0, t1;
	unsigned long long lost;
	const char *command;
};

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	void *q;

	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 256;
	q = realloc(p, *cap * size);
	if (!q) {
		fprintf(stderr, "%s: out of memory\n", tool_name);
		exit(TOOL_EXIT_FAIL);
	}
	return q;
}

#define PUSH(arr, n, cap) \
	((arr) = grow((arr), &(cap), (n), sizeof(*(arr))), &(arr)[(n)++])

/* ---- recording ---------------------------------------------------------- */

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static uint64_t field(struct tep_event *e, struct tep_record *rec,
		      const char *name)
{
	unsigned long long v = 0;

	if (!tep_find_field(e, name) ||
	    tep_get_field_val(NULL, e, name, rec, &v, 0))
		return 0;
	return v;
}

static int on_event(struct tep_event *e, struct tep_record *rec, int cpu,
		    void *data)
{
	struct trace *t = data;
	struct event *ev;
	int type;

	(void)cpu;
	for (type = 0; type < EV_TYPES; type++)
		if (!strcmp(e->name, ev_names[type]))
			break;
	if (type == EV_TYPES)
		return 0;
	ev = PUSH(t->ev, t->nev, t->cap_ev);
	memset(ev, 0, sizeof(*ev));
	ev->ts = rec->ts;
	ev->order = (unsigned int)t->nev;
	ev->type = type;
	ev->engine = field(e, rec, "engine");
	ev->slot = field(e, rec, "slot");
	ev->ctx = field(e, rec, "ctx_tag");
	ev->seqno = field(e, rec, "seqno");
	ev->hw_seqno = field(e, rec, "hw_seqno");
	ev->resume = field(e, rec, "resume");
	ev->reason = field(e, rec, "reason");
	ev->outcome = field(e, rec, "outcome");
	ev->prio = field(e, rec, "prio");
	ev->weight = field(e, rec, "weight");
	ev->size = field(e, rec, "size");
	ev->bos = field(e, rec, "bo_count");
	ev->kind = field(e, rec, "kind");
	ev->offset = field(e, rec, "offset");
	ev->error = (int32_t)field(e, rec, "error");
	ev->run_ns = field(e, rec, "run_ns");
	ev->latency_ns = field(e, rec, "latency_ns");
	ev->ran_ns = field(e, rec, "ran_ns");
	ev->addr = field(e, rec, "addr");
	return 0;
}

/* Events the ring buffer dropped, over all CPUs. */
static unsigned long long lost_events(struct tracefs_instance *inst)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	unsigned long long sum = 0;
	char path[64], *text, *p;
	long cpu;

	for (cpu = 0; cpu < cpus; cpu++) {
		snprintf(path, sizeof(path), "per_cpu/cpu%ld/stats", cpu);
		text = tracefs_instance_file_read(inst, path, NULL);
		if (!text)
			continue;
		p = strstr(text, "overrun:");
		if (p)
			sum += strtoull(p + 8, NULL, 10);
		free(text);
	}
	return sum;
}

/* Run @argv (or wait @seconds) with the tern events on; read them into @t. */
static int record(struct trace *t, char **argv, double seconds,
		  unsigned int buffer_kb, int *child_status)
{
	const char *systems[] = { "tern", NULL };
	struct tracefs_instance *inst;
	struct tep_handle *tep = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	char name[64], kb[32];
	pid_t pid = -1;
	int ret = TOOL_EXIT_FAIL;

	*child_status = 0;
	if (access("/sys/module/tern", F_OK)) {
		fprintf(stderr, "%s: no tern tracepoints: the tern module is not loaded\n",
			tool_name);
		return TOOL_EXIT_NODEV;
	}
	snprintf(name, sizeof(name), "tern-trace-%d", (int)getpid());
	inst = tracefs_instance_create(name);
	if (!inst) {
		fprintf(stderr, "%s: cannot create a tracefs instance (%s): run as root, with tracefs or debugfs mounted\n",
			tool_name, strerror(errno));
		return errno == EACCES || errno == EPERM ? TOOL_EXIT_NOPERM : TOOL_EXIT_FAIL;
	}
	snprintf(kb, sizeof(kb), "%u", buffer_kb);
	if (tracefs_instance_file_write(inst, "buffer_size_kb", kb) < 0 ||
	    tracefs_instance_file_write(inst, "trace_clock", "mono") < 0) {
		fprintf(stderr, "%s: cannot set up the trace buffer\n", tool_name);
		goto out;
	}
	tracefs_trace_off(inst);
	if (tracefs_event_enable(inst, "tern", NULL)) {
		fprintf(stderr, "%s: no tern tracepoints: is tern.ko loaded?\n",
			tool_name);
		ret = TOOL_EXIT_NODEV;
		goto out;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	tracefs_trace_on(inst);

	if (argv && argv[0]) {
		pid = fork();
		if (pid < 0) {
			perror("tern-trace: fork");
			goto off;
		}
		if (!pid) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			execvp(argv[0], argv);
			fprintf(stderr, "%s: %s: %s\n", tool_name, argv[0],
				strerror(errno));
			_exit(127);
		}
		/* a ^C goes to the command too; wait for it to end */
		while (waitpid(pid, child_status, 0) < 0 && errno == EINTR)
			;
	} else {
		struct timespec ts = {
			.tv_sec = (time_t)seconds,
			.tv_nsec = (long)((seconds - (time_t)seconds) * 1e9),
		};

		if (seconds > 0) {
			while (!stop_requested && nanosleep(&ts, &ts) && errno == EINTR)
				;
		} else {
			while (!stop_requested)
				pause();
		}
	}
off:
	tracefs_trace_off(inst);
	tracefs_event_disable(inst, "tern", NULL);
	if (pid < 0 && argv && argv[0])
		goto out;

	tep = tracefs_local_events_system(NULL, systems);
	if (!tep) {
		fprintf(stderr, "%s: cannot read the event formats\n", tool_name);
		goto out;
	}
	if (tracefs_iterate_raw_events(tep, inst, NULL, 0, on_event, t)) {
		fprintf(stderr, "%s: cannot read the trace buffer\n", tool_name);
		goto out;
	}
	t->lost = lost_events(inst);
	ret = TOOL_EXIT_OK;
out:
	tep_free(tep);
	tracefs_instance_destroy(inst);
	tracefs_instance_free(inst);
	return ret;
}

/* ---- the model: jobs, runs, preemptions --------------------------------- */

static int cmp_event(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static size_t job_slot(const struct trace *t, uint32_t ctx, uint32_t seqno)
{
	uint64_t h = ((uint64_t)ctx << 32 | seqno) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & (t->hash_size - 1);
}

static struct job *find_job(struct trace *t, uint32_t ctx, uint32_t seqno,
			    uint32_t engine)
{
	size_t i = job_slot(t, ctx, seqno);
	struct job *j;

	for (; t->job_hash[i] >= 0; i = (i + 1) & (t->hash_size - 1)) {
		j = &t->jobs[t->job_hash[i]];
		if (j->ctx == ctx && j->seqno == seqno)
			return j;
	}
	t->job_hash[i] = (int)t->njobs;
	j = PUSH(t->jobs, t->njobs, t->cap_jobs);
	memset(j, 0, sizeof(*j));
	j->ctx = ctx;
	j->seqno = seqno;
	j->engine = engine;
	j->submit = j->queue = j->signal = NO_TS;
	j->first_run = j->last_run = j->first_started = -1;
	return j;
}

static struct context *find_ctx(struct trace *t, uint32_t tag, uint32_t engine)
{
	struct context *c;
	size_t i;

	for (i = 0; i < t->nctxs; i++)
		if (t->ctxs[i].tag == tag)
			return &t->ctxs[i];
	c = PUSH(t->ctxs, t->nctxs, t->cap_ctxs);
	memset(c, 0, sizeof(*c));
	c->tag = tag;
	c->engine = engine;
	return c;
}

static void close_run(struct trace *t, int *open, uint64_t ts, uint32_t outcome,
		      uint64_t run_ns)
{
	struct run *r = &t->runs[*open];

	r->end = ts;
	r->outcome = outcome;
	r->run_ns = run_ns;
	/*
	 * A run cancelled in the second slot by a preemption never ran: it
	 * became the head only as the slots were retired.
	 */
	if (outcome == OUT_CANCELLED)
		r->start = NO_TS;
	if (outcome == OUT_PREEMPTED)
		t->jobs[r->job].preemptions++;
	*open = -1;
}

static void build(struct trace *t)
{
	int open[MAX_ENGINES][2];
	int open_pre[MAX_ENGINES];
	size_t i, k;

	memset(open, 0xff, sizeof(open));
	memset(open_pre, 0xff, sizeof(open_pre));
	qsort(t->ev, t->nev, sizeof(*t->ev), cmp_event);
	for (t->hash_size = 1024; t->hash_size < 2 * t->nev; t->hash_size *= 2)
		;
	t->job_hash = malloc(t->hash_size * sizeof(int));
	if (!t->job_hash) {
		fprintf(stderr, "%s: out of memory\n", tool_name);
		exit(TOOL_EXIT_FAIL);
	}
	memset(t->job_hash, 0xff, t->hash_size * sizeof(int));
	if (t->nev) {
		t->t0 = t->ev[0].ts;
		t->t1 = t->ev[t->nev - 1].ts;
	}

	for (i = 0; i < t->nev; i++) {
		struct event *e = &t->ev[i];
		uint32_t eng = e->engine % MAX_ENGINES, slot = e->slot & 1;
		struct context *c;
		struct job *j;
		struct run *r;
		int *o;

		t->engine_used[eng] = true;
		switch (e->type) {
		case EV_SUBMIT:
			j = find_job(t, e->ctx, e->seqno, eng);
			j->submit = e->ts;
			find_ctx(t, e->ctx, eng);
			break;
		case EV_QUEUE:
			j = find_job(t, e->ctx, e->seqno, eng);
			if (j->queue == NO_TS)
				j->queue = e->ts;
			c = find_ctx(t, e->ctx, eng);
			c->prio = e->prio;
			c->weight = e->weight;
			c->known = true;
			break;
		case EV_RUN:
			j = find_job(t, e->ctx, e->seqno, eng);
			find_ctx(t, e->ctx, eng);
			o = &open[eng][slot];
			if (*o >= 0)	/* a slot reused without an outcome */
				close_run(t, o, e->ts, OUT_DROPPED, 0);
			r = PUSH(t->runs, t->nruns, t->cap_runs);
			memset(r, 0, sizeof(*r));
			r->job = (int)(j - t->jobs);
			r->engine = eng;
			r->slot = slot;
			r->hw_seqno = e->hw_seqno;
			r->resume = e->resume;
			r->reason = e->reason;
			r->prog = e->ts;
			r->start = r->end = NO_TS;
			if (j->first_run < 0)
				j->first_run = (int)(t->nruns - 1);
			j->last_run = (int)(t->nruns - 1);
			j->runs++;
			*o = (int)(t->nruns - 1);
			break;
		case EV_START:
			o = &open[eng][slot];
			if (*o >= 0 && t->jobs[t->runs[*o].job].ctx == e->ctx &&
			    t->jobs[t->runs[*o].job].seqno == e->seqno &&
			    t->runs[*o].start == NO_TS)
				t->runs[*o].start = e->ts;
			break;
		case EV_COMPLETE:
			o = &open[eng][slot];
			if (*o >= 0 && t->jobs[t->runs[*o].job].seqno == e->seqno &&
			    t->jobs[t->runs[*o].job].ctx == e->ctx)
				close_run(t, o, e->ts, e->outcome, e->run_ns);
			break;
		case EV_SIGNAL:
			j = find_job(t, e->ctx, e->seqno, eng);
			j->signal = e->ts;
			j->error = e->error;
			/* a run that ended without an outcome (reset, removal) */
			for (k = 0; k < 2; k++) {
				o = &open[eng][k];
				if (*o >= 0 && t->runs[*o].job == (int)(j - t->jobs))
					close_run(t, o, e->ts, OUT_DROPPED, 0);
			}
			break;
		case EV_PREEMPT_REQUEST: {
			struct preempt *p = PUSH(t->pre, t->npre, t->cap_pre);

			memset(p, 0, sizeof(*p));
			p->engine = eng;
			p->ctx = e->ctx;
			p->seqno = e->seqno;
			p->reason = e->reason;
			p->ran_ns = e->ran_ns;
			p->request = e->ts;
			p->done = NO_TS;
			open_pre[eng] = (int)(t->npre - 1);
			break;
		}
		case EV_PREEMPT_DONE:
			if (open_pre[eng] >= 0) {
				t->pre[open_pre[eng]].done = e->ts;
				t->pre[open_pre[eng]].latency_ns = e->latency_ns;
				open_pre[eng] = -1;
			}
			break;
		case EV_FAULT:
		case EV_RESET: {
			struct mark *m = PUSH(t->marks, t->nmarks, t->cap_marks);

			memset(m, 0, sizeof(*m));
			m->type = e->type;
			m->ts = e->ts;
			m->engine = eng;
			m->ctx = e->ctx;
			m->seqno = e->seqno;
			m->kind = e->kind;
			m->addr = e->addr;
			m->offset = e->offset;
			if (e->type == EV_RESET) {
				for (k = 0; k < 2; k++) {
					o = &open[eng][k];
					if (*o < 0)
						continue;
					/* only the guilty job ran; the other was pending */
					j = &t->jobs[t->runs[*o].job];
					if (j->ctx != e->ctx || j->seqno != e->seqno)
						t->runs[*o].start = NO_TS;
					close_run(t, o, e->ts, OUT_RESET, 0);
				}
				open_pre[eng] = -1;
			}
			break;
		}
		case EV_TYPES:
			break;
		}
	}
	/* runs still open when recording stopped end there */
	for (i = 0; i < MAX_ENGINES; i++)
		for (k = 0; k < 2; k++)
			if (open[i][k] >= 0)
				close_run(t, &open[i][k], t->t1, OUT_NONE, 0);
	for (i = 0; i < t->nruns; i++) {
		struct job *j = &t->jobs[t->runs[i].job];

		if (t->runs[i].start != NO_TS && j->first_started < 0)
			j->first_started = (int)i;
	}
}

static const char *prio_name(uint32_t prio)
{
	static const char *const names[] = { "low", "normal", "high" };

	return prio < 3 ? names[prio] : "?";
}

static const char *outcome_name(uint32_t outcome)
{
	switch (outcome) {
	case OUT_COMPLETED: return "completed";
	case OUT_PREEMPTED: return "preempted";
	case OUT_CANCELLED: return "cancelled";
	case OUT_FAULTED: return "faulted";
	case OUT_RESET: return "reset";
	case OUT_DROPPED: return "dropped";
	default: return "unfinished";
	}
}

static const char *reason_name(uint32_t reason)
{
	return reason < sizeof(reason_names) / sizeof(reason_names[0]) ?
	       reason_names[reason] : "?";
}

static const struct context *ctx_of(const struct trace *t, uint32_t tag)
{
	size_t i;

	for (i = 0; i < t->nctxs; i++)
		if (t->ctxs[i].tag == tag)
			return &t->ctxs[i];
	return NULL;
}

static void ctx_label(const struct trace *t, uint32_t tag, char *buf, size_t len)
{
	const struct context *c = ctx_of(t, tag);

	if (c && c->known)
		snprintf(buf, len, "ctx %u (%s, weight %u)", tag,
			 prio_name(c->prio), c->weight);
	else
		snprintf(buf, len, "ctx %u", tag);
}

/* ---- Chrome trace-event JSON --------------------------------------------- */

#define PID_ENGINES	1
#define PID_CONTEXTS	2

static unsigned int tid_engine(uint32_t eng) { return 1 + eng * 4; }
static unsigned int tid_slot(uint32_t eng, uint32_t slot) { return 2 + eng * 4 + slot; }
static unsigned int tid_preempt(uint32_t eng) { return 4 + eng * 4; }

/* microseconds since the first event, as Chrome's "ts" wants */
static double us(const struct trace *t, uint64_t ts)
{
	return (double)(ts - t->t0) / 1000.0;
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void json_meta(FILE *f, int pid, int tid, const char *what, const char *name)
{
	fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"%s\",\"args\":{\"name\":",
		pid, tid, what);
	json_string(f, name);
	fprintf(f, "}},\n");
	if (tid)
		fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%d}},\n",
			pid, tid, tid);
}

static void json_run_args(FILE *f, const struct trace *t, const struct run *r)
{
	const struct job *j = &t->jobs[r->job];
	const struct context *c = ctx_of(t, j->ctx);

	fprintf(f, "\"args\":{\"ctx\":%u,\"seqno\":%u,\"prio\":%d,\"engine\":%u,\"slot\":%u,"
		"\"hw_seqno\":%u,\"resume\":%u,\"reason\":\"%s\",\"outcome\":\"%s\","
		"\"run_ns\":%" PRIu64 ",\"programmed_us\":%.3f",
		j->ctx, j->seqno, c && c->known ? (int)c->prio : -1, r->engine,
		r->slot, r->hw_seqno, r->resume, reason_name(r->reason),
		outcome_name(r->outcome), r->run_ns, us(t, r->prog));
	if (r->start != NO_TS)
		fprintf(f, ",\"started_us\":%.3f", us(t, r->start));
	fprintf(f, ",\"ended_us\":%.3f}", us(t, r->end));
}

static void json_instant(FILE *f, const struct trace *t, int pid, unsigned int tid,
			 uint64_t ts, const char *cat, const char *name)
{
	fprintf(f, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,"
		"\"cat\":\"%s\",\"name\":\"%s\"", pid, tid, us(t, ts), cat, name);
}

static int write_json(const struct trace *t, const char *path)
{
	FILE *f = fopen(path, "w");
	char label[96];
	size_t i;

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", tool_name, path, strerror(errno));
		return -1;
	}
	fprintf(f, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"tool\":\"tern-trace\","
		"\"format\":1,\"clock\":\"mono\",\"t0_ns\":%" PRIu64 ",\"lost_events\":%llu,"
		"\"command\":", t->t0, t->lost);
	json_string(f, t->command ? t->command : "");
	fprintf(f, "},\n\"traceEvents\":[\n");

	json_meta(f, PID_ENGINES, 0, "process_name", "tern engines");
	json_meta(f, PID_CONTEXTS, 0, "process_name", "tern contexts");
	fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":1}},\n",
		PID_ENGINES);
	fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":2}},\n",
		PID_CONTEXTS);
	for (i = 0; i < MAX_ENGINES; i++) {
		if (!t->engine_used[i])
			continue;
		snprintf(label, sizeof(label), "engine %zu", i);
		json_meta(f, PID_ENGINES, tid_engine(i), "thread_name", label);
		snprintf(label, sizeof(label), "engine %zu slot 0", i);
		json_meta(f, PID_ENGINES, tid_slot(i, 0), "thread_name", label);
		snprintf(label, sizeof(label), "engine %zu slot 1", i);
		json_meta(f, PID_ENGINES, tid_slot(i, 1), "thread_name", label);
		snprintf(label, sizeof(label), "engine %zu preemption", i);
		json_meta(f, PID_ENGINES, tid_preempt(i), "thread_name", label);
	}
	for (i = 0; i < t->nctxs; i++) {
		ctx_label(t, t->ctxs[i].tag, label, sizeof(label));
		json_meta(f, PID_CONTEXTS, (int)t->ctxs[i].tag, "thread_name", label);
	}

	/* each run: in its slot, on the engine once started, on its context */
	for (i = 0; i < t->nruns; i++) {
		const struct run *r = &t->runs[i];
		const struct job *j = &t->jobs[r->job];

		snprintf(label, sizeof(label), "ctx %u job %u%s", j->ctx, j->seqno,
			 r->resume ? " (resumed)" : "");
		fprintf(f, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,"
			"\"cat\":\"slot\",\"name\":\"%s\",", PID_ENGINES,
			tid_slot(r->engine, r->slot), us(t, r->prog),
			(double)(r->end - r->prog) / 1000.0, label);
		json_run_args(f, t, r);
		fprintf(f, "},\n");
		if (r->start == NO_TS)
			continue;
		fprintf(f, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,"
			"\"cat\":\"run\",\"name\":\"%s\",", PID_ENGINES,
			tid_engine(r->engine), us(t, r->start),
			(double)(r->end - r->start) / 1000.0, label);
		json_run_args(f, t, r);
		fprintf(f, "},\n");
		snprintf(label, sizeof(label), "job %u%s", j->seqno,
			 r->resume ? " (resumed)" : "");
		fprintf(f, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,"
			"\"cat\":\"ctxrun\",\"name\":\"%s\",", PID_CONTEXTS, j->ctx,
			us(t, r->start), (double)(r->end - r->start) / 1000.0, label);
		json_run_args(f, t, r);
		fprintf(f, "},\n");
	}

	/* each job: its life from submission to its fence, and its moments */
	for (i = 0; i < t->njobs; i++) {
		const struct job *j = &t->jobs[i];
		const struct run *first = j->first_run >= 0 ? &t->runs[j->first_run] : NULL;
		const struct run *last = j->last_run >= 0 ? &t->runs[j->last_run] : NULL;
		uint64_t b = j->submit != NO_TS ? j->submit :
			     j->queue != NO_TS ? j->queue :
			     first ? first->prog : j->signal;
		uint64_t e = j->signal != NO_TS ? j->signal : t->t1;

		if (b == NO_TS)
			continue;
		fprintf(f, "{\"ph\":\"b\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"cat\":\"job\","
			"\"id\":\"0x%" PRIx64 "\",\"name\":\"job %u\",\"args\":{\"ctx\":%u,"
			"\"seqno\":%u,\"engine\":%u,\"runs\":%u,\"preemptions\":%u,\"error\":%d",
			PID_CONTEXTS, j->ctx, us(t, b), (uint64_t)j->ctx << 32 | j->seqno,
			j->seqno, j->ctx, j->seqno, j->engine, j->runs, j->preemptions,
			j->error);
		if (j->submit != NO_TS)
			fprintf(f, ",\"submitted_us\":%.3f", us(t, j->submit));
		if (j->queue != NO_TS)
			fprintf(f, ",\"ready_us\":%.3f", us(t, j->queue));
		if (first)
			fprintf(f, ",\"programmed_us\":%.3f", us(t, first->prog));
		if (j->first_started >= 0)
			fprintf(f, ",\"started_us\":%.3f",
				us(t, t->runs[j->first_started].start));
		if (last && last->outcome == OUT_COMPLETED)
			fprintf(f, ",\"completed_us\":%.3f", us(t, last->end));
		if (j->signal != NO_TS)
			fprintf(f, ",\"signalled_us\":%.3f", us(t, j->signal));
		fprintf(f, "}},\n");
		fprintf(f, "{\"ph\":\"e\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"cat\":\"job\","
			"\"id\":\"0x%" PRIx64 "\",\"name\":\"job %u\"},\n", PID_CONTEXTS,
			j->ctx, us(t, e), (uint64_t)j->ctx << 32 | j->seqno, j->seqno);
		if (j->submit != NO_TS) {
			json_instant(f, t, PID_CONTEXTS, j->ctx, j->submit, "moment", "submitted");
			fprintf(f, ",\"args\":{\"seqno\":%u}},\n", j->seqno);
		}
		if (j->signal != NO_TS) {
			json_instant(f, t, PID_CONTEXTS, j->ctx, j->signal, "moment",
				     "fence signalled");
			fprintf(f, ",\"args\":{\"seqno\":%u,\"error\":%d}},\n", j->seqno,
				j->error);
		}
	}

	for (i = 0; i < t->npre; i++) {
		const struct preempt *p = &t->pre[i];

		snprintf(label, sizeof(label), "preempt ctx %u job %u (%s)", p->ctx,
			 p->seqno, reason_name(p->reason));
		if (p->done != NO_TS)
			fprintf(f, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,",
				PID_ENGINES, tid_preempt(p->engine), us(t, p->request),
				(double)(p->done - p->request) / 1000.0);
		else
			fprintf(f, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,",
				PID_ENGINES, tid_preempt(p->engine), us(t, p->request));
		fprintf(f, "\"cat\":\"preempt\",\"name\":\"%s\",\"args\":{\"ctx\":%u,\"seqno\":%u,"
			"\"engine\":%u,\"reason\":\"%s\",\"ran_ns\":%" PRIu64 ",\"served\":%d,"
			"\"latency_ns\":%" PRIu64 "}},\n", label, p->ctx, p->seqno, p->engine,
			reason_name(p->reason), p->ran_ns, p->done != NO_TS, p->latency_ns);
	}

	for (i = 0; i < t->nmarks; i++) {
		const struct mark *m = &t->marks[i];
		const char *what = m->type == EV_FAULT ? "fault" : "reset";

		json_instant(f, t, PID_ENGINES, tid_engine(m->engine), m->ts, what, what);
		fprintf(f, ",\"args\":{\"ctx\":%u,\"seqno\":%u,\"kind\":%u,\"addr\":\"0x%"
			PRIx64 "\",\"offset\":%u}},\n", m->ctx, m->seqno, m->kind, m->addr,
			m->offset);
		json_instant(f, t, PID_CONTEXTS, m->ctx, m->ts, what, what);
		fprintf(f, ",\"args\":{\"seqno\":%u}},\n", m->seqno);
	}
	/* a last event without a comma keeps the array valid JSON */
	fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_labels\",\"args\":{\"labels\":\"tern\"}}\n]}\n",
		PID_ENGINES);
	if (fclose(f)) {
		fprintf(stderr, "%s: %s: %s\n", tool_name, path, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- SVG ------------------------------------------------------------------ */

#define SVG_W		1200
#define SVG_LABEL_W	190
#define SVG_PLOT_W	(SVG_W - SVG_LABEL_W - 20)
#define SVG_TOP		52
#define ROW_ENGINE	24
#define ROW_SLOT	14
#define ROW_PREEMPT	12
#define ROW_CTX		22
#define ROW_GAP		4

struct svg {
	FILE *f;
	const struct trace *t;
	double scale;		/* px per ns */
	uint64_t t0, span;
};

static double sx(const struct svg *s, uint64_t ts)
{
	if (ts < s->t0)
		ts = s->t0;
	return SVG_LABEL_W + (double)(ts - s->t0) * s->scale;
}

/* A colour per context: by its priority, lighter for each further one. */
static void ctx_colour(const struct trace *t, uint32_t tag, char *buf, size_t len)
{
	static const int hue[] = { 120, 215, 0 };	/* low green, normal blue, high red */
	const struct context *c = ctx_of(t, tag);
	unsigned int nth = 0;
	size_t i;

	for (i = 0; i < t->nctxs && t->ctxs[i].tag != tag; i++)
		if (t->ctxs[i].prio == (c ? c->prio : 1))
			nth++;
	snprintf(buf, len, "hsl(%d,%d%%,%d%%)",
		 (c && c->known && c->prio < 3 ? hue[c->prio] : 270) + (int)(nth * 50) % 150,
		 60, 42 + (int)(nth * 11) % 33);
}

static void svg_text(FILE *f, double x, double y, const char *anchor, int size,
		     const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void svg_text(FILE *f, double x, double y, const char *anchor, int size,
		     const char *fmt, ...)
{
	char buf[256], *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\">",
		x, y, size, anchor);
	for (p = buf; *p; p++) {
		if (*p == '<')
			fputs("&lt;", f);
		else if (*p == '>')
			fputs("&gt;", f);
		else if (*p == '&')
			fputs("&amp;", f);
		else
			fputc(*p, f);
	}
	fputs("</text>\n", f);
}

/* A run drawn as a box from @from to @to on a row at @y of height @h. */
static void svg_box(const struct svg *s, const struct run *r, uint64_t from,
		    double y, double h, double opacity, bool label)
{
	const struct job *j = &s->t->jobs[r->job];
	double x0 = sx(s, from), x1 = sx(s, r->end);
	char colour[48];

	if (x1 - x0 < 0.5)
		x1 = x0 + 0.5;
	ctx_colour(s->t, j->ctx, colour, sizeof(colour));
	fprintf(s->f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\" "
		"fill-opacity=\"%.2f\" stroke=\"#333\" stroke-width=\"0.4\"><title>ctx %u job %u: %s, "
		"%s, %.3f ms (%s)</title></rect>\n", x0, y, x1 - x0, h, colour, opacity,
		j->ctx, j->seqno, r->resume ? "resumed" : "first run", outcome_name(r->outcome),
		(double)(r->end - from) / 1e6, reason_name(r->reason));
	if (label && x1 - x0 > 60)
		svg_text(s->f, (x0 + x1) / 2, y + h / 2 + 4, "middle", 10, "ctx %u job %u%s",
			 j->ctx, j->seqno, r->resume ? " resumed" : "");
}

static double nice_step(double span_ms)
{
	static const double m[] = { 1, 2, 5 };
	double step = 1e-3;
	int i;

	for (;;) {
		for (i = 0; i < 3; i++)
			if (span_ms / (step * m[i]) <= 12)
				return step * m[i];
		step *= 10;
	}
}

static int write_svg(const struct trace *t, const char *path)
{
	struct svg s = { .t = t };
	double y, step, ms, height, rows_y[MAX_ENGINES];
	unsigned int engines = 0, i;
	size_t k;
	FILE *f;

	for (i = 0; i < MAX_ENGINES; i++)
		engines += t->engine_used[i];
	height = SVG_TOP + engines * (ROW_ENGINE + 2 * ROW_SLOT + ROW_PREEMPT + 4 * ROW_GAP + 8) +
		 t->nctxs * (ROW_CTX + ROW_GAP) + 56;
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", tool_name, path, strerror(errno));
		return -1;
	}
	s.f = f;
	s.t0 = t->t0;
	s.span = t->t1 > t->t0 ? t->t1 - t->t0 : 1;
	s.scale = (double)SVG_PLOT_W / (double)s.span;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
		"viewBox=\"0 0 %d %.0f\" font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		SVG_W, height, SVG_W, height);
	svg_text(f, 10, 18, "start", 14, "tern-trace: %s", t->command ? t->command : "");
	svg_text(f, 10, 34, "start", 11,
		 "%zu jobs, %zu runs, %zu preemption requests, %zu faults/resets; time in ms since the first event",
		 t->njobs, t->nruns, t->npre, t->nmarks);

	/* time axis */
	ms = (double)s.span / 1e6;
	step = nice_step(ms);
	for (k = 0; (double)k * step <= ms + 1e-9; k++) {
		double x = SVG_LABEL_W + (double)k * step * 1e6 * s.scale;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#ddd\"/>\n",
			x, SVG_TOP - 6, x, height - 60);
		svg_text(f, x, SVG_TOP - 9, "middle", 10, "%g", (double)k * step);
	}

	y = SVG_TOP;
	for (i = 0; i < MAX_ENGINES; i++) {
		if (!t->engine_used[i])
			continue;
		rows_y[i] = y;
		svg_text(f, 10, y + ROW_ENGINE / 2 + 4, "start", 12, "engine %u", i);
		svg_text(f, 24, y + ROW_ENGINE + ROW_GAP + ROW_SLOT - 3, "start", 10, "slot 0");
		svg_text(f, 24, y + ROW_ENGINE + 2 * ROW_GAP + 2 * ROW_SLOT - 3, "start", 10,
			 "slot 1");
		svg_text(f, 24, y + ROW_ENGINE + 3 * ROW_GAP + 2 * ROW_SLOT + ROW_PREEMPT - 2,
			 "start", 10, "preemption");
		y += ROW_ENGINE + 2 * ROW_SLOT + ROW_PREEMPT + 4 * ROW_GAP + 8;
	}
	/* runs: engine row (running), slot rows (programmed .. retired) */
	for (k = 0; k < t->nruns; k++) {
		const struct run *r = &t->runs[k];
		double ey = rows_y[r->engine];

		svg_box(&s, r, r->prog, ey + ROW_ENGINE + ROW_GAP * (1 + r->slot) + ROW_SLOT * r->slot,
			ROW_SLOT, 0.35, false);
		if (r->start != NO_TS) {
			svg_box(&s, r, r->start, ey + ROW_ENGINE + ROW_GAP * (1 + r->slot) +
				ROW_SLOT * r->slot, ROW_SLOT, 1.0, false);
			svg_box(&s, r, r->start, ey, ROW_ENGINE, 1.0, true);
		}
	}
	/* preemptions: request to served, and a marker on the engine row */
	for (k = 0; k < t->npre; k++) {
		const struct preempt *p = &t->pre[k];
		double py = rows_y[p->engine] + ROW_ENGINE + 3 * ROW_GAP + 2 * ROW_SLOT;
		double x0 = sx(&s, p->request);
		double x1 = p->done != NO_TS ? sx(&s, p->done) : x0 + 2;

		fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"#d62728\">"
			"<title>preemption of ctx %u job %u (%s) after %.3f ms, served in %.1f us</title></rect>\n",
			x0, py, x1 - x0 < 1 ? 1 : x1 - x0, ROW_PREEMPT, p->ctx, p->seqno,
			reason_name(p->reason), (double)p->ran_ns / 1e6,
			(double)p->latency_ns / 1e3);
		fprintf(f, "<path d=\"M%.2f %.1f l-5 -8 h10 z\" fill=\"#d62728\"/>\n", x0,
			rows_y[p->engine]);
		svg_text(f, x0 + 6, py + ROW_PREEMPT - 2, "start", 9, "%s", reason_name(p->reason));
	}
	for (k = 0; k < t->nmarks; k++) {
		const struct mark *m = &t->marks[k];
		double x = sx(&s, m->ts), my = rows_y[m->engine];

		fprintf(f, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"black\" "
			"stroke-width=\"2\"/>\n", x, my - 4, x, my + ROW_ENGINE + 4);
		svg_text(f, x + 3, my - 2, "start", 10, "%s ctx %u job %u",
			 m->type == EV_FAULT ? "fault" : "reset", m->ctx, m->seqno);
	}

	/* contexts: their runs, submissions and fences */
	for (k = 0; k < t->nctxs; k++) {
		const struct context *c = &t->ctxs[k];
		char label[96], colour[48];
		size_t r;

		ctx_label(t, c->tag, label, sizeof(label));
		ctx_colour(t, c->tag, colour, sizeof(colour));
		fprintf(f, "<rect x=\"10\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>\n",
			y + 6, colour);
		svg_text(f, 24, y + ROW_CTX / 2 + 4, "start", 11, "%s", label);
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>\n",
			SVG_LABEL_W, y + ROW_CTX / 2, SVG_W - 20, y + ROW_CTX / 2);
		for (r = 0; r < t->nruns; r++)
			if (t->jobs[t->runs[r].job].ctx == c->tag && t->runs[r].start != NO_TS)
				svg_box(&s, &t->runs[r], t->runs[r].start, y + 3, ROW_CTX - 6,
					1.0, true);
		for (r = 0; r < t->njobs; r++) {
			const struct job *j = &t->jobs[r];

			if (j->ctx != c->tag)
				continue;
			if (j->submit != NO_TS)
				fprintf(f, "<path d=\"M%.2f %.1f l-3 -5 h6 z\" fill=\"#555\">"
					"<title>job %u submitted</title></path>\n",
					sx(&s, j->submit), y + 3, j->seqno);
			if (j->signal != NO_TS)
				fprintf(f, "<circle cx=\"%.2f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\">"
					"<title>job %u fence signalled%s</title></circle>\n",
					sx(&s, j->signal), y + ROW_CTX - 2,
					j->error ? "#d62728" : "#222", j->seqno,
					j->error ? " with an error" : "");
		}
		y += ROW_CTX + ROW_GAP;
	}

	/* legend */
	y += 16;
	svg_text(f, 10, y, "start", 10,
		 "Engine row: what ran (head slot); slot rows: light = programmed and waiting, "
		 "dark = running; red: preemption request .. served, with the policy's reason.");
	svg_text(f, 10, y + 14, "start", 10,
		 "Context rows: runs of each job (\"resumed\" after a preemption); "
		 "triangle: submitted; dot: fence signalled (red: with an error).");
	fprintf(f, "</svg>\n");
	if (fclose(f)) {
		fprintf(stderr, "%s: %s: %s\n", tool_name, path, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- main ------------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: tern-trace [-o FILE.json] [--svg FILE.svg] [-b KB] -- COMMAND [ARG...]\n"
		"   or: tern-trace [-o FILE.json] [--svg FILE.svg] [-b KB] [-t SECONDS]\n"
		"Record what tern's scheduler does while COMMAND runs, or for SECONDS, or\n"
		"until interrupted (a ^C ends a timed recording early too), and write the timeline as a Chrome\n"
		"trace-event JSON file that Perfetto (ui.perfetto.dev) and chrome://tracing\n"
		"open, and/or as an SVG picture: one track per engine, per engine slot and per\n"
		"context; every run of every job from the moment it was programmed into a\n"
		"slot, started on the engine and completed to its fence signalling;\n"
		"preemption requests with the policy's reason (priority, quantum,\n"
		"starvation) and when they were served; resumes, faults and engine resets.\n"
		"\n"
		"  -o, --output=FILE      the JSON trace (default tern-trace.json unless --svg\n"
		"                         is given)\n"
		"  -s, --svg=FILE         the SVG timeline\n"
		"  -t, --time=SECONDS     record for SECONDS instead of running a command\n"
		"                         (neither: record until interrupted)\n"
		"  -b, --buffer=KB        trace buffer per CPU in KiB (default 16384)\n"
		"  -q, --quiet            no summary on stderr\n"
		"  -h, --help             this help\n"
		"\n"
		"Needs root (tracefs).  The events are docs/tracepoints.md's.\n"
		"Exit status: COMMAND's exit status (128+N if a signal N ended it) once the\n"
		"trace is written; 1 recording or writing failed; 2 bad usage; 3 no tern\n"
		"tracepoints (tern.ko not loaded); 4 no permission.\n");
}

static char *join_args(char **argv)
{
	size_t len = 1, n;
	char *s, *p;
	int i;

	for (i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	p = s;
	*p = 0;
	for (i = 0; argv[i]; i++) {
		n = strlen(argv[i]);
		memcpy(p, argv[i], n);
		p += n;
		*p++ = argv[i + 1] ? ' ' : 0;
	}
	return s;
}

static void free_trace(struct trace *t)
{
	free(t->ev);
	free(t->jobs);
	free(t->job_hash);
	free(t->runs);
	free(t->pre);
	free(t->marks);
	free(t->ctxs);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "svg", required_argument, NULL, 's' },
		{ "time", required_argument, NULL, 't' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *json = NULL, *svg = NULL;
	struct trace t = { 0 };
	char *command = NULL, *end;
	double seconds = 0;
	unsigned long kb = 16384;
	bool quiet = false;
	int c, ret, status;
	size_t i, preempted = 0;

	while ((c = getopt_long(argc, argv, "+o:s:t:b:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			json = optarg;
			break;
		case 's':
			svg = optarg;
			break;
		case 't':
			seconds = strtod(optarg, &end);
			if (*end || !(seconds > 0) || seconds > 86400) {
				fprintf(stderr, "%s: bad --time '%s'\n", tool_name, optarg);
				return TOOL_EXIT_USAGE;
			}
			break;
		case 'b':
			kb = strtoul(optarg, &end, 10);
			if (*end || kb < 64 || kb > (1ul << 21)) {
				fprintf(stderr, "%s: bad --buffer '%s' (64 .. 2097152 KiB)\n",
					tool_name, optarg);
				return TOOL_EXIT_USAGE;
			}
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return TOOL_EXIT_OK;
		default:
			usage(stderr);
			return TOOL_EXIT_USAGE;
		}
	}
	if (optind < argc && seconds > 0) {
		fprintf(stderr, "%s: give a command or --time, not both\n", tool_name);
		usage(stderr);
		return TOOL_EXIT_USAGE;
	}
	if (!json && !svg)
		json = "tern-trace.json";
	if (optind < argc) {
		command = join_args(argv + optind);
		t.command = command;
	} else {
		t.command = "(whole device)";
	}

	ret = record(&t, optind < argc ? argv + optind : NULL, seconds,
		     (unsigned int)kb, &status);
	if (ret)
		goto out;
	build(&t);
	if ((json && write_json(&t, json)) || (svg && write_svg(&t, svg))) {
		ret = TOOL_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < t.nruns; i++)
		preempted += t.runs[i].outcome == OUT_PREEMPTED;
	if (!quiet)
		fprintf(stderr, "%s: %zu events, %zu jobs, %zu runs, %zu preempted, %zu preemption requests, %zu faults/resets%s%s%s%s\n",
			tool_name, t.nev, t.njobs, t.nruns, preempted, t.npre, t.nmarks,
			json ? "; " : "", json ? json : "", svg ? "; " : "", svg ? svg : "");
	if (t.lost)
		fprintf(stderr, "%s: the trace buffer overflowed: %llu events lost (raise --buffer)\n",
			tool_name, t.lost);
	if (optind < argc)
		ret = WIFEXITED(status) ? WEXITSTATUS(status) :
		      WIFSIGNALED(status) ? 128 + WTERMSIG(status) : TOOL_EXIT_FAIL;
out:
	free(command);
	free_trace(&t);
	return ret;
}
