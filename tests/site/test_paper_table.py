"""The paper's table (/table) across SWORDS, LS07 (both tracks), CoInCo and TSAR-2022 en/es:
each value as its board's ranking page prints it, "-" where a board has none, sort and
filters, and the LaTeX (compiled by pdflatex with its .bib), Markdown and CSV files.

"Contextual ranker" of North Lab has a result on every board but TSAR es; the TSAR boards
carry the invented published rows of tests/scoring/tsar/files.RESULTS (TeamA, LSBert), the
same on both languages, so they make one row each."""

from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess

import pytest
from sqlmodel import Session

from leaderboard.models import Submission, System
from leaderboard.services.catalog.lexsub import lexsub_board
from leaderboard.services.catalog.tsar import tsar_board
from leaderboard.services.ranking.metric_info import views_for
from leaderboard.services.ranking.snapshots import refresh_snapshot
from tests.lexsub_files import write_coinco, write_semeval07
from tests.live_site import ARTIFACTS, publish_scored, seeded_app, serving, walk_pages
from tests.scoring.tsar.files import SYSTEM, write_tsar
from tests.site.test_browser_lexsub import COINCO, PAIRS, RANKED

NORTH = "Contextual ranker"
#: A name with every character LaTeX treats specially but the backslash.
ODD = "A&B_50% #1 {x} ~^$"
EN, ES = "tsar2022-en-test", "tsar2022-es-test"
LS07_GEN, LS07_GAP = "semeval07-trial-generative", "semeval07-trial-ranking"
COINCO_GEN = "coinco-test-generative"
#: An .oot line answering one substitute three times: score.pl credits each (set apart).
REPEATS = b"bright.a 1 :: smart\nbright.a 1 ::: smart;smart;smart\n"


def _prepare(app, seeded, folder) -> dict[str, int]:
    with app.app_context(), Session(app.extensions["db_engine"],
                                    expire_on_commit=False) as session:
        boards = [lexsub_board(session, "semeval07", "trial", "ranking", data_dir=folder),
                  lexsub_board(session, "semeval07", "trial", "generative", data_dir=folder),
                  lexsub_board(session, "coinco", "test", "generative", data_dir=folder),
                  tsar_board(session, "en-test", root=folder),
                  tsar_board(session, "es-test", root=folder)]
        session.commit()
        north, south, east = (seeded.teams[t] for t in ("North Lab", "South Lab", "East Lab"))
        two = "".join(SYSTEM.splitlines(keepends=True)[:2]).encode()
        ids = {}
        for board, raw in zip(boards, (RANKED["Context ranker"], PAIRS["Best guesser"],
                                       COINCO["CoInCo guesser"], SYSTEM.encode()),
                              strict=False):
            ids[board.slug] = publish_scored(app, session, [(board, {NORTH: raw})],
                                             [north])[NORTH]
        publish_scored(app, session, [(boards[1], {"Wide guesser": PAIRS["Wide guesser"]})],
                       [south])
        publish_scored(app, session, [(boards[3], {ODD: two})], [east])
        ids["repeater"] = publish_scored(app, session, [(boards[1], {"Repeater": REPEATS})],
                                         [east])["Repeater"]
        sub = session.get(Submission, seeded.public[NORTH])
        system = session.get(System, sub.system_id)
        system.paper_url, system.open_weights = "https://example.org/contextual-ranker", True
        session.add(system)
        session.commit()
        for board_id in (*(b.id for b in boards[:4]), sub.board_id, boards[4].id):
            # the system's metadata on its boards; es's published rows
            refresh_snapshot(session=session, board_id=board_id)
        session.commit()
        return {**ids, "swords-demo-v1-test-generative": sub.id}


@pytest.fixture(scope="module")
def paper_app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("paper-files")
    write_coinco(write_semeval07(folder))
    write_tsar(folder)
    write_tsar(folder, split="es-test")
    app, seeded = seeded_app(tmp_path_factory.mktemp("paper"), TESTING=True)
    app.config["IDS"] = _prepare(app, seeded, folder)
    yield app
    app.extensions["db_engine"].dispose()


@pytest.fixture
def client(paper_app):
    return paper_app.test_client()


def _csv(client, query: str) -> list[dict[str, str]]:
    response = client.get(f"/table.csv?{query}")
    assert response.status_code == 200, response.get_data(as_text=True)
    return list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))


