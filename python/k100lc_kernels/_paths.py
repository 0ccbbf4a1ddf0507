"""Where the built tree is: build directory, engine library, kernel package, catalog.

The build directory is ``$K100_BUILD_DIR`` (relative paths are taken from the
repository root) or ``<repo>/build``; ``env.sh`` at the repository root exports
it. The kernel package is ``<build>/k100lc_kernels.hsaco`` with its catalog
``<build>/catalog.json`` beside it (``RT_HSACO`` overrides the package,
``K100LC_CATALOG`` the catalog), and the engine is ``<build>/libfm_engine.so``
(``K100LC_ENGINE`` overrides it).
"""
from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parent.parent
PACKAGE_FILE = "k100lc_kernels.hsaco"


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
    """The engine to load: K100LC_ENGINE, <build>/libfm_engine.so, else the loader's search."""
    env = os.environ.get("K100LC_ENGINE")
    if env:
        return env
    p = build_dir() / "libfm_engine.so"
    return str(p) if p.exists() else "libfm_engine.so"


def default_package() -> Path:
    """The kernel package a Runtime loads by default: RT_HSACO or <build>/k100lc_kernels.hsaco."""
    env = os.environ.get("RT_HSACO")
    if env:
        return Path(env)
    return build_dir() / PACKAGE_FILE


def catalog_for(hsaco: Path) -> list[Path]:
    """Catalog files that may describe ``hsaco``, in the order they are tried."""
    hsaco = Path(hsaco)
    return [hsaco.with_suffix(".catalog.json"), Path(str(hsaco) + ".catalog.json")]


def package_catalog() -> Path:
    """The package's own catalog: K100LC_CATALOG, catalog.json next to the module, or the build's."""
    env = os.environ.get("K100LC_CATALOG")
    if env:
        return Path(env)
    candidates = [PACKAGE_DIR / "catalog.json", build_dir() / "catalog.json",
                  build_dir() / "k100lc_kernels.catalog.json"]
    for c in candidates:
        if c.exists():
            return c
    return candidates[1]
