"""The padding attack against the real test split, under the ``full`` and ``ladder`` release
policies, through the token API (uploads, real scoring jobs, status reads).

The probe: every target answered with a junk word except one target per part of speech,
answered with one candidate word. The pooled strict P@10 of that POS is then > 0 exactly
when the candidate is acceptable, and the conceivable P@10 when it is conceivable: 8 label
facts per scored submission, read from the per-POS figures. Under ``ladder`` the same probes
are held, and the answers carry nothing but "held" and the team's released best.

Also measured: how many releases a team gets while climbing from an empty-scoring file to
the CoInCo reference system in equal steps (each release is a full set of numbers), and a
new team's first submission, which the ladder always releases.

    python perf/bench_ladder_probe.py [--probes 12] [--json]
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import platform
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from ops_harness import SHARED, Instance, require_split

POS = ("NOUN", "VERB", "ADJ", "ADV")
COINCO = SHARED / "reference-systems" / "coinco_test.result.json.gz"


def _truth(split: dict) -> dict[tuple[str, str], tuple[bool, bool]]:
    """(target, word) -> (acceptable, conceivable) from the votes (scoring spec, step 4-5),
    for words that are one lower-case token, unique within their target."""
    seen: dict[tuple[str, str], list[str]] = defaultdict(list)
    for sid, sub in split["substitutes"].items():
        seen[(sub["target_id"], sub["substitute"])] += split["substitute_labels"][sid]
    out = {}
    for key, labels in seen.items():
        word = key[1]
        labels = [x for x in labels if x != "UNSURE"]
        if not labels or not word.isalpha() or not word.islower():
            continue
        score = sum(x in ("TRUE", "TRUE_IMPLICIT") for x in labels) / len(labels)
        out[key] = (score >= 0.5 + 1e-4, score >= 0.1)
    return out


class Attacker:
    def __init__(self, inst: Instance, client, token: str):
        self.inst, self.client, self.token = inst, client, token
        self.headers = {"Authorization": f"Bearer {token}"}

    def submit(self, substitutes: dict, name: str) -> dict:
        from worker import jobs

        raw = json.dumps({"substitutes_lemmatized": False, "substitutes": substitutes}).encode()
        response = self.client.post("/api/v1/submissions", headers=self.headers,
                                    content_type="multipart/form-data",
                                    data={"name": name, "file": (io.BytesIO(raw), "r.json")})
        if response.status_code != 202:
            raise SystemExit(f"upload refused: {response.status_code} {response.get_data()}")
        sid = response.get_json()["id"]
        jobs.score_submission_job(sid)
        return self.client.get(f"/api/v1/submissions/{sid}", headers=self.headers).get_json()


def _team(inst: Instance, name: str) -> str:
    from sqlmodel import Session

    from leaderboard.services.access.accounts import create_team
    from leaderboard.services.access.api_tokens import issue_token

    with Session(inst.engine, expire_on_commit=False) as session:
        email = f"{name.lower().replace(' ', '-')}@example.org"
        team, _user = create_team(session=session, name=name, email=email,
                                  password="a long enough password", verified=True)
        session.commit()
        plaintext = issue_token(session=session, team=team, name="probe")[1]
        session.commit()
        return plaintext


def _probe_plan(split: dict, truth: dict, n: int) -> list[dict[str, tuple[str, str]]]:
    """``n`` probes, each one (target, word) per POS, different targets throughout."""
    by_pos: dict[str, list[tuple[str, str]]] = defaultdict(list)
    used: set[str] = set()
    for (target, word) in truth:
        pos = split["targets"][target]["pos"]
        if target not in used and pos in POS:
            used.add(target)
            by_pos[pos].append((target, word))
    return [{pos: by_pos[pos][i] for pos in POS} for i in range(n)]


def _probe_file(targets: list[str], plan: dict[str, tuple[str, str]]) -> dict:
    subs = {t: [["qqzx", 1.0]] for t in targets}
    for target, word in plan.values():
        subs[target] = [[word, 1.0]]
    return subs


def _answer_facts(answer: dict) -> dict | None:
    """What a probe's answer reveals: per POS, (P@10 acceptable > 0, P@10 conceivable > 0)."""
    result = answer.get("result")
    if not result:
        return None
    return {pos: (block["metrics"]["strict_a_p@10"] > 0, block["metrics"]["strict_c_p@10"] > 0)
            for pos, block in result["by_pos"].items()}


