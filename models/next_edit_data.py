"""Training data for the next-edit model (issue 18, step 1): edit sequences replayed from
consecutive releases of PyPI packages that no benchmark uses.

Each changed Python file of a release pair is replayed hunk by hunk, top to bottom (the order a
person plausibly makes them; bench/next_edit.py's `tasks_for` replays the same way). After k >= 1
hunks, an example is the prompt the server builds (lsp_server.next_edit.model.build_prompt: the
last <= 3 edits as unified diffs, the lines above a region, the region) and the answer the model
should give: the region after the next hunk ("edit"), or the region around the last edit unchanged
("silence") after a file's last hunk or when the next hunk is far away. Each edit example says
whether its next edit repeats the last one's token change (`repeat`: the case the pattern rules
already handle). Synthetic sequences made on real files (`augmented`) add two-step edits: a
parameter added to a function and then passed on to a call in its body (no repeat: the rules
cannot predict it), and a function renamed and then one of its call sites updated (a repeat of
the token change, at a call site anywhere in the file, not only the next occurrence).

    python models/next_edit_data.py build --out DIR [--seed 0] [--limit-packages N]

writes DIR/train.jsonl and DIR/valid.jsonl (split by package) and DIR/manifest.json. The same
command gives byte-identical files: versions are pinned, every choice is drawn from the seed and a
name, and nothing records a time. Wheels come from PyPI through pip, cached in
~/.cache/tandem-train/sources; everything between the download and the files is pure functions
of the sources (tests/unit/test_next_edit_data.py runs them on in-memory packages).
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse  # noqa: E402
import ast  # noqa: E402
import builtins  # noqa: E402
import difflib  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import zipfile  # noqa: E402
from collections.abc import Callable  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

from lsp_server.next_edit.history import edit_between  # noqa: E402
from lsp_server.next_edit.model import (AFTER, BEFORE, FENCE, FORMAT_VERSION, RECENT_EDITS, build_prompt,  # noqa: E402
                                        region_centre, region_for)
from lsp_server.next_edit.patterns import tokens  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path.home() / ".cache" / "tandem-train" / "sources"
TOKENIZER = Path.home() / ".cache" / "tandem" / "models" / "qwen2.5-coder-0.5b" / "int8" / "tokenizer.json"

MAX_FILE_LINES = 2000     # larger files are generated tables or vendored code, not edits
MAX_HUNKS = 12            # more hunks in one file: a rewrite, not a sequence of edits
FAR = 40                  # a next hunk further than this from the last edit is "elsewhere"
MAX_TOKENS = 512          # prompt + target: what one training step on the CPU affords
CHARS_PER_TOKEN = 3.2     # the estimate when the model's tokenizer is not installed
PER_FILE = 6              # edit examples per file: one long file must not dominate a package
PER_PACKAGE = 40          # examples per package: one busy release must not dominate the data
SILENCE_SHARE = 0.3       # of each package's examples
SYNTHETIC_PER_KIND = 2    # synthetic sequences of each kind per package
VALID_SHARE = 0.1         # of the packages
TEST_DIRS = {"test", "tests", "testing"}
VENDOR_DIRS = {"_vendor", "vendor", "_vendored", "vendored"}  # other packages' code, maybe a benchmark's

# (package, older release, newer release): consecutive or close releases of pure-Python wheels
# whose sources changed moderately. Disjoint from every benchmark's packages (tested).
PAIRS: list[tuple[str, str, str]] = [
    ("aiosqlite", "0.20.0", "0.21.0"), ("alive-progress", "3.1.5", "3.2.0"), ("amqp", "2.6.1", "5.0.0"),
    ("annotated-types", "0.3.1", "0.4.0"), ("apispec", "6.9.0", "6.10.0"), ("apscheduler", "3.8.1", "3.10.0"),
    ("argcomplete", "3.6.3", "3.7.0"), ("astroid", "4.0.4", "4.1.0"), ("asttokens", "2.0.8", "2.1.0"),
    ("azure-core", "1.39.0", "1.40.0"), ("backoff", "1.11.1", "2.0.0"), ("bandit", "1.7.10", "1.8.0"),
    ("beautifulsoup4", "4.13.5", "4.14.0"), ("bidict", "0.22.1", "0.23.0"), ("blinker", "1.7.0", "1.8.0"),
    ("cachecontrol", "0.12.14", "0.13.1"), ("cachelib", "0.15.4", "0.16.0"), ("cloudpickle", "2.0.0", "2.1.0"),
    ("commonmark", "0.7.5", "0.8.0"), ("cookiecutter", "2.5.0", "2.6.0"),
    ("dataclasses-json", "0.3.8", "0.4.0"), ("defusedxml", "0.5.0", "0.6.0"), ("dill", "0.4.0", "0.4.1"),
    ("diskcache", "5.4.0", "5.5.1"), ("distlib", "0.4.3", "0.4.4"), ("distro", "1.4.0", "1.5.0"),
    ("docstring-parser", "0.16", "0.17.0"), ("dpath", "2.1.6", "2.2.0"), ("dynaconf", "3.1.12", "3.2.1"),
    ("ecdsa", "0.17.0", "0.18.0"), ("email-validator", "2.2.0", "2.3.0"), ("everett", "3.3.0", "3.4.0"),
    ("exceptiongroup", "1.3.1", "1.3.2"), ("execnet", "1.9.0", "2.0.0"), ("executing", "2.0.1", "2.1.0"),
    ("fabric", "3.0.1", "3.1.0"), ("fastjsonschema", "2.20.0", "2.21.0"), ("flask-cors", "3.0.10", "4.0.0"),
    ("flask-login", "0.5.0", "0.6.0"), ("flask-wtf", "0.15.1", "1.0.0"), ("flit-core", "3.12.0", "4.0.1"),
    ("fpdf2", "2.6.1", "2.7.0"), ("freezegun", "1.1.0", "1.2.0"), ("frozendict", "2.4.7", "2.5.0"),
    ("fsspec", "2026.6.0", "2026.7.0"), ("ftfy", "6.2.3", "6.3.0"), ("funcy", "1.18", "2.0"),
    ("gitdb", "4.0.10", "4.0.11"), ("gitpython", "2.0.9", "2.1.0"), ("glom", "23.5.0", "24.11.0"),
    ("google-auth", "2.60.0", "2.61.0"), ("graphql-core", "3.1.7", "3.2.0"), ("gunicorn", "26.1.0", "26.2.0"),
    ("hatchling", "1.31.0", "1.32.0"), ("hpack", "4.0.0", "4.1.0"), ("html5lib", "0.999999999", "1.0.1"),
    ("httplib2", "0.31.2", "0.32.0"), ("hypercorn", "0.16.0", "0.17.0"), ("hyperframe", "6.0.1", "6.1.0"),
    ("iniconfig", "2.1.0", "2.2.0"), ("itemadapter", "0.10.0", "0.11.0"), ("jaraco.classes", "2.0", "3.0.0"),
    ("jaraco.text", "4.1.0", "4.2.0"), ("jedi", "0.18.2", "0.19.0"), ("jsonpatch", "1.46", "1.47"),
    ("jsonpath-ng", "1.12.0", "1.13.0"), ("jsonpickle", "3.4.2", "4.0.0"), ("jsonref", "0.2", "0.3.0"),
    ("jupyter-client", "8.8.0", "8.9.0"), ("jupyter-core", "5.7.2", "5.8.0"), ("keyring", "25.3.0", "25.4.0"),
    ("loguru", "0.5.3", "0.6.0"), ("markdown-it-py", "4.0.0", "4.1.0"), ("marko", "2.0.3", "2.1.0"),
    ("mdit-py-plugins", "0.4.2", "0.5.0"), ("mdurl", "0.1.0", "0.1.1"), ("mistletoe", "1.2.1", "1.3.0"),
    ("mpmath", "1.2.1", "1.3.0"), ("msal", "1.37.0", "1.38.0"), ("multipledispatch", "0.5.0", "0.6.0"),
    ("natsort", "8.2.0", "8.3.0"), ("nbformat", "5.9.2", "5.10.0"), ("paho-mqtt", "2.1.0", "2.2.0"),
    ("parsel", "1.10.0", "1.11.0"), ("parso", "0.5.2", "0.6.0"), ("passlib", "1.7.3", "1.7.4"),
    ("pep8-naming", "0.10.0", "0.11.0"), ("pexpect", "4.6.0", "4.7.0"), ("pika", "1.1.0", "1.2.0"),
    ("pint", "0.23", "0.24"), ("pip-tools", "7.4.1", "7.5.0"), ("platformio", "6.1.19", "6.2.0"),
    ("plumbum", "1.9.0", "1.10.0"), ("poetry-core", "2.3.2", "2.4.0"), ("prompt-toolkit", "1.0.18", "2.0.1"),
    ("pure-eval", "0.1.1", "0.2.0"), ("pyasn1", "0.4.8", "0.5.0"), ("pyasn1-modules", "0.1.5", "0.2.1"),
    ("pycparser", "2.22", "2.23"), ("pydantic", "2.12.5", "2.13.0"), ("pydantic-settings", "2.14.2", "2.15.0"),
    ("pydash", "7.0.7", "8.0.0"), ("pydocstyle", "6.1.1", "6.2.0"), ("pyee", "11.1.1", "12.0.0"),
    ("pyfakefs", "6.1.6", "6.2.0"), ("pygments", "2.19.2", "2.20.0"), ("pylint", "3.3.9", "4.0.0"),
    ("pymysql", "1.0.3", "1.1.0"), ("pyotp", "2.10.0", "2.11.1"), ("pyproject-hooks", "1.2.0", "1.3.0"),
    ("pyramid", "1.10.8", "2.0"), ("pyserial", "3.3", "3.4"), ("pytest-cov", "6.0.0", "6.1.0"),
    ("pytest-django", "4.12.0", "4.13.0"), ("pytest-xdist", "3.6.1", "3.7.0"),
    ("python-docx", "1.0.1", "1.1.0"), ("python-json-logger", "4.0.0", "4.1.0"),
    ("python-multipart", "0.0.29", "0.0.30"), ("python-slugify", "9.0.0", "9.1.0"),
    ("pyupgrade", "3.18.0", "3.19.0"), ("questionary", "1.10.0", "2.0.0"), ("radon", "4.4.0", "4.5.0"),
    ("readchar", "2.0.1", "3.0.1"), ("readme-renderer", "44.0", "45.0"), ("redis", "7.4.1", "8.0.0"),
    ("referencing", "0.35.1", "0.36.0"), ("requests-mock", "1.9.3", "1.10.0"),
    ("requests-oauthlib", "1.2.0", "1.3.0"), ("rich-click", "1.7.4", "1.8.0"), ("rope", "1.13.0", "1.14.0"),
    ("ruamel.yaml", "0.16.13", "0.17.2"), ("s3transfer", "0.15.0", "0.16.0"),
    ("setuptools-scm", "10.0.5", "10.1.1"), ("shellingham", "1.3.2", "1.4.0"),
    ("simple-parsing", "0.1.7", "0.1.8"), ("sniffio", "1.2.0", "1.3.0"), ("sphinx", "7.4.7", "8.0.0"),
    ("sqlalchemy-utils", "0.41.2", "0.42.0"), ("stack-data", "0.1.4", "0.2.0"), ("tinycss2", "1.0.2", "1.1.0"),
    ("tldextract", "5.0.1", "5.1.0"), ("tomli-w", "1.0.0", "1.1.0"), ("tox", "4.62.1", "4.63.0"),
    ("traitlets", "5.14.3", "5.15.0"), ("transitions", "0.7.2", "0.8.0"), ("typeguard", "4.4.4", "4.5.0"),
    ("tzlocal", "5.1", "5.2"), ("unidecode", "1.2.0", "1.3.2"), ("uritemplate", "3.0.1", "4.0.0"),
    ("validators", "0.34.0", "0.35.0"), ("vcrpy", "9.0.0", "9.1.0"), ("vine", "1.3.0", "5.0.0"),
    ("virtualenv", "21.13.0", "21.14.0"), ("w3lib", "2.2.1", "2.3.0"), ("wcwidth", "0.7.0", "0.8.0"),
    ("webtest", "2.0.35", "3.0.0"), ("wheel", "0.45.1", "0.46.2"), ("wtforms", "3.1.2", "3.2.0"),
    ("yapf", "0.32.0", "0.40.1"),
]


def normalise(name: str) -> str:
    """PyPI's name normalisation (PEP 503): case and runs of -_. do not matter."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _release_pairs(module) -> list[tuple[str, str, str]]:
    """Every module-level list of (package, version, version) in a benchmark module, so that a set
    added there later is excluded here without anyone remembering to."""
    return [p for value in vars(module).values() if isinstance(value, list) for p in value
            if isinstance(p, tuple) and len(p) == 3 and all(isinstance(x, str) for x in p)]


