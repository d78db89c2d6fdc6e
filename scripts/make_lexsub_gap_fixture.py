"""Write the lst_gap.py fixture: the MEAN_GAP the field's script gives on seeded RANKED files.

Papers report GAP on LS07 and CoInCo with ``lst_gap.py GOLD RANKED OUT no-mwe`` of
orenmel/lexsub (Python 2). The project implements GAP from its definition
(leaderboard/scoring/lexsub/gap.py) without that code; this script records the script's own
numbers so that tests/scoring/lexsub/test_lst_gap_parity.py can assert equality. Nothing of
the script is copied into the project: it is read from a local git mirror at run time::

    # a mirror of github.com/orenmel/lexsub (for example the fetch tool's snapshot)
    PYENV_VERSION=2.7.18 python3.11 scripts/make_lexsub_gap_fixture.py \\
        --mirror /work/.mirror/orenmel+lexsub/repo/.git --python2 python2 \\
        --shared ../shared --out tests/scoring/fixtures/lst_gap_expected.json

(about 20 s; run from the project root with the project's venv). The RANKED files come from
tests/scoring/lexsub/generated.py, which the test imports too.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from leaderboard.scoring.families import FAMILIES  # noqa: E402
from leaderboard.scoring.lexsub.data import FILES, read_text  # noqa: E402
from tests.scoring.lexsub.generated import CASES, ranked_bytes  # noqa: E402


def _checkout(mirror: Path, into: Path) -> Path:
    """The mirror's jcs/ package (lst_gap.py and its GAP module) in a temporary folder."""
    archive = subprocess.run(["git", "--git-dir", str(mirror), "archive", "HEAD", "jcs"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "jcs" / "evaluation" / "lst" / "lst_gap.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", type=Path, required=True)
    parser.add_argument("--python2", default="python2")
    parser.add_argument("--shared", type=Path, default=Path("../shared"))
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    data = args.shared / "data" / "lexsub"
    commit = subprocess.run(["git", "--git-dir", str(args.mirror), "rev-parse", "HEAD"],
                            capture_output=True, text=True, check=True).stdout.strip()
    cases = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        script = _checkout(args.mirror, tmp)
        for family, split_name, scheme, seed in CASES:
            fam = FAMILIES[family]
            split = fam.prepare(fam.build_source(split_name, data), name="x", bootstrap=0)
            gold, ranked, out = tmp / "gold", tmp / "ranked", tmp / "out"
            # the distributed gold file itself (unzipped), not our reading of it
            gold.write_bytes(read_text(data / FILES[family][split_name].gold)
                             .encode("latin-1"))
            ranked.write_bytes(ranked_bytes(split, scheme, seed))
            printed = subprocess.run([args.python2, str(script), str(gold), str(ranked),
                                      str(out), "no-mwe"], check=True, cwd=tmp,
                                     capture_output=True, env={
                                         "PYTHONPATH": str(tmp), "PATH": "/usr/bin:/bin"})
            text = out.read_text("latin-1")
            cases.append({
                "family": family, "split": split_name, "scheme": scheme, "seed": seed,
                "gold_file": FILES[family][split_name].gold,
                "mean_gap": float(re.search(r"MEAN_GAP\t(\S+)", text).group(1)),
                "read": int(re.search(r"Read (\d+)", text).group(1)),
                "ignored": int(re.search(r"Ignored (\d+)", text).group(1)),
                # fields the script dropped with a message (a score its float refuses)
                "errors_appending": printed.stdout.count(b"Error appending")})
            print(cases[-1])
    args.out.write_text(json.dumps({
        "script": "jcs/evaluation/lst/lst_gap.py GOLD RANKED OUT no-mwe",
        "repository": "orenmel/lexsub", "commit": commit,
        "note": "MEAN_GAP as the script prints it (str of a Python 2 float, 12 digits)",
        "cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
