"""The table of docs/memory_limit.md from memory_limit_training.py's results.
Pure Python 3 standard library.

  python3 python/tools/memory_limit_table.py RESULTS_DIR [RESULTS_DIR ...]

Per model and limit: the tool's plan (measured peak against the limit,
gradients against PyTorch's default plan, step time) and the fastest
activation_memory_budget plan of PyTorch's own partitioner whose measured
peak fits the same limit. A peak fits at most 2% over the limit (allocator
rounding). Gradients agree when the tool plan's largest relative difference
from the default plan is no larger than that of one of PyTorch's own budget
plans (a plan that recomputes changes fusion and so rounding; PyTorch's own
plans show how much), or than the default plan run twice.
"""

import argparse
import json
import os

SLACK = 1.02


def gb(x):
    return f"{x / 1e9:.3f}"


def tool_line(error):
    """The tool's own words from a failed compile: "no plan fits; the
    smallest peak reached is 1.62 GB"."""
    at = error.find("no plan fits")
    if at < 0:
        return "the tool failed"
    return error[at:].split(" (")[0].split("\n")[0]


def rows(d):
    plans = d["plans"]
    knobs = {k: p for k, p in plans.items() if p["kind"] == "pytorch" and "measured_peak" in p}
    noise = max([p["grad_max_rel_vs_default"] for k, p in knobs.items() if k != "pytorch_default"]
                + [d.get("noise", {}).get("grad_max_rel", 0.0)])
    # Budgets the script skipped (its compile-time budget ran out): the
    # comparison is then against part of PyTorch's grid only.
    skipped = sorted(q["budget"] for q in plans.values() if q["kind"] == "pytorch" and "skipped" in q)
    out = []
    for label, p in plans.items():
        if p["kind"] != "tool":
            continue
        limit = p["limit_bytes"]
        fitting = [(q["step_ms"], k) for k, q in knobs.items() if q["measured_peak"] <= SLACK * limit]
        best = min(fitting) if fitting else None
        row = {"model": d["model"], "fraction": d["limits"][label]["fraction"], "limit": limit, "best": best,
               "noise": noise, "skipped": skipped}
        if p.get("no_plan"):
            row["tool"] = None
            row["why"] = tool_line(p.get("error", ""))
        elif "measured_peak" in p:
            row["tool"] = p
        else:
            row["tool"] = None
            row["why"] = "not measured"
        out.append(row)
    return out


def table(all_rows):
    lines = ["| model | limit | tool plan | predicted peak | measured peak | fits | grad diff (PyTorch's own) "
             "| step ms | fastest fitting budget | its step ms | tool vs budget |",
             "| --- | --- | --- | ---: | ---: | --- | --- | ---: | --- | ---: | ---: |"]
    tally = {"cases": 0, "fits": 0, "not_slower_2pct": 0, "faster_5pct": 0, "partial_grid": 0}
    for r in all_rows:
        lim = f"{r['fraction']:.0%} ({gb(r['limit'])} GB)"
        best = r["best"]
        best_txt = (best[1].replace("pytorch_budget_", "").replace("pytorch_default", "1.0 (default)"),
                    f"{best[0]:.2f}") if best else ("none fits", "")
        t = r["tool"]
        tally["cases"] += 1
        if t is None:
            lines.append(f"| {r['model']} | {lim} | {r['why']} | | | | | | {best_txt[0]} | {best_txt[1]} | |")
            if best is None:
                tally["not_slower_2pct"] += 1  # both refuse: not a loss
            continue
        fits = t["measured_peak"] <= SLACK * r["limit"]
        tally["fits"] += fits
        if r["skipped"]:
            # Not counted for or against the tool: the grid is incomplete.
            tally["partial_grid"] += 1
            best_txt = (f"{best_txt[0]} †", best_txt[1])
        chosen = (t.get("plan") or {}).get("chosen") or {}
        family = chosen.get("family", "?")
        delta = ""
        if not fits:
            delta = "does not fit"
        elif best and r["skipped"]:
            delta = f"{t['step_ms'] / best[0] - 1:+.1%} †"
        elif best:
            rel = t["step_ms"] / best[0] - 1
            delta = f"{rel:+.1%}"
            tally["not_slower_2pct"] += rel <= 0.02
            tally["faster_5pct"] += rel <= -0.05
        elif r["skipped"]:
            delta = "only the tool fits †"
        else:
            tally["not_slower_2pct"] += 1
            tally["faster_5pct"] += 1
            delta = "only the tool fits"
        grad = f"{t['grad_max_rel_vs_default']:.1e} ({r['noise']:.1e})"
        lines.append(f"| {r['model']} | {lim} | {family} | {gb(t['predicted_peak'])} | {gb(t['measured_peak'])} | "
                     f"{'yes' if fits else 'NO'} | {grad} | {t['step_ms']:.2f} | {best_txt[0]} | {best_txt[1]} | {delta} |")
    return "\n".join(lines), tally


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="+")
    opts = ap.parse_args()
    all_rows = []
    for d in opts.dirs:
        for name in sorted(os.listdir(d)):
            if name.endswith(".json") and not name.startswith("env"):
                with open(os.path.join(d, name), encoding="utf-8") as f:
                    data = json.load(f)
                if "plans" in data:
                    all_rows += rows(data)
    text, tally = table(all_rows)
    print(text)
    print()
    print(f"Cases: {tally['cases']}; the tool's plan fits (measured): {tally['fits']}; "
          f"no more than 2% slower than the fastest fitting budget: {tally['not_slower_2pct']}; "
          f"at least 5% faster: {tally['faster_5pct']}"
          + (f"; †, part of PyTorch's grid compiled (not counted in the last two): {tally['partial_grid']}"
             if tally["partial_grid"] else "") + ".")


if __name__ == "__main__":
    main()