def benchmark_packages() -> set[str]:
    """The packages any benchmark reads: bench/apply.py's release sets (bench/next_edit.py replays
    the same ones), the retrieval and cross-file packages, and the frontier corpus's packages."""
    import bench.apply
    import bench.crossfile
    import bench.next_edit
    import bench.retrieval

    names = {p[0] for module in (bench.apply, bench.next_edit) for p in _release_pairs(module)}
    names |= {spec.split("==")[0] for spec in [*bench.retrieval.PACKAGES, bench.crossfile.PACKAGE]}
    for corpus in sorted((ROOT / "bench" / "frontier").glob("*.jsonl")):
        names |= {json.loads(line)["package"] for line in corpus.read_text().splitlines() if line.strip()}
    return {normalise(n) for n in names}


# --- the sources --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Release:
    """Both versions of one package's Python sources: archive member path → text."""
    package: str
    old_version: str
    new_version: str
    old: dict[str, str]
    new: dict[str, str]


def is_training_file(path: str, text: str) -> bool:
    parts = path.split("/")
    return (not (TEST_DIRS | VENDOR_DIRS) & set(parts[:-1]) and not parts[-1].startswith("test_")
            and text.count("\n") < MAX_FILE_LINES)


# --- replay -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Hunk:
    """Replace lines[start:start + len(old)] by new, in the text as it is when the hunk is made."""
    start: int
    old: tuple[str, ...]
    new: tuple[str, ...]

    def apply(self, lines: tuple[str, ...]) -> tuple[str, ...]:
        return lines[:self.start] + self.new + lines[self.start + len(self.old):]


