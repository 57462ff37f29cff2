#!/usr/bin/env python3
"""Cross-check partition_tool's memory-budget decisions (docs/design.md section 5).

An independent re-derivation, from the graph JSON and the JSON report's
`budget` object, of everything section 5 of docs/design.md fixes once the solves'
cuts are known: the input size (min), the default cut's size (max), the stage
of the cascade, the knapsack items' sizes, normalized memories, order and
matmul/convolution FLOPs, and the knapsack itself (`dp` with float32
arithmetic, `greedy`), re-solved here and compared with the tool's kept flags.
The min cuts themselves are not re-solved (the corpus parity tests cover
them); each solve's saved set is taken from the report.

Runs are random (deterministic from --seed): a corpus graph, a budget in
(0, 1) (plus the edge cases 0, 1, 0.999 and 0.001), a solver and random ban
settings. Python 3 standard library only.

Exit codes: 0 all runs agree; 1 a mismatch, a tool that cannot be run or
fails, or a report without its `budget` object.
"""

import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

from budget_model import Graph, dp_knapsack, greedy_knapsack

GRAPHS = ["gpt2_124m", "gpt2_dropout_l2", "linear_ce", "mlp_dynamic", "resnet18", "sac_mlp"]
EDGE_BUDGETS = [0.0, 1.0, 0.999, 0.001]
SOLVERS = ["dp", "greedy"]
DIST_BASES = ["1.0", "1.1", "1.2", "1.5"]
BOOL_KEYS = ["ban_recompute_reductions", "ban_recompute_not_in_allowlist", "recompute_views"]
REL_TOL = 1e-12

# ---- one run --------------------------------------------------------------

def close(a, b):
    if a == b:
        return True
    if a is None or b is None:
        return False
    return abs(a - b) <= REL_TOL * max(abs(a), abs(b))


class Check:
    def __init__(self):
        self.errors = []
        self.notes = []

    def expect(self, ok, msg):
        if not ok:
            self.errors.append(msg)
        return ok


