"""GPU verification of the PyTorch bridge, in one process (see
docs/torch_integration.md). Sections, in order:

  probe    - the PyTorch hook API as installed (signatures, where the cut is chosen)
  tests    - python/tests with torch present
  capture  - capture() the corpus models; compare with the corpus files
  train    - per model: PyTorch's partitioner, our partitioner (defaults and
             dist_from_bw_base=1.2): 20 training losses, saved sets, then step
             time and peak memory, next to what the tool's report predicts

Writes <out>/verify.json after every section (so a run cut short keeps what it
measured) and prints a table at the end. <out> is a folder outside the
repository: raw GPU results are not kept in the tree, only the summary
tables of docs/torch_integration.md.

  PARTITION_TOOL=build/app/partition_tool python3 python/tools/gpu_verify.py \
      --out $OUT --corpus .devbin/corpus --sections probe,tests,capture,train
"""

import argparse
import inspect
import json
import os
import statistics
import subprocess
import sys
import tarfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import verify_models  # noqa: E402
from partition_tool_torch import (PartitionToolPartitioner, RecordingPartitioner,  # noqa: E402
                                  capture, cli, graph_diff, hook)

RESULTS = {"sections": {}}
START = time.time()


def log(*a):
    print(f"[{time.time() - START:7.1f}s]", *a, flush=True)


def save(out):
    with open(os.path.join(out, "verify.json"), "w", encoding="utf-8") as f:
        json.dump(RESULTS, f, indent=1, default=str)


def probe():
    import torch._functorch.partitioners as P
    from torch._inductor import compile_fx
    src = inspect.getsource(P.min_cut_rematerialization_partition)
    part_src = inspect.getsource(compile_fx.partition_fn)
    return {
        "torch": torch.__version__, "cuda": torch.version.cuda,
        "device": torch.cuda.get_device_name(0),
        "min_cut_signature": str(inspect.signature(P.min_cut_rematerialization_partition)),
        "extract_signature": str(inspect.signature(P._extract_fwd_bwd_modules)),
        "choose_signature": str(inspect.signature(P.choose_saved_values_set)),
        "min_cut_calls_choose_saved_values_set": "choose_saved_values_set(" in src,
        "partition_fn_uses_custom_partitioner_fn": "custom_partitioner_fn" in part_src,
        "custom_partitioner_base": f"{hook.PartitionerBase.__module__}.{hook.PartitionerBase.__name__}",
        "partition_fn_tail": part_src[-1500:],
    }


def run_tests():
    proc = subprocess.run([sys.executable, "-m", "unittest", "discover", "-v", "-s",
                           os.path.join(os.path.dirname(HERE), "tests")],
                          capture_output=True, text=True, check=False)
    log(proc.stderr[-3000:])
    return {"returncode": proc.returncode, "tail": proc.stderr[-1500:]}


GRAPHS = "/tmp/pt_verify_graphs"  # tarred into <out>/graphs.tar.gz at the end


def capture_corpus(corpus):
    gdir = os.path.join(GRAPHS, "capture")
    os.makedirs(gdir, exist_ok=True)
    results = {}
    for name, build in verify_models.CORPUS_MODELS.items():
        try:
            w = build()
            t0 = time.time()
            records = capture(w.fn, *w.make_args(0), out_dir=gdir, name=name,
                              compile_kwargs={"fullgraph": True})
            entry = {"graphs": len(records), "capture_s": round(time.time() - t0, 1),
                     "pytorch_saved": records[0]["saved"]}
            ref = os.path.join(corpus, f"{name}.graph.json")
            if os.path.exists(ref):
                entry["diff"] = graph_diff.diff_graphs(graph_diff.load(ref),
                                                       graph_diff.load(records[0]["graph"]))
                entry["saved_vs_corpus_ref"] = _corpus_saved(corpus, name, records[0]["saved"])
            results[name] = entry
            log(name, "captured; equal to corpus:", entry.get("diff", {}).get("equal"),
                entry.get("diff", {}).get("field_counts"))
            del w
        except Exception:  # noqa: BLE001 - record and go on with the next model
            results[name] = {"error": traceback.format_exc()[-3000:]}
            log(name, "FAILED", results[name]["error"])
        torch.cuda.empty_cache()
    return results


