"""Train with the tool's memory_limit plan through the bridge and compare it
with PyTorch's own activation_memory_budget knob (docs/memory_limit.md).

  PARTITION_TOOL=/path/to/partition_tool python3 python/tools/memory_limit_training.py \\
      --out DIR [--models llama_gqa,moe_top2,vit_l6,convnext_mini] [--limits 0.6,0.75,0.9]

Per model, one worker process (they compile at the same time; the GPU
measurements then run one model at a time, after every worker has compiled):
  1. PyTorch's default plan is compiled (its joint graph exported) and its
     peak measured. The peak is the quantity the tool's memory.peak_bytes
     predicts: max_memory_allocated() over one forward+backward minus
     memory_allocated() just before it, plus the bytes of the step's
     parameters and batch.
  2. For each fraction f of --limits, the step is compiled with
     PartitionToolPartitioner({"memory_limit": f x that peak}); a limit the
     tool cannot meet (exit 3) is recorded with the tool's one line.
  3. PyTorch's own partitioner is compiled at each activation_memory_budget
     of --budgets whose cut differs (the tool, which reproduces PyTorch's
     choice, tells which budgets give the same cut; PyTorch's own saved set
     is recorded and compared).
  4. Measured for every compiled plan, from the same initial weights: the
     losses of --steps AdamW steps, the first step's gradients against the
     default plan's, the peak (as above), and the step time: --rounds rounds
     over all plans, each timing --timed replays of a CUDA graph of one
     forward+backward (GPU time; medians). The default plan is also trained twice:
     the run-to-run noise of PyTorch itself.
Writes DIR/<model>.json and DIR/graphs/; memory_limit_table.py turns them into
the table of docs/memory_limit.md.
"""

import argparse
import copy
import fcntl
import functools
import json
import os
import statistics
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

START = time.time()


def log(*a):
    print(f"[{time.time() - START:6.1f}s]", *a, flush=True)


# --- models: small enough that a dozen compiles fit the device time ----------

def vit_l6(b=32):
    """torchvision VisionTransformer, ViT-B/16 widths with 6 layers, bf16, B=32."""
    import torch
    import torchvision
    import verify_models as vm
    torch.manual_seed(0)
    m = torchvision.models.VisionTransformer(image_size=224, patch_size=16, num_layers=6, num_heads=12,
                                             hidden_dim=768, mlp_dim=3072).cuda().to(torch.bfloat16).train()
    x = torch.randn(b, 3, 224, 224, device="cuda", dtype=torch.bfloat16, generator=vm._gen(11))
    y = torch.randint(0, 1000, (b,), device="cuda", generator=vm._gen(12))
    return vm.Workload("vit_l6", vm._ce_step, {"m": m}, lambda i: (m, x, y))


def convnext_mini(b=64):
    """torchvision ConvNeXt at ConvNeXt-T widths with depths 2-2-4-2, bf16,
    channels-last, B=64, stochastic depth off."""
    import torchvision
    from torchvision.models.convnext import CNBlockConfig, ConvNeXt
    import torch
    import verify_models as vm
    cfg = [CNBlockConfig(96, 192, 2), CNBlockConfig(192, 384, 2), CNBlockConfig(384, 768, 4),
           CNBlockConfig(768, None, 2)]
    del torchvision
    return vm._torchvision_classifier("convnext_mini", functools.partial(ConvNeXt, cfg, stochastic_depth_prob=0.0),
                                      b, torch.bfloat16, 43)


def model(name):
    import verify_models as vm
    own = {"vit_l6": vit_l6, "convnext_mini": convnext_mini}
    return (own.get(name) or vm.FAMILY_MODELS.get(name) or vm.SETTINGS_MODELS[name])()


# --- worker ----------------------------------------------------------------

def measure_peak(c, w, params):
    """The measured quantity memory.peak_bytes predicts: the step's peak above
    what was allocated before it, plus its arguments' bytes."""
    from measure_families import step_memory, tensor_bytes
    peak = max(p["max_allocated"] - p["allocated_before"] for p in step_memory(c, w, params))
    return peak + tensor_bytes(w.make_args(0), params)


def tool_cut(graph, settings, work, tag):
    from partition_tool_torch import cli
    rep = cli.run_partition(cli.find_binary(), graph, os.path.join(work, f"probe_{tag}.json"), settings, ARGS.device)
    return rep["saved_values"] + rep["saved_sym_nodes"], rep


def compile_plan(w, params, label, partitioner, budget=None):
    """Compile a fresh copy of the step under `partitioner` (PyTorch's budget
    patched when given) and run it once."""
    import torch
    import torch._functorch.config as fconfig
    import measure_settings as ms
    from partition_tool_torch import hook
    t0 = time.time()
    c = torch.compile(ms._copy_fn(w.fn, label.replace(".", "_").replace("-", "_")), backend="inductor",
                      **w.compile_kwargs)
    patch = {} if budget is None else {"activation_memory_budget": budget}
    with fconfig.patch(patch), hook.installed(partitioner):
        ms._zero(params)
        ms._step(c, w.make_args(0))
    torch.cuda.synchronize()
    ms._zero(params)
    log(w.name, label, "compiled in", round(time.time() - t0, 1), "s")
    return c, round(time.time() - t0, 1)


