"""The strict Content-Security-Policy in a real browser: every page renders, charts draw, and
chromium reports no CSP violation (no inline script or style, no eval)."""

from __future__ import annotations

import shutil
import threading

import pytest
from sqlmodel import Session
from werkzeug.serving import make_server

from leaderboard import create_app
from leaderboard.db import create_all
from tests.factories import DEFAULT_PASSWORD, make_team
from tests.site.seed import seed_demo

CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]
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
    if sync_playwright is None:
        pytest.skip("playwright is not installed")
    if not shutil.which(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")
    tmp = tmp_path_factory.mktemp("csp")
    app = create_app({"INSTANCE_PATH": str(tmp / "instance"),
                      "DATABASE_URL": f"sqlite:///{tmp / 'site.db'}", "REDIS_URL": "",
                      "SECRET_KEY": "csp-test-secret", "RATELIMIT_ENABLED": False,
                      "LOG_REQUESTS": False})
    engine = app.extensions["db_engine"]
    create_all(engine)
    with app.app_context(), Session(engine, expire_on_commit=False) as session:
        seeded = seed_demo(session)
        make_team(session, name="Hosts", email="host@example.org", is_admin=True)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", seeded
    server.shutdown()
    thread.join(timeout=10)
    engine.dispose()


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