@dataclass(frozen=True)
class Step:
    """A moment in a sequence of edits: what the model sees, and what comes next."""
    lines: tuple[str, ...]     # the text now
    diffs: tuple[str, ...]     # the edits so far, oldest first, as unified diffs
    cursor: int                # the line of the last edit
    last: Hunk
    next: Hunk | None          # in the coordinates of `lines`; None after the last edit
    last_pair: tuple[int, str, str] | None = None  # the last edit's last changed line pair

    def served_region(self) -> tuple[int, int]:
        """The region the server would show the model now (model.region_centre)."""
        return region_for(len(self.lines), region_centre(list(self.lines), self.cursor, self.last_pair))


def hunks_between(old: list[str], new: list[str]) -> list[Hunk]:
    """The line-based difference as hunks made one after another from the top: each hunk's start
    is where it is once the hunks above it are in."""
    out, offset = [], 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag != "equal":
            out.append(Hunk(i1 + offset, tuple(old[i1:i2]), tuple(new[j1:j2])))
            offset += (j2 - j1) - (i2 - i1)
    return out


def replay(path: str, lines: tuple[str, ...], hunks: list[Hunk]) -> list[Step]:
    """The state after each hunk, its diff the same shape as the edit history's (a/<path>, one
    line of context)."""
    steps, diffs = [], ()
    for k, hunk in enumerate(hunks):
        after = hunk.apply(lines)
        edit = edit_between(path, "\n".join(lines), "\n".join(after))
        diffs = diffs + ((edit.diff,) if edit else ())
        cursor = min(hunk.start, max(len(after) - 1, 0))
        pair = edit.pairs[-1] if edit and edit.pairs else None
        steps.append(Step(after, diffs, cursor, hunk, hunks[k + 1] if k + 1 < len(hunks) else None, pair))
        lines = after
    return steps


