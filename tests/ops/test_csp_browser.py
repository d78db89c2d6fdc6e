"""The strict Content-Security-Policy in a real browser: every page renders, charts draw, and
chromium reports no CSP violation (no inline script or style, no eval)."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from tests.factories import DEFAULT_PASSWORD, make_team
from tests.live_site import CHROMIUM, LAUNCH_ARGS, require_browser, seeded_app, serving

# Records violations from inside the page: the event fires for every blocked resource,
# inline script, inline style attribute and eval.
RECORDER = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', e => window.__csp.push(
  e.violatedDirective + ' ' + (e.blockedURI || '') + ' ' + (e.sourceFile || '') + ':'
  + e.lineNumber));
"""

pytestmark = pytest.mark.browser

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    require_browser()
    app, seeded = seeded_app(tmp_path_factory.mktemp("csp"), SECRET_KEY="csp-test-secret",
                             LOG_REQUESTS=False)
    with app.app_context(), Session(app.extensions["db_engine"]) as session:
        make_team(session, name="Hosts", email="host@example.org", is_admin=True)
    with serving(app) as url:
        yield url, seeded


@pytest.fixture(scope="module")
def page(site):
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=LAUNCH_ARGS)
        context = browser.new_context()
        context.add_init_script(RECORDER)
        page = context.new_page()
        console: list[str] = []
        page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
        page.console_errors = console
        yield page
        browser.close()


def _visit(page, url: str) -> list[str]:
    page.console_errors.clear()
    response = page.goto(url, wait_until="networkidle")
    assert response.status == 200, url
    violations = page.evaluate("window.__csp")
    return violations + [m for m in page.console_errors if "Content Security Policy" in m]


def test_public_pages_have_no_csp_violation(site, page):
    base, seeded = site
    system_id = next(iter(seeded.public.values()))
    for path in ("/", "/matrix", "/about", "/account/login", f"/systems/{system_id}"):
        assert _visit(page, base + path) == [], path


def test_plotly_charts_draw_under_the_strict_csp(site, page):
    base, _seeded = site
    assert _visit(page, base + "/charts") == []
    page.wait_for_selector(".chart .main-svg", timeout=20000)
    assert page.locator(".chart .main-svg").count() >= 1


def test_admin_pages_have_no_csp_violation(site, page):
    base, _seeded = site
    page.goto(base + "/account/login")
    page.fill("input[name=email]", "host@example.org")
    page.fill("input[name=password]", DEFAULT_PASSWORD)
    page.click("form.account-form button[type=submit]")
    page.wait_for_load_state("networkidle")
    for path in ("/admin/", "/admin/submissions", "/admin/teams"):
        assert _visit(page, base + path) == [], path