def check_run(G, b, solver, rep):
    c = Check()
    final_saved = list(rep.get("saved_values", [])) + list(rep.get("saved_sym_nodes", []))
    top_solves = rep.get("solves", [])
    bud = rep.get("budget")
    info = {"stage": rep.get("budget_stage", ""), "items": 0}

    if b == 1.0:
        c.expect(bud is None, "budget == 1 but the report has a budget object")
        c.expect(rep.get("budget_stage", "") == "", "budget == 1: budget_stage %r, expected ''" % rep.get("budget_stage"))
        c.expect(len(top_solves) == 1, "budget == 1: %d solves, expected 1" % len(top_solves))
        info["stage"] = "(none)"
        return c, info
    if not c.expect(isinstance(bud, dict), "budget < 1 but the report's budget object is %r" % bud):
        return c, info

    c.expect(bud.get("budget") == b, "budget %r, expected %r" % (bud.get("budget"), b))
    c.expect(bud.get("stage") == rep.get("budget_stage"),
             "budget.stage %r != budget_stage %r" % (bud.get("stage"), rep.get("budget_stage")))
    stage = bud.get("stage")
    solves = [s.get("saved", []) for s in bud.get("solves", [])]
    items = bud.get("items", [])
    info["items"] = len(items)
    c.expect(len(solves) == len(top_solves),
             "budget.solves has %d cuts, the report's solves %d cut values" % (len(solves), len(top_solves)))
    for k, s in enumerate(solves):
        unknown = [x for x in s if x not in G.nodes]
        c.expect(not unknown, "solve %d saves unknown nodes %s" % (k, unknown[:3]))
        solves[k] = [x for x in s if x in G.nodes]

    min_gb = G.input_bytes / 1e9

    def subset_of(allowed, what):
        extra = [x for x in final_saved if x not in allowed]
        c.expect(not extra, "final saved set has %s outside %s" % (extra[:3], what))

    if b == 0.0:
        # Budget 0 decides before any size is measured: min_gb and max_gb
        # are 0 ("not computed") or, for min_gb, the inputs' size.
        c.expect(bud.get("min_gb") in (0, min_gb) or close(bud.get("min_gb"), min_gb),
                 "budget 0: min_gb %r, expected 0 or %r" % (bud.get("min_gb"), min_gb))
        c.expect(stage == "inputs_only", "budget 0: stage %r, expected inputs_only" % stage)
        c.expect(len(solves) == 0 and len(top_solves) == 0, "budget 0: %d solves, expected 0" % len(top_solves))
        c.expect(not items, "budget 0: %d knapsack items, expected none" % len(items))
        subset_of(G.input_set, "the inputs")
        return c, info

    c.expect(close(bud.get("min_gb"), min_gb), "min_gb %r, expected %r" % (bud.get("min_gb"), min_gb))
    if not c.expect(len(solves) >= 1, "no solve reported"):
        return c, info
    max_gb = G.set_bytes(solves[0]) / 1e9
    c.expect(close(bud.get("max_gb"), max_gb), "max_gb %r, expected %r" % (bud.get("max_gb"), max_gb))

    def ratio(k):
        return (G.set_bytes(solves[k]) / 1e9 - min_gb) / (max_gb - min_gb)

    # The cascade.
    want_solves = None
    chosen = None
    if max_gb <= min_gb:
        want, want_solves, chosen = "default", 1, 0
    elif len(solves) < 2:
        c.expect(False, "stage %r with %d solves: the more aggressive solve is missing" % (stage, len(solves)))
        return c, info
    elif ratio(1) < b:
        want, want_solves, chosen = "more_aggressive", 2, 1
    elif len(solves) < 3:
        c.expect(False, "more aggressive ratio %r >= %r but no aggressive solve" % (ratio(1), b))
        return c, info
    elif ratio(2) < b:
        want, want_solves, chosen = "aggressive", 3, 2
    elif items:
        want, want_solves, chosen = "knapsack", 4, 3
    else:
        want, want_solves, chosen = "knapsack_empty", 3, None
    c.expect(stage == want, "stage %r, expected %r%s" % (
        stage, want, "" if len(solves) < 3 else " (ratios %r, %r)" % (ratio(1), ratio(2))))
    c.expect(len(solves) == want_solves, "%d solves, expected %d for %s" % (len(solves), want_solves, want))
    if want not in ("knapsack", "knapsack_empty"):
        c.expect(not items, "stage %s with %d knapsack items" % (want, len(items)))
    if chosen is not None and chosen < len(solves):
        subset_of(set(solves[chosen]), "solve %d's cut" % chosen)
    elif want == "knapsack_empty":
        subset_of(G.input_set | G.must_save, "the inputs and MUST_SAVE nodes")
    if want != "knapsack" or not items:
        return c, info

    # The knapsack items.
    names = [it.get("node") for it in items]
    if not c.expect(all(n in G.nodes for n in names), "unknown item nodes %s" % [n for n in names if n not in G.nodes][:3]):
        return c, info
    c.expect(len(set(names)) == len(names), "duplicate knapsack items")
    span = max_gb - min_gb
    memories, runtimes = [], []
    for it in items:
        n = it["node"]
        size = G.size[n]
        c.expect(it.get("bytes") == size, "item %s: bytes %r, expected %r" % (n, it.get("bytes"), size))
        mem = (size / 1e9) / span
        c.expect(close(it.get("memory"), mem), "item %s: memory %r, expected %r" % (n, it.get("memory"), mem))
        memories.append(mem)
        c.expect(n not in G.input_set, "item %s is a graph input" % n)
        c.expect(n not in G.must_save, "item %s is MUST_SAVE" % n)
        if G.nontensor_input:
            c.expect("tensor" in (G.nodes[n].get("val") or {}),
                     "item %s is not a tensor although an input is non-tensor" % n)
        r = it.get("runtime")
        fl = G.flops(n)
        if fl is not None:
            c.expect(r == max(fl, 1), "item %s (%s): runtime %r, expected %d FLOPs" % (n, G.nodes[n]["target"], r, fl))
        else:
            c.expect(isinstance(r, (int, float)) and r >= 1 and r == math.floor(r),
                     "item %s: runtime %r is not an integer >= 1" % (n, r))
        runtimes.append(r if isinstance(r, (int, float)) else 1)
    keys = [(-G.size[n], G.order[n]) for n in names]
    for i in range(1, len(keys)):
        if keys[i - 1] > keys[i]:
            c.expect(False, "items not sorted by size descending, graph order on ties: %s before %s" % (names[i - 1], names[i]))
            break

    kept = (dp_knapsack if solver == "dp" else greedy_knapsack)(memories, runtimes, b)
    tool_kept = [bool(it.get("kept")) for it in items]
    for n, mine, theirs in zip(names, kept, tool_kept):
        if mine != theirs:
            c.expect(False, "%s knapsack: item %s kept=%s, expected %s (%d of %d items differ)" % (
                solver, n, theirs, mine, sum(a != t for a, t in zip(kept, tool_kept)), len(items)))
            break

    # Items the knapsack did not keep are recomputed.
    saved = set(final_saved)
    for n, k in zip(names, tool_kept):
        if not k and n in saved and n not in G.input_set:
            c.expect(False, "item %s not kept by the knapsack but in the final saved set" % n)
            break
    return c, info


# ---- driver ---------------------------------------------------------------

