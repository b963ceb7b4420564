"""Elision markers: the comment lines a sketch uses for "unchanged code goes here".

Pure functions. A line is a marker when it is a short comment (in any common comment syntax) that says so:
`# ... existing code ...`, `// rest of the file unchanged`, `/* … */`, `<!-- ... -->`. A line that also exists verbatim
in the original is never a marker (it is code the sketch kept)."""
from __future__ import annotations

import re
from collections.abc import Container
from pathlib import Path

_COMMENT = r"(?:#+|//+|/\*+|<!--|--|;+|\*|\{/\*)"
_PHRASE = (r"(?:existing code|unchanged|rest of (?:the )?(?:file|code|class|function|method|body|implementation|module)"
           r"|remaining (?:code|methods|functions|lines|body)|(?:code|lines|body) omitted|omitted for brevity"
           r"|same as before|previous code|other (?:methods|functions|code))")
# the comment starts with an ellipsis, or says "existing code" & co. in a short comment
MARKER = re.compile(rf"^\s*{_COMMENT}\s*(?:(?:\.\.\.|…)(?:[^\w]*|.{{0,50}}{_PHRASE}.{{0,30}})|[\[(]?\s*{_PHRASE}.{{0,40}})$",
                    re.IGNORECASE)

LINE_COMMENT = {
    ".py": "#", ".pyi": "#", ".sh": "#", ".rb": "#", ".toml": "#", ".yaml": "#", ".yml": "#", ".r": "#",
    ".js": "//", ".mjs": "//", ".cjs": "//", ".jsx": "//", ".ts": "//", ".tsx": "//", ".go": "//",
    ".rs": "//", ".java": "//", ".c": "//", ".h": "//", ".cc": "//", ".cpp": "//", ".hpp": "//",
    ".cs": "//", ".kt": "//", ".swift": "//", ".scala": "//", ".php": "//", ".css": "/*",
    ".lua": "--", ".sql": "--", ".html": "<!--", ".md": "<!--", ".vue": "//",
}


def is_marker(line: str, original_keys: Container[str] = frozenset()) -> bool:
    key = line.strip()
    if not key or key in original_keys:
        return False
    # A bare `...` is not a marker: in Python it is code (stub bodies, overloads).
    return bool(MARKER.match(line))


def marker_for(path: str) -> str:
    """The marker in a file's own comment syntax (for prompts and benchmark sketches)."""
    opener = LINE_COMMENT.get(Path(path).suffix.lower(), "#")
    closer = {"/*": " */", "<!--": " -->"}.get(opener, "")
    return f"{opener} ... existing code ...{closer}"
