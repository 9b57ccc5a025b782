"""The adversary's strategies: what a cheater may choose to do, and how it is drawn.

A :class:`Strategy` is a world (which fixed keys and seeds), the cheater's role, the
honest player, whether the cheater fakes its lock, and a sequence of deviations
(:data:`Choice`), one per step of the world: deliver, withhold or resend entries,
claim early or falsely, dispute, equivocate, send garbage, go deaf, stall, let the
clock run, reconnect, make the honest peer crash or leave... Strategies are drawn
through a :class:`Drawer`, so hypothesis (tests) and ``random.Random`` (the script)
draw the same grammar. :mod:`ginp2p.testing.adversary` plays them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from ginp2p.game.rules import CLASSIC
from ginp2p.proto.protocol import MAX_EARLY

#: One-hand matches: most deviations live in the set-up and the first moves.
RULES = CLASSIC.with_(game_target=1)
#: The claim timeout of the explored games, in seconds of the runner's clock.
TIMEOUT = 30
#: How many fixed worlds (keys and seeds) strategies choose from.
WORLDS = 8
T = TypeVar("T")


class Drawer(Protocol):
    """Where a strategy's choices come from: an integer in ``lo..hi`` at a time."""

    def between(self, lo: int, hi: int) -> int: ...


class RandomDrawer:
    """A :class:`Drawer` over ``random.Random`` (the script)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def between(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)


def _pick(d: Drawer, options: Sequence[T]) -> T:
    return options[d.between(0, len(options) - 1)]


#: Orders a delivery may send its entries in: as made, backwards, the second one last
#: (a move, then decoy claims, then the real one), the last one first, or scrambled.
ORDERS = ("fifo", "fifo", "reverse", "second-last", "last-first", "shuffle")


@dataclass(frozen=True)
class Deliver:
    """Send the next ``n`` pending entries (0: all), in ``order``; ``dup``: send the
    entry at that place of the batch twice (-1: none)."""

    n: int
    order: str = "fifo"
    dup: int = -1

    def describe(self) -> str:
        extra = f",dup{self.dup}" if self.dup >= 0 else ""
        return f"deliver({self.n or 'all'},{self.order}{extra})"


@dataclass(frozen=True)
class Withhold:
    """Keep the pending entry at ``index`` back for ``steps`` (0: until the game's end)."""

    index: int
    steps: int

    def describe(self) -> str:
        return f"withhold({self.index},{self.steps or 'forever'})"


@dataclass(frozen=True)
class Refuse:
    """From now on, keep back for ever every entry of ``kind`` the brain makes (refuse
    to open its seeds, to answer, to give a key...; ``all``: go silent)."""

    kind: str

    def describe(self) -> str:
        return f"refuse({self.kind})"


@dataclass(frozen=True)
class Resend:
    """Send again the entry sent ``back`` sends ago."""

    back: int

    def describe(self) -> str:
        return f"resend({self.back})"


@dataclass(frozen=True)
class Claim:
    """Append ``count`` claims (the first real, the others decoys) that the honest player
    owes what the brain thinks it owes (``false``: kinds it does not owe); with
    ``after_move``, right after the brain's next move of play instead of now."""

    count: int
    after_move: bool = False
    false: bool = False
    part: bool = False  # only one of the kinds owed (one the honest player may not use)

    def describe(self) -> str:
        how = "after-move" if self.after_move else "now"
        return (f"claim({self.count},{how}{',false' if self.false else ''}"
                f"{',part' if self.part else ''})")  # fmt: skip


@dataclass(frozen=True)
class Dispute:
    """Dispute the honest entry at ``index`` of the honest feed (as the brain holds it)."""

    index: int

    def describe(self) -> str:
        return f"dispute({self.index})"


@dataclass(frozen=True)
class Equivocate:
    """Sign ``count`` chats at the seq of the brain's entry ``back`` from its last."""

    back: int
    count: int

    def describe(self) -> str:
        return f"equivocate({self.back},{self.count})"


@dataclass(frozen=True)
class Garbage:
    """Bytes that are no valid entry (``bytes``, ``flip``, ``truncate``), a signed entry
    far ahead of the feed (``ahead``), or the brain's next entry acking an id the honest
    player never wrote (``bad-ack``)."""

    kind: str
    index: int

    def describe(self) -> str:
        return f"garbage({self.kind},{self.index})"


@dataclass(frozen=True)
class Deaf:
    """The brain reads nothing from the honest player for ``steps`` steps."""

    steps: int

    def describe(self) -> str:
        return f"deaf({self.steps})"


@dataclass(frozen=True)
class Stall:
    """The brain makes no move of play for ``steps`` steps."""

    steps: int

    def describe(self) -> str:
        return f"stall({self.steps})"


@dataclass(frozen=True)
class Wait:
    """The clock jumps ``seconds``."""

    seconds: int

    def describe(self) -> str:
        return f"wait({self.seconds})"


@dataclass(frozen=True)
class Reconnect:
    """Both sides say ``have`` and send what the other lacks (held entries excepted)."""

    def describe(self) -> str:
        return "reconnect"


@dataclass(frozen=True)
class Restart:
    """The honest peer crashes and resumes from its saved records and secrets."""

    def describe(self) -> str:
        return "restart"


@dataclass(frozen=True)
class Leave:
    """The honest player leaves right after its next claim (it hears nothing more)."""

    def describe(self) -> str:
        return "leave"


@dataclass(frozen=True)
class Resume:
    """The honest player, if it left, resumes from its files and resyncs."""

    def describe(self) -> str:
        return "resume"


@dataclass(frozen=True)
class OpenSeeds:
    """The brain opens its seeds of the hand in progress, owed or not."""

    def describe(self) -> str:
        return "open"


@dataclass(frozen=True)
class Chat:
    count: int

    def describe(self) -> str:
        return f"chat({self.count})"


@dataclass(frozen=True)
class Resign:
    def describe(self) -> str:
        return "resign"


@dataclass(frozen=True)
class Honest:
    """``steps`` steps of honest behaviour: every pending entry is sent at once."""

    steps: int

    def describe(self) -> str:
        return f"honest({self.steps})"


Choice = (
    Deliver
    | Withhold
    | Refuse
    | Resend
    | Claim
    | Dispute
    | Equivocate
    | Garbage
    | Deaf
    | Stall
    | Wait
    | Reconnect
    | Restart
    | Leave
    | Resume
    | OpenSeeds
    | Chat
    | Resign
    | Honest
)


@dataclass(frozen=True)
class Strategy:
    """A world, the cheater's role, the honest player, a faked lock or not, and the
    deviation chosen at each step."""

    world: int
    cheater: int
    honest_player: str = "greedy"
    fake_lock: bool = False
    choices: tuple[Choice, ...] = ()

    def describe(self) -> str:
        head = (f"world {self.world}, cheater {('host', 'guest')[self.cheater]}, honest "
                f"{self.honest_player}{', fake lock' if self.fake_lock else ''}")  # fmt: skip
        return f"{head}: {' '.join(c.describe() for c in self.choices) or '(plays honestly)'}"


#: The deviations a strategy draws, by weight; "subtle" strategies break no rule on
#: purpose (they reorder, delay, repeat, claim early, go deaf, ...), "reckless" ones do.
SUBTLE = ("deliver",) * 8 + ("honest", "honest", "withhold", "withhold", "claim", "claim",
          "claim", "garbage", "deaf", "stall", "wait", "wait", "reconnect", "restart", "leave",
          "resend", "chat", "refuse")  # fmt: skip
RECKLESS = (*SUBTLE, "dispute", "dispute", "equivocate", "equivocate", "misc")


def draw_choice(d: Drawer, style: str = "reckless") -> Choice:
    """One deviation; the weights favour delivery, so games get past the set-up."""
    kind = _pick(d, SUBTLE if style == "subtle" else RECKLESS)
    if kind == "deliver":
        n = _pick(d, (1, 1, 2, 3, 5, 10, 0, 0))
        return Deliver(n, _pick(d, ORDERS), _pick(d, (-1, -1, -1, 0, 1)))
    if kind == "honest":
        return Honest(d.between(1, 6))
    if kind == "withhold":
        return Withhold(d.between(0, 3), _pick(d, (0, 2, 5, 20)))
    if kind == "claim":
        count = _pick(d, (1, 1, 2, MAX_EARLY, MAX_EARLY + 1, MAX_EARLY + 2))
        false = style != "subtle" and d.between(0, 4) == 0
        part = style != "subtle" and not false and d.between(0, 4) == 0
        return Claim(count, d.between(0, 1) == 1, false, part)
    if kind == "dispute":
        return Dispute(d.between(0, 40))
    if kind == "equivocate":
        return Equivocate(d.between(0, 2), d.between(1, 3))
    if kind == "garbage":
        kinds = ("bytes", "flip", "truncate", "ahead") + (("bad-ack",) if style != "subtle" else ())
        return Garbage(_pick(d, kinds), d.between(0, 255))
    if kind == "deaf":
        return Deaf(_pick(d, (2, 10, 40)))
    if kind == "stall":
        return Stall(_pick(d, (2, 10, 40)))
    if kind == "wait":
        return Wait(_pick(d, (5, TIMEOUT // 2, TIMEOUT + 1, TIMEOUT + 15)))
    if kind == "reconnect":
        return Reconnect()
    if kind == "restart":
        return Restart()
    if kind == "leave":
        leave: tuple[Leave | Resume, ...] = (Leave(), Leave(), Resume())
        return _pick(d, leave)
    if kind == "resend":
        return Resend(d.between(0, 5))
    if kind == "refuse":
        return Refuse(
            _pick(
                d,
                ("open", "open", "stock_key", "answers", "keys", "checkpoint", "challenge", "all"),
            )
        )
    if kind == "chat":
        return Chat(_pick(d, (1, 3)))
    misc: tuple[OpenSeeds | Resign, ...] = (OpenSeeds(), Resign())
    return _pick(d, misc)


def draw_strategy(d: Drawer, max_choices: int = 40) -> Strategy:
    """A whole strategy: the header, then up to ``max_choices`` deviations."""
    world = d.between(0, WORLDS - 1)
    cheater = d.between(0, 1)
    player = _pick(d, ("greedy", "random"))
    style = _pick(d, ("subtle", "reckless"))
    fake_lock = d.between(0, 3) == 0
    choices = tuple(draw_choice(d, style) for _ in range(d.between(0, max_choices)))
    return Strategy(world, cheater, player, fake_lock, choices)


def random_strategy(seed: int, max_choices: int = 40) -> Strategy:
    """The strategy of game ``seed`` of the script: ``random.Random(seed)`` draws it."""
    return draw_strategy(RandomDrawer(random.Random(seed)), max_choices)
