"""Which kernels Inductor generates and how long each runs on the GPU, per
partition_tool setting (docs/bandwidth_model.md, "Calibration"): compiles
each model per setting through the partition tool, keeps the generated code
(with Inductor's own per-kernel byte estimate, `kernel_num_gb`, from
config.benchmark_kernel) and profiles a few steps with torch.profiler,
summing the GPU time of every kernel. The sum of kernel times is the GPU's
busy time per step: what the bandwidth model predicts, without the host's
launch gaps that a step-time measurement also sees. --out is a folder
outside the repository (raw GPU results are not kept in the tree).

  python3 python/tools/pred_kernels.py --out $OUT --runs mlp_d2048=base+budget_0.5,llama_small=base+aggressive
"""
import argparse
import json
import os
import re
import shutil
import sys
import tarfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

import measure_settings as ms  # noqa: E402
import pred_measure  # noqa: E402,F401  (registers the held-out models)
import verify_models as vm  # noqa: E402
from partition_tool_torch import PartitionToolPartitioner, hook  # noqa: E402

START = time.time()


def inductor_estimates(codes):
    """kernel name -> Inductor's estimated GB per call, from the generated code."""
    out = {}
    for code in codes:
        for meta in re.finditer(r"inductor_meta=\{(.*?)\}\s*(?:,|\))", code, re.S):
            text = meta.group(1)
            name = re.search(r"'kernel_name':\s*'([^']+)'", text)
            gb = re.search(r"'kernel_num_gb':\s*([0-9.eE+-]+)", text)
            if name and gb:
                out[name.group(1)] = float(gb.group(1))
    return out


def device_us(evt):
    for key in ("self_device_time_total", "self_cuda_time_total", "device_time_total", "cuda_time_total"):
        v = getattr(evt, key, None)
        if v:
            return float(v)
    return 0.0


def profile_steps(c, w, params, steps):
    for _ in range(2):
        ms._zero(params)
        ms._step(c, w.make_args(0))
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            ms._zero(params)
            ms._step(c, w.make_args(0))
        torch.cuda.synchronize()
    kernels = {}
    for evt in prof.key_averages():
        us = device_us(evt)
        if us > 0:
            kernels[evt.key] = {"us_per_step": us / steps, "calls_per_step": evt.count / steps}
    return kernels


def step_ms(c, w, params, steps):
    times = []
    for i in range(steps + 2):
        ms._zero(params)
        args = w.make_args(0)
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        ms._step(c, args)
        b.record()
        torch.cuda.synchronize()
        if i >= 2:
            times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", required=True, help="model=label+label,model2=...")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--budget-s", type=float, default=500)
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    torch._inductor.config.benchmark_kernel = True  # kernel_num_gb in each kernel's metadata
    from torch._inductor.utils import run_and_get_code
    results = {"env": {"torch": torch.__version__, "device": torch.cuda.get_device_name(0)}, "runs": {}}
    os.makedirs(os.path.join(a.out, "code"), exist_ok=True)
    for item in a.runs.split(","):
        name, labels = item.split("=")
        w = vm.SETTINGS_MODELS[name]()
        params = w.params()
        for label in labels.split("+"):
            if time.time() - START > a.budget_s:
                results["runs"][f"{name}/{label}"] = {"skipped": "time budget"}
                continue
            torch._dynamo.reset()
            p = PartitionToolPartitioner(ms.SETTINGS[label], device="h200", work_dir=f"/tmp/pt_kern/{name}/{label}",
                                         name=name)
            c = torch.compile(ms._copy_fn(w.fn, label.replace(".", "_")), backend="inductor", **w.compile_kwargs)
            with hook.installed(p):
                ms._zero(params)
                _, codes = run_and_get_code(lambda: ms._step(c, w.make_args(0)))
                ms._zero(params)
                ms._step(c, w.make_args(0))
            for i, code in enumerate(codes):
                with open(os.path.join(a.out, "code", f"{name}.{label}.{i}.py"), "w") as f:
                    f.write(code)
            kernels = profile_steps(c, w, params, a.steps)
            est = inductor_estimates(codes)
            total_us = sum(k["us_per_step"] for k in kernels.values())
            res = {"kernel_us_per_step": total_us, "kernels": kernels, "inductor_gb": est,
                   "inductor_gb_total": sum(est.values()), "step_ms": step_ms(c, w, params, 10),
                   "saved": [r["saved"] for r in p.records], "prediction": [r.get("prediction") for r in p.records]}
            results["runs"][f"{name}/{label}"] = res
            print(f"[{time.time() - START:6.1f}s] {name} {label}: kernels {total_us / 1e3:.3f} ms/step, "
                  f"step {res['step_ms']:.3f} ms, {len(kernels)} kernel names, inductor est "
                  f"{res['inductor_gb_total']:.3f} GB ({len(est)} triton kernels)", flush=True)
            ms._zero(params)
            del c
            torch.cuda.empty_cache()
            with open(os.path.join(a.out, "kernels.json"), "w") as f:
                json.dump(results, f, indent=1, default=str)
    with tarfile.open(os.path.join(a.out, "code.tar.gz"), "w:gz") as t:  # one file: the device returns few
        t.add(os.path.join(a.out, "code"), arcname="code")
    shutil.rmtree(os.path.join(a.out, "code"))


if __name__ == "__main__":
    main()
