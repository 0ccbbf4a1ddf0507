"""The emulator checks from Python: every kernel of tests/emu/checks that
breaks a rule raises RuntimeError naming the rule, its corrected twin runs,
and K100_EMU_CHECK=0 turns the checks off.

The kernels run in a child interpreter: a process loads one code object, and
the other tests of this directory load theirs.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

SOURCE = Path(os.environ.get("K100_SOURCE_DIR", Path(__file__).resolve().parents[3]))
BUILD = Path(os.environ.get("K100_BUILD_DIR", SOURCE / "build"))
TOOLS = Path(os.environ.get("K100_TOOLS_BIN", BUILD / "bin"))
CHECKS = SOURCE / "tests" / "emu" / "checks"

CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from k100lc_kernels import Runtime
rt = Runtime(sys.argv[2])
out = rt.alloc(4096)
results = {}
for name in sys.argv[3:]:
    try:
        rt.launch(name, 1, 128, [out])
        rt.sync()
        results[name] = None
    except RuntimeError as e:
        results[name] = str(e)
print(json.dumps(results))
"""


def cases():
    for line in (CHECKS / "check_rules.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, rule = line.split()[:2]
            yield name, rule


def package(tmp_path):
    hsaco = tmp_path / "check_rules.hsaco"
    subprocess.run([str(TOOLS / "k100-as"), "-o", str(hsaco), str(CHECKS / "check_rules.s")], check=True)
    subprocess.run([str(TOOLS / "k100-catalog"), str(hsaco), "-o", str(hsaco.with_suffix(".catalog.json"))],
                   check=True)
    return hsaco


def run_kernels(hsaco, names, **env):
    e = dict(os.environ, K100_BACKEND="emu", RT_HSACO="", **env)
    p = subprocess.run([sys.executable, "-c", CHILD, str(SOURCE / "python"), str(hsaco), *names],
                       capture_output=True, text=True, env=e, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_broken_kernels_raise_runtime_error_naming_the_rule(tmp_path):
    hsaco = package(tmp_path)
    all_cases = list(cases())
    names = [n + s for n, r in all_cases for s in (("_bad", "_good") if r != "-" else ("_good",))]
    results = run_kernels(hsaco, names)
    for name, rule in all_cases:
        if rule != "-":
            err = results[name + "_bad"]
            assert err is not None, f"{name}_bad ran without a report"
            assert f"rule:        {rule}" in err, err
            assert f"kernel:      {name}_bad" in err, err
        assert results[name + "_good"] is None, results[name + "_good"]


def test_checks_off_by_environment(tmp_path):
    hsaco = package(tmp_path)
    results = run_kernels(hsaco, ["vmem_read_bad", "vgpr_dpp_bad", "race_write_read_bad"], K100_EMU_CHECK="0")
    assert results == {"vmem_read_bad": None, "vgpr_dpp_bad": None, "race_write_read_bad": None}