def _ranking_cell(client, slug: str, metric: str, system_id: int) -> tuple[str, str]:
    """(value, 'lo–hi') as the board's ranking page prints them for the system."""
    views = client.get(f"/api/v1/leaderboards/{slug}/ranking").get_json()["track"]
    view = next(v for v in views_for(views).values() if metric in v.columns)
    html = client.get(f"/?leaderboard={slug}&view={view.key}&entries=all").get_data(
        as_text=True)
    row = html[html.index(f'href="/systems/{system_id}"'):]
    row = row[:row.index("</tr>")]
    cells = re.findall(r'<td class="num[^"]*" data-value="[^"]*">(.*?)</td>', row)
    cell = cells[view.columns.index(metric)]
    value = re.search(r'<span class="v"[^>]*>([^<]*)</span>', cell).group(1)
    ci = re.search(r'<span class="ci" aria-hidden="true">([^<]*)</span>', cell)
    return value, ci.group(1) if ci else ""


def test_every_value_is_the_one_its_ranking_page_prints(client, paper_app):
    ids = paper_app.config["IDS"]  # North's submission on each board
    rows = _csv(client, "")
    north = next(r for r in rows if r["system"] == NORTH)
    columns = [c for c in rows[0] if ":" in c and not c.endswith((" lo", " hi"))]
    # the standard columns of each board with something to show, in the boards' order
    assert columns == ["swords-demo-v1-test-generative:lenient_a_f@10",
                       "swords-demo-v1-test-generative:lenient_c_f@10",
                       f"{ES}:acc@1", f"{ES}:map@3", f"{EN}:acc@1", f"{EN}:map@3",
                       f"{COINCO_GEN}:best_r", f"{COINCO_GEN}:oot_r", f"{LS07_GEN}:best_r",
                       f"{LS07_GEN}:oot_r", f"{LS07_GAP}:gap"]
    checked = 0
    for column in columns:
        slug, metric = column.split(":")
        if slug == ES:
            assert north[column] == "" and north[f"{column} lo"] == ""
            continue
        value, ci = _ranking_cell(client, slug, metric, ids[slug])
        assert (north[column], f"{north[column + ' lo']}–{north[column + ' hi']}") == (
            value, ci), column
        checked += 1
    assert checked == 9
    # worked by hand (tests/scoring/tsar/test_hand_worked.py): ACC@2@Top1 1 of 3
    doc = _csv(client, f"col={EN}:acc@2@top1&rows=systems")
    assert next(r for r in doc if r["system"] == NORTH)[f"{EN}:acc@2@top1"] == "33.33"
    # the page prints the same cells as the ranking page (value and compact interval)
    page = client.get("/table").get_data(as_text=True)
    value, ci = _ranking_cell(client, LS07_GAP, "gap", ids[LS07_GAP])
    assert f'>{value}</span><span class="ci" aria-hidden="true">{ci}</span>' in page


def test_missing_values_are_a_dash_and_reported_rows_meet_across_boards(client):
    rows = _csv(client, f"col={EN}:acc@1&col={ES}:acc@1&col={LS07_GEN}:best_r")
    by_name = {r["system"]: r for r in rows}
    team_a = by_name["TeamA (run 2)"]
    assert (team_a[f"{EN}:acc@1"], team_a[f"{ES}:acc@1"], team_a[f"{LS07_GEN}:best_r"]) == (
        "80.96", "80.96", "")
    assert [r["system"] for r in rows].count("TeamA (run 2)") == 1
    wide = client.get(f"/table.md?col={EN}:acc@1&col={LS07_GEN}:best_r").get_data(
        as_text=True)
    line = next(t for t in wide.splitlines() if t.startswith("| Wide guesser |"))
    assert line.startswith("| Wide guesser | South Lab | - | ")
    page = client.get(f"/table?col={EN}:acc@1&col={LS07_GEN}:best_r").get_data(as_text=True)
    row = page[page.index(">Wide guesser</a>"):]
    assert row[:row.index("</tr>")].count('<span class="na" title="not provided">–</span>') == 1
    # a system with no value in any chosen column is not a row
    assert "Thesaurus baseline" not in page


def test_sort_keeps_missing_values_last_both_ways(client):
    column = "swords-demo-v1-test-generative:lenient_a_f@10"
    for direction in ("desc", "asc"):
        rows = _csv(client, f"col={EN}:acc@1&col={column}&sort={column}&dir={direction}")
        values = [r[column] for r in rows]
        known = [float(v) for v in values if v]
        assert known == sorted(known, reverse=direction == "desc") and len(known) == 5
        assert values[len(known):] == [""] * (len(values) - len(known)) != []
    names = [r["system"] for r in _csv(client, f"col={EN}:acc@1&sort=name&dir=asc")]
    assert names == sorted(names, key=str.casefold)
    assert client.get("/table?sort=nope").status_code == 400
    assert client.get("/table?col=nope:gap").status_code == 400
    assert client.get(f"/table?col={EN}:gap").status_code == 400  # not a TSAR metric


