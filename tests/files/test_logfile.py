"""The log on disk (ginp2p.files.logfile, ginp2p.files.identity): the .ginlog file,
its locking and crash safety, the identity key and the secrets file. The entries are
made by the same two in-memory peers as tests/proto/test_log.py's."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import nacl.bindings
import pytest

from ginp2p.files import identity as I
from ginp2p.files import logfile as F
from ginp2p.files.gamefiles import games_dir
from ginp2p.proto import events as E
from ginp2p.proto.entry import (
    Entry,
)
from ginp2p.proto.log import Outcome
from tests.proto.test_log import (
    concurrent,
    say,
    start,
)

# ------------------------------------------------------------------ the .ginlog file


def write_game(path: Path) -> list[Entry]:
    host, guest = start()
    concurrent(host, guest, "commit", "commit")
    say(host, "discard")
    entries = host.log.entries()
    with F.LogFile.open(path) as f:
        for e in entries:
            f.append(e)
    return entries


def test_log_file_round_trip_keeps_arrival_order_and_repeats(tmp_path: Path) -> None:
    path = tmp_path / "game.ginlog"
    entries = write_game(path)
    with F.LogFile.open(path) as f:
        assert f.records == tuple(e.wire for e in entries) and f.torn is None
        f.append(entries[0].wire)  # a repeat is stored as it arrived
    with F.LogFile.open(path) as f:
        assert len(f.records) == len(entries) + 1
        log, results = f.load()
    assert log.ids() == {e.id for e in entries}
    assert results[-1].outcome is Outcome.DUPLICATE
    data = path.read_bytes()
    assert data.startswith(b"GINLOG1\n\x91\x01") and data[10] in (0xC4, 0xC5)


def test_a_torn_tail_is_cut_at_every_offset(tmp_path: Path) -> None:
    path = tmp_path / "full.ginlog"
    entries = write_game(path)
    full = path.read_bytes()
    last = E.pack(entries[-1].wire)
    start = len(full) - len(last)
    assert full[start:] == last
    for cut in range(start, len(full)):
        torn = tmp_path / f"cut{cut}.ginlog"
        torn.write_bytes(full[:cut])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            f = F.LogFile.open(torn)
        with f:
            assert f.records == tuple(e.wire for e in entries[:-1]), cut
            if cut > start:
                assert f.torn == F.Torn(start, cut - start, "incomplete")
                assert [w.category for w in caught] == [F.TornTailWarning]
            else:
                assert f.torn is None and not caught
            assert torn.stat().st_size == start
            f.append(entries[-1])
        assert torn.read_bytes() == full
        torn.unlink()


def test_a_damaged_length_is_not_mistaken_for_a_torn_tail(tmp_path: Path) -> None:
    """A record whose length runs past the end of the file, with whole records after
    it, was damaged, not torn by a crash: opening refuses (nothing is cut) unless asked
    to repair, and the audit's reader says so, skips that one record and reads every
    entry after it."""
    path = tmp_path / "game.ginlog"
    clean = Path(__file__).parents[1] / "corpus" / "clean-classic.ginlog"
    full = clean.read_bytes()
    record = F.read_records(clean)[0]
    starts, pos = [], len(b"GINLOG1\n\x91\x01")
    while pos < len(full):  # where each record begins
        starts.append(pos)
        width = {0xC4: 1, 0xC5: 2, 0xC6: 4}[full[pos]]
        pos += 1 + width + int.from_bytes(full[pos + 1 : pos + 1 + width], "big")
    tried = 0
    for k, at in enumerate(starts[:-1]):
        width = {0xC4: 1, 0xC5: 2, 0xC6: 4}[full[at]]
        length = len(full) - (at + 1 + width) + 1  # one byte past the end of the file
        if length >= 256**width or length > F.MAX_RECORD:
            continue
        tried += 1
        bad = full[: at + 1] + length.to_bytes(width, "big") + full[at + 1 + width :]
        path.write_bytes(bad)
        with pytest.raises(F.FileCorrupt, match="damaged record length"):
            F.LogFile.open(path)
        assert path.read_bytes() == bad, "nothing cut"
        records, torn = F.read_records(path)
        assert records == [r for r in F.read_records(clean)[0] if r != record[k]]
        assert torn == (F.Torn(at, starts[k + 1] - at, torn[0].reason, resumed=True),)
        assert "damaged record length" in torn[0].reason
        assert f"reading went on at byte {starts[k + 1]}" in torn[0].text()
        with pytest.warns(F.TornTailWarning), F.LogFile.open(path, repair=True) as f:
            assert len(f.records) == k
    assert tried >= 10, "the game has records to damage"


def test_torn_header_and_foreign_or_corrupt_files(tmp_path: Path) -> None:
    path = tmp_path / "new.ginlog"
    path.write_bytes(b"GINLO")
    with pytest.warns(F.TornTailWarning), F.LogFile.open(path) as f:
        assert f.records == ()
    assert path.read_bytes() == b"GINLOG1\n\x91\x01"
    (tmp_path / "other.ginlog").write_bytes(b"PK\x03\x04 zip")
    with pytest.raises(F.NotALog, match="is not a ginp2p game log"):
        F.LogFile.open(tmp_path / "other.ginlog")
    assert (tmp_path / "other.ginlog").read_bytes() == b"PK\x03\x04 zip", "left as it was"
    entries = write_game(path := tmp_path / "bad.ginlog")
    good = path.read_bytes()
    path.write_bytes(good + b"\x93garbage")
    with pytest.raises(F.FileCorrupt):
        F.LogFile.open(path)
    with pytest.warns(F.TornTailWarning), F.LogFile.open(path, repair=True) as f:
        assert len(f.records) == len(entries)
    path.write_bytes(good + bytes(100))  # zeros a crash left behind
    with pytest.warns(F.TornTailWarning), F.LogFile.open(path) as f:
        assert len(f.records) == len(entries)


def test_a_full_disk_leaves_the_old_file_whole_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pins and a game's sidecar are replaced whole: a write that fails half way
    (a full disk) leaves the old file as it was and no temporary file behind."""
    path = tmp_path / "peers.toml"
    F.replace_atomically(path, b"old contents\n", 0o600)
    real_write = os.write

    def half_then_full(fd: int, data: Any) -> int:
        if len(data) > 4:
            return real_write(fd, bytes(data[:4]))
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(F.os, "write", half_then_full)
    with pytest.raises(OSError, match="No space left"):
        F.replace_atomically(path, b"new contents, longer than the old\n", 0o600)
    monkeypatch.undo()
    assert path.read_bytes() == b"old contents\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["peers.toml"]
    F.replace_atomically(path, b"new\n", 0o600)
    assert path.read_bytes() == b"new\n" and stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_lock_file_let_go_is_removed_and_one_removed_while_taken_is_taken_anew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lock files (a guest's "in a game with that host") are removed when let go, so they
    do not pile up. A process that opened one just before its holder removed it must not
    hold the removed file: a third would then lock a new one beside it."""
    path = tmp_path / "x.lock"
    F.let_go(F.hold_lock(path, "first"), path)
    assert not path.exists()
    first = F.hold_lock(path, "first")
    real, locked = F._lock, []

    def holder_lets_go_meanwhile(fd: int, where: Path) -> None:
        if not locked:
            F.let_go(first, path)  # between the second's open and its lock
        locked.append(fd)
        real(fd, where)

    monkeypatch.setattr(F, "_lock", holder_lets_go_meanwhile)
    second = F.hold_lock(path, "second")
    monkeypatch.undo()
    assert len(locked) == 2 and path.read_text() == "second"
    with pytest.raises(F.FileLocked):
        F.hold_lock(path)
    F.let_go(second, path)


def test_the_lock_refuses_a_second_opener(tmp_path: Path) -> None:
    path = tmp_path / "game.ginlog"
    code = textwrap.dedent(
        f"""
        from ginp2p.files.logfile import LogFile, FileLocked
        try:
            LogFile.open({str(path)!r})
        except FileLocked:
            print("locked")
        else:
            print("opened")
        """
    )
    root = str(Path(__file__).parents[2])
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}

    def other_process() -> str:
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        return run.stdout.strip() + run.stderr

    with F.LogFile.open(path):
        with pytest.raises(F.FileLocked):
            F.LogFile.open(path)
        assert other_process() == "locked"
    assert other_process() == "opened"


def test_append_fsyncs_before_returning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[int, int]] = []
    real = os.fsync
    monkeypatch.setattr(
        os, "fsync", lambda fd: (calls.append((fd, os.fstat(fd).st_size)), real(fd))
    )
    host, _ = start()
    entry = say(host, "chat")
    with F.LogFile.open(tmp_path / "g.ginlog") as f:
        calls.clear()
        f.append(entry)
        size = (tmp_path / "g.ginlog").stat().st_size
        assert calls == [(f._fd, size)]  # the whole record was written, then synced


# ------------------------------------------------------------------ the secrets file


def test_secrets_file_mode_and_fsync_before_the_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log_path = tmp_path / "game.ginlog"
    spath = F.secrets_path(log_path)
    assert spath == tmp_path / "game.secrets"
    calls: list[tuple[str, int]] = []
    real = os.fsync
    names: dict[int, str] = {}

    def fake_fsync(fd: int) -> None:
        calls.append((names.get(fd, "?"), os.fstat(fd).st_size))
        real(fd)

    old = os.umask(0)
    try:
        secrets, logfile = F.SecretsFile.open(spath), F.LogFile.open(log_path)
    finally:
        os.umask(old)
    assert stat.S_IMODE(spath.stat().st_mode) == 0o600
    names[secrets._fd], names[logfile._fd] = "secrets", "log"
    monkeypatch.setattr(os, "fsync", fake_fsync)
    host, _ = start()
    secrets.put_seeds(1, b"p" * 32, b"k" * 32)
    logfile.append(say(host, "commit"))
    assert [name for name, _ in calls] == ["secrets", "log"]
    assert calls[0][1] == spath.stat().st_size  # the seeds were written before the sync
    secrets.close()
    logfile.close()
    with F.SecretsFile.open(spath) as again:
        assert again.seeds(1) == (b"p" * 32, b"k" * 32) and again.seeds(2) is None
        again.put_seeds(1, b"p" * 32, b"k" * 32)  # the same seeds: nothing to do
        with pytest.raises(F.SecretsError):
            again.put_seeds(1, b"x" * 32, b"k" * 32)


def test_a_challenge_is_answered_once(tmp_path: Path) -> None:
    path = tmp_path / "g.secrets"
    with F.SecretsFile.open(path) as s:
        assert s.answered(1, 1) is None
        s.record_answer(1, 1, b"\x0f\xf0\x01")
        assert s.answered(1, 1) is not None and s.answered(1, 2) is None
        s.record_answer(1, 1, b"\x0f\xf0\x01")  # the same challenge again (a resend)
        with pytest.raises(F.SecretsError):
            s.record_answer(1, 1, b"\x0f\xf0\x02")
    with F.SecretsFile.open(path) as s:  # and after a restart
        assert s.answered(1, 1) == b"\x0f\xf0\x01"
        with pytest.raises(F.SecretsError):
            s.record_answer(1, 1, b"\x00")
    full = path.read_bytes()
    path.write_bytes(full[:-3])
    with pytest.warns(F.TornTailWarning), F.SecretsFile.open(path) as s:
        assert s.answered(1, 1) is None


# ------------------------------------------------------------------ identity


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "not-home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("GINP2P_HOME", str(tmp_path / "gin"))
    return tmp_path / "gin"


def test_identity_created_once_with_mode_0600(home: Path) -> None:
    me = I.load_or_create_identity()
    assert me.path == home / "identity.key"
    assert stat.S_IMODE(me.path.stat().st_mode) == 0o600
    assert I.load_or_create_identity().public_key == me.public_key
    assert I.load_or_create_identity(home).public_key == me.public_key
    assert [p.name for p in home.iterdir()] == ["identity.key"]
    assert not (home.parent / "not-home").exists() and not (home.parent / "xdg").exists()


def test_curve_keys_and_fingerprint(home: Path) -> None:
    me = I.load_or_create_identity()
    pub, sec = me.curve_public_key, me.curve_secret_key
    assert len(pub) == len(sec) == 32
    assert nacl.bindings.crypto_scalarmult_base(sec) == pub
    fp = me.fingerprint
    assert len(fp) == 19 and fp.count("-") == 3 and fp == I.fingerprint(me.public_key)
    assert I.fingerprint(b"x" * 32) != fp


def test_where_the_key_and_the_games_are_kept(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:  # fmt: skip
    monkeypatch.delenv("GINP2P_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "not-home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    if sys.platform.startswith("linux"):
        assert I.user_dir() == tmp_path / "xdg" / "ginp2p"
        assert I.user_dir("data") == tmp_path / "xdg-data" / "ginp2p"
        monkeypatch.delenv("XDG_DATA_HOME")
        assert I.user_dir("data") == tmp_path / "not-home" / ".local" / "share" / "ginp2p"
    monkeypatch.setenv("GINP2P_HOME", str(tmp_path / "g"))  # one folder for both
    assert I.user_dir() == I.user_dir("data") == tmp_path / "g"
    assert games_dir() == tmp_path / "g" / "games"
    assert I.user_dir("config", tmp_path / "h") == tmp_path / "h"


def test_a_loose_or_damaged_identity_file(home: Path) -> None:
    me = I.load_or_create_identity()
    assert me.path
    os.chmod(me.path, 0o644)
    with pytest.warns(UserWarning):
        assert I.load_or_create_identity().public_key == me.public_key
    assert stat.S_IMODE(me.path.stat().st_mode) == 0o600
    me.path.write_text("garbage\n")
    with pytest.raises(I.IdentityError):
        I.load_or_create_identity()


def test_a_header_that_is_a_record_is_refused_in_one_short_line(tmp_path: Path) -> None:
    """The version after GINLOG1 cut out, the first entry reads as the header: the error
    quoted all of it (1.7 kB of bytes). It says what it found, in short, and what this
    ginp2p reads."""
    path = tmp_path / "cut.ginlog"
    path.write_bytes(F.LogFile.MAGIC + E.pack(b"\x92" * 1700))
    with pytest.raises(F.FileCorrupt) as exc:
        F.read_records(path)
    said = str(exc.value)
    assert said.startswith(f"{path}: unsupported file format b'")
    assert len(said) < len(str(path)) + 100
    assert said.endswith(f"… (this ginp2p reads format [{F.FILE_FORMAT}])")
    path.write_bytes(F.LogFile.MAGIC + E.pack([F.FILE_FORMAT + 1]))
    with pytest.raises(F.FileCorrupt, match=r"unsupported file format \[2\] \(this ginp2p reads"):
        F.read_records(path)
