"""The host a guest joins: the one its join string names, or one of the games
announced on the LAN, listed for the person to choose. An announcement is never
trusted: the key it gives is checked by the pairing code or against the one paired
with before."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ginp2p.cli.output import Problem, UsageError
from ginp2p.cli.unfinished import listed, resume_words, unfinished_with_host
from ginp2p.cli.values import games_folder

if TYPE_CHECKING:
    from ginp2p.net.discovery import Found


def browse(args: argparse.Namespace) -> list[Found]:
    """The games announced on the LAN within ``--browse-time``."""
    import asyncio

    from zeroconf import InterfaceChoice

    from ginp2p.net.discovery import Interfaces
    from ginp2p.net.discovery import browse as found_on_lan

    interfaces: Interfaces = InterfaceChoice.All
    if args.mdns_interface:
        interfaces = [args.mdns_interface]
    print(f"looking for games on the LAN ({args.browse_time:g} s)…", flush=True)
    return asyncio.run(found_on_lan(args.browse_time, interfaces=interfaces))


def find_address(args: argparse.Namespace, bot: bool) -> tuple[str, int, bytes]:
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
        on_port = [f for f in browse(args) if f.port == port]
        at = _addresses_of(host)
        found = [f for f in on_port if at & set(f.addresses)]
        if not found and not _is_ip(host) and len(on_port) == 1:
            found = on_port  # a name for this machine ("localhost") or one not advertised
        if len(found) == 1:
            _warn(found[0])
            print(f"found {_who(found[0])} at {host}:{port}")
            return host, port, found[0].key
        why = "several games" if found else "no game"
        raise Problem(f"{why} at {host}:{port} announced a key on the LAN: use the "
                      "host's full join string HOST:PORT/KEY")  # fmt: skip
    found = browse(args)
    want = getattr(args, "discover_name", None)
    if want:
        found = [f for f in found if f.name.casefold() == want.casefold()]
    if not found:
        raise Problem(_none_found(args))
    for i, f in enumerate(found, 1):
        print(f"  {i}. {_found_line(f, args)}")
    if bot or (len(found) == 1 and not sys.stdin.isatty()):
        choice = found[0]
    elif not sys.stdin.isatty():
        raise UsageError("several games found: give one as ADDRESS")
    else:
        choice = _pick(found)
    _warn(choice)  # before any code is asked
    print(f"joining {_who(choice)} ({key_check(choice.key)})")
    return choice.addresses[0], choice.port, choice.key


def _warn(f: Found) -> None:
    """Say, before any code is asked, that the host is not the player you paired with
    under the name it announces, if so."""
    from ginp2p.present.words import for_screen

    if warning := not_them(f.name, f.key):
        print(f"warning: {for_screen(f.name)} here is {warning}", flush=True)


def _found_line(f: Found, args: argparse.Namespace) -> str:
    """A game of the LAN list. Anyone can announce any name: the fingerprint tells two
    hosts of one name apart; a host you paired with is named as you paired it, with the
    name it announces now beside it if that is another, and your unfinished game with
    it, if there is one (a crash: `resume` continues it); a name you paired another key
    under is said not to be that player."""
    from ginp2p.files import peers
    from ginp2p.net.discovery import PROTOCOL_VERSION
    from ginp2p.present.words import for_screen
    from ginp2p.proto.keytext import fingerprint, key_to_text

    known = peers.lookup_quietly(f.key)
    said, who = for_screen(f.name), _who(f)
    mark = "  paired with you" if known else ""
    other = (
        ""
        if f.version == PROTOCOL_VERSION
        else f"  (another ginp2p version: protocol {f.version or '?'}, ours {PROTOCOL_VERSION})"
    )
    old = unfinished_with_host(args, key_to_text(f.key)) if known else None
    unfinished = (f"\n     your unfinished game with this host, {old[0]}: `{old[1]}` "
                  "continues it") if old else ""  # fmt: skip
    warning = not_them(said, f.key)
    impostor = f"\n     {warning}" if warning else ""
    return (for_screen(f"{who}  fingerprint {fingerprint(f.key)}{mark}{other}") + impostor
            + f"\n     ginp2p join {f.join()}{unfinished}")  # fmt: skip


def _who(f: Found) -> str:
    """The host as the LAN list names it: the name you paired it under, with the one it
    announces beside it if that is another (``Mallory (calls itself Alice)``), else the
    announced name."""
    from ginp2p.files import peers
    from ginp2p.present.words import for_screen

    known = peers.lookup_quietly(f.key)
    said = for_screen(f.name)
    if known is None or not known.named:
        return said
    if peers.same_name(said, known.name):
        return known.name
    return f"{known.name} (calls itself {said})"


def not_them(name: str, key: bytes) -> str:
    """If ``name`` is the name of a player you paired with another key: that this is not
    that player, with both fingerprints ('' otherwise, or if peers.json cannot be read:
    `ginp2p keys` reports that)."""
    from ginp2p.files import peers
    from ginp2p.present.words import for_screen
    from ginp2p.proto.keytext import fingerprint

    try:
        pinned = [p for p in peers.all() if p.key != key]
    except (OSError, peers.PeersError):
        return ""
    them = peers.named_so(name, pinned)
    if not them:
        return ""
    theirs = " and ".join(p.fingerprint for p in them)
    return for_screen(
        f"not the {them[0].name} you paired with: this key's fingerprint is "
        f"{fingerprint(key)}, the {them[0].name} you paired with has {theirs} (anyone "
        "can announce any name; a pairing code pairs you with whoever this is)"
    )


def _none_found(args: argparse.Namespace) -> str:
    """Why no game was found, and the way back into the guest's own unfinished game: a
    host that resumed its game, or began it, announces nothing."""
    from ginp2p.files.games import last_played

    waiting = [(n, g) for n, g in enumerate(listed(games_folder(args)), 1)
               if g.unfinished and g.role == "guest"]  # fmt: skip
    if waiting:
        n, g = max(waiting, key=lambda ng: last_played(ng[1].path))
        back = (f"your unfinished game with {g.opponent} (began {g.date}, {g.result}) "
                f"goes on with `{resume_words(n, args)}` once the host resumes it too")  # fmt: skip
    else:
        back = "back into your own game: `ginp2p games`, then `ginp2p resume N`"
    return (
        f"no game found on the LAN: a host stops announcing once its guest is in "
        f"({back}), or multicast is blocked here (ask the host for its join string)"
    )


def key_check(key: bytes) -> str:
    """How the key a LAN announcement gave is checked: against the one paired with (a
    rematch), else by the pairing code; never taken on the announcement's word."""
    from ginp2p.files import peers

    if peers.lookup_quietly(key) is not None:
        return "its key is checked against the one you paired with"
    return "its key is checked by the pairing code, not taken on the LAN's word"


def _pick(found: list[Found]) -> Found:
    """Ask which game to join until the answer is one (Enter: the only one); an empty
    answer with several, or the end of input, chooses none."""
    one = " (Enter: 1)" if len(found) == 1 else ""
    while True:
        try:
            answer: str | None = input(f"join which? 1-{len(found)}{one} ").strip()
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
