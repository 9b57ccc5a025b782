"""The ``ginp2p`` command.

``play`` is you against the computer player (a second ginp2p process over loopback
ZeroMQ; without a terminal, two computer players and you watch). ``host`` / ``join``
play a match against a person on another computer (a line prompt for now); ``bot``
puts the computer player on either side; ``resume`` continues a saved game after a
crash or a quit; ``keys`` shows keys, safety numbers and forgets a peer; ``games``
lists the saved games; ``replay`` steps through a saved game (or prints it);
``audit`` judges a game log (who cheated, where, with proof: the exit code is the
verdict); ``export`` prints a game as JSON or text; ``selfplay`` plays a whole match
through the engine alone.

Heavy modules (zmq, nacl, prompt_toolkit, the engine) are imported inside the
command functions, so ``ginp2p --help`` stays fast.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ginp2p import __version__
from ginp2p.present.charset import encodes

if TYPE_CHECKING:
    from ginp2p.files.games import GameInfo

PRESET_NAMES: tuple[str, ...] = ()


# ------------------------------------------------------------------------ selfplay


def _cmd_selfplay(args: argparse.Namespace) -> int:
    import random

    from ginp2p.game.match import MatchState
    from ginp2p.game.selfplay import make_player, play_match
    from ginp2p.present.words import ending, preset_words

    rules = _rules(args)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    names = ("North", "South")
    print(
        f"ginp2p {__version__}: {names[0]} vs {names[1]}, preset {preset_words(rules)}, seed {seed}"
    )
    print("(two computer players in one process; network play: `ginp2p host` / `ginp2p join`)\n")

    say = _printer(args)  # card codes (QS) where the console cannot show a suit

    def show(m: MatchState) -> None:
        r = m.results[-1]
        line = f"hand {m.hand_no:>2}: {ending(r, names.__getitem__)}"
        if r.scored:
            scorers = [p for p in (0, 1) if r.points[p]] or [0 if r.knocker is None else r.knocker]
            line += " - " + ", ".join(f"{names[p]} {r.points[p]:+d}" for p in scorers)
        say(f"{line:<52} {names[0]} {m.scores[0]:>3}  {names[1]} {m.scores[1]:>3}")
        if args.verbose:
            for p in (0, 1):
                d = r.declarations[p]
                if d is not None:
                    melds = "  ".join(" ".join(c.pretty() for c in mm.in_order) for mm in d.melds)
                    dead = " ".join(c.pretty() for c in d.deadwood_cards)
                    lays = " ".join(lay.card.pretty() for lay in d.layoffs)
                    say(f"    {names[p]:<6} melds [{melds}] deadwood [{dead}] = {d.deadwood}"
                        + (f" laid off [{lays}]" if lays else ""))  # fmt: skip

    players = (make_player("bot"), make_player("bot"))
    m = play_match(rules, players, seed, on_hand=show)
    if m.winner is not None and m.totals is not None:
        print(f"\n{names[m.winner]} wins the match ({m.end}): totals with bonuses "
              f"{names[0]} {m.totals[0]}, {names[1]} {m.totals[1]}")  # fmt: skip
    return 0


def _seed(text: str) -> int:
    """A match seed: a whole number, 0 or more (``random`` would treat -7 as 7)."""
    try:
        seed = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if seed < 0:
        raise argparse.ArgumentTypeError(f"a seed is 0 or more, not {seed}")
    return seed


def _seconds(text: str) -> float:
    """A time in seconds: 0 or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"seconds are 0 or more, not {text}")
    return value


def _some_seconds(text: str) -> float:
    """A time in seconds, more than 0 (a wait for the other computer: none at all gives
    up before a connection can be made)."""
    value = _seconds(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"more than 0 seconds, not {text} (nothing can "
                                         "answer in no time)")  # fmt: skip
    return value


def _whole_seconds(text: str) -> int:
    """A whole number of seconds, at least 1 (a claim timeout)."""
    value = _seconds(text)
    if value != int(value) or value < 1:
        raise argparse.ArgumentTypeError(f"a whole number of seconds, at least 1, not {text}")
    return int(value)


def _port(text: str) -> int:
    """A port to listen on: 0..65535, 0 for any free one (ZeroMQ would take -5 or 99999
    as another port, modulo 65536, and the host would print that one)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0..65535 (0: any free one), not {port}")
    return port


def _interface_address(text: str) -> str:
    """``--mdns-interface``: an IP address of this computer (anything else failed in
    zeroconf: a traceback for join, a puzzling warning for host)."""
    import ipaddress

    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an IP address: give this "
            "computer's address on the network to use, e.g. "
            "192.168.1.5 (127.0.0.1: this computer only)"
        ) from None
    try:
        from ginp2p.net.discovery import own_addresses

        mine = [ipaddress.ip_address(a) for a in own_addresses()]
    except Exception:  # no list of this computer's addresses: zeroconf will tell
        return str(address)
    plain = ipaddress.ip_address(str(address).split("%")[0])  # without an IPv6 scope
    if mine and plain not in mine:
        ours = ", ".join(dict.fromkeys(str(a) for a in mine))
        raise argparse.ArgumentTypeError(f"{address} is not an address of this computer "
                                         f"(its addresses: {ours})")  # fmt: skip
    return str(address)


def _bind_address(text: str) -> str:
    """``--bind``: an IPv4 address of this computer, or 0.0.0.0 (every interface).
    Anything else stopped the host once it began, with ZeroMQ's own words (``No such
    device (addr='tcp://999.1.1.1:*')``); the host's socket speaks IPv4 only."""
    text = _given("give an address to listen on, or leave --bind out for every "
                  "interface")(text).strip()  # fmt: skip
    if text == "0.0.0.0":
        return text
    address = _interface_address(text)
    if ":" in address:
        raise argparse.ArgumentTypeError(f"{address}: the host listens on IPv4 addresses "
                                         "only (e.g. 192.168.1.5)")  # fmt: skip
    return address


def _given(what: str) -> Callable[[str], str]:
    """A ``type=`` for a value that must not be empty: an empty folder or file name was
    taken as none (--log-dir "": the default folder, keys --safety "": the list of
    keys), or as the current folder (a traceback from resume and export)."""

    def check(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"empty: {what}")
        return text

    return check


GAME_FILE = _given("give a game's .ginlog file (`ginp2p games` lists them)")


def _cmd_rules(args: argparse.Namespace) -> int:
    from ginp2p.game.rules import PRESETS, get_preset

    if args.preset is None:
        for name in PRESETS:
            print(name)
        return 0
    rules = get_preset(args.preset)
    for key, value in rules.to_dict().items():
        print(f"{key:<26} {value}")
    return 0


# ------------------------------------------------------------------------ network games


class UsageError(Exception):
    """A mistake on the command line: one line, exit 2."""


class Problem(Exception):
    """Something the command cannot do as things stand (a file missing or of another
    kind, no game found on the LAN): one line, exit 1, as replay and export say of
    theirs. Exit 2 is kept for a mistake in the command line itself."""


def _value(text: str) -> Any:
    low = text.strip().lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("none", "null", "-"):
        return None
    try:
        return int(text)
    except ValueError:
        return text.strip()


