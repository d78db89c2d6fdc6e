"""TSAR-2022 (Saggion et al. 2022): multilingual lexical simplification, scored as the task's
``tsar_eval.py`` scores it.

* :mod:`.metrics`: ACC@1, ACC@k@Top1, MAP@k and Potential@k as per-instance columns;
* :mod:`.data`: the gold and input TSV files, and the prepared split (:class:`.data.TsarSplit`);
* :mod:`.formats`: the official TSV (plain or gzipped, read as a bounded stream) and the
  site's JSON;
* :mod:`.score`: validation and scoring into the universal per-target statistics;
* :mod:`.family`: the adapter registered in :data:`leaderboard.scoring.families.FAMILIES`.

Pure: no Flask, no database. The metrics are implemented from the task's definitions and
tested against the script by running it (``tests/scoring/tsar``); none of its code is here.
"""
