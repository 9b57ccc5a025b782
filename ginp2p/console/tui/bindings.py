"""Which key does what at the table: the key bindings, each active only where its
intent makes sense (a question asked, the help open, a declaration being laid, the
command line open), the answer to a key of no use, and the command line with its
completion of verbs and cards, shown as a menu. The letters are the vocabulary's
(:mod:`ginp2p.present.vocabulary`), the same as the line prompt's. What each intent does
is :mod:`.intents`'.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import AnyContainer, Float, FloatContainer
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.menus import CompletionsMenu

from ginp2p.console import completion
from ginp2p.console.completion import card_word
from ginp2p.console.tui.intents import Intents
from ginp2p.console.tui.keys import IDLE_KEYS, does_nothing, key_name
from ginp2p.console.tui.look import Look
from ginp2p.console.tui.render import CHOICE_KEYS
from ginp2p.present.commands import RulesCmd
from ginp2p.present.vocabulary import VOCABULARY

__all__ = ["CommandCompleter", "KeyedTable", "card_word"]

#: The intent a letter of the vocabulary leads to at the table where a key does more
#: than type its command: a knock or a gin is proposed first, a claim and leaving are
#: asked, the help opens. The other letters type their command (``p``: ``pass``).
_AT_TABLE = {"knock": "knock", "gin": "gin", "claim": "ask_claim", "quit": "ask_leave",
             "help": "open_help"}  # fmt: skip


class CommandCompleter(completion.CommandCompleter):
    """Completes the command line: the commands of these rules, then the cards of your
    hand that fit."""

    def __init__(self, table: Intents) -> None:
        super().__init__(table.cards_for, lambda c: table.look.name(c), table.rules_known)


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
        # first: any binding below of the same key comes before these
        self._idle(kb, play | (drafting & free & ~summary) | (editing & ~confirm))

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
        @on("f1", filter=free)
        def _help() -> None:
            self.open_help()

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

        for w in VOCABULARY:  # the letters, as the line prompt reads them
            if w.key is not None:
                where: Filter = play if w.move or w.name in ("claim", "look") else free
                on(w.key, filter=where)(self._letter(w.name, w.move))

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

        return kb

    def _letter(self, name: str, move: bool) -> Callable[[], None]:
        """What the letter of the command ``name`` does: a move closes the hand's
        summary first; the table's own intent where it has one, else the command."""
        does = _AT_TABLE.get(name)

        def press() -> None:
            if move:
                self.summary = None
            if does is not None:
                getattr(self, does)()
            else:
                self.typed(name)

        return press

    def _idle(self, kb: KeyBindings, filter: Filter) -> None:
        """Where ``filter`` holds, a key of no use says so. Bound before every other key:
        a binding of the same key added later (Tab while the melds are laid) comes
        first, and so do prompt_toolkit's own for keys outside IDLE_KEYS (Ctrl-L)."""
        for key in (Keys.Any, *IDLE_KEYS, "left", "right"):
            kb.add(key, filter=filter)(self._unknown_key)

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
            self.message = ("class:error", self._drafted(name) or does_nothing(name, caps))
            self.refresh()

    def _drafted(self, name: str) -> str | None:
        """The answer to a key of no use while a declaration is open (your showdown, a
        knock or a gin proposed, melds being laid), with the keys that work there; None
        elsewhere."""
        d = self.draft
        if d is None:
            return None
        if d.editing:
            return f"{name} does nothing here: a listed key adds its meld or layoff, " \
                "Backspace takes the last back, Enter sends, Esc goes back"  # fmt: skip
        what = "your showdown" if d.kind == "show" else "the proposal"
        esc = "" if d.kind == "show" else ", Esc cancels it"
        return f"{name} does nothing in {what}: Enter sends it, e changes the melds{esc} " \
            "(? lists the keys)"  # fmt: skip

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

    def with_menu(self, content: AnyContainer) -> FloatContainer:
        """``content`` with the command line's completions over it: a menu by the
        cursor (above it, where the line is at the bottom), each command with its letter
        and what it does, each card as the table shows it; up and down go through it."""
        menu = CompletionsMenu(max_height=8, scroll_offset=1)
        return FloatContainer(content, floats=[Float(xcursor=True, ycursor=True, content=menu)])

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
