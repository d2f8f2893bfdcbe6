#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# make check: every file the documentation cites is in the repository.
#
# Scans README.md, docs/*.md, tests/vm/README.md and the comments of the
# uAPI header for references to repository files: paths inside the trees
# the repository owns (docs/uapi.md, tests/vm/core_nan.c,
# drivers/accel/tern/tern_policy.[ch], tests/vm/sched_*) and bare names of
# Markdown documents (DESIGN.md).  Each must match a tracked file, so that
# no document sends a reader to a file the reader does not have.  Paths of
# other trees (QEMU's tests/qtest/, the kernel's drivers/accel/Kconfig),
# build output (build/...) and placeholders (<name>) are not references.
#
# usage: check-doc-refs.py [repository root]; exit 1 and one line per bad
# reference if any.
import fnmatch
import os
import re
import subprocess
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "."
os.chdir(root)
tracked = set(subprocess.run(["git", "ls-files"], capture_output=True, text=True,
                             check=True).stdout.split())
dirs = set()
for p in tracked:
    while "/" in p:
        p = os.path.dirname(p)
        dirs.add(p)

# the trees of the repository; a path elsewhere names another project's file
OWN = ["docs/", "tests/vm/", "userspace/", "scripts/", "drivers/accel/tern/",
       "include/uapi/drm/", "qemu-device/"]

# Markdown names that are outputs of the tools, not documents of the repository
GENERATED_MD = {"report.md"}

docs = ["README.md", "tests/vm/README.md", "include/uapi/drm/tern_accel.h"]
docs += sorted(p for p in tracked if p.startswith("docs/") and p.endswith(".md"))

path_re = re.compile(r"(?<![\w./~<-])((?:%s)[\w.*\[\]/-]*[\w*\]/])" %
                     "|".join(re.escape(t) for t in OWN))
md_re = re.compile(r"(?<![\w./~<-])([\w-]+\.md)\b")


def exists(ref):
    ref = ref.rstrip("/")
    if ref in tracked or ref in dirs:
        return True
    if any(c in ref for c in "*["):
        return any(fnmatch.fnmatchcase(p, ref) for p in tracked)
    return False


bad = []
for doc in docs:
    if doc not in tracked:
        continue
    with open(doc, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            for m in path_re.finditer(line):
                ref = m.group(1).rstrip(".")
                if line[m.end():m.end() + 1] == "<":
                    continue	# a placeholder follows: tests/vm/<name>.c
                if not exists(ref):
                    bad.append(f"{doc}:{n}: {ref}")
            for m in md_re.finditer(line):
                name = m.group(1)
                if name in GENERATED_MD:
                    continue
                if not any(p == name or p.endswith("/" + name) for p in tracked):
                    bad.append(f"{doc}:{n}: {name}")

for b in bad:
    print(f"not in the repository: {b}")
sys.exit(1 if bad else 0)
