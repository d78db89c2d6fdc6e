"""Tiny LS07-format splits written as files, score.pl run for real, and the real data."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from leaderboard.scoring.families import FAMILIES
from leaderboard.scoring.lexsub import score as lexsub_score
from leaderboard.scoring.lexsub.data import build_source, prepare_source
from leaderboard.scoring.printing import printed
from tests.lexsub_files import write_semeval07

from ..conftest import shared_dir


def lexsub_dir() -> Path:
    """``../shared/data/lexsub``, or skip saying why."""
    path = shared_dir() / "data" / "lexsub"
    if not (path / "lst_all.gold").is_file():
        pytest.skip(f"LS07/CoInCo data not found at {path} (set LEADERBOARD_SHARED_DIR)")
    return path


def score_pl() -> Path:
    """SemEval's score.pl from the shared data, or skip (it is never copied here)."""
    if shutil.which("perl") is None:
        pytest.skip("perl is needed to run score.pl")
    return lexsub_dir() / "score.pl"


def tiny_split(tmp: Path, gold: list[str], candidates: dict[str, list[str]] | None = None,
               bootstrap: int = 0):
    """A prepared semeval07-format split from gold lines (inputs made up from the keys)."""
    write_semeval07(tmp, gold, candidates or {})
    return prepare_source(build_source("semeval07", "trial", tmp), bootstrap=bootstrap)


def run(split, raw: bytes, track: str, **limits):
    """(validation report, score result or None) through the family, as the worker runs it."""
    family = FAMILIES["semeval07"]
    report = family.validate(raw, split, track=track, **limits)
    result = family.score(split, report, track=track) if report.ok else None
    return report, result


_NUMBERS = re.compile(r"precision = ([\d.]+), (?:Mode )?recall = ([\d.]+)")


def perl_scores(answers: Path, gold: Path, kind: str, env: dict | None = None
                ) -> dict[str, float] | None:
    """score.pl's printed P, R, mode P, mode R (in %) and its attempted count; None when it
    dies dividing by zero (no line of that kind was attempted)."""
    done = subprocess.run(["perl", str(score_pl()), str(answers), str(gold), "-t", kind],
                          capture_output=True, text=True, env=env)
    if done.returncode and "Illegal division by zero" in done.stderr:
        return None
    done.check_returncode()
    out = done.stdout
    (p, r), (mp, mr) = [tuple(map(float, m)) for m in _NUMBERS.findall(out)]
    attempted = int(re.search(r"attempted = (\d+)", out).group(1))
    return {"p": p, "r": r, "mode_p": mp, "mode_r": mr, "attempted": attempted}


def ours(result, kind: str) -> dict[str, float]:
    """Our four numbers of ``kind`` as the site prints them, which must be score.pl's."""
    m = result.metrics
    return {name: printed(m[f"{kind}_{name}"], "semeval07")
            for name in ("p", "r", "mode_p", "mode_r")}


GENERATIVE, RANKING = lexsub_score.GENERATIVE, lexsub_score.RANKING


def python2() -> str:
    """A Python 2 interpreter (lst_gap.py's language), or skip saying why."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    found = [shutil.which("python2.7"), shutil.which("python2"),
             *map(str, sorted(root.glob("versions/2.7*/bin/python2.7")))]
    for path in filter(None, found):
        probe = subprocess.run([path, "-c", "import sys; sys.exit(sys.version_info[0] != 2)"],
                               capture_output=True)
        if probe.returncode == 0:
            return path
    pytest.skip("Python 2 is needed to compare with lst_gap.py's float and sort")
