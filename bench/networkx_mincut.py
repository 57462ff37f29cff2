#!/usr/bin/env python3
"""Time networkx's minimum_cut on a DIMACS max-flow network, as PyTorch's
partitioner calls it (nx.minimum_cut(G, "source", "sink"), default flow
function preflow_push, infinite arcs as math.inf).

    python3 bench/networkx_mincut.py NETWORK.dimacs [--repeat N]

Prints one line: `<file> vertices=<n> arcs=<m> cut=<value> median_s=<t>`.
Needs networkx (Debian: apt-get install -y python3-networkx, then run with
/usr/bin/python3).
"""
import argparse
import math
import statistics
import time

import networkx as nx


def read_dimacs(path):
    """Returns (graph, source, sink); the infinite number (2^60, or the one a
    'c infinite capacity written as N' comment names) becomes math.inf."""
    infinite = 1 << 60
    g = nx.DiGraph()
    source = sink = None
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "c" and "infinite capacity written as" in line:
                infinite = int(line.rsplit(None, 1)[-1])
            elif parts[0] == "n":
                if parts[2] == "s":
                    source = int(parts[1])
                else:
                    sink = int(parts[1])
            elif parts[0] == "a":
                cap = int(parts[3])
                g.add_edge(int(parts[1]), int(parts[2]), capacity=math.inf if cap >= infinite else cap)
    return g, source, sink


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("network")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    g, s, t = read_dimacs(args.network)
    times = []
    value = None
    for _ in range(args.repeat):
        start = time.perf_counter()
        value, _ = nx.minimum_cut(g, s, t)
        times.append(time.perf_counter() - start)
    print(f"{args.network} vertices={g.number_of_nodes()} arcs={g.number_of_edges()} "
          f"cut={int(value)} median_s={statistics.median(times):.6f}")


if __name__ == "__main__":
    main()
