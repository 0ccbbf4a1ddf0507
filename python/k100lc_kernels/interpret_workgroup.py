"""One workgroup of an interpreted kernel: its lanes as NumPy vectors, the
masks of SIMT control flow, memory with bounds checks, LDS with the race
check, and the cross-lane operations of its waves of 64 lanes.

Control flow by masks: a statement runs on the lanes of its mask; ``off``
holds the lanes that left by ``break``/``continue``/``return`` and wait for
the end of their loop (``gone``: those that returned, until the end of the
kernel or of the helper). A loop runs while any lane is in it, as the
compiled loop runs while any lane of the wave is.
"""
from __future__ import annotations

import numpy as np

from .interpret_values import DTYPES


class InterpretError(RuntimeError):
    """A fault of the interpreted program (out-of-bounds access, LDS race,
    division by zero, barrier not reached by every wave, an unassigned
    variable read, ...) or a construct the interpreter refuses; the message
    names the file, line, kernel and what went wrong."""


class Workgroup:
    """One workgroup's state while it runs: ids per lane, variables, masks of lanes that returned or broke, LDS arrays and their race records."""
    def __init__(self, program, memory: dict, group: tuple, wg: tuple, grid: tuple, lds_check: bool):
        self.p = program
        self.memory = memory  # var slot -> flat NumPy array (pointer parameters)
        self.group = group
        self.wg = wg
        n = wg[0] * wg[1] * wg[2]
        self.n = n
        flat = np.arange(n, dtype=np.int64)
        lid = (flat % wg[0], (flat // wg[0]) % wg[1], flat // (wg[0] * wg[1]))
        self.lid = [x.astype(np.uint32) for x in lid]
        self.bid = [np.uint32(g) for g in group]
        self.gid = [(np.uint32(group[d]) * np.uint32(wg[d]) + self.lid[d]).astype(np.uint32) for d in range(3)]
        self.lane = (flat % 64).astype(np.uint32)
        self.wave = (flat // 64).astype(np.int64)
        self.waves = (n + 63) // 64
        self.vars = [np.zeros(n, DTYPES[t]) if t in DTYPES else None for t in program.var_types]
        self.defined = [np.zeros(n, bool) for _ in program.var_types]
        self.off = np.zeros(n, bool)
        self.gone = np.zeros(n, bool)
        self.breaks: list = []  # per open loop: the lanes that left it by break
        self.lds = {slot: np.zeros(count, DTYPES[elem]) for slot, (elem, count) in program.lds.items()}
        self.lds_check = lds_check
        self.epoch = 1
        self.race = {}
        if lds_check and self.waves > 1:
            for slot, arr in self.lds.items():
                k = arr.size
                self.race[slot] = [np.zeros(k, np.int64), np.zeros(k, np.int64), np.zeros(k, bool),
                                   np.zeros(k, np.int64), np.zeros(k, np.int64)]
        self.trips = 0
        from .interpret_compile import MAX_TRIPS
        self.max_trips = MAX_TRIPS
        self.where = ""  # the location of the statement running, for messages

    def fail(self, line: int, message: str):
        """Raises InterpretError at `line` naming the kernel and workgroup."""
        raise InterpretError(f"{self.p.where(line)}: {message} (kernel '{self.p.name}', workgroup "
                             f"{self.group_text()})")

    def group_text(self) -> str:
        """The workgroup's id as messages print it."""
        g = self.group
        return str(g[0]) if g[1] == 0 and g[2] == 0 and len(self.p.grid) == 1 else str(tuple(g[:len(self.p.grid)]))

    def item(self, lane_index: int) -> str:
        """A lane's work-item id as messages print it."""
        d = len(self.p.grid)
        ids = tuple(int(self.lid[k][lane_index]) for k in range(d))
        return f"work-item {ids[0] if d == 1 else ids}"

    # ------------------------------------------------------------ memory
    def index_of(self, idx, m, line: int, what: str, name: str, size: int):
        """The active lanes' indices (int64), checked against [0, size)."""
        i = np.broadcast_to(np.asarray(idx), (self.n,))[m].astype(np.int64)
        bad = (i < 0) | (i >= size)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            lane_index = int(np.flatnonzero(m)[k])
            self.fail(line, f"{what} '{name}' at index {int(i[k])} is out of bounds ('{name}' has {size} "
                            f"elements), {self.item(lane_index)}")
        return i

    def race_access(self, slot: int, idx, m, line: int, name: str, write: bool, atomic: bool):
        """The LDS race check: two waves touching one element between two
        barriers, one of them writing (atomics against atomics excepted)."""
        st = self.race.get(slot)
        if st is None:
            return
        w_epoch, w_wave, w_atomic, r_epoch, r_waves = st
        waves = self.wave[m]
        bit = np.left_shift(np.int64(1), waves)
        clash = (w_epoch[idx] == self.epoch) & (w_wave[idx] != waves) & ~(atomic & w_atomic[idx])
        if write:
            clash |= (r_epoch[idx] == self.epoch) & ((r_waves[idx] & ~bit) != 0)
            # lanes of different waves writing one element in this very access
            order = np.lexsort((waves, idx))
            si, sw = idx[order], waves[order]
            same = (si[1:] == si[:-1]) & (sw[1:] != sw[:-1])
            if same.any() and not atomic:
                clash[order[1:][same]] = True
        if clash.any():
            k = int(np.flatnonzero(clash)[0])
            self.fail(line, f"LDS race on '{name}'[{int(idx[k])}]: waves {int(waves[k])} and another access it "
                            f"between two barriers, one of them writing (wave {int(waves[k])} "
                            f"{'writes' if write else 'reads'}); separate the accesses with barrier()")
        if write:
            w_epoch[idx] = self.epoch
            w_wave[idx] = waves
            w_atomic[idx] = atomic
        else:
            stale = r_epoch[idx] != self.epoch
            r_waves[idx[stale]] = 0
            r_epoch[idx] = self.epoch
            np.bitwise_or.at(r_waves, idx, bit)

    def barrier(self, m, line: int):
        """Every wave still running must reach the barrier (a wave reaches it
        when one of its lanes does, as its scalar s_barrier runs then)."""
        if self.waves > 1:
            reached = np.zeros(self.waves, bool)
            reached[self.wave[m]] = True
            alive = np.zeros(self.waves, bool)
            alive[self.wave[~self.gone]] = True
            missing = np.flatnonzero(alive & ~reached)
            if missing.size:
                self.fail(line, f"barrier() is reached by wave(s) {np.flatnonzero(reached).tolist()} but not by "
                                f"wave(s) {missing.tolist()} of the workgroup: a barrier must be in control flow "
                                "that every wave of the workgroup takes the same way")
        self.epoch += 1

    # ------------------------------------------------------------ cross-lane
    def wave_lanes(self, m):
        """(wave, its lane indices in the workgroup, which of them are active) for each wave."""
        for w in range(self.waves):
            lo, hi = w * 64, min(self.n, w * 64 + 64)
            yield w, lo, hi, m[lo:hi]
