"""The presets and their settings as a player reads them (``ginp2p rules``): a line on
each preset, and every setting of one under a label in words with its value in words
(``Knock: instead of drawing, with no discard``), grouped as docs/rules.md groups them.
The names ``--set`` takes are the command's ``--raw`` output, not these.
"""

from __future__ import annotations

from collections.abc import Callable

from ginp2p.game.rules import RuleSet

__all__ = ["PRESET_LINES", "preset_line", "setting_groups"]

#: A line on each preset, for the list of presets (docs/rules.md says the rest).
PRESET_LINES = {
    "classic": "Gin Rummy as most play it: knock with 10 or less, gin 25, game to 100",
    "hoyle": "classic with American home scoring: smaller bonuses, a shutout bonus, and "
    "box points for both players",
    "french": "classic without the upcard round; a tie scores nothing",
    "italian": "two decks, aces high or low, close at any time; the lower deadwood scores",
    "italian-jokers": "italian with four jokers, wild",
    "rumino": "7 cards from two decks and jokers, knock instead of drawing; low scores "
    "are good, over 100 you are out",
    "openspiel": "the research program's rules: a fixed dealer, the wall, no match bonuses",
}


def preset_line(name: str) -> str:
    """The line on the preset ``name`` ("" for a name that is no preset)."""
    return PRESET_LINES.get(name, "")


def _yes_no(yes: str, no: str) -> Callable[[object], str]:
    return lambda value: yes if value else no


def _points(value: object) -> str:
    return "none" if not value else str(value)


def _deck(rules: RuleSet) -> str:
    return {
        52: "52 cards",
        104: "104 cards: two decks",
        108: "108 cards: two decks and 4 jokers",
    }.get(rules.deck_size, f"{rules.deck_size} cards")


def _joker(rules: RuleSet, text: str) -> str:
    return text if rules.jokers else f"{text} (no jokers in this deck)"


def _knock_limit(rules: RuleSet) -> str:
    if rules.knock_limit is None:
        return "any: close at any time"
    if rules.knock_limit == 0:
        return "0: only a gin ends the hand"
    return f"{rules.knock_limit} or less"


def _knock(rules: RuleSet) -> str:
    if rules.knock_instead_of_draw:
        return "at the start of a turn, instead of drawing, with no discard"
    return "after drawing, discarding a card face down"


def _big_gin(rules: RuleSet) -> str:
    if rules.big_gin_bonus is None:
        return "not played"
    return f"bonus {rules.big_gin_bonus} (all {rules.hand_size + 1} cards meld after the draw)"


def _scoring(rules: RuleSet) -> str:
    return {
        "difference": "the knocker scores the deadwood difference (unless undercut)",
        "lower_scores": "whoever has less deadwood scores the difference",
        "own_deadwood": "each player adds their own deadwood to their score (low is good)",
    }.get(rules.scoring, rules.scoring)


def _gin_bonus(rules: RuleSet) -> str:
    if not rules.gin_bonus:
        return "none"
    if rules.scoring == "own_deadwood":
        return f"{rules.gin_bonus:+d} to the ginner's own score"
    return f"{rules.gin_bonus} + the defender's deadwood"


def _stock_floor(rules: RuleSet) -> str:
    if rules.stock_floor == 0:
        return "when it is empty"
    return f"at {rules.stock_floor} cards left"


def _stock_end(rules: RuleSet) -> str:
    return {
        "void": "the hand scores nothing",
        "count": "both count their deadwood, no layoffs; the lower scores the difference",
        "wall": "the wall: the next player may only knock with the upcard, or pass (no score)",
    }.get(rules.stock_end, rules.stock_end)


def _match_end(rules: RuleSet) -> str:
    if rules.match_end == "bust":
        return f"over {rules.game_target} a player is out (both over: the lower total wins)"
    return f"the first to reach {rules.game_target} wins"


