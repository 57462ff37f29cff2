#!/usr/bin/env python3
"""Checks that data flows one way through lib/: a file in one folder includes
only headers of its own folder or of folders earlier in the pipeline

  graph -> settings -> generate -> prepare -> analysis -> partition
        -> pipeline -> estimate -> plan -> report

(graph holds the in-memory graph, its loading and validation, and the small
utilities every stage uses; settings come right after it, since op classes
name graph nodes; generate writes synthetic graphs, so it sits beside the
loader; pipeline
wires load..extract together; plan drives the pipeline and the estimates to
meet a memory limit). A folder not in the list fails the check, so that a
new folder takes its place in the order on purpose.

Usage: lib_include_order.py LIB_DIR    (exit 0 clean, 1 with one line per
offending include)
"""

import os
import re
import sys

ORDER = ["graph", "settings", "generate", "prepare", "analysis", "partition", "pipeline", "estimate", "plan",
         "report"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.M)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    lib = sys.argv[1]
    rank = {name: i for i, name in enumerate(ORDER)}
    problems = []
    checked = 0
    for folder in sorted(os.listdir(lib)):
        path = os.path.join(lib, folder)
        if not os.path.isdir(path):
            continue
        if folder not in rank:
            problems.append("lib/%s: a folder outside the pipeline order (add it to ORDER in %s)"
                            % (folder, os.path.basename(__file__)))
            continue
        for root, _, files in os.walk(path):
            for name in sorted(files):
                if not name.endswith((".h", ".cpp", ".inc")):
                    continue
                rel = os.path.relpath(os.path.join(root, name), lib)
                with open(os.path.join(root, name), encoding="utf-8") as f:
                    text = f.read()
                checked += 1
                for target in INCLUDE.findall(text):
                    if target not in rank:
                        problems.append("lib/%s includes %s/, a folder outside the pipeline order" % (rel, target))
                    elif rank[target] > rank[folder]:
                        problems.append("lib/%s includes %s/, which comes later than %s/" % (rel, target, folder))
    for p in problems:
        print(p)
    print("%d files checked, %d includes against the flow" % (checked, len(problems)))
    if checked == 0:
        print("no source files found under %s" % lib)
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
