"""The network's tests; ``next_event`` is what they share."""

from __future__ import annotations

import asyncio
from typing import TypeVar

from ginp2p.net.endpoint import GuestSide, HostSide
from tests.processes import GUARD

_E = TypeVar("_E")


async def next_event(ep: HostSide | GuestSide, kind: type[_E], timeout: float = GUARD) -> _E:
    """The endpoint's next event of ``kind``, the others passed over (``timeout``: a guard
    against a hang)."""

    async def find() -> _E:
        while True:
            ev = await ep.recv()
            if isinstance(ev, kind):
                return ev

    return await asyncio.wait_for(find(), timeout)
