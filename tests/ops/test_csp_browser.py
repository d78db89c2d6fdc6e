"""The strict Content-Security-Policy in a real browser: every page renders, charts draw, and
chromium reports no CSP violation (no inline script or style, no eval)."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from tests.factories import DEFAULT_PASSWORD, make_team
from tests.live_site import live_site

# Records violations from inside the page: the event fires for every blocked resource,
# inline script, inline style attribute and eval.
RECORDER = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', e => window.__csp.push(
  e.violatedDirective + ' ' + (e.blockedURI || '') + ' ' + (e.sourceFile || '') + ':'
  + e.lineNumber));
"""

pytestmark = pytest.mark.browser


def _add_host(app, _seeded) -> None:
    with app.app_context(), Session(app.extensions["db_engine"]) as session:
        make_team(session, name="Hosts", email="host@example.org", is_admin=True)


@pytest.fixture(scope="module")
def live(tmp_path_factory, chromium):
    with live_site(chromium, tmp_path_factory.mktemp("csp"), prepare=_add_host,
                   SECRET_KEY="csp-test-secret", LOG_REQUESTS=False) as live:
        yield live


@pytest.fixture(scope="module")
def page(live):
    context = live.browser.new_context()
    context.add_init_script(RECORDER)
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    page.console_errors = console
    yield page
    context.close()


def _visit(page, url: str) -> list[str]:
    page.console_errors.clear()
    response = page.goto(url, wait_until="networkidle")
    assert response.status == 200, url
    violations = page.evaluate("window.__csp")
    return violations + [m for m in page.console_errors if "Content Security Policy" in m]


def test_public_pages_have_no_csp_violation(live, page):
    base, seeded = live.url, live.seeded
    system_id = next(iter(seeded.public.values()))
    for path in ("/", "/matrix", "/about", "/account/login", f"/systems/{system_id}"):
        assert _visit(page, base + path) == [], path


def test_plotly_charts_draw_under_the_strict_csp(live, page):
    base = live.url
    assert _visit(page, base + "/charts") == []
    page.wait_for_selector(".chart .main-svg", timeout=20000)
    assert page.locator(".chart .main-svg").count() >= 1


def test_admin_pages_have_no_csp_violation(live, page):
    base = live.url
    page.goto(base + "/account/login")
    page.fill("input[name=email]", "host@example.org")
    page.fill("input[name=password]", DEFAULT_PASSWORD)
    page.click("form.account-form button[type=submit]")
    page.wait_for_load_state("networkidle")
    for path in ("/admin/", "/admin/submissions", "/admin/teams"):
        assert _visit(page, base + path) == [], path

