#!/usr/bin/env python3
"""Turn `make bench` output into Markdown tables for the lecture notes (one table per bench
section). Usage: scripts/bench2md.py bench.log LAB   e.g. 01_coalescing. Rows are kept as the bench
printed them; --every N keeps the first, every Nth and the last row of sections longer than 12."""
import re, sys

def sections(lines, lab):
    inside, title, rows = False, None, []
    for line in lines:
        if line.startswith("== "):
            if inside and rows:
                yield title, rows
            inside, title, rows = line[3:].startswith(lab), None, []
            continue
        if not inside:
            continue
        m = re.match(r"\s+(\S+)\s+(.+?)\s{2,}(\S+)\s+(ok|\S+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)%", line)
        if m:
            rows.append(m.groups())
        elif line.strip() and not line.startswith("  task") and not line.startswith(("GPU ", "cudaMemcpy", lab)):
            if rows:
                yield title, rows
                rows = []
            title = line.strip()
    if inside and rows:
        yield title, rows

def main():
    log, lab = sys.argv[1], sys.argv[2]
    every = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--every" else 0
    lines = open(log).read().splitlines()
    inside = False
    for line in lines:
        if line.startswith("== "):
            inside = line[3:].startswith(lab)
        elif inside and (line.startswith("GPU ") or line.startswith("cudaMemcpy")):
            print(line + "  ")
    for title, rows in sections(lines, lab):
        if every and len(rows) > 12:
            rows = [r for i, r in enumerate(rows) if i % every == 0 or i == len(rows) - 1]
        print(f"\n*{title}*\n")
        print("| task | kernel | case | ms | GB/s | fraction of copy |")
        print("|---|---|---|---|---|---|")
        for task, kernel, case, _check, ms, gbps, pct in rows:
            print(f"| {task} | {kernel} | {case} | {ms} | {gbps} | {float(pct)/100:.2f} |")

main()