def _attack(inst: Instance, client, split: dict, truth: dict, plans: list, team: str,
            base: dict | None) -> dict:
    attacker = Attacker(inst, client, _team(inst, team))
    if base is not None:
        attacker.submit(base, f"{team} base")
    targets = list(split["targets"])
    correct, answers = 0, set()
    states = defaultdict(int)
    for n, plan in enumerate(plans):
        answer = attacker.submit(_probe_file(targets, plan), f"{team} probe {n}")
        states[answer["release"]["state"]] += 1
        # What varies between answers, ids, names and times aside.
        answers.add(json.dumps({k: answer.get(k) for k in ("status", "result")}
                               | {"release": {k: v for k, v in answer["release"].items()
                                              if k != "against"}}, sort_keys=True))
        facts = _answer_facts(answer)
        if facts is not None:
            correct += sum(facts[pos] == truth[plan[pos]] for pos in POS)
    n = len(plans)
    return {"submissions": n, "states": dict(states),
            "label_facts_read": 2 * correct, "label_facts_per_submission": 2 * correct / n,
            "distinct_answers": len(answers)}


def _climb(inst: Instance, client, split: dict, steps: int) -> dict:
    """From all-junk (released: a team's first) to CoInCo in ``steps`` equal steps."""
    coinco = json.loads(gzip.decompress(COINCO.read_bytes()))["substitutes"]
    targets = list(split["targets"])
    attacker = Attacker(inst, client, _team(inst, "Climber"))
    released = []
    for step in range(steps + 1):
        upto = round(len(targets) * step / steps)
        subs = {t: (coinco.get(t) or [["qqzx", 1.0]]) if i < upto else [["qqzx", 1.0]]
                for i, t in enumerate(targets)}
        answer = attacker.submit(subs, f"climb {step}")
        if answer["release"]["state"] == "released":
            released.append(step)
    return {"steps": steps + 1, "released": len(released), "released_steps": released}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--probes", type=int, default=12)
    parser.add_argument("--climb-steps", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    raw = require_split()
    split = json.loads(gzip.decompress(raw))
    truth = _truth(split)
    plans = _probe_plan(split, truth, args.probes)
    coinco = json.loads(gzip.decompress(COINCO.read_bytes()))["substitutes"]
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        # Quotas and rate limits out of the way: the measure is per scored submission.
        inst = Instance(tmp, DAILY_SCORED_QUOTA=100000, TOTAL_SCORED_QUOTA=100000,
                        DAILY_ATTEMPT_CAP=100000, API_RATE_LIMIT="100000 per minute")
        try:
            benchmark = inst.import_split(raw)
            from sqlmodel import Session

            from leaderboard.services.catalog.boards import import_board
            from leaderboard.services.ranking import ladder

            client = inst.app.test_client()
            from worker import jobs

            jobs.configure(settings=inst.app.config["LEADERBOARD"], engine=inst.engine)

            def policy(name: str) -> None:
                with Session(inst.engine) as session:
                    ladder.set_release(session, import_board(session, benchmark), name)
                    session.commit()

            policy("full")
            full = _attack(inst, client, split, truth, plans, "Full Prober", None)
            policy("ladder")
            held = _attack(inst, client, split, truth, plans, "Ladder Prober", coinco)
            first = _attack(inst, client, split, truth, plans[:1], "Fresh Team", None)
            climb = _climb(inst, client, split, args.climb_steps)
        finally:
            inst.close()
    out = {"machine": f"{platform.node()} {platform.machine()} python {platform.python_version()}",
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "probes": args.probes, "full": full, "ladder_after_base": held,
           "ladder_first_submission_of_a_team": first, "ladder_climb": climb,
           "seconds": round(time.monotonic() - start, 1)}
    if args.json:
        print(json.dumps(out))
        return
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
