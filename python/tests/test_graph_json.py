"""The JSON writer from plain Python values (no torch needed)."""

import json
import os
import subprocess
import tempfile
import unittest

import support  # noqa: F401 - puts python/ on sys.path
from partition_tool_torch import graph_diff
from partition_tool_torch import graph_json as gj


class EncodeArgTest(unittest.TestCase):
    def test_scalars(self):
        self.assertEqual(gj.encode_arg(True), {"bool": True})  # not {"int": 1}
        self.assertEqual(gj.encode_arg(3), {"int": 3})
        self.assertEqual(gj.encode_arg(0.5), {"float": 0.5})
        self.assertEqual(gj.encode_arg("rand"), {"str": "rand"})
        self.assertEqual(gj.encode_arg(None), {"none": True})

    def test_float_specials_are_strings(self):
        self.assertEqual(gj.encode_arg(float("inf")), {"float": "Infinity"})
        self.assertEqual(gj.encode_arg(float("-inf")), {"float": "-Infinity"})
        self.assertEqual(gj.encode_arg(float("nan")), {"float": "NaN"})

    def test_lists_and_tuples_nest(self):
        self.assertEqual(gj.encode_arg([1, (gj.NodeRef("x"), None)]),
                         {"list": {"items": [{"int": 1}, {"list": {"items": [
                             {"node": "x"}, {"none": True}]}}]}})
        self.assertEqual(gj.encode_arg([]), {"list": {"items": []}})

    def test_constants(self):
        self.assertEqual(gj.encode_arg(gj.Const("dtype", "bfloat16")), {"dtype": "bfloat16"})
        self.assertEqual(gj.encode_arg(gj.Const("device", "cuda:0")), {"device": "cuda:0"})
        self.assertEqual(gj.encode_arg(gj.Const("repr", "torch.strided")),
                         {"repr": "torch.strided"})
        with self.assertRaises(ValueError):
            gj.Const("layout", "x")

    def test_unknown_objects_become_repr(self):
        class Layout:
            def __str__(self):
                return "torch.strided"
        self.assertEqual(gj.encode_arg(Layout()), {"repr": "torch.strided"})

    def test_convert_hook_maps_foreign_objects(self):
        class FakeNode:
            name = "mm"
        convert = lambda x: gj.NodeRef(x.name) if isinstance(x, FakeNode) else None  # noqa: E731
        self.assertEqual(gj.encode_arg([FakeNode(), 2], convert),
                         {"list": {"items": [{"node": "mm"}, {"int": 2}]}})


class ValueAndNodeTest(unittest.TestCase):
    def test_tensor_without_symbols(self):
        v = gj.tensor_value([32768, 1], [1, 1], "float32", "cuda:0", storage=4)
        self.assertEqual(v, {"tensor": {"shape": [32768, 1], "dtype": "float32",
                                        "device": "cuda:0", "stride": [1, 1],
                                        "storage": 4, "storage_offset": 0}})

    def test_tensor_with_symbols(self):
        v = gj.tensor_value([96, 512], [512, 1], "float32", "cuda:0",
                            shape_expr=["s17", "512"], stride_expr=["512", "1"],
                            storage_offset=512, storage_offset_expr="512*s3")
        t = v["tensor"]
        self.assertEqual(t["shape_expr"], ["s17", "512"])
        self.assertEqual(t["stride_expr"], ["512", "1"])
        self.assertEqual((t["storage_offset"], t["storage_offset_expr"]), (512, "512*s3"))
        self.assertNotIn("storage", t)

    def test_other_values(self):
        self.assertEqual(gj.sym_value("int", "s17", 96),
                         {"sym": {"kind": "int", "expr": "s17", "hint": 96}})
        self.assertEqual(gj.sym_value("bool", "Eq(s0, 1)", True)["sym"]["hint"], 1)
        with self.assertRaises(ValueError):
            gj.sym_value("complex", "s0", 1)
        self.assertEqual(gj.tuple_value([gj.none_value()]),
                         {"tuple": {"items": [{"none": True}]}})
        self.assertEqual(gj.opaque_value("BackwardState"), {"opaque": "BackwardState"})

    def test_node_leaves_defaults_out_and_sorts_tags(self):
        node = gj.node_entry("amax", "call_function", "aten.amax.default",
                             args=[gj.NodeRef("x"), [1], True],
                             op_tags=["core", "reduction", "pt2_compliant_tag"])
        self.assertEqual(list(node), ["name", "op", "target", "args", "op_tags"])
        self.assertEqual(node["op_tags"], ["core", "pt2_compliant_tag", "reduction"])

    def test_node_optional_fields(self):
        node = gj.node_entry("addmm", "call_function", "aten.addmm.default",
                             kwargs={"beta": 1}, mutable=True, recompute="MUST_SAVE",
                             ac_graph_id=5, partitioner_tag="is_forward",
                             module_path="L['layers'].0.0", impure=True,
                             has_backward_hook=True, memory_budget=0.5)
        self.assertEqual(node["kwargs"], {"beta": {"int": 1}})
        for key, value in [("mutable", True), ("recompute", "MUST_SAVE"), ("ac_graph_id", 5),
                           ("partitioner_tag", "is_forward"), ("impure", True),
                           ("module_path", "L['layers'].0.0"), ("has_backward_hook", True),
                           ("memory_budget", 0.5)]:
            self.assertEqual(node[key], value, key)

    def test_written_file_is_strict_json(self):
        graph = gj.graph_entry("g", [gj.node_entry("c", "call_function", "aten.full.default",
                                                   args=[[], float("-inf")])], 1, [0])
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "g.json")
            gj.write_graph(graph, path)
            with open(path, encoding="utf-8") as f:
                text = f.read()
        self.assertIn('"-Infinity"', text)
        self.assertEqual(json.loads(text)["static_lifetime_input_indices"], [0])


