"""The frontier-sketch corpus: sketches a frontier model wrote as the planner, on real files.

Each case (one JSON line in bench/frontier/*.jsonl) names a file inside a released package —
PyPI wheel, npm tarball or Debian package — by registry, package, version, archive member path
and sha256; an instruction; the sketch a frontier model wrote for it following the planner's
system prompt (lsp_server/planner/prompt.py) verbatim; and the exact target as a unified diff
against the original. Sources are fetched at run time (cached in ~/.cache/tandem-bench/sources),
never committed.

    python bench/frontier_corpus.py fetch  --registry pypi --package NAME --version V --out DIR
    python bench/frontier_corpus.py add    --out FILE.jsonl --id ID --registry R --package NAME --version V
                                           --path MEMBER --kind KIND --instruction TEXT
                                           --sketch-file SKETCH --target-file TARGET
    python bench/frontier_corpus.py check  FILE.jsonl [...]

`add` checks the case before it appends it: the sketch's non-marker lines appear in the target
in order, the target parses (Python's own parser; tree-sitter without new errors elsewhere), keeps the
original's line ends, the
target differs from the original, and the diff gives the target back.
"""
from __future__ import annotations

import os
import sys

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import argparse  # noqa: E402
import difflib  # noqa: E402
import hashlib  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import tarfile  # noqa: E402
import zipfile  # noqa: E402
from pathlib import Path  # noqa: E402

CACHE = Path.home() / ".cache" / "tandem-bench" / "sources"
CORPUS = Path(__file__).parent / "frontier"
REGISTRIES = ("pypi", "npm", "debian")


def archive(registry: str, package: str, version: str) -> Path:
    """The package's archive in the cache, downloaded through the registry's own client."""
    folder = CACHE / registry
    folder.mkdir(parents=True, exist_ok=True)
    stem = re.sub(r"[-_.]+", "_", package).lower()
    if registry == "pypi":
        pattern, fetch = f"{stem}-{version}-*.whl", [sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                                                     "--only-binary=:all:", "-d", str(folder), f"{package}=={version}"]
        match = lambda p: re.sub(r"[-_.]+", "_", p.name.lower()).startswith(f"{stem}_{version.replace('.', '_')}_")  # noqa: E731
    elif registry == "npm":
        base = package.lstrip("@").replace("/", "-")
        pattern, fetch = f"{base}-{version}.tgz", ["npm", "pack", "-q", f"{package}@{version}", "--pack-destination", str(folder)]
        match = lambda p: p.name == f"{base}-{version}.tgz"  # noqa: E731
    elif registry == "debian":
        quoted = version.replace(":", "%3a")
        pattern, fetch = f"{package}_{quoted}_*.deb", ["apt-get", "download", "-q", f"{package}={version}"]
        match = lambda p: p.name.startswith(f"{package}_{quoted}_")  # noqa: E731
    else:
        raise SystemExit(f"unknown registry {registry!r} (one of {', '.join(REGISTRIES)})")
    found = [p for p in folder.iterdir() if match(p)]
    if not found:
        subprocess.run(fetch, check=True, cwd=folder, stdout=subprocess.DEVNULL)
        found = [p for p in folder.iterdir() if match(p)]
    if not found:
        raise SystemExit(f"no {pattern} after downloading {package} {version} from {registry}")
    return found[0]


def members(registry: str, package: str, version: str) -> dict[str, bytes]:
    """Every text-like member of the package's archive: path → bytes."""
    path = archive(registry, package, version)
    if registry == "pypi":
        with zipfile.ZipFile(path) as zf:
            return {m: zf.read(m) for m in zf.namelist() if not m.endswith("/")}
    if registry == "npm":
        with tarfile.open(path) as tf:
            return {m.name: tf.extractfile(m).read() for m in tf.getmembers() if m.isfile()}
    data = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(path)], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        return {m.name.removeprefix("./"): tf.extractfile(m).read() for m in tf.getmembers() if m.isfile()}


def original(case: dict) -> str:
    """The case's original file, checked against its sha256."""
    data = members(case["registry"], case["package"], case["version"])[case["path"]]
    digest = hashlib.sha256(data).hexdigest()
    if digest != case["sha256"]:
        raise ValueError(f"{case['id']}: {case['path']} has sha256 {digest}, the case says {case['sha256']}")
    return data.decode("utf-8")


