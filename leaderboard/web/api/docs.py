"""api blueprint: the OpenAPI description and the human API page with curl examples."""

from __future__ import annotations

from typing import Any

from flask import current_app, jsonify, render_template, request

from leaderboard.web.api.blueprint import bp

ERROR = {"$ref": "#/components/schemas/Error"}
STATUSES = ["queued", "running", "scored", "invalid", "failed"]
LABELS = ["acceptable", "conceivable", "not_conceivable", "not_in_gold"]

#: The ``view`` query parameter of the rankings, per track.
VIEW_HELP = ("Generative leaderboards: strict-a (default), strict-c, lenient-a, lenient-c, all. "
             "Ranking-track leaderboards: ranking only (GAP, GAP ratio, P@1; headline GAP). A "
             "view of the other track answers 400.")


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ERROR}}}


#: The editable metadata of a system (PATCH /systems/{slug}; also upload fields).
SYSTEM_FIELDS: dict[str, Any] = {
    "description": {"type": "string", "maxLength": 5000},
    "paper_url": {"type": "string", "maxLength": 500, "format": "uri"},
    "code_url": {"type": "string", "maxLength": 500, "format": "uri"},
    "base_model": {"type": "string", "maxLength": 200},
    "extra_resources": {"type": "string", "maxLength": 1000},
    "parameter_count": {"type": ["integer", "null"], "minimum": 0},
    "external_llm_api": {"type": ["boolean", "null"]},
    "open_weights": {"type": ["boolean", "null"]},
    "anonymous": {"type": "boolean", "description":
                  "Double-blind review: the public sees the system as 'Anonymous <tag>' "
                  "(a stable 4-character tag), without its team, paper and code links or "
                  "description, and its uploads by no integer id; false reveals it at the "
                  "same permalink. An upload can set it, never clear it"},
    "reveal_on": {"type": ["string", "null"], "format": "date", "description":
                  "YYYY-MM-DD (UTC): the day an anonymous system is revealed by itself; "
                  "empty or null: when the team sets anonymous to false"}}


def _upload_body() -> dict[str, Any]:
    return {"required": True, "content": {"multipart/form-data": {"schema": {
        "type": "object", "required": ["file", "system"],
        "properties": {
            "file": {"type": "string", "format": "binary",
                     "description": "The result file: JSON, or the benchmark's own text "
                                    "format (.best/.oot, RANKED), plain or gzipped"},
            "system": {"type": "string", "maxLength": 120, "description":
                       "Name of one of the team's systems, made when new (older clients: "
                       "system_name or name)"},
            **{key: {**value, "description": "Set on the system when not empty"}
               for key, value in SYSTEM_FIELDS.items()},
            "public": {"type": "string", "enum": ["true", "false"],
                       "description": "Show on the public ranking once scored"},
            "leaderboard": {"type": "string", "description": "Slug of the leaderboard (see "
                            "GET /leaderboards); default: the default leaderboard"},
        }}}}}


def _ranking_query() -> list[dict[str, Any]]:
    return [{"name": n, "in": "query", "schema": {"type": "string"},
             **({"description": VIEW_HELP} if n == "view" else {})}
            for n in ("view", "pos", "sort", "dir")] + [
        {"name": "entries", "in": "query", "schema": {"type": "string", "enum": ["best", "all"]},
         "description": "best (default): each team's best system on the view's headline; "
                        "all: every public submission"},
        {"name": "q", "in": "query", "schema": {"type": "string", "maxLength": 100},
         "description": "Keep rows whose system or team name contains this"},
        {"name": "page", "in": "query", "schema": {"type": "integer", "minimum": 1},
         "description": "Page of rows (default 1); the answer gives total_rows and pages"},
        {"name": "per_page", "in": "query",
         "schema": {"type": "integer", "minimum": 1, "maximum": 1000},
         "description": "Rows a page (default 100)"}]


