#!/usr/bin/env python3
"""Checks `k100-bench kernels --json` on a small GEMV: the report's traffic
columns are consistent with what the kernel must do, and the per-buffer line
counts show each weight line requested by exactly one memory instruction."""
import json
import subprocess
import sys

LIMITERS = {"DRAM bandwidth", "L2 bandwidth", "latency / bytes in flight", "occupancy", "issue", "LDS", "launch",
            "grid tail"}


def check(bench, n, k):
    out = subprocess.run([bench, "kernels", "--only", "gemv_f32_warp_k", "--dims", f"n={n},k={k}", "--json"],
                         check=True, capture_output=True, text=True).stdout
    report = json.loads(out)
    assert "MODELED" in report["model"], report["model"]
    (g,) = report["kernels"]
    assert g["lookup"] == "gemv_f32_warp_k" and g["pass"], g["check"]
    ideal = (n * k + k + n) * 4
    assert g["ideal_bytes"] == ideal, (g["ideal_bytes"], ideal)
    # Lanes read w and x once each per row and write y; each wave also loads its
    # arguments with scalar loads (at most 64 bytes).
    vector_bytes = (n * k + n * k + n) * 4
    assert vector_bytes < g["requested_bytes"] <= vector_bytes + 64 * n, g["requested_bytes"]
    buffers = {b["name"]: b for b in g["buffers"]}
    assert set(buffers) == {"w", "x", "y"}, buffers
    w = buffers["w"]
    assert w["bytes"] == n * k * 4
    # w is one allocation of n*k floats starting on a line boundary.
    assert w["lines_distinct"] == (n * k * 4 + 63) // 64, w
    if (k * 4) % 64 == 0:
        assert w["lines_requested"] == w["lines_distinct"], w
    else:
        # A row that does not start on a line boundary: each 1 KiB step of the
        # wave touches one line that the previous step (or row) touched too.
        steps = (k * 4 + 1023) // 1024
        assert w["lines_distinct"] < w["lines_requested"] <= w["lines_distinct"] + n * steps, w
    # x is read by every row.
    assert buffers["x"]["lines_requested"] == n * ((k * 4 + 63) // 64), buffers["x"]
    assert g["dram_bytes"] <= 1.02 * ideal + 64 * 3, (g["dram_bytes"], ideal)
    assert g["cache_request_bytes"] >= g["dram_bytes"]
    roof = g["roofline"]
    assert roof["time_s"] >= roof["dram_s"] and roof["time_s"] >= roof["valu_s"] and roof["launch_s"] > 0
    assert abs(roof["dram_s"] - g["dram_bytes"] / 896e9) < 1e-12
    # The timing model: one dispatch, floor plus execution, a named limiter,
    # never faster than the roofline's bandwidth term allows for its bytes.
    m = g["modeled"]
    (d,) = m["dispatches"]
    assert d["kernel"] == "gemv_f32_warp_k"
    assert abs(m["time_s"] - (d["floor_s"] + d["exec_s"])) < 1e-12, m
    assert d["floor_s"] > 0 and d["exec_s"] > 0
    assert m["limiter"] in LIMITERS, m["limiter"]
    assert m["time_s"] >= m["bandwidth_bound_s"]
    assert abs(m["achieved_gbs"] - ideal / m["time_s"] / 1e9) < 1e-6 * m["achieved_gbs"]
    # One wave per row: every wave reads its arguments and drains at least once.
    assert d["round_trips_per_wave"] >= 1 and d["instructions_per_wave"] > 0
    assert g["waves"] == n and g["workgroups"] == n
    assert g["wave_instructions"]["valu"] > 0 and g["wave_instructions"]["vmem"] > 0
    print(f"n={n} k={k}: bench report consistent,", g["dram_bytes"], "DRAM bytes for", ideal, "ideal")


def main(bench):
    check(bench, 96, 1024)
    check(bench, 96, 1000)


if __name__ == "__main__":
    main(sys.argv[1])