# --- examples -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Example:
    id: str
    package: str
    versions: tuple[str, str]
    path: str             # the archive member
    kind: str             # edit | silence
    prompt: str
    target: str
    augmented: bool       # a synthetic sequence, not a replayed release
    repeat: bool          # the next edit repeats the last one's token change (the pattern rules' case)

    def record(self, split: str) -> dict:
        return {"id": self.id, "package": self.package, "versions": list(self.versions), "path": self.path,
                "kind": self.kind, "split": split, "prompt": self.prompt, "target": self.target,
                "augmented": self.augmented, "repeat": self.repeat, "format_version": FORMAT_VERSION}


@dataclass(frozen=True)
class Source:
    """Where a sequence comes from, for the examples' ids and the prompt's path."""
    package: str
    versions: tuple[str, str]
    path: str

    @property
    def prompt_path(self) -> str:
        return f"{self.package}/{self.path}"


def token_change(hunk: Hunk) -> tuple:
    """What a hunk does to the tokens, whitespace aside: (removed, added) per changed stretch."""
    a = [t for t in tokens("\n".join(hunk.old)) if t.strip()]
    b = [t for t in tokens("\n".join(hunk.new)) if t.strip()]
    return tuple((tuple(a[i1:i2]), tuple(b[j1:j2]))
                 for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
                 if tag != "equal")


def is_repeat(last: Hunk, next: Hunk) -> bool:
    """The next edit makes the same token change as the last (what the pattern rules propagate).
    Only small hunks are compared: the rules work line by line, and token diffs of generated
    tables are quadratic."""
    small = all(len(h.old) + len(h.new) <= 2 * (BEFORE + AFTER) and sum(map(len, h.old + h.new)) <= 2000
                for h in (last, next))
    return small and bool(token_change(last)) and token_change(last) == token_change(next)


