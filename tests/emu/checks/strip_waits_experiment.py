"""The reviewer's experiment: build the kernel package with the authoring
layer's automatic s_waitcnt and s_nop turned off (k100-build-kernels
--no-automatic-waits --no-automatic-wait-states) and run the self-test on it.
Every kernel whose code lost an instruction must fail with a check report
(missing s_waitcnt, missing wait states, LDS race), not pass. With the checks
turned off (K100_EMU_CHECK=0) the same package is also run, and how many of
those kernels then still "pass" is printed: that is what the checks catch.
A second round turns off only the wait states: what is left to catch them is
the hazard table.

usage: strip_waits_experiment.py K100-BUILD-KERNELS K100-SELFTEST K100-OBJDUMP KERNELS-DIR
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ANY_REPORT = ("emulator fault: missing s_waitcnt", "emulator fault: missing wait states (hazard)",
              "emulator fault: LDS race")
HAZARD_REPORT = ("emulator fault: missing wait states (hazard)",)


def build(tool, kernels, out_dir, flags):
    out_dir.mkdir()
    subprocess.run([tool, "--kernels-dir", str(kernels), "--out-dir", str(out_dir), *flags], check=True,
                   stdout=subprocess.DEVNULL)
    return out_dir / "k100lc_kernels.hsaco"


def waits_per_kernel(objdump, hsaco, mnemonics):
    """kernel -> number of instructions of `mnemonics` in its code"""
    text = subprocess.run([objdump, "-d", str(hsaco)], capture_output=True, text=True, check=True).stdout
    counts, current = {}, None
    for line in text.splitlines():
        m = re.match(r"^[0-9a-fA-F]*\s*<(.+)>:\s*$", line)  # template lookups too: <gemv_w4a4<1>>:
        if m:
            current = m.group(1)
            counts.setdefault(current, 0)
            continue
        word = line.split()[0] if line.split() else ""
        if current and word in mnemonics:
            counts[current] += 1
    return counts


def selftest(tool, hsaco, checks_on):
    env = dict(os.environ, K100_BACKEND="emu", RT_HSACO=str(hsaco))
    if not checks_on:
        env["K100_EMU_CHECK"] = "0"
    p = subprocess.run([tool, "--verbose"], capture_output=True, text=True, env=env, timeout=600)
    return p.stdout + p.stderr


def verdicts(output):
    """kernel -> (passed, its report lines)"""
    out, current = {}, None
    for line in output.splitlines():
        m = re.match(r"^(PASS|FAIL) (\S+)", line)
        if m:
            current = m.group(2)
            out[current] = [m.group(1) == "PASS", ""]
        elif current:
            out[current][1] += line + "\n"
    return out


def experiment(tools, kernels, work, what, flags, mnemonics, reports):
    build_tool, selftest_tool, objdump = tools
    print(f"--- without the automatic {what}")
    normal = waits_per_kernel(objdump, build(build_tool, kernels, work / f"normal_{what}", []), mnemonics)
    hsaco = build(build_tool, kernels, work / f"stripped_{what}", flags)
    stripped = waits_per_kernel(objdump, hsaco, mnemonics)
    touched = {k: n - stripped.get(k, 0) for k, n in normal.items() if n > stripped.get(k, 0)}
    print(f"removed {what}: {sum(touched.values())} instructions, kernels touched: {len(touched)} of {len(normal)}")
    if not touched:
        print("nothing was removed: the experiment has nothing to show")
        return 1
    on = verdicts(selftest(selftest_tool, hsaco, True))
    off = verdicts(selftest(selftest_tool, hsaco, False))
    bad = 0
    for k, n in sorted(touched.items()):
        if k not in on:
            print(f"{k}: not run by the self-test")
            bad += 1
            continue
        passed, text = on[k]
        reported = next((r for r in reports if r in text), None)
        without = "passes" if off.get(k, [False])[0] else "fails"
        print(f"{k}: {n} removed; checks on: {'PASS (not caught)' if passed else reported or 'FAIL without a check report'}; "
              f"checks off: {without}")
        if passed or not reported:
            bad += 1
    print(f"{len(touched) - bad} of {len(touched)} stripped kernels reported, "
          f"{sum(1 for k in touched if off.get(k, [False])[0])} of them pass with the checks off")
    return bad


def main():
    tools, kernels = tuple(sys.argv[1:4]), Path(sys.argv[4])
    work = Path(tempfile.mkdtemp(prefix="k100_strip_"))
    try:
        bad = experiment(tools, kernels, work, "waits and wait states",
                         ["--no-automatic-waits", "--no-automatic-wait-states"], {"s_waitcnt", "s_nop"}, ANY_REPORT)
        bad += experiment(tools, kernels, work, "wait states", ["--no-automatic-wait-states"], {"s_nop"},
                          HAZARD_REPORT)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{0 if bad else 1} passed, {1 if bad else 0} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
