#!/usr/bin/env python3
"""Markdown summary table of `k100-bench kernels --json` (read from stdin, or
from the files named, one table over all of them in the order given).

    build/bin/k100-bench kernels --json | python3 tools/k100-bench/report_md.py
    build/bin/k100-bench kernels --group gguf --json > gguf.json   # runs of groups,
    build/bin/k100-bench kernels --group gemv,ops,other,model --json > rest.json
    python3 tools/k100-bench/report_md.py rest.json gguf.json       # assembled

One row per kernel: benchmark sizes, ideal bytes, DRAM bytes and their ratio,
the largest requests-per-line of any buffer the kernel streams (its largest
buffer), occupancy, the MODELED time of the timing model with its limiter, the
achieved bandwidth, and the plain roofline and bandwidth bounds beside it.
"""
import json
import sys


def load_kernels(paths):
    if not paths:
        return json.load(sys.stdin)["kernels"]
    kernels, seen = [], set()
    for path in paths:
        with open(path) as f:
            for k in json.load(f)["kernels"]:
                if k["lookup"] in seen:
                    sys.exit(f"report_md.py: {path}: kernel {k['lookup']} is already in an earlier file")
                seen.add(k["lookup"])
                kernels.append(k)
    return kernels


def main():
    kernels = load_kernels(sys.argv[1:])
    print("| kernel | sizes | ideal MB | DRAM/ideal | largest buffer: requests/line | waves/SIMD | MODELED us | limiter "
          "| achieved GB/s | % of peak | roofline us | bound us |")
    print("|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|")
    for k in kernels:
        m = k["modeled"]
        roof = k["roofline"]
        ideal = k["ideal_bytes"]
        big = max(k["buffers"], key=lambda b: b["bytes"], default=None)
        rpl = f'{big["name"]}: {big["lines_requested"] / big["lines_distinct"]:.3f}' if big and big["lines_distinct"] else "-"
        ratio = f'{k["dram_bytes"] / ideal:.3f}' if ideal else "-"
        if "time_s" not in m:
            print(f'| `{k["lookup"]}` | {k["dims"]} | {ideal / 1e6:.3f} | {ratio} | {rpl} | {k["waves_per_simd"]:.2f} '
                  f'| - | not modeled: {m.get("error", "?")} | - | - | {roof["time_s"] * 1e6:.2f} '
                  f'| {roof["bandwidth_bound_s"] * 1e6:.2f} |')
            continue
        print(f'| `{k["lookup"]}` | {k["dims"]} | {ideal / 1e6:.3f} | {ratio} | {rpl} | {k["waves_per_simd"]:.2f} '
              f'| {m["time_s"] * 1e6:.2f} | {m["limiter"]} | {m["achieved_gbs"]:.1f} | {100 * m["peak_fraction"]:.1f} '
              f'| {roof["time_s"] * 1e6:.2f} | {m["bandwidth_bound_s"] * 1e6:.2f} |')


if __name__ == "__main__":
    main()
