"""A seeded board with an anonymous entry, its team easy to find if anything names it: a
distinctive team name, two members, another (private) system, paper and code links."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlmodel import Session, select

from leaderboard.models import Result, Split, Submission, System, User
from leaderboard.services.ranking.anonymity import set_anonymous
from leaderboard.services.ranking.snapshots import refresh_snapshot
from tests.factories import make_team
from tests.site.seed import Seeded, _store, demo_file, seed_demo, variant

TEAM = "Zephyrine Quokka Institute"
MEMBERS = ("quokka.first@zephyrine.example", "quokka.second@zephyrine.example")
ANON_SYSTEM = "Quokka Secret Ranker"
OTHER_SYSTEM = "Quokka Named Baseline"
PAPER = "https://arxiv.org/abs/2612.quokka"
CODE = "https://github.com/zephyrine/quokka-ranker"
DESCRIPTION = "Built by the Zephyrine Quokka people in Perth."


@dataclass
class AnonSeeded:
    seeded: Seeded
    team_id: int
    system_slug: str
    tag: str
    anon_ids: list[int] = field(default_factory=list)
    other_id: int = 0
    #: Result row ids of the anonymous entry (sequential too: never public).
    result_ids: list[int] = field(default_factory=list)


def seed_anonymous(session: Session, *, other_public: bool = False) -> AnonSeeded:
    """The demo board plus the team above: its anonymous system (public, scored) and its
    other system (private unless ``other_public``); a team after it, so its id is not the
    last."""
    seeded = seed_demo(session)
    team, _ = make_team(session, TEAM, email=MEMBERS[0])
    second = User(email=MEMBERS[1], password_hash="-", team_id=team.id, mailbox=MEMBERS[1])
    session.add(second)
    make_team(session, "Filler Lab")
    bench = session.get(Split, seeded.split_id)
    strong = demo_file("demo_strong")
    other = _store(session, bench, team, OTHER_SYSTEM, variant(strong, 2), public=other_public,
                   age_days=1)
    anon = _store(session, bench, team, ANON_SYSTEM, variant(strong, 4), age_days=0)
    system = session.get(System, anon.system_id)
    system.description, system.paper_url, system.code_url = DESCRIPTION, PAPER, CODE
    system.base_model = "bert-large"
    set_anonymous(system, True, None)
    session.add(system)
    session.commit()
    refresh_snapshot(session=session, board_id=seeded.board_id)
    session.commit()
    results = [int(r) for r in session.exec(select(Result.id).where(
        Result.submission_id == anon.id)).all()]
    return AnonSeeded(seeded, int(team.id), system.slug, system.anonymous_tag,  # type: ignore
                      [int(anon.id)], int(other.id), results)  # type: ignore[arg-type]


def public_ids_of_results(session: Session) -> list[str]:
    """Every current result's public id (the crawl asks each permalink)."""
    return [str(p) for p in session.exec(select(Result.public_id)
                                         .join(Submission).where(Submission.is_public)).all()]
