"""Label facts a new team and one inbox read from the Ladder with parallel workers (issue 30,
items 4 and 5), on the real test split, with real ``leaderboard worker`` processes.

- **Race**: a new verified team uploads five padded probes at once (the probe of
  ``bench_ladder_probe.py``: junk everywhere but one candidate per part of speech); five idle
  workers score them together. Before the decision was serialised, several were released,
  each with its per-POS numbers (8 label facts); now one is.
- **One inbox**: five sign-ups through the web form with ``me+1@`` ... ``me+5@`` one
  mailbox (before: five accounts, five teams). Each team the inbox holds, verified, plus
  teams on the mailbox from before the one-account rule up to five in all, uploads one probe
  at once: before, every team's first result was released; now one per mailbox.

    python perf/bench_ladder_race.py [--rounds 3] [--postgres URL] [--json]

Run against an older tree with ``PYTHONPATH=<tree>`` to measure it before the fix.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import platform
import re
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench_ladder_probe import POS, _answer_facts, _probe_file, _probe_plan, _truth
from ops_harness import Instance, require_split
from sqlmodel import Session, select

WORKERS = 5
PASSWORD = "a long enough password"


def _token(inst: Instance, team) -> str:
    from leaderboard.services.access.api_tokens import issue_token

    with Session(inst.engine, expire_on_commit=False) as session:
        plaintext = issue_token(session=session, team=team, name="probe")[1]
        session.commit()
        return plaintext


def _new_team(inst: Instance, name: str):
    from leaderboard.services.access.accounts import create_team

    with Session(inst.engine, expire_on_commit=False) as session:
        team, _user = create_team(session=session, name=name, email=f"{uuid.uuid4().hex}@x.org",
                                  password=PASSWORD, verified=True)
        session.commit()
        return team


def _legacy_team(inst: Instance, name: str, email: str):
    """A verified team on ``email`` made as before the one-account rule (rows, no checks)."""
    from leaderboard.models import Team, User, utcnow
    from leaderboard.services.access.accounts import hash_password

    with Session(inst.engine, expire_on_commit=False) as session:
        team = Team(name=name)
        session.add(team)
        session.flush()
        session.add(User(email=email, password_hash=hash_password(PASSWORD), team_id=team.id,
                         email_verified_at=utcnow()))
        session.commit()
        return team


def _upload_all(inst: Instance, uploads: list[tuple[str, dict, str]]) -> list[int]:
    """POST every (token, substitutes, name) right after another; the workers start on each
    as it is queued."""
    client, ids = inst.app.test_client(), []
    for token, subs, name in uploads:
        raw = json.dumps({"substitutes_lemmatized": False, "substitutes": subs}).encode()
        response = client.post("/api/v1/submissions", headers={"Authorization": f"Bearer {token}"},
                               content_type="multipart/form-data",
                               data={"name": name, "file": (io.BytesIO(raw), "r.json")})
        if response.status_code != 202:
            raise SystemExit(f"upload refused: {response.status_code} {response.get_data()}")
        ids.append(response.get_json()["id"])
    return ids


def _outcome(inst: Instance, uploads: list, ids: list[int], plans: list, truth: dict) -> dict:
    """Released submissions and the label facts their answers give their teams."""
    inst.wait_final(ids, timeout=900)
    client = inst.app.test_client()
    released, facts = 0, 0
    for (token, _subs, _name), sid, plan in zip(uploads, ids, plans, strict=True):
        answer = client.get(f"/api/v1/submissions/{sid}",
                            headers={"Authorization": f"Bearer {token}"}).get_json()
        read = _answer_facts(answer)
        if answer["release"]["state"] == "released":
            released += 1
        if read is not None:
            facts += 2 * sum(read[pos] == truth[plan[pos]] for pos in POS)
    return {"submissions": len(ids), "released": released, "label_facts": facts}


def _race(inst: Instance, split: dict, truth: dict, plans: list, rounds: int) -> list[dict]:
    targets, out = list(split["targets"]), []
    for r in range(rounds):
        token = _token(inst, _new_team(inst, f"Race {r}"))
        mine = plans[r * WORKERS:(r + 1) * WORKERS]
        uploads = [(token, _probe_file(targets, plan), f"race {r}.{i}")
                   for i, plan in enumerate(mine)]
        out.append(_outcome(inst, uploads, _upload_all(inst, uploads), mine, truth))
    return out


def _inbox(inst: Instance, split: dict, truth: dict, plans: list) -> dict:
    from leaderboard.models import Team, User, utcnow

    client = inst.app.test_client()
    codes = []
    for i in range(1, WORKERS + 1):
        client.environ_base["REMOTE_ADDR"] = f"192.0.2.{i}"
        page = client.get("/account/signup").get_data(as_text=True)
        csrf = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page).group(1)
        codes.append(client.post("/account/signup", data={
            "team_name": f"Inbox {i}", "email": f"me+{i}@x.org", "password": PASSWORD,
            "confirm": PASSWORD, "csrf_token": csrf}).status_code)
    with Session(inst.engine, expire_on_commit=False) as session:
        users = session.exec(select(User).where(User.email.like("me+%@x.org"))).all()
        for user in users:  # each opens its confirmation link
            user.email_verified_at = utcnow()
            session.add(user)
        session.commit()
        teams = [session.get(Team, user.team_id) for user in users]
    accounts = len(teams)
    while len(teams) < WORKERS:
        teams.append(_legacy_team(inst, f"Inbox old {len(teams)}", f"me+old{len(teams)}@x.org"))
    targets, mine = list(split["targets"]), plans[-WORKERS:]
    uploads = [(_token(inst, team), _probe_file(targets, plan), f"inbox {i}")
               for i, (team, plan) in enumerate(zip(teams, mine, strict=True))]
    outcome = _outcome(inst, uploads, _upload_all(inst, uploads), mine, truth)
    return {"signup_answers": codes, "accounts_from_signups": accounts,
            "teams_on_the_mailbox": len(teams), **outcome}


def _run(database_url: str | None, raw: bytes, split: dict, truth: dict, plans: list,
         rounds: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        inst = Instance(tmp, database_url, DAILY_SCORED_QUOTA=100, TOTAL_SCORED_QUOTA=1000,
                        DAILY_ATTEMPT_CAP=1000, API_RATE_LIMIT="100000 per minute")
        try:
            _ladder_board(inst, inst.import_split(raw))
            inst.start_workers(WORKERS)
            started = time.monotonic()
            race = _race(inst, split, truth, plans, rounds)
            inbox = _inbox(inst, split, truth, plans)
            seconds = time.monotonic() - started
        finally:
            inst.close()
    n = sum(r["submissions"] for r in race)
    return {"race_rounds": race,
            "race_released_per_team": [r["released"] for r in race],
            "race_label_facts_per_team": [r["label_facts"] for r in race],
            "race_label_facts_per_submission": round(sum(r["label_facts"] for r in race) / n, 2),
            "one_inbox": inbox, "seconds": round(seconds, 1)}


def _ladder_board(inst: Instance, benchmark) -> None:
    from leaderboard.services.catalog.boards import import_board

    with Session(inst.engine) as session:
        if import_board(session, benchmark).release != "ladder":
            raise SystemExit("the test split's board is not under the Ladder")
        session.commit()


def _postgres_schema(url: str) -> tuple[str, str]:
    import psycopg

    name = "bench_" + uuid.uuid4().hex[:12]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{name}"')
    sep = "&" if "?" in url else "?"
    return name, f"{url}{sep}options=-csearch_path%3D{name}"


def _drop_schema(url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--postgres", default="", help="also run on this PostgreSQL database")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    raw = require_split()
    split = json.loads(gzip.decompress(raw))
    truth = _truth(split)
    plans = _probe_plan(split, truth, WORKERS * (args.rounds + 1))
    out = {"machine": f"{platform.node()} {platform.machine()} python {platform.python_version()}",
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "workers": WORKERS,
           "sqlite": _run(None, raw, split, truth, plans, args.rounds)}
    if args.postgres:
        schema, url = _postgres_schema(args.postgres)
        try:
            out["postgresql"] = _run(url, raw, split, truth, plans, args.rounds)
        finally:
            _drop_schema(args.postgres, schema)
    print(json.dumps(out, indent=None if args.json else 2))


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
