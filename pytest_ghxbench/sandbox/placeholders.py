"""Deterministic stand-in bytes for files the seed describes but does not hold: release assets
(a name, a size and a content type) and run artifacts (a name and a size).

A download must still give a client what GitHub would in form: exactly the declared number of
bytes and, where the type says so, an archive that unpacks. So:

- a zip (``application/zip``, ``.zip``/``.whl``/``.jar``; every run artifact) is a valid zip
  archive of exactly the declared size holding one stored file, ``SANDBOX-PLACEHOLDER.txt``;
- a gzip (``application/gzip``, ``.gz``) is a valid gzip stream of exactly that size (stored
  deflate blocks, padded with the header's comment field); for ``.tar.gz``/``.tgz`` it holds a
  tar archive of one file, ``<stem>/SANDBOX-PLACEHOLDER.txt``;
- anything else is the placeholder text, repeated to the size.

Sizes too small for the archive's own headers fall back to the placeholder text. The content
is never the real content (a wheel does not install): that is a gap of the seed's, not a
fidelity of the sandbox's. The same name, size and type always give the same bytes.
"""

from __future__ import annotations

import functools
import io
import struct
import tarfile
import zipfile
import zlib

__all__ = ["PLACEHOLDER_NAME", "archive_kind", "artifact_zip", "placeholder_bytes"]

PLACEHOLDER_NAME = "SANDBOX-PLACEHOLDER.txt"
_ZIP_TYPES = ("application/zip", "application/x-zip-compressed", "application/java-archive")
_GZIP_TYPES = ("application/gzip", "application/x-gzip", "application/x-compressed-tar")
_EPOCH = (1980, 1, 1, 0, 0, 0)


def archive_kind(name: str, content_type: str) -> str:
    """``zip``, ``tar.gz``, ``gzip`` or ``raw``: what a download of this file must be."""
    lowered, kind = name.lower(), content_type.split(";")[0].strip().lower()
    if kind in _ZIP_TYPES or lowered.endswith((".zip", ".whl", ".jar")):
        return "zip"
    if lowered.endswith((".tar.gz", ".tgz")):
        return "tar.gz"
    if kind in _GZIP_TYPES or lowered.endswith(".gz"):
        return "gzip"
    return "raw"


def _text(what: str, size: int) -> bytes:
    line = (
        f"The ghxbench sandbox stands in for {what} ({size} bytes) with this text: its seed "
        "gives the file a size, not its content.\n"
    ).encode()
    return (line * (size // len(line) + 1))[:size]


@functools.lru_cache(maxsize=64)
def placeholder_bytes(name: str, size: int, content_type: str) -> bytes:
    """``size`` bytes standing in for the file ``name`` of ``content_type``."""
    what = f"the file {name}"
    kind = archive_kind(name, content_type)
    built: bytes | None = None
    if kind == "zip":
        built = _exact_zip(what, size)
    elif kind == "tar.gz":
        stem = name[: -len(".tar.gz")] if name.lower().endswith(".tar.gz") else name[:-4]
        built = _exact_tar_gz(what, size, f"{stem}/{PLACEHOLDER_NAME}")
    elif kind == "gzip":
        built = _exact_gzip(_text(what, max(size - 64, 0)), size)
    return built if built is not None else _text(what, size)


def artifact_zip(name: str, size: int) -> bytes:
    """The zip GitHub serves for a run artifact, ``size`` bytes (its ``size_in_bytes``)."""
    return placeholder_bytes(f"{name}.zip", size, "application/zip")


# ---------------------------------------------------------------- zip


def _zip(entry: str, data: bytes, comment: bytes = b"") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.comment = comment
        info = zipfile.ZipInfo(entry, date_time=_EPOCH)
        info.create_system = 3
        archive.writestr(info, data)
    return buffer.getvalue()


def _exact_zip(what: str, size: int) -> bytes | None:
    """One stored entry: local header, data, central directory and end record around it."""
    overhead = len(_zip(PLACEHOLDER_NAME, b""))
    if size < overhead:
        return None
    built = _zip(PLACEHOLDER_NAME, _text(what, size - overhead))
    assert len(built) == size, (len(built), size)
    return built


# ---------------------------------------------------------------- gzip and tar


def _stored_deflate(payload: bytes) -> bytes:
    """``payload`` as deflate stored blocks (5 bytes of header per 65,535 bytes)."""
    chunks = [payload[i : i + 0xFFFF] for i in range(0, len(payload), 0xFFFF)] or [b""]
    out = bytearray()
    for index, chunk in enumerate(chunks):
        out.append(1 if index == len(chunks) - 1 else 0)
        out += struct.pack("<HH", len(chunk), len(chunk) ^ 0xFFFF)
        out += chunk
    return bytes(out)


def _gzip_size(payload_size: int) -> int:
    return 10 + 5 * max(-(-payload_size // 0xFFFF), 1) + payload_size + 8


def _exact_gzip(payload: bytes, size: int) -> bytes | None:
    """A gzip member of ``payload`` padded to ``size`` with the header's comment (FCOMMENT)."""
    spare = size - _gzip_size(len(payload))
    if spare < 0 or spare == 1:
        return None
    flags = 0x10 if spare else 0
    header = b"\x1f\x8b\x08" + bytes([flags]) + b"\x00\x00\x00\x00\x00\xff"
    comment = (b"ghxbench sandbox placeholder " * (spare // 29 + 1))[: spare - 1] + b"\x00"
    trailer = struct.pack("<II", zlib.crc32(payload), len(payload) & 0xFFFFFFFF)
    built = header + (comment if spare else b"") + _stored_deflate(payload) + trailer
    assert len(built) == size, (len(built), size)
    return built


def _tar(entry: str, data: bytes) -> bytes:
    """A tar archive of one file, without the record padding ``tarfile`` adds on close."""
    info = tarfile.TarInfo(entry)
    info.size, info.mode, info.mtime = len(data), 0o644, 0
    header = info.tobuf(format=tarfile.USTAR_FORMAT)
    padding = b"\x00" * (-len(data) % tarfile.BLOCKSIZE)
    return header + data + padding + b"\x00" * (2 * tarfile.BLOCKSIZE)


def _exact_tar_gz(what: str, size: int, entry: str) -> bytes | None:
    """The largest tar of whole 512-byte blocks that fits, the rest padded in the gzip header."""
    blocks = (size - _gzip_size(0) - 2 - 3 * tarfile.BLOCKSIZE) // tarfile.BLOCKSIZE
    while blocks >= 0:
        payload = _tar(entry, _text(what, blocks * tarfile.BLOCKSIZE))
        built = _exact_gzip(payload, size)
        if built is not None:
            return built
        blocks -= 1
    return None
