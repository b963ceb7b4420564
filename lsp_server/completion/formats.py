"""Prompt formats as data, and the pure function that turns a context window into token ids.

Format "psm-typed-after-middle" (measured: models/README.md): `<fim_prefix>` lines above the cursor line
`<fim_suffix>` text after the cursor `<fim_middle>` then the typed part of the cursor line.
Typing inside a line therefore only *appends* to the prompt, so the KV cache of the previous
keystroke covers everything but the last token or two. The typed text's last token is backed
off and regenerated under a constraint (token healing): the first new token must start with
the backed-off bytes. Measured on 60 tasks: EM 0.42 vs 0.40 for plain PSM.
"""
from __future__ import annotations

from dataclasses import dataclass

from lsp_server.completion.context import Window
from lsp_server.inference.tokenizer import TokenizerWrapper
from lsp_server.model_store.manifest import ModelSpec

FORMAT_VERSION = 2


@dataclass(frozen=True)
class PromptFormat:
    name: str
    fim_prefix: str | None = None
    fim_suffix: str | None = None
    fim_middle: str | None = None
    file_sep: str | None = None  # repo-level context: <file_sep>path\ncode per snippet, then the current file
    repo_name: str | None = None

    @property
    def is_fim(self) -> bool:
        return self.fim_prefix is not None


@dataclass(frozen=True)
class Prompt:
    ids: list[int]
    heal: bytes  # bytes the first generated token must start with (already on screen)


def format_for(spec: ModelSpec) -> PromptFormat:
    if spec.fim:
        return PromptFormat("psm-typed-after-middle", spec.fim.prefix, spec.fim.suffix, spec.fim.middle,
                            spec.fim.file_sep, spec.fim.repo_name)
    return PromptFormat("prefix-only")


def _special(tok: TokenizerWrapper, text: str) -> int:
    tid = tok.token_id(text)
    if tid is None:
        raise ValueError(f"tokenizer has no special token {text!r}")
    return tid


def context_ids(fmt: PromptFormat, tok: TokenizerWrapper, snippets, path: str) -> list[int]:
    """Qwen2.5-Coder's repository format: other files' snippets, then the current file's path.
    It sits at the very start of the prompt, so it must stay the same while the user types
    (the service recomputes it only when the cursor moves to another region)."""
    if not snippets or not fmt.file_sep:
        return []
    sep = _special(tok, fmt.file_sep)
    ids: list[int] = [_special(tok, fmt.repo_name)] + tok.encode("workspace\n") if fmt.repo_name else []
    for s in snippets:
        ids += [sep] + tok.encode(f"{s.path}\n{s.text}\n")
    return ids + [sep] + tok.encode(f"{path or 'current'}\n")


def build_prompt(fmt: PromptFormat, tok: TokenizerWrapper, window: Window, snippets=(), path: str = "") -> Prompt:
    typed_ids = tok.encode(window.typed)
    kept, heal = typed_ids, b""
    if typed_ids:
        kept = typed_ids[:-1]
        heal = window.typed.encode("utf-8")[len(tok.decode(kept).encode("utf-8")):]
    if fmt.is_fim:
        # Segments are encoded separately so the stable part tokenises the same on every keystroke.
        ids = (context_ids(fmt, tok, snippets, path) + [_special(tok, fmt.fim_prefix)] + tok.encode(window.before) + [_special(tok, fmt.fim_suffix)]
               + tok.encode(window.after) + [_special(tok, fmt.fim_middle)] + kept)
    else:
        ids = tok.encode(window.before) + kept
    return Prompt(ids=ids, heal=heal)


def fim_text(fmt: PromptFormat, window: Window, snippets=(), path: str = "") -> str:
    """The same prompt as text, for a remote engine that tokenises it itself (openai:URL).
    Plain PSM — the typed part ends the prefix — since a remote engine offers no token healing;
    its own prompt cache covers the unchanged start (measured EM: 0.40 vs 0.42 with healing)."""
    prefix = window.before + window.typed
    if not fmt.is_fim:
        return prefix
    head = ""
    if snippets and fmt.file_sep:
        head = f"{fmt.repo_name}workspace\n" if fmt.repo_name else ""
        head += "".join(f"{fmt.file_sep}{s.path}\n{s.text}\n" for s in snippets)
        head += f"{fmt.file_sep}{path or 'current'}\n"
    return f"{head}{fmt.fim_prefix}{prefix}{fmt.fim_suffix}{window.after}{fmt.fim_middle}"
