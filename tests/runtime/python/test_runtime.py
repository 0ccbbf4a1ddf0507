"""The Python package on the emulator: the seed's quick start with a GEMV
assembled here, the CLI, scalar packing from the catalog's types, launches in
1/2/3-D, dynamic launches, batches and plans, events, several packages, and
bad input raising exceptions (never crashing the interpreter).

Run by CTest with K100_BUILD_DIR (libfm_engine.so), K100_TOOLS_BIN (k100-as,
k100-catalog), K100_SOURCE_DIR and K100_BACKEND=emu.
"""
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

SOURCE = Path(os.environ.get("K100_SOURCE_DIR", Path(__file__).resolve().parents[3]))
BUILD = Path(os.environ.get("K100_BUILD_DIR", SOURCE / "build"))
TOOLS = Path(os.environ.get("K100_TOOLS_BIN", BUILD / "bin"))
sys.path.insert(0, str(SOURCE / "python"))

import k100lc_kernels  # noqa: E402
from k100lc_kernels import LaunchPlan, Runtime, info, kernels  # noqa: E402

PY = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable


def assemble(src: Path, out: Path) -> Path:
    subprocess.run([str(TOOLS / "k100-as"), "-o", str(out), str(src)], check=True)
    subprocess.run([str(TOOLS / "k100-catalog"), str(out), "-o", str(out.with_suffix(".catalog.json"))], check=True)
    return out


@pytest.fixture(scope="session")
def pkgs(tmp_path_factory):
    d = tmp_path_factory.mktemp("packages")
    kernels_dir = SOURCE / "tests" / "runtime" / "kernels"
    main = assemble(kernels_dir / "runtime_test.s", d / "runtime_test.hsaco")
    extra = assemble(kernels_dir / "extra.s", d / "extra.hsaco")
    return {"main": main, "extra": extra, "dir": d}


@pytest.fixture(scope="session")
def rt(pkgs):
    return Runtime(pkgs["main"])


def test_quick_start_gemv_as_in_the_seed(rt):
    n, k = 256, 640
    w = np.random.default_rng(0).standard_normal((n, k), dtype=np.float32)
    x = np.random.default_rng(1).standard_normal(k, dtype=np.float32)
    pw, px, py = rt.alloc(w.nbytes), rt.alloc(x.nbytes), rt.alloc(n * 4)
    rt.upload(pw, w)
    rt.upload(px, x)
    # grid is the number of workgroups, not of work-items
    rt.launch("gemv_f32_warp_k", n, 64, [pw, px, py, n, k, 64])
    rt.sync()
    y = rt.download(py, n, np.float32)
    ref = w.astype(np.float64) @ x.astype(np.float64)
    assert np.abs(y - ref).max() / np.abs(ref).max() < 1e-5
    assert y.dtype == np.float32 and y.shape == (n,)
    assert rt.backend == "emu"
    entry = k100lc_kernels.catalog.find(rt.catalog, "gemv_f32_warp_k")
    assert [a["off"] for a in entry["args"]] == [0, 8, 16, 24, 28, 32]
    for p in (pw, px, py):
        rt.free(p)


def run_cli(*args, catalog=None):
    env = dict(os.environ, PYTHONPATH=str(SOURCE / "python"))
    if catalog:
        env["K100LC_CATALOG"] = str(catalog)
    return subprocess.run([PY, "-m", "k100lc_kernels", *args], capture_output=True, text=True, env=env, cwd="/")


