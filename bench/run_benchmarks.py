#!/usr/bin/env python3
"""Benchmarks of partition_tool, printed as Markdown tables (docs/performance.md).

    python3 bench/run_benchmarks.py [--tool build/app/partition_tool]
        [--bench build/bench/pt_bench] [--repeat 7] [--only floors,corpus,stages,flow,scaling,sweep]
        [--scaling-max 1000000] [--cold-wait 8] [--work /tmp/pt_bench]

Tables:
  floors   the speed floors (gpt2_124m, the 96-layer GPT, 10^6 nodes, a
           21-value sweep), each beside PyTorch's partition time recorded
           with the corpus graph, and what a fresh page costs here;
  corpus   whole-process wall time, CPU time and peak RSS for every graph in
           test/corpus/*.pb and test/corpus/scale/*.pb (median of --repeat runs),
           with the tool's read stages (parse + validate), protobuf's parse of
           the same file alone (pt_bench ProtobufParse), a process that only
           reads the file (`partition_tool inspect G`) and the ratios;
  stages   the stage breakdown of the same runs (the JSON report's timings);
  flow     on the identical flow network (PyTorch's *.flow.dimacs): networkx
           minimum_cut (bench/networkx_mincut.py, run with /usr/bin/python3),
           bare LEMON Preflow and partition_tool's solver (pt_bench), and the
           partition_tool solve stage;
  scaling  generated transformer graphs of about 10^4, 10^5 and 10^6 nodes:
           whole-process time and peak RSS, and the fitted exponent; at 10^6
           nodes also both processes on cold memory (--cold-wait);
  sweep    `partition_tool sweep` of 21 values on gpt2_124m, when the command exists.
Timings are medians; the machine's load average is printed with each table.
"""
import argparse
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load():
    return "load average %.2f %.2f %.2f" % os.getloadavg()


def machine():
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    mem_kb = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal"):
                mem_kb = int(line.split()[1])
    return "%d cores (nproc), %s, %.1f GB RAM, %s" % (os.cpu_count(), model, mem_kb / 1e6, platform.platform())


def measured(make_cmd, repeat, between=None):
    """Medians of wall time, CPU time (user+sys), peak RSS and system time
    over `repeat` runs of make_cmd(k) (a list, or a function of the run
    index). `between`, when given, is called after each run (to interleave
    another measurement with these, in the same phase of the machine)."""
    walls, cpus, rss, syss = [], [], [], []
    for k in range(repeat):
        cmd = make_cmd(k) if callable(make_cmd) else make_cmd
        if k > 0 and between:
            between()
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        walls.append(time.perf_counter() - start)
        err = proc.stderr.read().decode()
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit("failed: %s\n%s" % (" ".join(cmd), err))
        cpus.append(usage.ru_utime + usage.ru_stime)
        rss.append(usage.ru_maxrss / 1024.0)
        syss.append(usage.ru_stime)
    return statistics.median(walls), statistics.median(cpus), statistics.median(rss), statistics.median(syss)


def cold_pairs(commands, repeat, wait):
    """Median wall and system seconds of each command in `commands`, each
    run `repeat` times after `wait` seconds of idling, alternating. On a VM
    that hands freed memory back to its host (free page reporting, about 2 s
    after a free on the measured one), a process started right after another
    one runs on memory the host still backs, and one started later faults
    every page in again. The interleaved medians of the tables let the
    read-only process reuse what the partition run before it freed, and not
    the other way round; here both start cold."""
    walls = [[] for _ in commands]
    syss = [[] for _ in commands]
    for _ in range(repeat):
        for i, cmd in enumerate(commands):
            time.sleep(wait)
            wall, _, _, sys_s = measured(cmd, 1)
            walls[i].append(wall)
            syss[i].append(sys_s)
    return [(statistics.median(w), statistics.median(t)) for w, t in zip(walls, syss)]


def ms(seconds):
    return "%.1f" % (seconds * 1e3) if seconds < 10 else "%.0f" % (seconds * 1e3)


def corpus_graphs():
    graphs = []
    for sub in ("test/corpus", "test/corpus/scale"):
        d = os.path.join(ROOT, sub)
        graphs += [os.path.join(sub, f) for f in sorted(os.listdir(d)) if f.endswith(".pb")]
    return graphs


