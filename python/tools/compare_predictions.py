"""Measured step time and peak memory (a gpu_verify.py verify.json) next to
what partition_tool's report predicts on the same captured joint graphs.
Needs no GPU and no torch: the graphs come from gpu_verify's graphs.tar.gz.

  python3 python/tools/compare_predictions.py --results $OUT/verify.json \
      --graphs $OUT/graphs.tar.gz [--device h200]

$OUT is the folder a gpu_verify.py run wrote (outside the repository: raw
GPU results are not kept in the tree).

The prediction is the report's bandwidth.forward.seconds +
bandwidth.backward.seconds and memory.peak_bytes when this build of the tool
writes them (with --device when it takes the flag); otherwise only its
saved_bytes, and the table says so.
"""

import argparse
import json
import os
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from partition_tool_torch import cli  # noqa: E402

SETTINGS = {"pytorch": {}, "tool_base_1.2": {"dist_from_bw_base": 1.2}}


def predict(binary, graph, settings, device, workdir):
    report_path = os.path.join(workdir, "report.json")
    try:
        report = cli.run_partition(binary, graph, report_path, settings, device=device)
    except cli.PartitionToolError as e:
        if e.returncode != 2 or not device:
            raise
        report = cli.run_partition(binary, graph, report_path, settings)  # no --device yet
    return report["saved_bytes"], cli.predicted_cost(report)


def _fmt(x, scale, digits):
    return "-" if x is None else f"{x * scale:.{digits}f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True, help="verify.json of gpu_verify.py")
    ap.add_argument("--graphs", required=True, help="graphs.tar.gz of the same run")
    ap.add_argument("--device", default="h200")
    ap.add_argument("--binary", default=None)
    args = ap.parse_args()
    binary = cli.find_binary(args.binary)
    with open(args.results, encoding="utf-8") as f:
        sections = json.load(f)["sections"]
    print("| model | partitioner | measured fwd ms | measured step ms | measured peak GB "
          "| tool saved GB | predicted step ms | predicted peak GB |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as d:
        with tarfile.open(args.graphs) as tar:
            tar.extractall(d)
        for key, runs in sections.items():
            if not key.startswith("train:"):
                continue
            model = key.split(":", 1)[1]
            graph = os.path.join(d, "graphs", "train", f"{model}_train.graph.json")
            for label, settings in SETTINGS.items():
                run = runs.get(label)
                if not run or "step_ms" not in run or not os.path.exists(graph):
                    continue
                saved, pred = predict(binary, graph, settings, args.device, d)
                print(f"| {model} | {label} | {run['fwd_ms']:.2f} | {run['step_ms']:.2f} "
                      f"| {run['peak_bytes'] / 1e9:.3f} | {saved / 1e9:.3f} "
                      f"| {_fmt(pred.get('step_s'), 1e3, 2)} | {_fmt(pred.get('peak_bytes'), 1e-9, 3)} |")


if __name__ == "__main__":
    main()
