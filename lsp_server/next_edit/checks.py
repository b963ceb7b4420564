"""Does a pattern's prediction make sense where it lands? tree-sitter facts about the document.

A transformation seen in code is not carried into a docstring or a comment (a renamed variable
is not renamed in prose), nor the other way round; and a prediction that would make the file
parse worse is no prediction (`# noqa` inserted mid-line, an annotation on a `class` line)."""
from __future__ import annotations

import os

from lsp_server.syntax.check import count_errors, parser_for
from lsp_server.next_edit.patterns import Change

STRING_NODES = frozenset({"string", "string_content", "template_string", "string_fragment", "raw_string_literal",
                          "interpreted_string_literal", "string_literal", "concatenated_string"})
COMMENT_NODES = frozenset({"comment", "line_comment", "block_comment"})
FUNCTION_NODES = frozenset({"function_definition", "function_declaration", "method_definition", "function_item",
                            "method_declaration", "arrow_function", "function_expression"})


class Checker:
    """One parse of the current text; each candidate costs one more parse."""

    def __init__(self, path: str, text: str) -> None:
        self.lines = text.split("\n")
        self.parser = parser_for(path)
        if self.parser is not None:
            self.tree = self.parser.parse(text.encode("utf-8"))
            self.errors = count_errors(self.tree.root_node)

    def region(self, line: int, column: int) -> str:
        """code | string | comment at a position (code-point column)."""
        if self.parser is None or not (0 <= line < len(self.lines)):
            return "code"
        col = len(self.lines[line][:column].encode("utf-8"))
        node = self.tree.root_node.descendant_for_point_range((line, col), (line, col))
        while node is not None:
            if node.type in COMMENT_NODES:
                return "comment"
            if node.type in STRING_NODES:
                return "string"
            node = node.parent
        return "code"

    def scope(self, line: int) -> tuple[int, int] | None:
        """Lines (first, last) of the innermost function around `line`, or None at module level."""
        if self.parser is None or not (0 <= line < len(self.lines)):
            return None
        indent = len(self.lines[line]) - len(self.lines[line].lstrip())
        node = self.tree.root_node.descendant_for_point_range((line, indent), (line, indent))
        while node is not None:
            if node.type in FUNCTION_NODES and node.start_point[0] < line:
                return node.start_point[0], node.end_point[0]
            node = node.parent
        return None

    def accepts(self, change: Change, where: str, local_to: tuple[int, int] | None = None) -> bool:
        """`where`: the region the last edit changed; `local_to`: the function a local name's
        change stays in. The same region here, inside that function, and no new syntax errors."""
        if self.parser is None:
            return True
        if self.region(change.line, change.start) != where:
            return False
        if local_to is not None and not (local_to[0] <= change.line <= local_to[1]):
            return False
        line = self.lines[change.line]
        return self.parses(change.line, [line[:change.start] + change.text + line[change.end:]])

    def accepts_lines(self, start: int, new_lines: list[str], where: str) -> bool:
        """The same for a hunk replacing len(new_lines) lines from `start`."""
        if self.parser is None:
            return True
        at = len(os.path.commonprefix([self.lines[start], new_lines[0]]))
        return self.region(start, at) == where and self.parses(start, new_lines)

    def parses(self, start: int, new_lines: list[str]) -> bool:
        """No more syntax errors with lines start.. replaced by new_lines (as many)."""
        lines = list(self.lines)
        lines[start:start + len(new_lines)] = new_lines
        return count_errors(self.parser.parse("\n".join(lines).encode("utf-8")).root_node) <= self.errors
