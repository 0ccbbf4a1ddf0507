#!/usr/bin/env python3
"""Markdown summary table of `k100-bench kernels --json` (read from stdin).

    build/bin/k100-bench kernels --json | python3 tools/k100-bench/report_md.py

One row per kernel: benchmark sizes, ideal bytes, modeled DRAM bytes and their
ratio, the largest requests-per-line of any buffer the kernel streams (its
largest buffer), occupancy, the limiting term and the MODELED time against the
bandwidth bound.
"""
import json
import sys


def main():
    report = json.load(sys.stdin)
    print("| kernel | sizes | ideal MB | DRAM MB | DRAM/ideal | largest buffer: requests/line | waves/SIMD | limiter "
          "| modeled us | bound us | modeled/bound |")
    print("|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|")
    for k in report["kernels"]:
        m = k["modeled"]
        ideal = k["ideal_bytes"]
        big = max(k["buffers"], key=lambda b: b["bytes"], default=None)
        rpl = f'{big["name"]}: {big["lines_requested"] / big["lines_distinct"]:.3f}' if big and big["lines_distinct"] else "-"
        ratio = f'{k["dram_bytes"] / ideal:.3f}' if ideal else "-"
        bound = m["bandwidth_bound_s"]
        print(f'| `{k["lookup"]}` | {k["dims"]} | {ideal / 1e6:.3f} | {k["dram_bytes"] / 1e6:.3f} | {ratio} | {rpl} '
              f'| {k["waves_per_simd"]:.2f} | {m["limiter"]} | {m["time_s"] * 1e6:.2f} '
              f'| {bound * 1e6:.2f} | {(m["time_s"] / bound if bound else float("nan")):.3f} |')


if __name__ == "__main__":
    main()