def _rules(args: argparse.Namespace) -> Any:
    """The preset with ``--set NAME=VALUE`` overrides (RuleSet.with_ validates)."""
    from ginp2p.game.rules import RuleSet, get_preset

    rules = get_preset(args.preset or "classic")
    changes: dict[str, Any] = {}
    known = set(RuleSet.__dataclass_fields__)
    for item in getattr(args, "set", None) or []:
        name, sep, value = item.partition("=")
        name = name.strip().replace("-", "_")
        see = f"`ginp2p rules {rules.name}` lists the settings"
        if not sep:
            raise UsageError(f"--set {item}: expected NAME=VALUE, e.g. --set game_target=50 "
                             f"({see})")  # fmt: skip
        if name == "name":
            raise UsageError(f"--set {item}: name is the preset's, not a setting (choose it "
                             "with --preset)")  # fmt: skip
        if name not in known:
            import difflib

            close = difflib.get_close_matches(name, sorted(known - {"name"}), n=1)
            guess = f" (did you mean {close[0]}?)" if close else ""
            raise UsageError(f"--set {item}: no rule setting called {name}{guess}; {see}")
        changes[name] = _value(value)
    try:
        made = rules.with_(**changes) if changes else rules
    except (ValueError, TypeError) as exc:
        raise UsageError(f"--set: {exc}") from None
    most = made.hand_size * max(10, made.joker_value if made.jokers else 0)
    if made.knock_limit is not None and made.knock_limit > most:
        # a peer may still send such rules (they play as none): only --set refuses them
        raise UsageError(f"--set: knock_limit={made.knock_limit} is more deadwood than a hand "
                         f"of {made.hand_size} can hold (at most {most}), so it limits nothing: "
                         "say knock_limit=none to allow a knock at any count")  # fmt: skip
    return made


#: The longest ``--name``, in characters: enough for a first name and a surname. It
#: heads your side of the table, beside your score, on one line with the other player's
#: name and score; on a terminal too narrow for both names the table shortens them.
NAME_CHARS = 24


def _player_name(text: str) -> str:
    """``--name``: one line of printable text, 1 to :data:`NAME_CHARS` characters (the
    hello also takes at most 64 bytes of UTF-8, no control characters), checked here so
    a bad name stops before a game, not in the middle of pairing. Blanks around it go."""
    import unicodedata

    from ginp2p.proto.events import NAME_BYTES

    name = text.strip()
    if not name:
        raise argparse.ArgumentTypeError("a name cannot be empty or only spaces (leave "
                                         "--name out for the default)")  # fmt: skip
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:  # a Latin-1 byte on a UTF-8 command line
        raise argparse.ArgumentTypeError("the name is not valid UTF-8 (is the terminal's "
                                         "encoding another?)") from None  # fmt: skip
    odd = next((ch for ch in name if not ch.isprintable()), None)
    if odd is not None:
        what = "a tab" if odd == "\t" else {
            "Zl": "a line break", "Zp": "a line break", "Zs": "a space other than the plain one",
            "Cf": "an invisible formatting character", "Cc": "a control character",
        }.get(unicodedata.category(odd), "a character that does not print")  # fmt: skip
        if odd in "\n\r\v\f\x1c\x1d\x1e\x85":
            what = "a line break"
        raise argparse.ArgumentTypeError(f"a name is one line of printable characters, "
                                         f"not with {what} (U+{ord(odd):04X}) in it")  # fmt: skip
    if len(name) > NAME_CHARS:
        raise argparse.ArgumentTypeError(f"a name is at most {NAME_CHARS} characters, not "
                                         f"{len(name)}")  # fmt: skip
    if size > NAME_BYTES:
        raise argparse.ArgumentTypeError(
            f"a name is at most {NAME_BYTES} bytes of UTF-8 "
            f"(the network's limit), and this one is {size}"
        )
    return name


def _default_name(bot: bool) -> str:
    if bot:
        return "Bot"
    import getpass

    from ginp2p.proto.events import NAME_BYTES

    try:
        name = getpass.getuser().encode("utf-8")[:NAME_BYTES].decode("utf-8", "ignore")
    except Exception:
        return "player"
    return "".join(c for c in name if c.isprintable()) or "player"


class _Help(argparse.HelpFormatter):
    """argparse's help, but an epilog of examples keeps its lines as written (argparse
    would run them together into one paragraph), and a line never breaks at a hyphen
    (``italian-jokers`` is one name)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("examples:"):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


class _Parser(argparse.ArgumentParser):
    """Every command's parser (argparse makes the subcommands' of the same class): the
    help as :class:`_Help` writes it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Help)
        super().__init__(*args, **kwargs)


def _log_dir(args: argparse.Namespace) -> Path:
    from ginp2p.files.gamefiles import games_dir

    return Path(args.log_dir) if getattr(args, "log_dir", None) else games_dir()


def _created() -> str:
    import datetime

    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def _table(args: argparse.Namespace) -> Any:
    """The full-screen table for a person, unless ``--plain`` or there is no terminal
    (a pipe, CI: then the line mode, which scripts and screen readers read)."""
    import os

    if getattr(args, "plain", False) or not (sys.stdin.isatty() and sys.stdout.isatty()):
        return None
    if os.environ.get("TERM") == "dumb":  # no cursor movement: a full screen cannot work
        return None
    from ginp2p.console.tui.look import Look
    from ginp2p.console.tui.table import TablePlayer

    return TablePlayer(Look.from_env(ascii=getattr(args, "ascii", False)),
                       bell=not getattr(args, "no_bell", False))  # fmt: skip


def _check_common(args: argparse.Namespace) -> None:
    if not 20 <= args.k <= 64:
        raise UsageError("--k must be between 20 and 64")
    if not 1 <= args.claim_timeout <= 86400:
        raise UsageError("--claim-timeout must be between 1 and 86400 seconds")
    if args.pair_code is not None:
        from ginp2p.net.pairing import canonical_code

        try:
            canonical_code(args.pair_code)
        except ValueError as exc:
            raise UsageError(f"--pair-code: {exc}") from None


def _browse(args: argparse.Namespace) -> list[Any]:
    import asyncio

    from ginp2p.net.discovery import browse

    kwargs: dict[str, Any] = {}
    if args.mdns_interface:
        kwargs["interfaces"] = [args.mdns_interface]
    print(f"looking for games on the LAN ({args.browse_time:g} s)…", flush=True)
    return asyncio.run(browse(args.browse_time, **kwargs))


def _find_address(args: argparse.Namespace, bot: bool) -> tuple[str, int, bytes]:
    """The host to join: the join string, else what discovery finds (never trusted:
    the key is checked by pairing or the pin)."""
    from ginp2p.net.discovery import parse_join

    address = args.address
    if address is not None:  # "": a join string that is empty, not "look on the LAN"
        try:
            host, port, key = parse_join(address)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if key is not None:
            return host, port, key
        # plain HOST:PORT: the key comes from the advertisement of that address
        on_port = [f for f in _browse(args) if f.port == port]
        at = _addresses_of(host)
        found = [f for f in on_port if at & set(f.addresses)]
        if not found and not _is_ip(host) and len(on_port) == 1:
            found = on_port  # a name for this machine ("localhost") or one not advertised
        if len(found) == 1:
            print(f"found {found[0].name} at {host}:{port}")
            return host, port, found[0].key
        why = "several games" if found else "no game"
        raise Problem(f"{why} at {host}:{port} announced a key on the LAN: use the "
                      "host's full join string HOST:PORT/KEY")  # fmt: skip
    found = _browse(args)
    want = getattr(args, "discover_name", None)
    if want:
        found = [f for f in found if f.name.casefold() == want.casefold()]
    if not found:
        raise Problem("no game found on the LAN: a host stops announcing once its guest "
                      "is in (back into your own game: `ginp2p games`, then `ginp2p resume "
                      "FILE`), or multicast is blocked here (ask the host for its join "
                      "string)")  # fmt: skip
    for i, f in enumerate(found, 1):
        print(f"  {i}. {_found_line(f)}")
    if bot or (len(found) == 1 and not sys.stdin.isatty()):
        choice = found[0]
    elif not sys.stdin.isatty():
        raise UsageError("several games found: give one as ADDRESS")
    else:
        choice = _pick(found)
    print(f"joining {choice.name} ({_key_check(choice.key)})")
    return choice.addresses[0], choice.port, choice.key


