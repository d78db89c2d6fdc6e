"""A result's permalink: a random id, a frozen record (numbers with intervals, board, split
checksum, scorer version, file sha256, date) as a page and as JSON, its BibTeX entry and the
model-index block of a Hugging Face model card; a re-scored result keeps its old record,
marked superseded; results that are not public answer 404 like an unknown id."""

from __future__ import annotations

import re
from html import unescape

import pytest
import yaml
from sqlmodel import col, select

from leaderboard.models import ReleaseState, Result, Submission, SubmissionStatus, Team
from leaderboard.scoring.printing import printed
from leaderboard.services.intake.results import score_submission_now
from leaderboard.services.ranking.records import result_record
from tests.scoring.test_bibtex import balanced, fields


def _current(session, submission_id: int) -> Result:
    return session.exec(select(Result).where(Result.submission_id == submission_id,
                                             col(Result.is_current).is_(True))).one()


def _pre(html: str, pre_id: str) -> str:
    return unescape(re.search(rf'<pre class="bibtex" id="{pre_id}"[^>]*>(.*?)</pre>', html,
                              flags=re.S).group(1))


def test_public_ids_are_random_unique_and_unrelated_to_row_ids(session, seeded):
    ids = session.exec(select(Result.id, Result.public_id).order_by(Result.id)).all()
    assert len(ids) == 7 and all(re.fullmatch(r"[0-9a-f]{16}", p) for _, p in ids)
    assert len({p for _, p in ids}) == 7
    assert not any(p.lstrip("0") == str(i) for i, p in ids)


def test_the_record_page_and_json_hold_the_frozen_numbers(client, session, seeded):
    sid = seeded.public["Contextual ranker"]
    result, sub = _current(session, sid), session.get(Submission, sid)
    page = client.get(f"/systems/{sid}").get_data(as_text=True)
    permalink = f"http://localhost/results/{result.public_id}"
    assert f'<a id="permalink" href="{permalink}">' in page
    body = client.get(f"/api/v1/results/{result.public_id}").get_json()
    assert body["permalink"] == permalink
    # Printed as every surface prints it: 81.8181... is 81.82.
    assert result.metrics["lenient_a_f@10"] == pytest.approx(81.8181818)
    assert body["metrics"]["lenient_a_f@10"] == 81.82
    assert body["intervals"]["lenient_a_f@10"] == [
        printed(x) for x in result.intervals["lenient_a_f@10"]]
    assert "acc@1" not in body["metrics"]  # a SWORDS board shows no TSAR-2022 metric
    assert (body["split_checksum"], body["scorer_version"], body["file_sha256"]) == (
        result.split_checksum, result.scorer_version, sub.file_sha256)
    assert body["scored_at"] == result.created_at.isoformat()
    assert body["board"]["slug"] == "swords-demo-v1-test-generative"
    assert (body["system"], body["team"], body["superseded_by"]) == (
        "Contextual ranker", "North Lab", None)
    html = client.get(f"/results/{result.public_id}").get_data(as_text=True)
    assert f"{result.metrics['lenient_a_f@10']:.2f}" in html
    assert result.split_checksum in html and sub.file_sha256 in html
    assert 'id="superseded"' not in html


def test_the_bibtex_entry_of_a_result(client, session, seeded):
    sid = seeded.public["Thesaurus baseline"]
    sub = session.get(Submission, sid)
    sub.system_name = "R&D_50% {beta}"
    session.add(sub)
    session.commit()
    result = _current(session, sid)
    html = client.get(f"/systems/{sid}").get_data(as_text=True)
    bibtex = _pre(html, "result-bibtex")
    assert balanced(bibtex)
    kind, key, values = fields(bibtex)
    url = f"http://localhost/results/{result.public_id}"
    date = result.created_at.date().isoformat()
    assert (kind, key) == ("misc", f"result-{result.public_id}")
    assert values["title"] == (r"{R\&D\_50\% \{beta\}: swords-demo 1 test, generative}")
    assert (values["author"], values["url"], values["urldate"], values["year"]) == (
        "{South Lab}", url, date, date[:4])
    assert values["howpublished"] == f"\\url{{{url}}}"
    assert (f"Scored {date}, scorer version {result.scorer_version}, split checksum "
            f"{result.split_checksum}, file sha256 {sub.file_sha256}") == values["note"]
    assert client.get(f"/api/v1/results/{result.public_id}").get_json()["bibtex"] == bibtex


