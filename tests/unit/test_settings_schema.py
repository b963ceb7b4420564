"""Settings have one source of truth, config.SCHEMA: the extension's package.json and the README's
table are generated from it (`python -m lsp_server.config --write`), and this test fails when a
setting is added, changed or removed in one place only. Also the licence, in the repository and
in the extension."""
import json
import re
from dataclasses import fields

from lsp_server.config import (README_BEGIN, README_END, SCHEMA, Settings, contributes_configuration, parse_settings,
                               readme_table)
from tests.conftest import ROOT

PACKAGE = json.loads((ROOT / "client-vscode" / "package.json").read_text())


def test_every_settings_field_has_exactly_one_option():
    attrs = [o.attr for o in SCHEMA]
    assert sorted(attrs) == sorted(f.name for f in fields(Settings)) and len(set(attrs)) == len(attrs)
    assert len({o.key for o in SCHEMA}) == len(SCHEMA)


def test_the_extension_declares_exactly_the_schema():
    declared = PACKAGE["contributes"]["configuration"]
    assert declared == contributes_configuration(), "run: python -m lsp_server.config --write"
    assert set(declared["properties"]) == {f"tandem.{o.key}" for o in SCHEMA} | {"tandem.serverCommand"}


def test_the_readme_table_is_the_schema():
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index(README_BEGIN) + len(README_BEGIN):readme.index(README_END)]
    assert table == readme_table(), "run: python -m lsp_server.config --write"
    for o in SCHEMA:
        assert f"| `{o.key}` |" in table


def test_declared_defaults_are_valid_and_accepted_silently():
    """What VS Code sends for an untouched profile (every declared default, "" for a string
    without one) gives the server's defaults and no message."""
    sent = {k[len("tandem."):]: p["default"] for k, p in PACKAGE["contributes"]["configuration"]["properties"].items()}
    settings, problems = parse_settings({"tandem": sent})
    assert problems == []
    assert settings == Settings()


def test_an_empty_optional_string_means_the_default():
    settings, problems = parse_settings({"plannerModel": ""})
    assert problems == [] and settings.planner_model == Settings().planner_model
    assert parse_settings({"plannerModel": None})[1] == []
    settings, problems = parse_settings({"plannerModel": "claude-x"})
    assert problems == [] and settings.planner_model == "claude-x"
    assert parse_settings({"plannerModel": 5})[1]  # a wrong type is still reported
    assert parse_settings({"model": ""})[1]  # not optional: "" is a mistake there


def test_the_licence_is_apache_2_in_the_repository_and_the_extension():
    text = (ROOT / "LICENSE").read_text()
    assert text.lstrip().startswith("Apache License") and "Version 2.0, January 2004" in text
    assert (ROOT / "client-vscode" / "LICENSE").read_text() == text  # vsce packs it into the .vsix
    assert PACKAGE["license"] == "Apache-2.0"


def test_the_readme_names_each_models_licence():
    from lsp_server.model_store.manifest import load_manifest

    readme = " ".join((ROOT / "README.md").read_text().split())
    for name, spec in load_manifest().models.items():
        assert re.search(rf"`{re.escape(name)}` \([^)]*\) — {re.escape(spec.licence)}", readme), name