def contains(region: tuple[int, int], hunk: Hunk) -> bool:
    start, end = region
    if not hunk.old:  # an insertion goes between two lines of the region, not past either edge
        return start < hunk.start < end
    return start <= hunk.start and hunk.start + len(hunk.old) <= end


def centre_for(n_lines: int, hunk: Hunk, rng: random.Random) -> int | None:
    """A cursor line whose region holds the whole hunk, drawn among all such lines: the server
    centres the region on the cursor or on a line like the last edit, so the next edit can sit
    anywhere in it (None: the hunk is longer than a region, on either side: a longer answer is
    mostly new code that no recent edit tells)."""
    if len(hunk.new) > BEFORE + AFTER:
        return None
    fits = [c for c in range(max(0, hunk.start - AFTER), min(n_lines, hunk.start + BEFORE + 1))
            if contains(region_for(n_lines, c), hunk)]
    return rng.choice(fits) if fits else None


def answer(region: list[str]) -> str:
    """The model's answer: the region's lines, then the closing fence (the prompt opened it)."""
    return "\n".join(region) + "\n" + FENCE


def edit_example(src: Source, step: Step, ident: str, seed: int, augmented: bool) -> Example | None:
    """The region the server would show when it holds the next hunk, else one drawn around it."""
    assert step.next is not None
    start, end = step.served_region()
    if len(step.next.new) > BEFORE + AFTER or not contains((start, end), step.next):
        centre = centre_for(len(step.lines), step.next, random.Random(f"{seed}:{ident}"))
        if centre is None:
            return None
        start, end = region_for(len(step.lines), centre)
    after = step.next.apply(step.lines)
    region_after = after[start:end + len(step.next.new) - len(step.next.old)]
    prompt = build_prompt(src.prompt_path, list(step.lines), start, end, list(step.diffs[-RECENT_EDITS:]))
    return Example(ident, src.package, src.versions, src.path, "edit", prompt, answer(list(region_after)),
                   augmented, is_repeat(step.last, step.next))


def silence_example(src: Source, step: Step, ident: str) -> Example:
    start, end = step.served_region()
    prompt = build_prompt(src.prompt_path, list(step.lines), start, end, list(step.diffs[-RECENT_EDITS:]))
    return Example(ident, src.package, src.versions, src.path, "silence", prompt,
                   answer(list(step.lines[start:end])), False, False)


def file_examples(src: Source, old: str, new: str, seed: int) -> list[Example]:
    """Every example of one file's replay: after each hunk, the next hunk as an edit; silence after
    the last hunk and wherever the next hunk is far from the last."""
    a, b = tuple(old.split("\n")), new.split("\n")
    hunks = hunks_between(list(a), b)
    if not hunks or len(hunks) > MAX_HUNKS:
        return []
    out = []
    for k, step in enumerate(replay(src.prompt_path, a, hunks), start=1):
        ident = f"{src.package}/{src.path}#{k}"
        if step.next is not None:
            example = edit_example(src, step, f"{ident}:edit", seed, augmented=False)
            out += [example] if example else []
        # silence where the server's region will not hold the next edit: it comes later, or
        # elsewhere (the release's order is one plausible order among several, so a next hunk
        # near the last one but outside the region is not a silence to teach)
        if step.next is None or abs(step.next.start - step.cursor) > FAR:
            out.append(silence_example(src, step, f"{ident}:silence"))
    return out


# --- synthetic sequences ------------------------------------------------------------------------

# New parameters and their defaults: names a person adds to thread an option through.
PARAMETERS = {"timeout": "None", "verbose": "False", "strict": "False", "encoding": '"utf-8"', "limit": "None",
              "context": "None", "retries": "3", "callback": "None", "default": "None", "errors": '"strict"'}
# Renames of a leading verb: how a function is usually renamed.
VERBS = {"get": "fetch", "fetch": "get", "make": "build", "build": "make", "create": "make", "load": "read",
         "read": "load", "parse": "decode", "check": "validate", "validate": "check", "compute": "calculate",
         "calculate": "compute", "find": "lookup", "update": "refresh", "handle": "process", "process": "handle",
         "add": "append", "remove": "delete", "delete": "remove", "run": "execute", "format": "render",
         "render": "format", "is": "has", "has": "is", "to": "as", "write": "save", "save": "write"}
BUILTINS = frozenset(dir(builtins))


def _col(line: str, byte_col: int) -> int:
    """ast's columns count UTF-8 bytes; strings count characters."""
    return len(line.encode()[:byte_col].decode("utf-8", "replace"))


def _one_line_calls(node: ast.AST) -> list[ast.Call]:
    return sorted((c for c in ast.walk(node) if isinstance(c, ast.Call) and c.lineno == c.end_lineno),
                  key=lambda c: (c.lineno, c.col_offset))


