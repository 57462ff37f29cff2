#!/usr/bin/env python3
"""Runs one group of the bridge's unit tests for CTest.

  run_suite.py plain   the tests that need only Python (JSON writer, CLI)
  run_suite.py torch   the tests that need torch; exits 77 (CTest's skip
                       code) where torch is not installed, so that the run
                       reports them as skipped, not passed
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
GROUPS = {"plain": ["test_cli", "test_graph_json", "test_replay_tool", "test_prediction_accuracy"], "torch": ["test_torch_bridge"]}
SKIP = 77


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in GROUPS:
        print(__doc__, file=sys.stderr)
        return 2
    group = sys.argv[1]
    sys.path.insert(0, HERE)
    import support
    if group == "torch" and not support.HAVE_TORCH:
        print("SKIP: " + support.NO_TORCH_REASON)
        return SKIP
    suite = unittest.defaultTestLoader.loadTestsFromNames(GROUPS[group])
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if not result.wasSuccessful():
        return 1
    if result.testsRun == len(result.skipped):
        print("SKIP: every test of the group skipped itself")
        return SKIP
    return 0


if __name__ == "__main__":
    sys.exit(main())
