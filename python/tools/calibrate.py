"""Fit a calibration of the bandwidth model's step-time deltas to the measured
ones (docs/bandwidth_model.md, "Calibration"). Pure Python 3 standard library.

Reads the rows that predict_vs_measure.py --json-out writes (run it with
--device h200, the datasheet device: 4.8e12 B/s, 989e12 FLOP/s) and fits

    measured delta = a * (delta bytes / 4.8e12) + delta FLOPs / F(dtype) + c * delta kernels

by least squares on a and c, with F fixed from the micro-benchmark (bf16 and
TF32 matmul throughput measured on the same H200), or on a, b, c with b the
FLOP term's factor. Then: how many rows pass the bar with the fitted model,
in-sample and leaving each model out of the fit (the model's own rows are
predicted from a fit on the others).

  python3 python/tools/calibrate.py /tmp/rows.json [--fp32-models linear_ce_fp32] \\
      [--exclude-models llama_small] [--free-flops]
"""

import argparse
import json

B_DEV, F_DEV = 4.8e12, 989e12
F_BF16, F_FP32 = 616e12, 300e12  # microbench: cuBLAS at linear_ce's shapes (measure_settings.py)


def solve(a, b):
    """Gaussian elimination, a: n x n, b: n."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(m[r][i]))
        m[i], m[p] = m[p], m[i]
        if abs(m[i][i]) < 1e-30:
            raise ValueError("singular")
        for r in range(n):
            if r != i:
                f = m[r][i] / m[i][i]
                m[r] = [x - f * y for x, y in zip(m[r], m[i])]
    return [m[i][n] / m[i][i] for i in range(n)]


def lstsq(xs, ys):
    k = len(xs[0])
    ata = [[sum(x[i] * x[j] for x in xs) for j in range(k)] for i in range(k)]
    aty = [sum(x[i] * y for x, y in zip(xs, ys)) for i in range(k)]
    return solve(ata, aty)


SPLIT = False


def features(row, fp32_models, free_flops):
    p = row["predicted"]
    t_bytes = p["d_bytes"] / B_DEV * 1e3                       # ms at datasheet bandwidth
    f_rate = F_FP32 if row["model"] in fp32_models else F_BF16
    t_flops = p["d_flops"] / (F_DEV if free_flops else f_rate) * 1e3
    if SPLIT:  # forward (its modelled time: no FLOP deltas there) and backward bytes apart
        t_fwd = p["d_fwd_ms"]
        t_bytes = [t_fwd, t_bytes - t_fwd]
    else:
        t_bytes = [t_bytes]
    return (t_bytes + [t_flops, p["d_kernels"]]) if free_flops else (t_bytes + [p["d_kernels"]]), t_flops


def predict(params, feats, fixed_flops, free_flops):
    val = sum(a * x for a, x in zip(params, feats))
    return val if free_flops else val + fixed_flops


def passes(pred, meas):
    return abs(pred - meas) <= 0.30 * abs(meas) + 0.2


def recompute_factor(rows, k, settings, fp32):
    """Rows of predict_vs_measure run at the achieved rates (--device
    4.2e12:616e12, 300e12 FLOP/s for fp32): scale the non-matmul part of the
    predicted delta by k for the recompute-heavy settings; count passes."""
    fitted = {}
    out = []
    for r in rows:
        p, y = r["predicted"], r["measured"]["d_step_ms"]
        tf = p["d_flops"] / (F_FP32 if r["model"] in fp32 else F_BF16) * 1e3
        pred = p["d_step_ms"]
        if r["setting"] in settings:
            pred = tf + k * (pred - tf)
            if abs(p["d_step_ms"] - tf) > 0.3:
                fitted.setdefault(r["model"], []).append((y - tf) / (p["d_step_ms"] - tf))
        out.append((r, pred, passes(pred, y)))
    return out, fitted


def main_factor(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("rows")
    ap.add_argument("--factor", type=float, default=0.3)
    ap.add_argument("--settings", default="budget_0.5,budget_0.1,aggressive")
    ap.add_argument("--fp32-models", default="linear_ce_fp32")
    ap.add_argument("--exclude-models", default="llama_small")
    a = ap.parse_args(argv)
    with open(a.rows, encoding="utf-8") as f:
        rows = [r for r in json.load(f)["rows"] if not r.get("same_cut") and r["setting"] != "base_repeat"
                and r["model"] not in set(a.exclude_models.split(","))]
    out, fitted = recompute_factor(rows, a.factor, set(a.settings.split(",")), set(a.fp32_models.split(",")))
    print("measured / predicted non-matmul delta, recompute-heavy settings:",
          {m: [round(x, 2) for x in v] for m, v in fitted.items()})
    print("| run | model | setting | measured Δ ms | achieved-rate pred. Δ ms | x factor Δ ms | pass |")
    print("| --- | --- | --- | ---: | ---: | ---: | --- |")
    for r, pred, ok in out:
        print(f"| {r['run']} | {r['model']} | {r['setting']} | {r['measured']['d_step_ms']:+.2f} "
              f"| {r['predicted']['d_step_ms']:+.2f} | {pred:+.2f} | {'pass' if ok else 'FAIL'} |")
    raw = sum(passes(r["predicted"]["d_step_ms"], r["measured"]["d_step_ms"]) for r, _, _ in out)
    print(f"pass: achieved rates {raw}/{len(out)}, with factor {a.factor} {sum(o[2] for o in out)}/{len(out)}")


def main():
    import sys
    if len(sys.argv) > 1 and sys.argv[1] == "factor":
        return main_factor(sys.argv[2:])
    ap = argparse.ArgumentParser()
    ap.add_argument("rows")
    ap.add_argument("--fp32-models", default="linear_ce_fp32")
    ap.add_argument("--exclude-models", default="")
    ap.add_argument("--exclude-runs", default="", help="RUN:MODEL,...")
    ap.add_argument("--free-flops", action="store_true", help="fit the FLOP term's factor too")
    ap.add_argument("--split-passes", action="store_true",
                    help="separate factors for the forward's and the backward's modelled bytes")
    args = ap.parse_args()
    global SPLIT
    SPLIT = args.split_passes
    fp32 = set(args.fp32_models.split(","))
    ex_models = set(filter(None, args.exclude_models.split(",")))
    ex_runs = set(filter(None, args.exclude_runs.split(",")))
    with open(args.rows, encoding="utf-8") as f:
        rows = [r for r in json.load(f)["rows"] if not r.get("same_cut") and r["setting"] != "base_repeat"
                and r["model"] not in ex_models and f"{r['run']}:{r['model']}" not in ex_runs]
    data = []
    for r in rows:
        feats, tf = features(r, fp32, args.free_flops)
        y = r["measured"]["d_step_ms"]
        data.append((r, feats, y - (0 if args.free_flops else tf), tf))
    params = lstsq([d[1] for d in data], [d[2] for d in data])
    names = (["a_fwd (x fwd bytes/4.8e12)", "a_bwd (x bwd bytes/4.8e12)"] if SPLIT else ["a (x bytes/4.8e12)"]) \
        + (["b (x FLOPs/989e12)"] if args.free_flops else []) + ["c ms/kernel"]
    print("fit on", len(data), "rows:", ", ".join(f"{n} = {v:.4g}" for n, v in zip(names, params)))
    nb = 2 if SPLIT else 1
    print("  -> effective bandwidth for modelled bytes: "
          + ", ".join(f"{B_DEV / params[i] / 1e12:.2f} TB/s" for i in range(nb))
          + f"; per-kernel cost {params[-1] * 1e3:.1f} us"
          + (f"; effective FLOP/s {F_DEV / params[nb] / 1e12:.0f} T" if args.free_flops else ""))
    models = sorted({r["model"] for r, *_ in data})
    cv = {}
    for m in models:
        train = [d for d in data if d[0]["model"] != m]
        try:
            cv[m] = lstsq([d[1] for d in train], [d[2] for d in train])
        except ValueError:
            cv[m] = None
    print("| run | model | setting | measured Δ ms | raw pred. Δ ms (h200) | calibrated Δ ms | pass | "
          "left-model-out Δ ms | pass |")
    print("| --- | --- | --- | ---: | ---: | ---: | --- | ---: | --- |")
    n_in = n_cv = 0
    out = []
    for r, feats, _, tf in data:
        y = r["measured"]["d_step_ms"]
        pin = predict(params, feats, tf, args.free_flops)
        pcv = predict(cv[r["model"]], feats, tf, args.free_flops) if cv[r["model"]] else None
        ok_in, ok_cv = passes(pin, y), (pcv is not None and passes(pcv, y))
        n_in += ok_in
        n_cv += ok_cv
        out.append({"run": r["run"], "model": r["model"], "setting": r["setting"], "measured": y,
                    "calibrated": pin, "left_model_out": pcv})
        print(f"| {r['run']} | {r['model']} | {r['setting']} | {y:+.2f} | {r['predicted']['d_step_ms']:+.2f} "
              f"| {pin:+.2f} | {'pass' if ok_in else 'FAIL'} | "
              f"{'-' if pcv is None else f'{pcv:+.2f}'} | {'pass' if ok_cv else 'FAIL'} |")
    raw = sum(passes(r["predicted"]["d_step_ms"], r["measured"]["d_step_ms"]) for r, *_ in data)
    print(f"pass: raw {raw}/{len(data)}, calibrated in-sample {n_in}/{len(data)}, "
          f"leave-one-model-out {n_cv}/{len(data)}")


if __name__ == "__main__":
    main()
