"""Finding a host on the LAN (mDNS/DNS-SD) and the printed join string (docs/network.md).

Discovery is a convenience, never trusted: anyone on the LAN can advertise any name
and any key. What a guest learns here only tells it where to connect and which key
to expect; the pinned key (or the pairing code, the first time) is what decides.
Multicast is often filtered (guest Wi-Fi, VLANs, containers), so the join string
``HOST:PORT/KEY`` always works without it; plain ``HOST:PORT`` takes the key from the
advertisement at that address, so it needs one.

The key text encoding (lowercase base32, no padding: 52 letters for 32 bytes) is
defined here once and used by the join string, the TXT record and ``peers.json``.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import re
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType

import ifaddr
from zeroconf import (
    BadTypeInNameException,
    InterfaceChoice,
    IPVersion,
    ServiceStateChange,
    Zeroconf,
)
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from ginp2p.present.words import for_screen
from ginp2p.proto.events import VERSION
from ginp2p.proto.keytext import KEY_TEXT_LENGTH, key_from_text, key_to_text

__all__ = [
    "DEFAULT_PORT",
    "JOIN_SHAPE",
    "SERVICE_TYPE",
    "Advertisement",
    "Found",
    "Interfaces",
    "browse",
    "format_join",
    "lan_addresses",
    "own_addresses",
    "parse_join",
]

SERVICE_TYPE = "_ginp2p._tcp.local."
PROTOCOL_VERSION = str(VERSION)
"""TXT ``v``: the entry format version (events.VERSION), which decides compatibility."""
DEFAULT_PORT = 52801

Interfaces = Sequence[str | int] | InterfaceChoice
"""What python-zeroconf's ``interfaces=`` takes: addresses to bind, or a choice."""

# ---------------------------------------------------------------- join string

_HOSTNAME = re.compile(
    r"^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$"
)


def format_join(host: str, port: int, key: bytes | None = None) -> str:
    """``HOST:PORT/KEY`` (or ``HOST:PORT``), IPv6 in brackets: what the host prints."""
    if not 1 <= port <= 65535:
        raise ValueError(f"port {port} is not between 1 and 65535")
    shown = f"[{host}]" if ":" in host else host
    text = f"{shown}:{port}"
    return f"{text}/{key_to_text(key)}" if key is not None else text


JOIN_SHAPE = (
    "expected HOST:PORT/KEY as the host prints it (e.g. 192.168.1.5:52801/ then "
    f"its key, {KEY_TEXT_LENGTH} letters and digits), or HOST:PORT"
)
"""What every refused join string is told it should look like."""

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_KEY_ALONE = re.compile(rf"^[A-Za-z2-7]{{{KEY_TEXT_LENGTH}}}$")


def parse_join(text: str) -> tuple[str, int, bytes | None]:
    """``HOST:PORT[/KEY]`` → ``(host, port, key or None)``; the ValueError says what is
    wrong, then what a join string looks like (:data:`JOIN_SHAPE`).

    A pasted ``ginp2p join HOST:PORT/KEY`` command line is accepted too.
    """
    try:
        return _parse_join(text)
    except ValueError as exc:
        raise ValueError(f"{exc}; {JOIN_SHAPE}") from None


def _parse_join(text: str) -> tuple[str, int, bytes | None]:
    s = text.strip()
    for prefix in ("ginp2p join ", "join "):
        if s.lower().startswith(prefix):
            s = s[len(prefix) :].strip()
    if not s:
        raise ValueError("empty join string")
    if scheme := _SCHEME.match(s):
        raise ValueError(f"a join string has no {scheme.group()!r} in front: it is no web "
                         "address")  # fmt: skip
    if any(ch.isspace() for ch in s):
        raise ValueError(f"{s!r} has a space or a line break in it (cut in two when it was "
                         "copied?)")  # fmt: skip
    if _KEY_ALONE.match(s):
        raise ValueError(f"{s[:8]}... is a key alone, without the host's address and port")
    address, slash, key_text = s.partition("/")
    key = None
    if slash:
        if not key_text:
            raise ValueError("nothing after '/', where the host's key goes")
        if "/" in key_text:
            raise ValueError("more than one '/': the key is all that follows the first")
        if len(key_text) != KEY_TEXT_LENGTH:
            raise ValueError(
                f"the key after '/' is {len(key_text)} characters, not "
                f"{KEY_TEXT_LENGTH} (cut short, or run on, when copied?)"
            )
        try:
            key = key_from_text(key_text)
        except ValueError as exc:
            raise ValueError(f"bad key after '/': {exc}") from None
    host, port = _split_host_port(address)
    return host, port, key


def _split_host_port(address: str) -> tuple[str, int]:
    if address.startswith("["):
        host, bracket, rest = address[1:].partition("]")
        if not bracket:
            raise ValueError(f"missing ']' after the IPv6 address in {address!r}")
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise ValueError(f"{host!r} in brackets is not an IPv6 address") from None
        if not rest.startswith(":"):
            raise ValueError(f"expected ':PORT' after [{host}]")
        port_text = rest[1:]
    else:
        if address.count(":") > 1:
            host, _, port_text = address.rpartition(":")
            example = f"[{host}]:{port_text}" if port_text.isdigit() else f"[{address}]:PORT"
            raise ValueError(f"put an IPv6 address in brackets, then the port: {example}")
        host, colon, port_text = address.partition(":")
        if not colon:
            raise ValueError(f"missing ':PORT' after {address!r}")
        if not host:
            raise ValueError(f"missing host before ':' in {address!r}")
        if not _HOSTNAME.match(host):
            raise ValueError(f"{host!r} is not a host name or an IPv4 address")
    if not port_text.isdigit() or not port_text.isascii():
        raise ValueError(f"the port must be a number, not {port_text!r}")
    port = int(port_text)
    if not 1 <= port <= 65535:
        raise ValueError(f"port {port} is not between 1 and 65535")
    return host, port


