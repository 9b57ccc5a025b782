"""Which key does what at the table: the key bindings, each active only where its
intent makes sense (a question asked, the help open, a declaration being laid, the
command line open), the answer to a key of no use, and the command line with its
completion of verbs and cards. What each intent does is :mod:`.intents`'.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout.controls import FormattedTextControl

from ginp2p.console.tui.intents import Intents
from ginp2p.console.tui.keys import IDLE_KEYS, does_nothing, key_name
from ginp2p.console.tui.look import Look
from ginp2p.console.tui.render import CHOICE_KEYS
from ginp2p.game.cards import RANKS, Card
from ginp2p.present.commands import RulesCmd

__all__ = ["CommandCompleter", "KeyedTable", "card_word"]

VERBS = ("stock", "pile", "take", "pass", "discard", "knock", "gin", "rumino", "show", "say",
         "claim", "resign", "quit", "help")  # fmt: skip


def card_word(card: Card) -> str:
    """How a person types a card: ``7h``, ``10h``, ``qs``, ``jk`` (``7h'``: the second
    copy, marked as the screen marks it)."""
    if card.suit is None:
        word = "jk"
    else:
        word = ("10" if card.rank == 10 else RANKS[card.rank].lower()) + card.suit.letter.lower()
    return word + "'" * card.copy


class CommandCompleter(Completer):
    """Completes the command line: the verbs, then the cards of your hand that fit."""

    def __init__(self, table: Intents) -> None:
        self.table = table

    def get_completions(self, document: Document,
                        complete_event: CompleteEvent) -> Iterable[Completion]:  # fmt: skip
        text = document.text_before_cursor
        words = text.split()
        if not words or (len(words) == 1 and not text.endswith(" ")):
            prefix = words[0].lower() if words else ""
            for verb in VERBS:
                if verb.startswith(prefix):
                    yield Completion(verb, -len(prefix))
            return
        if len(words) > 2 or (len(words) == 2 and text.endswith(" ")):
            return
        verb = words[0].lower()
        prefix = words[1].lower() if len(words) == 2 else ""
        for card in self.table.cards_for(verb):
            word = card_word(card)
            if word.startswith(prefix):
                yield Completion(word, -len(prefix), display=self.table.look.name(card))


class KeyedTable(Intents):
    """The table's intents bound to keys, and its command line (``:``)."""

    def __init__(self, look: Look | None = None) -> None:
        super().__init__(look)
        self.command_mode = False
        self._body: FormattedTextControl | None = None  # the table's window, once built
        self.command = Buffer(multiline=False, completer=CommandCompleter(self),
                              complete_while_typing=True,
                              accept_handler=self._accept_line)  # fmt: skip

    def bindings(self) -> KeyBindings:
        kb = KeyBindings()
        command = Condition(lambda: self.command_mode)
        confirm = Condition(lambda: self.confirm is not None)
        helping = Condition(lambda: self.show_help)
        offered = Condition(lambda: self.rules_offer is not None)
        final = Condition(lambda: self.final is not None and self.summary is None)
        editing = Condition(lambda: self.draft is not None and self.draft.editing)
        drafting = Condition(lambda: self.draft is not None and not self.draft.editing)
        summary = Condition(lambda: self.summary is not None)
        done = Condition(lambda: self.result is not None and self.summary is None)
        free = ~command & ~confirm & ~helping & ~offered & ~final & ~editing
        play = free & ~drafting

        def on(*keys: str, filter: Any) -> Callable[[Callable[[], None]], Callable[[], None]]:
            def register(fn: Callable[[], None]) -> Callable[[], None]:
                def handler(event: KeyPressEvent) -> None:
                    self.message = ("", "")
                    try:
                        fn()
                    except Exception as exc:  # never a crash on a key
                        self.message = ("class:error", f"cannot do that now ({exc})")
                    self.refresh()

                kb.add(*keys, filter=filter)(handler)
                return fn

            return register

        @on("c-c", filter=~confirm & ~command)
        def _leave() -> None:
            self.ask_leave()

        @on("y", filter=confirm)
        def _yes() -> None:
            assert self.confirm is not None
            _, then = self.confirm
            self.confirm = None
            then()

        @on("n", filter=confirm)
        @on("escape", filter=confirm)
        def _no() -> None:
            self.confirm = None

        @on("c-c", filter=confirm)
        def _again() -> None:
            """A second Ctrl-C at "leave?" leaves, as at the line prompt: the way out never
            depends on reading the question. At any other question it says no."""
            if self.confirm is not None and self.confirm[1] == self._leave_now:
                _yes()
            else:
                _no()

        @on("y", filter=offered & ~confirm)
        def _accept_rules() -> None:
            self.rules_offer = None
            self._submit(RulesCmd(True))

        @on("n", filter=offered & ~confirm)
        def _decline_rules() -> None:
            self.rules_offer = None
            self.leaving = True
            self._submit(RulesCmd(False))

        @on("?", filter=free)
        def _help() -> None:
            self.show_help = True

        @on("escape", filter=helping & ~confirm)
        @on("q", filter=helping & ~confirm)
        @on("?", filter=helping & ~confirm)
        @on("enter", filter=helping & ~confirm)
        def _close_help() -> None:
            self.show_help = False

        @on("q", filter=final & ~confirm & ~command)
        @on("enter", filter=final & ~confirm & ~command)
        def _done() -> None:
            self.leave_when_over()

        # the summary first, even when the next hand already asks for a showdown (the
        # other player knocked at once): Enter closed it and sent the proposal unseen
        @on("enter", filter=summary & free)
        @on("escape", filter=summary & free)
        @on(" ", filter=summary & free)
        def _close_summary() -> None:
            self.summary = None

        @on("left", filter=play)
        def _left() -> None:
            self.move(-1)

        @on("right", filter=play)
        def _right() -> None:
            self.move(1)

        @on("enter", filter=play & ~summary)
        def _discard() -> None:
            self.discard()

        @on("s", filter=play)
        def _stock() -> None:
            self.summary = None
            self.typed("stock")

        @on("d", filter=play)
        def _pile() -> None:
            self.summary = None
            self.take()

        @on("p", filter=play)
        def _pass() -> None:
            self.summary = None
            self.typed("pass")

        @on("k", filter=play)
        def _knock() -> None:
            self.summary = None
            self.knock()

        @on("g", filter=play)
        def _gin() -> None:
            self.summary = None
            self.gin()

        @on("c", filter=play)
        def _claim() -> None:
            self.ask_claim()

        @on(":", filter=free)
        @on("/", filter=free)
        def _command() -> None:
            self.command_mode = True
            self.message = ("", "")  # what shows under the line is about the line
            self.command.reset()
            assert self.app is not None
            self.app.layout.focus(self.command)

        @on("escape", filter=command)
        @on("c-c", filter=command)
        def _close_command() -> None:
            self.close_command()

        @on("enter", filter=drafting & free & ~summary)
        def _send_draft() -> None:
            self.send_draft()

        @on("e", filter=drafting & free & ~summary)
        def _edit_draft() -> None:
            self.edit_draft()

        @on("escape", filter=drafting & free & ~summary)
        def _cancel_draft() -> None:
            if self.draft is not None and self.draft.kind != "show":
                self.draft = None

        @on("enter", filter=editing & ~confirm)
        def _send_edited() -> None:
            self.send_draft()

        @on("backspace", filter=editing & ~confirm)
        def _undo() -> None:
            self.undo_choice()

        @on("escape", filter=editing & ~confirm)
        def _stop_editing() -> None:
            self.cancel_edit()

        @on("tab", filter=editing & ~confirm)
        def _rekey() -> None:
            self.rekey()

        for i, key in enumerate(CHOICE_KEYS):
            kb.add(key, filter=editing & ~confirm)(self._chooser(i))

        @on("q", filter=done & ~command & ~confirm)
        @on("enter", filter=done & ~command & ~confirm)
        @on("c-c", filter=done & ~command & ~confirm)
        def _close() -> None:
            if self.app is not None:
                self.app.exit()

        # Last, and only where the table's own keys are read: any binding above, and
        # prompt_toolkit's own (Ctrl-L, the arrows, Esc), still comes first.
        for key in (Keys.Any, *IDLE_KEYS):
            kb.add(key, filter=play)(self._unknown_key)

        return kb

    def _unknown_key(self, event: KeyPressEvent) -> None:
        """A key the table has no use for says so, in place of the last message: silence
        left that message on screen as if it were the key's answer."""
        key = event.key_sequence[0].key
        if key == Keys.ControlZ:  # a shell's suspend: the table reads it as a key instead
            self.message = (
                "class:error",
                "Ctrl-Z does not pause a game: the other player "
                "would wait on a silent table (Ctrl-C leaves; the game is saved)",
            )
            self.refresh()
            return
        name = key_name(key)
        if name is not None:
            # a capital of a table key is most likely Caps Lock, which the player cannot see
            caps = (
                " (the keys are lower case: is Caps Lock on?)"
                if name.isupper() and self._does_something(event, name.lower())
                else ""
            )
            self.message = ("class:error", does_nothing(name, caps))
            self.refresh()

    def _does_something(self, event: KeyPressEvent, key: str) -> bool:
        """Whether ``key`` has a use here and now (not merely "does nothing")."""
        bindings = event.app.key_bindings
        found = bindings.get_bindings_for_keys((key,)) if bindings is not None else []
        return any(b.handler != self._unknown_key and b.filter() for b in found)

    def _chooser(self, index: int) -> Callable[[KeyPressEvent], None]:
        def pick(event: KeyPressEvent) -> None:
            self.choose(index)
            self.refresh()

        return pick

    def close_command(self) -> None:
        self.command_mode = False
        self.command.reset()
        if self.app is not None and self._body is not None:
            self.app.layout.focus(self._body)

    def _accept_line(self, buffer: Buffer) -> bool:
        """Run the typed line. A line that is no command stays open with its words, to
        be mended: closed, the keys typed next would be moves of the table."""
        if buffer.text.strip() and not self.typed(buffer.text):
            buffer.cancel_completion()  # the reason shows, not a menu over it
            self.refresh()
            return True  # keep the text
        self.close_command()
        self.refresh()
        return False
