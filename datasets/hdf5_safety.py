"""Low-level HDF5 safety checks, run before anything is read: every size field that libhdf5
trusts (global heaps, declared array and attribute sizes) against the file and a memory budget,
and links followed only when they are hard links inside the file."""

from __future__ import annotations

import math
import mmap
from pathlib import Path
from typing import Any

import h5py
import numpy as np

from surrogate.core.limits import MAX_COMPRESSION_RATIO, size_text

MAX_ATTRIBUTE_BYTES = 16 << 20
"""Largest attribute read (recipe JSON, column names, ...)."""
_GLOBAL_HEAP = b"GCOL\x01\x00\x00\x00"  # signature + version 1 + reserved bytes
_HEAP_HEADER = 16  # bytes of a collection header and of an object header (8-byte lengths)


class InvalidFile(Exception):
    """One problem found that stops the scan of a file (its message, if any, is the problem)."""


def check_global_heaps(path: Path) -> str | None:
    """Walk every HDF5 global heap collection of the file (where variable-length strings,
    i.e. our attributes, live); return a problem if one is inconsistent, else None.

    libhdf5 trusts these size fields: a zero-sized free-space object makes it loop forever
    and an oversized collection makes it allocate and read gigabytes, so they are checked
    here, before the file is opened.
    """
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        end_of_file = len(data)
        start = data.find(_GLOBAL_HEAP)
        while start != -1:
            size = int.from_bytes(data[start + 8:start + 16], "little")
            end = start + size
            if size < _HEAP_HEADER or end > end_of_file:
                return (f"global heap at byte {start} declares {size} bytes, past the end of the "
                        f"file (truncated or corrupt file)")
            p = start + _HEAP_HEADER
            while p + _HEAP_HEADER <= end:
                index = int.from_bytes(data[p:p + 2], "little")
                length = int.from_bytes(data[p + 8:p + 16], "little")
                need = length if index == 0 else _HEAP_HEADER + -(-length // 8) * 8
                if need < _HEAP_HEADER or p + need > end:
                    return (f"global heap at byte {start} has an object of {length} bytes that "
                            f"does not fit in it (corrupt file)")
                p += need
            start = data.find(_GLOBAL_HEAP, start + 8)
    return None


def hard_dataset(f: h5py.File, path: str) -> h5py.Dataset | None:
    """The dataset at ``path`` if every link on the way is a hard link inside this file.

    Soft and external links (which could point at other files) count as absent.
    """
    node: Any = f
    for part in path.split("/"):
        if not isinstance(node, h5py.Group) or not isinstance(
                node.get(part, getlink=True), h5py.HardLink):
            return None
        node = node[part]
    return node if isinstance(node, h5py.Dataset) else None


class MemoryBudget:
    """Bytes the arrays of one file may still take (all arrays together)."""

    def __init__(self, total: int) -> None:
        self.total = self.left = total

    def take(self, label: str, shape: tuple[int, ...], n_bytes: int) -> None:
        """Take ``n_bytes`` for array ``label``; InvalidFile when fewer than that are left."""
        if n_bytes > self.left:
            raise InvalidFile(f"'{label}' declares shape {shape} ({size_text(n_bytes)}), more "
                              f"than the {size_text(self.left)} of memory left of the "
                              f"{size_text(self.total)} this reader may use")
        self.left -= n_bytes


def check_declared_size(ds: h5py.Dataset, label: str, file_size: int,
                        budget: MemoryBudget) -> None:
    """Refuse an array whose declared size is not backed by the file or does not fit in memory.

    Checked before anything is read: unfiltered data must be stored in full (a resizable or
    never-written dataset reads as fill values), compressed data can expand at most
    :data:`MAX_COMPRESSION_RATIO` times, external/virtual storage is refused, chunks and the
    arrays together must fit in the memory budget.
    """
    if ds.is_virtual or ds.external:
        raise InvalidFile(f"'{label}' uses virtual or external storage (data outside this file)")
    declared = math.prod(ds.shape) * ds.dtype.itemsize
    stored = ds.id.get_storage_size()
    filtered = ds.id.get_create_plist().get_nfilters() > 0
    if stored > file_size:
        raise InvalidFile(f"'{label}' claims {stored} bytes of storage in a file of {file_size} "
                          f"bytes (truncated or corrupt file)")
    budget.take(label, ds.shape, declared)
    if ds.chunks is not None and math.prod(ds.chunks) * ds.dtype.itemsize > budget.total:
        raise InvalidFile(f"'{label}' has chunks of shape {ds.chunks}, larger than the "
                          f"{size_text(budget.total)} of memory this reader may use")
    if not filtered and stored < declared:
        raise InvalidFile(f"'{label}' declares shape {ds.shape} ({declared} bytes) but stores "
                          f"only {stored} bytes (unwritten or truncated data)")
    if filtered and declared > MAX_COMPRESSION_RATIO * max(stored, 1):
        raise InvalidFile(f"'{label}' declares shape {ds.shape} ({declared} bytes) from only "
                          f"{stored} compressed bytes (more than {MAX_COMPRESSION_RATIO}:1)")


def attribute_value(value: Any) -> Any:
    """Convert an HDF5 attribute value to a plain Python value."""
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, np.ndarray):
        return [attribute_value(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return value.item()
    return value


def read_attributes(obj: h5py.HLObject, where: str) -> dict[str, Any]:
    """All attributes of ``obj`` as plain values, each checked for size before reading."""
    attrs: dict[str, Any] = {}
    for key in obj.attrs:
        aid = obj.attrs.get_id(key)
        n_bytes = math.prod(aid.shape or ()) * aid.dtype.itemsize
        if n_bytes > MAX_ATTRIBUTE_BYTES:
            raise InvalidFile(f"attribute {key!r} of {where} declares {n_bytes} bytes (more than "
                              f"{MAX_ATTRIBUTE_BYTES})")
        attrs[key] = attribute_value(obj.attrs[key])
    return attrs


__all__ = ["MAX_ATTRIBUTE_BYTES", "InvalidFile", "MemoryBudget", "attribute_value",
           "check_declared_size", "check_global_heaps", "hard_dataset", "read_attributes"]
