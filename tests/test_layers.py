"""The package's folders are its layers, and the imports keep to them.

Each subpackage of ``ginp2p`` is one layer. A module imports only its own layer, the
layers below it, ``ginp2p.errors`` and the version (``from ginp2p import __version__``);
no module imports one above. The four lowest layers are pure (no clock, randomness,
environment, files or threads of their own), nothing imports the command line but the
entry point, nothing in the library imports the testing kit, no two modules import each
other even for types only, and no module grows past the size a reader takes in at once."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "ginp2p"
#: bottom to top; a layer may import those before it
LAYERS = ["game", "proto", "present", "record", "files", "net", "app", "console", "testing", "cli"]
#: modules outside the layers: what every layer may import, and the entry points
ROOT = {"ginp2p.errors": "anyone", "ginp2p": "top", "ginp2p.__main__": "top"}
#: the layers that compute and never touch the world
PURE = ["game", "proto", "present", "record"]
#: what only an edge may use: clocks, the environment, files, threads, sockets (the
#: computer player takes a seeded ``random.Random``, so ``random`` is not here)
EDGE_ONLY = {
    "os",
    "sys",
    "time",
    "secrets",
    "datetime",
    "socket",
    "pathlib",
    "threading",
    "asyncio",
    "subprocess",
    "zmq",
    "zeroconf",
    "ifaddr",
    "spake2",
    "prompt_toolkit",
}
#: the network and the console
IO_PACKAGES = ["zmq", "zeroconf", "ifaddr", "spake2", "prompt_toolkit", "asyncio", "socket"]
MAX_LINES = 600


def _name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def _imports(module: str) -> tuple[set[str], set[str]]:
    """(the ginp2p modules, the other top-level packages) a module imports, anywhere in
    the file (inside functions and ``if TYPE_CHECKING:`` too), relative ones resolved."""
    path = MODULES[module]
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    ours: set[str] = set()
    theirs: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            source = ".".join([*base, *([node.module] if node.module else [])])
            names = [
                f"{source}.{a.name}" if f"{source}.{a.name}" in MODULES else source
                for a in node.names
                if (source, a.name) != ("ginp2p", "__version__")  # the version, not the API
            ]
        else:
            continue
        for name in names:
            if name.split(".")[0] == "ginp2p":
                ours.add(
                    max((m for m in MODULES if name == m or name.startswith(m + ".")), key=len)
                )
            else:
                theirs.add(name.split(".")[0])
    return ours - {module}, theirs


def test_every_module_lives_in_a_layer() -> None:
    assert [m for m in MODULES if _layer(m) is None and m not in ROOT] == []


@pytest.mark.parametrize("layer", LAYERS)
def test_a_layer_imports_only_itself_and_the_layers_below(layer: str) -> None:
    allowed = set(LAYERS[: LAYERS.index(layer) + 1])
    upward = {
        module: sorted(
            t for t in _imports(module)[0] if t != "ginp2p.errors" and _layer(t) not in allowed
        )
        for module in MODULES
        if _layer(module) == layer
    }
    assert {m: found for m, found in upward.items() if found} == {}


def test_the_errors_module_imports_nothing_of_ours() -> None:
    assert _imports("ginp2p.errors")[0] == set()


@pytest.mark.parametrize("layer", PURE)
def test_the_pure_layers_read_no_clock_environment_disk_or_network(layer: str) -> None:
    leaks = {m: sorted(_imports(m)[1] & EDGE_ONLY) for m in MODULES if _layer(m) == layer}
    assert {m: found for m, found in leaks.items() if found} == {}


def test_only_the_entry_point_imports_the_command_line() -> None:
    users = sorted(
        m for m in MODULES if _layer(m) != "cli" and any(_layer(t) == "cli" for t in _imports(m)[0])
    )
    assert users == ["ginp2p.__main__"]


def test_the_library_never_imports_the_testing_kit() -> None:
    users = sorted(
        m
        for m in MODULES
        if _layer(m) != "testing" and any(_layer(t) == "testing" for t in _imports(m)[0])
    )
    assert users == []


def test_no_two_modules_import_each_other_even_for_types() -> None:
    graph = {m: _imports(m)[0] & set(MODULES) for m in MODULES}
    # a package's __init__ re-exporting its modules is not a circle of the design
    graph = {m: {t for t in ts if not m.startswith(t + ".")} for m, ts in graph.items()}
    circles = []
    for start in graph:
        seen, stack = set(), [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in graph[node]:
                if nxt == start:
                    circles.append(tuple(sorted(path)))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*path, nxt]))
    assert sorted(set(circles)) == []


def test_no_module_is_longer_than_a_reader_takes_in() -> None:
    long = {
        m: n
        for m, p in MODULES.items()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


def test_reading_a_game_loads_neither_the_network_nor_the_console() -> None:
    """`ginp2p audit` on a machine (or in a script) that never plays."""
    game = PACKAGE.parent / "tests" / "corpus" / "clean-classic.ginlog"
    code = (
        "import sys\n"
        "import ginp2p\n"
        f"assert ginp2p.audit_file({str(game)!r}).exit_code == 0\n"
        f"ginp2p.export_document(ginp2p.load_replay({str(game)!r}))\n"
        f"print(sorted(m for m in {IO_PACKAGES!r} if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert out.strip() == "[]"
