"""The reviewer's experiment: remove every s_waitcnt and s_nop from the
hand-written kernels (kernels/other/*.s and the kernels/common/*.inc macros
they include), build the package from that copy and run the self-test. Every
kernel whose source lost an instruction must fail with a check report
(missing s_waitcnt, missing wait states, LDS race), not pass. With the checks
turned off (K100_EMU_CHECK=0) the same package is also run, and how many of
those kernels then still "pass" is printed: that is what the checks catch.

usage: strip_waits_experiment.py K100-BUILD-KERNELS K100-SELFTEST KERNELS-DIR
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

WAITS_AND_NOPS = re.compile(r"^\s*s_(waitcnt|nop)\b")
NOPS = re.compile(r"^\s*s_nop\b")
ANY_REPORT = ("emulator fault: missing s_waitcnt", "emulator fault: missing wait states (hazard)",
              "emulator fault: LDS race")
HAZARD_REPORT = ("emulator fault: missing wait states (hazard)",)


def strip(path: Path, pattern) -> int:
    lines = path.read_text().splitlines(keepends=True)
    kept = [l for l in lines if not pattern.match(l)]
    path.write_text("".join(kept))
    return len(lines) - len(kept)


def includes(path: Path):
    return set(re.findall(r'^\s*\.include\s+"(?:common/)?([^"]+)"', path.read_text(), re.M))


def selftest(tool, hsaco, checks_on):
    env = dict(os.environ, K100_BACKEND="emu", RT_HSACO=str(hsaco))
    if not checks_on:
        env["K100_EMU_CHECK"] = "0"
    p = subprocess.run([tool, "--group", "other", "--verbose"], capture_output=True, text=True, env=env,
                       timeout=600)
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


def experiment(build_tool, selftest_tool, kernels, what, pattern, reports):
    print(f"--- removing {what}")
    work = Path(tempfile.mkdtemp(prefix="k100_strip_"))
    try:
        copy = work / "kernels"
        shutil.copytree(kernels, copy)
        removed_inc = {p.name: strip(p, pattern) for p in sorted((copy / "common").glob("*.inc"))}
        touched = {}
        for s in sorted((copy / "other").glob("*.s")):
            n = strip(s, pattern)
            n += sum(removed_inc.get(i, 0) for i in includes(s))
            if n:
                touched[s.stem] = n
        print(f"removed {what}: {sum(removed_inc.values())} lines from kernels/common, "
              f"kernels touched: {len(touched)}")
        if not touched:
            print("nothing was removed: the experiment has nothing to show")
            return 1
        out_dir = work / "out"
        out_dir.mkdir()
        subprocess.run([build_tool, "--kernels-dir", str(copy), "--out-dir", str(out_dir)], check=True,
                       stdout=subprocess.DEVNULL)
        hsaco = out_dir / "k100lc_kernels.hsaco"
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
            print(f"{k}: {n} lines removed; checks on: {'PASS (not caught)' if passed else reported or 'FAIL without a check report'}; "
                  f"checks off: {without}")
            if passed or not reported:
                bad += 1
        print(f"{len(touched) - bad} of {len(touched)} stripped kernels reported, "
              f"{sum(1 for k in touched if off.get(k, [False])[0])} of them pass with the checks off")
        return bad
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    build_tool, selftest_tool, kernels = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    bad = experiment(build_tool, selftest_tool, kernels, "s_waitcnt and s_nop", WAITS_AND_NOPS, ANY_REPORT)
    # The NOPs alone: what is left to catch them is the hazard table.
    bad += experiment(build_tool, selftest_tool, kernels, "s_nop", NOPS, HAZARD_REPORT)
    print(f"{0 if bad else 1} passed, {1 if bad else 0} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
