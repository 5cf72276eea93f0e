#!/usr/bin/env python3
"""Turn `make bench` output into Markdown for the lecture notes: one table per bench section,
then the bench's own summary lines (its ratios) as a list. Usage:
  scripts/bench2md.py bench.log LAB [--every N]
LAB is a lab folder name such as 01_coalescing; --every N keeps the first, every Nth and the last
row of sections longer than 12 rows."""
import re
import sys

ROW = re.compile(r"\s+(\S+)\s+(.+?)\s{2,}(\S+)\s+(ok|\S+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)%")


def lab_lines(lines, lab):
    """The lines of LAB's section (from its '== LAB' line to the next '== ')."""
    inside = False
    for line in lines:
        if line.startswith("== "):
            inside = line[3:].startswith(lab)
        elif inside:
            yield line


def parse(lines, lab):
    """Header lines, sections (title, column names, rows) and summary lines."""
    header, sections, summary, title, cols = [], [], [], None, ("ms", "fraction of copy")
    for line in lab_lines(lines, lab):
        m = ROW.match(line)
        if line.startswith(("GPU ", "cudaMemcpy", "pinned cudaMemcpy")):
            header.append(line.strip())
        elif line.startswith("  task"):
            link = "of link" in line
            cols = ("ms end to end", "fraction of the pinned-copy bound") if link else \
                   ("ms", "fraction of copy")
            sections.append((title, cols, []))
        elif m and sections:
            sections[-1][2].append(m.groups())
        elif line.startswith("  ") and line.strip():
            summary.append(line.strip())
        elif line.strip() and not line.startswith(lab) and not line.startswith("summary"):
            title = line.strip()
    return header, sections, summary


def main():
    log, lab = sys.argv[1], sys.argv[2]
    every = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--every" else 0
    header, sections, summary = parse(open(log).read().splitlines(), lab)
    for line in header:
        print(line + "  ")
    for title, (ms, frac), rows in sections:
        if every and len(rows) > 12:
            rows = [r for i, r in enumerate(rows) if i % every == 0 or i == len(rows) - 1]
        print(f"\n*{title}*\n")
        print(f"| task | kernel | case | {ms} | GB/s | {frac} |")
        print("|---|---|---|---|---|---|")
        for task, kernel, case, _check, t, gbps, pct in rows:
            print(f"| {task} | {kernel} | {case} | {t} | {gbps} | {float(pct) / 100:.2f} |")
    if summary:
        print("\nThe bench's own summary, from the same run:\n")
        for line in summary:
            print(f"- {line}")


main()