def test_cli_list_and_info(pkgs):
    cat = pkgs["main"].with_suffix(".catalog.json")
    r = run_cli(catalog=cat)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 6
    gemv = next(line for line in lines if line.startswith("gemv_f32_warp_k"))
    assert gemv == f"{'gemv_f32_warp_k':<32} kernarg=  36 lds=  256 priv=   0"
    r = run_cli("list", "ids", catalog=cat)
    assert r.returncode == 0 and r.stdout.splitlines() == [f"{'ids3d_k':<32} kernarg=  72 lds=    0 priv=   0"]
    r = run_cli("info", "saxpy_k", catalog=cat)
    assert r.returncode == 0
    e = json.loads(r.stdout)
    assert e["lookup"] == "saxpy_k" and e["args"][2] == {"name": "a", "off": 16, "size": 4, "kind": "by_value", "type": "f32"}
    r = run_cli("info", "nope", catalog=cat)
    assert r.returncode != 0 and "KeyError" in r.stderr
    r = run_cli("frobnicate", catalog=cat)
    assert r.returncode == 2 and "[list|info NAME]" in r.stderr
    r = run_cli("list", catalog=pkgs["dir"] / "missing.json")
    assert r.returncode == 1 and "no kernel catalog" in r.stderr


def test_info_suggests_the_closest_name_and_shows_the_registry_docs():
    # the build's package and registry (libk100_selftest.so)
    r = run_cli("info", "gemv_f32_wrap_k")
    assert r.returncode == 1 and "KeyError" in r.stderr and "did you mean 'gemv_f32_warp_k'?" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    r = run_cli("info", "gemv_f32_warp_k")
    assert r.returncode == 0, r.stderr
    e = json.loads(r.stdout)
    assert e["lookup"] == "gemv_f32_warp_k" and [a["name"] for a in e["args"][:3]] == ["w", "x", "y"]
    # the same text the generated kernel reference prints from the registry
    reference = (SOURCE / "docs" / "KERNELS.md").read_text()
    for key in ("semantics", "geometry", "limits"):
        assert e[key] and e[key] in reference, key
    assert e["family"] == "gemv" and e["tolerance"]
    with pytest.raises(KeyError) as err:
        info("gemv_f32_wrap_k")
    assert err.value.args[0] == "gemv_f32_wrap_k" and "did you mean 'gemv_f32_warp_k'" in str(err.value)


def test_catalog_functions(pkgs, monkeypatch):
    monkeypatch.setenv("K100LC_CATALOG", str(pkgs["main"].with_suffix(".catalog.json")))
    assert [e["lookup"] for e in kernels("saxpy")] == ["saxpy_k"]
    assert len(kernels()) == 6
    assert info("fill_f32_k")["kernarg_size"] == 16
    with pytest.raises(KeyError):
        info("fill")


def test_scalars_are_packed_from_the_catalog_types(rt):
    n = 100
    y = rt.alloc(n * 4)
    for value, expect in [(2.5, 2.5), (np.float32(1.25), 1.25), (np.float64(-3.0), -3.0), (3, 3.0), (np.int32(7), 7.0)]:
        rt.launch("fill_f32_k", 2, 64, [y, value, n])
        assert np.all(rt.download(y, n, np.float32) == np.float32(expect)), value
    rt.free(y)


