"""How every surface prints a score: as the benchmark's own script prints it, one rule per
family, so a page, the API, an export and the script never differ in the last digit.

``score.pl`` (``myround``) rounds percent half up to two decimals, and the site's other
LS07/CoInCo and SWORDS metrics follow it; ``tsar_eval.py`` floors the fraction to four
decimals (two of percent), so a TSAR-2022 value is floored. Both rules work on the decimal
value, not on the binary float: ``48.955`` is stored as 48.95499999..., which ``%.2f`` would
print as 48.95 where score.pl prints 48.96.
"""

from __future__ import annotations

from decimal import ROUND_FLOOR, ROUND_HALF_UP, Decimal
from typing import Any

#: Decimals a value is snapped to before the rule: a float's 56.99999999999999 is 57 (the
#: script's 0.57), and no score on these splits lies closer than this to a multiple of 0.01
#: without being one. Snapshots keep this many, so a value read back prints the same.
EXACT = 6

#: Families whose script floors its figures (the rest round half up).
FLOORED = frozenset({"tsar2022"})


def printed(value: Any, family: str = "", decimals: int = 2) -> float | None:
    """``value`` (percent) as ``family``'s script prints it with ``decimals`` decimals, as a
    float (for JSON); None stays None."""
    if value is None:
        return None
    exact = Decimal(repr(round(float(value), EXACT)))
    rule = ROUND_FLOOR if family in FLOORED else ROUND_HALF_UP
    return float(exact.quantize(Decimal(1).scaleb(-decimals), rounding=rule))


def shown(value: Any, family: str = "", decimals: int = 2) -> str:
    """The text of :func:`printed` (``48.96``, ``22.50``); an en dash for no value."""
    number = printed(value, family, decimals)
    return "–" if number is None else f"{number:.{decimals}f}"


def printed_all(value: Any, family: str = "", decimals: int = 2) -> Any:
    """``value`` with every float in nested dicts and lists :func:`printed`."""
    if isinstance(value, float):
        return printed(value, family, decimals)
    if isinstance(value, dict):
        return {k: printed_all(v, family, decimals) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [printed_all(v, family, decimals) for v in value]
    return value
