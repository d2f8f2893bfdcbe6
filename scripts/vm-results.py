#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Judge the VM test run from the guests' console logs.

usage: vm-results.py VMDIR [NAME_REGEX]

Each test's TAP lines count as results ("ok", "not ok", "# SKIP").  A test
also fails when it exits non-zero, when it never reports its end (guest hung
or crashed), and when the kernel logged a warning, oops, BUG, lockdep, KASAN
or hung-task report while it ran, a write into a freed page (page_poison=1)
or an IOMMU fault (DMAR, in the iommu-<n> groups), and when contexts of
its exited processes were still there 10 s after it ended (TERN-LEAK: a
job that never finished).  A test of an iommu-<n>
group is named <test>@iommu, one of a hw10-<n> group (a version 1.0
device) <test>@hw10.  TERN_VM_IOMMU as for vm-run.sh says which
groups ran.  Writes "passed failed skipped" to build/results/vm.txt.
"""
import os
import re
import sys

KERNEL_REPORT = re.compile(
    r"(WARNING: CPU:|WARNING: .* at |BUG: |kernel BUG at|Oops:|"
    r"general protection fault|Kernel panic|INFO: task .* blocked for more than|"
    r"possible circular locking dependency|inconsistent lock state|"
    r"possible recursive locking|suspicious RCU usage|KASAN:|UBSAN:|"
    r"unreferenced object|rcu: INFO: rcu_.* detected stalls|"
    r"sleeping function called from invalid context|refcount_t: |"
    # page_poison=1: a freed page was written before its next allocation
    r"pagealloc: (memory corruption|single bit error)|"
    # intel-iommu: a DMA or interrupt the IOMMU refused (guest, then QEMU)
    r"DMAR: \[(DMA Read|DMA Write|INTR-REMAP)|DMAR: DRHD: handling fault|"
    r"detected translation failure)")
TAP = re.compile(r"^(not ok|ok)\b\s*\d*\s*-?\s*(.*)$")


def main():
    vmdir = sys.argv[1]
    only = re.compile(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2] else None
    top = os.path.dirname(os.path.dirname(vmdir))
    passed = failed = skipped = 0
    failures = []
    groups = {}
    iommu_mode = os.environ.get("TERN_VM_IOMMU", "1")
    with open(os.path.join(vmdir, "groups.txt")) as f:
        for line in f:
            g = line.split()[0]
            behind = g.startswith("iommu-")
            if (iommu_mode == "0" and behind) or (iommu_mode == "only" and not behind):
                continue
            with open(os.path.join(vmdir, "root/tern/groups", g)) as gf:
                names = [l.split()[0] for l in gf if l.strip()]
            groups[g] = [n for n in names if not only or only.search(n)]

    for g, names in groups.items():
        if not names:
            continue
        path = os.path.join(vmdir, "console-%s.log" % g)
        lines = open(path, errors="replace").read().splitlines() if os.path.exists(path) else []
        state = {}
        cur = None
        in_dmesg = None
        behind = g.startswith("iommu-")
        hw10 = g.startswith("hw10-")
        translated = False
        versions = []
        for raw in lines:
            line = raw.rstrip("\r")
            if re.match(r"TERN-IOMMU \S+ DMA\s*$", line):
                translated = True
                continue
            m = re.match(r"TERN-HW tern (\d+\.\d+): \d+ engines", line)
            if m:
                versions.append(m.group(1))
                continue
            m = re.match(r"TERN-TEST-BEGIN (\S+)", line)
            if m:
                cur = m.group(1)
                state[cur] = {"ok": 0, "fail": [], "skip": 0, "rc": None, "report": []}
                continue
            m = re.match(r"TERN-TEST-END (\S+) rc=(\d+)", line)
            if m and m.group(1) in state:
                state[m.group(1)]["rc"] = int(m.group(2))
                cur = None
                continue
            m = re.match(r"TERN-LEAK (\S+) (.*)", line)
            if m and m.group(1) in state:
                state[m.group(1)]["leak"] = m.group(2)
                continue
            m = re.match(r"TERN-DMESG-(BEGIN|END) (\S+)", line)
            if m:
                in_dmesg = m.group(2) if m.group(1) == "BEGIN" else None
                continue
            owner = cur or in_dmesg
            if KERNEL_REPORT.search(line):
                if owner in state:
                    state[owner]["report"].append(line.strip())
                else:
                    failures.append("kernel report outside any test (group %s): %s" % (g, line.strip()))
                    failed += 1
                continue
            if cur:
                t = TAP.match(line.strip())
                if t:
                    desc = t.group(2)
                    if "# SKIP" in desc.upper():
                        state[cur]["skip"] += 1
                    elif t.group(1) == "ok":
                        state[cur]["ok"] += 1
                    else:
                        state[cur]["fail"].append(desc)
        label = "@iommu" if behind else "@hw10" if hw10 else ""
        if behind and state and not translated:
            failed += 1
            failures.append("group %s: the device was not behind a translating IOMMU "
                            "(no 'TERN-IOMMU <bdf> DMA' line in %s)" % (g, path))
        if hw10 and state and (not versions or set(versions) != {"1.0"}):
            failed += 1
            failures.append("group %s: the driver did not report version 1.0 for every "
                            "device ('TERN-HW tern 1.0: <n> engines' lines in %s)" % (g, path))
        for n in names:
            s = state.get(n)
            n += label
            if s is None:
                failed += 1
                failures.append("%s: never ran (guest hung or crashed before it; see %s)" % (n, path))
                print("FAIL %s: never ran" % n)
                continue
            passed += s["ok"]
            skipped += s["skip"]
            failed += len(s["fail"])
            why = ["subtest failed: %s" % d for d in s["fail"]]
            if s["rc"] is None:
                why.append("did not finish (timeout or guest crash)")
                failed += 1
            elif s["rc"] != 0 and not s["fail"]:
                why.append("exited with status %d" % s["rc"])
                failed += 1
            if s["ok"] + len(s["fail"]) + s["skip"] == 0 and s["rc"] == 0:
                why.append("printed no TAP result")
                failed += 1
            if s["report"]:
                why.append("kernel report: %s" % s["report"][0])
                failed += 1
            if s.get("leak"):
                why.append("left work behind: %s" % s["leak"])
                failed += 1
            if why:
                failures.extend("%s: %s" % (n, w) for w in why)
                print("FAIL %s (%d ok): %s" % (n, s["ok"], "; ".join(why)))
            else:
                print("PASS %s (%d ok%s)" % (n, s["ok"], ", %d skipped" % s["skip"] if s["skip"] else ""))

    os.makedirs(os.path.join(top, "build/results"), exist_ok=True)
    with open(os.path.join(top, "build/results/vm.txt"), "w") as f:
        f.write("%d %d %d\n" % (passed, failed, skipped))
    print("vm-test: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
    for w in failures:
        print("  " + w)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
