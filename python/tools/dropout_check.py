"""GPU check that a plan under a memory budget keeps the training's random
numbers: a small dropout model is trained one step with PyTorch's own
partitioner and with the tool's cut (activation_memory_budget=0.5), from the
same seed, and the gradients are compared. With ban_recompute_rng_seeds
(the default) the tool saves the seeds and the gradients equal PyTorch's;
with it off (PyTorch 2.11's own choice under a budget) the backward draws
new dropout masks and the gradients differ: the control that shows the
check can fail.

  PARTITION_TOOL=/path/to/partition_tool python3 python/tools/dropout_check.py --out DIR

Writes DIR/dropout_check.json and prints one line per run; exit 1 when the
default plan's gradients differ from PyTorch's.
"""

import argparse
import copy
import json
import os
import sys
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from partition_tool_torch import PartitionToolPartitioner, RecordingPartitioner, installed  # noqa: E402
from partition_tool_torch.recording import fresh_copy  # noqa: E402


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        return x + self.drop(self.fc2(self.drop(F.gelu(self.fc1(self.ln(x))))))


def step(model, x):
    loss = model(x).square().mean()
    loss.backward()
    return loss.detach()


def run(model0, x, partitioner, tag):
    model = copy.deepcopy(model0)
    compiled = torch.compile(fresh_copy(step, tag), backend="inductor")
    torch.manual_seed(1234)
    with installed(partitioner):
        loss = compiled(model, x)
    torch.cuda.synchronize()
    return loss, [p.grad.detach().clone() for p in model.parameters()]


def max_rel_diff(a, b):
    return max(((x - y).abs().max() / (y.abs().max() + 1e-30)).item() for x, y in zip(a, b))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    opts = ap.parse_args()
    os.makedirs(opts.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="dropout_check_")  # graphs and reports, kept out of --out
    torch.manual_seed(0)
    model0 = nn.Sequential(*[Block(512) for _ in range(2)]).cuda()
    x = torch.randn(64, 256, 512, device="cuda")
    results = {}
    ref_loss, ref = run(model0, x, RecordingPartitioner(work, "pytorch_default"), "ref")
    _, ref2 = run(model0, x, RecordingPartitioner(work, "pytorch_default_again"), "ref2")
    results["pytorch_repeat_max_rel_diff"] = max_rel_diff(ref2, ref)
    for name, settings in [("tool_budget_0.5", {"activation_memory_budget": 0.5}),
                           ("tool_budget_0.5_rng_seeds_off", {"activation_memory_budget": 0.5,
                                                               "ban_recompute_rng_seeds": False})]:
        part = PartitionToolPartitioner(settings, work_dir=os.path.join(work, name))
        loss, grads = run(model0, x, part, name.replace(".", "_"))
        rec = part.records[0] if part.records else {}
        results[name] = {"max_rel_diff": max_rel_diff(grads, ref), "loss_equal": bool(torch.equal(loss, ref_loss)),
                         "saved": rec.get("saved_values"), "applied": rec.get("applied")}
        print(name, "max relative gradient difference vs PyTorch's default plan:",
              results[name]["max_rel_diff"], "loss equal:", results[name]["loss_equal"], flush=True)
    print("PyTorch against itself:", results["pytorch_repeat_max_rel_diff"])
    with open(os.path.join(opts.out, "dropout_check.json"), "w") as f:
        json.dump(results, f, indent=1, default=str)
    noise = max(results["pytorch_repeat_max_rel_diff"], 1e-5)
    ok = results["tool_budget_0.5"]["max_rel_diff"] <= noise
    print("default plan keeps the maths:", ok, "; control (seeds off) differs:",
          results["tool_budget_0.5_rng_seeds_off"]["max_rel_diff"] > noise)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
