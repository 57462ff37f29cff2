"""Measure step time and peak memory of several model families under several
partition_tool settings on one GPU, and keep their joint graphs, for
docs/prediction_accuracy.md (prediction_accuracy.py turns the results into
its table).

  PARTITION_TOOL=$PWD/build/app/partition_tool python3 measure_families.py \\
      --work /tmp/fam --models moe_top2,llama_gqa [--microbench]

Compiling is the long part and runs on the CPU, so each model is a worker
process and all of them compile at once; the models are then measured one
at a time (a lock file), each after every worker has finished compiling, so
no timing shares the GPU. Per model, as measure_settings.py does:
  1. compile the step with PartitionToolPartitioner({}) and keep its joint
     graph(s); run the tool on them for every other setting and compile only
     the settings whose cut differs from the default's;
  2. peak: memory_allocated() just before a step (weights, the batch,
     workspaces; gradients set to None) and max_memory_allocated() over that
     forward and backward after reset_peak_memory_stats(); step_peak_bytes is
     the difference. `arg_bytes` is what the step's arguments (parameters and
     tensors of the batch) hold, which the tool counts in memory.peak_bytes;
  3. time: `rounds` rounds, the settings in turn (rotated each round), each
     round timing `steps` CUDA-graph replays of one whole step (GPU time,
     measure_settings._graph_step_times) and `steps` launched steps
     (synchronized before each, CUDA events from forward start to backward
     end). `base_again` times the default's compiled step a second time in
     its own slot: the timing noise;
  4. kernel times of one launched step of `base` and `aggressive` under
     torch.profiler, by kernel name.
Writes WORK/<model>.json, WORK/graphs/<model>[_i].graph.json,
WORK/microbench.json and WORK/measure.json (all models).
"""

import argparse
import contextlib
import fcntl
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import measure_settings as ms  # noqa: E402
import verify_models  # noqa: E402
from partition_tool_torch import PartitionToolPartitioner, cli, hook  # noqa: E402

DEFAULT_SETTINGS = "base,base_again,budget_0.5,aggressive,no_reduction_ban,dist_base_1.2"
START = time.time()


def log(*a):
    print(f"[{time.time() - START:6.1f}s]", *a, flush=True)


def write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, default=str)
    os.replace(tmp, path)


def tensor_bytes(args, params):
    """Bytes of the step's parameters and tensor arguments (each storage once)."""
    seen, total = set(), 0
    for t in list(params) + [a for a in args if isinstance(a, torch.Tensor)]:
        key = t.untyped_storage().data_ptr()
        if key not in seen:
            seen.add(key)
            total += t.untyped_storage().nbytes()
    return total


# --- worker: one model --------------------------------------------------------

def inductor_backend(label):
    """Inductor as a backend object of the setting's own. Dynamo guards each
    compiled frame on the backend that compiled it; with the one "inductor"
    backend, a model with graph breaks (whose inner frames are the model's
    own code objects, shared by every setting's copy of the step) ran the
    first setting's frames under every later setting, its partitioner never
    called."""
    from torch._inductor.compile_fx import compile_fx

    def backend(gm, example_inputs):
        return compile_fx(gm, example_inputs)
    backend.__name__ = f"inductor_{label.replace('.', '_')}"
    return backend


def compile_setting(w, params, name, label, mdir):
    t0 = time.time()
    p = PartitionToolPartitioner(ms.SETTINGS[label], device="h200", work_dir=os.path.join(mdir, label),
                                 compare_with_pytorch=(label == "base"), name=name)
    c = torch.compile(ms._copy_fn(w.fn, label.replace(".", "_")), backend=inductor_backend(label),
                      **w.compile_kwargs)
    with hook.installed(p):
        for _ in range(3):
            ms._zero(params)
            ms._step(c, w.make_args(0))
    torch.cuda.synchronize()
    ms._zero(params)
    info = {"settings": ms.SETTINGS[label], "compile_s": round(time.time() - t0, 1), "records": p.records}
    log(name, label, "compiled in", info["compile_s"], "s; graphs", len(p.records),
        "saved", [len(r["saved_values"]) for r in p.records], "applied", [r["applied"] for r in p.records])
    return c, p, info


