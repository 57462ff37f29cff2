"""Finding and invoking the partition_tool binary (no torch needed)."""

import os
import stat
import tempfile
import unittest
from unittest import mock

import support
from partition_tool_torch import cli


class BuildCommandTest(unittest.TestCase):
    def test_settings_in_order_with_tool_spelling(self):
        cmd = cli.build_command("/bin/pt", "g.json", "r.json",
                                {"dist_from_bw_base": 1.2, "cse": False,
                                 "recomputable_ops.add": ["aten.mm", "aten.bmm"]},
                                device="h200")
        self.assertEqual(cmd, ["/bin/pt", "--input", "g.json", "--report-json", "r.json",
                               "--set", "dist_from_bw_base=1.2", "--set", "cse=false",
                               "--set", "recomputable_ops.add=aten.mm,aten.bmm",
                               "--device", "h200"])

    def test_no_settings(self):
        self.assertEqual(cli.build_command("pt", "g.json", "-"),
                         ["pt", "--input", "g.json", "--report-json", "-"])

    def test_bad_key(self):
        with self.assertRaises(ValueError):
            cli.build_command("pt", "g", "r", {"a=b": 1})

    def test_format_setting(self):
        self.assertEqual(cli.format_setting(True), "true")
        self.assertEqual(cli.format_setting(0.5), "0.5")
        self.assertEqual(cli.format_setting("dp"), "dp")


class FindBinaryTest(unittest.TestCase):
    def test_environment_variable_wins(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "partition_tool")
            with open(path, "w", encoding="utf-8") as f:
                f.write("#!/bin/sh\n")
            os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
            with mock.patch.dict(os.environ, {"PARTITION_TOOL": path}):
                self.assertEqual(cli.find_binary(), path)
            self.assertEqual(cli.find_binary(path), path)

    def test_missing_binary_says_how_to_fix(self):
        with mock.patch.dict(os.environ, {"PARTITION_TOOL": "", "PATH": ""}):
            with self.assertRaisesRegex(cli.PartitionToolError, "PARTITION_TOOL"):
                cli.find_binary()
        with self.assertRaisesRegex(cli.PartitionToolError, "not an executable"):
            cli.find_binary("/nonexistent/partition_tool")


class ReportTest(unittest.TestCase):
    def test_saved_names(self):
        self.assertEqual(cli.saved_names({"saved_values": ["a"], "saved_sym_nodes": ["s"]}),
                         (["a"], ["s"]))
        with self.assertRaisesRegex(cli.PartitionToolError, "saved_sym_nodes"):
            cli.saved_names({"saved_values": []})

    def test_predicted_cost_reads_what_is_there(self):
        self.assertEqual(cli.predicted_cost({}), {})
        report = {"bandwidth": {"forward": {"seconds": 0.002}, "backward": {"seconds": 0.003}},
                  "memory": {"peak_bytes": 7e9}}
        self.assertEqual(cli.predicted_cost(report),
                         {"forward_s": 0.002, "backward_s": 0.003, "step_s": 0.005,
                          "peak_bytes": 7e9})


@unittest.skipUnless(support.tool_binary(), support.NO_TOOL_REASON)
class RunPartitionTest(unittest.TestCase):
    def test_sample_graph(self):
        with tempfile.TemporaryDirectory() as d:
            report = cli.run_partition(support.tool_binary(),
                                       os.path.join(support.SAMPLE_GRAPHS, "linear_ce.pb"),
                                       os.path.join(d, "r.json"), {"dist_from_bw_base": 1.2})
        values, symbols = cli.saved_names(report)
        self.assertIn("convert_element_type_3", values)  # base 1.2 saves the bf16 softmax
        self.assertEqual(symbols, [])

    def test_failure_carries_exit_code(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.json")
            with open(bad, "w", encoding="utf-8") as f:
                f.write("{not json")
            with self.assertRaises(cli.PartitionToolError) as ctx:
                cli.run_partition(support.tool_binary(), bad, os.path.join(d, "r.json"))
        self.assertEqual(ctx.exception.returncode, 2)
        self.assertIn("bad input", str(ctx.exception))


if __name__ == "__main__":
    unittest.main()
