"""Sentences for people about moves and finished hands, shared by the console, the
replay, the export and the audit, so that each says a move or a hand's end the same
way. The names of the entry kinds and the filter for text from another peer are the
protocol's (:mod:`ginp2p.proto.text`); they are importable from here too."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence

from ginp2p.game.cards import Card
from ginp2p.game.engine import Action, HandEnd, HandResult
from ginp2p.game.rules import RuleSet
from ginp2p.proto.text import KIND_WORDS, for_screen, sent_words
from ginp2p.proto.text import MOVE_WORDS as _MOVES

__all__ = ["END_WORDS", "KIND_WORDS", "MATCH_ENDS", "action_words", "commands_in", "count",
           "ending", "for_screen", "forfeited_lead_words", "goal_words", "hands_words",
           "match_end_words", "no_score",
           "preset_short", "preset_words", "result_words", "rules_help", "score_reasons",
           "sent_words", "setting_value", "settings_words"]  # fmt: skip

#: Hands that end without a knock.
END_WORDS = {
    HandEnd.STOCK_VOID: "the stock ran low (no score)",
    HandEnd.STOCK_COUNT: "the stock ran out and both counted",
    HandEnd.WALL_PASS: "passed at the wall (no score)",
    HandEnd.REPEATED_DISCARD: "the upcard came back (no score)",
    HandEnd.MAX_DISCARD_DRAWS: "too many draws from the pile (no score)",
    HandEnd.RUMINO: "rumino",
    HandEnd.RESIGN: "a player resigned",
}

_KNOCKS = (HandEnd.KNOCK, HandEnd.GIN, HandEnd.BIG_GIN, HandEnd.UNDERCUT)


def no_score(r: HandResult) -> str:
    """``; no score`` after the ending of a hand that scored nothing, unless its ending
    said so already (a void hand)."""
    if r.scored or "(no score)" in END_WORDS.get(r.end, ""):
        return ""
    return "; no score"


def count(n: int, what: str) -> str:
    """``1 meld``, ``2 melds``, ``3 entries``."""
    if n == 1:
        return f"{n} {what}"
    if what.endswith("y") and what[-2:-1] not in "aeiou":
        return f"{n} {what[:-1]}ies"
    return f"{n} {what}s"


def action_words(action: Action, who: str, card: Card | None = None, *, past: bool = False,
                 pretty: Callable[[Card | None], str] = lambda c: c.pretty() if c else "??"
                 ) -> str:  # fmt: skip
    """A move in a sentence: "Ann draws 7♥ from the stock", or with ``past`` "you drew
    7♥ from the stock". ``card``: the card drawn or taken, if the viewer may see it;
    ``pretty`` writes a card (symbols or codes)."""
    k = action.kind
    if k == "show":
        melds, laid = len(action.melds), len(action.layoffs)  # type: ignore[union-attr]
        verb, lay = ("showed", "laid off") if past else ("shows", "lays off")
        text = f"{who} {verb} {count(melds, 'meld') if melds else 'no melds'}"
        return text + (f" and {lay} {count(laid, 'card')}" if laid else "")
    present, done = _MOVES.get(k, (k, k))
    shown = f" {pretty(card)}" if card is not None else ""
    text = f"{who} {(done if past else present).format(card=shown)}"
    if k == "discard":
        return f"{text} {pretty(action.card)}"  # type: ignore[union-attr]
    discard = getattr(action, "discard", None)
    return text + (f", discarding {pretty(discard)}" if discard is not None else "")


#: Ends that one player chose, after their name.
_ENDED_BY = {HandEnd.WALL_PASS: END_WORDS[HandEnd.WALL_PASS], HandEnd.RESIGN: "resigned"}


def ending(r: HandResult, who: Callable[[int], str]) -> str:
    """How the hand ended: "Ann knocked, undercut by Bob", "the stock ran low ...";
    ``who`` names a player (a name, or "you")."""
    if r.ended_by is not None and r.end in _ENDED_BY:
        return f"{who(r.ended_by)} {_ENDED_BY[r.end]}"
    if r.knocker is None or r.end not in _KNOCKS:
        return END_WORDS.get(r.end, str(r.end))
    verb = "went big gin" if r.end is HandEnd.BIG_GIN else "went gin" if r.gin else "knocked"
    wall = " at the wall" if r.at_the_wall else ""
    undercut = f", undercut by {who(1 - r.knocker)}" if r.undercut else ""
    return f"{who(r.knocker)} {verb}{wall}{undercut}"


def result_words(r: HandResult, names: Sequence[str]) -> str:
    """A finished hand in a sentence: who ended it and who scored what."""
    line = ending(r, names.__getitem__)
    if not r.scored:
        return line + no_score(r)
    gains = [f"{names[p]} {r.points[p]:+d}" for p in (0, 1) if r.points[p]]  # rumino's gin: -10
    return f"{line}; {', '.join(gains)}"


def score_reasons(r: HandResult, rules: RuleSet, who: Callable[[int], str], *,
                  total: bool = True) -> list[str]:  # fmt: skip
    """How a hand's points were made up, a phrase each: "deadwood 3 against 25: a
    difference of 22", "gin bonus: 25", and with ``total`` "Bob scores 47"; a tie's,
    and rumino's gin. The table's hand summary and the export both say it, so that
    "did they really score that?" has one answer. ``who`` names a player ("you", or a
    name)."""
    d = r.declarations
    if r.scored and d[0] is not None and d[1] is not None and rules.scoring != "own_deadwood":
        gainer = 0 if r.points[0] else 1
        won, lost = (d[0], d[1]) if gainer == 0 else (d[1], d[0])
        diff = abs(won.deadwood - lost.deadwood)
        bonus = r.points[gainer] - diff
        reasons = [f"deadwood {won.deadwood} against {lost.deadwood}: a difference of {diff}"]
        if bonus > 0:
            kind = "undercut" if r.undercut else "big gin" if r.end is HandEnd.BIG_GIN else \
                "gin" if r.gin else "bonus"  # fmt: skip
            reasons.append(f"{kind} bonus: {bonus}")
        name = who(gainer)
        scores = f"{name} {'score' if name == 'you' else 'scores'} {r.points[gainer]}"
        return reasons + [scores] * total
    if r.scored and rules.scoring == "own_deadwood":
        reasons = ["each player adds their own deadwood (low is good)"]
        if r.gin and r.knocker is not None:  # rumino's -10, a gain where low is good
            k, ginner = r.knocker, d[r.knocker]
            bonus = r.points[k] - (ginner.deadwood if ginner is not None else 0)
            if bonus:
                name = who(k)
                whose = "your" if name == "you" else f"{name}'s"
                reasons.append(f"a gin: {bonus:+d} to {whose} own score")
        return reasons
    if not r.scored and d[0] is not None and d[1] is not None \
            and d[0].deadwood == d[1].deadwood:  # fmt: skip
        return [f"equal deadwood ({d[0].deadwood} each): a tie, nobody scores"]
    return []


#: How a match ended, in a few words for a result line ("Ann wins, 123 to 45 (reached
#: the target)"); the logs, the export's JSON and the audit's JSON keep the codes.
#: ``{}`` is the loser, where the end is something the loser did.
MATCH_ENDS = {
    "target": "reached the target",
    "bust": "{} went over the limit",
    "rumino": "rumino",
    "gin_streak": "a gin in every hand from the first",
    "resign": "{} resigned",
    "claim": "{} stopped answering",
    "cheat": "{} cheated",
}


def match_end_words(end: object, loser: str = "the loser") -> str:
    """``reached the target`` for ``target``, ``Bob resigned`` for ``resign``; an
    unknown code as it is."""
    return MATCH_ENDS.get(str(end), str(end)).format(loser)


def preset_words(rules: RuleSet) -> str:
    """The rules a game is played by, as its reports name them: ``classic``, or
    ``classic with knock_limit=60, game_target=20`` where ``--set`` changed it."""
    changed = rules.changes()
    name = for_screen(rules.name)  # the host's hello names its rules as it likes
    return f"{name} with {settings_words(changed)}" if changed else name


def preset_short(rules: RuleSet, beside: tuple[str, ...] = ()) -> str:
    """The rules in a word or two, where a screen's header has no room for the settings
    ``--set`` changed: ``classic``, or ``classic, changed`` (the help tells them). A
    setting the header shows ``beside`` it (the target, say) is no news."""
    changed = set(rules.changes()) - set(beside)
    name = for_screen(rules.name)
    return f"{name}, changed" if changed else name


def settings_words(settings: dict[str, object]) -> str:
    """Settings as ``--set`` takes them: ``knock_limit=none, layoffs=false,
    game_target=20``."""
    return ", ".join(f"{k}={setting_value(v)}" for k, v in settings.items())


def setting_value(value: object) -> str:
    """A rule setting's value as ``--set`` takes it: ``none``, ``false``, ``7``."""
    return str(value).lower() if value is None or isinstance(value, bool) else str(value)