def _found_line(f: Any) -> str:
    """A game of the LAN list. Anyone can announce any name: the fingerprint tells two
    hosts of one name apart, and a host you paired with is named as you paired it."""
    from ginp2p.files import peers
    from ginp2p.files.identity import fingerprint
    from ginp2p.net.discovery import PROTOCOL_VERSION

    known = peers.lookup_quietly(f.key)
    mark = f"  paired with you as {known.name or 'a player'}" if known else ""
    other = (
        ""
        if f.version == PROTOCOL_VERSION
        else f"  (another ginp2p version: protocol {f.version or '?'}, ours {PROTOCOL_VERSION})"
    )
    return (f"{f.name}  fingerprint {fingerprint(f.key)}{mark}{other}\n"
            f"     ginp2p join {f.join()}")  # fmt: skip


def _key_check(key: bytes) -> str:
    """How the key a LAN announcement gave is checked: against the one paired with (a
    rematch), else by the pairing code; never taken on the announcement's word."""
    from ginp2p.files import peers

    if peers.lookup_quietly(key) is not None:
        return "its key is checked against the one you paired with"
    return "its key is checked by the pairing code, not taken on the LAN's word"


def _pick(found: list[Any]) -> Any:
    """Ask which game to join until the answer is one (Enter: the only one); an empty
    answer with several, or the end of input, chooses none."""
    one = " (Enter: 1)" if len(found) == 1 else ""
    while True:
        try:
            answer = input(f"join which? 1-{len(found)}{one} ").strip()
        except EOFError:
            answer = None
        if answer == "" and len(found) == 1:
            return found[0]
        if answer is None or answer == "":
            raise Problem("no game chosen")
        if answer.isdigit() and 1 <= int(answer) <= len(found):
            return found[int(answer) - 1]
        print(f"  {answer!r} is not one of the games listed: type its number, 1-{len(found)}")


def _addresses_of(host: str) -> set[str]:
    """The addresses a host name or address stands for (none if it cannot be resolved)."""
    import socket

    if _is_ip(host):
        return {host}
    try:
        return {str(info[4][0]) for info in socket.getaddrinfo(host, None)}
    except (OSError, UnicodeError):
        return set()


def _is_ip(host: str) -> bool:
    import ipaddress

    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _new_game(args: argparse.Namespace, player: str, role: str) -> int:
    """A new game: host (bind) or guest (join)."""
    from ginp2p.app.setup import GameSetup
    from ginp2p.files import peers
    from ginp2p.files.gamefiles import PeerFile, new_game_path
    from ginp2p.files.identity import key_to_text, load_or_create_identity

    _check_common(args)
    bot = player == "bot"
    name = args.name or _default_name(bot)
    if role == "host":
        port = args.port if args.port is not None else _default_port()
        rules = _rules(args)
        side = PeerFile("host", name, player, None, args.bind, port, rules.to_dict(),
                        args.k, args.claim_timeout, _created())  # fmt: skip
        expect = None
    else:
        host, port, key = _find_address(args, bot)
        by_hand = getattr(args, "parent_pid", None) is None  # not `play`'s computer
        games, host_key = _log_dir(args), key_to_text(key)
        if by_hand and games.is_dir():
            from ginp2p.files.games import drop_never_begun

            for gone in drop_never_begun(games, host_key):
                print(f"{gone} never began (you had not said yes to this host's rules), "
                      "so it is removed")  # fmt: skip
        # a game with a host forgotten since waits for pairing again, which this join
        # does: pointing at `resume` would only send the player round in a circle
        from ginp2p.app.setup import busy_as_guest

        if (busy := busy_as_guest(key, port)) is not None:  # before: its game is not old
            raise Problem(busy)
        if by_hand and not getattr(args, "new", False) and peers.lookup_quietly(key) is not None:
            from ginp2p.files.games import unfinished_with

            old = unfinished_with(games, host_key)
            if old is not None:
                raise Problem(f"you have an unfinished game with this host: continue it "
                              f"with `ginp2p resume {old}` (or add --new to begin "
                              "another)")  # fmt: skip
        expect = _rules(args) if (args.preset or args.set) else None
        side = PeerFile("guest", name, player, host_key, host, port,
                        expect.to_dict() if expect else None, created=_created())  # fmt: skip
    identity = load_or_create_identity()
    path = (
        Path(args.game_file)
        if getattr(args, "game_file", None)
        else new_game_path(_log_dir(args), role)
    )
    setup = GameSetup(
        side, path, player, verbose=args.verbose, connect_timeout=args.connect_timeout,
        linger=args.linger, expect_rules=expect, accept_rules=getattr(args, "yes", False),
        pair_code=args.pair_code, advertise=not getattr(args, "no_advertise", False),
        any_port_if_taken=role == "host" and args.port is None,
        mdns_interface=getattr(args, "mdns_interface", None),
        parent_pid=getattr(args, "parent_pid", None), out=_printer(args),
        err=_printer(args, error=True), claims=getattr(args, "parent_pid", None) is None,
    )  # fmt: skip
    if not bot:
        setup.table = _table(args)
    return _run(setup, identity, resume=False)


def _default_port() -> int:
    from ginp2p.net.discovery import DEFAULT_PORT

    return DEFAULT_PORT


def _resume(args: argparse.Namespace, player: str | None) -> int:
    from ginp2p.app.setup import GameSetup
    from ginp2p.files.gamefiles import PeerFile, peer_path
    from ginp2p.files.identity import load_or_create_identity
    from ginp2p.files.logfile import FileError, read_error, read_records
    from ginp2p.net.discovery import parse_join

    path = Path(args.file)
    if path.is_dir():  # "." or "/": no name to put .ginlog after
        raise Problem(f"{path} is a folder, not a game: resume the game's .ginlog file "
                      "(`ginp2p games` lists them)")  # fmt: skip
    if path.suffix in ("", ".peer", ".secrets"):  # the game's other files name it too
        named = path.with_suffix(".ginlog")
        # a name without a suffix that is no game's (/dev/null, notes.txt renamed): as given
        path = path if path.suffix == "" and path.exists() and not named.exists() else named
    elif path.suffix != ".ginlog":
        raise Problem(f"{path} is not a game: resume the game's .ginlog file "
                      "(`ginp2p games` lists them)")  # fmt: skip
    if not path.exists():
        raise Problem(f"{path}: no such file")
    try:  # a file that is no game log says so, before its missing .peer would
        read_records(path)
    except (OSError, FileError) as exc:
        raise Problem(read_error(path, exc)) from None
    try:
        side = PeerFile.load(peer_path(path))
    except ValueError as exc:
        raise Problem(str(exc)) from None
    player = player or side.player  # for this run only: the file keeps who plays it
    if getattr(args, "address", None) is not None:
        try:
            host, port, _ = parse_join(args.address)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        side.host, side.port = host, port
    if getattr(args, "port", None) is not None and side.role == "host":
        side.port = args.port
    if side.role == "guest" and getattr(args, "parent_pid", None) is None:
        _check_begun(path, side)
    expect = side.ruleset() if side.role == "guest" and side.rules else None
    setup = GameSetup(side, path, player, verbose=args.verbose,
                      connect_timeout=args.connect_timeout, linger=args.linger,
                      expect_rules=expect, accept_rules=player == "bot",
                      parent_pid=getattr(args, "parent_pid", None), out=_printer(args),
                      err=_printer(args, error=True),
                      # against the computer of `play`, nobody claims
                      claims=getattr(args, "parent_pid", None) is None
                      and not side.computer_game)  # fmt: skip
    if player != "bot":
        setup.table = _table(args)
    children: list[Any] = []
    if side.computer_game and side.role == "host":
        game = side.computer_game
        setup.out = _computer_game_out(setup.out or print, watch=player == "bot")

        def on_listening(port: int, join: str, code: str) -> None:
            # started once the port is known: `resume --port` may have moved it
            again = ["--resume", game, "--join", f"127.0.0.1:{port}"]
            children.append(_spawn_computer(again, Path(game)))
            _mind_computer(children, again, again, Path(game), setup)

        setup.on_listening = on_listening
    try:
        return _run(setup, load_or_create_identity(), resume=True)
    finally:
        _stop_computer(children, setup)


