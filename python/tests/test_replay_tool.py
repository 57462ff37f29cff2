"""python/tools/replay_inductor_call.py on a small wrapper of the shape
Inductor generates: allocations, a reuse, an extern kernel's output, frees."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

from support import NO_TOOL_REASON, SAMPLE_GRAPHS, tool_binary

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(os.path.dirname(HERE), "tools", "replay_inductor_call.py")
COMPARE = os.path.join(os.path.dirname(HERE), "tools", "replay_compare.py")

WRAPPER = '''
# %saved_0 : Tensor "bf16[1000000][1]cuda:0"
    def call(self, args):
        primals_1, saved_0, tangents_1 = args
        args.clear()
        assert_size_stride(primals_1, (4000000, ), (1, ))
        assert_size_stride(saved_0, (1000000, ), (1, ))
        assert_size_stride(tangents_1, (1000000, ), (1, ))
        buf0 = empty_strided_cuda((1000000, ), (1, ), torch.float32)
        triton_poi_fused_mul_0.run(saved_0, tangents_1, buf0, 1000000, stream=stream0)
        del saved_0
        buf1 = torch.ops.aten.topk.default(buf0, 10)
        buf2 = buf1[0]
        assert_size_stride(buf2, (10, ), (1, ), 'torch.ops.aten.topk.default')
        buf3 = buf0; del buf0  # reuse
        triton_poi_fused_add_1.run(buf3, 1000000, stream=stream0)
        del buf3
        return (buf2, )
'''


class ReplayToolTest(unittest.TestCase):
    def run_tool(self, *extra):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "code.py")
            with open(path, "w") as f:
                f.write(WRAPPER)
            report = os.path.join(d, "report.json")
            with open(report, "w") as f:
                json.dump({"memory": {"backward_peak_bytes": 26000000, "input_bytes": 16000000, "peak_at": "mul"}}, f)
            args = [a.replace("REPORT", report) for a in extra]
            return subprocess.run([sys.executable, TOOL, path, "--min-mb", "0", *args],
                                  capture_output=True, text=True, check=True).stdout

    def test_peak_counts_saved_values_and_kernel_outputs_not_parameters(self):
        out = self.run_tool()
        # saved_0 (2 MB bf16) and buf0 (4 MB float32) at the first kernel:
        # 6 MB; the parameter primals_1 (8 MB) and the tangent are left out.
        self.assertIn("peak 0.006 GB at line", out)
        self.assertIn("live: buf0 saved_0", out)

    def test_report_sets_the_model_beside_the_replay(self):
        out = self.run_tool("--report", "REPORT")
        # 26 MB - 16 MB = 10 MB against the replay's 6 MB.
        self.assertIn("model: backward peak less inputs 0.010 GB at mul (+4 MB, +66.7% of the replay)", out)

    def test_timeline_lists_each_kernel(self):
        out = self.run_tool("--timeline")
        self.assertIn("triton_poi_fused_mul_0.run", out)
        self.assertIn("torch.ops.aten.topk", out)
        self.assertIn("triton_poi_fused_add_1.run", out)


@unittest.skipIf(tool_binary() is None, NO_TOOL_REASON)
class ReplayCompareTest(unittest.TestCase):
    """replay_compare.py over a folder laid out as pred_memsnap.py leaves it."""

    def test_each_run_sets_the_model_beside_its_backward_replay(self):
        binary = tool_binary()
        with tempfile.TemporaryDirectory() as d:
            runs = {"tiny_mlp/budget_0.5": {"settings": {"activation_memory_budget": 0.5,
                                                         "ban_recompute_reductions": False}},
                    "tiny_mlp/two_graphs": {"settings": {}},
                    "tiny_mlp/bad_setting": {"settings": {"no_such_setting": 1}}}
            with open(os.path.join(d, "memsnap.json"), "w") as f:
                json.dump(runs, f)
            os.makedirs(os.path.join(d, "code"))
            for run, graphs in (("budget_0.5", ["g"]), ("two_graphs", ["g", "g_1"]), ("bad_setting", ["g"])):
                work = os.path.join(d, "work", "tiny_mlp", run)
                os.makedirs(work)
                for g in graphs:
                    subprocess.run([binary, "convert", os.path.join(SAMPLE_GRAPHS, "tiny_mlp.pbtxt"),
                                    os.path.join(work, f"{g}.graph.json")], check=True, capture_output=True)
                with open(os.path.join(d, "code", f"tiny_mlp.{run}.abc.py"), "w") as f:
                    f.write(WRAPPER)
            out = subprocess.run([sys.executable, COMPARE, d, "--binary", binary],
                                 capture_output=True, text=True, check=True).stdout
        # The replay's 6 MB against the model's 0.18 MB (tiny_mlp's backward
        # peak, 327,684 bytes, less its 147,456 bytes of inputs).
        self.assertRegex(out, r"tiny_mlp/budget_0.5 +0.006 +0.000 +-6 +-97.0% +mm_2")
        self.assertRegex(out, r"tiny_mlp/two_graphs +skipped: 2 graphs, a backward wrapper")
        self.assertRegex(out, r"tiny_mlp/bad_setting +skipped: the tool failed: .*unknown setting 'no_such_setting'")

    def test_a_folder_without_memsnap_json_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run([sys.executable, COMPARE, d], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no memsnap.json", r.stderr)


if __name__ == "__main__":
    unittest.main()
