"""Model rewrite: the local model rewrites a small region around the cursor, with the recent
edits in its prompt, and the difference is the predicted edit.

The prompt format is data (FORMAT_VERSION) and a pure function of its inputs. Decoding is the
engine's greedy loop with drafts: the region's current text is in the prompt, so prompt-lookup
drafts propose the unchanged lines and a whole unchanged stretch costs one verification pass.
Silence unless the mean log-probability of the tokens of the changed lines clears a threshold
(tuned on bench/next_edit.py): a wrong suggestion costs the user more than none.
"""
from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass

import re

from lsp_server.inference.generate import GenerationConfig

FORMAT_VERSION = 2
# The region: the centre line, 1 line above, 9 below. Replayed releases put the next hunk below
# the last one more often than above; 11 lines hold it about twice as often as 6 did
# (bench/next_edit.py tasks), and unchanged lines cost little to write back (drafts).
BEFORE, AFTER = 1, 10
RECENT_EDITS = 3              # the newest edits shown, as diffs
CONTEXT_LINES = 8             # shown above the region, read-only: each prompt token is prefill time
MAX_EDIT_CHARS = 1500         # recent edits in the prompt, newest kept
# The confidence needed to speak (mean log-prob of the changed lines' tokens) belongs to the
# trained adapter: models/manifest.toml, tuned on the validation split. The untrained model was
# right 0 times in 19 suggestions at any threshold, so without the adapter the path is off.
FENCE = "```"
TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\S")

SYSTEM = ("You predict the next edit a programmer will make. You see their recent edits and a region "
          "of the file. Rewrite the region exactly as it will be right after their next edit, which "
          "usually continues the pattern of the recent edits. If nothing in the region needs to change, "
          "repeat it unchanged. Answer with the region only.")


@dataclass(frozen=True)
class Rewrite:
    start_line: int        # 0-based, inclusive
    end_line: int          # 0-based, exclusive (== start for an insertion)
    new_lines: list[str]
    confidence: float      # mean log-prob of the changed lines' tokens


def region_for(n_lines: int, cursor_line: int) -> tuple[int, int]:
    start = max(0, cursor_line - BEFORE)
    return start, min(n_lines, cursor_line + AFTER)


def candidate_line(lines: list[str], edited_line: int, old: str) -> int | None:
    """The line most like the edited line's old text, away from the edit: where the same edit
    would be made next (token-set similarity; None when nothing is alike)."""
    want = set(TOKEN.findall(old)) - {"", " "}
    if not want:
        return None
    best, best_score = None, 0.35
    for n, line in enumerate(lines):
        if abs(n - edited_line) <= 1 or not line.strip():
            continue
        have = set(TOKEN.findall(line))
        score = len(want & have) / len(want | have)
        if score > best_score:
            best, best_score = n, score
    return best


def region_centre(lines: list[str], cursor_line: int, last_pair: tuple[int, str, str] | None) -> int:
    """Where the server centres the region: on the line most like the last edit's old text (the
    next place for the same edit) when there is one, else on the cursor. The training data uses
    it too, so the model learns the regions it will be shown."""
    centre = min(cursor_line, len(lines) - 1)
    if last_pair is not None:
        place = candidate_line(lines, last_pair[0], last_pair[1])
        if place is not None:
            centre = place
    return max(centre, 0)


def build_prompt(path: str, lines: list[str], start: int, end: int, diffs: list[str]) -> str:
    """Qwen2.5 chat format; the assistant turn opens the code fence so the answer is code."""
    edits = ""
    for d in reversed(diffs):  # newest first into the budget, printed oldest first
        if len(edits) + len(d) > MAX_EDIT_CHARS:
            break
        edits = d.rstrip("\n") + "\n" + edits
    above = "\n".join(lines[max(0, start - CONTEXT_LINES):start])
    region = "\n".join(lines[start:end])
    user = (f"Recent edits (oldest first):\n{FENCE}diff\n{edits}{FENCE}\n\n"
            f"File {path}, the lines before the region:\n{FENCE}\n{above}\n{FENCE}\n\n"
            f"Region (lines {start + 1}-{end}) to rewrite:\n{FENCE}\n{region}\n{FENCE}")
    return (f"<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n"
            f"<|im_start|>assistant\n{FENCE}\n")


def diff_region(old: list[str], new: list[str]) -> tuple[int, int, list[str]] | None:
    """The one changed block between two versions of the region (None: equal or scattered)."""
    ops = [op for op in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes() if op[0] != "equal"]
    if not ops:
        return None
    i1, i2, j1, j2 = ops[0][1], ops[-1][2], ops[0][3], ops[-1][4]
    return i1, i2, new[j1:j2]