def _check_begun(path: Path, side: Any) -> None:
    """A guest's game begins with its yes to the host's rules. Resuming a file left at
    that question would ask them again from a hello the host may have left behind (a
    new game of its own since): a new `join` asks the host's rules as they are now.
    Not for the computer of `play`, whose host is always the same game."""
    from ginp2p.files.games import rules_accepted
    from ginp2p.net.discovery import format_join

    if rules_accepted(path):
        return
    try:
        again = format_join(side.host, side.port, side.peer_public_key)
    except (TypeError, ValueError):  # a damaged .peer: the advice stands without it
        again = "HOST:PORT/KEY"
    raise Problem(f"{path} never began: you had not said yes to the host's rules, so "
                  f"there is nothing to resume; to play this host, join it again: "
                  f"ginp2p join {again}")  # fmt: skip


def _run(setup: Any, identity: Any, *, resume: bool) -> int:
    import asyncio

    from ginp2p.app.setup import run_game

    if sys.platform == "win32":  # zmq.asyncio needs add_reader (pyzmq#1423)
        asyncio.set_event_loop_policy(asyncio.WindowsSelectorEventLoopPolicy())  # type: ignore[attr-defined]
    saved = f"the game is saved: ginp2p resume {setup.path}"
    try:
        return asyncio.run(run_game(setup, identity, resume=resume))
    except KeyboardInterrupt:
        print(f"\ninterrupted; {saved if setup.path.exists() else 'nothing was saved'}",
              file=sys.stderr)  # fmt: skip
        return 130
    except BrokenPipeError:  # `| head`: the reader stopped reading (main says nothing)
        raise
    except OSError as exc:  # a full disk, a folder taken away: every whole entry is kept
        print(f"ginp2p: error: {exc}", file=sys.stderr)
        if setup.path.exists():
            print(f"up to the last entry written, {saved}", file=sys.stderr)
        return 1


def _cmd_host(args: argparse.Namespace) -> int:
    return _new_game(args, "human", "host")


def _cmd_join(args: argparse.Namespace) -> int:
    return _new_game(args, "human", "guest")


def _cmd_bot(args: argparse.Namespace) -> int:
    import os

    # `play` hands its computer the code here: a command line is visible to every local
    # user (`ps`), a process's environment only to its owner
    code = os.environ.pop(PAIR_CODE_ENV, None)
    if args.pair_code is None and code:
        args.pair_code = code
    chosen = [x for x in (args.host, args.resume, args.discover) if x]
    if args.join is not None and not args.resume:  # --join "": a join string, empty
        chosen.append(args.join)
    if len(chosen) != 1:
        raise UsageError("give exactly one of --host, --join HOST:PORT/KEY, --discover, "
                         "--resume FILE")  # fmt: skip
    if args.resume:
        args.file, args.address = args.resume, args.join  # --join: where the host is now
        return _resume(args, "bot")
    if args.join is not None or args.discover:
        args.address = args.join
        args.discover_name = args.discover if isinstance(args.discover, str) else None
        return _new_game(args, "bot", "guest")
    return _new_game(args, "bot", "host")


def _cmd_resume(args: argparse.Namespace) -> int:
    return _resume(args, "bot" if args.bot else None)


# ------------------------------------------------------------------------ play: vs the computer


def _computer_home() -> Path:
    """The computer player's own identity and pins, under the user's config directory."""
    from ginp2p.files.identity import user_dir

    return user_dir("config") / "computer"


PAIR_CODE_ENV = "GINP2P_PAIR_CODE"


def _spawn_computer(extra: list[str], game: Path, pair_code: str = "") -> Any:
    """The computer player: a real second ginp2p process, with its own identity. In a
    session of its own: a Ctrl-C typed at the terminal is the person's to answer (the
    line prompt asks first, and may print while the terminal sends it as a signal to
    every process of the terminal); the computer leaves when the person's process stops
    it or is gone (``--parent-pid``)."""
    import os
    import subprocess

    env = dict(os.environ, GINP2P_HOME=str(_computer_home()))
    env.pop("GINP2P_CRASH_AT", None)
    env.pop(PAIR_CODE_ENV, None)
    if pair_code:
        env[PAIR_CODE_ENV] = pair_code
    game.parent.mkdir(parents=True, exist_ok=True)
    err = open(game.with_suffix(".out"), "ab")  # noqa: SIM115 - handed to the child
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "ginp2p", "bot", *extra, "--parent-pid", str(os.getpid())],
            env=env, stdin=subprocess.DEVNULL, stdout=err, stderr=err,
            start_new_session=True,
        )  # fmt: skip
    finally:
        err.close()


def _reap(child: Any, timeout: float) -> None:
    import subprocess

    try:
        child.wait(timeout)
    except subprocess.TimeoutExpired:
        child.terminate()
        try:
            child.wait(5)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


_MINDERS: set[Any] = set()  # the running minder tasks (the loop keeps weak references)


def _mind_computer(children: list[Any], first: list[str], again: list[str], game: Path,
                   setup: Any, pair_code: str = "") -> None:  # fmt: skip
    """Watch the computer player (``children[-1]``, started with ``first``) while the game
    runs: if it dies (killed, crashed), start it again, with ``again`` once its game file
    exists, twice at most, and say so; after that, stop the game (saved). Without this
    the person would wait for it forever. Called on the game's event loop. It polls, so
    nothing waits on the child once the game is over."""
    import asyncio
    import signal

    say = setup.table.heard(setup.out) if setup.table is not None else setup.out

    async def mind() -> None:
        for tries_left in (2, 1, 0):
            while (code := children[-1].poll()) is None:
                await asyncio.sleep(0.5)
            if code == 0:  # the match is over for it
                return
            if code in (130, 143):  # asked to stop (Ctrl-C, kill): it said it left
                return
            how = f"was killed ({signal.Signals(-code).name})" if code < 0 else f"failed ({code})"
            if not tries_left:
                setup.stop(f"the computer player {how} again, the third time; what it "
                           f"said is in {game.with_suffix('.out')}")  # fmt: skip
                return
            say(f"the computer player {how}; starting it again")
            children.append(_spawn_computer(again if game.exists() else first, game, pair_code))

    task = asyncio.get_running_loop().create_task(mind())
    _MINDERS.add(task)
    task.add_done_callback(_MINDERS.discard)


def _computer_game_out(show: Callable[[str], None], watch: bool) -> Callable[[str], None]:
    """The lines of a game against the computer: the join string and the pairing are
    between you and the computer, not worth a line (nor the file name, when watching)."""
    hidden: tuple[str, ...] = ("hosting on", "pairing code", "paired with a guest")
    if watch:
        hidden += ("game file",)
    return lambda text: None if text.startswith(hidden) else show(text)


def _stop_computer(children: list[Any], setup: Any) -> None:
    """After the game: let the computer player finish (it lingers to compare logs), but
    stop it at once if the person left mid-game, or the game never ran to an end here
    (a Ctrl-C before the prompt or the table took the keys, which no longer reaches the
    computer's own session): it would wait for them. Its files are saved entry by
    entry, and ``ginp2p resume`` restarts it."""
    result = setup.session.result if setup.session is not None else None
    left = result is None or result.status == "quit"
    for child in children:
        _reap(child, 1.0 if left else setup.linger + 5)


