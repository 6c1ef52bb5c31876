"""The parts of the package (its sub-packages and top-level modules) stand in layers:
an import runs from a part down to one below it, never back up to a part that imports
it, directly or through others. Every import counts: those inside functions (a lazy
import is still a dependency) and those under ``if TYPE_CHECKING:`` too. The layers
are described in docs/extending.md.
"""

from __future__ import annotations

import ast
import textwrap
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

#: (importing part, imported part) -> where: ["nbayes/models/base.py:29", ...]
Edges = dict[tuple[str, str], list[str]]


def module_name(path: Path, src: Path) -> str:
    """``src/nbayes/text/pipeline.py`` -> ``nbayes.text.pipeline``; a package's
    ``__init__.py`` -> the package."""
    parts = path.relative_to(src).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str, src: Path) -> bool:
    where = src.joinpath(*name.split("."))
    return where.with_suffix(".py").is_file() or (where / "__init__.py").is_file()


def imported_modules(path: Path, src: Path) -> Iterator[tuple[str, int]]:
    """Every module ``path`` imports, absolute, with its line: ``from a import b`` is
    ``a.b`` where that is a module, else ``a``."""
    name = module_name(path, src)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                origin = ".".join([*base, *([node.module] if node.module else [])])
            else:
                origin = node.module or ""
            for alias in node.names:
                full = f"{origin}.{alias.name}"
                yield (full if is_module(full, src) else origin), node.lineno


def part(module: str) -> str:
    """The part a module belongs to: ``nbayes.text.pipeline`` -> ``text``,
    ``nbayes.errors`` -> ``errors``, ``nbayes`` -> ``__init__``."""
    pieces = module.split(".")
    return pieces[1] if len(pieces) > 1 else "__init__"


def part_imports(src: Path, package: str = "nbayes") -> Edges:
    """The imports between different parts of ``package`` under ``src``."""
    edges: Edges = defaultdict(list)
    for path in sorted((src / package).rglob("*.py")):
        source = part(module_name(path, src))
        for target, line in imported_modules(path, src):
            if target.split(".")[0] != package or part(target) == source:
                continue
            edges[source, part(target)].append(f"{path.relative_to(src)}:{line}")
    return edges


def circles(edges: Edges) -> list[list[str]]:
    """The parts that reach each other through imports (Tarjan's strongly connected
    components of more than one part), each sorted."""
    graph: dict[str, list[str]] = defaultdict(list)
    for a, b in edges:
        graph[a].append(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for after in graph[node]:
            if after not in index:
                visit(after)
                low[node] = min(low[node], low[after])
            elif after in stack:
                low[node] = min(low[node], index[after])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in list(graph):
        if node not in index:
            visit(node)
    return found


def describe(edges: Edges, circle: list[str]) -> str:
    return "\n".join(
        f"  {a} -> {b}: {', '.join(where[:4])}"
        for (a, b), where in sorted(edges.items())
        if a in circle and b in circle
    )


def test_no_import_runs_back_up():
    edges = part_imports(SRC)
    assert edges, "the scan found no import at all"
    found = circles(edges)
    report = "\n".join(f"{circle}:\n{describe(edges, circle)}" for circle in found)
    assert not found, f"parts that import each other (move code so imports run down):\n{report}"


def test_core_imports_nothing_above_it():
    """The engine every estimator shares stands on the compiled kernels and the error
    types alone (docs/extending.md: explain, save and load are written above it)."""
    above = {b: where for (a, b), where in part_imports(SRC).items() if a == "core"}
    assert set(above) <= {"_kernels", "errors", "_version"}, above


def test_the_scan_sees_lazy_relative_and_type_checking_imports(tmp_path):
    """A circle closed by an import inside a function, by a relative import or under
    ``if TYPE_CHECKING:`` is found, with the file and line that close it."""
    files = {
        "pkg/__init__.py": "",
        "pkg/low/__init__.py": "",
        "pkg/low/base.py": """
            def later():
                from pkg.high import view  # lazy, still an arrow
            """,
        "pkg/high/__init__.py": "",
        "pkg/high/view.py": "from ..low import base\n",
        "pkg/side/__init__.py": """
            from typing import TYPE_CHECKING
            if TYPE_CHECKING:
                from pkg.high.view import later
            """,
        "pkg/high/uses_side.py": "import pkg.side\n",
        "pkg/apart.py": "import pkg.low.base\n",
    }
    for name, code in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(code), encoding="utf-8")
    edges = part_imports(tmp_path, "pkg")
    assert edges["low", "high"] == [str(Path("pkg/low/base.py")) + ":3"]
    assert edges["high", "low"] == [str(Path("pkg/high/view.py")) + ":1"]
    assert edges["side", "high"] == [str(Path("pkg/side/__init__.py")) + ":4"]
    assert circles(edges) == [["high", "low", "side"]]
    del edges["low", "high"], edges["side", "high"]
    assert circles(edges) == []


def module_imports(src: Path, package: str = "nbayes") -> Edges:
    """The imports between the modules of ``package`` (a package's ``__init__`` is
    the package's own module)."""
    edges: Edges = defaultdict(list)
    for path in sorted((src / package).rglob("*.py")):
        source = module_name(path, src)
        for target, line in imported_modules(path, src):
            if target.split(".")[0] == package and target != source:
                edges[source, target].append(f"{path.relative_to(src)}:{line}")
    return edges


def test_no_two_modules_import_each_other():
    """Within a part too: no circle of modules, counting lazy and type-checking
    imports (a type named in a module below, not imported back from above)."""
    edges = module_imports(SRC)
    found = circles(edges)
    report = "\n".join(f"{circle}:\n{describe(edges, circle)}" for circle in found)
    assert not found, f"modules that import each other:\n{report}"