def goal_words(rules: RuleSet) -> str:
    """What the match is played to: a target to reach, or (rumino) a score not to pass."""
    if rules.match_end == "bust":
        return f"out over {rules.game_target}"
    return f"game to {rules.game_target}"


def rules_help(rules: RuleSet, width: int = 78) -> list[str]:
    """The rules being played, in a few lines of ``width`` for a player: the melds, the
    deadwood, when a knock is allowed, how a hand scores, how the stock ends, how the
    match is won and what is special to these rules. Both consoles' help starts with it,
    so that it tells the game actually played, not classic's: every sentence comes from
    the RuleSet's fields, never from the preset's name."""
    most = rules.max_run_length
    most_words = f" (at most {most} per meld)" if most is not None else ""
    melds = (
        f"Melds: 3 or 4 of one rank{', no two of one suit' * rules.multi_deck}, or a run "
        f"of 3 or more of one suit{most_words}, ace "
        f"{'low or high' if rules.ace_high else 'low'}"
    )
    if rules.jokers:
        n = rules.jokers_per_meld
        melds += f"; jokers wild ({n} per meld)" if n else "; jokers never meld"
    values = "face cards 10" if not rules.jokers else "face cards and jokers 10" \
        if rules.joker_value == 10 else f"face cards 10, jokers {rules.joker_value}"  # fmt: skip
    text = [f"{melds}.", f"Deadwood (unmelded cards): ace 1, {values}."]
    if rules.multi_deck:
        text.append("Second copies show ′ (7♥′; type 7h').")
    text += [_turn_words(rules), *_score_words(rules), *_end_words(rules),
             *_match_words(rules)]  # fmt: skip
    return textwrap.wrap(" ".join(t for t in text if t), width)


