// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * bench_smoke: the benchmark suite (tern-benchsuite --quick) runs on the
 * real driver and device and its outputs are sane: it exits 0, every figure
 * reports, every value is a finite number (not negative but for memory
 * differences) taken once per repetition, the figures that need a debugfs
 * file of the scheduler report whenever the driver has it, and the values
 * that have a range by definition (Jain's index, p99 >= p50) are in it.
 * No timing is asserted: emulated time says nothing about the driver.
 *
 * tern-vm: timeout=120
 */
#include <math.h>
#include <sys/wait.h>

#include "tern_test.h"
#include "core_test.h"

#define SUITE	"/tern/bin/tern-benchsuite"
#define OUT	"/tmp/bench-smoke.txt"
#define JSON	"/tmp/bench-smoke.json"
#define REPS	2

struct metric {
	int fig;
	char name[48], series[24];
	double x, median;
	bool median_ok;
	int nvalues;
	bool values_ok;
};

static struct metric metrics[256];
static int nmetrics;
static int missing_fig[8];

/*
 * Memory figures are differences of /proc/meminfo readings, which other
 * kernel activity can make negative; every other value is >= 0.
 */
static bool may_be_negative(const char *name)
{
	return !strncmp(name, "slab_", 5) || !strncmp(name, "mem_", 4);
}

/* One "metrics" line of the suite's JSON (one object per line). */
static void parse_metric(const char *line)
{
	struct metric *m = &metrics[nmetrics];
	const char *p;

	if (nmetrics == (int)(sizeof(metrics) / sizeof(metrics[0])))
		return;
	memset(m, 0, sizeof(*m));
	m->x = -1;
	if (sscanf(line, " {\"figure\": %d, \"name\": \"%47[^\"]\", \"series\": \"%23[^\"]\"",
		   &m->fig, m->name, m->series) != 3)
		return;
	p = strstr(line, "\"x\": ");
	if (p && strncmp(p + 5, "null", 4))
		m->x = strtod(p + 5, NULL);
	p = strstr(line, "\"median\": ");
	m->median_ok = p && sscanf(p + 10, "%lf", &m->median) == 1 && isfinite(m->median) &&
		       (m->median >= 0 || may_be_negative(m->name));
	p = strstr(line, "\"values\": [");
	m->values_ok = p != NULL;
	for (p = p ? p + 11 : NULL; p && *p && *p != ']';) {
		char *end;
		double v = strtod(p, &end);

		if (end == p || !isfinite(v) || (v < 0 && !may_be_negative(m->name))) {
			m->values_ok = false;
			break;
		}
		m->nvalues++;
		p = end;
		while (*p == ',' || *p == ' ')
			p++;
	}
	nmetrics++;
}

static const struct metric *find(int fig, const char *name, const char *series, double x)
{
	int i;

	for (i = 0; i < nmetrics; i++)
		if (metrics[i].fig == fig && !strcmp(metrics[i].name, name) &&
		    !strcmp(metrics[i].series, series) && (x < 0 || metrics[i].x == x))
			return &metrics[i];
	return NULL;
}

static bool has(int fig, const char *name, const char *series, double x)
{
	const struct metric *m = find(fig, name, series, x);

	return m && m->median_ok && m->nvalues == REPS;
}

static bool debugfs_has(const char *name)
{
	char path[512];

	return core_debugfs_path(name, path, sizeof(path));
}

int main(void)
{
	static const int ctxs[] = { 1, 4, 16, 64 };
	const char *jain;
	char line[4096];
	int status = -1, fig, i, bad;
	bool all_ok = true;
	pid_t pid;
	FILE *f;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int fd = open(OUT, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		execl(SUITE, SUITE, "--quick", "--reps=2", "--json=" JSON, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	f = fopen(OUT, "r");
	while (f && fgets(line, sizeof(line), f))
		tap_diag("%s", strtok(line, "\n") ? line : "");
	if (f)
		fclose(f);
	tap_ok(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "tern-benchsuite --quick exits 0 (status 0x%x)", status);

	f = fopen(JSON, "r");
	tap_ok(f != NULL, "it wrote its JSON results");
	if (!f)
		return tap_exit_status();
	bad = 0;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "{\"figure\": ") && strstr(line, "\"median\": "))
			parse_metric(line);
		else if (strstr(line, "{\"figure\": ") && strstr(line, "\"why\": ") &&
			 sscanf(line, " {\"figure\": %d", &fig) == 1 && fig >= 1 && fig <= 7)
			missing_fig[fig]++;
		else if (strstr(line, "\"mode\": ") && !strstr(line, "\"quick\""))
			bad++;
	}
	fclose(f);
	tap_ok(!bad && nmetrics > 0, "the JSON is in quick mode and holds %d metrics", nmetrics);

	for (fig = 1; fig <= 7; fig++) {
		int n = 0;

		for (i = 0; i < nmetrics; i++)
			n += metrics[i].fig == fig;
		tap_ok(n > 0 || missing_fig[fig] > 0,
		       "figure %d reports (%d metrics, %d noted as not measured)", fig, n,
		       missing_fig[fig]);
	}
	for (i = 0; i < nmetrics; i++) {
		const struct metric *m = &metrics[i];

		if (!m->median_ok || !m->values_ok || m->nvalues != REPS) {
			tap_diag("figure %d %s %s: median %s, %d values%s", m->fig, m->name,
				 m->series, m->median_ok ? "ok" : "bad", m->nvalues,
				 m->values_ok ? "" : " (one not a finite number, or < 0)");
			all_ok = false;
		}
	}
	tap_ok(all_ok, "every value is a finite number, >= 0 but for memory, one per repetition");

	/* figures that need nothing new in the driver */
	tap_ok(has(1, "nop_latency_p50", "driver", -1) && has(1, "nop_latency_p99", "driver", -1) &&
	       find(1, "nop_latency_p99", "driver", -1)->median >=
	       find(1, "nop_latency_p50", "driver", -1)->median,
	       "figure 1: NOP latency p50 and p99 of the driver, p99 >= p50");
	for (i = 0, bad = 0; i < 4; i++)
		bad += !has(2, "jobs_per_s", "contexts", ctxs[i]) ||
		       find(2, "jobs_per_s", "contexts", ctxs[i])->median <= 0;
	bad += !has(2, "jobs_per_s", "processes", 4) || !has(2, "jobs_per_s", "processes", 16);
	tap_ok(!bad, "figure 2: a positive job rate for 1, 4, 16, 64 contexts, 4 and 16 processes");
	jain = find(4, "jain_16_equal", "fair", -1) ? "fair" : "default";
	tap_ok(has(4, "jain_16_equal", jain, -1) &&
	       find(4, "jain_16_equal", jain, -1)->median <= 1.0 + 1e-9 &&
	       find(4, "jain_16_equal", jain, -1)->median >= 1.0 / 16,
	       "figure 4: Jain's index of 16 contexts is within [1/16, 1]");
	tap_ok(has(5, "kernel_cpu_per_job", "contexts", 1) &&
	       has(5, "kernel_cpu_per_job", "contexts", 16) &&
	       has(5, "mem_per_process", "processes", 4),
	       "figure 5: CPU per job for 1 and 16 contexts, memory per process");
	tap_ok(has(6, "copy", "driver", -1) && has(6, "copy", "device", -1) &&
	       has(6, "gemm", "device", -1) && has(6, "saxpy", "device", -1) &&
	       find(6, "copy", "device", -1)->median > 0,
	       "figure 6: COPY, GEMM and SAXPY rates (results checked by the suite)");

	/* figures that need the scheduler's debugfs files */
	if (debugfs_has("raw_nop"))
		tap_ok(has(1, "raw_round_trip_p50", "device", -1) &&
		       has(1, "ratio_p50", "driver/raw", -1) &&
		       has(2, "raw_pipelined", "device", -1),
		       "figures 1 and 2: the raw round trip and pipelined rate of raw_nop");
	else
		tap_skip("the driver has no debugfs raw_nop");
	if (debugfs_has("sched_policy")) {
		tap_ok(has(3, "high_latency_p50", "fair", -1) &&
		       has(3, "high_latency_p50", "fifo", -1) &&
		       has(3, "ratio_p50", "fifo/fair", -1),
		       "figure 3: high-priority latency under fair and fifo, and their ratio");
		tap_ok(has(4, "share_over_weight", "fair", 8) &&
		       has(4, "share_over_weight", "fifo", 8) &&
		       has(4, "low_wait_max", "fair", -1),
		       "figure 4: weighted shares under both policies, LOW's longest wait");
		tap_ok(has(3, "high_latency_p50", "drmfair", -1) &&
		       has(3, "ratio_p50", "drmfair/fair", -1) &&
		       has(4, "share_over_weight", "drmfair", 8) &&
		       has(4, "low_wait_max", "drmfair", -1),
		       "figures 3 and 4: the drmfair lines");
		if (debugfs_has("preempt_latency"))
			tap_ok(has(7, "preempt_latency_p50", "fair", -1) &&
			       find(7, "preempt_latency_p99", "fair", -1) &&
			       find(7, "preempt_latency_p99", "fair", -1)->median >=
			       find(7, "preempt_latency_p50", "fair", -1)->median,
			       "figure 7: preemption latency p50 and p99 (p99 >= p50)");
		else
			tap_skip("the driver has no debugfs preempt_latency");
	} else {
		tap_skip("the driver has no debugfs sched_policy");
		tap_skip("the driver has no debugfs sched_policy");
		tap_skip("the driver has no debugfs sched_policy");
	}
	tap_done();
	return tap_exit_status();
}
