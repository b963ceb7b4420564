"""Text helpers every layer may use: indentation, word characters, and the one family of patterns
for "a definition line" (Python, JavaScript/TypeScript, Go, Rust, Java-like). Pure functions on
strings; nothing of Tandem's is imported here."""
from __future__ import annotations

import re
from functools import lru_cache

# A class member of JavaScript/TypeScript that opens its body on its own line: `cleanup() {`,
# `private async load(id: string): Promise<T> {`, `get size() {`. No keyword names it, so the
# shape does: a name (not a statement keyword), parameters, an optional return type, `{` — and
# no `=> {` or `function` (a call given a callback: `describe("x", () => {`).
_MEMBER = (r"(?:(?:public|private|protected|static|async|override|readonly|abstract)\s+)*(?:(get|set)\s+)?\*?"
           r"(?!(?:if|for|while|switch|catch|return|function|with|else|do|try|new|await|typeof|super)\b)"
           r"([A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\((?!.*(?:=>\s*\{\s*$|\bfunction\b))[^;]*\)\s*(?::.+)?\{\s*$"
           # (or parameters on the lines below: the constructor, or after a modifier; `foo(` alone is a call)
           r"|(?:(?:public|private|protected|static|async|override|abstract)\s+)+\*?([A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\(\s*$"
           r"|(constructor)\s*\(\s*$")
# A function given a name by assignment or as an object's property (JavaScript/TypeScript):
# `error: function(code, message) {`, `Parser.prototype.peek = function () {`,
# `const load = async (id) => {`, `exports.parse = function parse(s) {`.
_ASSIGNED = (r"(?:(?:export\s+)?(?:const|let|var)\s+)?(?:[A-Za-z_$][\w$]*\.)*([A-Za-z_$][\w$]*)\s*[:=]\s*(?:async\s+)?"
             r"(?:function\b\*?[^(]*\([^;]*\)\s*\{\s*$|(?:\([^)]*\)|[A-Za-z_$][\w$]*)\s*(?::\s*[^=]+)?=>\s*\{\s*$)")
# A Rust `impl` block, generic or not: named by its trait and type, their parameters aside
# (`impl<T> Add<T> for ByteSize` defines "Add for ByteSize"; `impl Cache {` defines "Cache").
IMPL = re.compile(r"^(?:unsafe\s+)?impl\b")
# A line that opens a definition: def/class/function/func/fn/interface/struct/enum/impl/trait/
# type/mod, after the modifiers that may precede them (export, default, pub, async, static); or a
# class member or a named function value of JavaScript/TypeScript.
DEFINITION = re.compile(r"^(?:export\s+)?(?:default\s+)?(?:pub(?:\([\w:]+\))?\s+)?(?:async\s+)?(?:static\s+)?"
                        r"(?:def|class|function\*?|func|fn|interface|struct|enum|impl|trait|type|mod)\s+\w"
                        r"|^func\s+\([^)]*\)\s*\w"  # (a Go method: its receiver first)
                        r"|" + IMPL.pattern +  # (a Rust impl, `impl<T>` too)
                        r"|^" + _MEMBER + r"|^" + _ASSIGNED)
_NAME = re.compile(r"^(?:func\s+\([^)]*\)\s*|.*?\b(?:def|class|function\*?|func|fn|interface|struct|enum|trait|type|mod)\s+)"
                  r"([A-Za-z_$][\w$]*)|^" + _MEMBER + r"|^" + _ASSIGNED)


# How a decorator or attribute line starts (`@property`, `#[test]`): it belongs to the definition below it.
DECORATOR = ("@", "#[")


_GENERIC = re.compile(r"<[^<>]*>")


def _impl_name(line: str) -> str | None:
    rest = line[IMPL.match(line).end():]
    while (bare := _GENERIC.sub("", rest)) != rest:  # (innermost brackets first: `<T: Into<u64>>`)
        rest = bare
    name = " ".join(re.split(r"\s+where\b|\{", rest)[0].split())
    return name or None


@lru_cache(maxsize=16384)  # (asked of every line of a file by several passes of an expansion)
def definition_name(line: str) -> str | None:
    """The name a definition line (stripped) defines; None for any other line."""
    if IMPL.match(line):
        return _impl_name(line)
    if not DEFINITION.match(line):
        return None
    m = _NAME.match(line)
    if m is None:
        return None
    return m.group(1) or (f"{m.group(2)} {m.group(3)}" if m.group(2) else m.group(3) or m.group(4) or m.group(5) or m.group(6))  # (a getter and its setter: two)


def indent_of(line: str) -> str:
    """The line's leading white space (all of it: a form feed before `def` counts, as Python's
    tokenizer lets it)."""
    return line[: len(line) - len(line.lstrip())]


def is_word_char(ch: str) -> bool:
    """A character of an identifier (Unicode letters and digits, and `_`)."""
    return ch.isalnum() or ch == "_"
