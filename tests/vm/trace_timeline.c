// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * trace_timeline: tern-trace records the demo (a high-priority job
 * preempting a long low-priority GEMM) and its trace shows what happened:
 * the GEMM's two runs on the engine with the high-priority job between
 * them, every job's four moments (programmed into a slot, started on the
 * engine, completed, fence signalled) in order, as many preempted runs as
 * the driver counted, each preemption request with the policy's reason and
 * served.  The SVG picture is written too.
 *
 * tern-trace writes one JSON event per line (documented in
 * docs/tracepoints.md); this test reads those lines.
 *
 * tern-vm: device=time-scale=200 timeout=180
 */
#include <stdint.h>
#include <sys/wait.h>

#include "core_test.h"

#define JSON	"/tmp/trace_timeline.json"
#define SVG	"/tmp/trace_timeline.svg"
#define MAX_RUNS	4096

struct run {
	double ts, dur;
	long ctx, seqno, prio, resume;
	char outcome[16];
};

/* Run a shell command; its exit status, and its stdout and stderr in @out. */
static int run(const char *cmd, char *out, size_t len)
{
	char full[1024];
	size_t n = 0;
	FILE *p;
	int status;

	snprintf(full, sizeof(full), "%s 2>&1", cmd);
	p = popen(full, "r");
	if (!p)
		return -1;
	while (n < len - 1 && fgets(out + n, (int)(len - n), p))
		n += strlen(out + n);
	out[n] = 0;
	status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The number after "\"key\":" in @line, or @def. */
static double num(const char *line, const char *key, double def)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(line, pat);
	return p ? strtod(p + strlen(pat), NULL) : def;
}

/* The string after "\"key\":\"" in @line into @buf; false if absent. */
static bool str(const char *line, const char *key, char *buf, size_t len)
{
	char pat[64];
	const char *p;
	size_t n = 0;

	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	p = strstr(line, pat);
	if (!p)
		return false;
	for (p += strlen(pat); *p && *p != '"' && n < len - 1; p++)
		buf[n++] = *p;
	buf[n] = 0;
	return true;
}

/* Sum of "<key> N" over the engines in debugfs "engines"; -1 if unreadable. */
static long long dbg_sum(const char *key)
{
	char path[512], line[512];
	long long sum = 0;
	FILE *f;
	char *p;

	if (!core_debugfs_path("engines", path, sizeof(path)))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "preempt requested"))
			continue;
		p = strstr(line, key);
		if (p)
			sum += strtoll(p + strlen(key), NULL, 10);
	}
	fclose(f);
	return sum;
}

