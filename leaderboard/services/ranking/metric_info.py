"""Names, labels and views of the metrics shown on the public site (scoring spec sections 3-5)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from leaderboard.scoring.significance import ALPHA
from leaderboard.scoring.tsar.metrics import METRIC_KEYS as TSAR_METRIC_KEYS

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
    "best1": "best1", "coverage_p": "coverage P", "coverage_r": "coverage R",
    "coverage_f": "coverage F",
})
LABELS.update((f"coverage_f@{k}", f"coverage F@{k}") for k in range(1, 11))
# TSAR-2022 (keys from leaderboard.scoring.tsar.metrics), written as the task paper writes them
LABELS.update({"acc@1": "ACC@1", **{f"acc@{k}@top1": f"ACC@{k}@Top1" for k in (1, 2, 3)},
               **{f"map@{k}": f"MAP@{k}" for k in (3, 5, 10)},
               **{f"potential@{k}": f"Potential@{k}" for k in (3, 5, 10)}})

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
    if key.endswith("@10") and key.startswith(("strict_", "lenient_")):
        mode, ref, part = key.removesuffix("@10").split("_")
        gold = "acceptable (score > 50%)" if ref == "a" else "conceivable (score > 0%)"
        filt = ("whole system list" if mode == "strict"
                else "system list filtered to SWORDS candidates")
        return f"{DESCRIPTIONS[part]}; gold: {gold}; {filt}"
    return {
        "strict_c_p@1": "precision of the first substitute against conceivable gold",
        "gap": "generalized average precision, weights = positive label counts",
        "gap_rat": "GAP with weights = label ratio scores",
        "best1": "Jabbari et al. 2010: count of the first answer over the highest count",
        "coverage_p": "Jabbari et al. 2010: gold counts found over (found + 1 per wrong answer)",
        "coverage_r": "Jabbari et al. 2010: gold counts found over all gold counts",
        "coverage_f": "Jabbari et al. 2010: harmonic mean of coverage P and R, per item",
    }.get(key) or _TSAR_DESCRIPTIONS.get(key.split("@")[0] + ("@top1" if key.endswith(
        "@top1") else "")) or ("Jabbari et al. 2010: coverage F of the first k answers"
                              if key.startswith("coverage_f@")
                              else "SemEval-2007 metric (score.pl)")


_TSAR_DESCRIPTIONS = {
    "acc": "TSAR-2022: share of instances whose first substitute is a gold annotation",
    "acc@top1": "TSAR-2022: share of instances with one of the first k substitutes among the "
                "most frequent gold annotations (ties included)",
    "map": "TSAR-2022: per instance, precision at each gold hit in the first k, summed, over k",
    "potential": "TSAR-2022: share of instances with a gold annotation in the first k",
}


@dataclass(frozen=True)
class View:
    """A set of metric columns; ``headline`` is the metric ranks are computed on."""

    key: str
    label: str
    headline: str
    columns: tuple[str, ...]


#: Jabbari et al. (2010)'s alternatives to best/oot, on every generative board.
_JABBARI = ("best1", "coverage_p", "coverage_r", "coverage_f")


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
    "jabbari": View("jabbari", "Jabbari et al. 2010", "coverage_f", _JABBARI),
}
DEFAULT_VIEW = "strict-a"

#: The ranking track (paper, Table 6): every candidate is given, so the F^10 views mean
#: nothing there; GAP is the headline, with GAP ratio and P@1 beside it.
RANKING_VIEWS: dict[str, View] = {
    "ranking": View("ranking", "Ranking setting (GAP)", "gap", ("gap", "gap_rat", "strict_c_p@1")),
}
_SCOREPL = ("best_p", "best_r", "best_mode_p", "best_mode_r", "oot_p", "oot_r", "oot_mode_p",
            "oot_mode_r")
#: LS07 and CoInCo boards: what the field reports (GAP; score.pl's best/oot) and Jabbari et
#: al.'s metrics; their keys come from leaderboard.scoring.lexsub.
LEXSUB_VIEWS: dict[str, dict[str, View]] = {
    "ranking": {"gap": View("gap", "GAP (lst_gap.py, no-mwe)", "gap", ("gap",))},
    "generative": {
        # Ranked by recall, as the task paper reports them: precision rises when items are
        # left out (an oracle answering every other line reached best P 63.27).
        "best": View("best", "best (score.pl)", "best_r",
                     ("best_r", "best_p", "best_mode_r", "best_mode_p", "oot_r")),
        "oot": View("oot", "oot (score.pl)", "oot_r",
                    ("oot_r", "oot_p", "oot_mode_r", "oot_mode_p", "best_r")),
        "mode": View("mode", "mode (score.pl)", "best_mode_r",
                     ("best_mode_r", "best_mode_p", "oot_mode_r", "oot_mode_p", "best_r")),
        "jabbari": View("jabbari", "Jabbari et al. 2010", "coverage_f", _JABBARI),
        "all": View("all", "All metrics", "best_r", _SCOREPL + _JABBARI + tuple(
            f"coverage_f@{k}" for k in range(1, 11))),
    },
}
_TSAR_ALL = ("acc@1", "acc@1@top1", "acc@2@top1", "acc@3@top1", "map@3", "map@5", "map@10",
             "potential@3", "potential@5", "potential@10")
#: TSAR-2022 boards: ranked by ACC@1 as the task's published ranking; its other families of
#: metrics (tsar_eval.py's) one view each, and the paper's whole table.
TSAR_VIEWS: dict[str, View] = {
    "acc": View("acc", "ACC@1 (the published ranking)", "acc@1",
                ("acc@1", "acc@1@top1", "map@3", "potential@3")),
    "map": View("map", "MAP@k", "map@3", ("map@3", "map@5", "map@10", "acc@1")),
    "potential": View("potential", "Potential@k", "potential@3",
                      ("potential@3", "potential@5", "potential@10", "acc@1")),
    "top1": View("top1", "ACC@k@Top1", "acc@1@top1",
                 ("acc@1@top1", "acc@2@top1", "acc@3@top1", "acc@1")),
    "all": View("all", "All metrics (the paper's table)", "acc@1", _TSAR_ALL),
}
#: Views of each view set (a track, or a family's track), and the one shown by default.
TRACK_VIEWS: dict[str, dict[str, View]] = {
    "generative": VIEWS, "ranking": RANKING_VIEWS,
    "lexsub-ranking": LEXSUB_VIEWS["ranking"], "lexsub-generative": LEXSUB_VIEWS["generative"],
    "tsar-generative": TSAR_VIEWS}
TRACK_DEFAULT_VIEW: dict[str, str] = {"generative": DEFAULT_VIEW, "ranking": "ranking",
                                      "lexsub-ranking": "gap", "lexsub-generative": "best",
                                      "tsar-generative": "acc"}
DEFAULT_TRACK = "generative"

#: Every metric some board shows (tie marks, exports); :func:`displayed` and
#: :func:`headlines` give them per view set.
DISPLAYED: tuple[str, ...] = tuple(dict.fromkeys(
    k for views in TRACK_VIEWS.values() for v in views.values() for k in v.columns))
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


#: Metrics only TSAR-2022 boards show. Every result carries every family's metrics (one
#: statistics matrix for all benchmarks), these at 0 on a benchmark that is not TSAR-2022's.
TSAR_ONLY: frozenset[str] = frozenset(TSAR_METRIC_KEYS)


def board_metrics(views: str | None, keys: Iterable[str]) -> list[str]:
    """Which of ``keys`` a board of view set ``views`` shows: on a SWORDS generative board
    every metric but TSAR-2022's (in the order of ``keys``), on every other board its view
    set's own (in display order)."""
    if (views or DEFAULT_TRACK) == DEFAULT_TRACK:
        return [k for k in keys if k not in TSAR_ONLY]
    given = set(keys)
    return [k for k in displayed(views) if k in given]


#: View sets whose benchmark has no part of speech (no POS blocks, controls or matrix).
WITHOUT_POS: frozenset[str] = frozenset({"tsar-generative"})


def pos_values_for(track: str | None) -> tuple[str, ...]:
    """The parts of speech a board of ``track`` breaks its results down by (none for
    TSAR-2022)."""
    return () if (track or DEFAULT_TRACK) in WITHOUT_POS else POS_VALUES


def track_of(data: dict) -> str:
    """The view set of a snapshot's board (snapshots from before tracks: generative)."""
    board = data.get("board") or {}
    return board.get("views") or board.get("track") or DEFAULT_TRACK
