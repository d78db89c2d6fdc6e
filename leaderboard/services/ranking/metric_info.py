"""Names, labels and views of the metrics shown on the public site (scoring spec sections 3-5)."""

from __future__ import annotations

from dataclasses import dataclass

from leaderboard.scoring.significance import ALPHA

POS_VALUES: tuple[str, ...] = ("NOUN", "VERB", "ADJ", "ADV")
DEFAULT_SORT = "strict_a_f@10"
#: The significance level of every verdict on the site (see leaderboard.scoring.significance).
TIE_ALPHA = ALPHA

_PART = {"f": "F", "fs": "F (all gold)", "p": "P", "r": "R", "rs": "R (all gold)"}
LABELS: dict[str, str] = {
    f"{mode}_{ref}_{m}@10": f"{'F' if m == 'f' else _PART[m]}{'_c' if ref == 'c' else ''}^10 "
                            f"{mode}"
    for mode in ("strict", "lenient") for ref in ("a", "c") for m in _PART
}
LABELS.update({
    "strict_c_p@1": "P@1", "gap": "GAP", "gap_rat": "GAP (ratio)",
    "best_p": "best P", "best_r": "best R", "best_mode_p": "best mode P",
    "best_mode_r": "best mode R", "oot_p": "oot P", "oot_r": "oot R",
    "oot_mode_p": "oot mode P", "oot_mode_r": "oot mode R",
})

DESCRIPTIONS: dict[str, str] = {
    "f": "harmonic mean of P and R",
    "p": "pooled precision of the top 10 substitutes",
    "r": "pooled recall: hits over min(|gold|, 10) per target",
    "fs": "F with recall over the whole gold list",
    "rs": "recall over the whole gold list",
}


def short_label(key: str) -> str:
    """Compact column header: 'F^10', 'P', 'F_c^10 lenient' becomes 'F_c^10'."""
    label = LABELS.get(key, key)
    return label.removesuffix(" strict").removesuffix(" lenient")


def describe(key: str) -> str:
    """One line saying what a metric is, for header titles and the about page."""
    if key.endswith("@10"):
        mode, ref, part = key.removesuffix("@10").split("_")
        gold = "acceptable (score > 50%)" if ref == "a" else "conceivable (score > 0%)"
        filt = ("whole system list" if mode == "strict"
                else "system list filtered to SWORDS candidates")
        return f"{DESCRIPTIONS[part]}; gold: {gold}; {filt}"
    return {
        "strict_c_p@1": "precision of the first substitute against conceivable gold",
        "gap": "generalized average precision, weights = positive label counts",
        "gap_rat": "GAP with weights = label ratio scores",
    }.get(key, "SemEval-2007 legacy metric (score.pl)")


@dataclass(frozen=True)
class View:
    """A set of metric columns; ``headline`` is the metric ranks are computed on."""

    key: str
    label: str
    headline: str
    columns: tuple[str, ...]


def _generative(mode: str, ref: str) -> tuple[str, ...]:
    return (f"{mode}_{ref}_f@10", f"{mode}_{ref}_p@10", f"{mode}_{ref}_r@10",
            "strict_c_p@1", "gap")


VIEWS: dict[str, View] = {
    "strict-a": View("strict-a", "Strict · acceptable (F^10)", "strict_a_f@10",
                     _generative("strict", "a")),
    "strict-c": View("strict-c", "Strict · conceivable (F_c^10)", "strict_c_f@10",
                     _generative("strict", "c")),
    "lenient-a": View("lenient-a", "Lenient · acceptable (F^10)", "lenient_a_f@10",
                      _generative("lenient", "a")),
    "lenient-c": View("lenient-c", "Lenient · conceivable (F_c^10)", "lenient_c_f@10",
                      _generative("lenient", "c")),
    "all": View("all", "All metrics", "strict_a_f@10", tuple(
        f"{mode}_{ref}_{m}@10" for mode in ("strict", "lenient") for ref in ("a", "c")
        for m in ("f", "p", "r")
    ) + ("strict_c_p@1", "gap", "gap_rat", "best_p", "best_r", "best_mode_p", "best_mode_r",
         "oot_p", "oot_r", "oot_mode_p", "oot_mode_r")),
}
DEFAULT_VIEW = "strict-a"

#: The ranking track (paper, Table 6): every candidate is given, so the F^10 views mean
#: nothing there; GAP is the headline, with GAP ratio and P@1 beside it.
RANKING_VIEWS: dict[str, View] = {
    "ranking": View("ranking", "Ranking setting (GAP)", "gap", ("gap", "gap_rat", "strict_c_p@1")),
}
#: Views of each track, and the one a board of that track shows by default.
TRACK_VIEWS: dict[str, dict[str, View]] = {"generative": VIEWS, "ranking": RANKING_VIEWS}
TRACK_DEFAULT_VIEW: dict[str, str] = {"generative": DEFAULT_VIEW, "ranking": "ranking"}
DEFAULT_TRACK = "generative"

#: Metrics that get tie marks (every displayed metric) and rank intervals (headlines), on a
#: generative board; :func:`displayed` and :func:`headlines` give them per track.
DISPLAYED: tuple[str, ...] = tuple(dict.fromkeys(k for v in VIEWS.values() for k in v.columns))
HEADLINES: tuple[str, ...] = tuple(dict.fromkeys(v.headline for v in VIEWS.values()))


def views_for(track: str | None) -> dict[str, View]:
    """The views a board of ``track`` shows (None: a generative board)."""
    return TRACK_VIEWS.get(track or DEFAULT_TRACK, VIEWS)


def default_view(track: str | None) -> str:
    """The view a board of ``track`` shows when the query names none."""
    return TRACK_DEFAULT_VIEW.get(track or DEFAULT_TRACK, DEFAULT_VIEW)


def default_sort(track: str | None) -> str:
    """The default view's headline: the metric ranks, matrices and charts use by default."""
    return views_for(track)[default_view(track)].headline


def displayed(track: str | None) -> tuple[str, ...]:
    """Every metric some view of ``track`` shows, in display order."""
    return tuple(dict.fromkeys(k for v in views_for(track).values() for k in v.columns))


def headlines(track: str | None) -> tuple[str, ...]:
    """The metrics a board of ``track`` ranks on (one best-per-team block each)."""
    return tuple(dict.fromkeys(v.headline for v in views_for(track).values()))


def track_of(data: dict) -> str:
    """The track of a snapshot's board (snapshots from before tracks: generative)."""
    return (data.get("board") or {}).get("track") or DEFAULT_TRACK
