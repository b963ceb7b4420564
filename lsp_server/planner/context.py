"""What the planner may see: the current file, the selection and the top retrieved chunks for
the instruction, minus anything ignored (.gitignore / .tandemignore) or a secret file, with
credential values redacted. The withheld and redacted lists are shown to the user together with
the sent list."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from lsp_server.planner.prompt import ContextFile, PlanRequest
from lsp_server.secrets import redact, withheld_reason
from lsp_server.retrieval.walker import IgnoreRules

RELATED_CHUNKS = 8


@dataclass
class Gathered:
    request: PlanRequest
    withheld: list[str] = field(default_factory=list)  # "path (reason)"
    redacted: list[str] = field(default_factory=list)  # "path (N credential values)"

    @property
    def sent(self) -> list[str]:
        """The paths whose text goes to the planner, once each, in prompt order."""
        files = ([self.request.current] if self.request.current else []) + list(self.request.related)
        return list(dict.fromkeys(f.path for f in files))

    def announce(self, model: str) -> str:
        """What the user is told before anything leaves the machine."""
        return (f"asking {model}; sending {', '.join(self.sent) or 'the instruction only'}"
                + (f"; withheld {', '.join(self.withheld)}" if self.withheld else "")
                + (f"; redacted {', '.join(self.redacted)}" if self.redacted else ""))


def is_ignored(root: Path, rel: str) -> bool:
    """The same rules the index applies: nested .gitignore files, .tandemignore."""
    rules = IgnoreRules(root)
    parts = rel.split("/")
    for i in range(1, len(parts)):
        rules.load_dir("/".join(parts[:i]))
        if rules.ignored("/".join(parts[:i]), is_dir=True):
            return True
    return rules.ignored(rel)


def gather(root: Path, instruction: str, current: tuple[str, str] | None = None,
           selection: tuple[int, int] | None = None,
           search: Callable[[str, int], list] | None = None) -> Gathered:
    """current = (relative path, text); selection = 1-based inclusive lines; search(query, k)
    returns retrieval hits (objects with .chunk.path/.start_line/.end_line/.text)."""
    withheld: list[str] = []
    redactions: dict[str, int] = {}

    def cleaned(path: str, text: str) -> str:
        r = redact(text)
        if r.values:
            redactions[path] = redactions.get(path, 0) + r.values
        return r.text

    cur = sel = None
    if current is not None:
        rel, text = current
        reason = "ignored by .gitignore/.tandemignore" if is_ignored(root, rel) else withheld_reason(rel)
        if reason:
            withheld.append(f"{rel} ({reason})")
        else:
            text = cleaned(rel, text)
            cur = ContextFile(rel, text)
            if selection:
                lines = text.split("\n")
                lo, hi = max(1, selection[0]), min(len(lines), selection[1])
                if lo <= hi:
                    sel = ContextFile(rel, "\n".join(lines[lo - 1:hi]), (lo, hi))
    related: list[ContextFile] = []
    if search is not None:
        for hit in search(instruction, RELATED_CHUNKS * 2):
            c = hit.chunk
            if cur is not None and c.path == cur.path:
                continue  # the whole file is already there
            reason = withheld_reason(c.path) or ("ignored" if is_ignored(root, c.path) else None)
            if reason:
                if not any(w.startswith(c.path + " ") for w in withheld):
                    withheld.append(f"{c.path} ({reason})")
                continue
            related.append(ContextFile(c.path, cleaned(c.path, c.text), (c.start_line, c.end_line)))
            if len(related) >= RELATED_CHUNKS:
                break
    redacted = [f"{p} ({n} credential value{'s' if n > 1 else ''})" for p, n in redactions.items()]
    return Gathered(PlanRequest(instruction=instruction, current=cur, selection=sel, related=tuple(related)), withheld,
                    redacted)
