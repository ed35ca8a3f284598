"""The FEM entries of a static evaluation's records by (backend, order): one table row or
figure line each, read from ``evaluation.json`` dicts old and new (an entry without a backend
is the own backend's)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def fem_key(fem: Mapping[str, Any]) -> tuple[str, int]:
    """(backend, order) of a FEM entry."""
    from surrogate.fem.hcurl.registry import OWN_BACKEND

    return str(fem.get("backend", OWN_BACKEND)), int(fem.get("order", 0))


def fem_label(fem: Mapping[str, Any]) -> str:
    """"N0", "complete linear" (own backend), "ngsolve: complete quadratic" (another)."""
    from surrogate.fem.hcurl.registry import fem_name

    return fem_name(*fem_key(fem))


def fem_columns(records: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """One FEM entry per (backend, order) evaluated anywhere, in the records' order (a level
    may lack one: above ``--fem-max-dofs``)."""
    seen: dict[tuple[str, int], Mapping[str, Any]] = {}
    for record in records:
        for fem in record.get("fem_orders") or ([record["fem"]] if record.get("fem") else []):
            seen.setdefault(fem_key(fem), fem)
    return list(seen.values())


def fem_at(record: Mapping[str, Any], key: tuple[str, int]) -> Mapping[str, Any]:
    """The record's FEM entry of (backend, order) (its baseline ``fem`` first), {} where it
    was not solved."""
    entries = ([record["fem"]] if record.get("fem") else []) + list(record.get("fem_orders")
                                                                   or [])
    return next((f for f in entries if fem_key(f) == key), {})


__all__ = ["fem_at", "fem_columns", "fem_key", "fem_label"]
