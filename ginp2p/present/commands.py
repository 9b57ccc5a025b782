"""What a line typed at the prompt means: the commands a player gives the session (a
move, a claim, a chat line, ``quit``, the guest's yes or no to the host's rules), and
:func:`parse_command`, which turns a typed line into one or says in one line why it is
none. The full-screen table sends its keys through the same parser, so a key and a typed
command are checked and explained the same way. The words and their letters are
:mod:`ginp2p.present.vocabulary`'s, the same in both modes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ginp2p.errors import Ginp2pError
from ginp2p.game import engine
from ginp2p.game.engine import Action, HandState, Phase
from ginp2p.game.rules import RuleSet
from ginp2p.present.draft import Draft, draft_from
from ginp2p.present.view import knock_options, meld_order
from ginp2p.present.vocabulary import VOCABULARY, UnknownWord, resolve, word
from ginp2p.present.words import commands_in, for_screen, goal_words, rules_help, settings_words

__all__ = [
    "HELP_WORDS",
    "LOOK_WORDS",
    "QUIT_WORDS",
    "SHORT_CLAIM_TIMEOUT",
    "Act",
    "ChatCmd",
    "ClaimCmd",
    "CommandError",
    "QuitCmd",
    "ResignCmd",
    "RulesCmd",
    "RulesOffered",
    "StopCmd",
    "Turn",
    "describe_rules",
    "parse_command",
]


@dataclass(frozen=True, slots=True)
class Act:
    action: Action


@dataclass(frozen=True, slots=True)
class ResignCmd:
    reason: str = ""


@dataclass(frozen=True, slots=True)
class ClaimCmd:
    pass


@dataclass(frozen=True, slots=True)
class ChatCmd:
    text: str


@dataclass(frozen=True, slots=True)
class QuitCmd:
    """Leave without resigning: the game stays saved and can be resumed. ``signum``:
    the signal (Ctrl-C, ``kill``) that asked for it, which sets the exit code."""

    signum: int = 0


@dataclass(frozen=True, slots=True)
class StopCmd:
    """End this run, the game saved, because it cannot go on from here (the computer
    player of ``play`` keeps failing): exit 1, saying ``why``."""

    why: str


@dataclass(frozen=True, slots=True)
class RulesCmd:
    """The guest's answer to the host's rules."""

    accept: bool


@dataclass(frozen=True, slots=True)
class RulesOffered:
    """For the player: the host's rules wait for this guest's yes or no."""

    rules: RuleSet
    claim_timeout: int = 120

    def text(self) -> str:
        """The rules and the claim timeout, as the guest is asked about them."""
        return f"{describe_rules(self.rules)}; {claim_words(self.claim_timeout)}"


#: Below this claim timeout (seconds) a person may lose a match by thinking: said so.
SHORT_CLAIM_TIMEOUT = 30


def claim_words(timeout: int) -> str:
    """What the claim timeout means for a player, with a warning when it is short."""
    text = (
        f"a player who leaves a move unanswered for {timeout} s may be claimed against "
        "and forfeits the match"
    )
    if timeout < SHORT_CLAIM_TIMEOUT:
        text += f" (very short: a person needs at least {SHORT_CLAIM_TIMEOUT} s)"
    return text


def describe_rules(rules: RuleSet) -> str:
    """One line: the preset and every setting that differs from it."""
    line = f"{for_screen(rules.name)}, {goal_words(rules)}"  # the host's hello names them
    changed = rules.changes()
    if changed:
        line += f" (changed from the preset: {settings_words(changed)})"
    return line


Command = Act | ResignCmd | ClaimCmd | ChatCmd | QuitCmd | StopCmd | RulesCmd


class Turn(Protocol):
    """What :func:`parse_command` reads of a player's seat: whose move it is, the hand
    as this player sees it, and what the other player owes meanwhile."""

    @property
    def me(self) -> int: ...

    @property
    def my_turn(self) -> bool: ...

    @property
    def owed(self) -> str | None:
        """What the other player owes now, in words (None: nothing)."""
        ...

    @property
    def opponent_name(self) -> str:
        """The other player as this player knows it (its pin's name, the hello's beside
        it where they differ)."""
        ...

    def hand(self) -> HandState | None:
        """The hand as this player sees it (None between hands)."""
        ...

    @property
    def rules(self) -> RuleSet | None:
        """The rules played (None before the host's hello)."""
        ...


class CommandError(Ginp2pError, ValueError):
    """A line a person typed that is no command now; the message says why, in one line."""


#: The line prompt's commands, each line with the rules it needs ("" for every rule set;
#: "-x": not x), as :func:`help_text` names them: what is typed, and what it does (""
#: for the vocabulary's words). A line that begins with a command's word gets its
#: letter in front.
HELP: tuple[tuple[str, str, str], ...] = (
    ("", "stock", ""),
    ("upcard", "pile", "take the top of the pile (the first upcard too)"),
    ("-upcard", "pile", "take the top of the discard pile"),
    ("upcard", "take", ""),
    ("upcard wall", "pass", "pass the first upcard; pass at the wall"),
    ("upcard -wall", "pass", "pass the first upcard"),
    ("-upcard wall", "pass", "pass at the wall (the hand ends, no score)"),
    ("", "discard CARD", ""),
    ("instead", "knock", "knock instead of drawing (the best melds laid out)"),
    ("instead", "knock [7h 8h 9h] [4s 4d 4c]", "-"),
    ("instead", "", "lay down just these melds (the rest is deadwood)"),
    ("by_card", "knock CARD", "knock, discarding CARD (the best melds laid out)"),
    ("by_card", "knock CARD [7h 8h 9h] [4s 4d 4c]", "-"),
    ("by_card", "", "lay down just these melds (the rest is deadwood)"),
    ("big", "gin CARD | gin", "go gin discarding CARD / alone: big gin (all {big})"),
    ("-big", "gin CARD", "go gin discarding CARD"),
    ("rumino", "rumino CARD", "declare rumino, discarding CARD"),
    ("layoffs", "show", "show the proposed melds and layoffs at the showdown"),
    ("layoffs", "show [7h 8h 9h] lay 5d", "show these melds, and lay off these cards"),
    ("-layoffs", "show", "show the proposed melds at the showdown"),
    ("-layoffs", "show [7h 8h 9h]", "show just these melds"),
    ("", "look", ""),
    ("", "say TEXT", ""),
    ("", "claim", "the other player stopped answering: claim the match"),
    ("", "resign", "give up the match (asks first)"),
    ("", "quit", "leave (asks first at a terminal); the game is saved"),
    ("ctrl_c", "Ctrl-C", "leave, after asking (y leaves; Ctrl-C again leaves)"),
    ("", "help", "this list"),
)


def help_text(rules: RuleSet | None, ctrl_c: bool) -> str:
    """``help`` at the line prompt: the rules being played, in the table's help's words,
    then the commands these rules have (rules not known yet: classic's), each with its
    letter (the table's key): ``take`` only with a first upcard to take, ``pass`` with
    one or a wall, ``knock`` without a card where it replaces the draw, big gin,
    ``rumino`` and layoffs only where the rules have them; Ctrl-C only where it is a
    key (a terminal: from a pipe it is nothing the sender can type)."""
    lines = [*rules_help(rules), ""] if rules is not None else []
    r = rules if rules is not None else RuleSet()
    has = {**commands_in(r), "ctrl_c": ctrl_c}
    letters = {w.name: w for w in VOCABULARY}
    jk = ", jk" * r.jokers
    lines.append(f"commands (cards as 7h, th, 10h, qs{jk}); the letter before one is short "
                 "for it:")  # fmt: skip
    keyed = ""
    for needs, typed, does in HELP:
        if any(has[w.lstrip("-")] == w.startswith("-") for w in needs.split()):
            continue
        w = letters.get(typed.split()[0]) if typed else None
        key = " "
        if w is not None and w.key and w.name != keyed:  # once, on its first line
            key, keyed = w.key, w.name
        if does == "-":  # a long form alone; what it does comes on the next line
            lines.append(f"  {key}  {typed}")
            continue
        text = (does or (w.does if w is not None else "")).format(big=r.hand_size + 1)
        lines.append(f"  {key}  {typed:<24}{text}".rstrip())
    lines.append("A start of a command that no other shares does too: di 7h, sh, kn (not "
                 "resign).")  # fmt: skip
    return "\n".join(lines)


_HINTS = {
    "draw_stock": "stock", "draw_discard": "pile", "take_upcard": "take",
    "pass_upcard": "pass", "wall_pass": "pass", "discard": "discard CARD",
    "knock": "knock CARD", "gin": "gin CARD", "big_gin": "gin", "wall_knock": "knock CARD",
    "show": "show", "declare_rumino": "rumino CARD",
}  # fmt: skip


def hint(legal: list[Action]) -> str:
    seen: list[str] = []
    for a in legal:
        h = _HINTS[a.kind]
        if a.kind == "knock" and getattr(a, "discard", 0) is None:
            h = "knock"
        if h not in seen:
            seen.append(h)
    return " | ".join(seen)


def _find_card(view: HandState, me: int, text: str) -> Any:
    from ginp2p.game.cards import CardParseError, parse_card

    try:
        want = parse_card(text)
    except CardParseError as exc:
        raise CommandError(str(exc)) from None
    exact = "#" in text or text.endswith(("'", "′"))  # this copy, not any of the name
    cards = [c for c in view.cards(me) if c is not None]
    if view.phase is Phase.WALL and view.upcard is not None:
        cards.append(view.upcard)  # a wall knock takes it first, and may discard it
    if want in cards:  # holding both copies, 7h is the first and 7h' the second
        return want
    for c in cards:
        if not exact and c.rank == want.rank and c.suit == want.suit:
            return c
    raise CommandError(f"{want.pretty()} is not in your hand")


RULES_ANSWERS = ("yes", "y", "no", "n")
"""The guest's answers to the host's rules."""


def _spellings(name: str) -> tuple[str, ...]:
    w = word(name)
    return (*w.words, *([w.key] if w.key else []))


QUIT_WORDS = _spellings("quit")
"""The words of ``quit`` (the wait before the game reads them too)."""
HELP_WORDS = _spellings("help")
"""The words of ``help``."""
LOOK_WORDS = _spellings("look")
"""The words of ``look`` (a script's waits for the cards)."""


def _no_knock(view: HandState, me: int, legal: list[Action], card: Any) -> str:
    """Why this knock is refused, and what would do."""
    from ginp2p.game import melds

    knocks = [a for a in legal if a.kind in ("knock", "wall_knock")]
    limit = view.rules.knock_limit
    if view.rules.knock_instead_of_draw and view.phase is Phase.DISCARD:  # never after it
        within = f", with deadwood of {limit} or less" if limit is not None else ""
        return "you cannot knock after drawing: in these rules you knock instead of " \
            f"drawing (at the start of your next turn{within})"  # fmt: skip
    if card is None:
        if knocks:
            return "knock with which discard? (knock 7h)"
        held = melds.min_deadwood([c for c in view.cards(me) if c is not None], view.rules)
        over = limit is not None and held > limit
        return "you cannot knock now" + (f": your deadwood is {held}, over the limit of "
                                         f"{limit}" if over else "")  # fmt: skip
    why = f"you cannot knock discarding {card.pretty()}"
    if any(a.kind == "gin" and a.discard == card for a in legal):  # type: ignore[union-attr]
        return f"discarding {card.pretty()} leaves gin, which scores more: gin " \
               f"{card.pretty()} goes gin"  # fmt: skip
    if engine.forbidden_discard(view) == card:
        return f"{why}: {_taken_words(card)}"
    hand = [c for c in view.cards(me) if c is not None]
    if view.phase is Phase.WALL:  # the wall's knock takes the upcard first
        hand += [view.upcard] if view.upcard is not None else []
    elif not any(a.kind in ("discard", "knock", "gin") for a in legal):
        return f"{why} now"
    rest = [c for c in hand if c != card]
    left = melds.min_deadwood(rest, view.rules)
    if limit is not None and left > limit:
        why += f": that leaves deadwood {left}, over the limit of {limit}"
    others = [a.discard.pretty() for a in knocks if a.discard is not None]  # type: ignore[union-attr]
    gins = [a.discard.pretty() for a in legal if a.kind == "gin"]  # type: ignore[union-attr]
    if others:
        return f"{why}; you may knock discarding {', '.join(others)}"
    return why + (f"; you may go gin discarding {', '.join(gins)}" if gins else
                  "; no discard lets you knock now")  # fmt: skip


def _taken_words(card: Any) -> str:
    return f"{card.pretty()} was just taken from the pile and cannot go straight back"


def _at_the_wall(view: HandState) -> str | None:
    """At the wall only a knock with the upcard or a pass is left: what any other move
    is told (else "you cannot draw from the stock now", as if by chance)."""
    if view.phase is not Phase.WALL:
        return None
    up = view.upcard.pretty() if view.upcard is not None else "the upcard"
    return (f"at the wall the stock is not drawn: you may only knock using the upcard {up} "
            "(knock CARD takes it and discards CARD) or pass")  # fmt: skip


def _passed_up(view: HandState) -> str | None:
    """Why the pile's card may be neither taken nor passed once both players passed the
    first upcard: it stays on the pile and the stock is drawn (the engine then allows
    nothing else). The same answer to ``take``, ``pile`` and ``pass``."""
    if view.phase is not Phase.FIRST_UPCARD or not all(view.passed):
        return None
    top = view.upcard.pretty() if view.upcard is not None else "the upcard"
    return f"both passed the upcard {top}, so the first draw is from the stock"


def _no_take(view: HandState, legal: list[Action]) -> str:
    """Why ``take`` is refused (no first upcard is offered now), and, where the engine
    allows it, that ``pile`` takes the pile's top instead."""
    why = "there is no upcard to take now" if view.rules.upcard_pass_round else \
        "these rules have no first upcard to take"  # fmt: skip
    if any(a.kind == "draw_discard" for a in legal) and view.upcard is not None:
        why += f" (pile takes {view.upcard.pretty()})"
    return why


def _lay_down(action: Action, view: HandState, me: int, text: str) -> Action:
    """A knock, gin or show with the melds and layoffs the player typed instead of the
    proposal: ``[7h 8h 9h] [4s 4d 4c] lay 5d``. Each bracket must be one meld of the
    hand; each card after ``lay`` is laid off onto the first meld that takes it."""
    from dataclasses import replace

    from ginp2p.game.melds import Layoff, Meld

    if action.kind not in ("knock", "gin", "big_gin", "wall_knock", "show"):
        raise CommandError(f"only a knock, a gin or a show lays down melds ({text})")
    groups = re.findall(r"\[([^\]]*)\]", text)
    rest = re.sub(r"\[[^\]]*\]", " ", text).split()
    if rest and rest[0].lower() == "lay":
        rest = rest[1:]
        # a slip here would lay no melds at all: say what `lay` needs instead
        if action.kind != "show":
            raise CommandError("only the defender lays off (`lay`); a knock or a gin lays "
                               "down melds in brackets: knock 5h [7h 8h 9h]")  # fmt: skip
        if not rest or (not groups and draft_from(action, view).melds):
            raise CommandError("`lay` takes the melds in brackets first and the cards to lay "
                               "off after it: show [7h 8h 9h] lay 5d (show alone lays the "
                               "proposal)")  # fmt: skip
    elif rest:
        raise CommandError(f"{' '.join(rest)!r}: put melds in brackets and layoffs after "
                           "`lay` (knock 5h [7h 8h 9h] / show [7h 8h 9h] lay 5d)")  # fmt: skip
    d = replace(draft_from(action, view), melds=(), layoffs=())
    rules = view.rules
    for g in groups:
        cards = {_find_card(view, me, w) for w in g.replace(",", " ").split()}
        meld = next((m for m in d.choices(rules)
                     if isinstance(m, Meld) and set(m.cards) == cards), None)  # fmt: skip
        if meld is None:
            raise CommandError(_not_laid(d, cards, g, rules))
        d = replace(d, melds=(*d.melds, meld))
    for w in rest:
        card = _find_card(view, me, w)
        lay = next((x for x in d.choices(rules)
                    if isinstance(x, Layoff) and x.card == card), None)  # fmt: skip
        if lay is None:
            raise CommandError(f"{card.pretty()} cannot be laid off onto the knocker's melds")
        d = replace(d, layoffs=(*d.layoffs, lay))
    if (why := d.problem(rules)) is not None:
        raise CommandError(why)
    return d.action()


def _not_laid(d: Draft, cards: set[Any], typed: str, rules: RuleSet) -> str:
    """Why a typed bracket cannot be laid: no meld of the cards still unlaid, or (a knock,
    a gin) a meld that leaves too much deadwood whatever else is laid. The editor offers
    only melds within the knock limit, so "not a meld" would be wrong about the second."""
    from ginp2p.game import melds as M
    from ginp2p.game.cards import card_order

    if d.kind == "show":
        return f"[{typed.strip()}] is not a meld you can lay down here"
    meld = next((m for m in engine.meld_choices(rules, d.cards, d.melds, knocker=False)
                 if set(m.cards) == cards), None)  # fmt: skip
    if meld is None:
        return f"[{typed.strip()}] is not a meld you can lay down here"
    rest = d.left()
    for c in meld.cards:
        rest.remove(c)
    least = M.min_deadwood(rest, rules)
    if least == M.deadwood(rest, rules):  # no other meld is left to lay: these cards
        left = f"{least} ({' '.join(c.pretty() for c in sorted(rest, key=card_order))})"
    else:
        left = f"{least} at best"
    gin = d.kind in ("gin", "big_gin")
    need = "a gin leaves none" if gin else f"over the limit of {rules.knock_limit}"
    laid = " ".join(c.pretty() for c in meld_order(meld))
    best = M.min_deadwood(list(d.cards), rules)  # what the proposal lays
    return f"you cannot {'go gin' if gin else 'knock'} laying down [{laid}]: that leaves " \
        f"deadwood {left}, {need}; with no brackets the best melds are laid (deadwood " \
        f"{best})"  # fmt: skip


def _no_card(typed: str, verb: str, args: list[str]) -> str:
    """Why a move that takes no card is refused one: ``d 7h`` is ``pile``, not a
    discard (the table's ``d``), and ``show`` takes its melds in brackets."""
    said = " ".join(args)
    if verb == "show":
        return ("show takes no card: `show` lays down the proposal, `show [7h 8h 9h] lay "
                "5d` your own melds and layoffs")  # fmt: skip
    if typed.lower() != verb:
        if verb == "pile" and len(args) == 1:
            return f"{typed} takes the pile's card, as at the table, and names none: to " \
                f"discard {said}, type discard {said}"  # fmt: skip
        return f"{typed} is {verb}, which takes no card, not {said!r}: type {typed} alone"
    return f"{verb} takes no card, not {said!r}: type {verb} alone"


def parse_command(text: str, seat: Turn) -> Command | str:
    """A typed line → a command, or "help"/"look"; CommandError says what is wrong.

    The first word is a command's word, its letter, or a start of it no other command
    shares (:func:`ginp2p.present.vocabulary.resolve`): never a guess. Pure: reads the
    seat's hand and legal moves, changes nothing. The protocol checks the move again
    when it is played.
    """
    words = text.strip().split()
    if not words:
        raise CommandError("type a command (help lists them)")
    try:
        w = resolve(words[0], seat.rules)
    except UnknownWord as exc:
        raise CommandError(str(exc)) from None
    verb, args = w.name, words[1:]
    laid = next((i for i, w in enumerate(args) if w.startswith("[") or w.lower() == "lay"),
                None)  # melds and layoffs chosen by hand, after the discard  # fmt: skip
    declared, args = (" ".join(args[laid:]), args[:laid]) if laid is not None else ("", args)
    if verb == "help":
        return "help"
    if verb == "look":
        return "look"
    if verb == "quit":
        return QuitCmd()
    if verb == "resign":
        return ResignCmd(" ".join(args))
    if verb == "claim":
        return ClaimCmd()
    if verb == "say":
        if not args:
            raise CommandError("say what? (say TEXT)")
        return ChatCmd(text.strip().split(None, 1)[1])
    if args and not w.arg:  # `take 2h` took the upcard, the card unread
        raise CommandError(_no_card(words[0], verb, args))
    if len(args) > 1:
        raise CommandError(f"{verb} takes one card, not {' '.join(args)!r} (help lists "
                           "the commands)")  # fmt: skip
    if not seat.my_turn:
        owed = seat.owed
        who = seat.opponent_name or "the other player"
        raise CommandError(
            f"not your move: waiting for {who}: {owed}" if owed else "not your move now"
        )
    view = seat.hand()
    assert view is not None
    legal = engine.legal_actions(view)
    me = seat.me
    if verb == "knock" and args and view.rules.knock_instead_of_draw and view.phase is Phase.DRAW:
        # before any card is looked up: whatever card is typed, this knock takes none
        why = (
            "in these rules the knock takes no card: type knock alone"
            if any(a.kind == "knock" for a in legal)
            else f"in these rules the knock takes no card, and {_no_knock(view, me, legal, None)}"
        )
        raise CommandError(f"{why}; you can: {hint(legal)}")
    card = _find_card(view, me, args[0]) if args else None

    def pick(pred: Callable[[Action], bool], why: str) -> Act:
        for a in legal:
            if pred(a):
                return Act(_lay_down(a, view, me, declared) if declared else a)
        raise CommandError(f"{why}; you can: {hint(legal)}")

    if verb == "stock":
        return pick(lambda a: a.kind == "draw_stock",
                    _at_the_wall(view) or "you cannot draw from the stock now")  # fmt: skip
    passed_up = _passed_up(view) or _at_the_wall(view)
    if verb == "pile":  # the first upcard is the pile's top too
        return pick(lambda a: a.kind in ("draw_discard", "take_upcard"),
                    passed_up or "you cannot take from the pile now")  # fmt: skip
    if verb == "take":
        return pick(lambda a: a.kind == "take_upcard", passed_up or _no_take(view, legal))
    if verb == "pass":
        has = commands_in(view.rules)
        never = (
            None
            if has["upcard"] or has["wall"]
            else "these rules have no pass (no first upcard, no wall)"
        )  # as help lists none
        return pick(lambda a: a.kind in ("pass_upcard", "wall_pass"),
                    passed_up or never or "you cannot pass now")  # fmt: skip
    if verb == "show":
        return pick(lambda a: a.kind == "show", "there is nothing to show now")
    if verb == "discard":
        if card is None:
            raise CommandError("discard which card? (discard 7h)")
        return pick(lambda a: a.kind == "discard" and a.card == card,  # type: ignore[union-attr]
                    _taken_words(card) if engine.forbidden_discard(view) == card else
                    _at_the_wall(view) or f"you cannot discard {card.pretty()} now")  # fmt: skip
    if verb == "knock":
        return pick(lambda a: a.kind in ("knock", "wall_knock") and a.discard == card,  # type: ignore[union-attr]
                    _no_knock(view, me, legal, card))  # fmt: skip
    if verb == "gin":
        if card is None:
            return pick(lambda a: a.kind == "big_gin", "gin with which discard? (gin 7h)")
        gins = [k.action for k in knock_options(view, legal)[0] if k.gin]  # the wall's too
        return pick(lambda a: a in gins and a.discard == card,  # type: ignore[union-attr]
                    _taken_words(card) if engine.forbidden_discard(view) == card else
                    f"discarding {card.pretty()} does not leave a gin hand")  # fmt: skip
    if not view.rules.instant_rumino:
        raise CommandError("these rules have no rumino")
    if card is None:
        raise CommandError("rumino with which discard? (rumino 7h)")
    return pick(lambda a: a.kind == "declare_rumino" and a.discard == card,  # type: ignore[union-attr]
                "draw first: a rumino is declared after the draw, with a discard"
                if view.phase is Phase.DRAW else
                f"discarding {card.pretty()} does not leave a rumino")  # fmt: skip
