"""pyflakes over the project's own Python (not the golden sketches and fixtures, which are data):
unused imports and names, undefined names, shadowed imports."""
import sys
from pathlib import Path

from pyflakes.api import checkPath
from pyflakes.reporter import Reporter

ROOT = Path(__file__).resolve().parents[2]
DATA = ("tests/apply/golden", "tests/fixtures", "tests/e2e")


def test_pyflakes_finds_nothing(capsys):
    files = [p for d in ("lsp_server", "bench", "tests", "models") for p in sorted((ROOT / d).rglob("*.py"))
             if not any(p.relative_to(ROOT).as_posix().startswith(x) for x in DATA)]
    reporter = Reporter(sys.stdout, sys.stdout)
    problems = sum(checkPath(str(p), reporter) for p in files)
    assert problems == 0, capsys.readouterr().out
