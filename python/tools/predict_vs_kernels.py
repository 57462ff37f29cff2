"""Predicted step-time deltas against the GPU's busy time per step, for the
kernel runs of pred_kernels.py (docs/bandwidth_model.md, "Calibration").
Pure Python 3 standard library; runs the partition_tool binary on the
captured graphs like predict_vs_measure.py.

  python3 python/tools/predict_vs_kernels.py \\
      --run $OUT1/kernels.json=GRAPHS1 --run $OUT2/kernels.json=GRAPHS1,GRAPHS2 ...

$OUTn: folders pred_kernels.py wrote (outside the repository); GRAPHSn: the
captured graphs of the measure_settings.py runs.

Measured: the summed GPU time of every kernel of one step (torch.profiler,
median over the profiled steps' total), setting minus baseline, where the
baseline is the mean of `base` and `base_repeat` when both ran (half their
gap is shown as the noise). The step time of the same run (CUDA events,
forward start to backward end) is shown beside it: on a host-bound model
the two differ, and only the busy time is what the bandwidth model
describes. The accuracy bar: |predicted - measured| <= 0.30 |measured|
+ 0.2 ms.
"""

import argparse
import ast
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import predict_vs_measure as pvm  # noqa: E402  (no torch needed)


def settings_table():
    """measure_settings.SETTINGS without importing torch: the literal dict."""
    with open(os.path.join(HERE, "measure_settings.py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "SETTINGS" for t in node.targets):
            return ast.literal_eval(node.value)
    raise SystemExit("SETTINGS not found in measure_settings.py")


def compare(run_name, runs, dirs, args, workdir):
    settings = settings_table()
    by_model = {}
    for key, res in runs.items():
        model, label = key.split("/")
        if "kernel_us_per_step" in res:
            by_model.setdefault(model, {})[label] = res
    rows = []
    for model, sets in by_model.items():
        if "base" not in sets:
            continue
        graph = pvm.find_graph(dirs, model)
        pb = pvm.predicted(pvm.run_tool(args.binary, graph, {}, args.device, args.bandwidth_option, workdir), 0)
        b1, b2 = sets["base"], sets.get("base_repeat", sets["base"])
        base_busy = (b1["kernel_us_per_step"] + b2["kernel_us_per_step"]) / 2e3
        base_step = (b1["step_ms"] + b2["step_ms"]) / 2
        noise = abs(b1["kernel_us_per_step"] - b2["kernel_us_per_step"]) / 2e3
        for label, s in sets.items():
            if label == "base":
                continue
            rep = pvm.run_tool(args.binary, graph, settings[label], args.device, args.bandwidth_option, workdir)
            p = pvm.predicted(rep, 0)
            control = label == "base_repeat"
            d_busy = s["kernel_us_per_step"] / 1e3 - (b1["kernel_us_per_step"] / 1e3 if control else base_busy)
            d_step = s["step_ms"] - (b1["step_ms"] if control else base_step)
            d_pred = p["step_ms"] - pb["step_ms"]
            err, ok = pvm.verdict(d_pred, d_busy, pvm.TIME_REL, pvm.TIME_ABS_MS)
            _, ok_step = pvm.verdict(d_pred, d_step, pvm.TIME_REL, pvm.TIME_ABS_MS)
            rows.append({"run": run_name, "model": model, "setting": label, "control": control,
                         "saved_same_as_gpu_run": p["saved_values"] == s["saved"][0],
                         "measured": {"base_busy_ms": base_busy, "noise_ms": noise, "base_step_ms": base_step,
                                      "d_busy_ms": d_busy, "d_step_ms": d_step},
                         "predicted": {"d_step_ms": d_pred, "d_bytes": p["bytes"] - pb["bytes"]},
                         "error_ms": err, "pass": ok, "pass_vs_step_time": ok_step})
    return rows


def table(rows):
    lines = ["| run | model | setting | base busy ms (± noise) | base step ms | meas. Δbusy ms | meas. Δstep ms "
             "| pred. Δ ms | err ms | busy | step |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
    for r in rows:
        m, p = r["measured"], r["predicted"]
        tag = " (control)" if r["control"] else ""
        lines.append(f"| {r['run']} | {r['model']} | {r['setting']}{tag} | {m['base_busy_ms']:.2f} (±{m['noise_ms']:.2f}) "
                     f"| {m['base_step_ms']:.2f} | {m['d_busy_ms']:+.2f} | {m['d_step_ms']:+.2f} | {p['d_step_ms']:+.2f} "
                     f"| {r['error_ms']:+.2f} | {'pass' if r['pass'] else 'FAIL'} "
                     f"| {'pass' if r['pass_vs_step_time'] else 'FAIL'} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", action="append", required=True, help="KERNELS_JSON=DIR[,DIR...][=NAME] (repeatable)")
    ap.add_argument("--device", default="h200")
    ap.add_argument("--bandwidth-option", action="append", default=[])
    ap.add_argument("--binary", default=os.environ.get("PARTITION_TOOL", pvm.DEFAULT_BINARY))
    ap.add_argument("--json-out")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for spec in args.run:
            path, dirs, name = pvm.parse_run_spec(spec)
            with open(path, encoding="utf-8") as f:
                rows += compare(name, json.load(f)["runs"], dirs, args, d)
    print(f"device {args.device}, bandwidth options {args.bandwidth_option or 'defaults'}")
    print(table(rows))
    real = [r for r in rows if not r["control"]]
    print(f"{len(real)} setting pairs: busy time {sum(r['pass'] for r in real)}/{len(real)} pass; "
          f"against the same run's step time {sum(r['pass_vs_step_time'] for r in real)}/{len(real)}")
    bad = [f"{r['model']}/{r['setting']}" for r in rows if not r["saved_same_as_gpu_run"]]
    if bad:
        print("WARNING: the tool's saved set here differs from the GPU run's for", bad)
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump({"device": args.device, "bandwidth_options": args.bandwidth_option, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
