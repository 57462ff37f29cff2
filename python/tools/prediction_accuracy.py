"""The table of docs/prediction_accuracy.md: partition_tool's predicted step
time and peak memory against measure_families.py's GPU measurements, per
model and setting, with the bars of that page. Pure Python 3 standard
library; runs the partition_tool binary on the kept joint graphs, so the
predictions can be recomputed without a GPU after a model change.

  python3 python/tools/prediction_accuracy.py RESULTS_DIR [RESULTS_DIR ...] \\
      [--device h100] [--held-out MODEL,MODEL] \\
      [--bandwidth-option k=v ...] [--binary build/app/partition_tool]

Each RESULTS_DIR is a measure_families.py work directory (WORK/<model>.json,
WORK/graphs/). Measured step time: the median of CUDA-graph replays of one
whole step (GPU time; the launched step, host overhead included, is shown
beside it). Measured peak: max_memory_allocated() over one step minus
memory_allocated() just before it, plus the bytes of the step's parameters
and batch (`arg_bytes`), which memory.peak_bytes counts as inputs.
Predicted: bandwidth.forward.seconds + bandwidth.backward.seconds and
memory.peak_bytes of the tool's report for the same graph and setting.
"""

import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from predict_vs_measure import run_tool  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ABS_TIME_REL, ABS_PEAK_REL = 0.15, 0.05
TIME_REL, TIME_ABS_MS = 0.30, 0.2
MEM_REL, MEM_ABS_GB = 0.25, 0.1


def load_models(dirs):
    """model name -> (result dict, graph path), from every results directory."""
    out = {}
    for d in dirs:
        for f in sorted(os.listdir(d)):
            if not f.endswith(".json") or f in ("measure.json", "env.json", "microbench.json"):
                continue
            with open(os.path.join(d, f), encoding="utf-8") as fh:
                res = json.load(fh)
            if "model" in res and "graph_files" in res:
                out[res["model"]] = (res, [os.path.join(d, "graphs", g) for g in res["graph_files"]])
    return out


ITEMSIZE = {"float64": 8, "int64": 8, "complex64": 8, "float32": 4, "int32": 4, "float16": 2, "bfloat16": 2,
            "int16": 2, "int8": 1, "uint8": 1, "bool": 1, "float8_e4m3fn": 1, "float8_e5m2": 1}


def input_bytes(graph):
    """A joint graph's forward inputs: (bytes of its parameters and buffers,
    the primals that static_lifetime_input_indices names, whose gradients
    the backward adds to the step's memory for good; {name: bytes} of the
    other primals: the batch in the first graph, activations of the graph
    before in a later one)."""
    with open(graph, encoding="utf-8") as f:
        g = json.load(f)
    primals = [n for n in g["nodes"] if n["op"] == "placeholder" and n["name"].startswith("primals")]
    static = set(g.get("static_lifetime_input_indices", []))
    params, others = 0, {}
    for i, n in enumerate(primals):
        t = n.get("val", {}).get("tensor")
        numel = 1
        for d in (t or {}).get("shape", []):
            numel *= d
        size = numel * ITEMSIZE.get(t["dtype"], 4) if t else 0
        if i in static:
            params += size
        else:
            others[n["name"]] = size
    return params, others


def predict(binary, graphs, settings, device, options, workdir, arg_bytes):
    """The step's predicted time and peak. One joint graph: its report's.
    Several (a model with graph breaks, compiled as graphs run one after the
    other, forward in order, backward in reverse): the times add up; the
    peak is the highest of each graph's forward and backward peak, on top
    of the step's parameters and batch (arg_bytes, as measured), what the
    earlier graphs saved for their backward, and, in the backward, the
    gradients of the later graphs' parameters. A graph's report holds its
    inputs for the whole step; taken off are those arg_bytes already counts
    (its parameters; the first graph's batch) and, in the backward, the
    activations a later graph took from an earlier one and did not save:
    they were freed when the forward moved on."""
    reps = [run_tool(binary, g, settings, device, options, workdir) for g in graphs]
    step_s = sum(r["bandwidth"]["forward"]["seconds"] + r["bandwidth"]["backward"]["seconds"] for r in reps)
    if len(reps) == 1:
        peak = reps[0]["memory"]["peak_bytes"]
    else:
        inputs = [input_bytes(g) for g in graphs]
        peak = 0
        for i, r in enumerate(reps):
            m = r["memory"]
            params, others = inputs[i]
            counted = m["input_bytes"] if i == 0 else params
            unsaved = 0 if i == 0 else sum(b for n, b in others.items() if n not in r["saved_values"])
            below = arg_bytes + sum(q["memory"]["saved_bytes"] for q in reps[:i])
            later_grads = sum(p for p, _ in inputs[i + 1:])
            peak = max(peak, below + m["forward_peak_bytes"] - counted,
                       below + later_grads + m["backward_peak_bytes"] - counted - unsaved)
    return {"step_ms": 1e3 * step_s, "peak_gb": peak / 1e9, "saved": [r["saved_values"] for r in reps]}


def measured(res, s):
    return {"step_ms": s["step_ms"], "launched_ms": s.get("launched_step_ms"),
            "peak_gb": (s["step_peak_bytes"] + res["arg_bytes"]) / 1e9}


