"""The torch side: export, the recording partitioner and the tool-backed
partitioner on small joint graphs. Skipped, with the reason shown, where torch
is not installed (CI); run on the GPU machine by python/tools/gpu_verify.py."""

import json
import os
import tempfile
import unittest

import support

if support.HAVE_TORCH:
    import torch
    import torch.nn.functional as F
    from functorch.compile import aot_function, nop

    from partition_tool_torch import PartitionToolPartitioner, RecordingPartitioner, capture
    from partition_tool_torch import graph_diff
    from partition_tool_torch.partitioner import pytorch_config
    from partition_tool_torch.exporter import target_name


def _mlp_step(w1, w2, x):
    h = F.gelu(x @ w1.t())
    return F.layer_norm(h @ w2.t(), (w2.shape[0],)).square().mean()


def _inputs(device="cpu"):
    g = torch.Generator().manual_seed(0)
    w1 = torch.randn(64, 32, generator=g).to(device).requires_grad_()
    w2 = torch.randn(16, 64, generator=g).to(device).requires_grad_()
    x = torch.randn(8, 32, generator=g).to(device)
    return w1, w2, x


def _run(partition_fn, inputs):
    """One forward+backward through aot_function with this partitioner."""
    f = aot_function(_mlp_step, fw_compiler=nop, bw_compiler=nop, partition_fn=partition_fn)
    loss = f(*inputs)
    loss.backward()
    return loss.detach(), [t.grad.clone() for t in inputs[:2]]


@unittest.skipUnless(support.HAVE_TORCH, support.NO_TORCH_REASON)
class ExportTest(unittest.TestCase):
    def test_joint_graph_fields(self):
        with tempfile.TemporaryDirectory() as d:
            rec = RecordingPartitioner(d, "mlp")
            _run(rec, _inputs())
            g = graph_diff.load(rec.records[0]["graph"])
        nodes = {n["name"]: n for n in g["nodes"]}
        self.assertEqual(g["num_fwd_outputs"], 1)
        self.assertEqual(nodes["primals_1"]["op"], "placeholder")
        self.assertEqual(nodes["primals_1"]["target"], "primals_1")
        self.assertTrue(nodes["primals_1"].get("impure"))
        self.assertIn("tangents_1", nodes)
        self.assertEqual(g["nodes"][-1]["op"], "output")
        targets = {n["target"] for n in g["nodes"]}
        self.assertIn("aten.mm.default", targets)
        self.assertIn("operator.getitem", targets)  # native_layer_norm's outputs
        t = nodes["primals_1"]["val"]["tensor"]
        self.assertEqual((t["shape"], t["stride"], t["dtype"], t["device"]),
                         ([64, 32], [32, 1], "float32", "cpu"))
        self.assertIn("storage", t)
        # A transpose is a view: it shares its base's storage id.
        view = next(n for n in g["nodes"] if n["target"] in ("aten.t.default",
                                                              "aten.permute.default")
                    and n["args"][0] == {"node": "primals_1"})
        self.assertEqual(view["val"]["tensor"]["storage"], t["storage"])
        mm = next(n for n in g["nodes"] if n["target"] == "aten.mm.default")
        self.assertIn("core", mm.get("op_tags", []))

    def test_target_names(self):
        class N:
            op = "call_function"
        for target, name in [(torch.ops.aten.mm.default, "aten.mm.default"),
                             (torch.ops.prims.convert_element_type.default,
                              "prims.convert_element_type.default"),
                             (__import__("operator").getitem, "operator.getitem")]:
            n = N()
            n.target = target
            self.assertEqual(target_name(n), name)


@unittest.skipUnless(support.HAVE_TORCH, support.NO_TORCH_REASON)
@unittest.skipUnless(support.tool_binary(), support.NO_TOOL_REASON)
class ToolPartitionerTest(unittest.TestCase):
    def test_same_results_and_saved_set_as_pytorch(self):
        inputs = _inputs()
        with tempfile.TemporaryDirectory() as d:
            rec = RecordingPartitioner(d, "mlp")
            loss_ref, grads_ref = _run(rec, inputs)
        for t in inputs[:2]:
            t.grad = None
        ours = PartitionToolPartitioner({}, binary=support.tool_binary(),
                                        compare_with_pytorch=True)
        loss, grads = _run(ours, inputs)
        record = ours.records[0]
        self.assertTrue(record["applied"], record)
        self.assertEqual(record["saved"], rec.records[0]["saved"])
        self.assertTrue(torch.equal(loss, loss_ref))
        for a, b in zip(grads, grads_ref):
            self.assertTrue(torch.equal(a, b))

    def test_settings_reach_the_tool(self):
        with tempfile.TemporaryDirectory() as d:
            ours = PartitionToolPartitioner({"activation_memory_budget": 0.0},
                                            binary=support.tool_binary(), work_dir=d)
            _run(ours, _inputs())
            with open(os.path.join(d, "graph.report.json"), encoding="utf-8") as f:
                report = json.load(f)
        self.assertEqual(report["settings_changed"], ["activation_memory_budget"])
        self.assertNotEqual(ours.uuid(), PartitionToolPartitioner({}, binary=support.tool_binary()).uuid())

    def test_pytorch_side_gets_the_shared_settings(self):
        patch, unmatched = pytorch_config({"activation_memory_budget": "0.5", "cse": "false",
                                           "dist_from_bw_base": 1.2})
        self.assertEqual(patch, {"activation_memory_budget": 0.5, "cse": False})
        self.assertEqual(unmatched, ["dist_from_bw_base"])
        ours = PartitionToolPartitioner({"dist_from_bw_base": 1.2}, binary=support.tool_binary(),
                                        compare_with_pytorch=True)
        with self.assertWarnsRegex(UserWarning, "dist_from_bw_base"):
            _run(ours, _inputs())
        self.assertEqual(ours.records[0]["settings_pytorch_lacks"], ["dist_from_bw_base"])


@unittest.skipUnless(support.HAVE_TORCH, support.NO_TORCH_REASON)
class CaptureTest(unittest.TestCase):
    @unittest.skipUnless(support.HAVE_TORCH and torch.cuda.is_available(), "needs CUDA for Inductor")
    def test_capture_writes_each_joint_graph(self):
        inputs = _inputs("cuda")
        with tempfile.TemporaryDirectory() as d:
            records = capture(_mlp_step, *inputs, out_dir=d, name="mlp")
            self.assertEqual(len(records), 1)
            self.assertTrue(os.path.exists(os.path.join(d, "mlp.graph.json")))
        self.assertIsNotNone(inputs[0].grad)

    @unittest.skipUnless(support.HAVE_TORCH and torch.cuda.is_available(), "needs CUDA for Inductor")
    def test_capture_keeps_what_was_compiled_before(self):
        traced = []

        def counting_backend(gm, example_inputs):
            traced.append(gm)
            return gm.forward

        earlier = torch.compile(lambda x: (x * 2).sin(), backend=counting_backend)
        x = torch.randn(8, device="cuda")
        earlier(x)
        self.assertEqual(len(traced), 1)
        with tempfile.TemporaryDirectory() as d:
            capture(_mlp_step, *_inputs("cuda"), out_dir=d, name="mlp")
        earlier(x)
        self.assertEqual(len(traced), 1, "capture() made Dynamo trace an earlier function again")


if __name__ == "__main__":
    unittest.main()
