"""Can PyTorch's activation-offloading pass be driven from a custom
partitioner? Prints where the installed PyTorch applies offloading, then
compiles a small MLP with offloading switched on: with PyTorch's own
partitioner, with PartitionToolPartitioner, and with PartitionToolPartitioner
after marking the joint graph's large values `should_offload` (the node
metadata PyTorch's pass reads). Counts the offload and reload nodes in each
partitioned graph, with the step's peak memory and time.

  PARTITION_TOOL=/path/to/partition_tool python3 python/tools/offload_probe.py --out DIR
Writes DIR/offload_probe.json.
"""

import argparse
import inspect
import json
import os
import re
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from partition_tool_torch import PartitionToolPartitioner, hook  # noqa: E402
from partition_tool_torch.recording import fresh_copy  # noqa: E402


def where_offloading():
    """Lines of PyTorch's partitioner and compile_fx that mention offloading."""
    out = {}
    import torch._functorch.config as fconfig
    out["config_keys"] = sorted(k for k in dir(fconfig) if "offload" in k.lower())
    mods = ["torch._functorch.partitioners", "torch._inductor.compile_fx"]
    for name in mods:
        try:
            mod = __import__(name, fromlist=["x"])
            src = inspect.getsource(mod).splitlines()
            out[name] = [f"{i + 1}: {line.strip()}" for i, line in enumerate(src) if re.search("offload", line, re.I)]
        except Exception as e:  # noqa: BLE001
            out[name] = repr(e)
    return out


class Counting(hook.PartitionerBase):
    """Wraps a partitioner; counts offload/reload nodes in its results."""

    def __init__(self, inner, mark_bytes=None):
        self.inner = inner
        self.mark_bytes = mark_bytes
        self.counts = []

    def __call__(self, gm, joint_inputs, **kwargs):
        if self.mark_bytes:
            for n in gm.graph.nodes:
                v = n.meta.get("val")
                if n.op == "call_function" and isinstance(v, torch.Tensor) and \
                        v.numel() * v.element_size() >= self.mark_bytes:
                    n.meta["should_offload"] = True
        fw, bw = (self.inner(gm, joint_inputs, **kwargs) if self.inner
                  else hook.pytorch_partition(gm, joint_inputs, **kwargs))
        def count(g):
            names = [n.name for n in g.graph.nodes]
            return {"offload": sum("offload" in n for n in names), "reload": sum("reload" in n for n in names),
                    "nodes": len(names)}
        self.counts.append({"fw": count(fw), "bw": count(bw)})
        return fw, bw

    def uuid(self):
        return "offload_probe:" + str(id(self))


def run(label, inner, offload, mark_bytes=None):
    import torch._functorch.config as fconfig
    torch.manual_seed(0)
    m = nn.Sequential(*[nn.Sequential(nn.Linear(2048, 8192), nn.GELU(), nn.Linear(8192, 2048)) for _ in range(4)]).cuda()
    x = torch.randn(8192, 2048, device="cuda")

    def step(m, x):
        loss = m(x).square().mean()
        loss.backward()
        return loss
    part = Counting(inner, mark_bytes)
    c = torch.compile(fresh_copy(step, label), backend="inductor")
    patch = {k: True for k in ("enable_activation_offloading",) if hasattr(fconfig, k)} if offload else {}
    with fconfig.patch(patch), hook.installed(part):
        c(m, x)
    torch.cuda.synchronize()
    for p in m.parameters():
        p.grad = None
    before = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    c(m, x)
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - before
    times = []
    for _ in range(10):
        for p in m.parameters():
            p.grad = None
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        c(m, x)
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b))
    return {"patch": patch, "counts": part.counts, "step_peak": peak, "step_ms": sorted(times)[5]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    opts = ap.parse_args()
    os.makedirs(opts.out, exist_ok=True)
    res = {"torch": torch.__version__, "where": where_offloading()}
    print(json.dumps(res["where"], indent=1)[:6000], flush=True)
    for label, inner, offload in [("pytorch_plain", None, False), ("pytorch_offload", None, True),
                                  ("tool_offload", PartitionToolPartitioner({}), True),
                                  ("tool_offload_marked", PartitionToolPartitioner({}), True)]:
        try:
            res[label] = run(label, inner, offload, 64 << 20 if label.endswith("marked") else None)
        except Exception as e:  # noqa: BLE001
            res[label] = {"error": repr(e)[-2000:]}
        print(label, res[label], flush=True)
    with open(os.path.join(opts.out, "offload_probe.json"), "w") as f:
        json.dump(res, f, indent=1, default=str)


if __name__ == "__main__":
    main()