def test_wrong_types_and_values_raise(rt):
    y = rt.alloc(64 * 4)
    x = np.zeros(64, np.float32)
    with pytest.raises(TypeError, match="NumPy array"):
        rt.launch("fill_f32_k", 1, 64, [x, 1.0, 64])
    with pytest.raises(TypeError, match="integer; got float"):
        rt.launch("fill_f32_k", 1, 64, [y, 1.0, 64.0])
    with pytest.raises(TypeError, match="device pointer"):
        rt.launch("fill_f32_k", 1, 64, [float(y), 1.0, 64])
    with pytest.raises(TypeError):
        rt.launch("fill_f32_k", 1, 64, [y, "1.0", 64])
    with pytest.raises(ValueError, match="does not fit 4 bytes"):
        rt.launch("fill_f32_k", 1, 64, [y, 1.0, 1 << 40])
    with pytest.raises(ValueError, match=r"argument 2 \(n: u32\) is unsigned; got -1"):
        rt.launch("fill_f32_k", 1, 64, [y, 1.0, -1])
    with pytest.raises(ValueError, match="unsigned"):
        rt.launch("fill_f32_k", 1, 64, [y, 1.0, np.int64(-64)])
    with pytest.raises(TypeError):
        rt.launch("fill_f32_k", 1, 64, 42)
    with pytest.raises(ValueError):
        rt.launch("fill_f32_k", -1, 64, [y, 1.0, 64])
    # arrays: non-contiguous or wrongly typed outputs, object arrays, bad dtypes
    strided = np.zeros(128, np.float32)[::2]
    with pytest.raises(ValueError, match="C-contiguous"):
        rt.download(y, 64, np.float32, out=strided)
    with pytest.raises(TypeError, match="dtype"):
        rt.download(y, 64, np.float32, out=np.zeros(64, np.float64))
    with pytest.raises(ValueError):
        rt.download(y, 64, np.float32, out=np.zeros(8, np.float32))
    with pytest.raises(TypeError):
        rt.upload(y, np.array([object()] * 4))
    with pytest.raises(TypeError):
        rt.download(y, 4, object)
    with pytest.raises(TypeError):
        rt.download(y, 4, "not a dtype")
    with pytest.raises(TypeError):
        rt.upload(y, [1.0, 2.0])
    with pytest.raises(ValueError):
        rt.download(y, -1, np.float32)
    with pytest.raises(ValueError):
        rt.alloc(-5)
    with pytest.raises(TypeError):
        rt.free("y")
    # a strided input is made contiguous (as the reference does)
    rt.upload(y, np.arange(128, dtype=np.float32)[::2])
    assert rt.download(y, 4, np.float32).tolist() == [0, 2, 4, 6]
    out = np.empty(64, np.float32)
    assert rt.download(y, 64, np.float32, out=out) is out
    rt.free(y)


def test_engine_errors_raise_runtime_error(rt):
    buf = rt.alloc(1024)
    with pytest.raises(RuntimeError, match="did you mean 'gemv_f32_warp_k'"):
        rt.launch("gemv_f32_wrap_k", 1, 64, [buf, buf, buf, 1, 1, 64])
    with pytest.raises(RuntimeError, match=r"fm_launch\(gemv_f32_warp_k\) failed: .*takes 6 explicit arguments, 5 given"):
        rt.launch("gemv_f32_warp_k", 1, 64, [buf, buf, buf, 1, 1])
    with pytest.raises(RuntimeError, match="runs 4 bytes past the end"):
        rt.download(buf, 257, np.float32)
    with pytest.raises(RuntimeError, match="past the end"):
        rt.upload(buf, np.zeros(300, np.float32))
    t = rt.alloc(16)
    rt.free(t)
    with pytest.raises(RuntimeError, match="use after free"):
        rt.upload(t, np.zeros(4, np.float32))
    with pytest.raises(RuntimeError, match="use after free"):
        rt.launch("fill_f32_k", 1, 64, [t, 1.0, 4])
    with pytest.raises(RuntimeError, match="double free"):
        rt.free(t)
    rt.launch("fault_k", 1, 64, [buf])
    with pytest.raises(RuntimeError, match=r"(?s)kernel 'fault_k' faulted on the emulator.*emulator fault: out-of-bounds access"):
        rt.sync()
    rt.sync()  # reported once; the runtime goes on
    rt.launch("fill_f32_k", 4, 64, [buf, 9.0, 256])
    assert rt.download(buf, 256, np.float32)[-1] == 9.0
    rt.free(buf)


