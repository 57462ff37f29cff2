"""What is live at the measured peak (docs/bandwidth_model.md, "Where it
misses"): compiles one model per setting through the partition tool, records
the CUDA caching allocator's history over one forward+backward and writes,
per setting, the blocks live at the step's peak with their sizes and the
generated-code line that allocated them, plus those generated files, into
--out, a folder outside the repository (raw GPU results are not kept in the
tree).

  python3 python/tools/pred_memsnap.py --out $OUT --runs mlp_d2048=base+budget_0.5,gpt_d1024_l6=budget_0.1

A label limit_F asks for the tool's memory_limit plan at F times the default
plan's measured peak (measured first, as memory_limit_training.py does),
and also writes the tool's report of that plan: the predicted live set to
set beside the measured one. Models: those of verify_models.py and of
memory_limit_training.py.

Per label it also keeps what Inductor made of the plan: every generated
wrapper the step ran (code/<model>.<label>.<file>.py: the forward's and the
backward's call(), which replay_inductor_call.py replays) and the lines
Inductor's reorder_for_peak_memory logged (memsnap.json's
"inductor_reorder": each method's estimated peak; the lowest is the order
it kept). `replay_compare.py DIR` (DIR: this run's --out) then sets the
current model's backward peak beside each wrapper's replay, without a GPU.
"""
import argparse
import json
import logging
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import measure_settings as ms  # noqa: E402
import memory_limit_training as mlt  # noqa: E402
import pred_measure  # noqa: E402,F401  (registers the held-out models)
from partition_tool_torch import PartitionToolPartitioner, RecordingPartitioner, hook  # noqa: E402


def live_at_peak(snapshot):
    events = [e for dev in snapshot["device_traces"] for e in dev]
    live, total, peak, peak_live = {}, 0, 0, {}
    for e in events:
        if e["action"] == "alloc":
            live[e["addr"]] = e
            total += e["size"]
            if total > peak:
                peak, peak_live = total, dict(live)
        elif e["action"] in ("free_requested",) and e["addr"] in live:
            total -= live.pop(e["addr"])["size"]
    return peak, sorted(peak_live.values(), key=lambda e: -e["size"])


class LogLines(logging.Handler):
    """Keeps the messages of one logger (Inductor's memory planner)."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def is_generated(fn):
    """A file Inductor generated (its cache directory, /tmp by default)."""
    return "torchinductor" in fn or "/tmp/" in fn


def wrapper_files(snapshot):
    """The generated files whose code allocated during the step."""
    out = set()
    for dev in snapshot["device_traces"]:
        for e in dev:
            for f in e.get("frames", []):
                fn = f.get("filename", "")
                if fn.endswith(".py") and is_generated(fn):
                    out.add(fn)
    return out


def where(e):
    for f in e.get("frames", []):
        fn = f.get("filename", "")
        if is_generated(fn):
            return f"{os.path.basename(fn)}:{f.get('line')} {f.get('name')}"
    fr = e.get("frames", [])
    return " < ".join(f"{os.path.basename(f.get('filename', ''))}:{f.get('line')}" for f in fr[:3])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", required=True)
    ap.add_argument("--device", default="h100", help="the tool's device preset (step times only)")
    a = ap.parse_args()

    class LimitArgs:  # what memory_limit_training's helpers read
        device = a.device
    mlt.ARGS = LimitArgs
    torch.backends.cuda.matmul.allow_tf32 = True
    results = {}
    reorder = LogLines()
    memory_log = logging.getLogger("torch._inductor.memory")
    memory_log.setLevel(logging.INFO)
    memory_log.addHandler(reorder)
    os.makedirs(os.path.join(a.out, "code"), exist_ok=True)
    for item in a.runs.split(","):
        name, labels = item.split("=")
        w = mlt.model(name)
        params = w.params()
        default_peak = None
        for label in labels.split("+"):
            torch._dynamo.reset()
            if label.startswith("limit_"):
                if default_peak is None:
                    os.makedirs(os.path.join(a.out, "graphs"), exist_ok=True)
                    c, _ = mlt.compile_plan(w, params, "default", RecordingPartitioner(os.path.join(a.out, "graphs"), name))
                    default_peak = mlt.measure_peak(c, w, params)
                    del c
                    torch.cuda.empty_cache()
                settings = {"memory_limit": int(float(label[len("limit_"):]) * default_peak)}
            else:
                settings = ms.SETTINGS[label]
            work = os.path.join(a.out, "work", name, label)
            p = PartitionToolPartitioner(settings, device=mlt.ARGS.device, work_dir=work, name=name)
            reorder.lines = []
            c = torch.compile(ms._copy_fn(w.fn, label.replace(".", "_")), backend="inductor", **w.compile_kwargs)
            with hook.installed(p):
                for _ in range(3):
                    ms._zero(params)
                    ms._step(c, w.make_args(0))
            measured = mlt.measure_peak(c, w, params)  # what memory.peak_bytes predicts
            ms._zero(params)
            args = w.make_args(0)
            torch.cuda.synchronize()
            before = torch.cuda.memory_allocated()
            torch.cuda.reset_peak_memory_stats()
            torch.cuda.memory._record_memory_history(max_entries=200000)
            ms._step(c, args)
            torch.cuda.synchronize()
            snap = torch.cuda.memory._snapshot()
            torch.cuda.memory._record_memory_history(enabled=None)
            step_peak = torch.cuda.max_memory_allocated() - before
            for fn in wrapper_files(snap):
                if os.path.isfile(fn) and "def call(" in open(fn).read():
                    shutil.copy(fn, os.path.join(a.out, "code", f"{name}.{label}.{os.path.basename(fn)}"))
            peak, blocks = live_at_peak(snap)
            rows = [{"bytes": b["size"], "where": where(b)} for b in blocks[:60]]
            report = os.path.join(work, f"{name}.report.json")
            predicted = json.load(open(report))["memory"] if os.path.isfile(report) else None
            results[f"{name}/{label}"] = {"measured_peak_bytes": measured, "step_peak_bytes": step_peak,
                                          "trace_peak_bytes": peak,
                                          "settings": settings, "default_measured_peak": default_peak,
                                          "predicted": predicted,
                                          "live_blocks": len(blocks), "largest": rows,
                                          "saved": [r["saved"] for r in p.records],
                                          "inductor_reorder": list(reorder.lines)}
            print(name, label, "peak", measured / 1e9, "predicted",
                  predicted["peak_bytes"] / 1e9 if predicted else None, "trace peak", peak / 1e9, flush=True)
            for r in rows[:25]:
                print("   ", r["bytes"] / 1e9, r["where"], flush=True)
            ms._zero(params)
            del c
            torch.cuda.empty_cache()
            with open(os.path.join(a.out, "memsnap.json"), "w") as f:  # after each: a run cut short keeps its labels
                json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