LEADERBOARD = {"type": "object", "properties": {
    "slug": {"type": "string"},
    "benchmark": {"type": "object", "properties": {
        "name": {"type": "string"}, "version": {"type": "string"}, "split": {"type": "string"}}},
    "track": {"type": "string", "enum": ["generative", "ranking"]},
    "phase": {"type": "string", "enum": ["test", "dev"]},
    "labels": {"type": "string", "enum": ["hidden", "public"]},
    "default": {"type": "boolean"}, "title": {"type": "string"},
    "n_targets": {"type": "integer"}, "ranking_url": {"type": "string"},
    "page_url": {"type": "string"},
    "citation": {"type": "object", "description": "What to cite for the board", "properties": {
        "benchmark": {"type": "string"}, "title": {"type": "string"},
        "bibtex": {"type": "array", "items": {"type": "string"},
                   "description": "The benchmark's BibTeX entries"},
        "leaderboard": {"type": "string", "description": "This leaderboard's BibTeX, from "
                                                         "CITATION.cff"}}}}}


def _targets_schemas() -> dict[str, Any]:
    num = {"type": ["number", "null"]}
    listed = {"type": "object", "properties": {
        "rank": {"type": "integer"}, "substitute": {"type": "string", "description":
                                                    "the lemma as scored"},
        "submitted": {"type": "string", "description": "the submitted string it came from"},
        "label": {"type": "string", "enum": LABELS}, "score": {**num, "description":
                                                               "gold score (null: not in gold)"},
        "votes": {"type": ["integer", "null"]}}}
    missed = {"type": "object", "properties": {
        "substitute": {"type": "string"}, "score": {"type": "number"},
        "votes": {"type": "integer"}, "rank": {"type": ["integer", "null"], "description":
                                               "rank further down the list, null if absent"}}}
    target = {"type": "object", "properties": {
        "target_id": {"type": "string"}, "lemma": {"type": "string"}, "pos": {"type": "string"},
        "answered": {"type": "boolean"}, "list_length": {"type": "integer"},
        "top": {"type": "array", "items": listed, "description": "the system's top 10"},
        "missed": {"type": "array", "items": missed,
                   "description": "acceptable gold substitutes outside the top 10"},
        "n_acceptable": {"type": "integer"}, "n_conceivable": {"type": "integer"},
        "hits": {"type": "integer"}, "n_top": {"type": "integer"},
        "gold_a_k": {"type": "integer"}, "precision": {"type": "number"},
        "recall": {"type": "number"}, "f": {"type": "number", "description":
                                            "strict acceptable F at 10 on this target, percent"},
        "f_defined": {"type": "boolean"}, "gap": num, "gap_rat": num}}
    return {"TargetDiagnostics": target, "Targets": {"type": "object", "properties": {
        "submission_id": {"type": "integer"}, "leaderboard": {"type": "string"},
        "track": {"type": "string"}, "scorer_version": {"type": "string"},
        "sort": {"type": "string"}, "dir": {"type": "string"}, "pos": {"type": ["string", "null"]},
        "limit": {"type": ["integer", "null"]}, "targets_scored": {"type": "integer"},
        "targets_matching": {"type": "integer"},
        "pos_values": {"type": "array", "items": {"type": "string"}},
        "targets": {"type": "array",
                    "items": {"$ref": "#/components/schemas/TargetDiagnostics"}}}}}


def _targets_path(auth_errors: dict[str, Any]) -> dict[str, Any]:
    return {
        "summary": "Per-target diagnostics of one of the team's dev-phase submissions",
        "description": "Only for leaderboards whose labels are public (dev phase): per "
                       "target, the system's top 10 with gold scores and labels, the "
                       "acceptable substitutes missed, F^10 and GAP on that target. Worst "
                       "targets first unless dir=desc; undefined values last.",
        "parameters": [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}},
            {"name": "sort", "in": "query",
             "schema": {"type": "string", "enum": ["f", "gap", "gap_rat"], "default": "f"}},
            {"name": "dir", "in": "query", "schema": {"type": "string", "enum": ["asc", "desc"],
                                                      "default": "asc"},
             "description": "asc: worst first; desc: best first"},
            {"name": "pos", "in": "query", "schema": {
                "type": "string", "enum": ["ALL", "NOUN", "VERB", "ADJ", "ADV"]}},
            {"name": "limit", "in": "query", "schema": {"type": "string"},
             "description": "a positive whole number, or all (default)"}],
        "responses": {
            "200": {"description": "Diagnostics", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Targets"}}}},
            "400": _error("Unknown sort, dir, pos or limit"),
            "404": _error("No such submission of the team, or its leaderboard's labels are "
                          "hidden (test phase)"),
            "409": _error("Not scored yet"), **auth_errors}}


