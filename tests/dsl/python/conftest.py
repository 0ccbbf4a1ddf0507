"""The packages from the source tree; the build from K100_BUILD_DIR (set by CTest)."""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parents[2]
for p in (SOURCE / "python", HERE):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))
