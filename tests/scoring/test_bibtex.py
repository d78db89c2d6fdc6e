"""Each benchmark's BibTeX (its family's, the one copy every page prints), with the fields its
sources give, and the layout and escaping of :mod:`leaderboard.scoring.bibtex`."""

from __future__ import annotations

import re

from leaderboard.scoring.bibtex import entry, plain
from leaderboard.scoring.families import FAMILIES


def fields(text: str) -> tuple[str, str, dict[str, str]]:
    """(type, key, fields) of one entry in the layout :func:`entry` writes."""
    head = re.match(r"@(\w+)\{([^,]+),\n", text)
    assert head and text.endswith("\n}")
    values = dict(re.findall(r"^  (\w+) = \{?(.*?)\}?,?$", text, flags=re.M))
    return head.group(1), head.group(2), values


def balanced(text: str) -> bool:
    depth = 0
    for char in re.sub(r"\\[{}]", "", text):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def test_each_family_cites_its_own_papers():
    cited = {name: [fields(b) for b in family.bibtex] for name, family in FAMILIES.items()}
    (kind, key, swords), = cited["swords"]
    assert (kind, key) == ("inproceedings", "lee-etal-2021-swords")
    assert (swords["doi"], swords["pages"], swords["year"], swords["month"]) == (
        "10.18653/v1/2021.naacl-main.345", "4362--4379", "2021", "jun")
    (_, key07, task), (kind09, key09, journal) = cited["semeval07"]
    assert key07 == "mccarthy-navigli-2007-semeval"
    assert (task["pages"], task["year"], task["url"], task["address"]) == (
        "48--53", "2007", "https://aclanthology.org/S07-1009", "Prague, Czech Republic")
    assert (kind09, key09) == ("article", "mccarthy-navigli-2009-english")
    assert (journal["journal"], journal["volume"], journal["pages"], journal["doi"]) == (
        "Language Resources and Evaluation", "43", "139--159", "10.1007/s10579-009-9084-1")
    (_, key_c, coinco), = cited["coinco"]
    assert key_c == "kremer-etal-2014-substitutes"
    assert (coinco["doi"], coinco["pages"], coinco["address"]) == (
        "10.3115/v1/E14-1057", "540--549", "Gothenburg, Sweden")
    (_, key_t, tsar), = cited["tsar2022"]
    assert key_t == "saggion-etal-2022-findings"
    assert (tsar["doi"], tsar["pages"], tsar["year"]) == (
        "10.18653/v1/2022.tsar-1.31", "271--283", "2022")
    assert tsar["author"].startswith("Saggion, Horacio and {\\v{S}}tajner, Sanja")
    assert all(balanced(b) for family in FAMILIES.values() for b in family.bibtex)


def test_entry_layout_and_plain_text_escaping():
    assert entry("misc", "k", title="{A}", note="", month="jun") == (
        "@misc{k,\n  title = {{A}},\n  month = jun\n}")
    # a name can neither unbalance the entry nor be read as markup
    assert plain("R&D_50% {x}\\ #1 ~^$") == (
        r"R\&D\_50\% \{x\}\textbackslash{} \#1 \textasciitilde{}\textasciicircum{}\$")
    assert balanced(entry("misc", "k", title="{" + plain("}{ oops {") + "}"))
    assert plain("  two\n lines ") == "two lines"
