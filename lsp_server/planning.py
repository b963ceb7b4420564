"""Planning a change, the use case both adapters share (the LSP command in plan_command.py, the CLI
in cli_plan.py): gather what may be sent → plan (frontier model, streamed) → expand each sketch
locally as it arrives → send the ones the expander could not place back with the reason (up to
`repair_rounds` times) → expand again whatever changed meanwhile. All or nothing: the outcome
holds every file's change, or the reasons nothing may be applied. Where the text comes from and
where the edit goes is the workspace's business (editor buffers and a WorkspaceEdit, or the disk).
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from lsp_server.apply.change import Failure, FileChange, expand_one, refusal
from lsp_server.planner.client import PlannerConfig, PlannerError, PlanResult, plan, repair
from lsp_server.planner.context import gather

log = logging.getLogger("tandem")


@dataclass(frozen=True)
class PlanTask:
    instruction: str
    current: tuple[str, str] | None = None     # (path relative to the root, text) the user is in
    selection: tuple[int, int] | None = None   # 1-based inclusive lines of `current`


class Workspace(Protocol):
    root: Path

    def read(self, path: Path) -> str | None:
        """The text now (an editor's buffer, else the disk); None: no such file. Raises TandemError."""

    def unchanged(self, change: FileChange) -> bool:
        """The file is still the text `change` was expanded from."""

    def search(self, query: str, k: int) -> list:
        """Retrieval hits for the instruction ([] without an index)."""


@dataclass
class PlanOutcome:
    changes: list[FileChange] = field(default_factory=list)
    error: str | None = None                   # None: every file's change is in `changes`
    planner_failed: bool = False               # the error is the planner's (not the expander's)
    failed: list[Failure] = field(default_factory=list)
    sent: list[str] = field(default_factory=list)
    withheld: list[str] = field(default_factory=list)
    redacted: list[str] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)  # files whose rewritten sketch expanded

    def as_dict(self) -> dict:
        return {"sent": self.sent, "withheld": self.withheld, "redacted": self.redacted,
                "failed": [{"path": f.path, "reason": f.reason} for f in self.failed], "repaired": self.repaired,
                "summaries": {c.path: c.summary for c in self.changes}}


async def run_plan(task: PlanTask, workspace: Workspace, cfg: PlannerConfig, chooser,
                   report: Callable[[str], None]) -> PlanOutcome:
    """`report` is called on the caller's event loop with each step for the user."""
    loop = asyncio.get_running_loop()
    root = workspace.root
    gathered = await asyncio.to_thread(gather, root, task.instruction, task.current, task.selection, workspace.search)
    outcome = PlanOutcome(sent=gathered.sent, withheld=gathered.withheld, redacted=gathered.redacted)
    report(gathered.announce(cfg.model))
    expand = lambda sketch: expand_one(root, sketch, workspace.read, chooser)  # noqa: E731
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tandem-expand")
    futures: list[Future] = []

    def on_sketch(sketch) -> None:  # planner thread: expand while the rest streams in
        futures.append(pool.submit(expand, sketch))
        loop.call_soon_threadsafe(report, f"expanding file {len(futures)}: {sketch.path}")

    try:
        result = await asyncio.to_thread(plan, gathered.request, cfg, on_sketch)
        outcomes = [await asyncio.wrap_future(f) for f in futures]
    except PlannerError as exc:
        outcome.error, outcome.planner_failed = str(exc), True
        return outcome
    finally:
        pool.shutdown(wait=False)
    sketches = list(result.sketches)  # sketches[k] made outcomes[k]
    outcome.repaired = await asyncio.to_thread(
        repair_failures, result, sketches, outcomes, cfg, expand, lambda m: loop.call_soon_threadsafe(report, m))
    for k, _ in enumerate(outcomes, 1):
        report(f"expanded file {k} of {len(outcomes)}")
    outcome.failed = [o for o in outcomes if isinstance(o, Failure)]
    outcome.changes = [o for o in outcomes if isinstance(o, FileChange)]
    outcome.error = refusal(outcomes)
    if outcome.error is None:
        fresh = await refresh_stale(outcome.changes, sketches, workspace, expand)
        if isinstance(fresh, str):
            outcome.error = fresh
        else:
            outcome.changes = fresh
    return outcome


async def refresh_stale(changes: list[FileChange], sketches: list, workspace: Workspace, expand):
    """A file that changed while the plan was being made is expanded again against its new text;
    if it moves again, the plan is abandoned rather than applied to stale text."""
    by_path = {s.path: s for s in sketches}
    out = []
    for change in changes:
        if workspace.unchanged(change):
            out.append(change)
            continue
        log.info("%s changed while planning: expanding again", change.path)
        again = await asyncio.to_thread(expand, by_path[change.path])
        if isinstance(again, Failure) or not workspace.unchanged(again):
            return f"{change.path} kept changing while the plan was made; nothing was applied"
        out.append(again)
    return out


def repair_failures(result: PlanResult, sketches: list, outcomes: list, cfg: PlannerConfig, expand,
                    report=lambda message: None) -> list[str]:
    """Sketches the expander could not place go back to the planner with its reasons, in the
    same conversation, up to `cfg.repair_rounds` times; each file's new sketch, expanded, replaces its
    failure (in place: sketches[k] made outcomes[k]). Not when a path was refused: that plan
    fails whatever comes back. A failed repair request leaves the first failures standing.
    Returns the paths whose rewritten sketch expanded."""
    repaired: list[str] = []
    for _ in range(cfg.repair_rounds):
        failed = [k for k, o in enumerate(outcomes) if isinstance(o, Failure)]
        if not failed or not all(outcomes[k].sketch_fault for k in failed):
            break
        paths = sorted({outcomes[k].path for k in failed})
        report(f"asking {cfg.model} to rewrite {len(failed)} sketch(es) Tandem could not place: {', '.join(paths)}")
        try:
            result = repair(result, [(outcomes[k].path, outcomes[k].reason) for k in failed], cfg)
        except PlannerError as exc:
            log.info("planner repair round: %s", exc)
            break
        again: dict[str, list] = {}
        for s in result.sketches:
            again.setdefault(s.path, []).append(s)
        for k in failed:
            if again.get(outcomes[k].path):
                sketches[k] = again[outcomes[k].path].pop(0)
                outcomes[k] = expand(sketches[k])
                if not isinstance(outcomes[k], Failure):
                    repaired.append(outcomes[k].path)
    return repaired