def _parses(lines: tuple[str, ...]) -> bool:
    try:
        ast.parse("\n".join(lines))
    except (SyntaxError, ValueError):
        return False
    return True


def added_parameter(lines: tuple[str, ...], rng: random.Random) -> list[Hunk] | None:
    """A parameter added to a function's one-line signature, then passed on as a keyword to a call
    in its body that passes another parameter (`def load(self, path, encoding="utf-8"):`, then
    `self._read(path, encoding=encoding)`)."""
    try:
        tree = ast.parse("\n".join(lines))
    except (SyntaxError, ValueError):
        return None
    options = []
    for fn in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        args = fn.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or not args.args:
            continue
        last = args.defaults[-1] if args.defaults else args.args[-1]
        if last.end_lineno != fn.lineno or not lines[fn.lineno - 1].rstrip().endswith(":"):
            continue  # a signature over several lines: where the parameter goes is a matter of style
        used = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)} | {a.arg for a in args.args}
        names = [p for p in PARAMETERS if p not in used]
        own = {a.arg for a in args.args} - {"self", "cls"}
        # a call that already passes one of the function's parameters on is where a new one goes
        # too; a builtin's is not (len(x, timeout=timeout) makes no sense)
        calls = [c for c in _one_line_calls(fn) if c.lineno > fn.lineno
                 and not (isinstance(c.func, ast.Name) and c.func.id in BUILTINS)
                 and any(isinstance(v, ast.Name) and v.id in own for v in [*c.args, *(k.value for k in c.keywords)])]
        if names and calls:
            options.append((fn, last, names, calls))
    if not options:
        return None
    fn, last, names, calls = rng.choice(options)
    name, call = rng.choice(names), rng.choice(calls)
    sig = lines[fn.lineno - 1]
    at = _col(sig, last.end_col_offset)
    new_sig = f"{sig[:at]}, {name}={PARAMETERS[name]}{sig[at:]}"
    line = lines[call.lineno - 1]
    close = _col(line, call.end_col_offset) - 1
    if line[close] != ")" or line[:close].rstrip().endswith(","):
        return None
    sep = ", " if call.args or call.keywords else ""
    new_line = f"{line[:close]}{sep}{name}={name}{line[close:]}"
    hunks = [Hunk(fn.lineno - 1, (sig,), (new_sig,)), Hunk(call.lineno - 1, (line,), (new_line,))]
    return hunks if _parses(hunks[1].apply(hunks[0].apply(lines))) else None


def renamed(name: str, rng: random.Random) -> str:
    """A plausible new name: the leading verb swapped for a synonym, else made private or public."""
    lead = name[: len(name) - len(name.lstrip("_"))]
    words = name[len(lead):].split("_")
    if words[0] in VERBS:
        return lead + "_".join([VERBS[words[0]]] + words[1:])
    if lead:
        return name[1:]
    return rng.choice(["_" + name, name + "_impl", "do_" + name])


