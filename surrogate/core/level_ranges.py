"""Mesh levels as the command line writes them: ``"1-5"``, ``"3"``, ``"1,2,4"``. Torch-free."""

from __future__ import annotations

from surrogate.core.errors import InputError


def parse_levels(text: str) -> list[int]:
    """Parse ``"1-5"``, ``"3"`` or ``"0,2,4"`` into a sorted list of levels ≥ 0 (level 0
    exists on boxes only: :attr:`surrogate.fem.domain_base.Domain.min_level`)."""
    try:
        if "-" in text:
            lo_s, hi_s = text.split("-", 1)
            lo, hi = int(lo_s), int(hi_s)
            if hi < lo:
                raise InputError(f"--levels {text!r}: inverted range (end {hi} < start {lo})")
            levels = list(range(lo, hi + 1))
        else:
            levels = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError as exc:
        if isinstance(exc, InputError):
            raise
        raise InputError(f"--levels {text!r}: expected e.g. '1-5', '3' or '1,2,4'") from None
    if not levels:
        raise InputError(f"--levels {text!r}: no level given")
    if levels[0] < 0:
        raise InputError(f"--levels {text!r}: levels start at 0")
    return levels


def level_tuple(text: str) -> tuple[int, ...]:
    """:func:`parse_levels` as a tuple (the options' field type)."""
    return tuple(parse_levels(text))


__all__ = ["level_tuple", "parse_levels"]
