"""Per-instance diagnostics on TSAR-2022, whose gold is published: the rows of LS07/CoInCo
(:func:`leaderboard.scoring.lexsub.diagnostics.instance_diagnostics`) for the system's list
as scored (repeats and the complex word dropped); a gold annotation is "acceptable", its
score its share of the instance's annotations."""

from __future__ import annotations

from leaderboard.scoring.lexsub.diagnostics import instance_diagnostics
from leaderboard.scoring.swords.diagnostics import TargetDiagnostics
from leaderboard.scoring.tsar.data import TsarSplit
from leaderboard.scoring.tsar.formats import Answers
from leaderboard.scoring.tsar.metrics import system_list


def diagnose(split: TsarSplit, answers: Answers) -> list[TargetDiagnostics]:
    """Diagnostics of every instance of ``split``, in split order (a validated file)."""
    return [instance_diagnostics(t, system_list(answers.lists.get(t.target_id, ()), t.word),
                                 None) for t in split.targets]
