"""api blueprint: the OpenAPI description and the human API page with curl examples."""

from __future__ import annotations

from typing import Any

from flask import current_app, jsonify, render_template, request

from leaderboard.blueprints.api import bp

ERROR = {"$ref": "#/components/schemas/Error"}
STATUSES = ["queued", "running", "scored", "invalid", "failed"]


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ERROR}}}


def _upload_body() -> dict[str, Any]:
    return {"required": True, "content": {"multipart/form-data": {"schema": {
        "type": "object", "required": ["file", "name"],
        "properties": {
            "file": {"type": "string", "format": "binary",
                     "description": "The result file, .json or .json.gz"},
            "name": {"type": "string", "maxLength": 120, "description": "System name"},
            "description": {"type": "string", "maxLength": 5000},
            "url": {"type": "string", "description": "Paper URL (http/https)"},
            "code_url": {"type": "string", "description": "Code URL (http/https)"},
            "public": {"type": "string", "enum": ["true", "false"],
                       "description": "Show on the public ranking once scored"},
        }}}}}


def openapi_spec(base_url: str) -> dict[str, Any]:
    """The OpenAPI 3.1 description of /api/v1."""
    auth_errors = {"401": _error("Missing, invalid or revoked token"),
                   "429": _error("Rate limit (Retry-After header says when to retry)")}
    ref = {"$ref": "#/components/schemas/Accepted"}
    return {
        "openapi": "3.1.0",
        "info": {"title": "SWORDS leaderboard API", "version": "1",
                 "description": "Upload lexical-substitution results for scoring on the hidden "
                                "SWORDS test split and read the public ranking."},
        "servers": [{"url": base_url}],
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {
                "Error": {"type": "object", "properties": {"error": {"type": "object",
                          "required": ["status", "code", "message"], "properties": {
                              "status": {"type": "integer"}, "code": {"type": "string"},
                              "message": {"type": "string"},
                              "retry_after": {"type": "integer"},
                              "resets_at": {"type": ["string", "null"]}}}}},
                "Accepted": {"type": "object", "required": ["id", "status", "status_url"],
                             "properties": {"id": {"type": "integer"},
                                            "status": {"type": "string", "enum": STATUSES},
                                            "status_url": {"type": "string"},
                                            "duplicate": {"type": "boolean"}}},
                "Submission": {"type": "object", "properties": {
                    "id": {"type": "integer"}, "status": {"type": "string", "enum": STATUSES},
                    "progress": {"type": "string"}, "errors": {"type": "array"},
                    "warnings": {"type": "array"}, "failure_reason": {"type": "string"},
                    "file_sha256": {"type": "string"},
                    "result": {"type": ["object", "null"], "description":
                               "metrics, intervals, by_pos, counts and the signature "
                               "(scorer_version, split_checksum, seed, bootstrap)"}}},
                "Report": {"type": "object", "properties": {
                    "ok": {"type": "boolean"}, "errors": {"type": "array"},
                    "errors_not_shown": {"type": "integer"}, "warnings": {"type": "array"},
                    "counts": {"type": "object"}}},
            }},
        "security": [{"bearer": []}],
        "paths": {
            "/submissions": {
                "post": {"summary": "Upload a result file", "requestBody": _upload_body(),
                         "parameters": [{"name": "Idempotency-Key", "in": "header",
                                         "schema": {"type": "string", "maxLength": 200},
                                         "description": "Retries with the same key never "
                                                        "create a second submission"}],
                         "responses": {
                             "202": {"description": "Accepted (or the earlier submission with "
                                                    "identical bytes)",
                                     "content": {"application/json": {"schema": ref}}},
                             "400": _error("Missing file or name, bad field"),
                             "409": _error("Idempotency-Key reused with a different file"),
                             "413": _error("File too large"),
                             "429": _error("Quota or rate limit; resets_at and Retry-After "
                                           "say when it resets"),
                             "401": auth_errors["401"]}},
                "get": {"summary": "The team's submissions, newest first",
                        "parameters": [{"name": "status", "in": "query",
                                        "schema": {"type": "string", "enum": STATUSES}}],
                        "responses": {"200": {"description": "List"}, **auth_errors}}},
            "/submissions/{id}": {"get": {
                "summary": "Status, problems and results of one of the team's submissions",
                "parameters": [{"name": "id", "in": "path", "required": True,
                                "schema": {"type": "integer"}}],
                "responses": {"200": {"description": "The submission", "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/Submission"}}}},
                    "403": _error("Another team's submission"), "404": _error("No such id"),
                    **auth_errors}}},
            "/validate": {"post": {
                "summary": "Dry run: the full validation report; nothing stored, no quota",
                "requestBody": _upload_body(),
                "responses": {"200": {"description": "Report", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Report"}}}},
                    "413": _error("File too large"), **auth_errors}}},
            "/leaderboard": {"get": {
                "summary": "The public ranking (no token needed)", "security": [],
                "parameters": [{"name": n, "in": "query", "schema": {"type": "string"}}
                               for n in ("view", "pos", "sort", "dir")] + [
                    {"name": "entries", "in": "query",
                     "schema": {"type": "string", "enum": ["best", "all"]},
                     "description": "best (default): each team's best system on the view's "
                                    "headline; all: every public submission"},
                    {"name": "q", "in": "query", "schema": {"type": "string", "maxLength": 100},
                     "description": "Keep rows whose system or team name contains this"}],
                "responses": {"200": {"description": (
                    "rows (ranked systems), references, and reported: rows copied from a "
                    "publication (row_type reported; name, citation, url, source, benchmark "
                    "{name, version, split} they were computed on; no rank, no intervals, "
                    "value null where not printed)")},
                              "400": _error("Unknown view/pos/sort/entries value")}}},
            "/compare": {"get": {
                "summary": "Head to head of two public systems on every metric (no token)",
                "security": [],
                "parameters": [{"name": "a", "in": "query", "required": True,
                                "schema": {"type": "integer"}},
                               {"name": "b", "in": "query", "required": True,
                                "schema": {"type": "integer"}},
                               {"name": "pos", "in": "query", "schema": {"type": "string"}}],
                "responses": {"200": {"description": "{a, b, pos, summary, metrics: {KEY: {a, "
                                                     "b, diff, diff_interval, p_beats, "
                                                     "p_value, significant}}}; p = 2 min(P, "
                                                     "1 - P), significant when p < 0.05"},
                              "400": _error("a or b not a whole number, unknown pos"),
                              "404": _error("No such public system"),
                              "409": _error("Not scored on the same resamples")}}},
            "/significance": {"get": {
                "summary": "P(row beats column) among the top N on a metric (no token)",
                "security": [],
                "parameters": [{"name": "metric", "in": "query", "schema": {"type": "string"}},
                               {"name": "top", "in": "query",
                                "schema": {"type": "integer", "minimum": 2, "maximum": 30}}],
                "responses": {"200": {"description": "systems (best first, with compact "
                                                     "letters), p_beats, p_value, significant"},
                              "400": _error("Unknown metric, top out of range")}}},
        },
    }


@bp.get("/openapi.json")
def openapi():
    """The OpenAPI description."""
    return jsonify(openapi_spec(request.url_root.rstrip("/") + "/api/v1"))


@bp.get("/docs")
def docs():
    """How to use the API, with copy-paste curl examples."""
    settings = current_app.config["LEADERBOARD"]
    return render_template("submissions/api_docs.html", base=request.url_root.rstrip("/"),
                           settings=settings)
