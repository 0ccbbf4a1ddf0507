"""W4Runner: the INT4 decode GEMVs and the W4A4 prefill GEMM from Python
(PYTHON_API.md 6.3; formats in FORMATS.md 3-4).

    from k100lc_kernels import Runtime
    from k100lc_kernels.rt4 import RT4File, W4Runner
    rt = Runtime()
    with RT4File("model.rt4") as f, W4Runner(rt) as run:
        t = f.tensor("model.layers.0.mlp.down_proj.weight")
        wq, ws = f.upload_weight(rt, t)
        y = run.gemv("w4a8", wq, ws, x, t.rows, t.cols)       # x f32 [M, K], M = 1..4 -> [M, N]
        wq2, wsc = f.upload_weight_gemm(rt, t)
        c = run.gemm(wq2, wsc, xs, t.rows, t.cols)             # xs [M, K], M % 128 == 0

Every launch takes its workgroup, grid and the arguments the host derives
(counts, magic multipliers) from the kernel's launch contract in the loaded
package's catalog (``Runtime.launch_contract``); the runner supplies the
named sizes and the buffers. Activations are quantised one row per launch
(M = 1, pointers advanced), the decode paths:

* ``"w4a8"``: ``quant_act`` per row (int8 even/odd streams, f32 scale and
  int32 sum per 128), then ``gemv_w4a8<M,false,R>``;
* ``"w4a4"``: ``quant_act4`` per row (int4, f32 scale per 32), then
  ``gemv_w4a4<M>``;
* ``"w4a16"`` (this package's addition): f32 activations against the
  compressed-tensors bytes (offset-binary u32 codes, bf16 scales), by
  ``int4_gemv_k`` when the package has it, else ``int4_dot_k`` and
  ``reduce_blocks_k`` per row.

Scratch buffers (x, y, activation codes and scales) are allocated on first
use per (name, size) and kept until ``close()``. Errors: ``ValueError`` for a
shape, count, divisibility or workgroup size the kernels do not take (naming
the value), or a kernel whose catalog entry carries no launch contract.
"""
from __future__ import annotations

import numpy as np

__all__ = ["W4Runner", "W4A8_KERNEL", "W4A4_KERNEL", "W4A16_KERNEL"]

W4A8_KERNEL = {1: "gemv_w4a8<1,false,1>", 2: "gemv_w4a8<2,false,2>",
               3: "gemv_w4a8<3,false,2>", 4: "gemv_w4a8<4,false,2>"}
W4A4_KERNEL = {1: "gemv_w4a4<1>", 2: "gemv_w4a4<2>", 3: "gemv_w4a4<3>", 4: "gemv_w4a4<4>"}
W4A16_KERNEL = "int4_gemv_k"
_GROUP = 128       # weight scale group of the INT4 formats
_SG = 32           # W4A4 decode activation group
_MAX_ROWS = 4      # activation rows one decode GEMV launch takes


def _count(v, what: str) -> int:
    if isinstance(v, np.integer):
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{what} must be an int, not {type(v).__name__}")
    if v < 1:
        raise ValueError(f"{what} = {v}: must be at least 1")
    return v


