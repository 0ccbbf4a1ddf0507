#!/usr/bin/env python3
"""Roofline plot for `k100-bench kernels --plot out.png`.

Reads the benchmark's JSON report and draws each kernel at its arithmetic
intensity (VALU lane-slots per modeled DRAM byte) against the modeled rate
(lane-slots per second of modeled time), under the K100_LC roofs: 896 GB/s of
DRAM and 9.7536e12 vector lane-slots per second. Every point is MODELED.

Kernels of a family sit close together, so their names are placed one at a
time where they overlap no name already placed and no point (place_labels):
beside the point if there is room, else further out with a leader line.
"""
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

DRAM = 896e9
ISSUE = 120 * 64 * 1.27e9


def points(report):
    """(name, intensity, rate) of every kernel with a modeled time and VALU work."""
    out = []
    for k in report["kernels"]:
        m = k["modeled"]
        valu = k["wave_instructions"].get("valu", 0) * 64
        if k["dram_bytes"] == 0 or m.get("time_s", 0) <= 0 or valu == 0:
            continue
        out.append((k["lookup"], valu / k["dram_bytes"], valu / m["time_s"]))
    return out


def _overlaps(a, b, pad=1.0):
    return not (a.x1 + pad <= b.x0 or b.x1 + pad <= a.x0 or a.y1 + pad <= b.y0 or b.y1 + pad <= a.y0)


def place_labels(ax, pts, fontsize=7):
    """Annotates each point with its name where the name overlaps nothing placed
    before it and no point; returns the annotations' boxes in display pixels."""
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    to_px = ax.transData.transform
    dots = [to_px((x, y)) for _, x, y in pts]
    dot_boxes = [matplotlib.transforms.Bbox([[px - 3, py - 3], [px + 3, py + 3]]) for px, py in dots]
    frame = ax.get_window_extent(renderer)
    placed = []
    # candidate offsets in points: 8 directions at growing distances
    candidates = [(r * math.cos(a), r * math.sin(a)) for r in (4, 10, 18, 28, 40, 55, 75, 100)
                  for a in [k * math.pi / 4 for k in (1, 7, 3, 5, 0, 4, 2, 6)]]
    for name, x, y in pts:
        box = None
        for n, (dx, dy) in enumerate(candidates):
            last = n == len(candidates) - 1
            # far from its point, a thin leader line says whose name it is
            arrow = dict(arrowstyle="-", lw=0.4, color="0.5", shrinkA=0, shrinkB=2) if abs(dx) + abs(dy) > 12 else None
            ann = ax.annotate(name, (x, y), xytext=(dx, dy), textcoords="offset points", fontsize=fontsize,
                              ha="left" if dx >= 0 else "right", va="bottom" if dy >= 0 else "top", arrowprops=arrow)
            ann.update_positions(renderer)  # where the offset puts it (drawing would do this)
            box = matplotlib.text.Text.get_window_extent(ann, renderer)  # the name alone, not its leader
            inside = frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1
            clash = any(_overlaps(box, b) for b in placed) or any(_overlaps(box, d) for d in dot_boxes)
            if (inside and not clash) or last:  # no free place at all: the farthest one, which a check sees
                break
            ann.remove()
        placed.append(box)
    return placed


def draw(report, dst):
    fig, ax = plt.subplots(figsize=(11, 7))
    ridge = ISSUE / DRAM
    xs = [1e-3, ridge, 1e3]
    ax.plot(xs, [min(ISSUE, x * DRAM) for x in xs], color="black", linewidth=1.5,
            label="K100_LC roof (896 GB/s, 9.75 T lane-slots/s)")
    pts = points(report)
    for _, x, y in pts:
        ax.scatter([x], [y], s=18)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("VALU lane-slots per DRAM byte (modeled)")
    ax.set_ylabel("VALU lane-slots per second (modeled)")
    ax.set_title("k100lc kernels on K100_LC: MODELED roofline (emulator profile, not a measurement)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    boxes = place_labels(ax, pts)
    fig.savefig(dst, dpi=120)
    return boxes


def main(src, dst):
    with open(src) as f:
        report = json.load(f)
    draw(report, dst)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: roofline.py report.json out.png")
    main(sys.argv[1], sys.argv[2])