def _turn_words(rules: RuleSet) -> str:
    """A turn and the knock: the limit, instead of drawing or not, the layoffs."""
    limit = ("whatever the deadwood" if rules.knock_limit is None  # None: no limit at all
             else "only with no deadwood" if rules.knock_limit == 0
             else f"with deadwood of {rules.knock_limit} or less")  # fmt: skip
    lay = "no layoffs" if not rules.layoffs else \
        f"at most {rules.layoffs_per_run_end} layoffs per run end" \
        if rules.layoffs_per_run_end is not None else ""  # fmt: skip
    back = " (even one just taken)" if rules.discard_taken_card else ""
    if rules.knock_instead_of_draw:
        return (
            f"Each turn draw and discard{back}; or, {limit}, knock instead "
            f"(no discard{', ' * bool(lay)}{lay})."
        )
    if rules.knock_limit == 0:  # a knock with no deadwood is a gin
        return f"Each turn draw, then discard{back}. No knocking: only a gin ends the hand."
    return (
        f"Each turn draw, then discard{back}. You may knock {limit}"
        f"{f' ({lay})' * bool(lay)}; with none, go gin."
    )


def _score_words(rules: RuleSet) -> list[str]:
    """How a knock scores: the difference and the undercut, the lower deadwood, or each
    player's own; the gin and big gin bonuses."""
    gin, big = rules.gin_bonus, rules.big_gin_bonus
    big_words = f"big gin (all {rules.hand_size + 1} cards meld after the draw)"
    if rules.scoring == "own_deadwood":
        return ["Each player adds their own deadwood" + (f"; a gin {gin:+d}" if gin else "")
                + (f", a {big_words} {big:+d}" if big else "") + "."]  # fmt: skip
    if rules.scoring == "lower_scores":
        extra = [f"{gin} for a gin"] * bool(gin) + [f"{big} for a {big_words}"] * bool(big)
        return [
            "The lower deadwood scores the difference"
            + (f", + {' or '.join(extra)}" if extra else "")
            + "; equal: no score."
        ]
    bonus = f" + {rules.undercut_bonus}" if rules.undercut_bonus else ""
    if not rules.gin_can_be_undercut:
        gins = ", never against a gin"
    else:
        gins = ", even a gin, with 0" if rules.undercut_on_tie else ""
    undercut = (
        f"Knocker scores the deadwood difference; undercut (defender "
        f"{'equal or lower' if rules.undercut_on_tie else 'lower'}{gins}): "
        f"defender scores it{bonus}"
    )
    if not rules.undercut_on_tie:
        undercut += "; equal: 0" + (", a gin's too" if rules.gin_can_be_undercut else "")
    if big is None:  # classic's players look for it
        return [f"{undercut}.", f"Gin: {gin} + the defender's deadwood; no big gin."]
    return [f"{undercut}.", f"Gin: {gin}, {big_words}: {big}, each + the defender's deadwood."]