def report_facts(path):
    """The `timings` and `nodes` of a JSON report, read in a separate Python
    process: a 10^6-node report is ~500 MB of Python objects, and every
    process this harness starts afterwards would report that as its peak RSS
    (Linux carries the parent's high-water mark through fork and exec into
    the child's ru_maxrss)."""
    code = ("import json, sys; r = json.load(open(sys.argv[1])); "
            "print(json.dumps({'timings': r['timings'], 'nodes': r['nodes']}))")
    out = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def protobuf_parse_seconds(bench, graphs):
    """Median seconds protobuf takes to parse each .pb (pt_bench's
    ProtobufParse: graph_io's read_graph, in a process of its
    own), keyed by path; {} without pt_bench. Iterations after the first
    reuse memory the process already touched: a warm parse, the lower bound
    of reading the input, where the tool's one run pays the first touch of
    its memory."""
    if not bench or not os.path.exists(bench):
        return {}
    out = {}
    for graph in graphs:
        path = os.path.join(ROOT, graph)
        name = os.path.basename(graph)[:-len(".pb")]
        env = dict(os.environ)
        if not graph.startswith("test/corpus/"):  # pt_bench registers the corpus itself
            env["PT_BENCH_GRAPHS"] = path
        run = subprocess.run([bench, "--benchmark_filter=^ProtobufParse/%s/" % name, "--benchmark_format=json",
                              "--benchmark_repetitions=3", "--benchmark_report_aggregates_only=true"],
                             capture_output=True, text=True, cwd=ROOT, env=env)
        if run.returncode != 0:
            continue
        for b in json.loads(run.stdout)["benchmarks"]:
            if b.get("aggregate_name") == "median" and graph not in out:
                out[graph] = b["real_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[b["time_unit"]]
    return out


def partition_runs(tool, graph, repeat, work):
    """Whole-process medians (wall, CPU, peak RSS), the median of each
    stage's timing, one report's facts, the median system time, and the
    median wall time of `partition_tool inspect G` (a process that reads
    and checks the graph, prints a summary, and nothing more), its runs
    interleaved with the partition's."""
    base = os.path.join(work, os.path.basename(graph))
    reports = [base + ".%d.json" % k for k in range(repeat)]
    read_only = []

    def inspect():
        read_only.append(measured([tool, "inspect", os.path.join(ROOT, graph)], 1)[0])

    wall, cpu, rss, sys_s = measured(
        lambda k: [tool, "--input", os.path.join(ROOT, graph), "--report-json", reports[k]], repeat, inspect)
    inspect()
    samples = [report_facts(r) for r in reports]
    stages = {key: statistics.median(s["timings"][key] for s in samples) for key in samples[0]["timings"]}
    return wall, cpu, rss, stages, samples[0], sys_s, statistics.median(read_only)


def table_corpus(args):
    print("### Whole process on the corpus (`partition_tool --input G --report-json R`)\n")
    print("%s; %s; median of %d runs.\n" % (machine(), load(), args.repeat))
    print("Read = the tool's parse and validate stages (the file to its indexed graph); protobuf parse = "
          "the same file parsed into protobuf's messages alone, in a process of its own (pt_bench, the parse "
          "repeated in that process: warm, its memory reused); read-only "
          "process = `partition_tool inspect G`, the whole process of reading and checking the same file (and "
          "printing its summary), start-up included as in the whole job.\n")
    print("| graph | nodes | wall ms | CPU ms | peak RSS MB | read ms | protobuf parse ms | read-only process ms | "
          "whole / read | whole / protobuf parse | whole / read-only process |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    results = {}
    graphs = corpus_graphs()
    protobuf = protobuf_parse_seconds(args.bench, graphs)
    for graph in graphs:
        wall, cpu, rss, stages, report, _, read_only = partition_runs(args.tool, graph, args.repeat, args.work)
        results[graph] = (wall, cpu, rss, stages, report)
        read = stages.get("parse", float("nan")) + stages.get("validate", float("nan"))
        pb = protobuf.get(graph, float("nan"))
        print("| %s | %d | %s | %s | %.1f | %s | %s | %s | %.1f | %.1f | %.1f |" % (
            graph.replace("test/corpus/", ""), report["nodes"]["input"], ms(wall), ms(cpu), rss, ms(read), ms(pb),
            ms(read_only), wall / read if read > 0 else float("nan"), wall / pb if pb > 0 else float("nan"),
            wall / read_only))
    print("\n(%s at the end)\n" % load())
    return results


def table_stages(results):
    print("### Stage breakdown (median seconds of each stage, from the JSON report's `timings`, in ms)\n")
    keys = []
    for _, (_, _, _, stages, _) in results.items():
        for k in stages:
            if k not in keys:
                keys.append(k)
    print("| graph | " + " | ".join(keys) + " | sum |")
    print("| --- | " + " | ".join("---:" for _ in keys) + " | ---: |")
    for graph, (_, _, _, stages, _) in results.items():
        row = ["%.2f" % (stages[k] * 1e3) if k in stages else "" for k in keys]
        print("| %s | %s | %.2f |" % (graph.replace("test/corpus/", ""), " | ".join(row), sum(stages.values()) * 1e3))
    print()


def table_flow(args, results):
    print("### Minimum cut on the identical flow network (PyTorch's own `*.flow.dimacs`)\n")
    print("%s; networkx median of 3 runs, the others of Google Benchmark's repetitions.\n" % load())
    networks = []
    for sub in ("test/corpus", "test/corpus/scale"):
        d = os.path.join(ROOT, sub)
        networks += [os.path.join(sub, f) for f in sorted(os.listdir(d)) if f.endswith(".flow.dimacs")]
    bench = {}
    if args.bench and os.path.exists(args.bench):
        out = subprocess.run([args.bench, "--benchmark_filter=Flow", "--benchmark_format=json",
                              "--benchmark_repetitions=%d" % args.repeat, "--benchmark_report_aggregates_only=true"],
                             check=True, capture_output=True, text=True, cwd=ROOT).stdout
        for b in json.loads(out)["benchmarks"]:
            if b.get("aggregate_name") == "median":
                bench[b["run_name"]] = b["real_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[b["time_unit"]]
    print("| network | vertices / arcs | networkx minimum_cut ms | LEMON Preflow ms | partition_tool min cut ms | "
          "partition_tool solve stage ms |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for net in networks:
        name = os.path.basename(net).replace(".flow.dimacs", "")
        nx = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "bench/networkx_mincut.py"), os.path.join(ROOT, net),
                             "--repeat", "3"], capture_output=True, text=True)
        fields = dict(kv.split("=") for kv in nx.stdout.split()[1:]) if nx.returncode == 0 else {}
        graph = next((g for g in results if os.path.basename(g) == name + ".pb"), None)
        solve = results[graph][3].get("solve") if graph else None
        print("| %s | %s / %s | %s | %s | %s | %s |" % (
            name, fields.get("vertices", "?"), fields.get("arcs", "?"),
            ms(float(fields["median_s"])) if fields else "n/a (networkx missing)",
            "%.3f" % (bench["FlowLemonPreflow/" + name] * 1e3) if "FlowLemonPreflow/" + name in bench else "n/a",
            "%.3f" % (bench["FlowMinCut/" + name] * 1e3) if "FlowMinCut/" + name in bench else "n/a",
            "%.3f" % (solve * 1e3) if solve is not None else ""))
    print()


def table_scaling(args):
    print("### Scaling over generated transformer graphs (`partition_tool generate`)\n")
    print("%s; median of %d runs (%d at 10^6 nodes and above).\n" % (load(), args.repeat, max(3, args.repeat // 2)))
    rows, cold = [], []
    per_layer, base = 236, 2 + 150  # nodes per layer and fixed part (default sizes), see lib/generate
    target = 10_000
    while target <= args.scaling_max:
        layers = max(1, round((target - base) / per_layer))
        path = os.path.join(args.work, "transformer_%d.pb" % layers)
        if not os.path.exists(path):
            subprocess.run([args.tool, "generate", "--layers", str(layers), "-o", path], check=True,
                           stdout=subprocess.DEVNULL)
        wall, cpu, rss, stages, report, sys_s, read_only = partition_runs(
            args.tool, path, args.repeat if target < 1_000_000 else max(3, args.repeat // 2), args.work)
        rows.append((report["nodes"]["input"], layers, wall, cpu, rss, stages, sys_s,
                     protobuf_parse_seconds(args.bench, [path]).get(path, float("nan")), read_only))
        if target >= 1_000_000 and args.cold_wait > 0:
            cold.append((report["nodes"]["input"], cold_pairs(
                [[args.tool, "--input", path, "--report-json", os.path.join(args.work, "cold.json")],
                 [args.tool, "inspect", path]], 3, args.cold_wait)))
        target *= 10
    # System time apart: on a VM it is mostly the kernel clearing fresh
    # memory, and it moves with the host more than with the tool.
    print("| nodes | layers | wall s | CPU s | of it system s | peak RSS MB | read s | protobuf parse s | "
          "read-only process s | solve s | whole / read | whole / protobuf parse | whole / read-only process |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for n, layers, wall, cpu, rss, t, sys_s, pb, read_only in rows:
        read = t["parse"] + t["validate"]
        print("| %d | %d | %.3f | %.3f | %.3f | %.0f | %.3f | %.3f | %.3f | %.4f | %.1f | %.1f | %.1f |" % (
            n, layers, wall, cpu, sys_s, rss, read, pb, read_only, t["solve"], wall / read, wall / pb,
            wall / read_only))
    if len(rows) >= 2:
        (n0, _, w0, c0, *_), (n1, _, w1, c1, *_) = rows[0], rows[-1]
        print("\nFitted exponent between %d and %d nodes: wall %.3f, CPU %.3f (time ~ n^k, k = log(t1/t0) / log(n1/n0))."
              % (n0, n1, math.log(w1 / w0) / math.log(n1 / n0), math.log(c1 / c0) / math.log(n1 / n0)))
    for n, ((whole, whole_sys), (read_only, read_only_sys)) in cold:
        print("\nBoth on cold memory at %d nodes (%.0f s idle before each run, so that the host has taken back what "
              "the run before freed; median of 3 each, alternating): the whole job %.3f s (system %.3f s), the "
              "read-only process %.3f s (system %.3f s): whole / read-only process %.1f." % (
                  n, args.cold_wait, whole, whole_sys, read_only, read_only_sys, whole / read_only))
    print()


def table_reports(args):
    """Peak RSS of the main command with each report, from 10^5 nodes to
    --scaling-max: what a report adds must stay in proportion to the graph
    and to the report's own size (no document model, no extra copies)."""
    print("### Report memory\n")
    print("%s; median of 3 runs each.\n" % load())
    print("| nodes (about) | outputs | peak RSS MB | over `-o` alone MB | report MB |")
    print("| ---: | --- | ---: | ---: | ---: |")
    target = 100_000
    while target <= args.scaling_max:
        layers = max(1, round(target / 236))
        path = os.path.join(args.work, "report_%d.pb" % layers)
        if not os.path.exists(path):
            subprocess.run([args.tool, "generate", "--layers", str(layers), "--hidden", "256", "--heads", "4", "--seq",
                            "128", "-o", path], check=True, stdout=subprocess.DEVNULL)
        out = os.path.join(args.work, "report_out")
        base = None
        for flag in ["", "--report-json", "--report-md", "--report-html"]:
            cmd = [args.tool, "--input", path, "-o", out + ".pb", "-q"] + ([flag, out + ".report"] if flag else [])
            _, _, rss, _ = measured(cmd, 3)
            base = rss if base is None else base
            size = os.path.getsize(out + ".report") / 1e6 if flag else 0
            print("| %d | `-o`%s | %.0f | %.0f | %.1f |" % (layers * 236, " " + flag if flag else "", rss, rss - base,
                                                           size))
        target *= 10
    print()


def table_sweep(args):
    help_text = subprocess.run([args.tool, "--help"], capture_output=True, text=True).stdout
    if "sweep" not in help_text:
        print("### Sweep\n\n`partition_tool sweep` is not built yet.\n")
        return
    graph = os.path.join(ROOT, "test/corpus/gpt2_124m.pb")
    values = ",".join("%.2f" % (1.0 + 0.01 * k) for k in range(21))
    cmd = [args.tool, "sweep", "--input", graph, "--key", "dist_from_bw_base", "--values", values]
    wall, cpu, rss, _ = measured(cmd, args.repeat)
    print("### Sweep of 21 values on gpt2_124m\n")
    print("`%s`\n\n%s; median of %d runs: wall %.3f s, CPU %.3f s, peak RSS %.0f MB.\n" % (
        " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd), load(), args.repeat, wall, cpu,
        rss))


def fresh_page_microseconds(pages=4096):
    """Microseconds the kernel takes to hand a process one fresh 4 KiB page
    (an anonymous mapping, one byte written per page; best of 5): what every
    megabyte a run touches for the first time costs on this machine. In a
    child process, so that its pages do not count in the peak RSS of the
    processes started after it."""
    code = ("import mmap, time\n"
            "best = 1e9\n"
            "for _ in range(5):\n"
            "    m = mmap.mmap(-1, %d * 4096)\n"
            "    t = time.perf_counter()\n"
            "    for k in range(%d):\n"
            "        m[k * 4096] = 1\n"
            "    best = min(best, time.perf_counter() - t)\n"
            "    m.close()\n"
            "print(best / %d * 1e6)\n" % (pages, pages, pages))
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


def pytorch_seconds(ref):
    """PyTorch 2.11's own partition time of the default setting, as recorded
    with the corpus graph (min_cut_rematerialization_partition, on the
    machine that captured it)."""
    with open(os.path.join(ROOT, ref)) as f:
        runs = json.load(f)["runs"]
    return next((r["partition_s"] for r in runs if r.get("config") == "default" and "partition_s" in r), None)


def table_floors(args):
    """The four speed floors, each beside PyTorch's figure for the same job."""
    print("### Speed floors\n")
    print("%s; median of %d runs (3 at 10^6 nodes); fresh 4 KiB page: %.2f us.\n" % (
        load(), args.repeat, fresh_page_microseconds()))
    out = os.path.join(args.work, "floor_out.pb")
    big = os.path.join(args.work, "transformer_4236.pb")
    if not os.path.exists(big):
        subprocess.run([args.tool, "generate", "--layers", "4236", "-o", big], check=True, stdout=subprocess.DEVNULL)
    values = ",".join("%.2f" % (1.0 + 0.01 * k) for k in range(21))
    gpt2 = os.path.join(ROOT, "test/corpus/gpt2_124m.pb")
    torch_gpt2 = pytorch_seconds("test/corpus/gpt2_124m.ref.json")
    cases = [
        ("process start (`--version`)", [args.tool, "--version"], args.repeat, None, None),
        ("gpt2_124m, `-i G -o P.pb`", [args.tool, "-q", "-i", gpt2, "-o", out], args.repeat, 0.010,
         torch_gpt2),
        ("gpt2_l96, `-i G -o P.pb`", [args.tool, "-q", "-i", os.path.join(ROOT, "test/corpus/scale/gpt2_l96.pb"),
                                      "-o", out], args.repeat, 0.060,
         pytorch_seconds("test/corpus/scale/gpt2_l96.ref.json")),
        ("generated, 4,236 layers (about 10^6 nodes), `-i G -o P.pb`", [args.tool, "-q", "-i", big, "-o", out], 3, 5.0, None),
        ("sweep of 21 `dist_from_bw_base` values on gpt2_124m",
         [args.tool, "sweep", "--input", gpt2, "--key", "dist_from_bw_base", "--values", values], args.repeat, 0.3,
         21 * torch_gpt2 if torch_gpt2 else None),
    ]
    print("| case | wall s | CPU s | peak RSS MB | floor s | holds | PyTorch s |")
    print("| --- | ---: | ---: | ---: | ---: | --- | ---: |")
    for label, cmd, repeat, floor, torch_s in cases:
        wall, cpu, rss, _ = measured(cmd, repeat)
        holds = "" if floor is None else ("yes" if wall <= floor and (floor < 1 or rss <= 2000) else "**no**")
        # A child's ru_maxrss starts at this harness's own high-water mark
        # (see report_facts): a figure at or below it says only "no more".
        own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
        rss_text = "%.0f" % rss if rss > own + 1 else "at most %.0f" % own
        print("| %s | %.4f | %.4f | %s | %s | %s | %s |" % (
            label, wall, cpu, rss_text, "" if floor is None else "%g" % floor, holds,
            "" if torch_s is None else "%.2f" % torch_s))
    print("\nThe 10^6-node floor also asks for at most 2 GB of peak RSS. PyTorch's figures are the partition "
          "times recorded with the corpus graphs (the sweep: 21 times gpt2_124m's), not measured here.\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tool", default=os.path.join(ROOT, "build/app/partition_tool"))
    p.add_argument("--bench", default=os.path.join(ROOT, "build/bench/pt_bench"))
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--only", default="floors,corpus,stages,flow,scaling,reports,sweep")
    p.add_argument("--scaling-max", type=int, default=1_000_000)
    p.add_argument("--cold-wait", type=float, default=8.0,
                   help="seconds idle before each cold run at 10^6 nodes and above (0: no cold runs)")
    p.add_argument("--work", default="/tmp/pt_bench")
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    only = set(args.only.split(","))
    print("Machine: %s\n" % machine())
    results = {}
    if "floors" in only:
        table_floors(args)
    if only & {"corpus", "stages", "flow"}:
        results = table_corpus(args)
    if "stages" in only:
        table_stages(results)
    if "flow" in only:
        table_flow(args, results)
    if "scaling" in only:
        table_scaling(args)
    if "reports" in only:
        table_reports(args)
    if "sweep" in only:
        table_sweep(args)


if __name__ == "__main__":
    main()