def parse_answer(answer: str) -> list[str] | None:
    """The region's lines from the model's answer (the lines, a newline, the closing fence; the
    prompt opened the fence); None when the fence never came (stopped or out of tokens)."""
    if FENCE not in answer:
        return None
    body = answer.split(FENCE)[0]
    return body[:-1].split("\n") if body.endswith("\n") else body.split("\n") if body else []


RESYNC = 2  # unchanged lines after a changed block that end the decoding (not all blank)


def resynced(old: list[str], new: list[str]) -> list[str] | None:
    """The whole rewritten region when the complete lines `new` written so far have changed a
    block of `old` and then gone back to copying it for RESYNC lines that `old` has once after
    the block: the rest is `old`'s (None: no change yet, or not back in step). The benchmark's
    and the server's next edit is one changed block, so a second change could only make the
    answer wrong: copying the region's rest token by token buys nothing but time."""
    d = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
    tail = new[-RESYNC:]
    if len(new) - RESYNC < d or not any(x.strip() for x in tail):
        return None  # no change yet, the change still being written, or only blank lines to go by
    places = [j for j in range(d, len(old) - RESYNC + 1) if old[j:j + RESYNC] == tail]
    if len(places) != 1:
        return None
    return new + old[places[0] + RESYNC:]


def confidence_of(new: list[str], i1: int, n_changed: int, spans: list[tuple[int, int]],
                  logprobs: list[float]) -> float:
    """Mean log-prob of the tokens that wrote the changed lines new[i1:i1 + n_changed] (a deletion:
    the token that ends the line before). Everything before i1 is equal in both versions."""
    offsets = [0]
    for line in new:
        offsets.append(offsets[-1] + len(line) + 1)
    lo = offsets[min(i1, len(new))]
    hi = offsets[min(i1 + n_changed, len(new))]
    lps = [lp for (a, b), lp in zip(spans, logprobs) if b > lo and a < max(hi, lo + 1)]
    return float(sum(lps) / len(lps)) if lps else float("-inf")


def decode_region(engine, prompt: list[int], old: list[str], max_new_tokens: int = 256,
                  cancelled: Callable[[], bool] = lambda: False) -> Rewrite | None:
    """The model's rewrite of the region `old` as the one changed block, with its confidence
    (lines relative to the region); None: unchanged, incomplete, or much shorter (a truncated
    answer). Greedy, on the engine's second KV cache; drafts come from the region in the prompt."""
    tok = engine.tokenizer
    logprobs: list[float] = []
    cfg = GenerationConfig(max_new_tokens=max_new_tokens, stop_ids=engine.stop_ids, speculate=True, logprobs=logprobs)
    out: list[int] = []
    spans: list[tuple[int, int]] = []  # character span of each token in the decoded answer
    answer, new, lines_seen = "", None, 0
    for t in engine.generate(prompt, cfg, cancelled, side=True):
        out.append(t)
        decoded = tok.decode(out)
        spans.append((len(answer), len(decoded)))
        answer = decoded
        if FENCE in answer:
            new = parse_answer(answer)
            break
        if (seen := answer.count("\n")) > lines_seen:  # a line completed: back in step with the region?
            lines_seen = seen
            new = resynced(old, answer.split("\n")[:-1])
            if new is not None:
                break
    if cancelled():
        new = None
    changed = diff_region(old, new) if new is not None else None
    if changed is None or len(new) < len(old) - 2:
        return None
    i1, i2, block = changed
    return Rewrite(i1, i2, block, confidence_of(new, i1, len(block), spans, logprobs))


def rewrite(engine, path: str, text: str, cursor_line: int, diffs: list[str], max_new_tokens: int = 256,
            threshold: float | None = None, last_pair: tuple[int, str, str] | None = None,
            cancelled: Callable[[], bool] = lambda: False) -> Rewrite | None:
    """last_pair: (line, old, new) of the last edit; the region goes around the line most like
    its old text when there is one (the next place), else around the cursor. threshold: None
    takes the installed model's (engine.next_edit_threshold; a model without Tandem's adapter
    stays silent). `cancelled` stops the decoding between forward passes."""
    if threshold is None:
        threshold = getattr(engine, "next_edit_threshold", None)
    lines = text.split("\n")
    if threshold is None or not diffs or not lines:
        return None
    start, end = region_for(len(lines), region_centre(lines, cursor_line, last_pair))
    prompt = engine.tokenizer.encode(build_prompt(path, lines, start, end, diffs[-RECENT_EDITS:]))
    r = decode_region(engine, prompt, lines[start:end], max_new_tokens, cancelled)
    if r is None or r.confidence < threshold:
        return None
    return Rewrite(start + r.start_line, start + r.end_line, r.new_lines, r.confidence)
