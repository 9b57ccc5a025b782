"""The sans-IO core stays pure: the rules, the log and the shuffle read no clock, no
randomness and no disk of their own, and nothing that only reads a game (audit,
replay, export) pulls in the network or the console."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "ginp2p"
#: the pure core: a state in, a state out
PURE = ["cards", "melds", "rules", "engine", "match", "events", "log", "shuffle", "table",
        "protocol", "export", "words"]  # fmt: skip
#: what only an edge may use: clocks, randomness, the environment, files, threads
EDGE_ONLY = {"os", "sys", "time", "random", "secrets", "datetime", "socket", "pathlib",
             "threading", "asyncio", "subprocess"}  # fmt: skip
#: the network and the console
IO_PACKAGES = ["zmq", "zeroconf", "ifaddr", "spake2", "prompt_toolkit", "asyncio", "socket"]


def _imports(module: str) -> set[str]:
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def _ginp2p_imports(path: Path) -> set[str]:
    """The ginp2p modules a file imports, relative imports resolved (``..cli`` in
    ``tui/replay.py`` is ``ginp2p.cli``), wherever in the file the import stands."""
    here = ["ginp2p", *path.parent.relative_to(PACKAGE).parts]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found |= {module} | {f"{module}.{a.name}" for a in node.names}
    return {m for m in found if m.split(".")[0] == "ginp2p"}


def test_the_core_modules_import_no_clock_randomness_or_disk() -> None:
    leaks = {m: sorted(_imports(m) & EDGE_ONLY) for m in PURE}
    assert {m: found for m, found in leaks.items() if found} == {}


def test_reading_a_game_loads_neither_the_network_nor_the_console() -> None:
    """`ginp2p audit` on a machine (or in a script) that never plays."""
    game = PACKAGE.parent / "tests" / "corpus" / "clean-classic.ginlog"
    code = ("import sys\n"
            "from ginp2p import audit, export, replay\n"
            f"assert audit.audit({str(game)!r}).exit_code == 0\n"
            f"export.document(replay.load({str(game)!r}))\n"
            f"print(sorted(m for m in {IO_PACKAGES!r} if m in sys.modules))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60).stdout  # fmt: skip
    assert out.strip() == "[]"


def test_only_the_entry_point_imports_the_command_line() -> None:
    """The command line is the top: the console, the replay viewer and the library
    never reach up into it (what they share with it lives below, in ginp2p.charset)."""
    users = sorted(f.relative_to(PACKAGE).as_posix() for f in PACKAGE.rglob("*.py")
                   if "ginp2p.cli" in _ginp2p_imports(f))  # fmt: skip
    assert users == ["__main__.py"]
