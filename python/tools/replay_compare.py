#!/usr/bin/env python3
"""The peak simulation against Inductor's own allocations, for every run
of a memory-snapshot folder, without a GPU.

`pred_memsnap.py --out DIR` leaves, per model and label, the joint graph the
partition tool read (DIR/work/<model>/<label>/*.graph.json), the settings
(DIR/memsnap.json) and every wrapper Inductor generated
(DIR/code/<model>.<label>.<file>.py). This script partitions each graph
again with the current binary, replays the backward's wrapper
(replay_inductor_call.py) and prints, per run, the replay's backward peak,
the model's (memory.backward_peak_bytes less memory.input_bytes: the same
quantity) and their difference. (The measured step peak sits above the
replay by what the allocator and libraries add: a GPU figure, not this
check's.)

  python3 python/tools/replay_compare.py DIR [--binary build/app/partition_tool]

Runs with several graphs (graph breaks) are listed as skipped (their
wrappers are not matched to graphs here), as are runs the tool refuses,
with its error line. After a change to the bandwidth model, this is the
check that needs no GPU time.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import replay_inductor_call as ric  # noqa: E402


def backward_wrapper(paths):
    """The wrapper whose call() takes tangents (`..., tangents_1 = args`):
    the backward's."""
    for p in paths:
        with open(p) as f:
            text = f.read()
        start = text.find("def call(")
        end = text.find("= args", start)
        if start >= 0 and end >= 0 and "tangents_" in text[start:end]:
            return p
    return None


def model_backward_peak(binary, graph, settings, work):
    report = os.path.join(work, "report.json")
    cmd = [binary, graph, "--no-timings", "--report-json", report]
    for k, v in settings.items():
        cmd += ["--set", f"{k}={json.dumps(v) if isinstance(v, bool) else v}"]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError((r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[-1])
    with open(report) as f:
        memory = json.load(f)["memory"]
    return ric.model_backward_bytes(memory), memory["peak_at"]


def compare(folder, binary):
    runs = json.load(open(os.path.join(folder, "memsnap.json")))
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for key, run in runs.items():
            model, label = key.split("/")
            graphs = sorted(glob.glob(os.path.join(folder, "work", model, label, "*.graph.json")))
            wrappers = sorted(glob.glob(os.path.join(folder, "code", f"{model}.{label}.*.py")))
            row = {"run": key}
            rows.append(row)
            bw = backward_wrapper(wrappers)
            if len(graphs) != 1 or bw is None:
                row["skipped"] = f"{len(graphs)} graphs, {'a' if bw else 'no'} backward wrapper"
                continue
            try:
                row["model"], row["model_at"] = model_backward_peak(binary, graphs[0], run.get("settings", {}), work)
            except RuntimeError as e:
                row["skipped"] = f"the tool failed: {e}"
                continue
            row["replay"] = ric.replay(bw, "primals_")[0]
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", help="a pred_memsnap.py --out folder")
    ap.add_argument("--binary", default=os.environ.get("PARTITION_TOOL", "build/app/partition_tool"))
    a = ap.parse_args()
    if not os.path.isfile(os.path.join(a.folder, "memsnap.json")):
        print(f"{a.folder}: no memsnap.json (not a pred_memsnap.py --out folder)", file=sys.stderr)
        return 2
    print(f"{'run':34} {'replay GB':>9} {'model GB':>9} {'diff MB':>8} {'diff':>7}  model's peak at")
    for r in compare(a.folder, a.binary):
        if "skipped" in r:
            print(f"{r['run']:34} skipped: {r['skipped']}")
            continue
        d = r["model"] - r["replay"]
        rel = f"{d / r['replay'] * 100:+.1f}%" if r["replay"] else "n/a"
        print(f"{r['run']:34} {r['replay'] / 1e9:9.3f} {r['model'] / 1e9:9.3f} {d / 1e6:+8.0f} {rel:>7}  {r['model_at']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