def _cmd_play(args: argparse.Namespace) -> int:
    """You against the computer player over loopback ZeroMQ, with the full protocol.

    Without a terminal to type in (CI, a pipe), two computer players play instead and
    you watch: same processes, same protocol.
    """
    from ginp2p.app.setup import GameSetup
    from ginp2p.files.gamefiles import PeerFile, drop_reservation, new_game_path
    from ginp2p.files.identity import key_to_text, load_or_create_identity
    from ginp2p.net.pairing import new_code
    from ginp2p.present.words import preset_words

    _check_common(args)
    watch = args.watch or not (sys.stdin.isatty() or args.plain)  # --plain: commands piped in
    player = "bot" if watch else "human"
    rules = _rules(args)
    name = args.name or ("Computer 1" if watch else _default_name(False))
    identity = load_or_create_identity()
    log_dir = _log_dir(args)
    path = new_game_path(log_dir, "host")
    computer_game = new_game_path(log_dir / "computer", "guest")
    side = PeerFile("host", name, player, None, "127.0.0.1", 0, rules.to_dict(), args.k,
                    args.claim_timeout, _created(), computer_game=str(computer_game))  # fmt: skip
    if watch:
        why = "" if args.watch else "no terminal to play in, so "
        print(f"ginp2p {__version__}: {why}two computer players play a match over the network "
              f"protocol ({preset_words(rules)}); `ginp2p play` in a terminal is you against the "
              "computer\n", flush=True)  # fmt: skip
    children: list[Any] = []

    def on_listening(port: int, join: str, code: str) -> None:
        key = key_to_text(identity.public_key)
        first = ["--join", f"127.0.0.1:{port}/{key}", "--name",
                 "Computer 2" if watch else "Computer", "--game-file", str(computer_game),
                 "--linger", str(args.linger), "--connect-timeout", "30"]  # fmt: skip
        children.append(_spawn_computer(first, computer_game, code))
        again = ["--resume", str(computer_game), "--join", f"127.0.0.1:{port}", "--linger",
                 str(args.linger)]  # fmt: skip
        _mind_computer(children, first, again, computer_game, setup, code)

    setup = GameSetup(side, path, player, verbose=args.verbose, connect_timeout=None,
                      linger=args.linger, pair_code=new_code(), advertise=False,
                      on_listening=on_listening, claims=False,
                      out=_computer_game_out(_printer(args), watch),
                      err=_printer(args, error=True))  # fmt: skip
    if not watch:
        setup.table = _table(args)
    try:
        code = _run(setup, identity, resume=False)
    finally:
        _stop_computer(children, setup)
        drop_reservation(computer_game)  # if the computer never began its game
    if code == 0 and watch:
        print(f"\nthe game is saved in {path} (ginp2p games lists them)")
    return code


# ------------------------------------------------------------------------ keys, games


def _cmd_keys(args: argparse.Namespace) -> int:
    from ginp2p.files import peers
    from ginp2p.files.identity import key_to_text, load_or_create_identity

    ident = load_or_create_identity()
    try:
        if args.forget is not None:
            if not args.forget.strip():
                raise UsageError("--forget: say which player to forget: the name or the start "
                                 "of the fingerprint `ginp2p keys` shows")  # fmt: skip
            try:
                gone = peers.forget(args.forget)
            except LookupError as exc:
                raise Problem(str(exc)) from None
            print(f"forgot {gone.name} ({gone.fingerprint}); pair again to play with them "
                  "(a game with them goes on with `ginp2p resume` only then)")  # fmt: skip
            return 0
        pinned = peers.all()
    except peers.PeersError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.safety:  # the player first: an error must not follow a screen of keys
        try:
            p = peers.find(args.safety, pinned)
        except LookupError as exc:
            raise Problem(str(exc)) from None
    print(f"your key:         {key_to_text(ident.public_key)}")
    print(f"your fingerprint: {ident.fingerprint}")
    print(f"key file:         {ident.path}")
    if args.safety:
        print(f"safety number with {p.name} ({p.fingerprint}):")
        print(f"  {peers.safety_number(ident.public_key, p.key)}")
        print("read it aloud to each other: the same digits on both screens mean nobody is "
              "in the middle")  # fmt: skip
        return 0
    if pinned:
        print("paired players:")
        for p in pinned:
            print(f"  {_padded(p.name, 20)} {p.fingerprint}  paired {p.paired.date()}")
    else:
        print("no paired players (a pairing code pairs you: ginp2p host, then ginp2p join)")
    return 0


def _cmd_games(args: argparse.Namespace) -> int:
    import shutil

    from ginp2p.files.games import list_games

    directory = _log_dir(args)
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"{directory} is not a folder")
    if args.log_dir and not directory.exists():  # a typo, not "no games yet"
        raise UsageError(f"{directory}: no such folder")
    if not directory.exists():  # no games yet, unless a file is in the way of the folder
        blocked = next((d for d in directory.parents if d.exists()), None)
        if blocked is not None and not blocked.is_dir():
            raise Problem(f"cannot look for games in {directory}: {blocked} is not a folder "
                          "(set GINP2P_HOME to a folder)")  # fmt: skip
    games = list_games(directory) if directory.exists() else []
    if not games:
        print(f"no games in {directory}")
        return 0
    for line in _games_table(games, shutil.get_terminal_size((80, 24)).columns):
        print(line)
    return 0


def _padded(text: str, cells: int, cut: bool = False) -> str:
    """``text`` padded to ``cells`` columns of a terminal (``cut``: and no wider), where a
    letter of Chinese or Japanese takes two: padded by letters, the next column of a
    list came late."""
    from prompt_toolkit.utils import get_cwidth

    used = 0
    for i, ch in enumerate(text):
        if cut and used + get_cwidth(ch) > cells:
            text = text[:i]
            break
        used += get_cwidth(ch)
    return text + " " * (cells - used)


def _games_table(games: list[GameInfo], width: int) -> list[str]:
    """``ginp2p games`` for a terminal ``width`` wide (80 for a pipe): a line of date,
    opponent, rules and result (wrapped in its column), then the file on a line of its
    own, which a full path needs; rules changed with ``--set`` are marked ``*`` and
    listed under the file. For people: no script should parse it."""
    import textwrap

    from prompt_toolkit.utils import get_cwidth

    width = max(width, 60) - 1  # a line as wide as the terminal wraps in some of them
    rules = [g.preset + "*" * bool(g.changes) for g in games]
    who = min(16, max(len("opponent"), *(get_cwidth(g.opponent) for g in games)))
    how = max(len("rules"), *(len(r) for r in rules))
    left = 16 + 2 + who + 2 + how + 2
    lines = [f"{'began':<16}  {'opponent':<{who}}  {'rules':<{how}}  result"]
    for g, r in zip(games, rules, strict=True):
        tag = g.result.replace("[audit: ", "[audit:\0")  # a tag is not broken
        result = [part.replace("\0", " ") for part in textwrap.wrap(tag, max(width - left, 20))]
        result = result or [""]
        lines.append(f"{g.date:<16}  {_padded(g.opponent, who, cut=True)}  {r:<{how}}  "
                     f"{result[0]}")  # fmt: skip
        lines += [" " * left + more for more in result[1:]]
        lines.append(f"  {g.path}")
        if g.changes:
            lines += textwrap.wrap(f"* {g.preset} with {g.changes}", width,
                                   initial_indent="  ", subsequent_indent="    ")  # fmt: skip
    return lines


def _cmd_replay(args: argparse.Namespace) -> int:
    from ginp2p.console.tui.keys import unechoed

    with unechoed(sys.stdin):  # as the game loads (command): keys wait for the viewer
        from ginp2p.console.tui.replay import command  # prompt_toolkit's import takes a moment
    return command(args)


#: ``audit`` exit when there is no verdict to give (no such file, a bad option): not
#: 0-3, so a script reading the verdict from the exit code never mistakes a typo for one.
NO_VERDICT = 4


