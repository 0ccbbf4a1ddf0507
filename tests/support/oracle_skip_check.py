#!/usr/bin/env python3
"""With a PATH that has no LLVM tools, CTest reports the oracle tests as
skipped, not passed; under CI=true the same tests fail.

Runs CTest itself (on this build tree) over the oracle tests: the scripts
labelled "oracle" and GoogleTest cases that ask for llvm-mc (their names
below). PATH is a temporary directory with links to every program of the
normal PATH except the LLVM tools (llvm-*, ld.lld*, clang*).

Usage: oracle_skip_check.py CTEST BUILD_DIR
"""
import os
import re
import subprocess
import sys
import tempfile

# GoogleTest cases that need llvm-mc (one per module that has some)
GTEST_ORACLES = ["MetadataOracle.YamlToMessagePackMatchesLlvmMcAndPrintingMatchesReadelf",
                 "MacroDifferential.ParametersDefaultsNamedVarargAndUniqueLabels",
                 "EmuFault.OutOfBoundsStore"]
SCRIPT_ORACLES = ["isa.asm_differential_llvm", "isa.disasm_differential_llvm", "asm.codeobj_differential_lld",
                  "asm.clang_differential_lld", "tools.objdump_differential_llvm"]
LLVM = re.compile(r"^(llvm-|ld\.lld|clang)")


def path_without_llvm(root):
    os.makedirs(root)
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            dst = os.path.join(root, name)
            src = os.path.join(d, name)
            if LLVM.match(name) or os.path.lexists(dst) or not os.access(src, os.X_OK):
                continue
            os.symlink(src, dst)
    return root


def ctest(ctest_cmd, build, names, path, ci):
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PATH"] = path
    if ci:
        env["CI"] = "true"
    regex = "^(" + "|".join(re.escape(n) for n in names) + ")$"
    p = subprocess.run([ctest_cmd, "--test-dir", build, "-R", regex], capture_output=True, text=True, env=env)
    return p.returncode, p.stdout + p.stderr


def main():
    ctest_cmd, build = sys.argv[1], sys.argv[2]
    names = SCRIPT_ORACLES + GTEST_ORACLES
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        path = path_without_llvm(os.path.join(tmp, "bin"))
        rc, out = ctest(ctest_cmd, build, names, path, ci=False)
        print(out)
        for n in names:
            line = next((l for l in out.splitlines() if re.search(r"Test +#\d+: " + re.escape(n) + r" ", l)), None)
            if line is None:
                problems.append(f"{n}: not run by CTest")
            elif "Skipped" not in line:
                problems.append(f"{n}: not reported as skipped: {line.strip()}")
        if rc != 0:
            problems.append(f"ctest exit status {rc} without the LLVM tools (skips must not fail the run)")
        rc, out = ctest(ctest_cmd, build, names, path, ci=True)
        print(out)
        m = re.search(r"(\d+) tests failed out of (\d+)", out)
        if rc == 0 or not m or m.group(1) != m.group(2):
            problems.append("under CI=true a missing oracle tool must fail every oracle test: " +
                            (m.group(0) if m else f"exit status {rc}"))
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