def rows_for(name, res, graphs, args, workdir):
    sets = res["settings"]
    base = sets["base"]
    pb = predict(args.binary, graphs, {}, args.device, args.bandwidth_option, workdir, res["arg_bytes"])
    mb = measured(res, base)
    rows = []
    for label, s in sets.items():
        if "step_ms" not in s or "step_peak_bytes" not in s:
            continue
        if "records" in s and len(s["records"]) != len(base.get("records", [])):
            # The partitioner did not run on every graph of this setting's
            # step: it ran compiled frames of another setting (graph breaks,
            # before measure_families.py gave each setting its own backend).
            rows.append({"model": name, "setting": label, "not_this_setting": True})
            continue
        p = pb if label in ("base", "base_again") else \
            predict(args.binary, graphs, s["settings"], args.device, args.bandwidth_option, workdir, res["arg_bytes"])
        m = measured(res, s)
        row = {"model": name, "setting": label, "pred": p, "meas": m,
               "same_cut": p["saved"] == [r["saved_values"] for r in s["records"][:len(graphs)]]
               if s.get("records") else True}
        if label == "base":
            row["time_ok"] = abs(p["step_ms"] - m["step_ms"]) <= ABS_TIME_REL * m["step_ms"]
            row["peak_ok"] = abs(p["peak_gb"] - m["peak_gb"]) <= ABS_PEAK_REL * m["peak_gb"]
        else:
            dm_t, dp_t = m["step_ms"] - mb["step_ms"], p["step_ms"] - pb["step_ms"]
            dm_m, dp_m = m["peak_gb"] - mb["peak_gb"], p["peak_gb"] - pb["peak_gb"]
            row.update({"d_meas_ms": dm_t, "d_pred_ms": dp_t, "d_meas_gb": dm_m, "d_pred_gb": dp_m,
                        "time_ok": abs(dp_t - dm_t) <= TIME_REL * abs(dm_t) + TIME_ABS_MS,
                        "peak_ok": abs(dp_m - dm_m) <= MEM_REL * abs(dm_m) + MEM_ABS_GB})
        rows.append(row)
    for label in res.get("skipped_same_cut", {}):
        rows.append({"model": name, "setting": label, "same_cut_as_base": True})
    return rows


def _ok(b):
    return "pass" if b else "**miss**"


def table(rows):
    out = ["| model | setting | measured ms (launched step) | predicted ms | error | "
           "measured GB | predicted GB | error | time | peak |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
    for r in rows:
        if r.get("same_cut_as_base"):
            out.append(f"| {r['model']} | {r['setting']} | same cut as base | | | | | | | |")
            continue
        if r.get("not_this_setting"):
            out.append(f"| {r['model']} | {r['setting']} | not measured: the step ran another setting's "
                       f"compiled graphs | | | | | | | |")
            continue
        m, p = r["meas"], r["pred"]
        launched = f" ({m['launched_ms']:.2f})" if m.get("launched_ms") else ""
        if r["setting"] == "base":
            et = (p["step_ms"] - m["step_ms"]) / m["step_ms"]
            ep = (p["peak_gb"] - m["peak_gb"]) / m["peak_gb"]
            out.append(f"| {r['model']} | **base** | {m['step_ms']:.2f}{launched} | {p['step_ms']:.2f} | {et:+.0%} "
                       f"| {m['peak_gb']:.3f} | {p['peak_gb']:.3f} | {ep:+.1%} | {_ok(r['time_ok'])} "
                       f"| {_ok(r['peak_ok'])} |")
            continue
        tag = " (timing noise)" if r["setting"] == "base_again" else ""
        out.append(f"| {r['model']} | {r['setting']}{tag} | Δ {r['d_meas_ms']:+.2f} | Δ {r['d_pred_ms']:+.2f} "
                   f"| {r['d_pred_ms'] - r['d_meas_ms']:+.2f} ms | Δ {r['d_meas_gb']:+.3f} | Δ {r['d_pred_gb']:+.3f} "
                   f"| {r['d_pred_gb'] - r['d_meas_gb']:+.3f} GB | {_ok(r['time_ok'])} | {_ok(r['peak_ok'])} |"
                   + ("" if r["same_cut"] else " (cut differs from the GPU run's)"))
    return "\n".join(out)


def bars(rows, label):
    base = [r for r in rows if r.get("setting") == "base"]
    pairs = [r for r in rows if "d_meas_ms" in r and r["setting"] != "base_again"]
    t = sum(r["time_ok"] for r in pairs)
    m = sum(r["peak_ok"] for r in pairs)
    return (f"{label}: at the default setting, step time within 15% on {sum(r['time_ok'] for r in base)}/{len(base)} "
            f"models and peak within 5% on {sum(r['peak_ok'] for r in base)}/{len(base)}; setting pairs: "
            f"step-time delta within 30% + 0.2 ms on {t}/{len(pairs)}, peak delta within 25% + 0.1 GB on "
            f"{m}/{len(pairs)}.")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results", nargs="+")
    ap.add_argument("--device", default="h100")
    ap.add_argument("--held-out", default="", help="models kept out of calibration, reported apart")
    ap.add_argument("--bandwidth-option", action="append", default=[])
    ap.add_argument("--binary", default=os.environ.get("PARTITION_TOOL",
                                                       os.path.join(ROOT, "build", "app", "partition_tool")))
    ap.add_argument("--json-out")
    args = ap.parse_args()
    held = set(filter(None, args.held_out.split(",")))
    models = load_models(args.results)
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for name in sorted(models):
            rows += rows_for(name, *models[name], args, d)
    cal = [r for r in rows if r["model"] not in held]
    out = [f"Device preset `{args.device}`"
           + (f", bandwidth options {', '.join(args.bandwidth_option)}" if args.bandwidth_option else "") + ".", "",
           "Calibration models:", "", table(cal), "", bars(cal, "Calibration models")]
    kept = [r for r in rows if r["model"] in held]
    if kept:
        out += ["", "Held-out models:", "", table(kept), "", bars(kept, "Held-out models")]
    print("\n".join(out))
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
