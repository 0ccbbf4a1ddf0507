"""Every public module, class, function and method of the Python package
has a docstring (names without a leading underscore; dunder methods are
covered by their class, property setters by the getter)."""
import ast
import os
from pathlib import Path

SOURCE = Path(os.environ.get("K100_SOURCE_DIR", Path(__file__).resolve().parents[3]))
PACKAGE = SOURCE / "python" / "k100lc_kernels"


def undocumented(path: Path):
    tree = ast.parse(path.read_text(), str(path))
    if ast.get_docstring(tree) is None:
        yield f"{path.name}: module"

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = child.name
                if name.startswith("_") or any(isinstance(d, ast.Attribute) and d.attr == "setter"
                                               for d in getattr(child, "decorator_list", [])):
                    continue  # a property's setter shares the getter's docstring
                if ast.get_docstring(child) is None:
                    yield f"{path.name}: {prefix}{name}"
                if isinstance(child, ast.ClassDef):
                    yield from visit(child, prefix + name + ".")

    yield from visit(tree, "")


def test_every_public_name_has_a_docstring():
    files = sorted(PACKAGE.glob("*.py"))
    assert files
    missing = [m for f in files for m in undocumented(f)]
    assert not missing, "no docstring: " + ", ".join(missing)
