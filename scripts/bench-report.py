#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Turn a `make bench` console log into a report.

usage: bench-report.py CONSOLE_LOG OUT_DIR

Takes tern-benchsuite's JSON from between TERN-BENCH-JSON-BEGIN and
TERN-BENCH-JSON-END in the guest's console, and writes into OUT_DIR:
results.json (as the suite wrote it), report.md (one table per figure with
median, min, max and spread, and the plot) and fig<N>.svg.  Prints the
tables.  Python standard library only; the plots are SVG written by hand.
Exits 1 when the log holds no results.
"""
import json
import math
import os
import sys
import time

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"]
W, H = 640, 360
ML, MR, MT, MB = 70, 150, 40, 50		# margins: plot area inside


def extract(log_path):
    """The JSON text between the markers, console noise removed."""
    lines, inside = [], False
    with open(log_path, errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\r\n").rstrip("\r")
            if line.startswith("TERN-BENCH-JSON-BEGIN"):
                inside, lines = True, []
            elif line.startswith("TERN-BENCH-JSON-END"):
                inside = False
            elif inside:
                lines.append(line)
    return "\n".join(lines) if lines else None


def esc(s):
    return (str(s).replace("&", "&amp;").replace("<", "&lt;")
            .replace(">", "&gt;"))


def fmt(v):
    if v is None:
        return "-"
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1e5 or a < 1e-2:
        return "%.3g" % v
    if a >= 100:
        return "%.0f" % v
    return "%.3g" % v


class Svg:
    def __init__(self, title, ylabel, logy=False):
        self.out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
                    'font-family="sans-serif" font-size="11">' % (W, H),
                    '<rect width="100%" height="100%" fill="white"/>',
                    '<text x="%d" y="20" font-size="13" font-weight="bold">%s</text>'
                    % (ML, esc(title)),
                    '<text transform="translate(14,%d) rotate(-90)" text-anchor="middle">%s'
                    '</text>' % (MT + (H - MT - MB) // 2, esc(ylabel))]
        self.logy = logy

    def yaxis(self, lo, hi):
        if self.logy:
            lo = max(lo, 1e-9)
            self.y0, self.y1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
            if self.y1 == self.y0:
                self.y1 += 1
            ticks = [10.0 ** e for e in range(int(self.y0), int(self.y1) + 1)]
        else:
            self.y0, self.y1 = 0.0, hi * 1.1 if hi > 0 else 1.0
            step = 10 ** math.floor(math.log10(self.y1 / 5)) if self.y1 > 0 else 1
            for m in (1, 2, 5, 10):
                if self.y1 / (step * m) <= 6:
                    step *= m
                    break
            ticks = [i * step for i in range(int(self.y1 / step) + 1)]
        for t in ticks:
            y = self.ypos(t)
            self.out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>'
                            % (ML, W - MR, y, y))
            self.out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>'
                            % (ML - 4, y + 4, esc(fmt(t))))
        self.out.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="black"/>'
                        % (ML, W - MR, H - MB, H - MB))
        self.out.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="black"/>'
                        % (ML, ML, MT, H - MB))

    def ypos(self, v):
        if self.logy:
            v = math.log10(max(v, 10.0 ** self.y0))
        f = (v - self.y0) / (self.y1 - self.y0)
        return H - MB - f * (H - MT - MB)

    def legend(self, names):
        for i, n in enumerate(names):
            y = MT + 16 * i
            self.out.append('<rect x="%d" y="%d" width="10" height="10" fill="%s"/>'
                            % (W - MR + 10, y, COLOURS[i % len(COLOURS)]))
            self.out.append('<text x="%d" y="%d">%s</text>' % (W - MR + 24, y + 9, esc(n)))

    def hline(self, v, label):
        y = self.ypos(v)
        self.out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="black" '
                        'stroke-dasharray="4 3"/>' % (ML, W - MR, y, y))
        self.out.append('<text x="%d" y="%.1f">%s</text>' % (ML + 4, y - 3, esc(label)))

    def save(self, path):
        self.out.append("</svg>")
        with open(path, "w") as f:
            f.write("\n".join(self.out) + "\n")


def bar_chart(path, title, ylabel, groups, series, get, logy=False, ref=None):
    """groups: x labels; series: names; get(group, series) -> metric or None."""
    vals = [m for g in groups for s in series for m in [get(g, s)] if m]
    if not vals:
        return False
    svg = Svg(title, ylabel, logy)
    lo = min(m["min"] for m in vals)
    hi = max(m["max"] for m in vals)
    if ref is not None:
        hi = max(hi, ref)
    svg.yaxis(lo, hi)
    gw = (W - ML - MR) / len(groups)
    bw = gw * 0.8 / len(series)
    for gi, g in enumerate(groups):
        x0 = ML + gi * gw + gw * 0.1
        svg.out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                       % (ML + gi * gw + gw / 2, H - MB + 16, esc(g)))
        for si, s in enumerate(series):
            m = get(g, s)
            if not m:
                continue
            x = x0 + si * bw
            base = svg.ypos(10.0 ** svg.y0) if logy else svg.ypos(0)
            y = svg.ypos(m["median"])
            svg.out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>'
                           % (x, min(y, base), bw * 0.9, abs(base - y),
                              COLOURS[si % len(COLOURS)]))
            cx = x + bw * 0.45
            svg.out.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="black"/>'
                           % (cx, cx, svg.ypos(m["min"]), svg.ypos(m["max"])))
    if ref is not None:
        svg.hline(ref, "%g" % ref)
    svg.legend(series)
    svg.save(path)
    return True


def line_chart(path, title, xlabel, ylabel, lines, extra=None, logy=False):
    """lines: {name: [(x, metric)]}, x > 0, log x axis; extra: {name: [(x, y)]}."""
    pts = [(x, m) for l in lines.values() for x, m in l]
    if not pts:
        return False
    extra = extra or {}
    svg = Svg(title, ylabel, logy)
    xs = [x for x, _ in pts] + [x for l in extra.values() for x, _ in l]
    ys_lo = [m["min"] for _, m in pts] + [y for l in extra.values() for _, y in l]
    ys_hi = [m["max"] for _, m in pts] + [y for l in extra.values() for _, y in l]
    svg.yaxis(min(ys_lo), max(ys_hi))
    lx0, lx1 = math.log2(min(xs)), math.log2(max(xs))
    if lx1 == lx0:
        lx1 += 1

    def xpos(x):
        return ML + 10 + (math.log2(x) - lx0) / (lx1 - lx0) * (W - ML - MR - 20)
    for x in sorted(set(xs)):
        svg.out.append('<text x="%.1f" y="%d" text-anchor="middle">%g</text>'
                       % (xpos(x), H - MB + 16, x))
    svg.out.append('<text x="%d" y="%d" text-anchor="middle">%s</text>'
                   % (ML + (W - ML - MR) // 2, H - 12, esc(xlabel)))
    names = list(lines) + list(extra)
    for i, (name, l) in enumerate(list(lines.items()) + list(extra.items())):
        c = COLOURS[i % len(COLOURS)]
        if name in lines:
            l = sorted(l, key=lambda p: p[0])
            coords = [(xpos(x), svg.ypos(m["median"])) for x, m in l]
            for x, m in l:
                svg.out.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s"/>'
                               % (xpos(x), xpos(x), svg.ypos(m["min"]), svg.ypos(m["max"]), c))
            dash = ""
        else:
            coords = [(xpos(x), svg.ypos(y)) for x, y in sorted(l)]
            dash = ' stroke-dasharray="5 3"'
        svg.out.append('<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>'
                       % (c, dash, " ".join("%.1f,%.1f" % p for p in coords)))
        for p in coords:
            svg.out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (p[0], p[1], c))
    svg.legend(names)
    svg.save(path)
    return True


def plots(res, out):
    ms = res["metrics"]

    def get(fig, name, series, x=None):
        for m in ms:
            if (m["figure"] == fig and m["name"] == name and m["series"] == series
                    and (x is None or m["x"] == x)):
                return m
        return None

    def xs(fig, name, series):
        return [(m["x"], m) for m in ms if m["figure"] == fig and m["name"] == name
                and m["series"] == series and m["x"]]

    made = {}
    made[1] = bar_chart(
        os.path.join(out, "fig1.svg"), "1: NOP job, submit to signal", "us",
        ["p50", "p99"], ["driver", "device"],
        lambda g, s: get(1, ("nop_latency_" if s == "driver" else "raw_round_trip_") + g, s),
        logy=True)
    engines = res["device"]["compute_engines"]
    raw = get(2, "raw_pipelined", "device")
    limit = {}
    if raw:
        limit["device, both slots full"] = [(x, min(x, engines) * raw["median"])
                                            for x in (1, 4, 16, 64)]
    made[2] = line_chart(os.path.join(out, "fig2.svg"), "2: NOP jobs per second",
                         "contexts (one process) / processes (one context each)", "jobs/s",
                         {"contexts": xs(2, "jobs_per_s", "contexts"),
                          "contexts, submit_many": xs(2, "jobs_per_s", "contexts_many"),
                          "processes": xs(2, "jobs_per_s", "processes")}, limit, logy=True)
    series3 = [s for s in ("idle", "fair", "fifo", "drmfair", "default")
               if get(3, "high_latency_p50", s)]
    made[3] = bar_chart(os.path.join(out, "fig3.svg"),
                        "3: HIGH job latency under long LOW jobs", "ms", ["p50", "p99"],
                        series3, lambda g, s: get(3, "high_latency_" + g, s), logy=True)
    series4 = [s for s in ("fair", "fifo", "drmfair", "default")
               if xs(4, "share_over_weight", s)]
    made[4] = bar_chart(os.path.join(out, "fig4.svg"),
                        "4: engine share / weight share (1 = exact)", "ratio",
                        ["1", "2", "4", "8"], series4,
                        lambda g, s: get(4, "share_over_weight", s, float(g)), ref=1.0)
    made[5] = line_chart(os.path.join(out, "fig5.svg"), "5: kernel CPU per NOP job",
                         "contexts (one process) / processes", "us of kernel CPU per job",
                         {"contexts": xs(5, "kernel_cpu_per_job", "contexts"),
                          "processes": xs(5, "kernel_cpu_per_job", "processes")})
    made[6] = bar_chart(
        os.path.join(out, "fig6.svg"), "6: rate as a fraction of the cost model",
        "fraction of the model's rate", ["copy", "gemm", "saxpy"], ["driver", "device"],
        lambda g, s: frac(get(6, g, s), get(6, g, "model")), ref=1.0)
    made[7] = bar_chart(os.path.join(out, "fig7.svg"), "7: preemption latency (driver)",
                        "us", ["p50", "p99"], ["fair", "default"],
                        lambda g, s: get(7, "preempt_latency_" + g, s), logy=True)
    return made


def frac(m, model):
    if not m or not model or not model["median"]:
        return None
    d = model["median"]
    return {"median": m["median"] / d, "min": m["min"] / d, "max": m["max"] / d}


def table(res, fig):
    rows = []
    for m in res["metrics"]:
        if m["figure"] != fig:
            continue
        med, lo, hi = m["median"], m["min"], m["max"]
        spread = "%.1f%%" % (100.0 * (hi - lo) / abs(med)) if med else "-"
        x = "%g" % m["x"] if m["x"] is not None else ""
        rows.append("| %s | %s | %s | %s | %s | %s | %s | %d | %s |"
                    % (m["name"], m["series"], x, fmt(med), fmt(lo), fmt(hi), spread,
                       len(m["values"]), m["unit"]))
    for m in res["missing"]:
        if m["figure"] == fig:
            rows.append("| %s | not measured: %s | | | | | | | |" % (m["name"], m["why"]))
    if not rows:
        return []
    return (["| metric | series | x | median | min | max | spread | n | unit |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"] + rows)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    text = extract(sys.argv[1])
    if not text:
        print("bench-report: no results in %s" % sys.argv[1], file=sys.stderr)
        sys.exit(1)
    try:
        res = json.loads(text)
    except ValueError as e:
        print("bench-report: the results in %s do not parse: %s" % (sys.argv[1], e),
              file=sys.stderr)
        sys.exit(1)
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    made = plots(res, out)
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(res.get("time", 0)))
    md = ["# tern benchmark report", "",
          "%s, %s mode, %d repetitions per figure.  Device %s (%d compute engines); "
          "scheduling figures on %s (time-scale %d).  Values are medians over the "
          "repetitions; spread = (max - min) / median.  See docs/performance.md for "
          "what each figure measures and what limits it."
          % (when, res["mode"], res["reps"], res["device"]["path"],
             res["device"]["compute_engines"], res["scaled_device"]["path"],
             res["scaled_device"]["time_scale"]), ""]
    figures = sorted({int(k) for k in res["titles"]} | {m["figure"] for m in res["metrics"]})
    for fig in [f for f in figures if f >= 1]:
        rows = table(res, fig)
        title = res["titles"].get(str(fig), "")
        md += ["## Figure %d: %s" % (fig, title), ""]
        md += rows if rows else ["(not run)"]
        md.append("")
        if made.get(fig):
            md += ["![figure %d](fig%d.svg)" % (fig, fig), ""]
        if rows:
            print("\nFigure %d: %s" % (fig, title))
            print("\n".join(rows))
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(md))
    print("\nreport: %s" % os.path.join(out, "report.md"))


if __name__ == "__main__":
    main()
