"""Which tree-sitter grammar (a PyPI package each) and which definition query (a data file in
queries/) serve a file. Grammars load lazily and are cached; a missing grammar package means the
line-window fallback, never an error."""
from __future__ import annotations

import importlib
import logging
from functools import lru_cache
from pathlib import Path

log = logging.getLogger(__name__)

QUERIES = Path(__file__).parent / "queries"

# extension -> (language, grammar module, function in the module returning the language)
EXTENSIONS: dict[str, tuple[str, str, str]] = {
    ".py": ("python", "tree_sitter_python", "language"),
    ".pyi": ("python", "tree_sitter_python", "language"),
    ".js": ("javascript", "tree_sitter_javascript", "language"),
    ".mjs": ("javascript", "tree_sitter_javascript", "language"),
    ".cjs": ("javascript", "tree_sitter_javascript", "language"),
    ".jsx": ("javascript", "tree_sitter_javascript", "language"),
    ".ts": ("typescript", "tree_sitter_typescript", "language_typescript"),
    ".tsx": ("typescript", "tree_sitter_typescript", "language_tsx"),
    ".go": ("go", "tree_sitter_go", "language"),
    ".rs": ("rust", "tree_sitter_rust", "language"),
    ".java": ("java", "tree_sitter_java", "language"),
    ".c": ("c", "tree_sitter_c", "language"),
    ".h": ("c", "tree_sitter_c", "language"),
    ".cc": ("cpp", "tree_sitter_cpp", "language"),
    ".cpp": ("cpp", "tree_sitter_cpp", "language"),
    ".cxx": ("cpp", "tree_sitter_cpp", "language"),
    ".hpp": ("cpp", "tree_sitter_cpp", "language"),
    ".hh": ("cpp", "tree_sitter_cpp", "language"),
}

# Text files without a grammar that are still worth indexing (line windows).
PLAIN_EXTENSIONS = {".md", ".rst", ".txt", ".toml", ".yaml", ".yml", ".json", ".sh", ".rb", ".php", ".kt",
                    ".swift", ".cs", ".scala", ".lua", ".sql", ".html", ".css", ".scss", ".vue", ".cfg", ".ini"}


def language_of(path: str) -> str | None:
    entry = EXTENSIONS.get(Path(path).suffix.lower())
    return entry[0] if entry else None


def indexable(path: str) -> bool:
    suffix = Path(path).suffix.lower()
    return suffix in EXTENSIONS or suffix in PLAIN_EXTENSIONS


@lru_cache(maxsize=None)
def grammar(path_suffix: str):
    """(Language, Query) for a file suffix, or None when no grammar is installed."""
    entry = EXTENSIONS.get(path_suffix)
    if entry is None:
        return None
    lang_name, module, func = entry
    try:
        from tree_sitter import Language, Query

        lang = Language(getattr(importlib.import_module(module), func)())
        query = Query(lang, (QUERIES / f"{lang_name}.scm").read_text())
    except Exception as exc:  # grammar package missing or incompatible: line windows instead
        log.warning("no tree-sitter grammar for %s (%s); using line windows", lang_name, exc)
        return None
    return lang, query