def plan_runs(n, seed):
    rng = random.Random(seed)
    runs = []
    order = []
    for i in range(n):
        if not order:
            order = GRAPHS[:]
            rng.shuffle(order)
        graph = order.pop()
        if i < len(EDGE_BUDGETS):
            b = EDGE_BUDGETS[i]
        else:
            b = 0.0
            while b == 0.0:
                b = rng.random()
        sets = {
            "activation_memory_budget_solver": rng.choice(SOLVERS),
            "dist_from_bw_base": rng.choice(DIST_BASES),
        }
        for k in BOOL_KEYS:
            sets[k] = rng.choice(["true", "false"])
        runs.append((graph, b, sets))
    return runs


def run_tool(tool, args, timeout=120):
    return subprocess.run([tool] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=timeout)


def fail(msg):
    # A tool that cannot be run, or a corpus graph that is missing, is a
    # failure: CTest passes the freshly built tool and the repository's own
    # corpus, so neither can be absent in a working build.
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool", required=True, help="the partition_tool binary")
    ap.add_argument("--graphs", required=True, help="directory with the corpus <model>.pb graphs")
    ap.add_argument("--runs", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", help="keep the converted graphs and reports in this directory")
    opts = ap.parse_args()
    t0 = time.time()

    if not (os.path.isfile(opts.tool) and os.access(opts.tool, os.X_OK)):
        fail("no executable tool at %s" % opts.tool)
    work = opts.keep or tempfile.mkdtemp(prefix="budget_crosscheck.")
    os.makedirs(work, exist_ok=True)
    try:
        graphs = {}
        for g in GRAPHS:
            src = os.path.join(opts.graphs, g + ".pb")
            if not os.path.isfile(src):
                fail("missing graph %s" % src)
            dst = os.path.join(work, g + ".json")
            try:
                p = run_tool(opts.tool, ["-q", "convert", src, dst])
            except OSError as e:
                fail("cannot run %s: %s" % (opts.tool, e))
            if p.returncode != 0:
                fail("%s convert %s failed (%d): %s" % (opts.tool, src, p.returncode, p.stderr.strip()[:300]))
            graphs[g] = Graph(g, dst)

        fails = 0
        stages = {}
        for i, (g, b, sets) in enumerate(plan_runs(opts.runs, opts.seed)):
            out = os.path.join(work, "report_%03d.json" % i)
            # The model is PyTorch 2.11's cascade, random seeds included.
            cmd = ["-q", "--input", os.path.join(opts.graphs, g + ".pb"),
                   "--set", "activation_memory_budget=%r" % b, "--set", "ban_recompute_rng_seeds=false"]
            for k, v in sets.items():
                cmd += ["--set", "%s=%s" % (k, v)]
            cmd += ["--report-json", out]
            desc = "%-15s b=%-20r %s" % (g, b, " ".join(
                "%s=%s" % (k.replace("activation_memory_budget_", "").replace("ban_recompute_", "ban_"), v)
                for k, v in sets.items()))
            p = run_tool(opts.tool, cmd)
            if p.returncode != 0:
                fails += 1
                print("run %3d %s  FAIL: exit %d: %s" % (i, desc, p.returncode, p.stderr.strip()[:300]))
                print("         repro: %s %s" % (opts.tool, " ".join(cmd[:-2])))
                continue
            with open(out) as f:
                rep = json.load(f)
            if "budget" not in rep:
                fail("the tool's JSON report has no 'budget' object (older build?)")
            c, info = check_run(graphs[g], b, sets["activation_memory_budget_solver"], rep)
            stages[info["stage"]] = stages.get(info["stage"], 0) + 1
            status = "OK" if not c.errors else "FAIL: " + c.errors[0]
            if c.errors:
                fails += 1
            print("run %3d %s  stage=%s items=%d  %s" % (i, desc, info["stage"], info["items"], status))
            if c.errors:
                for e in c.errors[1:5]:
                    print("         also: " + e)
                print("         repro: %s %s --report-json -" % (opts.tool, " ".join(cmd[:-2])))
        # Section 5: a budget outside [0, 1] is an error (exit 2), not a clamp.
        for b in (-0.25, 1.5):
            cmd = ["-q", "--input", os.path.join(opts.graphs, "linear_ce.pb"),
                   "--set", "activation_memory_budget=%r" % b, "--report-json", os.devnull]
            p = run_tool(opts.tool, cmd)
            ok = p.returncode == 2
            print("range   linear_ce       b=%-20r expect exit 2  %s" % (b, "OK" if ok else "FAIL: exit %d" % p.returncode))
            if not ok:
                fails += 1
        elapsed = time.time() - t0
        print("summary: %d runs + 2 range checks, %d passed, %d failed; stages %s; %.1f s" % (
            opts.runs, opts.runs + 2 - fails, fails,
            ", ".join("%s %d" % kv for kv in sorted(stages.items())), elapsed))
        return 1 if fails else 0
    finally:
        if not opts.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