def renamed_function(lines: tuple[str, ...], rng: random.Random) -> list[Hunk] | None:
    """A function renamed where it is defined, then one of its call sites in the file updated
    (`name(...)` for a module function, `self.name(...)` for a method)."""
    text = "\n".join(lines)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    functions = [(n, False) for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    functions += [(m, True) for c in tree.body if isinstance(c, ast.ClassDef) for m in c.body
                  if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
    calls = _one_line_calls(tree)
    options = []
    for fn, method in functions:
        if fn.name.startswith("__"):
            continue
        sites = [c for c in calls if c.lineno != fn.lineno and (
            (isinstance(c.func, ast.Attribute) and c.func.attr == fn.name and isinstance(c.func.value, ast.Name)
             and c.func.value.id in ("self", "cls")) if method else
            (isinstance(c.func, ast.Name) and c.func.id == fn.name))]
        if sites:
            options.append((fn, sites))
    if not options:
        return None
    fn, sites = rng.choice(options)
    new_name, site = renamed(fn.name, rng), rng.choice(sites)
    if re.search(rf"\b{re.escape(new_name)}\b", text):
        return None  # the new name is taken
    sig = lines[fn.lineno - 1]
    new_sig = re.sub(rf"\bdef {re.escape(fn.name)}\(", f"def {new_name}(", sig, count=1)
    line = lines[site.lineno - 1]
    end = _col(line, site.func.end_col_offset)  # the name ends where the callee expression does
    begin = end - len(fn.name)
    if new_sig == sig or line[begin:end] != fn.name:
        return None
    new_line = line[:begin] + new_name + line[end:]
    hunks = [Hunk(fn.lineno - 1, (sig,), (new_sig,)), Hunk(site.lineno - 1, (line,), (new_line,))]
    return hunks if _parses(hunks[1].apply(hunks[0].apply(lines))) else None


SYNTHESISERS: dict[str, Callable[[tuple[str, ...], random.Random], list[Hunk] | None]] = {
    "add-parameter": added_parameter, "rename-function": renamed_function}


def synthetic_examples(release: Release, files: list[str], seed: int) -> list[Example]:
    """Up to SYNTHETIC_PER_KIND sequences of each kind, made on the newer release's files (in an
    order drawn from the seed), each giving the example after its first edit."""
    out = []
    for kind, make in SYNTHESISERS.items():
        order = sorted(files)
        random.Random(f"{seed}:{release.package}:{kind}").shuffle(order)
        made = 0
        for path in order:
            if made == SYNTHETIC_PER_KIND:
                break
            ident = f"{release.package}/{path}#{kind}"
            lines = tuple(release.new[path].split("\n"))
            hunks = make(lines, random.Random(f"{seed}:{ident}"))
            if hunks is None:
                continue
            src = Source(release.package, (release.old_version, release.new_version), path)
            example = edit_example(src, replay(src.prompt_path, lines, hunks)[0], f"{ident}:edit", seed, augmented=True)
            if example is not None:
                out.append(example)
                made += 1
    return out


# --- selection ----------------------------------------------------------------------------------

def draw(seed: int, key: str) -> float:
    """A number in [0, 1) fixed by the seed and the key: the same on every machine and run."""
    return int.from_bytes(hashlib.sha256(f"{seed}:{key}".encode()).digest()[:8], "big") / 2**64


def split_of(package: str, seed: int) -> str:
    return "valid" if draw(seed, "split:" + normalise(package)) < VALID_SHARE else "train"


def dedup(examples: list[Example]) -> list[Example]:
    """One example per (prompt, target), the first by id: the same input with the same answer
    (a file shipped twice, a repeated idiom) would only weigh more."""
    seen, out = set(), []
    for e in sorted(examples, key=lambda e: e.id):
        if (e.prompt, e.target) not in seen:
            seen.add((e.prompt, e.target))
            out.append(e)
    return out


def package_selection(examples: list[Example], seed: int) -> list[Example]:
    """One package's examples within the caps: PER_FILE replayed edits per file, then PER_PACKAGE
    in all with SILENCE_SHARE of silences, drawn from the seed."""
    ranked = sorted(examples, key=lambda e: (draw(seed, e.id), e.id))
    per_file: dict[str, int] = {}
    edits, silences, synthetic = [], [], []
    for e in ranked:
        if e.augmented:
            synthetic.append(e)
        elif e.kind == "silence":
            silences.append(e)
        elif per_file.get(e.path, 0) < PER_FILE:
            per_file[e.path] = per_file.get(e.path, 0) + 1
            edits.append(e)
    edits = edits[:max(0, round(PER_PACKAGE * (1 - SILENCE_SHARE)) - len(synthetic))]
    speaking = len(edits) + len(synthetic)
    silences = silences[:round(speaking * SILENCE_SHARE / (1 - SILENCE_SHARE))]
    return synthetic + edits + silences


def release_examples(release: Release, seed: int, count_tokens: Callable[[str], int]) -> list[Example]:
    """All candidate examples of one release pair that fit the token budget."""
    versions = (release.old_version, release.new_version)
    changed = [p for p in sorted(set(release.old) & set(release.new))
               if release.old[p] != release.new[p] and is_training_file(p, release.old[p])
               and is_training_file(p, release.new[p])]
    out = [e for p in changed for e in file_examples(Source(release.package, versions, p), release.old[p],
                                                     release.new[p], seed)]
    files = [p for p in sorted(release.new) if is_training_file(p, release.new[p])]
    out += synthetic_examples(release, files, seed)
    return [e for e in out if count_tokens(e.prompt + e.target) <= MAX_TOKENS]


def build(releases: list[Release], seed: int, count_tokens: Callable[[str], int]) -> dict[str, list[dict]]:
    """The data set: {"train": records, "valid": records}, each sorted by id."""
    candidates = dedup([e for r in releases for e in release_examples(r, seed, count_tokens)])
    by_package: dict[str, list[Example]] = {}
    for e in candidates:
        by_package.setdefault(e.package, []).append(e)
    out: dict[str, list[dict]] = {"train": [], "valid": []}
    for package in sorted(by_package):
        split = split_of(package, seed)
        out[split] += [e.record(split) for e in package_selection(by_package[package], seed)]
    for records in out.values():
        records.sort(key=lambda r: r["id"])
    return out


def counts(data: dict[str, list[dict]]) -> dict:
    out = {}
    for split, records in data.items():
        out[split] = {"examples": len(records), "packages": len({r["package"] for r in records}),
                      "edit": sum(r["kind"] == "edit" for r in records),
                      "silence": sum(r["kind"] == "silence" for r in records),
                      "augmented": sum(r["augmented"] for r in records),
                      "edit_not_repeat": sum(r["kind"] == "edit" and not r["repeat"] for r in records)}
    return out


def token_counter() -> tuple[Callable[[str], int], str]:
    """The installed model's tokenizer when there is one, else the length estimate; the manifest
    names which (the token budget, and so the data, depend on it)."""
    if TOKENIZER.exists():
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(TOKENIZER))
        digest = hashlib.sha256(TOKENIZER.read_bytes()).hexdigest()
        return (lambda text: len(tok.encode(text, add_special_tokens=False).ids)), f"tokenizer.json sha256 {digest}"
    return (lambda text: int(len(text) / CHARS_PER_TOKEN) + 1), f"len(text) / {CHARS_PER_TOKEN}"


# --- the edge: downloads and files --------------------------------------------------------------

def _wheel_in_cache(package: str, version: str, cache: Path) -> Path | None:
    for wheel in sorted(cache.glob("*.whl")):
        name, ver = wheel.name.split("-")[:2]
        if normalise(name) == normalise(package) and ver == version:
            return wheel
    return None


def _pip_download(specs: list[tuple[str, str]], cache: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                    "-d", str(cache), *(f"{p}=={v}" for p, v in specs)], capture_output=True)