def _component_schemas() -> dict[str, Any]:
    """The schemas the paths refer to: errors, submissions, diagnostics, reports."""
    return {
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
                                    "leaderboard": {"type": "string"},
                                    "is_public": {"type": "boolean"},
                                    "system": {"type": "object", "description":
                                               "{id, name}: the system it joined"},
                                    "duplicate": {"type": "boolean"}}},
        "Submission": {"type": "object", "properties": {
            "id": {"type": "integer"}, "leaderboard": {"type": "string"},
            "track": {"type": "string", "enum": ["generative", "ranking"]},
            "status": {"type": "string", "enum": STATUSES},
            "progress": {"type": "string"}, "errors": {"type": "array"},
            "warnings": {"type": "array"}, "failure_reason": {"type": "string"},
            "file_sha256": {"type": "string"}, "withdrawn": {"type": "boolean"},
            "system": {"type": "object", "description": "id, name and every metadata field"},
            "targets_url": {"type": "string", "description": "Only when scored on a "
                            "dev-phase leaderboard: its per-target diagnostics"},
            "result": {"type": ["object", "null"], "description":
                       "metrics, intervals, by_pos, counts and the signature "
                       "(scorer_version, split_checksum, seed, bootstrap)"}}},
        **_targets_schemas(),
        "Report": {"type": "object", "properties": {
            "ok": {"type": "boolean"}, "errors": {"type": "array"},
            "errors_not_shown": {"type": "integer"}, "warnings": {"type": "array"},
            "counts": {"type": "object"}}},
    }


def _submission_paths(auth_errors: dict[str, Any]) -> dict[str, Any]:
    """Upload, list and read the team's own submissions."""
    ref = {"$ref": "#/components/schemas/Accepted"}
    return {
        "/submissions": {
            "post": {"summary": "Upload a result file", "requestBody": _upload_body(),
                     "parameters": [{"name": "Idempotency-Key", "in": "header",
                                     "schema": {"type": "string", "maxLength": 200},
                                     "description": "Retries with the same key never "
                                                    "create a second submission; a key "
                                                    "names one upload to one leaderboard"}],
                     "responses": {
                         "202": {"description": "Accepted (or the earlier submission with "
                                                "identical bytes)",
                                 "content": {"application/json": {"schema": ref}}},
                         "400": _error("Missing file or name, bad field"),
                         "404": _error("Unknown leaderboard slug"),
                         "409": _error("Idempotency-Key reused with a different file or "
                                       "for another leaderboard"),
                         "413": _error("File too large"),
                         "429": _error("Quota or rate limit; resets_at and Retry-After "
                                       "say when it resets"),
                         "401": auth_errors["401"]}},
            "get": {"summary": "The team's submissions, newest first",
                    "parameters": [{"name": "status", "in": "query",
                                    "schema": {"type": "string", "enum": STATUSES}}],
                    "responses": {"200": {"description": "List"}, **auth_errors}}},
        "/submissions/{id}": {"delete": {
            "summary": "Withdraw: off every public page for good; the hosts keep it",
            "parameters": [{"name": "id", "in": "path", "required": True,
                            "schema": {"type": "integer"}}],
            "responses": {"200": {"description": "{id, is_public: false, withdrawn: true}"},
                          "404": _error("No such id, or another team's submission"),
                          **auth_errors}}, "get": {
            "summary": "Status, problems and results of one of the team's submissions",
            "parameters": [{"name": "id", "in": "path", "required": True,
                            "schema": {"type": "integer"}}],
            "responses": {"200": {"description": "The submission", "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/Submission"}}}},
                "404": _error("No such id, or another team's submission (the same "
                              "answer, so ids cannot be enumerated)"),
                **auth_errors}}},
        "/submissions/{id}/targets": {"get": _targets_path(auth_errors)},
    }


