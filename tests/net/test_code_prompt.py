"""The guest's pairing code at the terminal: a wrong code is asked again instead of
ending ``join`` (the host still counts every attempt, and shows a new code after the
last), the code's words complete with Tab, and the host prints its join string on a
line of its own, within 80 columns."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from ginp2p.app.code_prompt import ask_code, word_completions
from ginp2p.net.pairing import DEFAULT_ATTEMPTS, PAUSE_S, WORDS, PairingGate
from tests.processes import CODE, GUARD, host, in_terminal, until

pytestmark = pytest.mark.usefixtures("ginp2p_home")


def test_tab_completes_the_code_word_being_typed() -> None:
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    from ginp2p.app.code_prompt import _completer

    assert word_completions("7-tul") == ["tulip"]
    assert word_completions("7 Tulip ANCH") == ["anchor"]
    assert word_completions("7tulipanch") == ["anchor"]  # the separators are optional
    assert word_completions("7-tulip-anchor") == ["anchor"]  # typed whole: itself alone
    assert word_completions("7-") == [] and word_completions("") == []  # no list of 256
    assert word_completions("7-b") == [w for w in WORDS if w.startswith("b")]
    assert word_completions("7-qx") == []
    assert all(word_completions(f"7-{w[:3]}").count(w) == 1 for w in WORDS)

    def tab(typed: str) -> list[tuple[str, int]]:
        found = _completer().get_completions(Document(typed), CompleteEvent(True))
        return [(c.text, c.start_position) for c in found]

    assert tab("7-tul") == [("tulip-", -3)]  # the first word: the hyphen comes with it
    assert tab("7-tulip-anc") == [("anchor", -3)]
    assert tab("7 tulip an") == [("anchor", -2)]
    assert tab("7tulipan") == [("anchor", -2)]
    assert tab("7-") == []


def test_a_code_that_is_no_code_is_asked_again(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    from ginp2p.app import code_prompt

    typed = ["7-tulp-anchor", "100-tulip-anchor", "7-tulip-anchor", "", "  "]
    asked: list[str] = []

    async def line(question: str) -> str | None:
        asked.append(question)
        return typed.pop(0) if typed else None

    monkeypatch.setattr(code_prompt, "_line", line)
    assert asyncio.run(ask_code()) == "7-tulip-anchor"
    assert asked == [code_prompt.FIRST_QUESTION] * 3
    assert capsys.readouterr().out == (
        "'7-tulp-anchor' is not a pairing code: unknown word 'tulp'; type it again (a typo "
        "costs no attempt)\n"
        "the number in a pairing code is 2 to 99, not 100; type it again (a typo costs no "
        "attempt)\n"
    )
    assert asyncio.run(ask_code()) is None  # nothing typed: no code
    assert asyncio.run(ask_code()) is None  # only blanks: no code either
    assert asyncio.run(ask_code()) is None  # the input ended


def test_a_wrong_code_then_the_right_one_pairs_on_the_same_connection(tmp_path: Path) -> None:
    """Each wrong code is one of the host's attempts; the guest's connection, cut by the
    host after each, comes back by itself, and the next code is tried on it. The third
    wrong one is the code's last: the guest is told (``over``), and pairs with the new
    code the host shows."""
    from ginp2p.app.pregame import WrongCode, admit_guest, pair_with_host
    from ginp2p.files.identity import load_or_create_identity
    from ginp2p.net.transport import GuestEndpoint, HostEndpoint
    from ginp2p.proto.frames import NET_VERSION, HaveFrame

    h, g = (load_or_create_identity(tmp_path / n) for n in "hg")
    now = [0.0]
    gate = PairingGate(h.public_key, code=CODE, clock=lambda: now[0])
    said: list[str] = []
    told: list[bool] = []

    async def main() -> bytes:
        hosting = HostEndpoint(h.curve_public_key, h.curve_secret_key, bind="127.0.0.1",
                               pairing=True)  # fmt: skip
        port = await hosting.start()
        admit = asyncio.ensure_future(admit_guest(hosting, h, gate, said.append, {}))
        guest = GuestEndpoint(g.curve_public_key, g.curve_secret_key, h.curve_public_key,
                              "127.0.0.1", port)  # fmt: skip
        await guest.start()
        try:
            for n in range(1, DEFAULT_ATTEMPTS + 1):
                with pytest.raises(WrongCode) as wrong:
                    await pair_with_host(guest, g, h.public_key, "8-tulip-anchor",
                                         lambda _: None, 10)  # fmt: skip
                told.append(wrong.value.over)
                await until(lambda n=n: gate.failures == n or gate.code != CODE, "counted")
            assert gate.code != CODE, "the code had its attempts: a new one is shown"
            now[0] += PAUSE_S
            await pair_with_host(guest, g, h.public_key, gate.code, lambda _: None, 10)
            await guest.send(HaveFrame(NET_VERSION, 0, 0, True))  # it is the guest now
            return await asyncio.wait_for(admit, GUARD)
        finally:
            admit.cancel()
            await guest.close()
            await hosting.close()

    assert asyncio.run(main()) == g.public_key
    assert told == [False, False, True]


@pytest.mark.e2e
def test_at_a_terminal_a_wrong_code_is_asked_again_and_tab_completes_its_words(
        tmp_path: Path) -> None:  # fmt: skip
    """`join` at a terminal: a wrong code is said, and the code asked again (it ended
    `join`, and the player waited for discovery again); the right one, typed with Tab,
    pairs. The host counted the wrong one, and printed its join string on a line of its
    own (it wrapped inside the key)."""
    import pexpect

    h = host(tmp_path / "h")
    join = h.join_string()
    shown = re.search(r"join string \(the guest runs `ginp2p join` with it\):\n  (\S+)\n",
                      h.output)  # fmt: skip
    assert shown is not None and shown.group(1) == join, h.output
    assert len(f"  {join}") < 80
    child = in_terminal(tmp_path / "g", "join", join, "--plain", "--name", "Gus")
    try:
        child.expect("its pairing code\\?")
        child.sendline("8-tulip-anchor")
        child.expect("wrong pairing code: the two sides did not agree; check the code on the "
                     "host's screen and type it again")  # fmt: skip
        child.expect("the host's pairing code\\?")
        child.send("7-tul\t")  # 7-tulip-
        child.send("anch\t")  # 7-tulip-anchor
        child.send("\r")
        child.expect("paired with the host")
        child.expect("play by these rules\\?")
        child.sendline("no")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
        h.kill()
    assert child.exitstatus == 1
    assert "2 pairing attempts left with this code" in h.output, h.output
    paired = h.output.split("paired with a guest")[0]
    assert paired.count("\npairing code: ") == 1, "the code had attempts left: still shown"