def _lines(text: str) -> list[str]:
    """Lines with their "\n" (only "\n" ends a line: str.splitlines() also splits at form feeds)."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def make_diff(old: str, new: str) -> str:
    lines = difflib.unified_diff(_lines(old), _lines(new), "a", "b", n=3)
    return "".join(x if x.endswith("\n") else x + "\n\\ No newline at end of file\n" for x in lines)


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def apply_diff(old: str, diff: str) -> str:
    """The text a unified diff (make_diff's) turns `old` into; ValueError where it does not fit."""
    src = _lines(old)
    out: list[str] = []
    at = 0
    lines = _lines(diff)
    i = 0
    prev = " "
    while i < len(lines):
        m = _HUNK.match(lines[i])
        i += 1
        if not m:
            continue
        start = int(m.group(1)) - (0 if m.group(2) == "0" else 1)
        out.extend(src[at:start])
        at = start
        while i < len(lines) and not lines[i].startswith("@@"):
            tag, body = lines[i][:1], lines[i][1:]
            i += 1
            if tag == "\\":  # "\ No newline at end of file" after the line it speaks of
                if prev == "+":
                    out[-1] = out[-1].removesuffix("\n")
                continue
            prev = tag
            if tag in " -":
                if at >= len(src) or src[at].rstrip("\n") != body.rstrip("\n"):
                    raise ValueError(f"the diff does not fit the original at line {at + 1}")
                if tag == " ":
                    out.append(src[at])
                at += 1
            elif tag == "+":
                out.append(body)
    out.extend(src[at:])
    return "".join(out)


def problems(case: dict, old: str) -> list[str]:
    """What is wrong with a case (empty: it is sound)."""
    from lsp_server.apply.markers import is_marker
    from lsp_server.syntax.check import error_count, python_parses

    found = []
    try:
        new = apply_diff(old, case["target_diff"])
    except ValueError as exc:
        return [str(exc)]
    if new == old:
        found.append("the target is the original")
    if ("\r\n" in old) != ("\r\n" in new) or new.count("\r\n") < new.count("\n") and "\r\n" in old:
        found.append("the target's line ends are not the original's (a planner's change keeps them)")
    path = case["path"]
    if path.endswith((".py", ".pyi")):
        if not python_parses(new):
            found.append("the target does not parse (Python)")
    else:
        before, after = error_count(path, old, False), error_count(path, new, False)
        if after is not None and after > (before or 0):
            found.append(f"the target has {after} tree-sitter errors, the original {before}")
    keys = {x.strip() for x in old.split("\n")}
    sketch = [x for x in case["sketch"].split("\n") if not is_marker(x, keys)]
    target = new.split("\n")
    at = 0
    for line in sketch:
        if not line.strip():
            continue
        while at < len(target) and target[at].rstrip() != line.rstrip():
            at += 1
        if at == len(target):
            found.append(f"the sketch line {line.strip()[:60]!r} is not in the target in order")
            break
        at += 1
    if not any(is_marker(x, keys) for x in case["sketch"].split("\n")):
        found.append("the sketch has no marker (a sketch of an existing file elides something)")
    return found


def heldout(case: dict) -> bool:
    """Half the corpus, fixed by the case's id, is never looked at while the expander changes."""
    return hashlib.sha256(case["id"].encode()).digest()[0] % 2 == 1


def load(paths: list[Path] | None = None) -> list[dict]:
    cases = []
    for p in paths or sorted(CORPUS.glob("*.jsonl")):
        cases += [json.loads(x) for x in p.read_text().splitlines() if x.strip()]
    return cases


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fetch")
    a = sub.add_parser("add")
    for p in (f, a):
        p.add_argument("--registry", choices=REGISTRIES, required=True)
        p.add_argument("--package", required=True)
        p.add_argument("--version", required=True)
    f.add_argument("--out", required=True, type=Path)
    a.add_argument("--out", required=True, type=Path)
    for name in ("--id", "--path", "--kind", "--instruction"):
        a.add_argument(name, required=True)
    a.add_argument("--sketch-file", required=True, type=Path)
    a.add_argument("--target-file", required=True, type=Path)
    c = sub.add_parser("check")
    c.add_argument("files", nargs="+", type=Path)
    args = ap.parse_args()

    if args.cmd == "fetch":
        for name, data in members(args.registry, args.package, args.version).items():
            dest = args.out / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
        print(args.out)
    elif args.cmd == "add":
        data = members(args.registry, args.package, args.version)[args.path]
        old = data.decode("utf-8")
        case = {"id": args.id, "registry": args.registry, "package": args.package, "version": args.version,
                "path": args.path, "sha256": hashlib.sha256(data).hexdigest(), "kind": args.kind,
                "instruction": args.instruction, "sketch": args.sketch_file.read_text(),
                "target_diff": make_diff(old, args.target_file.read_bytes().decode("utf-8"))}
        if apply_diff(old, case["target_diff"]) != args.target_file.read_bytes().decode("utf-8"):
            raise SystemExit("internal: the diff does not give the target back")
        bad = problems(case, old)
        if bad:
            raise SystemExit("not added: " + "; ".join(bad))
        if any(c["id"] == args.id for c in (load([args.out]) if args.out.exists() else [])):
            raise SystemExit(f"not added: {args.out} already has a case {args.id!r}")
        with args.out.open("a") as fh:
            fh.write(json.dumps(case) + "\n")
        print(f"added {args.id}")
    else:
        bad_cases = 0
        cases = load(args.files)
        for case in cases:
            try:
                bad = problems(case, original(case))
            except (ValueError, KeyError, subprocess.CalledProcessError) as exc:
                bad = [str(exc)]
            if bad:
                bad_cases += 1
                print(f"{case['id']}: " + "; ".join(bad))
        print(json.dumps({"cases": len(cases), "bad": bad_cases}))
        sys.exit(1 if bad_cases else 0)


if __name__ == "__main__":
    main()