def _plain_arg(arg):
    """A corpus Arg back to the plain value the writer takes (test-only)."""
    (kind, value), = arg.items()
    if kind == "node":
        return gj.NodeRef(value)
    if kind in ("dtype", "device", "repr"):
        return gj.Const(kind, value)
    if kind == "list":
        return [_plain_arg(a) for a in value.get("items", [])]
    if kind == "none":
        return None
    if kind == "float":
        return float(value.replace("Infinity", "inf") if isinstance(value, str) else value)
    return int(value) if kind == "int" else value


def _rewrite(node):
    """Rebuild a corpus node through the writer (test-only)."""
    keys = ("val", "op_tags", "mutable", "recompute", "ac_graph_id", "partitioner_tag",
            "module_path")
    return gj.node_entry(
        node["name"], node["op"], node["target"],
        args=[_plain_arg(a) for a in node.get("args", [])],
        kwargs={k: _plain_arg(v) for k, v in node.get("kwargs", {}).items()},
        **{k: node[k] for k in keys if k in node})


@unittest.skipUnless(support.tool_binary(), support.NO_TOOL_REASON)
class CorpusRoundTripTest(unittest.TestCase):
    """linear_ce (converted from sample_graphs/linear_ce.pb), rebuilt node by
    node through the writer, equals the original and partitions the same."""

    def test_rebuilt_graph_equals_original_and_partitions_the_same(self):
        tool = support.tool_binary()
        with tempfile.TemporaryDirectory() as d:
            original = os.path.join(d, "original.json")
            subprocess.run([tool, "convert", os.path.join(support.SAMPLE_GRAPHS, "linear_ce.pb"),
                            original], check=True, capture_output=True)
            g = graph_diff.load(original)
            rebuilt = gj.graph_entry(g["name"], [_rewrite(n) for n in g["nodes"]],
                                     g["num_fwd_outputs"], g["static_lifetime_input_indices"],
                                     g.get("metadata"))
            path = os.path.join(d, "rebuilt.json")
            gj.write_graph(rebuilt, path)
            diff = graph_diff.diff_graphs(g, graph_diff.load(path))
            self.assertTrue(diff["equal"], diff)
            saved = []
            for p in (original, path):
                out = subprocess.run([tool, "--input", p, "--report-json", "-"],
                                     check=True, capture_output=True, text=True)
                saved.append(json.loads(out.stdout)["saved_values"])
        self.assertEqual(saved[0], saved[1])
        self.assertIn("mm_default_2", saved[0])


class GraphDiffTest(unittest.TestCase):
    def test_reports_fields_and_missing_nodes(self):
        a = {"nodes": [{"name": "x", "op": "placeholder", "target": "x",
                        "val": {"tensor": {"shape": ["2"], "stride": ["1"], "dtype": "float32",
                                           "device": "cuda:0", "storage": 0}}},
                       {"name": "y", "op": "call_function", "target": "aten.relu.default"}]}
        b = {"nodes": [{"name": "x", "op": "placeholder", "target": "x",
                        "val": {"tensor": {"shape": [2], "stride": [1], "dtype": "bfloat16",
                                           "device": "cuda:0"}}}]}
        d = graph_diff.diff_graphs(a, b)
        self.assertFalse(d["equal"])
        self.assertEqual(d["only_in_first"], ["y"])
        self.assertEqual(d["field_counts"], {"val": 1})  # dtype, not the string ints or storage


if __name__ == "__main__":
    unittest.main()