def _cmd_audit(args: argparse.Namespace) -> int:
    import json

    from ginp2p.files.logfile import FileError, read_error
    from ginp2p.present.words import hands_words
    from ginp2p.record.audit import NotOneGame, audit

    path = Path(args.file)
    try:
        report = audit(path, *args.others, known=_known_keys())
    except NotOneGame as exc:
        return _no_verdict(args, str(exc))
    except (OSError, FileError) as exc:
        return _no_verdict(args, read_error(path, exc))
    if args.hand is None:
        # --json escapes what it must itself
        text = json.dumps(report.to_json(), indent=2) if args.json else report.text()
        return _verdict_out(args, text, report.exit_code)
    chosen = next((h for h in report.hands if h.hand == args.hand), None)
    if chosen is None:
        numbers = [h.hand for h in report.hands if h.hand]
        have = f" ({hands_words(numbers)})" if numbers else " (no hand was dealt)"
        return _no_verdict(args, f"the log has no hand {args.hand}{have}")
    if args.json:
        doc = report.to_json()
        doc["hands"] = [h for h in doc["hands"] if h["hand"] == args.hand]
        doc["selected"] = {"hand": args.hand, "verdict": str(chosen.verdict),
                           "exit": chosen.verdict.exit_code}  # fmt: skip
        text = json.dumps(doc, indent=2)
    else:
        text = report.text(only=args.hand)
    return _verdict_out(args, text, chosen.verdict.exit_code)


def _known_keys() -> dict[bytes, str]:
    """The keys the user knows, with who each is, for the audit to name: the paired
    players' and the user's own (read if there is one, never created). A key or a
    peers.json that cannot be read counts as unknown: `ginp2p keys` reports it."""
    import contextlib

    from ginp2p.files import peers
    from ginp2p.files.identity import (
        IDENTITY_FILE,
        IdentityError,
        load_or_create_identity,
        user_dir,
    )

    known: dict[bytes, str] = {}
    with contextlib.suppress(OSError, peers.PeersError):
        known.update((p.key, f"paired with you as {p.name}") for p in peers.all())
    if (user_dir("config") / IDENTITY_FILE).is_file():  # or load_... would create one
        with contextlib.suppress(OSError, IdentityError):
            known[load_or_create_identity().public_key] = "you"
    return known


def _no_verdict(args: argparse.Namespace, why: str) -> int:
    """Say why there is no verdict; with ``--json`` also as JSON on stdout, so a script
    reading it finds an answer there, not nothing."""
    print(f"ginp2p audit: error: {why}", file=sys.stderr)
    if args.json:
        import json

        print(json.dumps({"schema": 1, "verdict": None, "exit": NO_VERDICT, "error": why}))
    return NO_VERDICT


def _verdict_out(args: argparse.Namespace, text: str, code: int) -> int:
    """Print the report and return the verdict's exit code, even when the reader stops
    early (``| head``): a script under ``pipefail`` must not read a cheat as clean."""
    from ginp2p.present.words import for_screen

    try:
        if args.json:
            print(text, flush=True)
        else:  # the report quotes a player's words (a false dispute's rule): line by line
            _printer(args)("\n".join(for_screen(line) for line in text.split("\n")))
    except BrokenPipeError:
        _quiet_stdout()
    return code