# -------------------------------------------------------------------- mDNS


@dataclass(frozen=True, slots=True)
class Found:
    """One advertised host. Untrusted: any LAN device can claim any name and key."""

    name: str
    addresses: tuple[str, ...]
    port: int
    key: bytes
    version: str

    def join(self) -> str:
        """The join string for the first address, as the host would print it."""
        return format_join(self.addresses[0], self.port, self.key)


def own_addresses(ip_version: IPVersion = IPVersion.All) -> list[str]:
    """Every address of this computer's interfaces, loopback and link-local included,
    as text (an IPv6 address without its scope): what ``--mdns-interface`` may name."""
    found: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str):
                if ip_version is not IPVersion.V6Only:
                    found.append(ip.ip)
            elif ip_version is not IPVersion.V4Only:
                found.append(ip.ip[0])
    return found


def lan_addresses(ip_version: IPVersion = IPVersion.All) -> list[str]:
    """This machine's non-loopback unicast addresses (IPv6 link-local left out:
    without a scope id nobody else can use them)."""
    found = own_addresses(ip_version)
    keep = []
    for a in found:
        addr = ipaddress.ip_address(a)
        if not (addr.is_loopback or addr.is_link_local or addr.is_multicast) and a not in keep:
            keep.append(a)
    return keep


def _instance_name(name: str, key: bytes) -> str:
    """A DNS-SD instance label: the player's name plus a bit of the key, so two
    players called Alice do not collide; at most 63 bytes."""
    tag = f" ({key_to_text(key)[:4]})"
    label = "".join(c for c in name if c.isprintable() and c not in ".\\") or "ginp2p"
    while len((label + tag).encode()) > 63:
        label = label[:-1]
    return f"{label}{tag}.{SERVICE_TYPE}"


def _txt_name(name: str) -> str:
    encoded = name.encode()[:200]
    return encoded.decode(errors="ignore")


class Advertisement:
    """The host's mDNS record, for as long as it waits for a guest.

    Use as ``async with Advertisement(name, port, key): ...``. Registration probes
    the name first, which takes about a second.
    """

    def __init__(
        self,
        name: str,
        port: int,
        key: bytes,
        *,
        addresses: Sequence[str] | None = None,
        interfaces: Interfaces = InterfaceChoice.All,
        ip_version: IPVersion | None = None,
        version: str = PROTOCOL_VERSION,
    ) -> None:
        self._addresses = list(addresses) if addresses is not None else lan_addresses()
        if not self._addresses:
            raise ValueError("no LAN address to advertise (is the network up?)")
        self._interfaces = interfaces
        self._ip_version = ip_version
        text = key_to_text(key)
        self.info = AsyncServiceInfo(
            SERVICE_TYPE,
            _instance_name(name, key),
            port=port,
            properties={"name": _txt_name(name), "v": version, "key": text},
            server=f"ginp2p-{text[:16]}.local.",
            parsed_addresses=self._addresses,
        )
        self._zc: AsyncZeroconf | None = None

    async def start(self) -> None:
        """Probe, then announce (about a second); renames itself on a collision."""
        self._zc = AsyncZeroconf(interfaces=self._interfaces, ip_version=self._ip_version)
        await self._zc.async_register_service(self.info, allow_name_change=True)

    async def close(self) -> None:
        """Say goodbye, so browsers drop the host at once."""
        if self._zc is not None:
            zc, self._zc = self._zc, None
            await zc.async_close()

    async def __aenter__(self) -> Advertisement:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


async def browse(
    timeout: float,
    *,
    interfaces: Interfaces = InterfaceChoice.All,
    ip_version: IPVersion | None = None,
) -> list[Found]:
    """Every ginp2p host that answers within ``timeout`` seconds, sorted by name.

    Records without a well-formed key are left out: a guest could not connect to
    them anyway (CURVE needs the host's key).
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    names: list[str] = []

    def on_change(
        zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        if state_change is not ServiceStateChange.Removed and name not in names:
            names.append(name)

    async with AsyncZeroconf(interfaces=interfaces, ip_version=ip_version) as azc:
        browser = AsyncServiceBrowser(azc.zeroconf, [SERVICE_TYPE], handlers=[on_change])
        try:
            await asyncio.sleep(max(0.0, deadline - loop.time()))
        finally:
            await browser.async_cancel()
        infos = []
        for name in names:
            with contextlib.suppress(BadTypeInNameException):
                infos.append(AsyncServiceInfo(SERVICE_TYPE, name))
        left_ms = max(250, int((deadline - loop.time()) * 1000))
        await asyncio.gather(*(i.async_request(azc.zeroconf, left_ms) for i in infos))
    found = [f for f in map(_found, infos) if f is not None]
    return sorted(found, key=lambda f: (f.name.casefold(), f.addresses))


def _found(info: AsyncServiceInfo) -> Found | None:
    props = info.decoded_properties
    try:
        key = key_from_text(props.get("key") or "")
    except ValueError:
        return None
    addresses = tuple(info.parsed_scoped_addresses())
    if not addresses or not info.port:
        return None
    name = for_screen(props.get("name") or info.name.removesuffix("." + SERVICE_TYPE))
    return Found(name, _prefer_v4(addresses), info.port, key, for_screen(props.get("v") or ""))


def _prefer_v4(addresses: tuple[str, ...]) -> tuple[str, ...]:
    """IPv4 first: a bare IPv6 link-local address needs a scope to be usable."""
    return tuple(sorted(addresses, key=lambda a: ":" in a))
