"""SemEval-2007 Task 10 (LS07) and CoInCo, scored as the field scores them.

* :mod:`.data`: the gold, candidate and input files as the field distributes them, and the
  prepared split (:class:`.data.LexsubSplit`) every other module reads;
* :mod:`.gap`: GAP as ``lst_gap.py GOLD RANKED OUT no-mwe`` computes it (ranking track);
* :mod:`.scorepl`: best and oot as SemEval's ``score.pl`` computes them (generative track);
* :mod:`.formats`: RANKED, ``.best``, ``.oot``, a pair of them and the site's JSON, detected;
* :mod:`.score`: validation and scoring into the universal per-target statistics.

Pure: no Flask, no database. The definitions are implemented from the task's README and the
scripts' behaviour, and tested against them (``tests/scoring/lexsub``); no code of either
script is copied.
"""
