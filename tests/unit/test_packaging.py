"""The wheel ships every package of the source tree (pyproject lists them by hand: a package left
out works in the editable install the tests use and breaks `pip install .`)."""
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_is_listed_for_the_wheel():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "lsp_server").rglob("__init__.py")}
    assert on_disk - listed == set()