def same_cut(records, label, mdir):
    for i, r in enumerate(records):
        rep = cli.run_partition(cli.find_binary(), r["graph"], os.path.join(mdir, f"probe_{label}_{i}.json"),
                                ms.SETTINGS[label], "h200")
        if (rep["saved_values"], rep["saved_sym_nodes"]) != (r["saved_values"], r["saved_sym_nodes"]):
            return False
    return True


def launched_step_times(c, w, params, steps):
    out = []
    for i in range(2 + steps):
        ms._zero(params)
        args = w.make_args(0)
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        a.record()
        ms._step(c, args)
        b.record()
        torch.cuda.synchronize()
        if i >= 2:
            out.append(a.elapsed_time(b))
    ms._zero(params)
    return out


def kernel_profile(c, w, params, top=0):
    """Per kernel name: total device microseconds and calls over one launched
    step; the `top` names by time (0: all)."""
    from torch.profiler import ProfilerActivity, profile
    ms._zero(params)
    ms._step(c, w.make_args(0))
    torch.cuda.synchronize()
    ms._zero(params)
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        ms._step(c, w.make_args(0))
        torch.cuda.synchronize()
    ms._zero(params)
    kernels = {}
    for e in prof.events():
        if str(getattr(e, "device_type", "")).endswith("CUDA"):
            us = e.time_range.elapsed_us()
            k = kernels.setdefault(e.name, [0.0, 0])
            k[0] += us
            k[1] += 1
    ranked = sorted(kernels.items(), key=lambda kv: -kv[1][0])
    return {"total_us": sum(v[0] for v in kernels.values()), "kernels": len(kernels),
            "launches": sum(v[1] for v in kernels.values()),
            "by_name": [[n, round(v[0], 1), v[1]] for n, v in (ranked[:top] if top else ranked)]}


@contextlib.contextmanager
def gpu_turn(lock_path):
    """The GPU to this process alone for the block: processes that share
    `lock_path` take turns, so that no timed or profiled step shares it."""
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def wait_for_all(work, models, deadline):
    """Until every worker has compiled (or failed), or the deadline."""
    while time.time() < deadline:
        if all(os.path.exists(os.path.join(work, "state", m)) for m in models):
            return True
        time.sleep(1)
    return False


def copy_graphs(work, name, records, res):
    """Copies the default plan's joint graphs into WORK/graphs. Called again
    after the timed steps: a step whose later graphs compile on a later call
    (a graph break taken only then) adds records after the first copy."""
    gdir = os.path.join(work, "graphs")
    os.makedirs(gdir, exist_ok=True)
    res["graphs"] = len(records)
    res["graph_files"] = []
    for i, r in enumerate(records):
        f = f"{name}{'' if i == 0 else '_' + str(i)}.graph.json"
        shutil.copy(r["graph"], os.path.join(gdir, f))
        res["graph_files"].append(f)


def allow_recompiles(limit=64):
    """Each setting compiles the model's inner frames (those after a graph
    break are the model's own code objects, shared by every setting's copy
    of the step) once more. At Dynamo's default of 8 compiles a frame, OPT's
    eight graphs ran eager from the second setting on, its partitioner
    never called."""
    import torch._dynamo.config as dynamo_config
    for key in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit",
                "accumulated_cache_size_limit"):
        if hasattr(dynamo_config, key):
            setattr(dynamo_config, key, max(getattr(dynamo_config, key), limit))


