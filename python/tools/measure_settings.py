"""Measure step time and activation peak memory on the GPU for several
partition_tool settings per model, through PartitionToolPartitioner, and keep
each model's joint graph, so that predict_vs_measure.py can compare the
tool's predicted deltas (setting minus baseline) with the measured ones.
See docs/bandwidth_model.md, "Prediction accuracy". --out is a folder
outside the repository (raw GPU results are not kept in the tree).

  PARTITION_TOOL=$PWD/build/app/partition_tool python3 python/tools/measure_settings.py \\
      --out $OUT --models linear_ce,gpt2_124m

Per model:
  1. compile the step with PartitionToolPartitioner({}) (the tool's defaults,
     which equal PyTorch's cut) and keep its joint graph;
  2. run the tool on that graph for every setting; a setting whose saved set
     equals the baseline's is recorded as "same cut" and not compiled;
  3. compile each remaining setting (and the baseline a second time,
     `base_repeat`, the noise control) as its own copy of the step function
     (a distinct code object, so each keeps its own Dynamo cache entry and
     all stay compiled side by side);
  4. peak memory: per setting, memory_allocated() just before a step (weights,
     inputs, cuBLAS workspace; gradients set to None) and
     max_memory_allocated() over that forward+backward after
     reset_peak_memory_stats(); the difference is the step's own peak
     (activations, temporaries, gradients);
  5. step time: `rounds` rounds; in each, every setting runs 2 untimed steps
     then `steps` steps timed with CUDA events (forward start to backward
     end); settings interleave, so drift hits all alike. Median over all
     timed steps, and the median of each round.
     With --cuda-graph, each round captures one whole step (forward and
     backward, gradients set to None first) of each setting into a CUDA
     graph (PyTorch's "whole-network capture": warm-up on a side stream,
     then torch.cuda.graph) and times replays of it instead: the GPU's time
     for the step, kernels and the gaps between them, without the host's
     launch overhead, which the tool's bandwidth model does not describe
     (docs/bandwidth_model.md, "Prediction accuracy"). fwd_ms is then NaN.
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import time
import traceback
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import verify_models  # noqa: E402
from partition_tool_torch import PartitionToolPartitioner, cli, hook  # noqa: E402

# label -> partition_tool settings. "base" is the tool's defaults.
SETTINGS = {
    "base": {},
    "base_repeat": {},
    "dist_base_1.2": {"dist_from_bw_base": 1.2},
    "no_reduction_ban": {"ban_recompute_reductions": False},
    "recompute_views": {"recompute_views": True},
    "budget_0.5": {"activation_memory_budget": 0.5},
    "budget_0.1": {"activation_memory_budget": 0.1},
    "no_allowlist_ban": {"ban_recompute_not_in_allowlist": False},
    "aggressive": {"aggressive_recomputation": True},
    # Second compiles of settings whose measured change is noisy: each is
    # its own pair, and the gap between the two shows the noise.
    "dist_base_1.2_repeat": {"dist_from_bw_base": 1.2},
    "no_reduction_ban_repeat": {"ban_recompute_reductions": False},
    # Held-out settings: the model was never tuned on them.
    "budget_0.3": {"activation_memory_budget": 0.3},
    "budget_0.7": {"activation_memory_budget": 0.7},
    "dist_base_1.5": {"dist_from_bw_base": 1.5},
    # More held-out budgets, for the same reason.
    "budget_0.2": {"activation_memory_budget": 0.2},
    "budget_0.4": {"activation_memory_budget": 0.4},
    "budget_0.6": {"activation_memory_budget": 0.6},
}

RESULTS = {"models": {}}
START = time.time()
WORK = "/tmp/pt_measure"


def log(*a):
    print(f"[{time.time() - START:7.1f}s]", *a, flush=True)


def save(out):
    with open(os.path.join(out, "measure.json"), "w", encoding="utf-8") as f:
        json.dump(RESULTS, f, indent=1, default=str)


def _copy_fn(fn, tag):
    """fn with its own code object (so its own Dynamo cache)."""
    code = fn.__code__.replace(co_name=f"{fn.__name__}_{tag}")
    return types.FunctionType(code, fn.__globals__, code.co_name, fn.__defaults__, fn.__closure__)


def _zero(params):
    for p in params:
        p.grad = None


def _step(compiled, args):
    loss = compiled(*args)
    loss.backward()
    return loss


def _unique_graphs():
    from torch._dynamo.utils import counters
    return sum(counters["stats"].values()) if "stats" in counters else 0


def measure_model(name, labels, rounds, steps, out):
    w = verify_models.SETTINGS_MODELS[name]()
    params = w.params()
    res = {"settings": {}, "skipped_same_cut": {}}
    torch._dynamo.reset()
    compiled, parts = {}, {}
    mdir = os.path.join(WORK, name)
    shutil.rmtree(mdir, ignore_errors=True)

    def compile_one(label):
        t0 = time.time()
        p = PartitionToolPartitioner(SETTINGS[label], device="h200", work_dir=os.path.join(mdir, label),
                                     compare_with_pytorch=(label == "base"), name=name)
        c = torch.compile(_copy_fn(w.fn, label.replace(".", "_").replace("-", "_")),
                          backend="inductor", **w.compile_kwargs)
        with hook.installed(p):
            for _ in range(3):
                _zero(params)
                _step(c, w.make_args(0))
        torch.cuda.synchronize()
        compiled[label], parts[label] = c, p
        res["settings"][label] = {"settings": SETTINGS[label], "compile_s": round(time.time() - t0, 1),
                                  "records": p.records}
        log(name, label, "compiled", round(time.time() - t0, 1), "s; graphs:", len(p.records),
            "saved:", [len(r["saved"]) for r in p.records])

    compile_one("base")
    base_rec = parts["base"].records
    graph = base_rec[0]["graph"]
    res["graphs"] = len(base_rec)
    os.makedirs(os.path.join(out, "graphs"), exist_ok=True)
    for i, r in enumerate(base_rec):
        shutil.copy(r["graph"], os.path.join(out, "graphs", f"{name}{'' if i == 0 else '_' + str(i)}.graph.json"))
    # Which settings change the tool's cut on this graph (every joint graph)?
    todo = []
    for label in labels:
        if label == "base":
            continue
        if label != "base_repeat":
            same = True
            for i, r in enumerate(base_rec):
                rep = cli.run_partition(cli.find_binary(), r["graph"],
                                        os.path.join(mdir, f"probe_{label}_{i}.json"), SETTINGS[label], "h200")
                if (rep["saved_values"], rep["saved_sym_nodes"]) != (r["saved_values"], r["saved_sym_nodes"]):
                    same = False
            if same:
                res["skipped_same_cut"][label] = SETTINGS[label]
                log(name, label, "same cut as base: not compiled")
                continue
        todo.append(label)
    for label in todo:
        if time.time() - START > ARGS.budget_s:
            res.setdefault("skipped_budget", []).append(label)
            log(name, label, "SKIPPED (time budget)")
            continue
        try:
            compile_one(label)
        except Exception:  # noqa: BLE001
            res["settings"][label] = {"settings": SETTINGS[label], "error": traceback.format_exc()[-3000:]}
            log(name, label, "FAILED", res["settings"][label]["error"])
    ok = [lb for lb in compiled]
    graphs_before = _unique_graphs()
    # Peak memory per setting.
    for label in ok:
        peaks = []
        for _ in range(2):
            _zero(params)
            args = w.make_args(0)
            torch.cuda.synchronize()
            before = torch.cuda.memory_allocated()
            torch.cuda.reset_peak_memory_stats()
            _step(compiled[label], args)
            torch.cuda.synchronize()
            peaks.append({"allocated_before": before, "max_allocated": torch.cuda.max_memory_allocated(),
                          "allocated_after": torch.cuda.memory_allocated()})
        _zero(params)
        res["settings"][label]["memory"] = peaks
        res["settings"][label]["step_peak_bytes"] = max(p["max_allocated"] - p["allocated_before"] for p in peaks)
    # Step time, interleaved rounds.
    times = {lb: [] for lb in ok}
    fwd = {lb: [] for lb in ok}
    per_round = {lb: [] for lb in ok}
    graph_errors = {}
    for r in range(rounds):
        order = ok[r % len(ok):] + ok[:r % len(ok)]
        for label in order:
            if ARGS.cuda_graph:
                if label in graph_errors:
                    continue
                try:
                    st = _graph_step_times(compiled[label], w, params, steps)
                except Exception:  # noqa: BLE001
                    graph_errors[label] = traceback.format_exc()[-3000:]
                    log(name, label, "CUDA graph capture FAILED", graph_errors[label])
                    continue
                times[label] += st
                fwd[label] += [float("nan")] * len(st)
                per_round[label].append(statistics.median(st))
                continue
            ev = []
            for i in range(2 + steps):
                _zero(params)
                args = w.make_args(0)
                e = [torch.cuda.Event(enable_timing=True) for _ in range(3)]
                if ARGS.sync_steps:
                    torch.cuda.synchronize()  # each step starts on an idle GPU
                e[0].record()
                loss = compiled[label](*args)
                e[1].record()
                loss.backward()
                e[2].record()
                if i >= 2:
                    ev.append(e)
            torch.cuda.synchronize()
            st = [e[0].elapsed_time(e[2]) for e in ev]
            times[label] += st
            fwd[label] += [e[0].elapsed_time(e[1]) for e in ev]
            per_round[label].append(statistics.median(st))
    _zero(params)
    res["recompiled_during_timing"] = _unique_graphs() - graphs_before
    res["timing"] = "cuda_graph_replay" if ARGS.cuda_graph else "eager_step"
    for label, err in graph_errors.items():
        res["settings"][label]["cuda_graph_error"] = err
    ok = [lb for lb in ok if times[lb]]
    skip = steps * ARGS.drop_rounds  # the first round(s): the caching allocator still settling
    for label in ok:
        s = res["settings"][label]
        st, fw = times[label][skip:] or times[label], fwd[label][skip:] or fwd[label]
        s.update({"step_ms": statistics.median(st), "fwd_ms": statistics.median(fw),
                  "step_ms_all_rounds": statistics.median(times[label]),
                  "step_ms_rounds": per_round[label], "step_ms_min_max": [min(st), max(st)],
                  "step_ms_each": [round(x, 4) for x in times[label]],
                  "timed_steps": len(st), "dropped_rounds": ARGS.drop_rounds})
        log(name, label, f"step {s['step_ms']:.3f} ms rounds {[round(x, 3) for x in per_round[label]]} "
            f"fwd {s['fwd_ms']:.3f} peak {s['step_peak_bytes'] / 1e9:.4f} GB "
            f"pred {s['records'][0].get('prediction')}")
    res["graph_file"] = os.path.basename(graph)
    del w, compiled, parts
    torch._dynamo.reset()
    torch.cuda.empty_cache()
    return res


def _graph_step_times(compiled, w, params, steps):
    """Capture one whole training step into a CUDA graph, replay it twice
    untimed, then `steps` times timed with CUDA events; ms per replay. The
    graph and its memory pool are released before returning."""
    args = w.make_args(0)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            _zero(params)
            _step(compiled, args)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    _zero(params)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        _step(compiled, args)
    for _ in range(2):
        g.replay()
    torch.cuda.synchronize()
    out = []
    for _ in range(steps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        torch.cuda.synchronize()
        out.append(a.elapsed_time(b))
    _zero(params)
    del g
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    return out


def _time_ms(fn, reps=20, warm=3):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        ts.append(a.elapsed_time(b))
    return statistics.median(ts)


def microbench():
    """What this H200 achieves: copy bandwidth, matmul throughput at the
    shapes of the models here, and the cost of an empty kernel launch."""
    out = {}
    for gb in (0.5, 3.3):
        n = int(gb * 1e9) // 2
        a = torch.empty(n, dtype=torch.bfloat16, device="cuda").normal_()
        b = torch.empty_like(a)
        ms = _time_ms(lambda: b.copy_(a))
        out[f"copy_{gb}GB"] = {"ms": ms, "bytes_per_s": 2 * n * 2 / (ms / 1e3)}
        ms = _time_ms(lambda: a.sum(dtype=torch.float32))
        out[f"sum_{gb}GB"] = {"ms": ms, "bytes_per_s": n * 2 / (ms / 1e3)}
        del a, b
    shapes = {"linear_ce_bf16": (32768, 768, 50264, torch.bfloat16),
              "linear_ce_fp32_tf32": (16384, 1024, 32000, torch.float32),
              "gpt2_mlp_bf16": (8192, 768, 3072, torch.bfloat16),
              "mlp_fc1_bf16": (32768, 1024, 4096, torch.bfloat16),
              "llama_mlp_bf16": (4096, 512, 1376, torch.bfloat16)}
    for k, (m, kk, n, dt) in shapes.items():
        x = torch.randn(m, kk, device="cuda", dtype=dt)
        w = torch.randn(kk, n, device="cuda", dtype=dt)
        ms = _time_ms(lambda: torch.mm(x, w))
        out[f"mm_{k}"] = {"ms": ms, "flops_per_s": 2 * m * kk * n / (ms / 1e3), "shape": [m, kk, n]}
    z = torch.zeros(1, device="cuda")
    ms = _time_ms(lambda: [z.add_(1) for _ in range(1000)], reps=5)
    out["launch_us_per_kernel_eager"] = ms  # 1000 launches, ms total = us each
    torch.cuda.empty_cache()
    return out


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--models", default="linear_ce,linear_ce_fp32,mlp_gelu_ln,gpt2_124m")
    ap.add_argument("--settings", default=",".join(SETTINGS))
    ap.add_argument("--model-settings", default="",
                    help="per-model override: model=label+label;model2=...")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--drop-rounds", type=int, default=0,
                    help="leave the first N timing rounds out of the medians")
    ap.add_argument("--microbench", action="store_true")
    ap.add_argument("--sync-steps", action="store_true",
                    help="synchronize before each timed step (no overlap between steps)")
    ap.add_argument("--cuda-graph", action="store_true",
                    help="time replays of a CUDA graph of the whole step (no host launch overhead)")
    ap.add_argument("--budget-s", type=float, default=520)
    ARGS = ap.parse_args()
    os.makedirs(ARGS.out, exist_ok=True)
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    overrides = dict(kv.split("=", 1) for kv in ARGS.model_settings.split(";") if kv)
    RESULTS["args"] = vars(ARGS)
    RESULTS["env"] = {"torch": torch.__version__, "cuda": torch.version.cuda,
                      "device": torch.cuda.get_device_name(0)}
    if ARGS.microbench:
        try:
            RESULTS["microbench"] = microbench()
        except Exception:  # noqa: BLE001
            RESULTS["microbench"] = {"error": traceback.format_exc()[-3000:]}
        log("microbench", RESULTS["microbench"])
        save(ARGS.out)
    for name in [m for m in ARGS.models.split(",") if m]:
        if time.time() - START > ARGS.budget_s:
            RESULTS["models"][name] = {"skipped": "out of time budget"}
            continue
        labels = (overrides[name].split("+") if name in overrides else ARGS.settings.split(","))
        log("==", name, labels)
        t0 = time.time()
        try:
            RESULTS["models"][name] = measure_model(name, labels, ARGS.rounds, ARGS.steps, ARGS.out)
        except Exception:  # noqa: BLE001
            RESULTS["models"][name] = {"error": traceback.format_exc()[-4000:]}
            log(name, "FAILED", RESULTS["models"][name]["error"])
        RESULTS["models"][name]["model_s"] = round(time.time() - t0, 1)
        save(ARGS.out)
        torch.cuda.empty_cache()
    log("done")


ARGS = None

if __name__ == "__main__":
    main()
