"""The planner's prompt and tool schema (pure; versioned as data).

The frontier model decides *what* changes and writes it as sketches: changed code in full,
unchanged stretches replaced by a marker comment. The local expander (lsp_server/apply) turns
each sketch into the exact file. The system prompt and the tool definition are the stable part
of every request and carry the prompt-caching marker.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from lsp_server.apply.contract import prompt_text

PROMPT_VERSION = 6  # 2: the sketch contract's table (apply/contract.py) follows the sketch rules; 3: contract v2; 4: v3; 5: v4; 6: v5
CHARS_PER_TOKEN = 3.5  # conservative for code; the budget is a guard, not an exact count

SYSTEM = """You are the planning half of Tandem, a code editing assistant. You decide what to \
change to carry out the user's instruction and write each changed file as a *sketch*; a local \
tool expands every sketch into the full file, so you never write out unchanged code.

Sketch rules:
- Call the propose_edits tool once, with one entry per file to change or create.
- Write changed and new code in full, exactly as it must appear, with its real indentation.
- Replace every stretch of unchanged code by one comment line in the file's own comment syntax, \
indented like the code it stands for: `# ... existing code ...` in Python, \
`// ... existing code ...` in JavaScript/TypeScript/Go/Rust/Java/C, `<!-- ... existing code ... -->` in HTML.
- Start the sketch with such a marker unless the change begins at the file's first line, and \
end it with one unless the change reaches the file's last line: a sketch with markers describes \
the whole file, so lines that are neither shown nor covered by a marker are deleted.
- Around each change keep two or three unchanged lines (the def/class line of a changed \
function, the lines right before and after an insertion) so the change can be located.
- To delete code, show the lines just before and after it with nothing between them.
- For a new file, write the complete content with no markers.
- Paths are relative to the workspace root, with forward slashes.
- Keep the summary to one short sentence per file.
If the instruction is unclear or cannot be done safely, do not call the tool: answer in one or \
two sentences saying why.

""" + prompt_text()

TOOL = {
    "name": "propose_edits",
    "description": "Propose the change as one sketch per file (see the sketch rules).",
    "input_schema": {
        "type": "object",
        "properties": {
            "edits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string", "description": "file path relative to the workspace root"},
                        "sketch": {"type": "string", "description": "changed code with marker comments for unchanged code"},
                        "summary": {"type": "string", "description": "one sentence: what changes in this file"},
                    },
                    "required": ["path", "sketch"],
                },
            },
        },
        "required": ["edits"],
    },
    "cache_control": {"type": "ephemeral"},
}


@dataclass(frozen=True)
class ContextFile:
    path: str
    text: str
    lines: tuple[int, int] | None = None  # 1-based span when this is part of a file


@dataclass(frozen=True)
class PlanRequest:
    instruction: str
    current: ContextFile | None = None
    selection: ContextFile | None = None
    related: tuple[ContextFile, ...] = ()


@dataclass
class Prompt:
    system: list[dict]
    messages: list[dict]
    sent: list[str] = field(default_factory=list)      # paths whose text is in the prompt
    dropped: list[str] = field(default_factory=list)   # left out for the token budget


def _block(tag: str, f: ContextFile) -> str:
    span = f" lines=\"{f.lines[0]}-{f.lines[1]}\"" if f.lines else ""
    return f"<{tag} path=\"{f.path}\"{span}>\n{f.text}\n</{tag}>\n"


def build_prompt(req: PlanRequest, budget_tokens: int) -> Prompt:
    """System blocks + one user message within the budget: the instruction, the selection and
    the current file always (the current file cut around the selection if it must be), then
    related chunks in rank order while they fit."""
    budget = int(budget_tokens * CHARS_PER_TOKEN)
    parts: list[str] = []
    sent: list[str] = []
    dropped: list[str] = []
    tail = f"<instruction>\n{req.instruction.strip()}\n</instruction>\n"
    used = len(SYSTEM) + len(tail)
    if req.selection:
        block = _block("selection", req.selection)
        parts.append(block)
        used += len(block)
    if req.current:
        block = _block("current_file", req.current)
        if used + len(block) > budget:
            block = _block("current_file", _cut(req.current, req.selection, budget - used))
        parts.insert(0, block)
        used += len(block)
        sent.append(req.current.path)
    for f in req.related:
        block = _block("related_code", f)
        if used + len(block) > budget:
            dropped.append(f.path)
            continue
        parts.append(block)
        used += len(block)
        if f.path not in sent:
            sent.append(f.path)
    text = "".join(parts) + tail
    return Prompt(system=[{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}],
                  messages=[{"role": "user", "content": [{"type": "text", "text": text}]}],
                  sent=sent, dropped=dropped)


def _cut(current: ContextFile, selection: ContextFile | None, chars: int) -> ContextFile:
    """The part of the current file that fits, centred on the selection (or its start)."""
    lines = current.text.split("\n")
    centre = (selection.lines[0] - 1) if selection and selection.lines else 0
    lo = hi = max(0, min(centre, len(lines) - 1))
    size = len(lines[lo]) + 1 if lines else 0
    while True:
        grew = False
        if hi + 1 < len(lines) and size + len(lines[hi + 1]) + 1 <= chars:
            hi += 1
            size += len(lines[hi]) + 1
            grew = True
        if lo > 0 and size + len(lines[lo - 1]) + 1 <= chars:
            lo -= 1
            size += len(lines[lo]) + 1
            grew = True
        if not grew:
            break
    return ContextFile(current.path, "\n".join(lines[lo:hi + 1]), (lo + 1, hi + 1))


REPAIR = """The local expander could not place these sketches in their files:
{failures}
Call propose_edits again with a new sketch for each of these files only, following the sketch \
rules. Show more unchanged lines around each change: lines that occur only once in the file \
(the def/class line of the function you change, a distinctive statement), so each change has \
one place. Do not elide code you changed or added."""


def repair_turn(tool_use_id: str, failures: list[tuple[str, str]]) -> dict:
    """The user's turn after the planner's answer when some of its sketches failed to expand:
    the tool's result, an error naming each file and the expander's reason (reasons quote only
    lines the sketch wrote and line numbers, never code that was not sent)."""
    listed = "\n".join(f"- {path}: {reason}" for path, reason in failures)
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use_id, "is_error": True,
                                         "content": REPAIR.format(failures=listed)}]}