def _system_paths(auth_errors: dict[str, Any]) -> dict[str, Any]:
    """A team's system metadata, and its submissions' visibility."""
    sub_id = [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}]
    visible = {"200": {"description": "{id, is_public, withdrawn}"},
               "404": _error("No such id, or another team's submission"), **auth_errors}

    def visibility(summary: str, **extra: Any) -> dict[str, Any]:
        return {"summary": summary, "parameters": sub_id, "responses": {**visible, **extra}}

    return {
        "/systems/{slug}": {"get": {
            "summary": "One system across boards, as its public page shows it: rank, headline "
                       "and interval, neighbours' verdicts and result permalink on each board, "
                       "metadata, history (an anonymous system masked alike); no token needed",
            "security": [],
            "parameters": [{"name": "slug", "in": "path", "required": True, "schema": {
                "type": "string"}, "description": "The system's public id (10 characters)"}],
            "responses": {"200": {"description": "id, name, anonymous, team (null while "
                                                 "anonymous), metadata, results, public_since, "
                                                 "named_since, history"},
                          "404": _error("No such system, or none of its results is public")}},
                            "patch": {
            "summary": "Edit a system's metadata; every change is kept and shown on "
                       "/systems/{slug}",
            "parameters": [{"name": "slug", "in": "path", "required": True, "schema": {
                "type": "string"}, "description": "The system's public id (10 characters)"}],
            "requestBody": {"required": True, "content": {"application/json": {"schema": {
                "type": "object", "additionalProperties": False,
                "properties": SYSTEM_FIELDS}}}},
            "responses": {"200": {"description": "The system (id, name, every field, "
                                                 "anonymous, public_name: what the public "
                                                 "sees it as, reveal_on) and changed: the "
                                                 "fields this edit changed"},
                          "400": _error("bad_url (not http(s) with a host and no spaces), "
                                        "bad_field, unknown_field, field_too_long"),
                          "404": _error("No such system, or another team's"),
                          **auth_errors}}},
        "/submissions/{id}/publish": {"post": visibility(
            "Show on the public ranking once scored",
            **{"409": _error("withdrawn: a withdrawn submission stays private")})},
        "/submissions/{id}/unpublish": {"post": visibility("Take off the public ranking")},
        "/authorship-secret": {"post": {
            "summary": "Make the team a new authorship secret, shown on this answer only "
                       "(the site keeps its hash); it replaces the previous one",
            "responses": {"201": {"description": "{team_id, secret, replaced}: with the "
                                                 "team id, the secret proves the team's "
                                                 "result certificates (leaderboard verify "
                                                 "--team-id --secret)"},
                          **auth_errors}}},
    }