static int by_ts(const void *a, const void *b)
{
	const struct run *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

int main(void)
{
	static char out[1 << 20], line[4096];
	static struct run runs[MAX_RUNS];
	long long jobs0 = dbg_sum(" jobs "), served0 = dbg_sum(" served ");
	long long jobs1, served1;
	long demo_preempt = -1, low_ctx = -1, low_seqno = -1;
	unsigned int nruns = 0, njobs = 0, in_order = 0, preempted = 0;
	unsigned int requests = 0, served = 0, priority_reason = 0, low_preempted = 0;
	bool sandwich = false, valid_end = false;
	char first[64] = "", buf[64];
	const char *p;
	unsigned int i, k;
	FILE *f;
	int ret;

	tap_ok(jobs0 >= 0 && served0 >= 0, "debugfs engines gives the preemption counts");
	ret = run("tern-trace -o " JSON " --svg " SVG " -- tern-demo -s 192", out, sizeof(out));
	tap_ok(ret == 0, "tern-trace -- tern-demo -s 192 exits 0 (%d)", ret);
	if (ret)
		tap_diag("%s", out);
	jobs1 = dbg_sum(" jobs ");
	served1 = dbg_sum(" served ");
	p = strstr(out, "low context:");
	p = p ? strstr(p, "done, ") : NULL;
	if (p)
		demo_preempt = strtol(p + 6, NULL, 10);

	f = fopen(JSON, "r");
	tap_ok(f != NULL, "the trace was written");
	if (!f)
		return tap_exit_status();
	while (fgets(line, sizeof(line), f)) {
		if (!first[0])
			snprintf(first, sizeof(first), "%.60s", line);
		if (!strncmp(line, "]}", 2))
			valid_end = true;
		if (strstr(line, "\"cat\":\"run\"") && nruns < MAX_RUNS) {
			struct run *r = &runs[nruns++];

			r->ts = num(line, "ts", -1);
			r->dur = num(line, "dur", -1);
			r->ctx = (long)num(line, "ctx", -1);
			r->seqno = (long)num(line, "seqno", -1);
			r->prio = (long)num(line, "prio", -1);
			r->resume = (long)num(line, "resume", -1);
			if (!str(line, "outcome", r->outcome, sizeof(r->outcome)))
				r->outcome[0] = 0;
			preempted += !strcmp(r->outcome, "preempted");
		} else if (strstr(line, "\"cat\":\"job\"") && strstr(line, "\"ph\":\"b\"")) {
			double prog = num(line, "programmed_us", -1);
			double start = num(line, "started_us", -1);
			double done = num(line, "completed_us", -1);
			double sig = num(line, "signalled_us", -1);

			njobs++;
			if (prog >= 0 && start >= prog && done >= start && sig >= done &&
			    num(line, "error", -1) == 0)
				in_order++;
			else
				tap_diag("out of order or incomplete: %s", line);
		} else if (strstr(line, "\"cat\":\"preempt\"")) {
			requests++;
			served += num(line, "served", 0) == 1;
			if (str(line, "reason", buf, sizeof(buf)) && !strcmp(buf, "priority"))
				priority_reason++;
		}
	}
	fclose(f);
	tap_ok(!strncmp(first, "{\"displayTimeUnit\"", 18) && valid_end,
	       "the trace is one JSON object with a traceEvents array");

	/* the GEMM: a low-priority job preempted, then resumed after a HIGH run */
	qsort(runs, nruns, sizeof(runs[0]), by_ts);
	for (i = 0; i < nruns && !sandwich; i++) {
		if (runs[i].prio != 0 || strcmp(runs[i].outcome, "preempted"))
			continue;
		for (k = i + 1; k < nruns; k++) {
			if (runs[k].ctx == runs[i].ctx && runs[k].seqno == runs[i].seqno)
				break;
		}
		if (k == nruns || runs[k].resume != 1 || k < i + 2)
			continue;
		/* between them: only HIGH runs, and at least one */
		sandwich = true;
		for (unsigned int m = i + 1; m < k; m++)
			if (runs[m].prio != 2 || runs[m].ts < runs[i].ts + runs[i].dur ||
			    runs[m].ts + runs[m].dur > runs[k].ts)
				sandwich = false;
		if (sandwich) {
			low_ctx = runs[i].ctx;
			low_seqno = runs[i].seqno;
		}
	}
	tap_ok(sandwich, "the GEMM (ctx %ld job %ld) ran twice on the engine, the HIGH job between",
	       low_ctx, low_seqno);
	for (i = 0; i < nruns; i++)
		low_preempted += runs[i].ctx == low_ctx && !strcmp(runs[i].outcome, "preempted");
	tap_ok(njobs >= 2 && in_order == njobs,
	       "every job's four moments are in order (%u of %u jobs)", in_order, njobs);
	tap_ok(jobs1 - jobs0 == preempted,
	       "as many preempted runs in the trace (%u) as the driver counted (%lld)",
	       preempted, jobs1 - jobs0);
	tap_ok(demo_preempt >= 1 && low_preempted == demo_preempt,
	       "the GEMM's context: %u preempted runs in the trace, %ld in its status",
	       low_preempted, demo_preempt);
	tap_ok(requests >= 1 && served == served1 - served0 && served == requests,
	       "%u preemption requests, %u served (driver: %lld)", requests, served,
	       served1 - served0);
	tap_ok(priority_reason >= 1, "the policy's reason for the preemption: priority (%u)",
	       priority_reason);

	f = fopen(SVG, "r");
	ret = f ? (int)fread(out, 1, sizeof(out) - 1, f) : 0;
	out[ret > 0 ? ret : 0] = 0;
	if (f)
		fclose(f);
	tap_ok(!strncmp(out, "<?xml", 5) && strstr(out, "<svg") && strstr(out, "resumed"),
	       "the SVG timeline shows a resumed run");
	f = fopen(SVG, "r");
	if (f) {
		fseek(f, -7, SEEK_END);
		ret = (int)fread(out, 1, 6, f);
		out[ret > 0 ? ret : 0] = 0;
		fclose(f);
	}
	tap_ok(f && !strcmp(out, "</svg>"), "the SVG is complete");

	/*
	 * The whole device for a while: a job submitted meanwhile is in it.
	 * The job goes once tern-trace records (its tracefs instance with the
	 * tern events enabled and tracing on): on the debug kernel getting
	 * there takes more than a second.
	 */
	ret = run("tern-trace -q -o /tmp/trace_timeline_t.json -t 6 & i=0; "
		  "while [ $i -lt 100 ]; do "
		  "for d in /sys/kernel/tracing/instances/tern-trace-* "
		  "/sys/kernel/debug/tracing/instances/tern-trace-*; do "
		  "[ \"$(cat $d/events/tern/enable 2>/dev/null)\" = 1 ] && "
		  "[ \"$(cat $d/tracing_on 2>/dev/null)\" = 1 ] && break 2; done; "
		  "sleep 0.05; i=$((i + 1)); done; "
		  "tern-saxpy -n 1000 >/dev/null; wait $!", out, sizeof(out));
	f = fopen("/tmp/trace_timeline_t.json", "r");
	nruns = 0;
	valid_end = false;
	while (f && fgets(line, sizeof(line), f)) {
		nruns += strstr(line, "\"cat\":\"run\"") != NULL;
		valid_end |= !strncmp(line, "]}", 2);
	}
	if (f)
		fclose(f);
	tap_ok(ret == 0 && valid_end && nruns >= 1,
	       "tern-trace -t 6 records another process's job (%u runs, exit %d)", nruns, ret);
	tap_done();
	return tap_exit_status();
}
