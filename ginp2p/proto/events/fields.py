"""The codec's field types, its errors and msgpack itself.

A body is a fixed array of fields; each field type (:class:`Int`, :class:`Bin`,
:class:`Text`, :class:`KindName`, :class:`Opt`, :class:`ListOf`, :class:`Fixed`,
:class:`ScalarMap`) checks a decoded msgpack value and turns it into its Python form,
turns a Python value back into msgpack, and says in words what it accepts (for the
table in docs/log.md). The codec is strict because peers are not trusted: whatever a
check refuses is a :class:`SchemaError`, whatever msgpack refuses a
:class:`DecodeError`, both :class:`RemoteProtocolError` (h11's contract).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

import msgpack

from ginp2p.errors import RemoteProtocolError

# ---------------------------------------------------------------------------- errors


class DecodeError(RemoteProtocolError):
    """Not msgpack, or msgpack beyond the size limits."""


class SchemaError(RemoteProtocolError):
    """Well-formed msgpack whose shape, types, lengths or ranges are wrong."""


class UnknownKind(SchemaError):
    """An entry kind code this version does not know."""


class NonCanonical(SchemaError):
    """A valid value in a non-canonical encoding (two byte strings, one meaning)."""


# ----------------------------------------------------------------------- field types

UINT32 = 2**32 - 1
INT32 = 2**31


def _fail(path: str, msg: str) -> SchemaError:
    return SchemaError(f"{path}: {msg}")


class Field:
    """A field type: validates a decoded msgpack value, converts to and from Python."""

    def check(self, value: Any, path: str) -> Any:
        """Validate a msgpack-native value and return its Python form."""
        raise NotImplementedError

    def dump(self, value: Any) -> Any:
        """Python form to msgpack-native form (no validation: ``check`` does that)."""
        return value

    def describe(self) -> str:
        raise NotImplementedError


class Int(Field):
    """An integer in ``lo..hi``; a bool is not an integer."""

    def __init__(self, lo: int = 0, hi: int = UINT32) -> None:
        self.lo, self.hi = lo, hi

    def check(self, value: Any, path: str) -> int:
        if type(value) is not int:
            raise _fail(path, f"expected an integer, got {type(value).__name__}")
        if not self.lo <= value <= self.hi:
            raise _fail(path, f"{value} is outside {self.lo}..{self.hi}")
        return value

    def describe(self) -> str:
        if self.lo < 0:
            return f"int {self.lo}..{self.hi}"
        if (self.lo, self.hi) == (0, UINT32):
            return "uint32"
        return f"uint {self.lo}..{self.hi}"


class Bin(Field):
    """Bytes of exactly ``size`` (or at most ``size`` with ``exact=False``)."""

    def __init__(self, size: int, *, exact: bool = True) -> None:
        self.size, self.exact = size, exact

    def check(self, value: Any, path: str) -> bytes:
        if type(value) is not bytes:
            raise _fail(path, f"expected bytes, got {type(value).__name__}")
        if self.exact and len(value) != self.size:
            raise _fail(path, f"expected {self.size} bytes, got {len(value)}")
        if len(value) > self.size:
            raise _fail(path, f"{len(value)} bytes, at most {self.size} allowed")
        return value

    def describe(self) -> str:
        return f"bin {self.size}" if self.exact else f"bin ≤{self.size}"


class Text(Field):
    """UTF-8 text of at most ``size`` bytes, without control characters.

    Control characters are refused because names and chat end up on a terminal,
    where an escape sequence from a peer could redraw the screen.
    """

    def __init__(self, size: int) -> None:
        self.size = size

    def check(self, value: Any, path: str) -> str:
        if type(value) is not str:
            raise _fail(path, f"expected text, got {type(value).__name__}")
        try:
            n = len(value.encode("utf-8"))
        except UnicodeEncodeError as exc:
            raise _fail(path, "text is not valid UTF-8") from exc
        if n > self.size:
            raise _fail(path, f"{n} bytes of text, at most {self.size} allowed")
        if any(unicodedata.category(ch) == "Cc" for ch in value):
            raise _fail(path, "control characters are not allowed")
        return value

    def describe(self) -> str:
        return f"str ≤{self.size}"


class KindName(Field):
    """An entry kind, carried as its code and given to Python as its name.

    ``names`` (code → name) and ``codes`` (name → code) are the kind table's, read
    when a value is checked, so the table may be filled after this field is made.
    """

    def __init__(self, names: Mapping[int, str], codes: Mapping[str, int]) -> None:
        self.names, self.codes = names, codes

    def check(self, value: Any, path: str) -> str:
        if type(value) is not int:
            raise _fail(path, f"expected a kind code, got {type(value).__name__}")
        if value not in self.names:
            raise UnknownKind(f"{path}: unknown kind code {value}")
        return self.names[value]

    def dump(self, value: Any) -> Any:
        return self.codes.get(value, value)

    def describe(self) -> str:
        return "kind code"


class Opt(Field):
    """``nil`` or ``item``."""

    def __init__(self, item: Field) -> None:
        self.item = item

    def check(self, value: Any, path: str) -> Any:
        return None if value is None else self.item.check(value, path)

    def dump(self, value: Any) -> Any:
        return None if value is None else self.item.dump(value)

    def describe(self) -> str:
        return f"{self.item.describe()} or nil"


class ListOf(Field):
    """An array of at most ``size`` items, given to Python as a tuple."""

    def __init__(self, item: Field, size: int) -> None:
        self.item, self.size = item, size

    def check(self, value: Any, path: str) -> tuple[Any, ...]:
        if type(value) is not list:
            raise _fail(path, f"expected an array, got {type(value).__name__}")
        if len(value) > self.size:
            raise _fail(path, f"{len(value)} items, at most {self.size} allowed")
        return tuple(self.item.check(v, f"{path}[{i}]") for i, v in enumerate(value))

    def dump(self, value: Any) -> Any:
        return [self.item.dump(v) for v in value]

    def describe(self) -> str:
        return f"[{self.item.describe()}] ≤{self.size}"


class Fixed(Field):
    """A fixed-length array of named fields, given to Python as the NamedTuple ``cls``
    (whose fields must be the same names, in the same order)."""

    def __init__(self, cls: type[tuple[Any, ...]], fields: Sequence[tuple[str, Field]]) -> None:
        self.cls = cls
        self.name = cls.__name__
        self.fields = tuple(fields)
        names = tuple(n for n, _ in self.fields)
        if getattr(cls, "_fields", None) != names:
            raise TypeError(
                f"{self.name} has the fields {getattr(cls, '_fields', ())}, not {names}"
            )

    def check(self, value: Any, path: str) -> Any:
        if type(value) is not list:
            raise _fail(path, f"expected an array, got {type(value).__name__}")
        if len(value) != len(self.fields):
            raise _fail(path, f"expected {len(self.fields)} items, got {len(value)}")
        return self.cls(
            *(t.check(v, f"{path}.{n}") for (n, t), v in zip(self.fields, value, strict=True))
        )

    def dump(self, value: Any) -> Any:
        if isinstance(value, Mapping):
            value = [value[n] for n, _ in self.fields]
        return [t.dump(v) for (_, t), v in zip(self.fields, value, strict=True)]

    def describe(self) -> str:
        return "[" + ", ".join(f"{n}: {t.describe()}" for n, t in self.fields) + "]"


class ScalarMap(Field):
    """A map from text keys to int, bool, text or nil; keys sorted in the encoding.

    The only map in the protocol (a rule set's settings), so it stays open to new
    settings without a schema change.
    """

    def __init__(self, size: int, key_size: int = 64, text_size: int = 64) -> None:
        self.size = size
        self.key = Text(key_size)
        self.text = Text(text_size)
        self.int = Int(-INT32, INT32 - 1)

    def check(self, value: Any, path: str) -> dict[str, Any]:
        if type(value) is not dict:
            raise _fail(path, f"expected a map, got {type(value).__name__}")
        if len(value) > self.size:
            raise _fail(path, f"{len(value)} entries, at most {self.size} allowed")
        out: dict[str, Any] = {}
        for k, v in value.items():
            key = self.key.check(k, f"{path} key")
            where = f"{path}[{k!r}]"
            if v is None or type(v) is bool:
                out[key] = v
            elif type(v) is int:
                out[key] = self.int.check(v, where)
            elif type(v) is str:
                out[key] = self.text.check(v, where)
            else:
                raise _fail(where, f"expected int, bool, text or nil, got {type(v).__name__}")
        if list(out) != sorted(out):
            raise NonCanonical(f"{path}: map keys are not sorted")
        return out

    def dump(self, value: Any) -> Any:
        return {k: value[k] for k in sorted(value)}

    def describe(self) -> str:
        return f"map (str ≤64 → int32, bool, str ≤64 or nil) ≤{self.size}, keys sorted"


# ------------------------------------------------------------------------ msgpack


def _unpack(data: Any, limit: int, raw: bool, limits: dict[str, int]) -> Any:
    """``msgpack.unpackb`` with limits; every failure becomes a DecodeError."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise DecodeError(f"expected bytes, got {type(data).__name__}")
    if len(data) > limit:
        raise DecodeError(f"{len(data)} bytes, at most {limit} allowed")
    try:
        return msgpack.unpackb(bytes(data), raw=raw, strict_map_key=True, use_list=True, **limits)
    except Exception as exc:  # any msgpack failure on peer bytes is the peer's fault
        raise DecodeError(f"not valid msgpack: {type(exc).__name__}: {exc}") from None


def pack(obj: Any) -> bytes:
    """The canonical msgpack encoding of a msgpack-native value."""
    packed: bytes = msgpack.packb(obj, use_bin_type=True)
    return packed