def test_2d_and_3d_grids(rt):
    for groups, wg in [((4, 3, 1), (16, 4, 1)), ((3, 2, 2), (8, 4, 2))]:
        W, H, D = (g * w for g, w in zip(groups, wg))
        out, hid = rt.alloc(W * H * D * 4), rt.alloc(64)
        if D == 1:
            rt.launch2d("ids3d_k", groups[0], groups[1], wg[0], wg[1], [out, hid])
        else:
            rt.launch3d("ids3d_k", *groups, *wg, [out, hid])
        ids = rt.download(out, W * H * D, np.uint32).reshape(D, H, W)
        z, y, x = np.meshgrid(np.arange(D), np.arange(H), np.arange(W), indexing="ij")
        assert np.array_equal(ids, (x | y << 10 | z << 20).astype(np.uint32))
        h = rt.download(hid, 16, np.uint32)
        assert h[:3].tolist() == list(groups)
        rt.free(out)
        rt.free(hid)


def test_launch_dyn_and_launch_any(rt, pkgs):
    n = 128
    y, x = rt.alloc(n * 4), rt.alloc(n * 4)
    rt.upload(x, np.ones(n, np.float32))
    rt.memset(y, 0, n * 4)
    rt.launch_dyn("saxpy_k", 2, 1, 64, 1, [y, x, 2.0, n])
    rt.launch_any("saxpy_k", 2, 64, [y, x, 0.5, n])
    assert np.all(rt.download(y, n, np.float32) == 2.5)
    with pytest.raises(KeyError):
        rt.launch_dyn("nope_k", 1, 1, 64, 1, [])
    # an entry written with code-object metadata keys, for a module loaded at run time
    m = rt.load_module(pkgs["extra"].read_bytes())
    assert m >= 0 and not rt.has("vscale_k")
    entry = {"name": "vscale_k", "kernarg_size": 16, ".group_segment_fixed_size": 0,
             "args": [{".offset": 0, ".size": 8, ".value_kind": "global_buffer", "type": "f32*"},
                      {".offset": 8, ".size": 4, ".value_kind": "by_value", "type": "f32"},
                      {".offset": 12, ".size": 4, ".value_kind": "by_value", "type": "u32"}]}
    rt.launch_dyn("vscale_k", 2, 1, 64, 1, [y, 2, n], entry=entry)
    assert np.all(rt.download(y, n, np.float32) == 5.0)
    with pytest.raises(RuntimeError, match=r"rc=-2"):
        rt.launch_dyn("vscale_k", 2, 1, 64, 1, [y, 2.0], entry=entry)
    rt.free(x)
    rt.free(y)


def test_batch_and_launch_plan(rt):
    n = 64
    y, x = rt.alloc(n * 4), rt.alloc(n * 4)
    rt.upload(x, np.ones(n, np.float32))
    rt.memset(y, 0, n * 4)
    with rt.batch():
        for _ in range(100):  # more than one 64-record segment
            rt.launch("saxpy_k", 1, 64, [y, x, 1.0, n])
        with pytest.raises(RuntimeError, match="nested"):
            with rt.batch():
                pass
    assert np.all(rt.download(y, n, np.float32) == 100.0)
    with pytest.raises(ZeroDivisionError):
        with rt.batch():
            rt.launch("saxpy_k", 1, 64, [y, x, 1.0, n])
            1 / 0
    assert np.all(rt.download(y, n, np.float32) == 100.0)  # nothing submitted
    plan = LaunchPlan(rt, [("saxpy_k", 1, 64, [y, x, 1.0, n]), ("fill_f32_k", 1, 64, [x, 2.0, n])])
    assert plan.kernels == ["saxpy_k", "fill_f32_k"]
    assert plan.run() == 2
    plan.set_arg(0, 2, -0.5)
    plan.set_grid(1, 1)
    assert plan.run() == 2
    assert np.all(rt.download(y, n, np.float32) == 100.0)  # +1 then -0.5 * 2
    with pytest.raises(RuntimeError, match="unknown kernel"):
        LaunchPlan(rt, [("nope", 1, 64, [])])
    rt.free(x)
    rt.free(y)


