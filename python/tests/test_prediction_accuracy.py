"""python/tools/prediction_accuracy.py's step peak for a model compiled as
several graphs, on made-up reports (no binary, no GPU)."""

import json
import os
import sys
import tempfile
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))

import prediction_accuracy  # noqa: E402

MB = 1000 * 1000


def graph(primals, static):
    """A joint graph's JSON with float32 primals of the given byte sizes."""
    nodes = [{"op": "placeholder", "name": f"primals_{i + 1}",
              "val": {"tensor": {"shape": [size // 4], "dtype": "float32"}}} for i, size in enumerate(primals)]
    return {"nodes": nodes, "static_lifetime_input_indices": static}


def report(fw_peak, bw_peak, inputs, saved_bytes, saved_values):
    return {"bandwidth": {"forward": {"seconds": 0.001}, "backward": {"seconds": 0.002}},
            "memory": {"peak_bytes": max(fw_peak, bw_peak), "forward_peak_bytes": fw_peak,
                       "backward_peak_bytes": bw_peak, "input_bytes": inputs, "saved_bytes": saved_bytes},
            "saved_values": saved_values}


class MultiGraphPeakTest(unittest.TestCase):
    def predict(self, graphs, reports, arg_bytes):
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for i, g in enumerate(graphs):
                paths.append(os.path.join(d, f"g{i}.json"))
                with open(paths[-1], "w") as f:
                    json.dump(g, f)
            by_path = dict(zip(paths, reports))
            with mock.patch.object(prediction_accuracy, "run_tool", lambda _b, g, *_: by_path[g]):
                return prediction_accuracy.predict("tool", paths, {}, "h100", [], d, arg_bytes)

    def test_an_activation_from_the_graph_before_counts_in_the_forward(self):
        # Graph 0: 10 MB of weights, 1 MB batch; its output, 400 MB of
        # logits, is graph 1's input (graph 1 has no weights), which peaks
        # 900 MB above nothing while that input is held: 1.3 GB in all.
        graphs = [graph([10 * MB, 1 * MB], [0]), graph([400 * MB], [])]
        reports = [report(11 * MB + 400 * MB, 20 * MB, 11 * MB, 5 * MB, ["primals_2"]),
                   report(1300 * MB, 1000 * MB, 400 * MB, 0, [])]
        p = self.predict(graphs, reports, arg_bytes=11 * MB)
        # arg_bytes + graph 0's saved + graph 1's forward peak, its input
        # included.
        self.assertAlmostEqual(p["peak_gb"], (11 + 5 + 1300) / 1000)
        self.assertAlmostEqual(p["step_ms"], 6.0)

    def test_an_unsaved_activation_is_gone_in_the_backward(self):
        # Graph 1 keeps its 400 MB input to the end of its simulated
        # backward (1.5 GB there) without saving it: the step holds it no
        # longer than its forward, which peaks at 0.6 GB.
        graphs = [graph([10 * MB, 1 * MB], [0]), graph([400 * MB, 2 * MB], [1])]
        reports = [report(411 * MB, 20 * MB, 11 * MB, 0, []),
                   report(600 * MB, 1500 * MB, 402 * MB, 0, ["primals_2"])]
        p = self.predict(graphs, reports, arg_bytes=13 * MB)
        self.assertAlmostEqual(p["peak_gb"], (13 + 1500 - 2 - 400) / 1000)

    def test_a_saved_activation_stays_in_the_backward(self):
        graphs = [graph([10 * MB, 1 * MB], [0]), graph([400 * MB, 2 * MB], [1])]
        reports = [report(411 * MB, 20 * MB, 11 * MB, 0, []),
                   report(600 * MB, 1500 * MB, 402 * MB, 0, ["primals_1"])]
        p = self.predict(graphs, reports, arg_bytes=13 * MB)
        self.assertAlmostEqual(p["peak_gb"], (13 + 1500 - 2) / 1000)


if __name__ == "__main__":
    unittest.main()
