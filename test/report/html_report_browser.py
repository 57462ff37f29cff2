#!/usr/bin/env python3
"""The HTML report (--report-html) rendered by a real browser.

Writes the report of one graph with the tool, opens it in headless Chromium
(--dump-dom: the DOM after the page's script ran) and checks what a user
would see: the peak's node, one saved-values row per saved value, a filter
from the URL fragment that hides rows, a node's explain chain, and that the
page loads nothing from elsewhere. Also checks the --plot-memory SVG parses
as XML and marks the peak.

Exit 0: passed; 1: failed; 77: skipped (no chromium on this machine).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
import xml.etree.ElementTree as ET

SKIP = 77


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def dump_dom(chromium, page, fragment, profile):
    url = "file://" + urllib.parse.quote(os.path.abspath(page)) + fragment
    run = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--user-data-dir=" + profile, "--virtual-time-budget=3000", "--dump-dom", url],
        capture_output=True, text=True, timeout=120)
    if run.returncode != 0 or "<html" not in run.stdout:
        fail(f"chromium could not render {url} (exit {run.returncode}): {run.stderr[-2000:]}")
    return run.stdout


def element(dom, tag, ident):
    """The inner HTML of the element <tag id="ident">, or None."""
    m = re.search(r'<%s[^>]*id="%s"[^>]*>(.*?)</%s>' % (tag, ident, tag), dom, re.S)
    return m.group(1) if m else None


def saved_rows(dom):
    body = element(dom, "tbody", "saved-body")
    if body is None:
        fail("no saved-values table body in the rendered page")
    return body.count("<tr>")


def text(fragment):
    return re.sub(r"<[^>]+>", "", fragment or "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--graph", required=True)
    args = ap.parse_args()
    chromium = browser()
    if chromium is None:
        print("skipped: no chromium (scripts/setup.sh installs it)")
        return SKIP
    with tempfile.TemporaryDirectory() as tmp:
        page, report, svg = (os.path.join(tmp, n) for n in ("report.html", "report.json", "memory.svg"))
        run = subprocess.run([args.tool, "--input", args.graph, "--report-html", page, "--report-json", report,
                              "--plot-memory", svg], capture_output=True, text=True, timeout=120)
        if run.returncode != 0:
            fail(f"the tool failed (exit {run.returncode}): {run.stderr}")
        with open(report) as f:
            r = json.load(f)
        saved = r["saved"]
        peak_at = r["memory"]["peak_at"]
        with open(page, encoding="utf-8") as f:
            source = f.read()
        # Self-contained: no script, style, image or link from elsewhere.
        for pattern in (r"<script[^>]+src=", r"<link[^>]+href=", r"<img[^>]+src=", r"@import", r"url\("):
            if re.search(pattern, source):
                fail(f"the page loads something from elsewhere ({pattern})")
        external = set(re.findall(r"https?://[^\s\"'<>]+", source)) - {"http://www.w3.org/2000/svg"}
        if external:
            fail(f"the page names external addresses: {sorted(external)[:5]}")

        profile = os.path.join(tmp, "profile")
        dom = dump_dom(chromium, page, "", profile)
        peak = element(dom, "span", "peak-node")
        if peak is None or text(peak) != peak_at:
            fail(f"the summary does not name the peak's node {peak_at!r}: {peak!r}")
        rows = saved_rows(dom)
        if rows != len(saved):
            fail(f"the saved-values table has {rows} rows, the report saves {len(saved)} values")
        count = text(element(dom, "span", "saved-count"))
        if not count.startswith(f"{len(saved)} of {len(saved)} "):
            fail(f"the row count reads {count!r}")
        live = element(dom, "table", "live-table")
        if live is None or live.count("<tr>") != min(15, len(r["memory"]["live_at_peak"])) + 1:
            fail("the live-at-peak table does not hold the largest live values (--top 15)")
        if "<svg" not in dom or "class=\"peak\"" not in dom:
            fail("the page holds no timeline with its peak")

        # A filter from the fragment: the first saved value's name, matched in names only.
        name = saved[0]["name"]
        expected = sum(1 for s in saved if name.lower() in s["name"].lower())
        filtered = saved_rows(dump_dom(chromium, page, "#field=name&filter=" + urllib.parse.quote(name), profile))
        if filtered != expected:
            fail(f"filtering names by {name!r} shows {filtered} rows, expected {expected}")
        none = saved_rows(dump_dom(chromium, page, "#filter=no-such-value-anywhere", profile))
        if none != 0 or len(saved) == 0:
            fail(f"a filter matching nothing shows {none} rows")

        # A node's explain chain, rendered on demand.
        explained = element(dump_dom(chromium, page, "#explain=" + urllib.parse.quote(peak_at), profile), "div",
                            "explain-out")
        if explained is None or peak_at not in text(explained) or "placement" not in explained:
            fail(f"explaining {peak_at!r} shows {explained!r}")

        root = ET.parse(svg).getroot()
        titles = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}title")]
        if not any(peak_at in t for t in titles) or not any(peak_at in (t.text or "") for t in root.iter(
                "{http://www.w3.org/2000/svg}text")):
            fail("the timeline SVG does not mark the peak's node")
    print(f"ok: peak {peak_at}, {len(saved)} saved rows, filter {name!r} -> {expected}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
