"""Profile every kernel of one training step of chosen models and settings,
with the code Inductor generated for it, so that each measured kernel can be
set beside the bandwidth model's kernels for the same graph nodes (the
generated modules name each kernel's source nodes and sizes).

  PARTITION_TOOL=$PWD/build/app/partition_tool python3 kernel_profile.py \\
      --work /tmp/kp --models convnext_tiny_bf16_cl --settings base,no_reduction_ban

Per model and setting: compile the step with PartitionToolPartitioner
(measure_families.compile_setting; Inductor's graph cache off, so every
compile writes its generated modules, told apart by their times), profile one
launched step (measure_families.kernel_profile, every kernel name) and keep
the generated modules (the files that define `call`: each kernel's source
nodes and sizes are in them). Writes WORK/<model>.<setting>.json and the
default setting's joint graphs under WORK/graphs/.
"""

import argparse
import glob
import os
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch._inductor.config  # noqa: E402

import measure_families as mf  # noqa: E402
import verify_models  # noqa: E402


def generated_modules(cache_dir, since):
    out = []
    for f in sorted(glob.glob(os.path.join(cache_dir, "**", "*.py"), recursive=True)):
        if os.path.getmtime(f) < since:
            continue
        with open(f, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        if "def call(" in text:
            out.append(text)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--settings", default="base")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    cache = os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", "/tmp/pt_kernel_profile")
    torch._inductor.config.fx_graph_cache = False
    for name in args.models.split(","):
        try:
            w = verify_models.FAMILY_MODELS[name]()
            params = w.params()
        except Exception:  # noqa: BLE001
            mf.log(name, "FAILED to build", traceback.format_exc()[-2000:])
            continue
        for label in args.settings.split(","):
            torch._dynamo.reset()
            since = time.time() - 1
            res = {"model": name, "setting": label}
            try:
                c, p, info = mf.compile_setting(w, params, name, label, os.path.join("/tmp/pt_kp_work", name))
                if label == "base":
                    mf.copy_graphs(args.work, name, p.records, res)
                # Several of these processes may run at once (each compiles
                # for minutes on the CPU); their profiles take turns.
                with mf.gpu_turn(os.path.join(tempfile.gettempdir(), "kernel_profile.gpu.lock")):
                    res["profile"] = mf.kernel_profile(c, w, params, top=0)
                res["modules"] = generated_modules(cache, since)
                mf.log(name, label, "kernels", res["profile"]["kernels"], "launches", res["profile"]["launches"],
                       "total us", round(res["profile"]["total_us"]), "modules", len(res["modules"]))
            except Exception:  # noqa: BLE001
                res["error"] = traceback.format_exc()[-3000:]
                mf.log(name, label, "FAILED", res["error"])
            mf.write_json(os.path.join(args.work, f"{name}.{label}.json"), res)
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
