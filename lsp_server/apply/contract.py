"""The sketch contract: what a sketch means, row by row (pure data, versioned).

One source for three readers: docs/sketch-contract.md is this table (a test keeps them equal),
the planner's system prompt carries it (planner/prompt.py), and the expander implements it
(tests/apply/test_contract.py has a test per row, in Python and in JavaScript). A change of a
row is a change of CONTRACT_VERSION.
"""
from __future__ import annotations

CONTRACT_VERSION = 5  # 2: doc_comment_rewritten; 3: imports with names added or removed are edits; 4: weak anchors whose edits fit one place, the second reading of new definitions and comments, comment-only bodies; 5: Go's `import (` edits a one-line import

# (row, what the sketch shows, what it means)
ROWS: tuple[tuple[str, str, str], ...] = (
    ("whole_file", "no marker, starting at the file's first line or ending at its last (or at least half as long as the file)",
     "the whole new file"),
    ("fragment", "no marker, its first and last lines taken from the middle of the file",
     "a fragment: the lines around it stay"),
    ("no_marker_unclear", "no marker otherwise", "refused: nobody can tell what it replaces"),
    ("leading_marker_appends", "a marker first, and new code last with no marker after it",
     "the new code ends the file (it is appended, or replaces what follows the last line shown; "
     "context the file has in several places is the last of them)"),
    ("first_lines_then_marker", "the file's first lines, a marker, then new code", "the marker stands for everything between"),
    ("trailing_marker_replaces_head", "no marker first, a marker last",
     "the sketch starts at the file's first line: lines above the first line it shows are deleted"),
    ("forgotten_leading_marker", "no marker first, and above its first shown line more than three lines (and more "
     "than it writes) that end inside a block or are over a quarter of the file",
     "refused: a forgotten marker (likewise at the end)"),
    ("head_deleted_without_leading_marker", "no marker first, a few lines or whole top-level statements above its "
     "first shown line", "those lines are deleted, as the rule above says (likewise at the end)"),
    ("middle_marker", "a marker between two shown lines", "the unchanged lines between them"),
    ("marker_indentation_keeps_code", "a marker's indentation",
     "a hint between equally good readings, never a reason to delete code"),
    ("shown_line_is_the_files", "a line equal to a line of the file (indentation aside)",
     "that line, kept as the file has it (trailing whitespace too); written deeper or shallower, it is moved there"),
    ("deletion_by_adjacency", "two shown lines with nothing between them", "the file's lines between them are deleted"),
    ("closing_bracket_of_a_shown_block", "a closing bracket under a block's first line that the sketch shows and the "
     "file has once", "that block's closing bracket in the file: the lines between it and the line above are deleted (or kept, by a "
     "marker indented inside the block)"),
    ("alike_line_edited", "a new line where the file has an alike line (same statement head, or nearly the same "
     "text at the same depth, or one name renamed, or the same line without its trailing comment, or an import "
     "from the same place with names added or removed, or Go's `import (` for a one-line import); a new `return` or `raise` right before a kept one of the "
     "same head", "an edit of that line (of several alike lines, the one between the stretches around it)"),
    ("doc_comment_rewritten", "after a marker, new comment lines right above a definition it shows, where the file's "
     "comment above that definition says much the same (half of its words)",
     "the definition's comment rewritten: the old one goes (a comment about something else is added above it; a "
     "new comment where the file has none is added, its delimiters no anchors)"),
    ("new_lines_between_shown_lines", "new lines between shown lines",
     "inserted there, in the file's indentation (tabs or spaces, the sketch's offset undone)"),
    ("block_body_rewritten", "a block's first line, then only new lines, then a marker no deeper than that line",
     "the block's body written anew: the old body goes, if the new one ends the block (`return`, `raise`...) "
     "or rewrites a definition in at least half as many lines (comments or a docstring alone are no body: they head "
     "the one the marker keeps)"),
    ("block_body_or_addition", "the same, otherwise", "refused: an addition at the block's start reads as well"),
    ("floating_code_ambiguous", "new code between two markers, with no line of the file",
     "placed in the one gap between statements at its depth between the stretches around it; in several, "
     "the local model's likelihood picks one, else refused with the number of places"),
    ("floating_import", "new imports alone between two markers",
     "in the file's first run of imports, where its sorted order puts them (else after it)"),
    ("weak_anchor_ambiguous", "a stretch between markers whose shown lines the file has together in several places",
     "refused with the number of places, unless at only one of them the lines it writes anew edit lines like them"),
    ("copy_of_the_definition_above", "new code that copies lines of the definition next to it",
     "new code: the first and last shown lines of a stretch are its context, and a definition whose name "
     "the sketch still uses is never deleted or renamed; when reading its lines as the file's does not verify "
     "or moves a line the sketch shows as the file has it, the body of a definition the file has under no name "
     "is read as new"),
    ("empty_marker_beside_deletion", "a marker that stands for no line, next to lines the sketch deletes",
     "refused: the marker was written for code the alignment took"),
    ("result_must_parse", "a result that parses worse than the original", "refused"),
    ("import_repeated", "a result that imports a name twice (Python's top-level imports, Go's import paths)",
     "refused: the sketch rewrote an import without showing the one it replaces"),
    ("definition_repeated", "a result defining a name twice in a row at one depth, one of them new (overloads and "
     "decorated definitions aside)", "refused: the sketch changed the definition's first line without showing it as the "
     "file has it"),
    ("context_line_copied", "a line of the file written anew next to a marker that keeps the same line",
     "refused: it was context, or moved code (a new definition copying a line, or a block keyword such as "
     "`try {`, is not refused)"),
    ("definition_spacing", "a new definition right after code a marker keeps",
     "at least the blank lines the file puts before its definitions at that depth; otherwise blank lines "
     "are the sketch's, and the file's blank lines next to kept code stay with it"),
)


def markdown() -> str:
    """The table as docs/sketch-contract.md has it."""
    out = ["| row | the sketch shows | it means |", "|---|---|---|"]
    out += [f"| `{row}` | {shows} | {means} |" for row, shows, means in ROWS]
    return "\n".join(out) + "\n"


def prompt_text() -> str:
    """The table as the planner's system prompt carries it."""
    lines = [f"How Tandem reads a sketch (contract v{CONTRACT_VERSION}):"]
    lines += [f"- {shows}: {means}." for _, shows, means in ROWS]
    return "\n".join(lines)