def _corpus_saved(corpus, name, saved):
    path = os.path.join(corpus, f"{name}.ref.json")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        ref = json.load(f)
    run = next(r for r in ref["runs"] if r["config"] == "default")
    return {"equal": run["fw_saved_outputs"] == saved, "corpus": run["fw_saved_outputs"]}


def _step(fn, args):
    loss = fn(*args)
    loss.backward()
    return loss


def train_one(w, partitioner, steps, timing_steps, warmup=5):
    """Train from the initial weights with this partitioner installed: the
    losses of `steps` AdamW steps, then forward and step (forward+backward)
    times and peak memory over timing_steps after warm-up."""
    torch._dynamo.reset()
    w.reset()
    params = w.params()
    opt = torch.optim.AdamW(params, lr=w.lr, foreach=True)
    compiled = torch.compile(w.fn, backend="inductor", **w.compile_kwargs)
    losses, rows = [], []
    t0 = time.time()
    with hook.installed(partitioner):
        for i in range(steps):
            args = w.make_args(i)
            rows.append(next((a.shape[0] for a in args if isinstance(a, torch.Tensor)), None))
            loss = _step(compiled, args)
            opt.step()
            opt.zero_grad(set_to_none=True)
            losses.append(loss.detach().float().item())
        result = {"losses": losses, "train_s": round(time.time() - t0, 1)}
        if len(set(rows)) > 1:
            result["batch_rows_per_step"] = rows
        if timing_steps:
            events = []
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            for i in range(warmup + timing_steps):
                for p in params:
                    p.grad = None
                args = w.make_args(0)
                e = [torch.cuda.Event(enable_timing=True) for _ in range(3)]
                e[0].record()
                loss = compiled(*args)
                e[1].record()
                loss.backward()
                e[2].record()
                if i >= warmup:
                    events.append(e)
            torch.cuda.synchronize()
            step_ms = [e[0].elapsed_time(e[2]) for e in events]
            result.update({
                "fwd_ms": statistics.median(e[0].elapsed_time(e[1]) for e in events),
                "step_ms": statistics.median(step_ms),
                "step_ms_min_max": [min(step_ms), max(step_ms)],
                "timed_steps": timing_steps,
                "peak_bytes": torch.cuda.max_memory_allocated()})
    for p in params:
        p.grad = None
    return result


def predict(graph, settings):
    """The tool's report on a captured graph, with --device h200 when this
    build of the tool takes it."""
    binary = cli.find_binary()
    report_path = graph + ".predict.json"
    try:
        report = cli.run_partition(binary, graph, report_path, settings, device="h200")
        device_flag = True
    except cli.PartitionToolError as e:
        if e.returncode != 2:
            raise
        report = cli.run_partition(binary, graph, report_path, settings)
        device_flag = False
    return {"device_flag_accepted": device_flag, "saved_values": report["saved_values"],
            "saved_bytes": report.get("saved_bytes"), "predicted": cli.predicted_cost(report),
            "report_keys": sorted(report)}


def compare_losses(a, b):
    diffs = [abs(x - y) for x, y in zip(a, b)]
    first = next((i for i, d in enumerate(diffs) if d != 0), None)
    return {"bitwise_equal": a == b, "first_differing_step": first,
            "max_abs_diff": max(diffs) if diffs else None,
            "max_rel_diff": max((d / abs(y) for d, y in zip(diffs, b) if y), default=None)}


def _configs(name, gdir):
    """Partitioners by label. 'pytorch' exports its graph (for the tool's
    predictions); 'pytorch_repeat' is the run-to-run control."""
    return {
        "pytorch": lambda: RecordingPartitioner(gdir, f"{name}_train"),
        "pytorch_repeat": lambda: RecordingPartitioner(gdir, "unused", export_graphs=False),
        "tool_default": lambda: PartitionToolPartitioner({}, compare_with_pytorch=True, name=name),
        "tool_base_1.2": lambda: PartitionToolPartitioner(
            {"dist_from_bw_base": 1.2}, compare_with_pytorch=True, name=name),
    }


