"""Predicted against measured deltas (setting minus baseline) of step time
and peak memory, for the GPU runs of measure_settings.py. Pure Python 3
standard library; runs the partition_tool binary on the captured graphs.
See docs/bandwidth_model.md, "Prediction accuracy", for the summary table
this produces.

  python3 python/tools/predict_vs_measure.py \\
      --run $OUT_A/measure.json=DIR_A \\
      --run $OUT_B/measure.json=DIR_B \\
      [--device h200] [--bandwidth-option k=v ...] [--overhead-us 0] [--json-out F]

$OUT_x is the --out folder of a measure_settings.py run (outside the
repository); DIR_x holds <model>.graph.json (that run's graphs/ folder).

Measured step time: the median of a setting's timed steps (forward start to
backward end, CUDA events). The measured baseline is the mean of the two
identically partitioned copies `base` and `base_repeat`; half their
difference is shown as the noise. Measured peak: max_memory_allocated() of
one forward+backward minus memory_allocated() just before it.
Predicted: bandwidth.forward.seconds + bandwidth.backward.seconds, and
memory.peak_bytes, of the tool's report (--device). --overhead-us adds
N microseconds per kernel of the model (forward + backward kernels).

The accuracy bar: |predicted - measured| <= 0.30 |measured| + 0.2 ms for
step time, <= 0.25 |measured| + 0.1 GB (GB = 1e9 bytes) for peak memory.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_BINARY = os.path.join(ROOT, "build", "app", "partition_tool")

TIME_REL, TIME_ABS_MS = 0.30, 0.2
MEM_REL, MEM_ABS_B = 0.25, 0.1e9


def run_tool(binary, graph, settings, device, bw_options, workdir):
    out = os.path.join(workdir, "r.json")
    cmd = [binary, "--input", graph, "--report-json", out, "--device", device]
    for k, v in settings.items():
        v = ("true" if v else "false") if isinstance(v, bool) else str(v)
        cmd += ["--set", f"{k}={v}"]
    for o in bw_options:
        cmd += ["--bandwidth-option", o]
    subprocess.run(cmd, check=True, capture_output=True)
    with open(out, encoding="utf-8") as f:
        return json.load(f)


def predicted(report, overhead_us):
    bw = report["bandwidth"]
    kernels = bw["forward"]["kernels"] + bw["backward"]["kernels"]
    return {"step_ms": 1e3 * (bw["forward"]["seconds"] + bw["backward"]["seconds"]) + kernels * overhead_us / 1e3,
            "fwd_ms": 1e3 * bw["forward"]["seconds"] + bw["forward"]["kernels"] * overhead_us / 1e3,
            "peak_bytes": report["memory"]["peak_bytes"], "input_bytes": report["memory"]["input_bytes"],
            "peak_at": report["memory"]["peak_at"], "peak_pass": report["memory"]["peak_pass"],
            "kernels": kernels,
            "bytes": sum(bw[p]["bytes_loaded"] + bw[p]["bytes_stored"] for p in ("forward", "backward")),
            "flops": bw["forward"]["flops"] + bw["backward"]["flops"],
            "saved_values": report["saved_values"], "saved_bytes": report["saved_bytes"]}


def verdict(pred, meas, rel, absolute):
    err = pred - meas
    return err, abs(err) <= rel * abs(meas) + absolute


def paired_se(setting, base, repeat, drop):
    """Standard error of the measured delta from the per-round medians
    (rounds are interleaved, so round i of each setting ran back to back)."""
    r = setting["step_ms_rounds"][drop:]
    b = [(x + y) / 2 for x, y in zip(base["step_ms_rounds"][drop:], repeat["step_ms_rounds"][drop:])]
    d = [x - y for x, y in zip(r, b)]
    if len(d) < 2:
        return None
    return statistics.stdev(d) / len(d) ** 0.5


def device_for(model, args):
    for spec in args.model_device:
        m, dev = spec.split("=", 1)
        if m == model:
            return dev
    return args.device


def find_graph(dirs, model):
    """<model>.graph.json in the first of `dirs` that holds it."""
    for d in dirs:
        path = os.path.join(d, f"{model}.graph.json")
        if os.path.isfile(path):
            return path
    raise SystemExit(f"no {model}.graph.json in {dirs}")


def parse_run_spec(spec):
    """RESULTS_JSON=DIR[,DIR...][=NAME] -> (path, graph dirs, run name)."""
    parts = spec.split("=")
    name = parts[2] if len(parts) > 2 else os.path.basename(os.path.dirname(parts[0]))
    return parts[0], parts[1].split(","), name


def compare(run_name, measure, graph_dirs, args, workdir):
    rows = []
    drop = measure.get("args", {}).get("drop_rounds", 0) or 0
    for model, res in measure["models"].items():
        sets = res.get("settings", {})
        if "base" not in sets or "step_ms" not in sets["base"]:
            continue
        if f"{run_name}:{model}" in args.skip:
            continue
        graph = find_graph(graph_dirs, model)
        device = device_for(model, args)
        base_rep = run_tool(args.binary, graph, {}, device, args.bandwidth_option, workdir)
        pb = predicted(base_rep, args.overhead_us)
        b1, b2 = sets["base"], sets.get("base_repeat", sets["base"])
        mb_step = (b1["step_ms"] + b2["step_ms"]) / 2
        noise = abs(b1["step_ms"] - b2["step_ms"]) / 2
        mb_peak = b1["step_peak_bytes"]
        for label, s in sets.items():
            if label == "base" or "step_ms" not in s:
                continue
            rep = run_tool(args.binary, graph, s["settings"], device, args.bandwidth_option, workdir)
            p = predicted(rep, args.overhead_us)
            gpu_saved = s["records"][0]["saved_values"]
            d_meas_t = s["step_ms"] - (mb_step if label != "base_repeat" else b1["step_ms"])
            d_pred_t = p["step_ms"] - pb["step_ms"]
            d_meas_m = s["step_peak_bytes"] - mb_peak
            d_pred_m = p["peak_bytes"] - pb["peak_bytes"]
            et, ok_t = verdict(d_pred_t, d_meas_t, TIME_REL, TIME_ABS_MS)
            em, ok_m = verdict(d_pred_m, d_meas_m, MEM_REL, MEM_ABS_B)
            rows.append({
                "run": run_name, "model": model, "setting": label, "settings": s["settings"], "device": device,
                "saved_same_as_gpu_run": p["saved_values"] == gpu_saved,
                "same_final_modules_as_base": s["records"][0]["digests"] == b1["records"][0]["digests"],
                "measured": {"base_step_ms": mb_step, "base_noise_ms": noise, "step_ms": s["step_ms"],
                             "fwd_ms": s["fwd_ms"], "base_fwd_ms": (b1["fwd_ms"] + b2["fwd_ms"]) / 2,
                             "base_peak_bytes": mb_peak, "peak_bytes": s["step_peak_bytes"],
                             "d_step_ms": d_meas_t, "d_peak_bytes": d_meas_m,
                             "d_step_se_ms": paired_se(s, b1, b1 if label == "base_repeat" else b2, drop),
                             "sync_steps": bool(measure.get("args", {}).get("sync_steps"))},
                "predicted": {"base_step_ms": pb["step_ms"], "step_ms": p["step_ms"],
                              "base_fwd_ms": pb["fwd_ms"], "fwd_ms": p["fwd_ms"],
                              "base_peak_bytes": pb["peak_bytes"], "peak_bytes": p["peak_bytes"],
                              "input_bytes": p["input_bytes"], "peak_at": p["peak_at"],
                              "d_fwd_ms": p["fwd_ms"] - pb["fwd_ms"],
                              "base_peak_at": pb["peak_at"], "peak_pass": p["peak_pass"],
                              "d_kernels": p["kernels"] - pb["kernels"], "d_bytes": p["bytes"] - pb["bytes"],
                              "d_flops": p["flops"] - pb["flops"],
                              "d_saved_bytes": p["saved_bytes"] - pb["saved_bytes"],
                              "d_step_ms": d_pred_t, "d_peak_bytes": d_pred_m},
                "error": {"step_ms": et, "peak_bytes": em},
                "pass": {"step": ok_t, "peak": ok_m}})
        for label in res.get("skipped_same_cut", {}):
            rows.append({"run": run_name, "model": model, "setting": label, "same_cut": True})
    return rows


def _sign(x, digits):
    return f"{x:+.{digits}f}"


def _se(m):
    return "" if m.get("d_step_se_ms") is None else f" ±{m['d_step_se_ms']:.2f}"


def table(rows):
    lines = ["| run | model | setting | meas. base ms (± half base-repeat gap) | meas. Δstep ms (± s.e.) | pred. Δstep ms | err ms | time | "
             "meas. Δpeak GB | pred. Δpeak GB | err GB | mem |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- |"]
    for r in rows:
        if r.get("same_cut"):
            lines.append(f"| {r['run']} | {r['model']} | {r['setting']} | same cut as base: not compiled "
                         "| 0 | 0 | | | 0 | 0 | | |")
            continue
        m, p, e, ok = r["measured"], r["predicted"], r["error"], r["pass"]
        tag = " (control)" if r["setting"] == "base_repeat" else ""
        lines.append(
            f"| {r['run']} | {r['model']} | {r['setting']}{tag} | {m['base_step_ms']:.2f} (±{m['base_noise_ms']:.2f}) "
            f"| {_sign(m['d_step_ms'], 2)}{_se(m)} | {_sign(p['d_step_ms'], 2)} | {_sign(e['step_ms'], 2)} "
            f"| {'pass' if ok['step'] else 'FAIL'} | {_sign(m['d_peak_bytes'] / 1e9, 3)} "
            f"| {_sign(p['d_peak_bytes'] / 1e9, 3)} | {_sign(e['peak_bytes'] / 1e9, 3)} "
            f"| {'pass' if ok['peak'] else 'FAIL'} |")
    return "\n".join(lines)


def summary(rows):
    real = [r for r in rows if not r.get("same_cut") and r["setting"] != "base_repeat"]
    t = sum(r["pass"]["step"] for r in real)
    m = sum(r["pass"]["peak"] for r in real)
    return f"{len(real)} setting pairs: step time {t}/{len(real)} pass, peak memory {m}/{len(real)} pass"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", action="append", required=True,
                    help="MEASURE_JSON=GRAPH_DIR[,GRAPH_DIR...][=NAME] (repeatable)")
    ap.add_argument("--device", default="h200")
    ap.add_argument("--bandwidth-option", action="append", default=[])
    ap.add_argument("--overhead-us", type=float, default=0.0)
    ap.add_argument("--model-device", action="append", default=[],
                    help="MODEL=DEVICE: another --device for one model (e.g. fp32 FLOP/s)")
    ap.add_argument("--skip", action="append", default=[], help="RUN:MODEL rows to leave out")
    ap.add_argument("--binary", default=os.environ.get("PARTITION_TOOL", DEFAULT_BINARY))
    ap.add_argument("--json-out")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for spec in args.run:
            path, dirs, name = parse_run_spec(spec)
            with open(path, encoding="utf-8") as f:
                rows += compare(name, json.load(f), dirs, args, d)
    print(f"device {args.device}, bandwidth options {args.bandwidth_option or 'defaults'}, "
          f"overhead {args.overhead_us} us/kernel")
    print(table(rows))
    print(summary(rows))
    bad = [f"{r['model']}/{r['setting']}" for r in rows if not r.get("same_cut") and not r["saved_same_as_gpu_run"]]
    if bad:
        print("WARNING: the tool's saved set here differs from the GPU run's for", bad)
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump({"device": args.device, "bandwidth_options": args.bandwidth_option,
                       "overhead_us": args.overhead_us, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
