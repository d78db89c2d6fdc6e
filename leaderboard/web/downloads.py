"""Public downloads: a split's inputs (no labels), what participants need to run a system."""

from __future__ import annotations

from flask import Blueprint, Response, abort

from leaderboard.db import get_session
from leaderboard.services.catalog import benchmarks

bp = Blueprint("downloads", __name__)


@bp.get("/benchmarks/<name>/<version>/<split>/inputs.json.gz")
def split_inputs(name: str, version: str, split: str) -> Response:
    """Gzipped JSON: contexts, targets with POS, candidate substitutes; never labels."""
    row = benchmarks.find_benchmark(get_session(), name, version, split)
    if row is None:
        abort(404)
    filename = f"{name}-{version}_{split}-inputs.json.gz"
    return Response(
        benchmarks.split_inputs_gz(row), mimetype="application/gzip",
        headers={"Content-Disposition": f'attachment; filename="{filename}"',
                 "Cache-Control": "public, max-age=3600",
                 "ETag": f'"{row.checksum}"'})
