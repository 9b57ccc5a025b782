"""The guest's pairing code, asked at the terminal: asked again after a typo (which
costs no attempt) and after a wrong code (which cost one of the host's attempts: the
host goes on counting them, and shows a new code after the last), with the code's
words completed by Tab."""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import Iterable
from typing import Any

from ginp2p.net.pairing import DEFAULT_ATTEMPTS, WORDS, canonical_code

__all__ = ["FIRST_QUESTION", "ask_code", "code_again", "word_completions"]

FIRST_QUESTION = "first game with this host: its pairing code? "
AGAIN_QUESTION = "the host's pairing code? "

_FRAGMENT = re.compile(r"[A-Za-z]*$")


def _being_typed(typed: str) -> str:
    """The letters of the word being typed at the end of ``typed``: after the number,
    a blank or a hyphen, or after a whole first word typed with none (``7tulipanch``)."""
    found = _FRAGMENT.search(typed)
    letters = found.group() if found else ""
    first = next((w for w in WORDS if letters.lower().startswith(w)), "")
    return letters[len(first) :] if first and len(letters) > len(first) else letters


def word_completions(typed: str) -> list[str]:
    """The code words that the word being typed at the end of ``typed`` may become
    (``7-tul`` → ``tulip``; none before its first letter). No word of the list begins
    another, so a word typed whole has itself alone."""
    start = _being_typed(typed).lower()
    return [w for w in WORDS if w.startswith(start)] if start else []


def _completer() -> Any:
    """Tab completes the code word being typed; after the first word, a ``-`` follows
    it, ready for the second (``7-tul`` Tab → ``7-tulip-``)."""
    from prompt_toolkit.completion import CompleteEvent, Completer, Completion
    from prompt_toolkit.document import Document

    class CodeWords(Completer):
        def get_completions(self, document: Document,
                            complete_event: CompleteEvent) -> Iterable[Completion]:  # fmt: skip
            typed = document.text_before_cursor
            words = word_completions(typed)
            if not words:
                return
            fragment = len(_being_typed(typed))
            first = not re.search(r"[A-Za-z]", typed[: len(typed) - fragment])
            for word in words:
                yield Completion(word + "-" * first, -fragment, display=word)

    return CodeWords()


async def _line(question: str) -> str | None:
    """One line from the person at this terminal, code words completed with Tab (None
    at the end of input; Ctrl-C is KeyboardInterrupt, as anywhere before the game)."""
    if sys.stdin is not None and sys.stdin.isatty():
        from prompt_toolkit import PromptSession

        try:
            ps: PromptSession[str] = PromptSession(completer=_completer(),
                                                   complete_while_typing=False)  # fmt: skip
            return await ps.prompt_async(question)
        except EOFError:
            return None
    print(question, end="", flush=True)
    line = await asyncio.to_thread(sys.stdin.readline) if sys.stdin is not None else ""
    return line.rstrip("\n") if line else None


async def ask_code(question: str = FIRST_QUESTION) -> str | None:
    """The pairing code, asked until it is one: a typo costs no pairing attempt. None if
    nothing is typed (or the input ends)."""
    while True:
        code = await _line(question)
        if not code or not code.strip():
            return None
        try:
            canonical_code(code)
            return code
        except ValueError as exc:
            print(f"{exc}; type it again (a typo costs no attempt)", flush=True)


async def code_again(over: bool) -> str | None:
    """After a wrong code: what happened, and the code asked again (None: the player
    typed nothing, and stops joining). ``over``: that was the code's last attempt, and
    the host now shows a new one."""
    if over:
        print("wrong pairing code, and that code's last attempt: it works no more, and "
              "the host's screen now shows a new one; type that one (if the code was "
              "typed right, someone may be in the middle)", flush=True)  # fmt: skip
    else:
        print(f"wrong pairing code: the two sides did not agree; check the code on the "
              f"host's screen and type it again (each wrong code uses one of the host's "
              f"{DEFAULT_ATTEMPTS} attempts with it; if it was typed right, someone may "
              "be in the middle)", flush=True)  # fmt: skip
    return await ask_code(AGAIN_QUESTION)
