"""Capture the joint graphs of measured models without compiling them, so
that predictions can be computed again for a changed bandwidth model (the
measurements of measure_families.py keep their graphs, but Inductor's
compile is the long part of each, minutes for a DenseNet).

  python3 python/tools/capture_graphs.py --out /tmp/graphs --models densenet121_bf16,resnet50_bf16

Each model's step is traced by Dynamo and AOTAutograd exactly as
measure_families.py compiles it (Inductor's joint-graph passes included);
the partitioner exports the joint graph, then stops the compile with an
exception this script catches. Only a model's first graph is captured: a
model with graph breaks (OPT has eight) needs measure_families.py. Writes
OUT/<model>.graph.json. Needs the GPU the graphs are meant for: the device
decides decompositions (attention, for one).
"""

import argparse
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch._dynamo.config  # noqa: E402

import measure_families as mf  # noqa: E402
import measure_settings as ms  # noqa: E402
import verify_models  # noqa: E402
from partition_tool_torch import PartitionToolPartitioner, hook  # noqa: E402
from partition_tool_torch.exporter import export  # noqa: E402


class GraphCaptured(Exception):
    """Raised after the export: nothing of the compile is wanted."""


class CaptureOnly(PartitionToolPartitioner):
    """Exports the joint graph it is handed, then stops the compile."""

    def __init__(self, name, out):
        super().__init__({}, name=name)
        self.out = out
        self.captured = None

    def __call__(self, gm, joint_inputs, **kwargs):
        self.captured = os.path.join(self.out, f"{self.name}.graph.json")
        export(gm, self.captured, kwargs["num_fwd_outputs"], kwargs.get("static_lifetime_input_indices") or [],
               name=self.name, model=self.name)
        raise GraphCaptured(self.name)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--models", default=",".join(verify_models.FAMILY_MODELS))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch._dynamo.config.suppress_errors = False
    failed = []
    for name in args.models.split(","):
        torch._dynamo.reset()
        try:
            w = verify_models.FAMILY_MODELS[name]()
            params = w.params()
            p = CaptureOnly(name, args.out)
            c = torch.compile(ms._copy_fn(w.fn, "capture"), backend=mf.inductor_backend("capture"),
                              **w.compile_kwargs)
            try:
                with hook.installed(p):
                    ms._zero(params)
                    ms._step(c, w.make_args(0))
            except Exception:  # noqa: BLE001  (Dynamo wraps GraphCaptured)
                if p.captured is None:
                    raise
            mf.log(name, "captured", p.captured)
            del w, params, c
        except Exception:  # noqa: BLE001
            mf.log(name, "FAILED", traceback.format_exc()[-2000:])
            failed.append(name)
        torch.cuda.empty_cache()
    if failed:
        mf.log("no graph for", ",".join(failed))
        sys.exit(1)


if __name__ == "__main__":
    main()