def test_filters_by_name_kind_metadata_and_completeness(client):
    cols = f"col={EN}:acc@1&col=swords-demo-v1-test-generative:lenient_a_f@10"
    names = {r["system"] for r in _csv(client, f"{cols}&q=teama")}
    assert names == {"TeamA (run 2)"}
    kinds = {r["row_type"] for r in _csv(client, f"{cols}&rows=reported")}
    assert kinds == {"reported"}
    assert [r["system"] for r in _csv(client, f"{cols}&complete=1")] == [NORTH]
    with_paper = {r["system"] for r in _csv(client, f"{cols}&paper=yes&rows=systems")}
    assert with_paper == {NORTH}
    without = {r["system"] for r in _csv(client, f"{cols}&paper=no")}
    assert NORTH not in without and ODD in without and "Ranker top-3" in without
    assert client.get("/table?paper=maybe").status_code == 400
    # the facts of a system: open weights declared by one system only
    assert {r["system"] for r in _csv(client, f"{cols}&open_weights=yes")} == {NORTH}
    assert NORTH not in {r["system"] for r in _csv(client, f"{cols}&open_weights=no")}
    page = client.get(f"/table?{cols}&paper=yes&rows=systems").get_data(as_text=True)
    assert '<option value="yes" selected>yes</option>' in page and "1 of 8 rows" in page


def test_markdown_and_csv_of_the_reported_rows(client):
    query = f"col={EN}:acc@1&col={ES}:map@3&rows=reported"
    title = "TSAR-2022 {}-test · generative"
    assert client.get(f"/table.md?{query}").get_data(as_text=True) == (
        f"| System | Team / source | {title.format('en')}: ACC@1 | "
        f"{title.format('es')}: MAP@3 |\n"
        "|---|---|---:|---:|\n"
        "| TeamA (run 2) | Saggion et al. 2022 | 80.96 | 58.34 |\n"
        "| LSBert-baseline (run 1) | Saggion et al. 2022 | 33.33 | 20.00 |\n")
    response = client.get(f"/table.csv?{query}")
    assert response.headers["Content-Disposition"] == 'attachment; filename="paper-table.csv"'
    lines = response.get_data(as_text=True).splitlines()
    assert lines[0] == ("row_type,system,team,citation,cite_key,"
                        f"{EN}:acc@1,{EN}:acc@1 lo,{EN}:acc@1 hi,"
                        f"{ES}:map@3,{ES}:map@3 lo,{ES}:map@3 hi,set_apart")
    assert lines[1].startswith('reported,TeamA (run 2),,"Horacio Saggion, Sanja Štajner')
    assert lines[1].endswith('EMNLP 2022.",saggion-etal-2022-findings,80.96,,,58.34,,,')


def test_a_value_its_board_sets_apart_is_marked(client, paper_app):
    query = f"col={LS07_GEN}:oot_r&col={LS07_GEN}:best_r&q=repeater"
    row = _csv(client, query)[0]
    value, ci = _ranking_cell(client, LS07_GEN, "oot_r", paper_app.config["IDS"]["repeater"])
    assert (row[f"{LS07_GEN}:oot_r"], f"{row[LS07_GEN + ':oot_r lo']}–"
            f"{row[LS07_GEN + ':oot_r hi']}") == (value, ci)
    assert row["set_apart"].startswith(f"{LS07_GEN}:oot_r: repeats answers on 1 items")
    line = client.get(f"/table.md?{query}").get_data(as_text=True).splitlines()[2]
    assert line.startswith(f"| Repeater | East Lab | {value} [") and "]† | " in line
    page = client.get(f"/table?{query}").get_data(as_text=True)
    assert page.count('<abbr class="flag"') == 1 and "† This file repeats answers" in page


