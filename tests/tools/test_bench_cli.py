"""k100-bench as a user runs it: a long `kernels` run shows its progress and
ends with a summary, -j is documented, the roofline plot's names do not
overlap, and `model` finds the kernel package from any directory.

Environment: K100_TOOLS_BIN, K100_SOURCE_DIR, K100_BUILD_DIR (CTest sets them).
"""
import importlib.util
import json
import os
import random
import re
import subprocess
from pathlib import Path

import pytest

BIN = Path(os.environ["K100_TOOLS_BIN"])
SOURCE = Path(os.environ["K100_SOURCE_DIR"])
PACKAGE = Path(os.environ["K100_BUILD_DIR"]) / "k100lc_kernels.hsaco"  # built once, not per run
KERNELS = "gemv_f32_warp_k,gemv_f32_warp_acc_k,gemv_f32_rows8_k"
DIMS = "n=96,k=1024"


def bench(*args, cwd=None, env_drop=()):
    env = {k: v for k, v in os.environ.items() if k not in env_drop}
    env["K100_BACKEND"] = "emu"
    p = subprocess.run([str(BIN / "k100-bench"), *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env,
                       timeout=600)
    return p.returncode, p.stdout, p.stderr


@pytest.mark.parametrize("jobs", [[], ["-j", "2"]])
def test_kernels_progress_and_summary(jobs):
    # --progress-after 0: the line from the first kernel on (a long run starts it after 10 s)
    rc, out, err = bench("kernels", "--package", PACKAGE, "--only", KERNELS, "--dims", DIMS, "--progress-after", "0",
                         *jobs)
    assert rc == 0, err
    progress = [l for l in err.splitlines() if l.startswith("k100-bench kernels: [")]
    assert progress, err
    assert re.match(r"k100-bench kernels: \[3/3\] 100% \S+ done, \d+s spent, about 0s left$", progress[-1]), progress
    assert all(re.search(r"\[\d/3\] +\d+% \S+ done, .* spent, about .* left", l) for l in progress), progress
    assert not any("k100-bench kernels: [" in l for l in out.splitlines())  # stdout holds the report only
    summary = out[out.index("summary of 3 kernels: 3 passed, 0 failed"):].splitlines()
    assert "MODELED" in summary[0] and summary[1].split()[:3] == ["kernel", "group", "check"]
    rows = [l.split() for l in summary[2:] if l.strip()]
    assert [r[0] for r in rows] == KERNELS.split(",")
    assert all(r[1] == "gemv" and r[2] == "pass" and r[4] == "us" for r in rows), rows


def test_kernels_short_run_and_no_progress_stay_quiet():
    rc, out, err = bench("kernels", "--package", PACKAGE, "--only", "gemv_f32_warp_k", "--dims", DIMS)
    assert rc == 0 and "k100-bench kernels: [" not in err and "summary of 1 kernels: 1 passed" in out
    rc, out, err = bench("kernels", "--package", PACKAGE, "--only", "gemv_f32_warp_k", "--dims", DIMS,
                         "--progress-after", "0", "--no-progress")
    assert rc == 0 and "k100-bench kernels: [" not in err


def test_readme_documents_jobs():
    readme = (SOURCE / "README.md").read_text()
    assert re.search(r"k100-bench kernels [^\n]*-j \d", readme), "README has no k100-bench kernels -j N line"


def test_model_finds_the_package_from_any_directory(tmp_path):
    # an unknown shape is reported after the package is loaded: the package was found
    rc, out, err = bench("model", "--shape", "nosuch", cwd=tmp_path, env_drop=("K100_BUILD_DIR", "RT_HSACO"))
    assert rc == 1 and "unknown shape 'nosuch'" in err, err


def load_roofline():
    spec = importlib.util.spec_from_file_location("roofline", SOURCE / "tools" / "k100-bench" / "roofline.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_roofline_names_do_not_overlap(tmp_path):
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true requires python3-matplotlib for the roofline plot")
        pytest.skip("python3-matplotlib is missing")
    roofline = load_roofline()
    import matplotlib.text
    import matplotlib.pyplot as plt
    rng = random.Random(3)
    kernels = []
    for family, (x0, y0) in {"gemv": (0.3, 3e11), "ops": (0.1, 8e10), "attn": (2.0, 1.5e12)}.items():
        for i in range(12):  # twelve kernels of a family close together, as the real ones are
            x, y = x0 * rng.uniform(0.8, 1.25), y0 * rng.uniform(0.8, 1.25)
            dram = 1 << 20
            kernels.append({"lookup": f"{family}_kernel_number_{i}_k", "dram_bytes": dram,
                            "wave_instructions": {"valu": int(x * dram / 64)},
                            "modeled": {"time_s": x * dram / y}})
    report = tmp_path / "r.json"
    report.write_text(json.dumps({"kernels": kernels}))
    png = tmp_path / "r.png"
    roofline.main(str(report), str(png))
    assert png.stat().st_size > 0
    fig = plt.gcf()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    boxes = [matplotlib.text.Text.get_window_extent(t, renderer) for t in ax.texts]
    assert len(boxes) == len(kernels)
    for i in range(len(boxes)):
        for j in range(i):
            assert not boxes[i].overlaps(boxes[j]), (ax.texts[i].get_text(), ax.texts[j].get_text())