def _cmd_export(args: argparse.Namespace) -> int:
    import json

    from ginp2p.files.gamefiles import peer_path
    from ginp2p.files.logfile import secrets_path
    from ginp2p.game.cards import ascii_names
    from ginp2p.record.export import document, text_lines
    from ginp2p.record.replay import ReplayError, load

    def fail(text: str) -> int:
        print(f"ginp2p export: error: {text}", file=sys.stderr)
        return 1

    to_file = args.output not in (None, "-")
    games = [Path(f) for f in (args.file, *args.others)]
    if folder := next((g for g in games if g.is_dir()), None):  # "/": no name to look beside
        return fail(f"{folder} is a folder, not a game log")
    own = [f for g in games for f in (g, secrets_path(g), peer_path(g))]
    if to_file and any(_same_file(args.output, str(f)) for f in own):
        return fail(f"{args.output} is one of the game's own files: write the export "
                    "elsewhere")  # fmt: skip
    try:
        replay = load(args.file, others=args.others, find_secrets=False)
    except ReplayError as exc:
        return fail(str(exc))
    if args.format == "json":  # escaped where the console cannot show a suit
        flat = not to_file and not encodes(sys.stdout, "♥♦♣♠")
        text = json.dumps(document(replay), indent=2, ensure_ascii=flat)
    else:
        ascii = args.ascii or (not to_file and not encodes(sys.stdout, "♥♦♣♠"))
        text = "\n".join(text_lines(document(replay, symbols=not ascii), ascii=ascii))
        text = ascii_names(text) if ascii else text
    if not to_file:
        print(text)
        return 0
    try:
        Path(args.output).write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        print(f"ginp2p export: error: {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


def _printer(args: argparse.Namespace, error: bool = False) -> Any:
    """``print`` for a game's lines, with card codes (``TH``) for ``--ascii`` or on a
    console that cannot show suit symbols (line mode writes cards as ``10♥``); with
    ``error``, for its errors: ``ginp2p join: error: …`` on standard error."""
    from ginp2p.game.cards import ascii_names

    codes = getattr(args, "ascii", False) or \
        not encodes(sys.stderr if error else sys.stdout, "♥♦♣♠")  # fmt: skip
    head = f"ginp2p {args.command}: error: " if error else ""

    def show(text: str) -> None:  # the stream of the moment: the prompt may stand in for it
        print(head + (ascii_names(text) if codes else text), flush=True,
              file=sys.stderr if error else sys.stdout)  # fmt: skip

    return show


def _same_file(a: str, b: str) -> bool:
    try:
        return Path(a).samefile(b)
    except OSError:  # one of them does not exist
        return False


# ------------------------------------------------------------------------ the parser


def _other_copies(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "others",
        nargs="*",
        default=[],
        metavar="OTHER.ginlog",
        type=GAME_FILE,
        help="the other player's copy of the same game: the entries of all copies "
        "are read together, so what one copy lost the other can hold (and two "
        "different entries at one place prove who made them)",
    )


def _console_options(p: argparse.ArgumentParser, play: bool = False) -> None:
    c = p.add_argument_group("console")
    c.add_argument("--plain", action="store_true",
                   help="a plain line prompt instead of the full-screen table (screen readers, "
                   + ("scripts: commands may come from a pipe)" if play else
                      "scripts; also the default without a terminal)"))  # fmt: skip
    c.add_argument(
        "--ascii",
        action="store_true",
        help="cards as 7H, TH, QS instead of suit symbols (NO_COLOR=1 drops colour)",
    )
    c.add_argument(
        "--no-bell", action="store_true", help="no terminal bell when it becomes your turn"
    )


def _game_options(p: argparse.ArgumentParser, host: bool) -> None:
    g = p.add_argument_group("game")
    g.add_argument("--preset", choices=PRESET_NAMES, metavar="PRESET",
                   help=f"rules: {', '.join(PRESET_NAMES)} (default classic)" if host else
                   "refuse the host's rules unless they are this preset")  # fmt: skip
    g.add_argument("--set", action="append", metavar="NAME=VALUE",
                   help="change one rule setting, e.g. --set game_target=50 (repeatable)"
                   if host else "insist on one rule setting: refuse the host's rules unless "
                   "NAME is VALUE, e.g. --set game_target=50 (repeatable)")  # fmt: skip
    g.add_argument("--name", type=_player_name,
                   help=f"your name as the other player sees it: 1 to {NAME_CHARS} characters "
                   "on one line")  # fmt: skip
    g.add_argument("--log-dir", metavar="DIR", type=_given("give a folder, or leave --log-dir "
                   "out for the default one"),
                   help="where to keep the game files (default: GINP2P_HOME/games or "
                   "~/.local/share/ginp2p/games)")  # fmt: skip
    if host:
        g.add_argument("--claim-timeout", type=_whole_seconds, default=120, metavar="SECONDS",
                       help="how long the other player may keep you waiting before you can "
                       "claim the match (host; default 120)")  # fmt: skip
        g.add_argument("--k", type=int, default=20, help="cut-and-choose rounds of the "
                       "shuffle proofs, 20..64 (host; default 20)")  # fmt: skip
    else:  # the host's to choose: a guest is shown them with the rules
        p.set_defaults(claim_timeout=120, k=20)
    g.add_argument("-v", "--verbose", action="store_true", help="say more")


def _pair_option(p: argparse.ArgumentParser, host: bool = True, guest: bool = True) -> None:
    says = [*(["host: the pairing code to show (default: a fresh random one)"] if host else []),
            *(["guest: the host's code, instead of typing it"] if guest else [])]  # fmt: skip
    p.add_argument("--pair-code", metavar="CODE", help="; ".join(says))


def _mdns_options(p: argparse.ArgumentParser, host: bool, browse: bool) -> None:
    p.add_argument("--mdns-interface", metavar="ADDR", type=_interface_address,
                   help="announce/look for games on this interface address only (e.g. "
                   "127.0.0.1); default every interface")  # fmt: skip
    if host:
        p.add_argument(
            "--no-advertise",
            action="store_true",
            help="do not announce the game on the LAN (the join string still works)",
        )
    p.add_argument("--browse-time", type=_some_seconds, default=3.0, metavar="SECONDS",
                   help="how long to look for games on the LAN (default 3)" if browse
                   else argparse.SUPPRESS)  # fmt: skip


def _host_options(p: argparse.ArgumentParser) -> None:
    n = p.add_argument_group("network (host)")
    n.add_argument(
        "--port",
        type=_port,
        help="port to listen on (default 52801, or any free one if it is taken; 0: any free port)",
    )
    n.add_argument(
        "--bind",
        default="0.0.0.0",
        metavar="ADDR",
        type=_bind_address,
        help="address to listen on (default 0.0.0.0: every interface)",
    )


def _connect_option(p: argparse.ArgumentParser, guest: bool = True) -> None:
    if guest:
        p.add_argument(
            "--connect-timeout",
            type=_some_seconds,
            default=20.0,
            metavar="SECONDS",
            help="give up joining if the host does not answer; in a game, "
            "when to say how to follow a host that moved (default 20)",
        )
    else:
        p.set_defaults(connect_timeout=None)
    p.add_argument("--linger", type=_seconds, default=5.0, metavar="SECONDS",
                   help="after the match, how long to wait for the other player to confirm "
                   "it has every entry (default 5)")  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    from ginp2p.game.rules import PRESETS

    global PRESET_NAMES
    PRESET_NAMES = tuple(PRESETS)
    ap = _Parser(
        prog="ginp2p",
        description="Gin Rummy for two people on one local network, with no server.",
        epilog="start with `ginp2p play` (you against the computer); two computers: "
        "`ginp2p host` on one, `ginp2p join` on the other",
    )
    ap.add_argument("--version", action="version", version=f"ginp2p {__version__}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    ap.set_defaults(parsers=sub.choices)  # main() lets each command report its own errors

    play = sub.add_parser(
        "play", help="play a match against the computer (watch two if there is no terminal)",
        description="You against the computer player, which runs as a second ginp2p process "
        "talking the full network protocol over loopback. Without a terminal (a pipe, CI), "
        "two computer players play and you watch.")  # fmt: skip
    play.add_argument("--watch", action="store_true", help="watch two computer players")
    _connect_option(play, guest=False)
    _game_options(play, True)
    _console_options(play, play=True)
    play.set_defaults(func=_cmd_play, pair_code=None)

    host = sub.add_parser("host", help="host a match for a person on another computer",
                          description="Host a match: prints a join string and a pairing "
                          "code for the guest, and announces the game on the LAN.")  # fmt: skip
    _host_options(host)
    _pair_option(host, guest=False)
    _mdns_options(host, True, browse=False)
    _connect_option(host, guest=False)
    _game_options(host, True)
    _console_options(host)
    host.set_defaults(func=_cmd_host)

    join = sub.add_parser("join", help="join a match hosted on another computer",
                          description="Join a match: with the host's join string, or with "
                          "no ADDRESS pick one of the games found on the LAN.")  # fmt: skip
    join.add_argument(
        "address",
        nargs="?",
        metavar="ADDRESS",
        help="HOST:PORT/KEY (the host's join string) or HOST:PORT",
    )
    _pair_option(join, host=False)
    join.add_argument("--yes", action="store_true", help="accept the host's rules unasked")
    join.add_argument("--new", action="store_true", help="begin a new game even if one with "
                      "this host is unfinished (by default: told to resume it)")  # fmt: skip
    _mdns_options(join, False, browse=True)
    _connect_option(join)
    _game_options(join, False)
    _console_options(join)
    join.set_defaults(func=_cmd_join)

    bot = sub.add_parser(
        "bot",
        help="the computer player, hosting or joining a match",
        description="Play a whole match as the computer player, then exit.",
    )
    mode = bot.add_argument_group("mode (one of)")
    mode.add_argument("--host", action="store_true", help="host the match")
    mode.add_argument("--join", metavar="ADDRESS", help="join this host (HOST:PORT[/KEY]); "
                      "with --resume: where the host is now")  # fmt: skip
    mode.add_argument(
        "--discover",
        nargs="?",
        const=True,
        metavar="NAME",
        help="join the first game found on the LAN (or the one called NAME)",
    )
    mode.add_argument("--resume", metavar="FILE", help="continue a saved game")
    bot.add_argument("--new", action="store_true", help="joining: begin a new game even if "
                     "one with this host is unfinished")  # fmt: skip
    _host_options(bot)
    _pair_option(bot)
    _mdns_options(bot, True, browse=True)  # --host, or --discover
    bot.set_defaults(browse_time=3.0)
    _connect_option(bot)
    _game_options(bot, True)
    bot.add_argument("--game-file", help=argparse.SUPPRESS)
    bot.add_argument("--parent-pid", type=int, help=argparse.SUPPRESS)
    bot.set_defaults(func=_cmd_bot)

    resume = sub.add_parser(
        "resume",
        help="continue a saved game (after a crash or quit)",
        description="Continue the game of FILE.ginlog where it stopped.",
        epilog="""examples:
  ginp2p games                        the saved games, with their files
  ginp2p resume GAME.ginlog           continue one, as the side you played
  ginp2p resume GAME.ginlog --bot     let the computer play your side""",
    )
    resume.add_argument(
        "file",
        metavar="FILE.ginlog",
        type=GAME_FILE,
        help="the game's log (`ginp2p games` lists them)",
    )
    resume.add_argument("--bot", action="store_true", help="let the computer play this side")
    resume.add_argument("--address", metavar="HOST:PORT", help="guest: the host moved here")
    resume.add_argument("--port", type=_port, help="host: listen on another port (0: any free "
                        "one)")  # fmt: skip
    resume.add_argument("-v", "--verbose", action="store_true", help="say more")
    _connect_option(resume)
    _console_options(resume)
    resume.set_defaults(func=_cmd_resume)

    keys = sub.add_parser("keys", help="your key and fingerprint; paired players",
                          description="Show your key and fingerprint and the players you "
                          "paired with; a safety number; forget a player.")  # fmt: skip
    one = keys.add_mutually_exclusive_group()
    one.add_argument(
        "--safety",
        metavar="PEER",
        type=_given(
            "say whose: a paired player's name or the start of their "
            "fingerprint (`ginp2p keys` lists them)"
        ),
        help="the safety number with a paired player (name or fingerprint)",
    )
    one.add_argument(
        "--forget",
        metavar="PEER",
        help="unpin a player (name or fingerprint start): pair again next time",
    )
    keys.set_defaults(func=_cmd_keys)

    games = sub.add_parser("games", help="list the saved games",
                           description="The saved games, newest first: when each began, "
                           "the opponent, the rules (the preset; * if --set changed them, "
                           "as said below the file) and the result, then the game's "
                           "file. A game is unfinished until its match ends, dealt or "
                           "not.")  # fmt: skip
    games.add_argument("--log-dir", metavar="DIR", help="another games folder",
                       type=_given("give a folder, or leave --log-dir out for the default "
                       "one"))  # fmt: skip
    games.set_defaults(func=_cmd_games)

    replay = sub.add_parser("replay", help="step through a saved game, or print it",
                            description="Step forward and back through a saved game log "
                            "(finished or not): entry by entry, move by move, hand by hand, "
                            "as either player or an onlooker saw it, with the entries the "
                            "audit rejects marked. Press ? in the viewer for the keys.",
                            epilog="""examples:
  ginp2p replay GAME.ginlog                  the viewer (? in it: the keys)
  ginp2p replay GAME.ginlog --as all         every card the log proves
  ginp2p replay GAME.ginlog --moves          the moves as text
  ginp2p replay A.ginlog B.ginlog            both players' copies, as one""",
                            )  # fmt: skip
    replay.add_argument("file", metavar="GAME.ginlog", type=GAME_FILE, help="a saved game log")
    _other_copies(replay)
    replay.add_argument("--as", dest="view", metavar="VIEW",
                        type=_given("say whose view: public, host, guest, all, or a player's "
                        "name"),
                        help="whose view: public, host, guest, all, or a player's name "
                        "(default: the player whose secrets file is beside the log, else "
                        "public)")  # fmt: skip
    replay.add_argument(
        "--hand",
        type=int,
        metavar="N",
        help="start at hand N (with --plain or --moves: only hand N)",
    )
    replay.add_argument("--ascii", action="store_true", help="cards as 7H/TS, no suit symbols")
    replay.add_argument("--secrets", action="append", metavar="FILE",
                        type=_given("give a player's .secrets file"),
                        help="a player's .secrets file to read their cards with (repeatable; "
                        "the one beside the log is read anyway)")  # fmt: skip
    text = replay.add_argument_group("text instead of the full-screen viewer")
    text.add_argument("--plain", action="store_true",
                      help="print the entries as lines of words (the default without a "
                      "terminal)")  # fmt: skip
    text.add_argument("--moves", action="store_true",
                      help="print only moves, deals, results and marked entries (implies "
                      "--plain)")  # fmt: skip
    text.add_argument("--at", metavar="N|end", help="print the table at entry N, or at the end")
    replay.set_defaults(func=_cmd_replay)

    audit = sub.add_parser(
        "audit", help="judge a game log: clean, cheated (who, where, proof), incomplete, damaged",
        description="Re-check every signature, shuffle step, key and rule of a saved game "
        "and give one verdict per hand and one for the file. The exit code is the verdict: "
        f"0 clean, 1 cheated, 2 incomplete, 3 damaged ({NO_VERDICT}: no verdict, e.g. no "
        "such file). See docs/audit.md.", epilog="""examples:
  ginp2p games                      the saved games and their files
  ginp2p audit GAME.ginlog          the verdict, then each hand's
  ginp2p audit GAME.ginlog --hand 3 hand 3 only; its verdict is the exit code
  ginp2p audit A.ginlog B.ginlog    both players' copies, judged as one
  ginp2p export GAME.ginlog         every deal, move, showdown and score""")  # fmt: skip
    audit.add_argument("file", metavar="GAME.ginlog", type=GAME_FILE, help="a saved game log")
    _other_copies(audit)
    audit.add_argument(
        "--hand",
        type=int,
        metavar="N",
        help="report hand N only (0: the set-up); the exit code is its verdict",
    )
    audit.add_argument(
        "--json",
        action="store_true",
        help="the report as JSON (a stable schema, see docs/audit.md)",
    )
    audit.set_defaults(func=_cmd_audit)

    def audit_usage_error(message: str) -> NoReturn:
        audit.print_usage(sys.stderr)
        audit.exit(NO_VERDICT, f"ginp2p audit: error: {message}\n")

    audit.error = audit_usage_error  # type: ignore[method-assign]  # 2 means incomplete

    export = sub.add_parser("export", help="a saved game as JSON or text: every deal, move, "
                            "showdown and score",
                            description="Print the whole game: every hand's deal, moves, "
                            "showdown and scores. Only what the log proves is shown: in a "
                            "hand whose seeds were never opened, unseen cards stay hidden.",
                            epilog="""examples:
  ginp2p export GAME.ginlog                     read it in the terminal
  ginp2p export GAME.ginlog -o game.txt         keep it as a text file
  ginp2p export A.ginlog B.ginlog               both players' copies, as one
  ginp2p export GAME.ginlog --format json -o game.json""",
                            )  # fmt: skip
    export.add_argument("file", metavar="GAME.ginlog", type=GAME_FILE, help="a saved game log")
    _other_copies(export)
    export.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text for people (default) or JSON (schema in docs/audit.md)",
    )
    export.add_argument("--ascii", action="store_true", help="text: cards as 7H/TS")
    export.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        type=_given("give a file to write, or '-' for the screen"),
        help="write to FILE (UTF-8), not stdout ('-': stdout)",
    )
    export.set_defaults(func=_cmd_export)

    selfplay = sub.add_parser("selfplay",
                              help="two computer players in one process, engine only (fast)",
                              description="Two computer players play one whole match through "
                              "the rules engine, in this process (no network, no log): a quick "
                              "look at a preset.")  # fmt: skip
    selfplay.add_argument("--preset", default="classic", choices=PRESET_NAMES, metavar="PRESET",
                          help=f"rules to play: {', '.join(PRESET_NAMES)} (default: "
                          "classic)")  # fmt: skip
    selfplay.add_argument(
        "--set", action="append", metavar="NAME=VALUE", help="change one rule setting (repeatable)"
    )
    selfplay.add_argument("--seed", type=_seed, help="replay a match exactly: 0 or more "
                          "(default: random)")  # fmt: skip
    selfplay.add_argument("-v", "--verbose", action="store_true", help="show every showdown")
    selfplay.set_defaults(func=_cmd_selfplay)

    rules = sub.add_parser("rules", help="list the presets, or show one preset's settings",
                           description="Without PRESET, the preset names; with one, every "
                           "setting of it (the names --set takes). docs/rules.md explains "
                           "the presets for players.")  # fmt: skip
    rules.add_argument(
        "preset",
        nargs="?",
        choices=PRESET_NAMES,
        metavar="PRESET",
        help=f"one of {', '.join(PRESET_NAMES)}",
    )
    rules.set_defaults(func=_cmd_rules)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    ap = build_parser()
    args, extra = ap.parse_known_args(argv)
    if not getattr(args, "func", None):
        if extra:
            ap.error(f"unrecognized arguments: {' '.join(extra)}")
        ap.print_help()
        return 0
    if extra:  # each command's own parser says it (audit exits NO_VERDICT, not 2)
        args.parsers[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
    _never_unprintable()
    warnings.formatwarning = _warning_line
    try:
        return int(args.func(args))
    except UsageError as exc:
        ap.exit(2, f"ginp2p {args.command}: error: {exc}\n")
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `| head`: the reader has all it wants
        _quiet_stdout()
        return 0
    except Exception as exc:
        from ginp2p.files.identity import (
            IdentityError,  # imported on failure only: `rules` needs no nacl
        )

        if isinstance(exc, IdentityError | Problem):
            why = str(exc)
        elif isinstance(exc, OSError) and exc.filename is not None:
            # a folder that is a file, a read-only folder: one line, not a traceback
            why = f"{exc.filename}: {exc.strerror or exc}"
        else:
            raise
        print(f"ginp2p {args.command}: error: {why}", file=sys.stderr)
        return 1
    return 0


def _quiet_stdout() -> None:
    """Point stdout at nothing, so the exit's flush does not fail on a closed pipe."""
    import os

    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _warning_line(message: Any, category: Any, *_: Any, **__: Any) -> str:
    """A warning for the player, not a source line (a torn tail cut, a key's mode)."""
    return f"ginp2p: warning: {message}\n"


def _never_unprintable() -> None:
    """On a console that cannot show a character (cp1252, ``PYTHONIOENCODING=ascii``)
    print ``?`` for it instead of failing; card names are made ASCII where it matters
    (see :func:`ginp2p.game.cards.ascii_names`)."""
    for stream in (sys.stdout, sys.stderr):
        if not encodes(stream, "♥♦♣♠─·▶…") and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")


if __name__ == "__main__":
    sys.exit(main())