def worker(args, name):
    allow_recompiles()
    work = args.work
    mdir = os.path.join("/tmp/pt_families", name)
    shutil.rmtree(mdir, ignore_errors=True)
    labels = args.settings.split(",") + [x for x in args.extra.get(name, [])]
    res = {"model": name, "settings": {}, "skipped_same_cut": {}, "device": torch.cuda.get_device_name(0)}
    compiled = {}
    try:
        w = verify_models.FAMILY_MODELS[name]()
        params = w.params()
        c, p, info = compile_setting(w, params, name, "base", mdir)
        compiled["base"] = c
        res["settings"]["base"] = info
        base_rec = p.records
        copy_graphs(work, name, base_rec, res)
        for label in labels:
            if label in ("base", "base_again"):
                continue
            if same_cut(base_rec, label, mdir):
                res["skipped_same_cut"][label] = ms.SETTINGS[label]
                log(name, label, "same cut as base: not compiled")
                continue
            if time.time() - START > args.compile_deadline_s:
                res.setdefault("skipped_time", []).append(label)
                log(name, label, "SKIPPED: compile deadline")
                continue
            try:
                c, p, info = compile_setting(w, params, name, label, mdir)
                if len(p.records) != len(base_rec):
                    raise RuntimeError(f"the partitioner ran on {len(p.records)} graphs, the default's on "
                                       f"{len(base_rec)}: compiled frames were reused, the step is not this setting's")
                compiled[label], res["settings"][label] = c, info
            except Exception:  # noqa: BLE001
                res["settings"][label] = {"settings": ms.SETTINGS[label], "error": traceback.format_exc()[-3000:]}
                log(name, label, "FAILED", res["settings"][label]["error"])
        if "base_again" in labels:
            compiled["base_again"] = compiled["base"]
            res["settings"]["base_again"] = {"settings": {}, "same_compiled_step_as": "base"}
        torch.cuda.empty_cache()
    except Exception:  # noqa: BLE001
        res["error"] = traceback.format_exc()[-4000:]
        log(name, "FAILED", res["error"])
    write_json(os.path.join(work, f"{name}.json"), res)
    open(os.path.join(work, "state", name), "w").close()
    if not compiled:
        return
    wait_for_all(work, args.models.split(","), args.compile_deadline_s + START + 90)
    with gpu_turn(os.path.join(work, "gpu.lock")):
        log(name, "measuring", list(compiled))
        measure(args, name, w, params, compiled, res)
        copy_graphs(work, name, base_rec, res)
        write_json(os.path.join(work, f"{name}.json"), res)


def step_memory(c, w, params, runs=2):
    """Per run of one step of `c`: memory_allocated() just before it (weights,
    the batch, workspaces; gradients set to None), max_memory_allocated()
    over it after reset_peak_memory_stats(), and memory_allocated() after."""
    peaks = []
    for _ in range(runs):
        ms._zero(params)
        a = w.make_args(0)
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        ms._step(c, a)
        torch.cuda.synchronize()
        peaks.append({"allocated_before": before, "max_allocated": torch.cuda.max_memory_allocated(),
                      "allocated_after": torch.cuda.memory_allocated()})
    ms._zero(params)
    return peaks


def measure(args, name, w, params, compiled, res):
    ok = list(compiled)
    res["arg_bytes"] = tensor_bytes(w.make_args(0), params)
    for label in ok:
        peaks = step_memory(compiled[label], w, params)
        s = res["settings"][label]
        s["memory"] = peaks
        s["step_peak_bytes"] = max(p["max_allocated"] - p["allocated_before"] for p in peaks)
    graph_t = {lb: [] for lb in ok}
    launch_t = {lb: [] for lb in ok}
    graph_rounds = {lb: [] for lb in ok}
    launch_rounds = {lb: [] for lb in ok}
    for r in range(args.rounds):
        if r > 0 and time.time() - START > args.deadline_s:
            res["rounds_cut_short"] = r
            log(name, "timing stopped after", r, "rounds: deadline")
            break
        for label in ok[r % len(ok):] + ok[:r % len(ok)]:
            s = res["settings"][label]
            if "cuda_graph_error" not in s:
                try:
                    t = ms._graph_step_times(compiled[label], w, params, args.steps)
                    graph_t[label] += t
                    graph_rounds[label].append(statistics.median(t))
                except Exception:  # noqa: BLE001
                    s["cuda_graph_error"] = traceback.format_exc()[-2000:]
                    log(name, label, "CUDA graph FAILED", s["cuda_graph_error"])
            t = launched_step_times(compiled[label], w, params, args.steps)
            launch_t[label] += t
            launch_rounds[label].append(statistics.median(t))
    for label in ok:
        s = res["settings"][label]
        if graph_t[label]:
            s.update({"step_ms": statistics.median(graph_t[label]), "step_ms_rounds": graph_rounds[label],
                      "step_ms_each": [round(x, 4) for x in graph_t[label]]})
        if launch_t[label]:
            s.update({"launched_step_ms": statistics.median(launch_t[label]),
                      "launched_step_ms_rounds": launch_rounds[label],
                      "launched_step_ms_each": [round(x, 4) for x in launch_t[label]]})
        log(name, label, f"graph {s.get('step_ms', float('nan')):.3f} ms, launched "
            f"{s.get('launched_step_ms', float('nan')):.3f} ms, step peak {s['step_peak_bytes'] / 1e9:.4f} GB")
    res["profile"] = {}
    for label in args.profile.split(","):
        if label in compiled and time.time() - START < args.deadline_s + 30:
            try:
                res["profile"][label] = kernel_profile(compiled[label], w, params, args.profile_top)
            except Exception:  # noqa: BLE001
                res["profile"][label] = {"error": traceback.format_exc()[-2000:]}