def train(c, w, params, steps):
    """Losses of `steps` AdamW steps from the initial weights, and the first
    step's gradients (fp32, on the host)."""
    import torch
    import measure_settings as ms
    w.reset()
    opt = torch.optim.AdamW(params, lr=1e-4, foreach=True)
    losses, grads = [], None
    for i in range(steps):
        ms._zero(params)
        loss = ms._step(c, w.make_args(i))
        if i == 0:
            grads = [p.grad.detach().float().cpu() for p in params]
        opt.step()
        losses.append(loss.detach().float().item())
    ms._zero(params)
    del opt
    w.reset()
    torch.cuda.empty_cache()
    return losses, grads


def max_rel(a, b):
    return max(((x - y).abs().max() / (y.abs().max() + 1e-30)).item() for x, y in zip(a, b))


def step_times(c, w, params, n):
    """GPU time of one forward+backward: replays of a CUDA graph of the step
    (no host launch overhead, which would hide the plans' differences on
    the smaller models); launched steps queued back to back when the step
    cannot be captured."""
    import torch
    import measure_settings as ms
    try:
        return ms._graph_step_times(c, w, params, n), "cuda_graph_replay"
    except Exception:  # noqa: BLE001
        torch.cuda.synchronize()
    evs = []
    for i in range(2 + n):
        ms._zero(params)
        e = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
        e[0].record()
        ms._step(c, w.make_args(0))
        e[1].record()
        if i >= 2:
            evs.append(e)
    torch.cuda.synchronize()
    ms._zero(params)
    return [a.elapsed_time(b) for a, b in evs], "launched"


