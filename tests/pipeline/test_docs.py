"""The OpenAPI description, the human API page and the public leaderboard JSON."""

from __future__ import annotations

import re

from tests.demo import demo_bytes


def test_openapi_describes_every_endpoint(app, client):
    spec = client.get("/api/v1/openapi.json").get_json()
    assert spec["openapi"] == "3.1.0"
    assert spec["servers"] == [{"url": "http://localhost/api/v1"}]
    # Every route under /api/v1 but the description itself, with its methods.
    routes = {}
    for rule in app.url_map.iter_rules():
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule.removeprefix("/api/v1"))
        if rule.rule.startswith("/api/v1/") and path not in ("/openapi.json", "/docs"):
            routes.setdefault(path, set()).update(m.lower() for m in rule.methods
                                                  if m not in ("HEAD", "OPTIONS"))
    described = {path: set(ops) for path, ops in spec["paths"].items()}
    assert described == {re.sub(r"\{submission_id\}", "{id}", p): m for p, m in routes.items()}
    assert {"/leaderboards", "/leaderboards/{slug}/ranking", "/submissions/{id}/targets"} <= set(
        described)
    names = [p["name"] for p in spec["paths"]["/leaderboard"]["get"]["parameters"]]
    assert "entries" in names and "q" in names
    post = spec["paths"]["/submissions"]["post"]
    assert set(post["responses"]) == {"202", "400", "401", "404", "409", "413", "429"}
    fields = post["requestBody"]["content"]["multipart/form-data"]["schema"]["properties"]
    assert "leaderboard" in fields


def test_openapi_and_api_page_document_the_diagnostics_route(client):
    spec = client.get("/api/v1/openapi.json").get_json()
    route = spec["paths"]["/submissions/{id}/targets"]["get"]
    assert [p["name"] for p in route["parameters"]] == ["id", "sort", "dir", "pos", "limit"]
    assert set(route["responses"]) == {"200", "400", "401", "404", "409", "429"}
    assert "hidden" in route["responses"]["404"]["description"]
    fields = spec["components"]["schemas"]["TargetDiagnostics"]["properties"]
    assert {"top", "missed", "f", "gap", "gap_rat"} <= set(fields)
    page = client.get("/api/v1/docs").get_data(as_text=True)
    assert "Dev phase: per-target diagnostics" in page
    assert "/api/v1/submissions/17/targets?sort=gap&amp;dir=asc&amp;pos=NOUN" in page


def test_api_page_has_copy_paste_curl_examples(client):
    page = client.get("/api/v1/docs").get_data(as_text=True)
    assert "curl -sS -H &#34;Authorization: Bearer $TOKEN&#34;" in page or \
        'curl -sS -H "Authorization: Bearer $TOKEN"' in page
    assert "http://localhost/api/v1/submissions" in page
    assert "leaderboard submit result.json.gz --url http://localhost" in page
    assert "--public --wait" in page and "/api/v1/compare?a=" in page


def test_leaderboard_json_without_a_token(client, benchmark):
    response = client.get("/api/v1/leaderboard")
    assert response.status_code == 200
    body = response.get_json()
    assert body["rows"] == [] and body["benchmark"]["checksum"] == benchmark.checksum
    bad = client.get("/api/v1/leaderboard?pos=XYZ")
    assert bad.status_code == 400
    assert bad.get_json()["error"]["code"] == "bad_query"


def test_favicon_is_served(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response.mimetype == "image/vnd.microsoft.icon"
    assert response.data[:4] == b"\x00\x00\x01\x00"  # ICO header: reserved 0, type 1


def test_leaderboard_json_before_any_benchmark_is_404(client):
    response = client.get("/api/v1/leaderboard")
    assert response.status_code == 404
    assert response.get_json() == {"error": {"status": 404, "code": "no_benchmark",
                                             "message": "no benchmark split is loaded yet"}}


def test_scored_public_submission_appears_in_the_leaderboard_json(app, client, benchmark,
                                                                  team_token):
    import io

    from leaderboard.worker import jobs

    _team, _user, token = team_token
    response = client.post("/api/v1/submissions", headers={"Authorization": f"Bearer {token}"},
                           data={"name": "public system", "public": "true",
                                 "file": (io.BytesIO(demo_bytes()), "r.json")})
    jobs.configure(settings=app.config["LEADERBOARD"], engine=app.extensions["db_engine"])
    assert jobs.score_submission_job(response.get_json()["id"]) == "scored"
    rows = client.get("/api/v1/leaderboard").get_json()["rows"]
    assert [r["system"] for r in rows] == ["public system"]


def test_about_curl_example_uses_the_api_field_names(client, benchmark, team_token):
    import io
    import re

    page = client.get("/about").get_data(as_text=True)
    assert "inputs.json.gz" in page
    example = re.search(r"<pre>(curl -H .*?)</pre>", page, re.S).group(1)
    fields = dict(re.findall(r'-F (\w+)=("[^"]*"|\S+)', example))
    assert set(fields) == {"file", "system", "public"}
    _team, _user, token = team_token
    response = client.post("/api/v1/submissions", headers={"Authorization": f"Bearer {token}"},
                           data={"system": fields["system"].strip('"'),
                                 "public": fields["public"],
                                 "file": (io.BytesIO(demo_bytes()), "result.json")})
    assert response.status_code == 202, response.get_json()
    row = client.get(response.get_json()["status_url"],
                     headers={"Authorization": f"Bearer {token}"}).get_json()
    assert row["system_name"] == row["system"]["name"] == "My system"
    assert client.get(response.get_json()["status_url"],
                      headers={"Authorization": f"Bearer {token}"}).get_json()["is_public"]
