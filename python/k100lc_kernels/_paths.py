"""Where the engine library, the kernel package and its catalog are.

From a source tree: the build directory is ``$K100_BUILD_DIR`` (relative
paths are taken from the repository root) or ``<repo>/build``; ``env.sh`` at
the repository root exports it. The kernel package is
``<build>/k100lc_kernels.hsaco`` with its catalog ``<build>/catalog.json``
beside it, the engine ``<build>/libfm_engine.so``.

Installed (``cmake --install``): the package lives in
``<prefix>/lib/python3.X/dist-packages/k100lc_kernels``, the engine in
``<prefix>/lib``, the kernel package and catalog in ``<prefix>/share/k100lc``;
they are used unless ``K100_BUILD_DIR`` names a build directory.

``RT_HSACO`` overrides the package, ``K100LC_CATALOG`` the catalog,
``K100LC_ENGINE`` the engine, ``K100LC_SELFTEST`` libk100_selftest.so,
``K100LC_QUANT`` libk100_quant.so, ``K100LC_MODEL`` libk100_model.so.
"""
from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parent.parent
PACKAGE_FILE = "k100lc_kernels.hsaco"


def installed_prefix() -> Path | None:
    """The install prefix when this package was installed by ``cmake --install``
    (<prefix>/<libdir>/python3.X/dist-packages/k100lc_kernels, with the engine
    in <prefix>/<libdir>), else None."""
    libdir = PACKAGE_DIR.parents[2]
    if PACKAGE_DIR.parent.name in ("dist-packages", "site-packages") and (libdir / "libfm_engine.so").exists():
        return libdir.parent
    return None


def _installed(*parts: str) -> Path | None:
    """<prefix>/<parts> of an installed package when it exists and no build directory is named."""
    prefix = installed_prefix()
    if prefix is None or os.environ.get("K100_BUILD_DIR"):
        return None
    p = prefix.joinpath(*parts)
    return p if p.exists() else None


def _libdir() -> str:
    return PACKAGE_DIR.parents[2].name


def build_dir() -> Path:
    """The build directory: K100_BUILD_DIR or <repo>/build (a relative path is
    taken from the working directory when the engine is there, else from the
    repository root)."""
    b = os.environ.get("K100_BUILD_DIR") or "build"
    p = Path(b)
    if not p.is_absolute():
        cwd = Path.cwd() / p
        p = cwd if (cwd / "libfm_engine.so").exists() else REPO_ROOT / p
    return p


def engine_library() -> str:
    """The engine to load: K100LC_ENGINE, the installed one, <build>/libfm_engine.so, else the loader's search."""
    env = os.environ.get("K100LC_ENGINE")
    if env:
        return env
    installed = _installed(_libdir(), "libfm_engine.so")
    if installed:
        return str(installed)
    p = build_dir() / "libfm_engine.so"
    return str(p) if p.exists() else "libfm_engine.so"


def selftest_library() -> Path:
    """libk100_selftest.so: K100LC_SELFTEST, the installed one, or the build directory's."""
    env = os.environ.get("K100LC_SELFTEST")
    if env:
        return Path(env)
    return _installed(_libdir(), "libk100_selftest.so") or build_dir() / "libk100_selftest.so"


def quant_library() -> Path | None:
    """libk100_quant.so (the GGUF reader and codecs) of an installed package, else
    the build directory's when it exists, else None."""
    p = _installed(_libdir(), "libk100_quant.so") or build_dir() / "libk100_quant.so"
    return p if p.exists() else None


def model_library() -> str:
    """libk100_model.so (the model layers and the generate command): K100LC_MODEL, the installed one,
    or the build directory's."""
    env = os.environ.get("K100LC_MODEL")
    if env:
        return env
    return str(_installed(_libdir(), "libk100_model.so") or build_dir() / "libk100_model.so")


def default_package() -> Path:
    """The kernel package a Runtime loads by default: RT_HSACO, the installed one or <build>/k100lc_kernels.hsaco."""
    env = os.environ.get("RT_HSACO")
    if env:
        return Path(env)
    return _installed("share", "k100lc", PACKAGE_FILE) or build_dir() / PACKAGE_FILE


def catalog_for(hsaco: Path) -> list[Path]:
    """Catalog files that may describe ``hsaco``, in the order they are tried."""
    hsaco = Path(hsaco)
    return [hsaco.with_suffix(".catalog.json"), Path(str(hsaco) + ".catalog.json")]


def package_catalog() -> Path:
    """The package's own catalog: K100LC_CATALOG, catalog.json next to the module, the installed or the build's."""
    env = os.environ.get("K100LC_CATALOG")
    if env:
        return Path(env)
    candidates = [PACKAGE_DIR / "catalog.json"]
    installed = _installed("share", "k100lc", "catalog.json")
    if installed:
        candidates.append(installed)
    candidates += [build_dir() / "catalog.json", build_dir() / "k100lc_kernels.catalog.json"]
    for c in candidates:
        if c.exists():
            return c
    return candidates[-2]
