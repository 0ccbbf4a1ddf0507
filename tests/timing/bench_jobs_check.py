#!/usr/bin/env python3
"""Checks `k100-bench kernels -j 2` against the same run in one process: the
same kernels in the same order with the same checks, the same recorded
traffic (the emulated work does not depend on which process ran it) and the
same modeled time, and the report pieces assembled from separate files (`report_md.py a.json b.json`)
give one table row per kernel."""
import json
import os
import subprocess
import sys
import tempfile

KERNELS = "gemv_f32_warp_k,gemv_f32_warp_acc_k,gemv_f32_rows8_k"  # registry order
DIMS = "n=96,k=1024"
SAME = ("lookup", "dims", "pass", "dispatches", "workgroups", "waves", "requested_bytes", "ideal_bytes", "dram_bytes",
        "cache_request_bytes", "buffers", "wave_instructions")


def run(bench, *extra):
    out = subprocess.run([bench, "kernels", "--only", KERNELS, "--dims", DIMS, "--json", *extra], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def main(bench, report_md):
    one = run(bench)
    two = run(bench, "-j", "2")
    assert [k["lookup"] for k in one["kernels"]] == KERNELS.split(","), [k["lookup"] for k in one["kernels"]]
    assert len(two["kernels"]) == len(one["kernels"]), two
    for a, b in zip(one["kernels"], two["kernels"]):
        for key in SAME:
            assert a[key] == b[key], (a["lookup"], key, a[key], b[key])
        assert "time_s" in b["modeled"], b["modeled"]
        # The modeled time does not depend on what the process ran before
        # (the model places the buffers itself): identical, not close.
        assert a["modeled"]["time_s"] == b["modeled"]["time_s"], (a["lookup"], a["modeled"], b["modeled"])
    # Text output with -j: one block per kernel, in order.
    text = subprocess.run([bench, "kernels", "--only", KERNELS, "--dims", DIMS, "-j", "2"], check=True,
                          capture_output=True, text=True).stdout
    heads = [line.split()[1] for line in text.splitlines() if line.startswith("== ")]
    assert heads == KERNELS.split(","), heads
    # A bad worker count is refused with the option named.
    bad = subprocess.run([bench, "kernels", "-j", "0"], capture_output=True, text=True)
    assert bad.returncode == 2 and "-j" in bad.stderr, (bad.returncode, bad.stderr)
    # Pieces of a run assembled by the table script.
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for i, k in enumerate(one["kernels"]):
            p = os.path.join(d, f"{i}.json")
            with open(p, "w") as f:
                json.dump({"model": one["model"], "kernels": [k]}, f)
            paths.append(p)
        table = subprocess.run([sys.executable, report_md, *paths], check=True, capture_output=True, text=True).stdout
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert [r.split("`")[1] for r in rows] == KERNELS.split(","), rows
    print("k100-bench kernels -j 2: same kernels, checks and traffic as one process;", len(rows), "rows assembled")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