# --- the GPU's own rates ------------------------------------------------------

def microbench():
    """Copy bandwidth; matmul, batched matmul and convolution rates at the
    models' shapes; cuDNN/flash attention at ViT's and the decoder's shapes."""
    t = ms._time_ms
    out = {"device": torch.cuda.get_device_name(0)}
    for gb in (0.5, 3.3):
        n = int(gb * 1e9) // 2
        a = torch.empty(n, dtype=torch.bfloat16, device="cuda").normal_()
        b = torch.empty_like(a)
        ms_ = t(lambda: b.copy_(a))
        out[f"copy_{gb}GB"] = {"ms": ms_, "bytes_per_s": 2 * n * 2 / (ms_ / 1e3)}
        del a, b
    mm = {"square_8192_bf16": (8192, 8192, 8192, torch.bfloat16),
          "linear_ce_bf16": (32768, 768, 50264, torch.bfloat16),
          "linear_ce_fp32_tf32": (16384, 1024, 32000, torch.float32),
          "llama_gqa_mlp_bf16": (8192, 1024, 2816, torch.bfloat16),
          "llama_gqa_kv_bf16": (8192, 1024, 256, torch.bfloat16),
          "vit_mlp_bf16": (6304, 768, 3072, torch.bfloat16),
          "resnet50_fc_fp32_tf32": (64, 2048, 1000, torch.float32)}
    for k, (m, kk, n, dt) in mm.items():
        x = torch.randn(m, kk, device="cuda", dtype=dt)
        y = torch.randn(kk, n, device="cuda", dtype=dt)
        ms_ = t(lambda: torch.mm(x, y))
        out[f"mm_{k}"] = {"ms": ms_, "flops_per_s": 2 * m * kk * n / (ms_ / 1e3), "shape": [m, kk, n]}
    x = torch.randn(8, 5120, 1024, device="cuda", dtype=torch.bfloat16)
    y = torch.randn(8, 1024, 2048, device="cuda", dtype=torch.bfloat16)
    ms_ = t(lambda: torch.bmm(x, y))
    out["bmm_moe_bf16"] = {"ms": ms_, "flops_per_s": 2 * 8 * 5120 * 1024 * 2048 / (ms_ / 1e3)}
    # ResNet-50's convolutions, B=64, channels-last: (channels in, out, size, kernel, stride).
    convs = [(3, 64, 224, 7, 2), (64, 64, 56, 1, 1), (64, 64, 56, 3, 1), (64, 256, 56, 1, 1),
             (128, 128, 28, 3, 1), (256, 256, 14, 3, 1), (512, 512, 7, 3, 1), (1024, 256, 14, 1, 1),
             (2048, 512, 7, 1, 1)]
    for dt in (torch.float32, torch.bfloat16):
        tot_f = tot_ms = tot_b_ms = 0.0
        rows = []
        for cin, cout, hw, k, st in convs:
            x = torch.randn(64, cin, hw, hw, device="cuda", dtype=dt).contiguous(memory_format=torch.channels_last)
            conv = torch.nn.Conv2d(cin, cout, k, st, k // 2, bias=False).cuda().to(dt, memory_format=torch.channels_last)
            x.requires_grad_(k != 7)
            o = conv(x)
            g = torch.randn_like(o)
            f = 2 * o.numel() * cin * k * k
            fwd = t(lambda: conv(x))
            bwd = t(lambda: torch.autograd.grad(o, [x, conv.weight] if k != 7 else [conv.weight], g,
                                                retain_graph=True))
            rows.append({"shape": [cin, cout, hw, k, st], "fwd_ms": fwd, "bwd_ms": bwd, "flops": f,
                         "fwd_flops_per_s": f / (fwd / 1e3),
                         "bwd_flops_per_s": (2 * f if k != 7 else f) / (bwd / 1e3)})
            tot_f += f
            tot_ms += fwd
            tot_b_ms += bwd
        out[f"conv_{str(dt).split('.')[-1]}"] = rows
    import torch.nn.functional as F
    for k, (b, h, s, d, causal, hkv) in {"vit_b16": (32, 12, 197, 64, False, 12),
                                         "llama_gqa": (8, 16, 1024, 64, True, 4)}.items():
        q = torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        kk = torch.randn(b, hkv, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        v = torch.randn(b, hkv, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
        gqa = hkv != h
        o = F.scaled_dot_product_attention(q, kk, v, is_causal=causal, enable_gqa=gqa)
        g = torch.randn_like(o)
        f = 4 * b * h * s * s * d
        fwd = t(lambda: F.scaled_dot_product_attention(q, kk, v, is_causal=causal, enable_gqa=gqa))
        bwd = t(lambda: torch.autograd.grad(o, [q, kk, v], g, retain_graph=True))
        out[f"sdpa_{k}"] = {"fwd_ms": fwd, "bwd_ms": bwd, "fwd_flops_per_s": f / (fwd / 1e3),
                            "bwd_flops_per_s": 2.5 * f / (bwd / 1e3)}
    torch.cuda.empty_cache()
    return out


# --- driver -------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--settings", default=DEFAULT_SETTINGS)
    ap.add_argument("--extra", default="", help="per-model extra settings: model=label+label;model2=...")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--microbench", action="store_true")
    ap.add_argument("--profile", default="base,aggressive", help="settings whose kernels are profiled")
    ap.add_argument("--profile-top", type=int, default=0,
                    help="kernel names kept per profile, longest first (default 0: all, so the kernels add up to the step)")
    ap.add_argument("--compile-deadline-s", type=float, default=300,
                    help="no new compile starts after this many seconds")
    ap.add_argument("--deadline-s", type=float, default=480, help="no new timing round starts after this")
    ap.add_argument("--worker")
    ap.add_argument("--start", type=float, default=None)
    args = ap.parse_args()
    global START
    START = args.start or START
    args.extra = {k: v.split("+") for k, v in (kv.split("=", 1) for kv in args.extra.split(";") if kv)}
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    if args.worker:
        return worker(args, args.worker)
    os.makedirs(os.path.join(args.work, "state"), exist_ok=True)
    for m in args.models.split(","):
        if m not in verify_models.FAMILY_MODELS:
            raise SystemExit(f"unknown model {m}")
    env_info = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0),
                "argv": sys.argv}
    write_json(os.path.join(args.work, "env.json"), env_info)
    if args.microbench:
        try:
            mb = microbench()
        except Exception:  # noqa: BLE001
            mb = {"error": traceback.format_exc()[-3000:]}
        write_json(os.path.join(args.work, "microbench.json"), mb)
        log("microbench", json.dumps(mb)[:3000])
    torch.cuda.empty_cache()
    procs = [subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", m, "--start", str(START)]
                              + sys.argv[1:])
             for m in args.models.split(",")]
    for p in procs:
        p.wait()
    allres = {"env": env_info, "models": {}}
    for m in args.models.split(","):
        f = os.path.join(args.work, f"{m}.json")
        if os.path.exists(f):
            with open(f, encoding="utf-8") as fh:
                allres["models"][m] = json.load(fh)
    write_json(os.path.join(args.work, "measure.json"), allres)
    log("done")


if __name__ == "__main__":
    sys.exit(main())
