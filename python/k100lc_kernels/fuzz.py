"""Differential fuzzing of the kernel language: random valid programs
(fuzz_program.py) compiled by k100-cc (many kernels per source, one process
start), run on the emulator with its checks on, and compared with
``interpret`` (integers exactly; f32 bit for bit, or within
dsl_differential.F32_RTOL/F32_ATOL when the program uses exp, sqrt, rsqrt or
a division).

    python3 -m k100lc_kernels.fuzz --count 300              # seeds 0..299
    python3 -m k100lc_kernels.fuzz --seed 1234 --count 1 --show   # replay one

A failing program is printed with its seed; exit status 1 when any failed.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from .fuzz_program import KEYS, SLOTS, Program, generate


def arguments(p: Program) -> list:
    """The program's arguments, from its seed."""
    r = np.random.default_rng(p.seed)
    items = p.shape.items
    iu = np.where(r.random(items) < 0.5, r.integers(0, 16, items),
                  r.integers(0, 1 << 32, items, dtype=np.uint64)).astype(np.uint32)
    is_ = np.where(r.random(items) < 0.5, r.integers(-20, 20, items),
                   r.integers(-(1 << 31), 1 << 31, items)).astype(np.int32)
    if_ = (r.standard_normal(items) * r.choice([1.0, 10.0, 1000.0])).astype(np.float32)
    if_[r.random(items) < 0.05] = 0.0
    return [iu, is_, if_,
            np.full(items * SLOTS, 0xA5A5A5A5, np.uint32), np.full(items * SLOTS, -7, np.int32),
            np.full(items * SLOTS, 0.5, np.float32),
            np.zeros(KEYS, np.uint32), np.zeros(2 * KEYS, np.int32), np.zeros(KEYS, np.float32),
            int(r.choice([3, 17, 100, int(r.integers(0, 1 << 32))])), int(r.integers(-50, 50)),
            float(np.float32(r.standard_normal())), p.shape.width,
            r.integers(0, 256, items).astype(np.uint8), r.integers(-(1 << 15), 1 << 15, items).astype(np.int16),
            np.zeros(items, np.uint8), np.zeros(items, np.int16)]


def check_batch(programs: list[Program], rt=None) -> tuple[list[tuple[Program, str]], object]:
    """Compiles the programs in one source and compares each; the failures (program, why) and the Runtime."""
    from k100lc_compiler import CompileError

    from .dsl_differential import CompiledSource, compare
    failures = []
    text = "\n\n".join(p.text for p in programs)
    try:
        cs = CompiledSource(text, rt=rt)
    except CompileError:
        if len(programs) == 1:
            raise
        out = []
        for p in programs:  # find the ones refused
            try:
                f, rt = check_batch([p], rt)
                out += f
            except CompileError as e:
                out.append((p, f"refused by k100-cc: {e}"))
        return out, rt
    try:
        for p in programs:
            try:
                diffs = compare(cs, p.name, arguments(p), p.shape.grid, p.shape.workgroup, exact=not p.approximate)
            except Exception as e:  # a fault on either side is a failure of this program
                diffs = [f"{type(e).__name__}: {e}"]
            if diffs:
                failures.append((p, "; ".join(diffs)))
    finally:
        cs.close()
    return failures, cs.rt


def run(first: int, count: int, batch: int = 25, show: bool = False, log=print,
        f16: bool = False) -> list[tuple[Program, str]]:
    """Generates `count` programs from seed `first`, checks them in batches of `batch` kernels per compiled source; returns the (program, reason) of every mismatch, each also logged with its replay command."""
    failures = []
    rt = None
    seeds = list(range(first, first + count))
    for i in range(0, len(seeds), batch):
        progs = [generate(s, f16) for s in seeds[i:i + batch]]
        if show:
            for p in progs:
                log(f"# seed {p.seed}, grid {p.shape.grid}, workgroup {p.shape.workgroup}\n{p.text}")
        f, rt = check_batch(progs, rt)
        for p, why in f:
            log(f"FAIL seed {p.seed} (grid {p.shape.grid}, workgroup {p.shape.workgroup}): {why}\n{p.text}"
                f"replay: python3 -m k100lc_kernels.fuzz --seed {p.seed} --count 1 --show{' --f16' if f16 else ''}")
        failures += f
    return failures


def main(argv=None) -> int:
    """The command line: `python3 -m k100lc_kernels.fuzz [--seed S] [--count N] ...`; exit status 1 when a program mismatched."""
    ap = argparse.ArgumentParser(prog="python3 -m k100lc_kernels.fuzz", description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--count", type=int, default=300, help="number of programs (default 300)")
    ap.add_argument("--batch", type=int, default=25, help="kernels per compiled source (default 25)")
    ap.add_argument("--show", action="store_true", help="print every program")
    ap.add_argument("--f16", action="store_true",
                    help="also f16/bf16 values and ballot")
    ap.add_argument("--jobs", type=int, default=1, help="processes at once for runs longer than --chunk")
    ap.add_argument("--chunk", type=int, default=1000,
                    help="programs per process (the engine keeps every code object it loaded; default 1000)")
    a = ap.parse_args(argv)
    os.environ["K100_EMU_CHECK"] = "all"  # waits, hazards and LDS races checked on every launch
    t0 = time.monotonic()
    if a.count > a.chunk:
        failed = _in_processes(a)
    else:
        failed = len(run(a.seed, a.count, a.batch, a.show, f16=a.f16))
    dt = time.monotonic() - t0
    print(f"{a.count} programs (seeds {a.seed}..{a.seed + a.count - 1}): {failed} failed, {dt:.1f} s")
    return 1 if failed else 0


def _in_processes(a) -> int:
    """The run in processes of a.chunk programs each, a.jobs at a time; the number of failed programs."""
    import re
    import subprocess
    starts = list(range(a.seed, a.seed + a.count, a.chunk))
    running, failed = [], 0
    while starts or running:
        while starts and len(running) < max(1, a.jobs):
            s = starts.pop(0)
            n = min(a.chunk, a.seed + a.count - s)
            cmd = [sys.executable, "-m", "k100lc_kernels.fuzz", "--seed", str(s), "--count", str(n),
                   "--batch", str(a.batch), "--chunk", str(n)] + (["--show"] if a.show else []) + (
                   ["--f16"] if a.f16 else [])
            running.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
        p = running.pop(0)
        out, _ = p.communicate()
        print(out, end="", flush=True)
        m = re.search(r"programs \(seeds \d+\.\.\d+\): (\d+) failed", out)
        failed += int(m[1]) if m else 1  # a process that ended without its summary counts as a failure
        if m is None or p.returncode not in (0, 1):
            print(f"fuzz: the process for {' '.join(p.args[3:7])} ended with status {p.returncode}", flush=True)
    return failed


if __name__ == "__main__":
    sys.exit(main())
