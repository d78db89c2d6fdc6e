"""The system selectors of the system and compare pages (``render.options_html``): the same
HTML the Jinja loops wrote, names escaped, the page's own system left out, the chosen one
selected."""

from __future__ import annotations

import re

import jinja2

from leaderboard.web.public.render import options_html

CHOICES = [{"id": 3, "label": "Alpha (Team A)"}, {"id": 7, "label": "<b>x</b> & 'y' (T)"},
           {"id": 12, "label": 'Quote " me (T)'}, {"id": 40, "label": "é ✱ (T)"}]
LOOP = jinja2.Environment(autoescape=True).from_string(
    '{% for c in choices if c.id != exclude %}<option value="{{ c.id }}"'
    '{% if c.id == selected %} selected{% endif %}>{{ c.label }}</option>{% endfor %}')


def test_options_are_what_the_jinja_loop_wrote():
    for exclude, selected in ((None, None), (7, None), (None, 12), (3, 40), (99, 99)):
        assert str(options_html(CHOICES, exclude=exclude, selected=selected)) == LOOP.render(
            choices=CHOICES, exclude=exclude, selected=selected)
    html = str(options_html(CHOICES, exclude=3, selected=12))
    assert html.startswith('<option value="7">&lt;b&gt;x&lt;/b&gt; &amp; &#39;y&#39; (T)')
    assert '<option value="12" selected>Quote &#34; me (T)</option>' in html
    assert 'value="3"' not in html
    assert options_html([], exclude=1) == ""


def test_system_and_compare_pages_list_the_other_systems(client, seeded):
    ids = sorted(seeded.public.values())
    a = ids[0]
    page = client.get(f"/systems/{a}").get_data(as_text=True)
    listed = re.findall(r'<option value="(\d+)"', page.split('id="compare-select"')[1]
                        .split("</select>")[0])
    assert a not in map(int, listed) and len(listed) >= 2
    compare = client.get(f"/compare?a={a}").get_data(as_text=True)
    select_b = compare.split('id="cmp-b"')[1].split("</select>")[0]
    selected = re.findall(r'<option value="(\d+)" selected>', select_b)
    assert selected == [re.findall(r'<option value="(\d+)"', select_b)[1]]  # the second one
    select_a = compare.split('id="cmp-a"')[1].split("</select>")[0]
    assert re.findall(r'<option value="(\d+)" selected>', select_a) == [str(a)]
