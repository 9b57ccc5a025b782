"""ginp2p: Gin Rummy for two peers on one local network.

The core (cards, melds, rules, engine, bot) is pure and deterministic; everything
that touches sockets, terminals, clocks or files lives at the edge.

The names below are the library's small public API, described with examples in
docs/api.md: the rules and one hand (``RuleSet``, ``PRESETS``, ``start_hand``,
``legal_actions``, ``apply`` and the action types), the computer player (``observe``,
``choose_from``), saved games (``audit_file``, ``load_replay``, ``export_document``),
one player's side of the protocol (``PeerProtocol``) and the errors. Each is imported
on first use, so ``import ginp2p`` (and ``ginp2p --help``) loads none of them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from ginp2p.errors import Ginp2pError as Ginp2pError
    from ginp2p.errors import LocalProtocolError as LocalProtocolError
    from ginp2p.errors import RemoteProtocolError as RemoteProtocolError
    from ginp2p.files.records import audit_file as audit_file
    from ginp2p.files.records import load_replay as load_replay
    from ginp2p.game.actions import Action as Action
    from ginp2p.game.actions import BigGin as BigGin
    from ginp2p.game.actions import DeclareRumino as DeclareRumino
    from ginp2p.game.actions import Discard as Discard
    from ginp2p.game.actions import DrawDiscard as DrawDiscard
    from ginp2p.game.actions import DrawStock as DrawStock
    from ginp2p.game.actions import Gin as Gin
    from ginp2p.game.actions import Knock as Knock
    from ginp2p.game.actions import PassUpcard as PassUpcard
    from ginp2p.game.actions import Resign as Resign
    from ginp2p.game.actions import Show as Show
    from ginp2p.game.actions import TakeUpcard as TakeUpcard
    from ginp2p.game.actions import WallKnock as WallKnock
    from ginp2p.game.actions import WallPass as WallPass
    from ginp2p.game.bot import choose as choose
    from ginp2p.game.bot import choose_from as choose_from
    from ginp2p.game.cards import Card as Card
    from ginp2p.game.cards import parse_cards as parse_cards
    from ginp2p.game.engine import apply as apply
    from ginp2p.game.engine import legal_actions as legal_actions
    from ginp2p.game.engine import start_hand as start_hand
    from ginp2p.game.hand import DeckKnowledge as DeckKnowledge
    from ginp2p.game.hand import HandState as HandState
    from ginp2p.game.hand import IllegalAction as IllegalAction
    from ginp2p.game.hand import Phase as Phase
    from ginp2p.game.observation import Observation as Observation
    from ginp2p.game.observation import PublicMove as PublicMove
    from ginp2p.game.observation import observe as observe
    from ginp2p.game.rules import PRESETS as PRESETS
    from ginp2p.game.rules import RuleSet as RuleSet
    from ginp2p.game.selfplay import shuffled as shuffled
    from ginp2p.proto.protocol import PeerProtocol as PeerProtocol
    from ginp2p.record.audit import audit_records as audit_records
    from ginp2p.record.export import document as export_document
    from ginp2p.record.replay import Replay as Replay
    from ginp2p.record.report import Report as Report

#: The action types, all in ginp2p.game.actions.
_ACTIONS = (
    "Action",
    "PassUpcard",
    "TakeUpcard",
    "DrawStock",
    "DrawDiscard",
    "Discard",
    "Knock",
    "Gin",
    "BigGin",
    "WallKnock",
    "WallPass",
    "Show",
    "DeclareRumino",
    "Resign",
)

#: Where each public name lives: (module, name there).
_WHERE: dict[str, tuple[str, str]] = {
    # the rules and the cards
    "RuleSet": ("ginp2p.game.rules", "RuleSet"),
    "PRESETS": ("ginp2p.game.rules", "PRESETS"),
    "Card": ("ginp2p.game.cards", "Card"),
    "parse_cards": ("ginp2p.game.cards", "parse_cards"),
    # one hand
    "start_hand": ("ginp2p.game.engine", "start_hand"),
    "legal_actions": ("ginp2p.game.engine", "legal_actions"),
    "apply": ("ginp2p.game.engine", "apply"),
    "HandState": ("ginp2p.game.hand", "HandState"),
    "Phase": ("ginp2p.game.hand", "Phase"),
    "DeckKnowledge": ("ginp2p.game.hand", "DeckKnowledge"),
    "IllegalAction": ("ginp2p.game.hand", "IllegalAction"),
    "shuffled": ("ginp2p.game.selfplay", "shuffled"),
    **{name: ("ginp2p.game.actions", name) for name in _ACTIONS},
    # the computer player
    "Observation": ("ginp2p.game.observation", "Observation"),
    "PublicMove": ("ginp2p.game.observation", "PublicMove"),
    "observe": ("ginp2p.game.observation", "observe"),
    "choose": ("ginp2p.game.bot", "choose"),
    "choose_from": ("ginp2p.game.bot", "choose_from"),
    # saved games
    "audit_file": ("ginp2p.files.records", "audit_file"),
    "audit_records": ("ginp2p.record.audit", "audit_records"),
    "load_replay": ("ginp2p.files.records", "load_replay"),
    "export_document": ("ginp2p.record.export", "document"),
    "Report": ("ginp2p.record.report", "Report"),
    "Replay": ("ginp2p.record.replay", "Replay"),
    # a peer
    "PeerProtocol": ("ginp2p.proto.protocol", "PeerProtocol"),
    # the errors
    "Ginp2pError": ("ginp2p.errors", "Ginp2pError"),
    "LocalProtocolError": ("ginp2p.errors", "LocalProtocolError"),
    "RemoteProtocolError": ("ginp2p.errors", "RemoteProtocolError"),
}

__all__ = [
    "PRESETS",
    "Action",
    "BigGin",
    "Card",
    "DeckKnowledge",
    "DeclareRumino",
    "Discard",
    "DrawDiscard",
    "DrawStock",
    "Gin",
    "Ginp2pError",
    "HandState",
    "IllegalAction",
    "Knock",
    "LocalProtocolError",
    "Observation",
    "PassUpcard",
    "PeerProtocol",
    "Phase",
    "PublicMove",
    "RemoteProtocolError",
    "Replay",
    "Report",
    "Resign",
    "RuleSet",
    "Show",
    "TakeUpcard",
    "WallKnock",
    "WallPass",
    "__version__",
    "apply",
    "audit_file",
    "audit_records",
    "choose",
    "choose_from",
    "export_document",
    "legal_actions",
    "load_replay",
    "observe",
    "parse_cards",
    "shuffled",
    "start_hand",
]


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use (PEP 562)."""
    try:
        module, attr = _WHERE[name]
    except KeyError:
        raise AttributeError(f"module 'ginp2p' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})