def _validate_paths(auth_errors: dict[str, Any]) -> dict[str, Any]:
    """The dry run and the poll for its report."""
    return {
        "/validate": {"post": {
            "summary": "Dry run: the full validation report (checked by a worker); "
                       "nothing stored, no quota",
            "requestBody": _upload_body(),
            "responses": {"200": {"description": "Report", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Report"}}}},
                "202": {"description": "Still being checked after CHECK_WAIT_SECONDS: "
                                       "{status: checking, check_id, check_url}; poll "
                                       "check_url (Retry-After)"},
                "413": _error("File too large"),
                "422": _error("The check went past a hard limit (time_limit, "
                              "memory_limit)"),
                "503": _error("busy: too many checks wait; retry after Retry-After"),
                **auth_errors}}},
        "/validate/{check_id}": {"get": {
            "summary": "A dry run's report once ready (202 while it is checked)",
            "parameters": [{"name": "check_id", "in": "path", "required": True,
                            "schema": {"type": "string"}}],
            "responses": {"200": {"description": "Report", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Report"}}}},
                "202": {"description": "Still being checked"},
                "404": _error("Unknown, expired (10 minutes) or another team's check"),
                **auth_errors}}},
    }


def _ranking_paths() -> dict[str, Any]:
    """The public list of leaderboards and their rankings (no token)."""
    return {
        "/leaderboards": {"get": {
            "summary": "Every leaderboard (benchmark split × track × phase; no token)",
            "security": [],
            "responses": {"200": {"description": "{leaderboards: [...]}, the default first",
                                  "content": {"application/json": {"schema": {
                                      "type": "object", "properties": {"leaderboards": {
                                          "type": "array", "items": LEADERBOARD}}}}}}}}},
        "/leaderboards/{slug}/ranking": {"get": {
            "summary": "One leaderboard's public ranking (no token)", "security": [],
            "parameters": [{"name": "slug", "in": "path", "required": True,
                            "schema": {"type": "string"}}, *_ranking_query()],
            "responses": {"200": {"description": "Ranking rows and reference rows"},
                          "400": _error("Unknown view/pos/sort/entries value"),
                          "404": _error("No such leaderboard")}}},
        "/leaderboard": {"get": {
            "summary": "The default leaderboard's public ranking, or ?leaderboard=SLUG's "
                       "(no token needed; an unknown slug is 404)",
            "security": [], "parameters": _ranking_query(),
            "responses": {"200": {"description": (
                "rows (ranked systems), references, and reported: rows copied from a "
                "publication (row_type reported; name, citation, url, source, benchmark "
                "{name, version, split} they were computed on; no rank, no intervals, "
                "value null where not printed). A system row's flags: duplicate_answers "
                "(with items_with_duplicates) where an LS07/CoInCo file's repeated answers "
                "change a printed figure; on the views they inflate (oot, GAP) such a row "
                "comes after the ranked ones, rank null, set_apart saying why and giving "
                "the figure without the repeats")},
                          "400": _error("Unknown view/pos/sort/entries value")}}},
        "/results/{public_id}": {"get": {
            "summary": "A result's frozen record, as its permalink /results/{public_id} shows "
                       "it (no token)", "security": [],
            "parameters": [{"name": "public_id", "in": "path", "required": True,
                            "schema": {"type": "string"}}],
            "responses": {"200": {"description": (
                "public_id, system, team, board {slug, title}, benchmark {name, version, "
                "split, title}, metrics and intervals (percent), headlines, scorer_version, "
                "split_checksum, bootstrap {seed, samples}, file_sha256, scored_at, "
                "superseded_by (the record of its re-score, or null), permalink, bibtex, "
                "model_index (Hugging Face model-card YAML) and citation")},
                          "404": _error("No such result, or it is not public")}}},
        "/results/{public_id}/certificate": {"get": {
            "summary": "A result's certificate, signed with the site's Ed25519 key (no "
                       "token); it names no team or system", "security": [],
            "parameters": [{"name": "public_id", "in": "path", "required": True,
                            "schema": {"type": "string"}}],
            "responses": {"200": {"description": (
                "certificate (format), result, permalink, board {slug, title}, benchmark "
                "{name, version, split}, split_checksum, scorer_version, file_sha256, "
                "metrics, intervals, bootstrap {seed, samples}, scored_at, "
                "identity_commitment (or null), key_id, signature (base64 Ed25519 over the "
                "canonical JSON of the other fields); check it with `leaderboard verify` "
                "against /.well-known/leaderboard-signing-key.pem")},
                          "404": _error("No such result, or it is not public")}}},
    }


def _comparison_paths() -> dict[str, Any]:
    """Head to head and significance among public systems (no token)."""
    return {
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
                            "schema": {"type": "integer", "minimum": 2, "maximum": 30}},
                           {"name": "leaderboard", "in": "query",
                            "schema": {"type": "string"},
                            "description": "Slug; default: the default leaderboard"}],
            "responses": {"200": {"description": "systems (best first, with compact "
                                                 "letters), p_beats, p_value, significant"},
                          "400": _error("Unknown metric, top out of range")}}},
    }


def openapi_spec(base_url: str) -> dict[str, Any]:
    """The OpenAPI 3.1 description of /api/v1."""
    auth_errors = {"401": _error("Missing, invalid or revoked token"),
                   "429": _error("Rate limit (Retry-After header says when to retry)")}
    return {
        "openapi": "3.1.0",
        "info": {"title": "SWORDS leaderboard API", "version": "1",
                 "description": "Upload lexical-substitution results for scoring on the hidden "
                                "SWORDS test split and read the public ranking."},
        "servers": [{"url": base_url}],
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": _component_schemas()},
        "security": [{"bearer": []}],
        "paths": {**_submission_paths(auth_errors), **_system_paths(auth_errors),
                  **_validate_paths(auth_errors),
                  **_ranking_paths(), **_comparison_paths()},
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
