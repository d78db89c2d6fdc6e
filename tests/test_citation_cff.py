"""CITATION.cff at the repository root is valid Citation File Format 1.2.0 as GitHub reads
it: YAML, the schema's required keys, no key the schema does not know, and the project's
own version and licence."""

from __future__ import annotations

import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
#: The top-level keys of CFF 1.2.0's schema.json ("additionalProperties": false).
ALLOWED = {"abstract", "authors", "cff-version", "commit", "contact", "date-released", "doi",
           "identifiers", "keywords", "license", "license-url", "message",
           "preferred-citation", "references", "repository", "repository-artifact",
           "repository-code", "title", "type", "url", "version"}
REQUIRED = {"authors", "cff-version", "message", "title"}


def test_citation_cff_is_cff_1_2_0_with_the_projects_version_and_licence():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert REQUIRED <= set(cff) <= ALLOWED
    assert cff["cff-version"] == "1.2.0"  # a string: the schema's pattern ^1\.2\.0$
    assert cff["type"] in ("software", "dataset")
    assert isinstance(cff["message"], str) and cff["message"].strip()
    assert cff["authors"] and all(
        isinstance(a, dict) and (a.get("name") or a.get("family-names")) for a in cff["authors"])
    assert str(cff["version"]) == project["version"]
    assert cff["license"] == project["license"]