def _nth(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


#: Each setting: its label and its value in words, in groups as docs/rules.md has them.
_Words = Callable[[RuleSet], str]
_GROUPS: list[tuple[str, list[tuple[str, str, _Words]]]] = [
    ("Cards", [
        ("deck_size", "Deck", _deck),
        ("hand_size", "Cards dealt to each", lambda r: str(r.hand_size)),
        ("ace_high", "Aces", lambda r: "low or high (A-2-3 and Q-K-A)" if r.ace_high
         else "low only (A-2-3)"),
        ("max_run_length", "Longest run in one meld",
         lambda r: "no limit" if r.max_run_length is None else f"{r.max_run_length} cards"),
        ("jokers_per_meld", "Jokers in one meld",
         lambda r: _joker(r, f"at most {r.jokers_per_meld}" if r.jokers_per_meld
                          else "none: jokers never meld")),
        ("joker_value", "A joker left unmelded counts", lambda r: _joker(r, str(r.joker_value))),
    ]),
    ("Turns", [
        ("upcard_pass_round", "First upcard",
         lambda r: "the non-dealer, then the dealer may take it or pass" if r.upcard_pass_round
         else "taken or not, as on any turn"),
        ("discard_taken_card", "Discard the card just taken from the pile",
         lambda r: _yes_no("allowed", "not allowed")(r.discard_taken_card)),
    ]),
    ("Knocking and the showdown", [
        ("knock_limit", "Knock with deadwood of", _knock_limit),
        ("knock_instead_of_draw", "Knock", _knock),
        ("layoffs", "Lay off onto the knocker's melds",
         lambda r: _yes_no("yes (never after a gin)", "no")(r.layoffs)),
        ("layoffs_per_run_end", "Layoffs at each end of a run",
         lambda r: "no limit" if r.layoffs_per_run_end is None
         else f"at most {r.layoffs_per_run_end}"),
        ("big_gin_bonus", "Big gin", _big_gin),
    ]),
    ("Scoring a hand", [
        ("scoring", "A hand scores", _scoring),
        ("gin_bonus", "Gin", _gin_bonus),
        ("undercut_bonus", "Undercut bonus", lambda r: _points(r.undercut_bonus)),
        ("undercut_on_tie", "Equal deadwood",
         lambda r: _yes_no("counts as an undercut", "scores nothing")(r.undercut_on_tie)),
        ("gin_can_be_undercut", "A gin can be undercut",
         lambda r: _yes_no("yes, by a defender with no deadwood", "no")(r.gin_can_be_undercut)),
    ]),
    ("The stock running low", [
        ("stock_floor", "The stock runs low", _stock_floor),
        ("stock_end", "Then, if nobody knocks", _stock_end),
        ("same_dealer_after_void", "After a hand with no score",
         lambda r: _yes_no("the same dealer deals again", "the deal passes as usual")(
             r.same_dealer_after_void)),
        ("max_discard_draws", "Draws from the pile in one hand",
         lambda r: "no limit" if r.max_discard_draws is None
         else f"the {_nth(r.max_discard_draws)} ends the hand with no score"),
        ("repeated_upcard_ends_hand", "Both in a row throwing back the card taken",
         lambda r: _yes_no("ends the hand with no score", "allowed")(r.repeated_upcard_ends_hand)),
    ]),
    ("The match", [
        ("dealer_rotation", "Dealer",
         lambda r: "the same player every hand" if r.dealer_rotation == "fixed"
         else "alternates"),
        ("game_target", "Played to", lambda r: f"{r.game_target} points"),
        ("match_end", "The match ends", _match_end),
        ("game_bonus", "Game bonus to the winner", lambda r: _points(r.game_bonus)),
        ("shutout_bonus", "Shutout (the loser scored nothing)",
         lambda r: "no extra" if r.shutout_bonus is None
         else f"{r.shutout_bonus} instead of the game bonus"),
        ("box_bonus", "Box bonus per hand won", lambda r: _points(r.box_bonus)),
        ("box_to", "Box bonus goes to",
         lambda r: "each player, for their own hands" if r.box_to == "each"
         else "the match winner"),
        ("instant_rumino", "Rumino (one rank or a straight flush)",
         lambda r: _yes_no("wins the match", "not played")(r.instant_rumino)),
        ("gin_streak_wins", "Gins in the first hands",
         lambda r: "not played" if r.gin_streak_wins is None
         else f"a gin in each of the first {r.gin_streak_wins} wins the match"),
    ]),
]  # fmt: skip


def setting_groups(rules: RuleSet) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """Every setting of ``rules`` but its name, in groups: (heading, [(setting name,
    label, value in words)])."""
    return [(heading, [(name, label, words(rules)) for name, label, words in settings])
            for heading, settings in _GROUPS]  # fmt: skip