class W4Runner:
    """The W4 decode GEMVs and the W4A4 prefill GEMM on one Runtime (PYTHON_API.md 6.3); a context
    manager (``close()`` frees the scratch buffers)."""

    BM = 128   # GEMM tile rows
    BN = 64    # GEMM tile columns
    QG = 128   # GEMM activation quantisation group

    def __init__(self, rt):
        self.rt = rt
        self._scratch: dict[tuple, int] = {}
        self._contracts: dict[str, object] = {}
        self._ids: dict[int, int] = {}   # n -> device [0, 1, ..., n-1] (u32), the dot kernels' row ids
        # "w4a16" takes int4_gemv_k when the package has it; False: always int4_dot_k + reduce_blocks_k
        self.use_int4_gemv = True

    # ------------------------------------------------------------ buffers and launches
    def scratch(self, name: str, nbytes: int) -> int:
        """The device buffer kept under (name, nbytes), allocated (zeroed) on first use."""
        key = (name, int(nbytes))
        p = self._scratch.get(key)
        if p is None:
            p = self.rt.alloc(max(1, key[1]))
            self.rt.memset(p, 0, max(1, key[1]))
            self._scratch[key] = p
        return p

    def close(self) -> None:
        """Frees every scratch buffer (after the queued launches)."""
        scratch, self._scratch, self._ids = self._scratch, {}, {}
        for p in scratch.values():
            self.rt.free(p)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def contract(self, kernel: str):
        """The kernel's launch contract from the loaded package (cached); ValueError when it has none."""
        c = self._contracts.get(kernel)
        if c is None:
            c = self.rt.launch_contract(kernel)
            self._contracts[kernel] = c
        return c

    def launch(self, kernel: str, sizes: dict, argv: list, threads: int | None = None):
        """Launches `kernel` by its launch contract: `sizes` (a superset of the contract's named
        sizes), `argv` every explicit argument in catalog order with None where the contract derives
        the value (a value given where the contract derives one must agree with it); `threads`, when
        given, the workgroup size the launch must have (the contract's choice ``wg`` when it has
        one). Returns the evaluated ``Launch``."""
        c, plan = self._plan(kernel, sizes, threads)
        if len(argv) != len(c.args):
            raise ValueError(f"{kernel}: {len(argv)} arguments given, its contract lists {len(c.args)} "
                             f"({' '.join(c.args)})")
        out = []
        for name, v in zip(c.args, argv):
            if name in plan.args:
                if v is not None and v != plan.args[name]:
                    raise ValueError(f"{kernel}: argument {name!r} is {v}, its launch contract derives "
                                     f"{plan.args[name]}")
                v = plan.args[name]
            elif name in plan.workspaces:
                if v is None:
                    v = self.scratch(f"{kernel}.{name}", plan.workspaces[name]) if plan.workspaces[name] else 0
            elif v is None:
                raise ValueError(f"{kernel}: argument {name!r} is not derived by its launch contract")
            out.append(v)  # floats stay floats: the runtime packs them by the catalog's types
        if plan.grid[1:] == (1, 1):
            self.rt.launch(kernel, plan.grid[0], plan.workgroup, out)
        else:
            self.rt.launch3d(kernel, *plan.grid, plan.workgroup, 1, 1, out)
        return plan

    # ------------------------------------------------------------ decode GEMVs
    def _rows_in(self, x, k: int, x_dev, m, upload: bool, name: str):
        """(device pointer of the f32 rows, M) for a host x [M, K] or a device x_dev with m rows."""
        if x_dev is not None:
            if m is None:
                raise ValueError("x_dev given without m (its number of rows)")
            return x_dev, _count(m, "m")
        if x is None:
            raise ValueError("neither x nor x_dev given")
        x = np.asarray(x, dtype=np.float32)
        if x.ndim != 2 or x.shape[1] != k:
            raise ValueError(f"x must be f32 [M, K = {k}], got shape {x.shape}")
        if m is not None and m != x.shape[0]:
            raise ValueError(f"m = {m} differs from the {x.shape[0]} rows of x")
        rows = _count(x.shape[0], "M (the rows of x)")
        p = self.scratch(name, x.nbytes)
        if upload:
            self.rt.upload(p, np.ascontiguousarray(x))
        return p, rows

    def gemv_device(self, kind, wq, ws, x, n, k, threads=256, upload=True, x_dev=None, y_dev=None, m=None,
                    sync=True) -> int:
        """Enqueues y [M, N] = activations [M, K] (M = 1..4) times the weights wq / ws of `kind`
        (``"w4a8"``, ``"w4a4"``: RT4 two's-complement codes and f16 scales [N, K/128]; ``"w4a16"``:
        compressed-tensors codes and bf16 scales); the device pointer of y (f32), after a sync when
        `sync`. x is f32 [M, K] on the host (uploaded unless ``upload=False``, which reuses the x
        of the previous call of that size) or x_dev with m rows; y_dev chooses the output."""
        if kind not in ("w4a8", "w4a4", "w4a16"):
            raise ValueError(f"kind {kind!r} is not one of 'w4a8', 'w4a4', 'w4a16'")
        n, k = _count(n, "n"), _count(k, "k")
        if k % _GROUP:
            raise ValueError(f"k = {k} is not a multiple of the weight group {_GROUP}")
        threads = _count(threads, "threads")
        xp, rows = self._rows_in(x, k, x_dev, m, upload, "x")
        if rows > _MAX_ROWS:
            raise ValueError(f"M = {rows}: the decode GEMVs take 1 to {_MAX_ROWS} activation rows")
        y = y_dev if y_dev is not None else self.scratch("y", rows * n * 4)
        if kind == "w4a16" and y == xp:
            raise ValueError("w4a16 reads x while it writes y: y_dev must not be x")
        sizes = {"n": n, "N": n, "nrows": n, "k": k, "K": k, "m": rows, "M": rows, "rows": rows}
        if kind == "w4a8":
            self._check_threads(W4A8_KERNEL[rows], sizes, threads)
            g = k // _GROUP
            ae, ao = self.scratch("ae", rows * k // 2), self.scratch("ao", rows * k // 2)
            asc, asu = self.scratch("asc8", rows * g * 4), self.scratch("asu", rows * g * 4)
            one = dict(sizes, m=1, M=1, rows=1)
            for r in range(rows):
                self.launch("quant_act", one, [xp + r * k * 4, ae + r * k // 2, ao + r * k // 2, asc + r * g * 4,
                                               asu + r * g * 4, 1, k])
            self.launch(W4A8_KERNEL[rows], sizes, [wq, ws, ae, ao, asc, asu, y, n, k], threads)
        elif kind == "w4a4":
            self._check_threads(W4A4_KERNEL[rows], sizes, threads)
            g = k // _SG
            aq, asc = self.scratch("aq4", rows * k // 2), self.scratch("asc4", rows * g * 4)
            one = dict(sizes, m=1, M=1, rows=1)
            for r in range(rows):
                self.launch("quant_act4", one, [xp + r * k * 4, aq + r * k // 2, asc + r * g * 4, 1, k])
            self.launch(W4A4_KERNEL[rows], sizes, [wq, ws, aq, asc, y, n, k], threads)
        else:
            self._w4a16(wq, ws, xp, y, n, k, rows, sizes)
        if sync:
            self.rt.sync()
        return y

    def _plan(self, kernel: str, sizes: dict, threads: int | None):
        """(contract, Launch) for `sizes` with `threads` as the workgroup size; ValueError naming the
        kernel when the contract needs a size the runner lacks, refuses the sizes or gives another
        workgroup size."""
        c = self.contract(kernel)
        missing = [s for s in c.sizes if s not in sizes]
        if missing:
            raise ValueError(f"{kernel}: its launch contract needs the size {missing[0]!r}, which the runner "
                             f"does not know (it knows {sorted(sizes)})")
        choices = {"wg": threads} if threads is not None and "wg" in c.choices() else {}
        try:
            plan = c.evaluate({s: sizes[s] for s in c.sizes}, choices)
        except ValueError as e:
            raise ValueError(f"{kernel}: {e}") from None
        if threads is not None and plan.workgroup != threads:
            raise ValueError(f"{kernel} runs with workgroups of {plan.workgroup} threads, not threads = {threads}")
        return c, plan

    def _check_threads(self, kernel: str, sizes: dict, threads: int) -> None:
        """ValueError before any launch when the kernel does not run with `threads`."""
        self._plan(kernel, sizes, threads)

    def _w4a16(self, w, scale, xp, y, n, k, rows, sizes) -> None:
        if self.use_int4_gemv and self.rt.has(W4A16_KERNEL):
            self.launch(W4A16_KERNEL, sizes, [w, scale, xp, y, n, k, rows])
            return
        # The fused dot kernel, one work-item per 128-block, and the per-row sum (PYTHON_API.md 7.2).
        nbpr = k // _GROUP
        nblocks = n * nbpr
        part = self.scratch("partial", nblocks * 4)
        ids = self._ids.get(n)
        if ids is None:
            ids = self._ids[n] = self.scratch("ids", n * 4)
            self.rt.upload(ids, np.arange(n, dtype=np.uint32))
        dsz = dict(sizes, nblocks=nblocks, nbpr=nbpr, rows_per_exp=n, rows_per_w=n)
        for r in range(rows):
            self.launch("int4_dot_k", dsz, [w, xp + r * k * 4, part, nblocks, None, nbpr, None, n, None, scale, ids,
                                            nbpr * 64, n, None])
            self.launch("reduce_blocks_k", dict(dsz, nrows=n), [part, y + r * n * 4, n, nbpr])

    def gemv(self, kind, wq, ws, x, n, k, threads=256) -> np.ndarray:
        """y = gemv_device(...) downloaded: f32 [M, N]."""
        x = np.asarray(x, dtype=np.float32)
        y = self.gemv_device(kind, wq, ws, x, n, k, threads=threads)
        return self.rt.download(y, x.shape[0] * n, np.float32).reshape(x.shape[0], n)

    # ------------------------------------------------------------ prefill GEMM
    def gemm_device(self, wq, wsc, x, n, k, threads=256, upload=True, quantize=True, x_dev=None, c_dev=None,
                    m=None, sync=True) -> int:
        """Enqueues C [M, N] = int4(x) [M, K] times the RT4 weights wq with group-major f32 scales wsc
        [K/128, N] (M % 128, N % 64, K % 128 == 0): ``quant_rows_fast_k`` then ``gemm_w4a4_flat``
        (``gemm_w4a4`` per 128-row tile when N == 64). ``quantize=False`` reuses the codes of the
        previous call of that size. The device pointer of C (f32), after a sync when `sync`."""
        n, k = _count(n, "n"), _count(k, "k")
        threads = _count(threads, "threads")
        xp, rows = self._rows_in(x, k, x_dev, m, upload, "gx")
        for v, d, what in ((rows, self.BM, "M"), (n, self.BN, "N"), (k, self.QG, "K")):
            if v % d:
                raise ValueError(f"{what} = {v} is not a multiple of {d} (the W4A4 GEMM)")
        c = c_dev if c_dev is not None else self.scratch("c", rows * n * 4)
        g = k // self.QG
        aq, asc = self.scratch("gaq", rows * k // 2), self.scratch("gasc", rows * g * 4)
        nbn = n // self.BN
        base = {"n": n, "N": n, "k": k, "K": k, "G": self.QG, "nbn": nbn}
        if nbn >= 2:
            sizes = dict(base, m=rows, M=rows, rows=rows)
            self._check_threads("gemm_w4a4_flat", sizes, threads)
            if quantize:
                self.launch("quant_rows_fast_k", sizes, [aq, asc, xp, k, self.QG, rows, k, 0, g])
            self.launch("gemm_w4a4_flat", sizes, [aq, wq, asc, wsc, c, rows, n, k, nbn, None], threads)
        else:
            sizes = dict(base, m=self.BM, M=self.BM, rows=self.BM)
            self._check_threads("gemm_w4a4", sizes, threads)
            for t in range(rows // self.BM):
                aq_t, asc_t = aq + t * self.BM * k // 2, asc + t * g * self.BM * 4
                if quantize:
                    self.launch("quant_rows_fast_k", sizes,
                                [aq_t, asc_t, xp + t * self.BM * k * 4, k, self.QG, self.BM, k, 0, g])
                self.launch("gemm_w4a4", sizes, [aq_t, wq, asc_t, wsc, c + t * self.BM * n * 4, self.BM, n, k],
                            threads)
        if sync:
            self.rt.sync()
        return c

    def gemm(self, wq, wsc, x, n, k, threads=256) -> np.ndarray:
        """C = gemm_device(...) downloaded: f32 [M, N]."""
        x = np.asarray(x, dtype=np.float32)
        c = self.gemm_device(wq, wsc, x, n, k, threads=threads)
        return self.rt.download(c, x.shape[0] * n, np.float32).reshape(x.shape[0], n)
