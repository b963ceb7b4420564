"""The `tandem` command (its command lines are contracts: docs/architecture.md, "Contracts kept").
Errors a user can act on print one line, no traceback."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from lsp_server.errors import TandemError
from lsp_server.files import read_text
from lsp_server.config import DEVICES


def _local_engine(args):
    from lsp_server.inference.engine import get_engine

    engine = get_engine(args.model, args.precision, args.threads, args.device)
    engine.warm_up()
    return engine


def _engine(args):
    """--backend (else TANDEM_BACKEND, else local): a remote engine that answers, or the local
    model, with one line on stderr saying why when a backend was asked for and cannot serve."""
    from lsp_server.config import Settings, parse_backend

    defaults = Settings()  # TANDEM_BACKEND / TANDEM_BACKEND_MODEL, else local
    backend = parse_backend(args.backend or defaults.backend, args.backend_model or defaults.backend_model)
    if not backend.remote:
        return _local_engine(args)
    from lsp_server.errors import BackendError
    from lsp_server.inference.remote import connect

    try:
        return connect(backend, args.model)
    except BackendError as exc:
        return _fall_back(args, exc)


def _fall_back(args, exc: Exception):
    try:
        engine = _local_engine(args)
    except TandemError as local_exc:
        raise TandemError(f"{exc}; the local model cannot serve either: {local_exc}") from None
    print(f"tandem: {exc}; using the local model", file=sys.stderr)
    return engine


def _run_complete(args, engine, req):
    """(engine, result): a backend that fails mid-answer is replaced by the local model once."""
    from lsp_server.completion.complete import complete, is_remote
    from lsp_server.errors import BackendError

    try:
        return engine, complete(engine, req)
    except BackendError as exc:
        if not is_remote(engine):
            raise
        engine = _fall_back(args, exc)
        return engine, complete(engine, req)


def _served_by(engine) -> dict:
    from lsp_server.completion.complete import is_remote

    if is_remote(engine):
        return {"model": engine.model, "backend": engine.backend.shown(), "precision": None, "device": "remote"}
    return {"model": engine.spec.name, "backend": "local", "precision": engine.precision, "device": engine.device.device}


def _request(args, prefix: str, suffix: str):
    from lsp_server.completion import CompletionRequest

    return CompletionRequest(prefix=prefix, suffix=suffix, multiline=args.multiline,
                             reuse_prefix=not args.no_reuse, speculate=not args.no_speculate)


def cmd_complete(args) -> int:
    from lsp_server.protocol import detect_eol, normalise_eol, offset_at

    if args.batch:
        return complete_batch(args)
    if args.file is None or args.line is None or args.character is None:
        raise TandemError("usage: tandem complete FILE --line L --character C [--json]  (or --batch IN.jsonl)")
    raw = read_text(Path(args.file), strip_bom=True)
    eol = detect_eol(raw)
    text = normalise_eol(raw)
    at = offset_at(text, args.line, args.character)
    engine, result = _run_complete(args, _engine(args), _request(args, text[:at], text[at:]))
    shown = result.text.replace("\n", eol)
    served = _served_by(engine)
    if args.json:
        out = result.as_dict() | {"completion": shown, "path": args.file, "line": args.line,
                                  "character": args.character, **served}
        print(json.dumps(out))
    else:
        print(shown)
        where = served["backend"] if served["device"] == "remote" else f"{served['precision']} on {served['device']}"
        print(f"({result.latency_ms:.0f} ms, {served['model']} {where})", file=sys.stderr)
    return 0


def complete_batch(args) -> int:
    from lsp_server.batch import run_batch

    engine = _engine(args)

    def handle(item: dict) -> dict:
        nonlocal engine
        prefix, suffix = item["prefix"], item.get("suffix", "")
        if not isinstance(prefix, str) or not isinstance(suffix, str):
            raise TypeError("prefix and suffix must be strings")
        engine, result = _run_complete(args, engine, _request(args, prefix, suffix))
        return {"completion": result.text}

    return 1 if run_batch(args.batch, handle, '{"id","path","prefix","suffix"}') else 0


def cmd_models(args) -> int:
    from lsp_server.model_store import install as inst
    from lsp_server.model_store.manifest import load_manifest

    manifest = load_manifest()
    if args.action == "install":
        # no name: the default completion model and the embedding model retrieval uses
        names = [args.name] if args.name else [manifest.default, manifest.embedding]
        precisions = [args.precision] if args.precision else None
        for s in (st for n in names for st in inst.install(manifest.get(n), precisions if args.name else None)):
            mark = "ok" if s.installed else "not built"
            print(f"{s.name} {s.precision}: {mark} {s.size / 1e6:.0f} MB {s.path}")
        return 0
    if args.action == "list":
        default = manifest.default
        for spec in manifest.models.values():
            for s in inst.states(spec):
                active = " (active)" if spec.name == default and s.precision == spec.default_precision else ""
                state = f"installed {s.size / 1e6:.0f} MB" if s.installed else "not installed"
                print(f"{spec.name:<22} {s.precision:<5} {state}{active}  {spec.description}")
        print(device_line(os.environ.get("TANDEM_DEVICE") or "auto"))
        return 0
    if args.action == "verify":
        names = [args.name] if args.name else list(manifest.models)
        problems = []
        for name in names:
            problems += inst.verify(manifest.get(name))
        for p in problems:
            print(p, file=sys.stderr)
        print("all installed files match their sha256" if not problems else f"{len(problems)} problem(s); "
              "run `tandem models install` to rebuild")
        return 1 if problems else 0
    raise TandemError(f"unknown models action {args.action}")


def device_line(setting: str) -> str:
    """Which device the model would run on, without loading it: the first candidate whose
    provider this onnxruntime build has (the engine still checks that it really runs)."""
    import onnxruntime as ort

    from lsp_server.inference.device import has_provider, plan

    available = ort.get_available_providers()
    first = next(d for d in plan(setting, available) if has_provider(d, available))
    return (f"device: {first} (tandem.device={setting}; onnxruntime {ort.__version__} providers: "
            f"{', '.join(p.removesuffix('ExecutionProvider') for p in available)})")


def _root(path: str) -> Path:
    root = Path(path)
    if not root.is_dir():
        raise TandemError(f"{path}: not a directory")
    return root


def cmd_index(args) -> int:
    from lsp_server.progress import Progress
    from lsp_server.retrieval import CodeIndex

    index = CodeIndex(_root(args.root), use_embeddings=not args.lexical_only)
    bar: list[Progress] = []

    def progress(n: int, total: int, rel: str) -> None:
        if not bar:
            bar.append(Progress(total, "index"))
        bar[0].update(1)

    s = index.build(progress)
    if bar:
        bar[0].close(f"{s.files} files")
    print(json.dumps({"files": s.files, "chunks": s.chunks, "embedded": s.embedded, "reused_files": s.reused_files,
                      "seconds": round(s.seconds, 2)}) if args.json else
          f"indexed {s.files} files, {s.chunks} chunks in {s.seconds:.1f}s ({s.embedded} embedded, {s.reused_files} unchanged)")
    index.close()
    return 0


def cmd_search(args) -> int:
    from lsp_server.retrieval import CodeIndex

    index = CodeIndex(_root(args.root), use_embeddings=args.mode != "lexical")
    index.build()
    hits = index.search(args.query, k=args.k, mode=args.mode)
    if args.json:
        print(json.dumps([{k: v for k, v in h.as_dict().items() if k in ("path", "start_line", "end_line", "score")}
                          for h in hits]))
    else:
        for h in hits:
            print(f"{h.chunk.path}:{h.chunk.start_line}-{h.chunk.end_line}  {h.chunk.symbol or h.chunk.kind}  ({h.score:.4f})")
    index.close()
    return 0


def cmd_serve(args) -> int:
    from lsp_server.server import serve

    return serve(args.tcp)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="tandem", description="Tandem: local-first AI pair for code editors")
    sub = ap.add_subparsers(dest="command", required=True)

    s = sub.add_parser("serve", help="the language server on stdio")
    s.add_argument("--tcp", metavar="HOST:PORT", default=None, help="listen on TCP instead of stdio")
    s.set_defaults(func=cmd_serve)

    c = sub.add_parser("complete", help="one inline completion at a 0-based LSP position of a file")
    c.add_argument("file", nargs="?")
    c.add_argument("--line", type=int)
    c.add_argument("--character", type=int)
    c.add_argument("--json", action="store_true")
    c.add_argument("--batch", metavar="IN.jsonl", help='lines {"id","path","prefix","suffix"} → {"id","completion","latency_ms"}')
    c.add_argument("--model", default=None)
    c.add_argument("--precision", default=None, choices=["int8", "int4", "fp16"])
    c.add_argument("--threads", type=int, default=0, help="ONNX Runtime intra-op threads (0: all cores)")
    c.add_argument("--device", default=None, choices=DEVICES, help="execution provider (default: TANDEM_DEVICE or auto)")
    c.add_argument("--multiline", default="auto", choices=["auto", "always", "never"])
    c.add_argument("--backend", default=None, metavar="local|openai:URL|llamacpp:URL|ollama:URL",
                   help="where completions come from (default: TANDEM_BACKEND or local); API key: TANDEM_BACKEND_API_KEY")
    c.add_argument("--backend-model", default=None, help="the model name the backend serves (default: TANDEM_BACKEND_MODEL)")
    c.add_argument("--no-reuse", action="store_true", help="recompute the whole prompt every time (benchmarks)")
    c.add_argument("--no-speculate", action="store_true", help="plain greedy decoding (benchmarks)")
    c.set_defaults(func=cmd_complete)

    i = sub.add_parser("index", help="index a workspace for retrieval (incremental, persisted)")
    i.add_argument("root")
    i.add_argument("--json", action="store_true")
    i.add_argument("--lexical-only", action="store_true", help="skip embeddings")
    i.set_defaults(func=cmd_index)

    q = sub.add_parser("search", help="search a workspace's index")
    q.add_argument("root")
    q.add_argument("query")
    q.add_argument("--k", type=int, default=10)
    q.add_argument("--json", action="store_true")
    q.add_argument("--mode", default="hybrid", choices=["hybrid", "lexical", "embedding"])
    q.set_defaults(func=cmd_search)

    from lsp_server import cli_next_edit, cli_plan

    cli_plan.add_parsers(sub)
    cli_next_edit.add_parsers(sub)

    m = sub.add_parser("models", help="install, list and verify local models")
    m.add_argument("action", choices=["install", "list", "verify"])
    m.add_argument("name", nargs="?")
    m.add_argument("--precision", default=None, choices=["int8", "int4", "fp16"])
    m.set_defaults(func=cmd_models)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except TandemError as exc:
        print(f"tandem: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("tandem: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