def worker(name):
    import torch
    from measure_families import tensor_bytes, write_json
    from partition_tool_torch import PartitionToolPartitioner, RecordingPartitioner, cli
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    work = os.path.join(ARGS.out, "work", name)
    gdir = os.path.join(ARGS.out, "graphs")
    os.makedirs(work, exist_ok=True)
    os.makedirs(gdir, exist_ok=True)
    res = {"model": name, "plans": {}, "limits": {}, "budget_cuts": {}}
    out_path = os.path.join(ARGS.out, f"{name}.json")
    w = model(name)
    params = w.params()
    plans = {}  # label -> compiled
    try:
        rec = RecordingPartitioner(gdir, name)
        plans["pytorch_default"], cs = compile_plan(w, params, "pytorch_default", rec)
        res["plans"]["pytorch_default"] = {"kind": "pytorch", "budget": 1.0, "compile_s": cs,
                                           "pytorch_saved": rec.records[0]["saved"]}
        res["graphs"] = len(rec.records)
        graph = rec.records[0]["graph"]
        default_peak = measure_peak(plans["pytorch_default"], w, params)
        res["default_measured_peak"] = default_peak
        res["arg_bytes"] = tensor_bytes(w.make_args(0), params)
        log(name, "default plan measured peak", round(default_peak / 1e9, 3), "GB; graphs", len(rec.records))
        write_json(out_path, res)
        # The tool's plans at each limit (graph breaks: the limit applies to each graph; these models have one).
        for f in [float(x) for x in ARGS.limits.split(",")]:
            label = f"tool_limit_{f:g}"
            limit = int(f * default_peak)
            res["limits"][label] = {"fraction": f, "limit_bytes": limit}
            part = PartitionToolPartitioner({"memory_limit": limit}, device=ARGS.device,
                                            work_dir=os.path.join(work, label), name=name)
            try:
                plans[label], cs = compile_plan(w, params, label, part)
            except Exception as e:  # noqa: BLE001
                msg = str(e)
                cause = getattr(e, "__cause__", None) or e
                res["plans"][label] = {"kind": "tool", "limit_bytes": limit, "no_plan": True,
                                       "error": (getattr(cause, "stderr", "") or msg)[-1500:]}
                log(name, label, "no plan:", res["plans"][label]["error"][-300:])
                continue
            report = json.load(open(os.path.join(work, label, f"{name}.report.json")))
            res["plans"][label] = {"kind": "tool", "limit_bytes": limit, "compile_s": cs,
                                   "plan": report.get("plan"), "predicted_peak": report["memory"]["peak_bytes"],
                                   "prediction": part.records[0].get("prediction"),
                                   "saved_values": part.records[0]["saved_values"]}
            write_json(out_path, res)
        # PyTorch's budget knob: one compile per distinct cut.
        seen = {}
        default_cut, _ = tool_cut(graph, {"ban_recompute_rng_seeds": False}, work, "default")
        seen[tuple(default_cut)] = "pytorch_default"
        for b in [float(x) for x in ARGS.budgets.split(",")]:
            cut, rep = tool_cut(graph, {"activation_memory_budget": b, "ban_recompute_rng_seeds": False}, work,
                                f"budget_{b:g}")
            key = tuple(cut)
            res["budget_cuts"][f"{b:g}"] = {"same_as": seen.get(key), "tool_predicted_peak": rep["memory"]["peak_bytes"]}
            if key in seen:
                continue
            label = f"pytorch_budget_{b:g}"
            seen[key] = label
            if time.time() - START > ARGS.compile_budget_s:
                res["plans"][label] = {"kind": "pytorch", "budget": b, "skipped": "compile time budget"}
                log(name, label, "SKIPPED (time)")
                continue
            r2 = RecordingPartitioner(gdir, "unused", export_graphs=False)
            plans[label], cs = compile_plan(w, params, label, r2, budget=b)
            res["plans"][label] = {"kind": "pytorch", "budget": b, "compile_s": cs,
                                   "pytorch_saved": r2.records[0]["saved"],
                                   "tool_cut_equal": sorted(r2.records[0]["saved"]) == sorted(cut)}
            write_json(out_path, res)
    except Exception:  # noqa: BLE001
        res["error"] = traceback.format_exc()[-3000:]
        log(name, "FAILED", res["error"])
    write_json(out_path, res)
    # Wait until every worker has compiled, then take the GPU alone.
    open(os.path.join(ARGS.out, "work", f"{name}.compiled"), "w").close()
    names = ARGS.models.split(",")
    deadline = time.time() + ARGS.compile_budget_s + 240  # a worker that died does not hold the others
    while not all(os.path.exists(os.path.join(ARGS.out, "work", f"{n}.compiled")) for n in names):
        if time.time() > deadline:
            log(name, "not every worker compiled; measuring anyway")
            break
        time.sleep(1)
    with open(os.path.join(ARGS.out, "work", "gpu.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        log(name, "measuring", list(plans))
        try:
            measure(w, params, plans, res)
        except Exception:  # noqa: BLE001
            res["measure_error"] = traceback.format_exc()[-3000:]
            log(name, "MEASURE FAILED", res["measure_error"])
        write_json(out_path, res)
        fcntl.flock(lock, fcntl.LOCK_UN)


def measure(w, params, plans, res):
    ref_losses, ref_grads = train(plans["pytorch_default"], w, params, ARGS.steps)
    again_losses, again_grads = train(plans["pytorch_default"], w, params, ARGS.steps)
    res["noise"] = {"grad_max_rel": max_rel(again_grads, ref_grads),
                    "loss_max_abs": max(abs(a - b) for a, b in zip(again_losses, ref_losses))}
    for label, c in plans.items():
        p = res["plans"][label]
        losses, grads = (ref_losses, ref_grads) if label == "pytorch_default" else train(c, w, params, ARGS.steps)
        p["losses"] = losses
        p["grad_max_rel_vs_default"] = max_rel(grads, ref_grads)
        p["loss_max_abs_vs_default"] = max(abs(a - b) for a, b in zip(losses, ref_losses))
        p["measured_peak"] = measure_peak(c, w, params)
        del grads
    times = {lb: [] for lb in plans}
    for r in range(ARGS.rounds):
        order = list(plans)[r % len(plans):] + list(plans)[:r % len(plans)]
        for label in order:
            t, how = step_times(plans[label], w, params, ARGS.timed)
            times[label] += t
            res["plans"][label]["timing"] = how
    for label in plans:
        res["plans"][label]["step_ms"] = statistics.median(times[label])
        res["plans"][label]["step_ms_min_max"] = [min(times[label]), max(times[label])]
        p = res["plans"][label]
        log(w.name, label, f"peak {p['measured_peak'] / 1e9:.3f} GB step {p['step_ms']:.3f} ms "
            f"grad diff {p['grad_max_rel_vs_default']:.2e}")


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--models", default="llama_gqa,moe_top2,vit_l6,convnext_mini")
    ap.add_argument("--limits", default="0.6,0.75,0.9")
    ap.add_argument("--budgets", default="0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9")
    ap.add_argument("--device", default="h100")
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--timed", type=int, default=10)
    ap.add_argument("--compile-budget-s", type=float, default=330)
    ap.add_argument("--worker")
    ARGS = ap.parse_args()
    os.makedirs(os.path.join(ARGS.out, "work"), exist_ok=True)
    if ARGS.worker:
        worker(ARGS.worker)
        return 0
    procs = [subprocess.Popen([sys.executable, __file__, "--worker", n] + sys.argv[1:]) for n in ARGS.models.split(",")]
    return max(p.wait() for p in procs)


ARGS = None

if __name__ == "__main__":
    sys.exit(main())
