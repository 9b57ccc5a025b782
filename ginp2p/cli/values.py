"""What the options take: the checks the parser runs on each value (``type=``), so a
bad one stops the command at once with one line, and the rules a command line asks
for (a preset with ``--set`` changes)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ginp2p.cli.output import UsageError

if TYPE_CHECKING:
    from ginp2p.game.rules import RuleSet


def seed_number(text: str) -> int:
    """A match seed: a whole number, 0 or more (``random`` would treat -7 as 7)."""
    try:
        seed = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if seed < 0:
        raise argparse.ArgumentTypeError(f"a seed is 0 or more, not {seed}")
    return seed


def seconds(text: str) -> float:
    """A time in seconds: 0 or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"seconds are 0 or more, not {text}")
    return value


def some_seconds(text: str) -> float:
    """A time in seconds, more than 0 (a wait for the other computer: none at all gives
    up before a connection can be made)."""
    value = seconds(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"more than 0 seconds, not {text} (nothing can "
                                         "answer in no time)")  # fmt: skip
    return value


def whole_seconds(text: str) -> int:
    """A whole number of seconds, at least 1 (a claim timeout)."""
    value = seconds(text)
    if value != int(value) or value < 1:
        raise argparse.ArgumentTypeError(f"a whole number of seconds, at least 1, not {text}")
    return int(value)


def port_number(text: str) -> int:
    """A port to listen on: 0..65535, 0 for any free one (ZeroMQ would take -5 or 99999
    as another port, modulo 65536, and the host would print that one)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0..65535 (0: any free one), not {port}")
    return port


def interface_address(text: str) -> str:
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


def bind_address(text: str) -> str:
    """``--bind``: an IPv4 address of this computer, or 0.0.0.0 (every interface).
    Anything else stopped the host once it began, with ZeroMQ's own words (``No such
    device (addr='tcp://999.1.1.1:*')``); the host's socket speaks IPv4 only."""
    text = given("give an address to listen on, or leave --bind out for every "
                 "interface")(text).strip()  # fmt: skip
    if text == "0.0.0.0":
        return text
    address = interface_address(text)
    if ":" in address:
        raise argparse.ArgumentTypeError(f"{address}: the host listens on IPv4 addresses "
                                         "only (e.g. 192.168.1.5)")  # fmt: skip
    return address


def given(what: str) -> Callable[[str], str]:
    """A ``type=`` for a value that must not be empty: an empty folder or file name was
    taken as none (--log-dir "": the default folder, keys --safety "": the list of
    keys), or as the current folder (a traceback from resume and export)."""

    def check(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"empty: {what}")
        return text

    return check


GAME_FILE = given("give a game's .ginlog file (`ginp2p games` lists them)")
#: ``resume``'s game: a number of ``ginp2p games``, or a file (none: the one played last).
GAME = given("give a game's number or file (`ginp2p games` lists them), or nothing for the "
             "unfinished game played last")  # fmt: skip

#: The longest ``--name``, in characters: enough for a first name and a surname. It
#: heads your side of the table, beside your score, on one line with the other player's
#: name and score; on a terminal too narrow for both names the table shortens them.
NAME_CHARS = 24


def player_name(text: str) -> str:
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


def _setting(text: str) -> bool | int | str | None:
    """The value of ``--set NAME=VALUE``: yes/no, none, a whole number, else the text."""
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


def chosen_rules(args: argparse.Namespace) -> RuleSet:
    """The preset with ``--set NAME=VALUE`` overrides (RuleSet.with_ validates)."""
    from ginp2p.game.rules import RuleSet, get_preset

    rules = get_preset(args.preset or "classic")
    changes: dict[str, bool | int | str | None] = {}
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
        changes[name] = _setting(value)
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


def games_folder(args: argparse.Namespace) -> Path:
    """Where the games are kept: ``--log-dir``, else the default folder."""
    from ginp2p.files.gamefiles import games_dir

    return Path(args.log_dir) if getattr(args, "log_dir", None) else games_dir()