def download(wanted: list[tuple[str, str]], cache: Path = CACHE) -> None:
    """The wheels not yet in the cache, by pip: a few runs of many wheels each, side by side (pip's
    start-up costs more than a download, and each run waits on the index one wheel at a time),
    then one run per wheel still missing, so that a release PyPI lacks costs only its own pair."""
    cache.mkdir(parents=True, exist_ok=True)
    missing = [pv for pv in wanted if _wheel_in_cache(*pv, cache) is None]
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda chunk: _pip_download(chunk, cache), [missing[i::4] for i in range(4) if missing[i::4]]))
        missing = [pv for pv in missing if _wheel_in_cache(*pv, cache) is None]
        list(pool.map(lambda pv: _pip_download([pv], cache), missing))


def wheel_sources(path: Path) -> dict[str, str]:
    with zipfile.ZipFile(path) as zf:
        return {m: zf.read(m).decode("utf-8", "replace").replace("\r\n", "\n") for m in sorted(zf.namelist())
                if m.endswith(".py") and ".dist-info/" not in m}


def fetch(pairs: list[tuple[str, str, str]], cache: Path = CACHE) -> tuple[list[Release], list[dict], list[str]]:
    """The releases, their archives (file and sha256) and the pairs dropped (with why)."""
    download(sorted({(p, v) for p, old, new in pairs for v in (old, new)}), cache)
    releases, archives, dropped = [], [], []
    for package, old, new in pairs:
        wheels = [_wheel_in_cache(package, v, cache) for v in (old, new)]
        if None in wheels:
            dropped.append(f"{package} {old}->{new}: no wheel of {[old, new][wheels.index(None)]} from PyPI")
            continue
        releases.append(Release(package, old, new, *(wheel_sources(w) for w in wheels)))
        archives.append({"package": package, "versions": [old, new],
                         "archives": [{"file": w.name, "sha256": hashlib.sha256(w.read_bytes()).hexdigest()}
                                      for w in wheels]})
    return releases, archives, dropped


def write(out: Path, data: dict[str, list[dict]], manifest: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for split, records in data.items():
        (out / f"{split}.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="download the pinned releases and write the data set")
    b.add_argument("--out", type=Path, required=True)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--limit-packages", type=int, default=None, help="only the first N pairs of PAIRS")
    args = ap.parse_args()
    pairs = PAIRS[:args.limit_packages]
    releases, archives, dropped = fetch(pairs)
    count_tokens, tokens_by = token_counter()
    data = build(releases, args.seed, count_tokens)
    manifest = {"format_version": FORMAT_VERSION, "seed": args.seed, "pairs": archives, "dropped": dropped,
                "counts": counts(data), "tokens_counted_by": tokens_by, "max_tokens": MAX_TOKENS,
                "builder_sha256": hashlib.sha256(Path(__file__).read_bytes()).hexdigest()}
    write(args.out, data, manifest)
    print(json.dumps(manifest["counts"]))


if __name__ == "__main__":
    main()