def test_events(rt):
    y = rt.alloc(4096 * 4)
    a = rt.record_event()
    for _ in range(3):
        rt.launch("fill_f32_k", 64, 64, [y, 1.0, 4096])
    b = rt.record_event()
    ms = a.elapsed_ms(b)
    assert 0 <= ms < 60000
    rt.free(y)


def test_threads_share_the_runtime(rt):
    n, launches = 64, 50
    errors = []

    def work(t):
        try:
            y, x = rt.alloc(n * 4), rt.alloc(n * 4)
            rt.upload(x, np.full(n, t + 1, np.float32))
            rt.upload(y, np.zeros(n, np.float32))
            for _ in range(launches):
                rt.launch("saxpy_k", 1, 64, [y, x, 1.0, n])
            got = rt.download(y, n, np.float32)
            if not np.all(got == launches * (t + 1)):
                errors.append((t, got[:4]))
            rt.free(x)
            rt.free(y)
        except Exception as e:  # noqa: BLE001
            errors.append((t, e))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors


def test_several_packages(rt, pkgs):
    rt2 = Runtime(pkgs["extra"])  # a second package joins the engine's table
    assert rt2.has("vscale_k") and rt.has("vscale_k") and rt2.has("gemv_f32_warp_k")
    Runtime(pkgs["main"])  # the same package again is fine
    dup = pkgs["dir"] / "copy_of_main.hsaco"
    shutil.copy(pkgs["main"], dup)
    with pytest.raises(RuntimeError, match="already defined by"):
        Runtime(dup)
    with pytest.raises(RuntimeError, match="fm_init failed: .*missing.hsaco"):
        Runtime(pkgs["dir"] / "missing.hsaco")
    # without a catalog file the engine describes the package (with types)
    cat = pkgs["extra"].with_suffix(".catalog.json")
    hidden = cat.with_name("hidden.json")
    cat.rename(hidden)
    try:
        entry = Runtime(pkgs["extra"]).catalog["kernels"][0]
    finally:
        hidden.rename(cat)
    assert entry["lookup"] == "vscale_k" and entry["args"][1]["type"] == "f32"


def run_python(code, **env):
    e = dict(os.environ)
    e.update(env)
    return subprocess.run([PY, "-c", code], capture_output=True, text=True, env=e, cwd="/")


def test_env_sh_makes_the_package_importable_from_anywhere():
    script = (f"export K100_BUILD_DIR={BUILD}; source {SOURCE}/env.sh; cd /; "
              f"{PY} -c 'import k100lc_kernels, os; print(k100lc_kernels.__file__); "
              "print(os.environ[\"LD_LIBRARY_PATH\"].split(\":\")[0])'")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH")}
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert out[0] == str(SOURCE / "python" / "k100lc_kernels" / "__init__.py")
    assert out[1] == str(BUILD)
    # the command of the README, with whatever python3 comes first on PATH (NumPy is imported lazily)
    r = subprocess.run(["bash", "-c", f"export K100_BUILD_DIR={BUILD}; source {SOURCE}/env.sh; cd /tmp; "
                        "python3 -c 'import k100lc_kernels'"], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr


@pytest.mark.skipif(Path("/dev/kfd").exists(), reason="a DCU driver is present")
def test_backend_choice_without_a_dcu(pkgs):
    code = (f"import sys; sys.path.insert(0, {str(SOURCE / 'python')!r}); import k100lc_kernels as k; "
            f"a = k.Runtime({str(pkgs['main'])!r}); print(a.backend)")
    r = run_python(code, K100_BACKEND="auto", K100LC_ENGINE=str(BUILD / "libfm_engine.so"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "emu"
    assert r.stderr.count("running kernels on the emulator") == 1
    r = run_python(code, K100_BACKEND="hsa", K100LC_ENGINE=str(BUILD / "libfm_engine.so"))
    assert r.returncode != 0
    assert "RuntimeError: fm_init failed" in r.stderr and "K100_BACKEND=hsa" in r.stderr and "/dev/kfd" in r.stderr
