#!/usr/bin/env python3
"""Roofline plot for `k100-bench kernels --plot out.png`.

Reads the benchmark's JSON report and draws each kernel at its arithmetic
intensity (VALU lane-slots per modeled DRAM byte) against the modeled rate
(lane-slots per second of modeled time), under the K100_LC roofs: 896 GB/s of
DRAM and 9.7536e12 vector lane-slots per second. Every point is MODELED.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

DRAM = 896e9
ISSUE = 120 * 64 * 1.27e9


def main(src, dst):
    with open(src) as f:
        report = json.load(f)
    fig, ax = plt.subplots(figsize=(9, 6))
    ridge = ISSUE / DRAM
    xs = [1e-3, ridge, 1e3]
    ax.plot(xs, [min(ISSUE, x * DRAM) for x in xs], color="black", linewidth=1.5, label="K100_LC roof (896 GB/s, 9.75 T lane-slots/s)")
    for k in report["kernels"]:
        m = k["modeled"]
        valu = k["wave_instructions"].get("valu", 0) * 64
        if k["dram_bytes"] == 0 or m.get("time_s", 0) <= 0 or valu == 0:
            continue
        x = valu / k["dram_bytes"]
        y = valu / m["time_s"]
        ax.scatter([x], [y], s=18)
        ax.annotate(k["lookup"], (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("VALU lane-slots per DRAM byte (modeled)")
    ax.set_ylabel("VALU lane-slots per second (modeled)")
    ax.set_title("k100lc kernels on K100_LC: MODELED roofline (emulator profile, not a measurement)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(dst, dpi=120)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: roofline.py report.json out.png")
    main(sys.argv[1], sys.argv[2])