def _end_words(rules: RuleSet) -> list[str]:
    """How the stock ends a hand, and the hands ended unscored to stop a loop."""
    where = "When the stock runs out" if rules.stock_floor == 0 else \
        f"At {rules.stock_floor} cards left in the stock"  # fmt: skip
    text = []
    if rules.stock_end == "wall":
        text.append(
            f"The wall: {where[0].lower()}{where[1:]}, the next player may only "
            "knock with the upcard or pass (no score)."
        )
    elif rules.stock_end == "count":
        text.append(f"{where}, both count their deadwood.")
    else:
        again = "; the same dealer deals again" if rules.same_dealer_after_void else ""
        left = "empty" if rules.stock_floor == 0 else f"down to {rules.stock_floor}"
        text.append(f"Stock {left} and no knock on that draw: no score{again}.")
    loops = [f"the {_nth(rules.max_discard_draws)} pile draw"] * bool(rules.max_discard_draws)
    if rules.repeated_upcard_ends_hand:
        loops.append("both in a row putting the pile's card back")
    if loops:
        text.append(f"Also no score: {', or '.join(loops)}.")
    return text


def _nth(n: int | None) -> str:
    n = n or 0
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _match_words(rules: RuleSet) -> list[str]:
    """How the match is won, its bonuses, the dealer, the instant wins."""
    if rules.match_end == "bust":
        text = [f"Over {rules.game_target} you are out"]
    else:
        adds = []
        if rules.game_bonus or rules.shutout_bonus:
            shut = f" ({rules.shutout_bonus} if the loser has 0)" \
                if rules.shutout_bonus is not None else ""  # fmt: skip
            adds.append(f"the winner adds {rules.game_bonus}{shut}")
        if rules.box_bonus:
            who = "each player adds" if rules.box_to == "each" else \
                "and" if adds else "the winner adds"  # fmt: skip
            adds.append(f"{who} {rules.box_bonus} per hand won")
        sep = ", " if rules.box_to == "each" else " "
        text = [f"Game to {rules.game_target}" + (f"; then {sep.join(adds)}" if adds else
                                                  ", no bonuses")]  # fmt: skip
    text[0] += ", same dealer every hand." if rules.dealer_rotation == "fixed" else "."
    streak = rules.gin_streak_wins
    streak_words = f"gins in the first {streak} hands" if streak else ""
    if rules.instant_rumino:
        text.append(
            f"Rumino (after the draw, {rules.hand_size} of one rank or straight "
            f"flush){f' or {streak_words}' * bool(streak)} "
            f"win{'' if streak else 's'} the match."
        )
    elif streak:
        text.append(f"{streak_words.capitalize()} win the match.")
    return text


def commands_in(rules: RuleSet) -> dict[str, bool]:
    """Which commands these rules have, for both consoles' help: ``upcard`` (take or
    pass the first upcard), ``wall`` (pass at the wall), ``instead`` (a knock with no
    card, instead of drawing), ``by_card`` (a knock discarding a card; the wall's knock
    discards too), ``big`` (gin with no discard), ``rumino``, ``layoffs``."""
    wall = rules.stock_end == "wall"
    return {"upcard": rules.upcard_pass_round, "wall": wall,
            "instead": rules.knock_instead_of_draw,
            "by_card": not rules.knock_instead_of_draw or wall,
            "big": rules.big_gin_bonus is not None, "rumino": rules.instant_rumino,
            "layoffs": rules.layoffs}  # fmt: skip


def hands_words(numbers: Sequence[int]) -> str:
    """The hands a log reaches, for an error that names one it does not: "hands 1-4",
    "only hand 1"."""
    return f"hands {numbers[0]}-{numbers[-1]}" if len(numbers) > 1 else f"only hand {numbers[0]}"


def forfeited_lead_words(who: str, lead: int) -> str:
    """After a forfeit by the player who was ahead: nobody pays (docs/rules.md §1)."""
    return (
        f"nobody pays: {who} {'were' if who == 'you' else 'was'} ahead by {lead}, and "
        "whoever forfeits the match is paid nothing"
    )
