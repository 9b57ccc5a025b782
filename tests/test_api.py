"""The public API of ``import ginp2p``: docs/api.md's examples run as written, every
public name resolves, and importing the package loads nothing heavy."""

from __future__ import annotations

import doctest
import subprocess
import sys
from pathlib import Path

import pytest

import ginp2p

ROOT = Path(__file__).resolve().parent.parent


def _run(code: str) -> str:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.strip()


def test_the_examples_of_the_api_document_run_as_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)  # the examples name files of the repository
    result = doctest.testfile(
        str(ROOT / "docs" / "api.md"),
        module_relative=False,
        optionflags=doctest.ELLIPSIS,
        raise_on_error=False,
    )
    assert result.attempted > 40
    assert result.failed == 0


@pytest.mark.parametrize("name", sorted(ginp2p.__all__))
def test_every_public_name_resolves(name: str) -> None:
    assert getattr(ginp2p, name) is not None
    assert name in dir(ginp2p)


def test_a_name_that_is_not_public_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'engine_apply'"):
        ginp2p.engine_apply  # noqa: B018


def test_the_public_names_are_the_library_s_own_objects() -> None:
    from ginp2p.game import engine
    from ginp2p.record import export

    assert ginp2p.apply is engine.apply
    assert ginp2p.Discard is engine.Discard
    assert ginp2p.export_document is export.document


def test_importing_the_package_loads_neither_the_engine_nor_the_network() -> None:
    loaded = _run(
        "import sys, ginp2p\n"
        "print(sorted(m for m in sys.modules if m.startswith('ginp2p') or m.split('.')[0] in "
        "('zmq', 'nacl', 'prompt_toolkit', 'zeroconf')))"
    )
    assert loaded == "['ginp2p']"


def test_the_rules_and_the_bot_load_without_the_network_or_the_console() -> None:
    loaded = _run(
        "import sys, ginp2p\n"
        "ginp2p.start_hand, ginp2p.choose_from, ginp2p.PRESETS\n"
        "print(sorted(m for m in ('zmq', 'nacl', 'prompt_toolkit', 'ginp2p.proto') "
        "if m in sys.modules))"
    )
    assert loaded == "[]"