def train_model(name, configs, steps, timing_steps):
    """Each configuration in turn from the same initial weights; each one
    compared with the 'pytorch' run (losses, saved sets, graph digests)."""
    w = verify_models.TRAINING_MODELS[name]()
    gdir = os.path.join(GRAPHS, "train")
    os.makedirs(gdir, exist_ok=True)
    makers, res = _configs(name, gdir), {}
    for label in configs:
        partitioner = makers[label]()
        r = train_one(w, partitioner, steps, timing_steps)
        r["records"] = partitioner.records
        ref = res.get("pytorch")
        if ref is not None:
            r["vs_pytorch"] = compare_losses(r["losses"], ref["losses"])
            r["saved_equal_to_pytorch"] = ([o["saved"] for o in partitioner.records]
                                           == [o["saved"] for o in ref["records"]])
            r["graphs_equal_to_pytorch"] = ([o["digests"] for o in partitioner.records]
                                            == [o["digests"] for o in ref["records"]])
        if isinstance(partitioner, PartitionToolPartitioner):
            r["choice_vs_pytorch"] = [_choice_diff(o) for o in partitioner.records]
        res[label] = r
        log(name, label, {k: v for k, v in r.items() if k != "records"})
    graphs = [o["graph"] for o in res.get("pytorch", {}).get("records", []) if o.get("graph")]
    if graphs:
        res["predictions"] = {label: predict(graphs[0], s) for label, s in
                              (("default", {}), ("base_1.2", {"dist_from_bw_base": 1.2}))}
        log(name, "predictions", res["predictions"])
    del w
    torch.cuda.empty_cache()
    return res


def _choice_diff(record):
    """The tool's saved set (after it drops what the backward never reads)
    against PyTorch's choice on the same graph (before PyTorch drops them)."""
    ours = record["saved_values"] + record["saved_sym_nodes"]
    theirs = record.get("pytorch_choice") or []
    return {"applied": record["applied"],
            "tool_not_in_pytorch_choice": [n for n in ours if n not in theirs],
            "pytorch_choice_not_in_tool": [n for n in theirs if n not in ours]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--corpus", default="")
    ap.add_argument("--sections", default="probe,tests,capture,train")
    ap.add_argument("--models", default="linear_ce,gpt2_124m,llama_small")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--timing-steps", type=int, default=40)
    ap.add_argument("--configs", default="pytorch,pytorch_repeat,tool_default,tool_base_1.2")
    ap.add_argument("--deterministic", action="store_true",
                    help="deterministic kernels, cuDNN attention off (its backward is not "
                         "deterministic); set CUBLAS_WORKSPACE_CONFIG=:4096:8 too")
    ap.add_argument("--budget-s", type=float, default=540, help="skip work past this")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.deterministic:
        torch.use_deterministic_algorithms(True, warn_only=True)
        torch.backends.cuda.enable_cudnn_sdp(False)
        if hasattr(torch._inductor.config, "deterministic"):
            torch._inductor.config.deterministic = True
    RESULTS["args"] = vars(args)
    sections = args.sections.split(",")
    jobs = [("probe", probe), ("tests", run_tests),
            ("capture", lambda: capture_corpus(args.corpus))]
    for name in args.models.split(","):
        jobs.append((f"train:{name}", lambda n=name: train_model(
            n, args.configs.split(","), args.steps, args.timing_steps)))
    for name, job in jobs:
        if name.split(":")[0] not in sections:
            continue
        if time.time() - START > args.budget_s:
            RESULTS["sections"][name] = {"skipped": "out of time budget"}
            log(name, "SKIPPED: out of time budget")
            continue
        log("==", name)
        t0 = time.time()
        try:
            RESULTS["sections"][name] = job()
        except Exception:  # noqa: BLE001 - keep the other sections' results
            RESULTS["sections"][name] = {"error": traceback.format_exc()[-4000:]}
            log(name, "FAILED\n", RESULTS["sections"][name]["error"])
        RESULTS.setdefault("section_s", {})[name] = round(time.time() - t0, 1)
        save(args.out)
    if os.path.isdir(GRAPHS):
        with tarfile.open(os.path.join(args.out, "graphs.tar.gz"), "w:gz") as tar:
            tar.add(GRAPHS, arcname="graphs")
    log("done")


if __name__ == "__main__":
    main()
