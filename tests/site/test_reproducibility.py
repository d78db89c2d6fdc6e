"""Every exported and API number is traceable: scorer version, split
checksum, bootstrap seed and B on the ranking, in the exports and the API; each system page
gives the `leaderboard score` command that recomputes it, and the footer names the scorer."""

from __future__ import annotations

import csv
import html as htmllib
import io
import json
import re
import shlex

from click.testing import CliRunner

from leaderboard.commands.score import score_command
from leaderboard.scoring import SCORER_VERSION
from leaderboard.scoring.swords.gold import split_checksum
from leaderboard.services.catalog.demo import DEMO_DIR
from tests.site.seed import demo_split


def test_ranking_exports_and_api_carry_the_signature(site):
    client, seeded = site
    checksum = split_checksum(demo_split())
    html = client.get("/").get_data(as_text=True)
    line = re.search(r'<p class="signature" id="signature">(.*?)</p>', html, re.S).group(1)
    assert f"Scored by scorer <strong>{SCORER_VERSION}</strong>" in line
    assert f">{checksum}</code> · bootstrap seed 0, B = 200 · " in line
    assert (f'<span id="footer-scorer">{SCORER_VERSION}</span> (<a href="/about#reproduce">'
            "how to reproduce a score</a>)") in html

    body = client.get("/api/v1/leaderboard").get_json()
    assert body["scorer_version"] == SCORER_VERSION
    assert body["signature"] == {"scorer_version": SCORER_VERSION, "split_checksum": checksum,
                                 "seed": 0, "bootstrap": 200}
    assert {json.dumps(r["signature"], sort_keys=True) for r in body["rows"]} == {
        json.dumps(body["signature"], sort_keys=True)}

    rows = list(csv.DictReader(io.StringIO(client.get("/leaderboard.csv").get_data(
        as_text=True))))
    system = next(r for r in rows if r["row_type"] == "system")
    assert (system["scorer_version"], system["split_checksum"], system["bootstrap_seed"],
            system["bootstrap_samples"]) == (SCORER_VERSION, checksum, "0", "200")
    oracle = next(r for r in rows if r["row_type"] == "oracle")
    assert oracle["scorer_version"] == SCORER_VERSION
    exported = client.get("/leaderboard.json").get_json()
    assert (exported[0]["scorer_version"], exported[0]["split_checksum"],
            exported[0]["bootstrap_seed"], exported[0]["bootstrap_samples"]) == (
        SCORER_VERSION, checksum, 0, 200)

    about = client.get("/about").get_data(as_text=True)
    assert '<h3 id="reproduce">Reproducing a score</h3>' in about


def test_system_page_command_reproduces_its_numbers(site, tmp_path, monkeypatch):
    client, seeded = site
    sub_id = seeded.public["Frequency baseline"]
    page = client.get(f"/systems/{sub_id}").get_data(as_text=True)
    command = htmllib.unescape(re.search(r'<code id="reproduce-command">(.*?)</code>', page)
                               .group(1))
    assert command == ("leaderboard score --split swords-demo-v1_test.json.gz --bootstrap 200 "
                       "--seed 0 --json --submission 'Frequency baseline.json'")
    # Run it (the split and the file under the names the command uses): same numbers.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "swords-demo-v1_test.json.gz").write_bytes(
        (DEMO_DIR / "demo_split.json").read_bytes())
    (tmp_path / "Frequency baseline.json").write_bytes(
        (DEMO_DIR / "submissions" / "demo_weak.json").read_bytes())
    result = CliRunner().invoke(score_command, shlex.split(command)[2:])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["signature"] == {"scorer_version": SCORER_VERSION,
                                "split_checksum": split_checksum(demo_split()),
                                "seed": 0, "bootstrap": 200}
    api = client.get("/api/v1/leaderboard?entries=all").get_json()
    row = next(r for r in api["rows"] if r["id"] == sub_id)
    assert row["signature"] == doc["signature"]
    assert row["metrics"]["strict_a_f@10"]["value"] == round(doc["metrics"]["strict_a_f@10"], 2)
    assert row["metrics"]["strict_a_f@10"]["interval"] == [
        round(x, 2) for x in doc["intervals"]["strict_a_f@10"]]
    assert doc["counts"]["targets_answered"] == row["coverage"]["answered"]
    assert f'<dd class="mono">{doc["signature"]["split_checksum"]}</dd>' in page
