"""Exploration speed for the adversary: memoised pure functions, and the number of
proof rounds it plays with.

FOR EXPLORATION ONLY, never in a game. The adversary (:mod:`ginp2p.testing.adversary`)
plays thousands of games whose cost is the shuffle's curve arithmetic; most of it is
the same from game to game, since strategies draw from a few fixed worlds (the same
keys and seeds). It builds its peers, and audits their logs, at :data:`K_EXPLORE`
cut-and-choose rounds, saying so to each (``min_k``): nothing here lowers the codec's
floor for anyone else. :func:`exploring_shuffle` puts the pure functions every peer
and audit repeats behind caches.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ginp2p.proto.entry import Entry
from ginp2p.proto.shuffle import K_MIN, group, steps

#: Cut-and-choose rounds while exploring (the protocol's minimum is 20). A proof with
#: k=1 is sound with probability 1/2 only: explore deviations that do not attack the
#: proofs' strength.
K_EXPLORE = 1

#: The pure curve operations of the shuffle (all called through ``shuffle.group.nb``)
#: that :func:`exploring_shuffle` memoises.
MEMOISED = (
    "crypto_scalarmult_ed25519_noclamp", "crypto_scalarmult_ed25519_base_noclamp",
    "crypto_core_ed25519_add", "crypto_core_ed25519_sub", "crypto_core_ed25519_is_valid_point",
    "crypto_core_ed25519_scalar_invert", "crypto_core_ed25519_scalar_mul",
    "crypto_core_ed25519_scalar_add", "crypto_core_ed25519_scalar_sub",
    "crypto_core_ed25519_scalar_reduce", "crypto_core_ed25519_from_uniform",
)  # fmt: skip


def _memoised(fn: Callable[..., Any], size: int) -> Callable[..., Any]:
    cached = functools.lru_cache(maxsize=size)(fn)

    def call(*args: Any) -> Any:
        try:
            return cached(*args)
        except TypeError:  # an unhashable argument: not worth a cache
            return fn(*args)

    call.cache_info = cached.cache_info  # type: ignore[attr-defined]
    return call


class _Memo:
    """``nacl.bindings`` with the functions of :data:`MEMOISED` behind LRU caches (they
    are pure; an exception is never cached, so a bad point still raises every time)."""

    def __init__(self, module: Any, size: int) -> None:
        self._module = module
        self._fns = {name: _memoised(getattr(module, name), size) for name in MEMOISED
                     if hasattr(module, name)}  # fmt: skip

    def __getattr__(self, name: str) -> Any:
        fn = self._fns.get(name)
        return fn if fn is not None else getattr(self._module, name)

    def hits(self) -> tuple[int, int]:
        """(hits, misses) over every memoised function."""
        infos = [fn.cache_info() for fn in self._fns.values()]  # type: ignore[attr-defined]
        return sum(i.hits for i in infos), sum(i.misses for i in infos)


_MEMO: _Memo | None = None  # kept from one use of exploring_shuffle to the next


def _entry_memos(size: int) -> dict[str, Any]:
    """Memoised replacements for decoding an entry's wire bytes and checking its
    signature (pure functions of bytes, done again by every peer and every audit), and
    for the shuffle's hash to a scalar."""
    original_from_wire = Entry.__dict__["from_wire"].__func__
    original_verify = Entry.__dict__["verify"]

    @functools.lru_cache(maxsize=size)
    def decode(wire: bytes, min_k: int) -> Entry:
        return original_from_wire(Entry, wire, min_k=min_k)  # type: ignore[no-any-return]

    checked: dict[tuple[bytes, bytes, bytes], bool] = {}

    def from_wire(cls: type[Entry], wire: bytes, *, min_k: int = K_MIN) -> Entry:
        if cls is not Entry or type(wire) is not bytes or type(min_k) is not int:
            return original_from_wire(cls, wire, min_k=min_k)  # type: ignore[no-any-return]
        return decode(wire, min_k)

    def verify(self: Entry, public_key: bytes) -> bool:
        if type(public_key) is not bytes:
            return original_verify(self, public_key)  # type: ignore[no-any-return]
        key = (self.packed, self.signature, public_key)
        if key not in checked:
            if len(checked) >= size:
                checked.clear()
            checked[key] = original_verify(self, public_key)
        return checked[key]

    to_scalar = functools.lru_cache(maxsize=size)(group._hash_to_scalar)
    return {"from_wire": classmethod(from_wire), "verify": verify, "_hash_to_scalar": to_scalar}


_ENTRY_MEMOS: dict[str, Any] = {}


@contextmanager
def exploring_shuffle(cache_size: int = 1 << 19) -> Iterator[None]:
    """FOR EXPLORATION ONLY, never in a game: memoise pure functions every peer and
    audit computes again and again: the curve operations of the shuffle (through
    ``shuffle.group.nb``), its hash to a scalar, and the decoding and signature check of
    an entry's bytes (``Entry.from_wire``, ``Entry.verify``). The caches are kept
    between uses, so worlds seen before cost look-ups. Everything is restored on exit.
    (The rounds of the proofs are not changed here: the adversary's peers are built
    with :data:`K_EXPLORE`.)"""
    global _MEMO
    patched: list[tuple[Any, str, Any]] = []
    module = group.__dict__["nb"]
    module = module._module if isinstance(module, _Memo) else module  # (nested)
    if _MEMO is None or _MEMO._module is not module:
        _MEMO = _Memo(module, cache_size)
    if not _ENTRY_MEMOS:  # (entries differ from game to game: a smaller cache)
        _ENTRY_MEMOS.update(_entry_memos(min(cache_size, 1 << 14)))
    replacements: tuple[tuple[Any, str, Any], ...] = (
        (group, "nb", _MEMO),
        (Entry, "from_wire", _ENTRY_MEMOS["from_wire"]),
        (Entry, "verify", _ENTRY_MEMOS["verify"]),
        # each shuffle module that calls the hash to a scalar holds its own name
        (group, "_hash_to_scalar", _ENTRY_MEMOS["_hash_to_scalar"]),
        (steps, "_hash_to_scalar", _ENTRY_MEMOS["_hash_to_scalar"]),
    )
    for owner, name, value in replacements:
        patched.append((owner, name, owner.__dict__[name]))
        setattr(owner, name, value)
    try:
        yield
    finally:
        for owner, name, original in reversed(patched):
            setattr(owner, name, original)


def memo_hits() -> tuple[int, int]:
    """(hits, misses) of the curve-operation caches so far."""
    return _MEMO.hits() if _MEMO is not None else (0, 0)