def test_the_model_index_block_parses_to_the_results_values(client, session, seeded):
    sid = seeded.public["Contextual ranker"]
    result = _current(session, sid)
    html = client.get(f"/systems/{sid}").get_data(as_text=True)
    card = yaml.safe_load(_pre(html, "model-index-yaml"))
    (model,) = card["model-index"]
    (entry,) = model["results"]
    assert model["name"] == "Contextual ranker"
    assert entry["task"] == {"type": "lexical-substitution", "name": "Lexical Substitution"}
    assert entry["dataset"] == {"name": "swords-demo v1", "type": "swords-demo", "split": "test"}
    assert [(m["type"], m["name"], m["value"]) for m in entry["metrics"]] == [
        (key, label, printed(result.metrics[key])) for key, label in (
            ("strict_a_f@10", "F^10 strict"), ("strict_c_f@10", "F_c^10 strict"),
            ("lenient_a_f@10", "F^10 lenient"), ("lenient_c_f@10", "F_c^10 lenient"),
            ("coverage_f", "coverage F"))]
    assert entry["source"]["url"] == f"http://localhost/results/{result.public_id}"


def test_a_rescored_result_keeps_its_frozen_record_marked_superseded(app, client, session,
                                                                     seeded):
    sid = seeded.public["Frequency baseline"]
    old = _current(session, sid)
    old_value = old.metrics["lenient_a_f@10"]
    old.metrics = {**old.metrics, "lenient_a_f@10": 12.5}  # as an older scorer had it
    old.scorer_version = "0.9.0"
    sub = session.get(Submission, sid)
    # re-queued by `leaderboard rescore`; its release was decided when first scored
    sub.status, sub.release_state = SubmissionStatus.QUEUED, ReleaseState.RELEASED
    session.add_all([old, sub])
    session.commit()
    assert score_submission_now(engine_or_session=app.extensions["db_engine"],
                                submission_id=sid, settings=app.config["LEADERBOARD"]) == "scored"
    session.expire_all()
    new = _current(session, sid)
    assert new.public_id != old.public_id
    before = client.get(f"/api/v1/results/{old.public_id}").get_json()
    assert (before["metrics"]["lenient_a_f@10"], before["scorer_version"]) == (12.5, "0.9.0")
    assert before["superseded_by"] == new.public_id
    html = client.get(f"/results/{old.public_id}").get_data(as_text=True)
    assert 'id="superseded"' in html and f'href="/results/{new.public_id}"' in html
    after = client.get(f"/api/v1/results/{new.public_id}").get_json()
    assert after["metrics"]["lenient_a_f@10"] == old_value and after["superseded_by"] is None
    # the system page cites the current record
    assert f"/results/{new.public_id}" in client.get(f"/systems/{sid}").get_data(as_text=True)


def test_a_result_that_is_not_public_answers_like_an_unknown_one(client, session, seeded):
    def unseen(public_id: str) -> None:
        assert result_record(session, public_id) is None
        assert client.get(f"/results/{public_id}").status_code == 404
        api = client.get(f"/api/v1/results/{public_id}")
        assert api.status_code == 404
        assert api.get_json()["error"]["code"] == "unknown_result"

    unseen("0123456789abcdef")
    unseen(_current(session, seeded.private_id).public_id)
    unseen(_current(session, seeded.hidden_id).public_id)
    sub = session.get(Submission, seeded.public["Ranker top-3"])
    public_id = _current(session, sub.id).public_id
    assert client.get(f"/results/{public_id}").status_code == 200
    sub.release_state = ReleaseState.HELD
    session.add(sub)
    session.commit()
    unseen(public_id)
    sub.release_state = ReleaseState.RELEASED
    team = session.get(Team, sub.team_id)
    team.disabled = True
    session.add_all([sub, team])
    session.commit()
    unseen(public_id)