def test_latex_compiles_with_its_bib(client, tmp_path):
    if shutil.which("pdflatex") is None or shutil.which("bibtex") is None:
        pytest.skip("pdflatex/bibtex missing (apt-get install texlive-latex-base "
                    "texlive-latex-recommended)")
    cols = (f"col={EN}:acc@1&col={EN}:map@3&col={LS07_GAP}:gap&col={LS07_GEN}:oot_r"
            "&col=swords-demo-v1-test-generative:lenient_a_f@10")
    tex = client.get(f"/table.tex?{cols}").get_data(as_text=True)
    bib = client.get(f"/table.bib?{cols}").get_data(as_text=True)
    assert "\\toprule" in tex and "\\cmidrule(lr){3-4}" in tex and "\\bottomrule" in tex
    assert "$^\\dagger$" in tex and "\\multicolumn{7}{l}{\\footnotesize $^\\dagger$" in tex
    # a task's official run cites the task's paper under the benchmark's own key
    assert "TeamA (run 2) \\cite{saggion-etal-2022-findings}" in tex
    # each board's header cites its benchmark
    assert tex.count("~\\cite{mccarthy-navigli-2007-semeval,mccarthy-navigli-2009-english}}") == 2
    assert tex.count("~\\cite{lee-etal-2021-swords}}") == 1
    assert "A\\&B\\_50\\% \\#1 \\{x\\} \\textasciitilde{}\\textasciicircum{}\\$" in tex
    assert "Contextual ranker \\cite{north-lab-contextual-ranker}" in tex
    assert "@misc{saggion" not in bib
    assert bib.count("@inproceedings{saggion-etal-2022-findings,") == 1
    assert "@inproceedings{lee-etal-2021-swords," in bib and "@article{mccarthy-navigli-2009" in bib
    (tmp_path / "paper-table.tex").write_text(tex, encoding="utf-8")
    (tmp_path / "paper-table.bib").write_text(bib, encoding="utf-8")
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n"
        "\\usepackage{url}\n\\begin{document}\n\\input{paper-table}\n"
        "\\bibliographystyle{plain}\n\\bibliography{paper-table}\n\\end{document}\n",
        encoding="utf-8")
    for command in (["pdflatex"], ["bibtex"], ["pdflatex"], ["pdflatex"]):
        run = subprocess.run([*command, *(["-interaction=nonstopmode", "-halt-on-error"]
                                          if command == ["pdflatex"] else []), "paper"],
                             cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stdout[-3000:]
    log = (tmp_path / "paper.log").read_text(errors="replace")
    assert "undefined" not in log and (tmp_path / "paper.pdf").stat().st_size > 1000
    aux = (tmp_path / "paper.aux").read_text()
    assert "\\bibcite{saggion-etal-2022-findings}" in aux
    assert "\\bibcite{lee-etal-2021-swords}" in aux


def test_a_withdrawn_system_leaves_the_table_at_once(client, paper_app):
    cols = f"col={LS07_GAP}:gap&col={EN}:acc@1"
    with Session(paper_app.extensions["db_engine"]) as session:
        sub = session.get(Submission, paper_app.config["IDS"][LS07_GAP])
        sub.is_public = False
        session.add(sub)
        session.commit()
        try:
            north = next(r for r in _csv(client, cols) if r["system"] == NORTH)
            assert north[f"{LS07_GAP}:gap"] == "" and north[f"{EN}:acc@1"] != ""
            # by default, a board with nothing to show has no columns
            assert f"{LS07_GAP}:gap" not in _csv(client, "")[0]
        finally:
            sub.is_public = True
            session.add(sub)
            session.commit()
    north = next(r for r in _csv(client, cols) if r["system"] == NORTH)
    assert north[f"{LS07_GAP}:gap"] != ""


@pytest.mark.browser
def test_table_in_chromium(paper_app, chromium):
    pages = {"paper-table": "/table",
             "paper-table-four-boards": f"/table?col={EN}:acc@1&col={LS07_GAP}:gap"
                                        f"&col={COINCO_GEN}:best_r"
                                        "&col=swords-demo-v1-test-generative:lenient_a_f@10"}
    with serving(paper_app) as base:
        for width in (1366, 390):
            walk_pages(chromium, base, pages, width)
            context = chromium.new_context(viewport={"width": width, "height": 900})
            page = context.new_page()
            page.goto(f"{base}/table")
            page.get_by_text("Columns (11 chosen)").click()
            page.get_by_label("ACC@2@Top1").first.check()
            page.get_by_role("button", name="Show").click()
            assert "Columns (12 chosen)" in page.content()
            page.get_by_text("Columns (12 chosen)").click()
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            page.screenshot(path=str(ARTIFACTS / f"paper-table-columns-{width}.png"),
                            full_page=True)
            context.close()
