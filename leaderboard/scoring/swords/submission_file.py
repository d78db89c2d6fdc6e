"""Reading a submission file, within its budgets, into the parts validation checks.

Each way the file cannot be read is one refusal, (code, message): nothing further is read.
"""

from __future__ import annotations

from collections import namedtuple

from leaderboard.scoring.swords.parse import (
    OverBudget,
    bounded_cost_problem,
    decode_typed,
    loads_lenient,
    open_upload,
)

#: The parts of a decoded file that validation looks at, and the keys that appear twice.
Document = namedtuple("Document", "top top_duplicates substitutes substitutes_duplicates "
                                  "lemmatized")


def read_document(raw: bytes | str, max_bytes: int, max_structure: int, max_token: int,
                  max_substitutes_bytes: int) -> tuple[Document | None, tuple[str, str] | None]:
    """Decompress and decode the upload within its budgets: (document, None), or (None,
    refusal) when it is too large, too costly to read, not UTF-8, not JSON or not an
    object."""
    raw, refusal = open_upload(raw, max_bytes)
    if refusal is None:
        refusal = bounded_cost_problem(raw, max_structure, max_token)
    if refusal is not None:
        return None, refusal
    why: list[str] = []
    try:
        typed = decode_typed(raw, max_substitutes_bytes, why)
    except OverBudget as exc:
        return None, exc.args
    if typed is not None:
        return Document(typed.top, [], typed.substitutes, [], typed.lemmatized), None
    if len(raw) > max_substitutes_bytes:
        # Re-reading it leniently would hold the text twice plus all it builds.
        return None, ("wrong_format", f"the file does not fit the submission format: "
                      f"{why[0]} (a file over {max_substitutes_bytes:,} bytes is checked only "
                      "up to its first problem)")
    return _read_leniently(raw)


def _read_leniently(raw: bytes) -> tuple[Document | None, tuple[str, str] | None]:
    """Re-read a file that does not fit the typed format, to name every problem in it."""
    try:
        loaded, duplicates = loads_lenient(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        return None, ("not_utf8", f"the file is not UTF-8 text: {exc.reason} at byte "
                      f"{exc.start}")
    except (ValueError, RecursionError) as exc:
        return None, ("not_json", f"the file is not valid JSON: {exc}")
    if not isinstance(loaded, dict):
        return None, ("not_object", "the top level must be a JSON object with a "
                      f"\"substitutes\" key, not {type(loaded).__name__}")
    subs = loaded.get("substitutes")
    return Document(loaded, duplicates.get(id(loaded), []), subs,
                    duplicates.get(id(subs), []), loaded.get("substitutes_lemmatized")), None
