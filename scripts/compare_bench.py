#!/usr/bin/env python3
"""Two `k100-bench kernels --json` reports side by side.

    scripts/compare_bench.py BEFORE.json AFTER.json [--limit PCT] [--markdown]

Per kernel present in both: the MODELED time before and after (microseconds),
the change in percent, the limiter after, and the registers (VGPRs, SGPRs)
before and after. The exit status is 1 when some kernel's MODELED time grew by
more than --limit percent (default 1) or it uses more VGPRs or SGPRs than
before, so a script can hold a change to it; 0 otherwise. Kernels present in
one report only are listed at the end.
"""
import argparse
import json
import sys


def load(path):
    with open(path) as f:
        report = json.load(f)
    return {k["lookup"]: k for k in report["kernels"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--limit", type=float, default=1.0, help="largest allowed slowdown in percent (default 1)")
    ap.add_argument("--markdown", action="store_true", help="print a markdown table")
    a = ap.parse_args()
    before, after = load(a.before), load(a.after)
    rows, worse = [], []
    for name in sorted(set(before) & set(after)):
        b, n = before[name], after[name]
        tb, tn = b["modeled"]["time_s"] * 1e6, n["modeled"]["time_s"] * 1e6
        change = 100.0 * (tn - tb) / tb if tb else 0.0
        regs = (b["vgprs"], b["sgprs"], n["vgprs"], n["sgprs"])
        bad = change > a.limit or n["vgprs"] > b["vgprs"] or n["sgprs"] > b["sgprs"] or not n["pass"]
        rows.append((name, tb, tn, change, n["modeled"]["limiter"], regs, bad))
        if bad:
            worse.append(name)
    if a.markdown:
        print("| kernel | before (us) | after (us) | change | limiter | VGPRs | SGPRs |")
        print("|---|---:|---:|---:|---|---:|---:|")
        for name, tb, tn, change, lim, (bv, bs, nv, ns), bad in rows:
            print(f"| `{name}` | {tb:.2f} | {tn:.2f} | {change:+.2f} % | {lim} | {bv} -> {nv} | {bs} -> {ns} |")
    else:
        print(f"{'kernel':32} {'before us':>11} {'after us':>11} {'change':>9}  {'limiter':14} VGPRs      SGPRs")
        for name, tb, tn, change, lim, (bv, bs, nv, ns), bad in rows:
            mark = "  <-- " if bad else ""
            print(f"{name:32} {tb:11.2f} {tn:11.2f} {change:+8.2f}%  {lim:14} {bv:3} -> {nv:3}  {bs:3} -> {ns:3}{mark}")
    faster = sum(1 for r in rows if r[3] < -0.005)
    slower = sum(1 for r in rows if r[3] > 0.005)
    print(f"\n{len(rows)} kernels: {faster} faster, {slower} slower, {len(rows) - faster - slower} the same; "
          f"{len(worse)} over the limit ({a.limit} % slower, more registers, or failing)")
    for name in sorted(set(before) ^ set(after)):
        print(f"only in {'before' if name in before else 'after'}: {name}")
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main())
