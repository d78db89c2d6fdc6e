#!/usr/bin/env bash
# While nothing is deployed, the schema is one migration generated from leaderboard/models.py.
# Run after changing a model: it rebuilds 0001_initial.py against an empty SQLite database.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -f leaderboard/migrations/versions/0001_initial.py
.venv/bin/python - "$tmp" <<'PY'
import sys
from alembic import command
from leaderboard.db import make_engine
from leaderboard.migrate import alembic_config
engine = make_engine(f"sqlite:///{sys.argv[1]}/empty.db")
config = alembic_config(engine)
command.revision(config, message="initial schema", autogenerate=True, rev_id="0001_initial")
PY
mv leaderboard/migrations/versions/0001_initial_*.py leaderboard/migrations/versions/0001_initial.py
.venv/bin/ruff check --fix -q leaderboard/migrations/versions/0001_initial.py || true
.venv/bin/ruff format -q leaderboard/migrations/versions/0001_initial.py
echo "regenerated leaderboard/migrations/versions/0001_initial.py"
