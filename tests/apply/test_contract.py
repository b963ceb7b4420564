"""One test per row of the sketch contract (docs/sketch-contract.md), in Python and in a
curly-brace language (JavaScript; Go for imports). Each case: the row, the file, the sketch, and the exact
result or a piece of the refusal's reason."""
import pytest

from lsp_server.apply import ApplyError, expand

PY_CALC = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
JS_CALC = ("function add(a, b) {\n  return a + b;\n}\n\nfunction mul(a, b) {\n  return a * b;\n}\n\n"
           "module.exports = { add, mul };\n")
PY_SUB = "\n\ndef subtract(a, b):\n    return a - b\n"
JS_SUB = "\nfunction sub(a, b) {\n  return a - b;\n}\n"
PY4 = "import os\n\n\ndef f(x):\n    a = x + 1\n    b = a * 2\n    return b\n\n\ndef g():\n    return 0\n"
HEAD_PY = '"""A module."""\nimport re\nimport sys\nimport json\nimport math\n'
HEAD_JS = "'use strict';\nconst a1 = 1;\nconst a2 = 2;\nconst a3 = 3;\nconst a4 = 4;\n"
JS4 = ("const fs = require('fs');\n\nfunction f(x) {\n  const a = x + 1;\n  const b = a * 2;\n  return b;\n}\n\n"
       "function g() {\n  return 0;\n}\n")

PY_TRY = ("def visit(n):\n    hold(n)\n    try:\n        walk(n)\n    finally:\n        del held[n]\n\n    seen[n] = None\n"
          "    return n\n\n\ndef other():\n    return 1\n")
PY_TRY_SK = ("# ... existing code ...\n    try:\n# ... existing code ...\n    finally:\n        held.remove(n)\n\n"
             "    seen.add(n)\n    return n\n# ... existing code ...\n")
PY_TRY_WANT = PY_TRY.replace("        del held[n]\n\n    seen[n] = None\n", "        held.remove(n)\n\n    seen.add(n)\n")
JS_RUN = "function main() {\n  start();\n  run(() => {\n    step();\n  });\n  log('x');\n}\n\nfunction other() {\n  return 1;\n}\n"
JS_RUN_SK = "// ... existing code ...\n  run(() => {\n// ... existing code ...\n  });\n  done();\n}\n// ... existing code ...\n"
JS_RUN_WANT = JS_RUN.replace("  log('x');\n", "  done();\n")
PY_ANCHOR = ("def visit(n):\n    if n in seen:\n        return\n    held[n] = None\n    try:\n        walk(n)\n"
             "    finally:\n        release(n)\n    return n\n\n\ndef other():\n    try:\n        pass\n    finally:\n        pass\n")
PY_ANCHOR_SK = "# ... existing code ...\ndef visit(n):\n# ... existing code ...\n    log(n)\n    try:\n# ... existing code ...\n    return n\n# ... existing code ...\n"
PY_ANCHOR_WANT = PY_ANCHOR.replace("    held[n] = None\n    try:\n", "    held[n] = None\n    log(n)\n    try:\n")
JS_ANCHOR = ("function visit(n) {\n  start(n);\n  items.forEach((x) => {\n    use(x);\n  });\n  count++;\n  return n;\n}\n\n"
             "function other() {\n  list.map((y) => {\n    g(y);\n  });\n}\n")
JS_ANCHOR_SK = ("// ... existing code ...\nfunction visit(n) {\n// ... existing code ...\n    log(x);\n  });\n"
                "// ... existing code ...\n  return n;\n}\n// ... existing code ...\n")
JS_ANCHOR_WANT = JS_ANCHOR.replace("    use(x);\n  });\n", "    use(x);\n    log(x);\n  });\n")

CASES = [
    # 1. no marker, starting at the file's first line: the whole new file
    ("whole_file", "m.py", PY4, "import os\n\n\ndef g():\n    return 1\n", "import os\n\n\ndef g():\n    return 1\n"),
    ("whole_file", "m.js", JS4, "const fs = require('fs');\n\nfunction g() {\n  return 1;\n}\n",
     "const fs = require('fs');\n\nfunction g() {\n  return 1;\n}\n"),
    # 2. no marker, both edges lines from the middle of the file: a fragment, the rest stays
    ("fragment", "m.py", PY4, "    a = x + 1\n    b = a * 3\n    return b\n", PY4.replace("a * 2", "a * 3")),
    ("fragment", "m.js", JS4, "  const a = x + 1;\n  const b = a * 3;\n  return b;\n", JS4.replace("a * 2", "a * 3")),
    # 3. no marker, much shorter than the file and ending in new code: nobody can tell
    ("no_marker_unclear", "m.py", PY4 * 3, "    return b\nh = 1\n", "no markers"),
    ("no_marker_unclear", "m.js", JS4 * 3, "  return b;\nconst h = 1;\n", "no markers"),
    # 4. only a leading marker: the new code ends the file (appends)
    ("leading_marker_appends", "calc.py", PY_CALC, "# ... existing code ..." + PY_SUB, PY_CALC + PY_SUB),
    ("leading_marker_appends", "calc.js", JS_CALC,
     "// ... existing code ...\n" + JS_SUB + "\nmodule.exports = { add, mul, sub };\n",
     JS_CALC.replace("module.exports = { add, mul };\n", JS_SUB.lstrip("\n") + "\nmodule.exports = { add, mul, sub };\n")),
    # ... with context the file has in several places: the last of them (what the sketch appends to)
    ("leading_marker_appends", "m.py", "def a():\n    return check(\n        1\n    )\n\n\ndef b():\n    return check(\n        1\n    )\n",
     "# ... existing code ...\n    return check(\n        1\n    )\n\n\ndef c():\n    return 3\n",
     "def a():\n    return check(\n        1\n    )\n\n\ndef b():\n    return check(\n        1\n    )\n\n\ndef c():\n    return 3\n"),
    # 5. the file's first lines shown, then a marker, then new code: the marker stands for the middle
    ("first_lines_then_marker", "calc.py", PY_CALC, "def add(a, b):\n    return a + b\n# ... existing code ..." + PY_SUB,
     PY_CALC + PY_SUB),
    ("first_lines_then_marker", "calc.js", JS_CALC,
     "function add(a, b) {\n  return a + b;\n}\n// ... existing code ...\n" + JS_SUB + "\nmodule.exports = { add, mul, sub };\n",
     JS_CALC.replace("module.exports = { add, mul };\n", JS_SUB.lstrip("\n") + "\nmodule.exports = { add, mul, sub };\n")),
    # 6. only a trailing marker: the sketch replaces the head of the file
    ("trailing_marker_replaces_head", "m.py", PY4, "import os\nimport sys\n# ... existing code ...\n",
     PY4.replace("import os\n", "import os\nimport sys\n")),
    # ... new lines at its head, opening with a `/**` the file has once further down (a lone
    # delimiter is no context that says where the stretch is)
    ("trailing_marker_replaces_head", "m.js",
     "const MIN = 32;\n\n// Trailing zeros.\nfunction tz(n) {\n  let z = 0;\n  while (n > 1) {\n    n /= 2;\n"
     "    z++;\n  }\n  return z;\n}\n\n/**\n * A schedule.\n */\nexport class S {}\n",
     "/**\n * The minimum.\n */\nexport const MIN = 32;\n\n// Trailing zeros.\nfunction tz(n) {\n// ... existing code ...\n",
     "/**\n * The minimum.\n */\nexport const MIN = 32;\n\n// Trailing zeros.\nfunction tz(n) {\n  let z = 0;\n"
     "  while (n > 1) {\n    n /= 2;\n    z++;\n  }\n  return z;\n}\n\n/**\n * A schedule.\n */\nexport class S {}\n"),
    ("trailing_marker_replaces_head", "m.js", JS4, "const fs = require('fs');\nconst path = require('path');\n// ... existing code ...\n",
     JS4.replace("const fs = require('fs');\n", "const fs = require('fs');\nconst path = require('path');\n")),
    # 7. no leading marker and a large head not shown: a forgotten marker, refused (nothing deleted)
    ("forgotten_leading_marker", "m.py", HEAD_PY + PY4, "    a = x + 1\n    b = a * 3\n# ... existing code ...\n",
     "no marker at its start"),
    ("forgotten_leading_marker", "m.js", HEAD_JS + JS4,
     "  const a = x + 1;\n  const b = a * 3;\n// ... existing code ...\n", "no marker at its start"),
    # ... while a few lines above the sketch's first line are deleted as the planner's rules say
    ("head_deleted_without_leading_marker", "m.py", PY4, "def f(x):\n    a = x + 1\n# ... existing code ...\n",
     PY4.replace("import os\n\n\n", "")),
    ("head_deleted_without_leading_marker", "m.js", JS4, "function f(x) {\n  const a = x + 1;\n// ... existing code ...\n",
     JS4.replace("const fs = require('fs');\n\n", "")),
    # 8. a marker between shown lines stands for the lines between them
    ("middle_marker", "m.py", PY4, "# ... existing code ...\ndef f(x):\n    # ... existing code ...\n    return b + 1\n# ... existing code ...\n",
     PY4.replace("return b", "return b + 1")),
    ("middle_marker", "m.js", JS4, "// ... existing code ...\nfunction f(x) {\n  // ... existing code ...\n  return b + 1;\n}\n// ... existing code ...\n",
     JS4.replace("return b;", "return b + 1;")),
    # 9. a marker's indentation never deletes: a column-0 marker right after a method's first lines keeps the rest
    ("marker_indentation_keeps_code", "m.py", PY4, "# ... existing code ...\ndef f(x):\n    a = x + 2\n# ... existing code ...\n",
     PY4.replace("x + 1", "x + 2")),
    ("marker_indentation_keeps_code", "m.js", JS4, "// ... existing code ...\nfunction f(x) {\n  const a = x + 2;\n// ... existing code ...\n",
     JS4.replace("x + 1", "x + 2")),
    # 10. a shown line is the file's line, kept as the file has it (its indentation, its trailing
    # ... nor is a comment or a docstring alone after a block's first line: it heads the body the marker keeps
    ("marker_indentation_keeps_code", "m.py", 'X = 1\n\n\ndef reject(options, platform):\n    """Throws when options holds an option that the platform\n    does not accept."""\n    for name in NAMES:\n        if name not in platform.accepts:\n            raise ValueError(platform.message(name))\n\n\ndef to_int(value):\n    if isinstance(value, int):\n        return value\n    return int(value, 10)\n\n\ndef to_float(value):\n    return float(value)\n',
     '# ... existing code ...\n        if name not in platform.accepts:\n            raise ValueError(platform.message(name))\n\n\ndef to_int(value):\n    """Converts a number or a numeric string to an integer."""\n    if isinstance(value, int):\n        return value\n    return int(value, 10)\n\n\ndef to_float(value):\n    """Converts a number or a numeric string to a float."""\n# ... existing code ...\n',
     'X = 1\n\n\ndef reject(options, platform):\n    """Throws when options holds an option that the platform\n    does not accept."""\n    for name in NAMES:\n        if name not in platform.accepts:\n            raise ValueError(platform.message(name))\n\n\ndef to_int(value):\n    """Converts a number or a numeric string to an integer."""\n    if isinstance(value, int):\n        return value\n    return int(value, 10)\n\n\ndef to_float(value):\n    """Converts a number or a numeric string to a float."""\n    return float(value)\n'),
    ("marker_indentation_keeps_code", "m.js", 'function toInt(value) {\n  return parseInt(value, 10);\n}\n\nfunction toFloat(value) {\n  return parseFloat(value);\n}\n',
     '// ... existing code ...\nfunction toFloat(value) {\n  // Converts a number or a numeric string to a float.\n// ... existing code ...\n',
     'function toInt(value) {\n  return parseInt(value, 10);\n}\n\nfunction toFloat(value) {\n  // Converts a number or a numeric string to a float.\n  return parseFloat(value);\n}\n'),
    # spaces when the sketch has them too); without the file's trailing comment it is an edit
    ("shown_line_is_the_files", "m.py", PY4.replace("b = a * 2", "b = a * 2  # double"),
     "# ... existing code ...\n    b = a * 2\n    return b * 3\n# ... existing code ...\n",
     PY4.replace("return b\n", "return b * 3\n", 1)),
    ("shown_line_is_the_files", "m.js", JS4,
     "// ... existing code ...\n    const a = x + 1;\n    const b = a * 2;\n    return b * 3;\n// ... existing code ...\n",
     JS4.replace("return b;", "return b * 3;")),
    # 11. deletion only by adjacency: the lines between two shown lines go
    # ... a closing bracket shown right after the line above a deletion is the bracket at its own depth
    # (the function's `}`, not the `  }` of the block the sketch deletes)
    ("deletion_by_adjacency", "m.js",
     "function onFinished(msg, listener) {\n  var attached = attach(msg)\n  attached.queue.push(listener)\n\n"
     "  // wait for socket to be assigned\n  msg.on('socket', onSocket)\n\n  if (msg.socket === undefined) {\n"
     "    // node.js 0.8 patch\n    patchAssignSocket(msg, onSocket)\n  }\n}\n\nfunction attach(msg) {\n"
     "  var listener = createListener(msg)\n  listener.queue = []\n\n  return listener\n}\n",
     "// ... existing code ...\n  // wait for socket to be assigned\n  msg.on('socket', onSocket)\n}\n"
     "// ... existing code ...\n",
     "function onFinished(msg, listener) {\n  var attached = attach(msg)\n  attached.queue.push(listener)\n\n"
     "  // wait for socket to be assigned\n  msg.on('socket', onSocket)\n}\n\nfunction attach(msg) {\n"
     "  var listener = createListener(msg)\n  listener.queue = []\n\n  return listener\n}\n"),
    # ... and a Python twin: lines the file has twice (`on_socket,`, `)`), shown at the depth of the first
    # of them, are that one, not the deeper copy inside the block the sketch deletes
    ("deletion_by_adjacency", "m.py",
     "def on_finished(msg, listener):\n    attached = attach(msg)\n    msg.on(\n        \"socket\",\n"
     "        on_socket,\n    )\n    if msg.socket is None:\n        patch_assign_socket(\n            msg,\n"
     "            on_socket,\n        )\n    return attached\n\n\ndef attach(msg):\n"
     "    return create_listener(msg)\n",
     "# ... existing code ...\n        on_socket,\n    )\n    return attached\n# ... existing code ...\n",
     "def on_finished(msg, listener):\n    attached = attach(msg)\n    msg.on(\n        \"socket\",\n"
     "        on_socket,\n    )\n    return attached\n\n\ndef attach(msg):\n    return create_listener(msg)\n"),
    ("deletion_by_adjacency", "m.py", PY4, "# ... existing code ...\ndef f(x):\n    a = x + 1\n    return b\n# ... existing code ...\n",
     PY4.replace("    b = a * 2\n", "")),
    ("deletion_by_adjacency", "m.js", JS4, "// ... existing code ...\nfunction f(x) {\n  const a = x + 1;\n  return b;\n// ... existing code ...\n",
     JS4.replace("  const b = a * 2;\n", "")),
    # ... a statement written over several lines, shown as one line, then the block's closing bracket
    # and a marker: the bracket is the file's, so the statement's other lines go (not cut in two)
    ("deletion_by_adjacency", "m.js",
     "class Waker {\n  register(op) {\n    this.inner.register(op);\n    this.empty.store(\n      this.inner.selectors.length === 0,\n"
     "      true,\n    );\n  }\n\n  unregister(op) {\n    this.inner.unregister(op);\n    this.empty.store(\n"
     "      this.inner.selectors.length === 0,\n      true,\n    );\n  }\n}\n",
     "// ... existing code ...\n    this.inner.register(op);\n    this.empty.store(this.inner.isEmpty(), true);\n  }\n"
     "// ... existing code ...\n    this.inner.unregister(op);\n    this.empty.store(this.inner.isEmpty(), true);\n  }\n// ... existing code ...\n",
     "class Waker {\n  register(op) {\n    this.inner.register(op);\n    this.empty.store(this.inner.isEmpty(), true);\n  }\n\n"
     "  unregister(op) {\n    this.inner.unregister(op);\n    this.empty.store(this.inner.isEmpty(), true);\n  }\n}\n"),
    # 11b. a closing bracket under a shown block's first line is that block's: the lines between go
    # ... the closing bracket of a definition whose body a marker keeps, new code after it: the
    # bracket is that definition's, however many other brackets like it the file has
    ("closing_bracket_of_a_shown_block", "m.rs",
     "pub struct A;\n\nimpl A {\n    pub fn new() -> Self {\n        A\n    }\n\n    pub fn get(&self) -> u8 {\n"
     "        let x = 1;\n        x + 1\n    }\n}\n\npub struct B;\n\nimpl B {\n    pub fn new() -> Self {\n"
     "        B\n    }\n}\n\nimpl Default for B {\n    fn default() -> Self {\n        B\n    }\n}\n",
     "// ... existing code ...\n    pub fn get(&self) -> u8 {\n        // ... existing code ...\n    }\n\n"
     "    pub fn twice(&self) -> u8 {\n        self.get() * 2\n    }\n}\n// ... existing code ...\n",
     "pub struct A;\n\nimpl A {\n    pub fn new() -> Self {\n        A\n    }\n\n    pub fn get(&self) -> u8 {\n"
     "        let x = 1;\n        x + 1\n    }\n\n    pub fn twice(&self) -> u8 {\n        self.get() * 2\n    }\n"
     "}\n\npub struct B;\n\nimpl B {\n    pub fn new() -> Self {\n        B\n    }\n}\n\nimpl Default for B {\n"
     "    fn default() -> Self {\n        B\n    }\n}\n"),
    # ... with the block's body elided by a marker indented inside it: that bracket still, and new code after it
    ("closing_bracket_of_a_shown_block", "m.js",
     "const x = 1;\n\nclass Err {\n  make(e) {\n    return {\n      inner: e,\n    };\n  }\n}\n\nclass Err2 extends Err {}\n\n"
     "module.exports = Err;\n",
     "// ... existing code ...\nclass Err {\n  // ... existing code ...\n}\n\nclass Err2 extends Err {\n  source() {\n    return {\n"
     "      inner: 1,\n    };\n  }\n}\n\nmodule.exports = Err;\n",
     "const x = 1;\n\nclass Err {\n  make(e) {\n    return {\n      inner: e,\n    };\n  }\n}\n\nclass Err2 extends Err {\n"
     "  source() {\n    return {\n      inner: 1,\n    };\n  }\n}\n\nmodule.exports = Err;\n"),
    ("closing_bracket_of_a_shown_block", "m.py", "X = [\n    'a',\n    'b',\n    'c',\n]\n\n\ndef g():\n    return X\n",
     "X = [\n    'a',\n]\n# ... existing code ...\n", "X = [\n    'a',\n]\n\n\ndef g():\n    return X\n"),
    ("closing_bracket_of_a_shown_block", "m.js", JS4,
     "// ... existing code ...\nfunction f(x) {\n  const a = x + 1;\n  return a;\n}\n// ... existing code ...\n",
     JS4.replace("  const b = a * 2;\n  return b;\n", "  return a;\n")),
    # ... the edits up to it are that block's, though the file has lines like them elsewhere (not lines
    # that might be added before the ones they edit)
    ("closing_bracket_of_a_shown_block", "m.go", 'package p\n\nfunc A(c Config) Func {\n\treturn wrap(c, func(s string) (ok bool, u string) {\n\t\tif ok = s != "a"; ok {\n\t\t\tu = "a" + s\n\t\t}\n\t\treturn\n\t})\n}\n\nfunc B(c Config) Func {\n\treturn wrap(c, func(s string) (ok bool, u string) {\n\t\tif ok = s != "b"; ok {\n\t\t\tu = "b" + s\n\t\t}\n\t\treturn\n\t})\n}\n',
     '// ... existing code ...\nfunc A(c Config) Func {\n\treturn wrap(c, func(s string) string {\n\t\tif s != "a" {\n\t\t\treturn "a" + s\n\t\t}\n\t\treturn ""\n\t})\n}\n// ... existing code ...\n',
     'package p\n\nfunc A(c Config) Func {\n\treturn wrap(c, func(s string) string {\n\t\tif s != "a" {\n\t\t\treturn "a" + s\n\t\t}\n\t\treturn ""\n\t})\n}\n\nfunc B(c Config) Func {\n\treturn wrap(c, func(s string) (ok bool, u string) {\n\t\tif ok = s != "b"; ok {\n\t\t\tu = "b" + s\n\t\t}\n\t\treturn\n\t})\n}\n'),
    # ... also under a definition's first line the sketch edits (the file's one of that name): its
    # bracket, not the last one its body had
    ("closing_bracket_of_a_shown_block", "m.go", 'package p\n\nfunc load(env map[string]string) error {\n\tfor k, v := range env {\n\t\tset(k, v)\n\t}\n\n\treturn nil\n}\n\nfunc set(k, v string) {\n\tif k == "" {\n\t\tos.Setenv(k, v)\n\t} else {\n\t\tif _, ok := os.LookupEnv(k); !ok {\n\t\t\tos.Setenv(k, v)\n\t\t}\n\t}\n}\n\n// Parse parses.\nfunc Parse() {}\n',
     '// ... existing code ...\nfunc set(k, v string) error {\n\tif k == "" {\n\t\treturn os.Setenv(k, v)\n\t}\n\tif _, ok := os.LookupEnv(k); !ok {\n\t\treturn os.Setenv(k, v)\n\t}\n\treturn nil\n}\n\n// ... existing code ...\n',
     'package p\n\nfunc load(env map[string]string) error {\n\tfor k, v := range env {\n\t\tset(k, v)\n\t}\n\n\treturn nil\n}\n\nfunc set(k, v string) error {\n\tif k == "" {\n\t\treturn os.Setenv(k, v)\n\t}\n\tif _, ok := os.LookupEnv(k); !ok {\n\t\treturn os.Setenv(k, v)\n\t}\n\treturn nil\n}\n\n// Parse parses.\nfunc Parse() {}\n'),
    # 12. a new line in place of an alike line edits it
    # ... its trailing whitespace (a whitespace-only line shown blank) too
    ("shown_line_is_the_files", "m.js", "function f() {\n  a();\n    \n  b();\n}\n",
     "function f() {\n  a();\n\n  try {\n    b();\n  } catch (e) {}\n// ... existing code ...\n",
     "function f() {\n  a();\n    \n  try {\n    b();\n  } catch (e) {}\n}\n"),
    # ... a line of the file shown out of its block, at another depth: moved there, not context
    ("shown_line_is_the_files", "m.py",
     '"""Doc."""\n\nimport os\nimport sys\n\ntry:\n    from collections.abc import Set\nexcept ImportError:\n'
     '    from collections import Set\n\n\nclass A(Set):\n    pass\n',
     '# ... existing code ...\n"""Doc."""\n\nfrom collections.abc import Set\nimport os\nimport sys\n\n\nclass A(Set):\n'
     '# ... existing code ...\n',
     '"""Doc."""\n\nfrom collections.abc import Set\nimport os\nimport sys\n\n\nclass A(Set):\n    pass\n'),
    # ... a line with one name renamed (as other new lines rename it) is an edit of that line
    ("alike_line_edited", "m.py", "def f(m, path):\n    last: dict[str, int] = {}\n    if m:\n        pass\n    else:\n        last[path] = m\n    return 1\n",
     "def f(m, path):\n    known: dict[str, int] = {}\n    # ... existing code ...\n    else:\n        known[path] = m\n# ... existing code ...\n",
     "def f(m, path):\n    known: dict[str, int] = {}\n    if m:\n        pass\n    else:\n        known[path] = m\n    return 1\n"),
    # ... also alone between markers, when of the lines like it only one has the old name
    ("alike_line_edited", "m.js",
     "const re1 = /a/;\nconst re2 = /b/;\n\nfunction f(s) {\n  if (m = re1.exec(s)) {\n    return m;\n  }\n"
     "  if (m = re2.exec(s)) {\n    return m;\n  }\n}\n",
     "const first = /a/;\n// ... existing code ...\n  if (m = first.exec(s)) {\n  // ... existing code ...\n",
     "const first = /a/;\nconst re2 = /b/;\n\nfunction f(s) {\n  if (m = first.exec(s)) {\n    return m;\n  }\n"
     "  if (m = re2.exec(s)) {\n    return m;\n  }\n}\n"),
    # ... edits ending right before a marker, the last of them a definition's first line: edits there
    ("alike_line_edited", "m.py", "def f():\n    return 1\n\n\n# Add one to the value of x.\n# Return the sum of them.\n"
     "def g(x):\n    return x + 1\n",
     "# ... existing code ...\ndef f():\n    return 1\n\n\n# Add n to the value of x.\n# Return the sum of both.\ndef g(x, n):\n"
     "    # ... existing code ...\n",
     "def f():\n    return 1\n\n\n# Add n to the value of x.\n# Return the sum of both.\ndef g(x, n):\n    return x + 1\n"),
    # ... a definition's first line renamed as the sketch renames its calls, alone between markers
    ("alike_line_edited", "m.js",
     "function run(s, i) {\n  i = skipA(s, i);\n  i = skipB(s, i);\n  return i;\n}\n\nfunction again(s, i) {\n"
     "  i = skipA(s, i);\n  i = skipB(s, i);\n  return i;\n}\n\nfunction skipA(s, i) {\n  return i + 1;\n}\n\n"
     "function skipB(s, i) {\n  return i + 2;\n}\n",
     "function run(s, i) {\n  i = skipFirst(s, i);\n  // ... existing code ...\nfunction again(s, i) {\n  i = skipFirst(s, i);\n"
     "  // ... existing code ...\nfunction skipFirst(s, i) {\n// ... existing code ...\n",
     "function run(s, i) {\n  i = skipFirst(s, i);\n  i = skipB(s, i);\n  return i;\n}\n\nfunction again(s, i) {\n"
     "  i = skipFirst(s, i);\n  i = skipB(s, i);\n  return i;\n}\n\nfunction skipFirst(s, i) {\n  return i + 1;\n}\n\n"
     "function skipB(s, i) {\n  return i + 2;\n}\n"),
    # ... a parameter renamed to a name the file already uses elsewhere (a line the file has in
    # another function is still an edit here)
    ("alike_line_edited", "m.py",
     "def to_hex(number):\n    if number <= 0:\n        raise ValueError('negative')\n    return hex(number)\n\n\n"
     "def to_roman(num):\n    if num <= 0:\n        raise ValueError('not positive')\n    return roman(num)\n",
     "# ... existing code ...\ndef to_roman(number):\n    if number <= 0:\n        raise ValueError('not positive')\n"
     "    return roman(number)\n",
     "def to_hex(number):\n    if number <= 0:\n        raise ValueError('negative')\n    return hex(number)\n\n\n"
     "def to_roman(number):\n    if number <= 0:\n        raise ValueError('not positive')\n    return roman(number)\n"),
    # ... a function renamed, shown whole with its closing brace, its one call renamed too: the
    # brace is the function's own, not a new one
    ("alike_line_edited", "m.js",
     "const abs = Math.abs;\nfunction isNaN(num) {\n  return num !== num;\n}\n\nfunction float(val, def) {\n"
     "  var res = parseFloat(val);\n  return isNaN(res) ? def : res;\n}\n",
     "// ... existing code ...\nconst abs = Math.abs;\nfunction isNaNValue(num) {\n  return num !== num;\n}\n"
     "// ... existing code ...\n  var res = parseFloat(val);\n  return isNaNValue(res) ? def : res;\n}\n",
     "const abs = Math.abs;\nfunction isNaNValue(num) {\n  return num !== num;\n}\n\nfunction float(val, def) {\n"
     "  var res = parseFloat(val);\n  return isNaNValue(res) ? def : res;\n}\n"),
    # ... an import from the same place with a name added (or removed)
    ("alike_line_edited", "m.py", "import os\nfrom a import b\n\n\nx = b()\n",
     "import os\nfrom a import b, c\n# ... existing code ...\n", "import os\nfrom a import b, c\n\n\nx = b()\n"),
    ("alike_line_edited", "m.js", "import fs from 'fs';\nimport { a, b } from './x';\n\nconst y = a();\n",
     "import fs from 'fs';\nimport { a } from './x';\n// ... existing code ...\n",
     "import fs from 'fs';\nimport { a } from './x';\n\nconst y = a();\n"),
    # ... Go's import group for a one-line import, when an import is added to it
    ("alike_line_edited", "m.go", 'package m\n\nimport "strconv"\n\nfunc f(s string) int {\n\tv, _ := strconv.Atoi(s)\n\treturn v\n}\n',
     'package m\n\nimport (\n\t"fmt"\n\t"strconv"\n)\n\n// ... existing code ...\n',
     'package m\n\nimport (\n\t"fmt"\n\t"strconv"\n)\n\nfunc f(s string) int {\n\tv, _ := strconv.Atoi(s)\n\treturn v\n}\n'),
    # ... a new `return` right before a kept `return` of the same head (code after it would never run)
    ("alike_line_edited", "m.py", "def f(a):\n    return g(a, 1)\n\n\ndef h(a, b):\n    if b:\n        a += 1\n    return g(a, None)\n",
     "# ... existing code ...\ndef h(a, b):\n    if b:\n        a += 1\n    return g(a, 1)\n# ... existing code ...\n",
     "def f(a):\n    return g(a, 1)\n\n\ndef h(a, b):\n    if b:\n        a += 1\n    return g(a, 1)\n"),
    ("alike_line_edited", "m.py", PY4, "# ... existing code ...\n    b = a * 2\n    return b, a\n\n\ndef g():\n# ... existing code ...\n",
     PY4.replace("return b\n", "return b, a\n")),
    ("alike_line_edited", "m.js", JS4, "// ... existing code ...\n  const b = a * 2;\n  return b + a;\n}\n// ... existing code ...\n",
     JS4.replace("return b;", "return b + a;")),
    # ... a definition's first line written over several lines edits the file's one of its name
    ("alike_line_edited", "m.ts", 'export class Cache {\n  private hits = 0;\n\n  constructor(provider: Provider, onError?: (e: unknown) => void) {\n    this.provider = provider;\n    this.onError = onError;\n  }\n\n  get(): number {\n    return this.hits;\n  }\n}\n',
     '// ... existing code ...\n  private hits = 0;\n\n  constructor(\n    provider: Provider,\n    onError?: (e: unknown) => void,\n    now: () => number = Date.now,\n  ) {\n    this.provider = provider;\n    this.onError = onError;\n    this.now = now;\n  }\n// ... existing code ...\n',
     'export class Cache {\n  private hits = 0;\n\n  constructor(\n    provider: Provider,\n    onError?: (e: unknown) => void,\n    now: () => number = Date.now,\n  ) {\n    this.provider = provider;\n    this.onError = onError;\n    this.now = now;\n  }\n\n  get(): number {\n    return this.hits;\n  }\n}\n'),
    # ... a class member's first line (no keyword names it) edits the member of that name; the line
    # the sketch no longer shows under it is deleted by adjacency
    ("alike_line_edited", "m.js", "class TTL {\n  set(key, value) {\n    const now = Date.now();\n    this.cleanup();\n  }\n\n"
     "  cleanup() {\n    const now = Date.now();\n    for (const [k, e] of this.map) {\n      if (e.at < now) this.map.delete(k);\n    }\n  }\n}\n",
     "// ... existing code ...\n  cleanup(now = Date.now()) {\n    for (const [k, e] of this.map) {\n// ... existing code ...\n",
     "class TTL {\n  set(key, value) {\n    const now = Date.now();\n    this.cleanup();\n  }\n\n"
     "  cleanup(now = Date.now()) {\n    for (const [k, e] of this.map) {\n      if (e.at < now) this.map.delete(k);\n    }\n  }\n}\n"),
    # ... a rename to a name the file has only in its comments (new to its code)
    ("alike_line_edited", "m.js", '// one instance per path\nconst cache = new Map();\n\nfunction watch(path, listener) {\n  let cont = cache.get(path);\n  const now = Date.now();\n  log(now);\n  if (cont) {\n    cont.listeners.add(listener);\n    return cont;\n  }\n  cont = { listeners: new Set([listener]) };\n  cache.set(path, cont);\n  return cont;\n}\n\nfunction other(x) {\n  if (x) {\n    x.listeners.add(1);\n    return x;\n  }\n  return null;\n}\n',
     '// ... existing code ...\nfunction watch(path, listener) {\n  let instance = cache.get(path);\n  // ... existing code ...\n  if (instance) {\n    instance.listeners.add(listener);\n    return instance;\n  }\n  instance = { listeners: new Set([listener]) };\n  cache.set(path, instance);\n  return instance;\n}\n// ... existing code ...\n',
     '// one instance per path\nconst cache = new Map();\n\nfunction watch(path, listener) {\n  let instance = cache.get(path);\n  const now = Date.now();\n  log(now);\n  if (instance) {\n    instance.listeners.add(listener);\n    return instance;\n  }\n  instance = { listeners: new Set([listener]) };\n  cache.set(path, instance);\n  return instance;\n}\n\nfunction other(x) {\n  if (x) {\n    x.listeners.add(1);\n    return x;\n  }\n  return null;\n}\n'),
    # ... an edit between lines that say little (`}`, `pass`, shown as the file has them around it) is
    # of the one line like it that those lines surround, though the file has other lines like it
    ("alike_line_edited", "m.go",
     "package p\n\nfunc (f F) a(v int) string {\n\tif v > 0 {\n\t\treturn f.show(v, 0, 1)\n\t}\n\tv++\n"
     "\treturn f.show(v, 1, 0)\n}\n\nfunc (f F) b(v int) string {\n\tswitch v {\n\tcase 1:\n\t\treturn f.name(v)\n"
     "\t}\n\treturn f.show(v, 0, 2)\n}\n\nfunc (f F) c(v int) string {\n\tv++\n\treturn f.show(v, 0, 3)\n}\n",
     "// ... existing code ...\n\t\t// ... existing code ...\n\t}\n\treturn f.show(v, 2, 0)\n}\n"
     "// ... existing code ...\n",
     "package p\n\nfunc (f F) a(v int) string {\n\tif v > 0 {\n\t\treturn f.show(v, 0, 1)\n\t}\n\tv++\n"
     "\treturn f.show(v, 1, 0)\n}\n\nfunc (f F) b(v int) string {\n\tswitch v {\n\tcase 1:\n\t\treturn f.name(v)\n"
     "\t}\n\treturn f.show(v, 2, 0)\n}\n\nfunc (f F) c(v int) string {\n\tv++\n\treturn f.show(v, 0, 3)\n}\n"),
    ("alike_line_edited", "m.py",
     "class F:\n    def a(self, v):\n        if v:\n            return self.show(v, 0, 1)\n"
     "        return self.show(v, 1, 0)\n\n    def b(self, v):\n        for x in v:\n            x.go()\n"
     "            pass\n        return self.show(v, 0, 2)\n\n    def c(self, v):\n        v += 1\n"
     "        return self.show(v, 0, 3)\n",
     "# ... existing code ...\n            # ... existing code ...\n            pass\n"
     "        return self.show(v, 2, 0)\n# ... existing code ...\n",
     "class F:\n    def a(self, v):\n        if v:\n            return self.show(v, 0, 1)\n"
     "        return self.show(v, 1, 0)\n\n    def b(self, v):\n        for x in v:\n            x.go()\n"
     "            pass\n        return self.show(v, 2, 0)\n\n    def c(self, v):\n        v += 1\n"
     "        return self.show(v, 0, 3)\n"),
    # ... a field renamed while a parameter keeps the old name: of the lines alike to a new line, the one
    # it makes by renaming to the sketch's new name is the one it edits
    ("alike_line_edited", "m.go",
     "package p\n\ntype L struct {\n\tlevel int\n}\n\nfunc (l L) Info(msg string) {\n\tif l.on() {\n\t\tl.hook()\n"
     "\t}\n\tl.out.Info(l.level, msg)\n}\n\nfunc (l L) Error(msg string) {\n\tif l.on() {\n\t\tl.hook()\n\t}\n"
     "\tl.out.Error(msg)\n}\n\nfunc (l L) V(level int) L {\n\tl.level += level\n\treturn l\n}\n",
     "// ... existing code ...\ntype L struct {\n\tverbosity int\n}\n// ... existing code ...\n\t\tl.hook()\n\t}\n"
     "\tl.out.Info(l.verbosity, msg)\n}\n// ... existing code ...\nfunc (l L) V(level int) L {\n"
     "\tl.verbosity += level\n\treturn l\n}\n",
     "package p\n\ntype L struct {\n\tverbosity int\n}\n\nfunc (l L) Info(msg string) {\n\tif l.on() {\n"
     "\t\tl.hook()\n\t}\n\tl.out.Info(l.verbosity, msg)\n}\n\nfunc (l L) Error(msg string) {\n\tif l.on() {\n"
     "\t\tl.hook()\n\t}\n\tl.out.Error(msg)\n}\n\nfunc (l L) V(level int) L {\n\tl.verbosity += level\n"
     "\treturn l\n}\n"),
    ("alike_line_edited", "m.py",
     "class L:\n    def __init__(self):\n        self.level = 0\n\n    def info(self, msg):\n"
     "        if self.on():\n            self.hook()\n        self.out.info(self.level, msg)\n\n"
     "    def error(self, msg):\n        if self.on():\n            self.hook()\n        self.out.error(msg)\n\n"
     "    def v(self, level):\n        self.level += level\n        return self\n",
     "class L:\n    def __init__(self):\n        self.verbosity = 0\n# ... existing code ...\n"
     "            self.hook()\n        self.out.info(self.verbosity, msg)\n# ... existing code ...\n"
     "    def v(self, level):\n        self.verbosity += level\n        return self\n",
     "class L:\n    def __init__(self):\n        self.verbosity = 0\n\n    def info(self, msg):\n"
     "        if self.on():\n            self.hook()\n        self.out.info(self.verbosity, msg)\n\n"
     "    def error(self, msg):\n        if self.on():\n            self.hook()\n        self.out.error(msg)\n\n"
     "    def v(self, level):\n        self.verbosity += level\n        return self\n"),
    # ... a parameter renamed on the definition's first line to a name the file uses elsewhere: the
    # lines of its body that rename it, a marker right before them, are edits (the old line is not kept)
    ("alike_line_edited", "m.go",
     "package p\n\nfunc New(pattern string) int {\n\treturn len(pattern)\n}\n\n"
     "func compile(h Handler, p string) error {\n\tfor l := len(p); l > 0; l = len(p) {\n\t\tif p[0] == '%' {\n"
     "\t\t\th.emit(p)\n\t\t\t// a comment that says\n\t\t\t// why this is so\n\t\t\tp = p[l:]\n\t\t\tcontinue\n"
     "\t\t}\n\t\tp = p[1:]\n\t}\n\treturn nil\n}\n",
     "// ... existing code ...\nfunc compile(h Handler, pattern string) error {\n"
     "\tfor l := len(pattern); l > 0; l = len(pattern) {\n\t\tif pattern[0] == '%' {\n\t\t\th.emit(pattern)\n"
     "\t\t\t// ... existing code ...\n\t\t\tpattern = pattern[l:]\n\t\t\tcontinue\n\t\t}\n"
     "\t\tpattern = pattern[1:]\n\t}\n\treturn nil\n}\n",
     "package p\n\nfunc New(pattern string) int {\n\treturn len(pattern)\n}\n\n"
     "func compile(h Handler, pattern string) error {\n\tfor l := len(pattern); l > 0; l = len(pattern) {\n"
     "\t\tif pattern[0] == '%' {\n\t\t\th.emit(pattern)\n\t\t\t// a comment that says\n\t\t\t// why this is so\n"
     "\t\t\tpattern = pattern[l:]\n\t\t\tcontinue\n\t\t}\n\t\tpattern = pattern[1:]\n\t}\n\treturn nil\n}\n"),
    ("alike_line_edited", "m.py",
     "def new(pattern):\n    return len(pattern)\n\n\ndef compile(h, p):\n    while p:\n        if p[0] == '%':\n"
     "            h.emit(p)\n            # a comment that says\n            # why this is so\n"
     "            p = p[2:]\n            continue\n        p = p[1:]\n    return None\n",
     "# ... existing code ...\ndef compile(h, pattern):\n    while pattern:\n        if pattern[0] == '%':\n"
     "            h.emit(pattern)\n            # ... existing code ...\n            pattern = pattern[2:]\n"
     "            continue\n        pattern = pattern[1:]\n    return None\n",
     "def new(pattern):\n    return len(pattern)\n\n\ndef compile(h, pattern):\n    while pattern:\n"
     "        if pattern[0] == '%':\n            h.emit(pattern)\n            # a comment that says\n"
     "            # why this is so\n            pattern = pattern[2:]\n            continue\n"
     "        pattern = pattern[1:]\n    return None\n"),
    # ... a member's first line with its parameters moved to the lines below (`check(`) edits its definition
    ("alike_line_edited", "m.ts",
     "export class Checker {\n  check(file: File): void {\n    const { max } =\n      this.opts().limits\n\n"
     "    if (max) {\n      size(file, max)\n    }\n  }\n\n  run(files: File[]): void {\n"
     "    files.forEach((f) => {\n      this.check(f)\n    })\n  }\n}\n",
     "// ... existing code ...\n  check(\n    file: File,\n    limits: Limits = this.opts().limits,\n  ): void {\n"
     "    const { max } = limits\n\n    if (max) {\n// ... existing code ...\n  run(files: File[]): void {\n"
     "    const { limits } = this.opts()\n    files.forEach((f) => {\n      this.check(f, limits)\n"
     "// ... existing code ...\n",
     "export class Checker {\n  check(\n    file: File,\n    limits: Limits = this.opts().limits,\n  ): void {\n"
     "    const { max } = limits\n\n    if (max) {\n      size(file, max)\n    }\n  }\n\n"
     "  run(files: File[]): void {\n    const { limits } = this.opts()\n    files.forEach((f) => {\n"
     "      this.check(f, limits)\n    })\n  }\n}\n"),
    ("alike_line_edited", "m.py",
     "class Checker:\n    def check(self, file):\n        max_size = (\n            self.opts().limits\n"
     "        )\n        if max_size:\n            size(file, max_size)\n\n    def run(self, files):\n"
     "        for f in files:\n            self.check(f)\n",
     "# ... existing code ...\n    def check(\n        self,\n        file,\n        limits=None,\n    ):\n"
     "        max_size = limits or self.opts().limits\n        if max_size:\n# ... existing code ...\n"
     "    def run(self, files):\n        limits = self.opts().limits\n        for f in files:\n"
     "            self.check(f, limits)\n",
     "class Checker:\n    def check(\n        self,\n        file,\n        limits=None,\n    ):\n"
     "        max_size = limits or self.opts().limits\n        if max_size:\n            size(file, max_size)\n\n"
     "    def run(self, files):\n        limits = self.opts().limits\n        for f in files:\n"
     "            self.check(f, limits)\n"),
    # ... a line that renames two names the sketch renames elsewhere (a class and its base)
    ("alike_line_edited", "m.ts",
     "export function build (n: number) {\n  const root = new Root(n)\n  let tree: Tree = root\n  tree = new Tree(n + 1)\n"
     "  return tree\n}\n\nclass Tree {\n  public size = 0\n  constructor (public depth: number) {}\n}\n\n"
     "class Root extends Tree {\n  constructor (n: number) {\n    super(n)\n  }\n}\n",
     "// ... existing code ...\nexport function build (n: number) {\n  const root = new PlainRoot(n)\n  let tree: PlainTree = root\n"
     "  tree = new PlainTree(n + 1)\n  return tree\n}\n\nclass PlainTree {\n// ... existing code ...\nclass PlainRoot extends PlainTree {\n"
     "  constructor (n: number) {\n// ... existing code ...\n",
     "export function build (n: number) {\n  const root = new PlainRoot(n)\n  let tree: PlainTree = root\n  tree = new PlainTree(n + 1)\n"
     "  return tree\n}\n\nclass PlainTree {\n  public size = 0\n  constructor (public depth: number) {}\n}\n\n"
     "class PlainRoot extends PlainTree {\n  constructor (n: number) {\n    super(n)\n  }\n}\n"),
    ("alike_line_edited", "m.py",
     "def build(n):\n    root = Root(n)\n    tree: Tree = root\n    return tree\n\n\nclass Tree:\n    size = 0\n\n\n"
     "class Root(Tree):\n    def __init__(self, n):\n        super().__init__(n)\n",
     "def build(n):\n    root = PlainRoot(n)\n    tree: PlainTree = root\n    return tree\n\n\nclass PlainTree:\n# ... existing code ...\n"
     "class PlainRoot(PlainTree):\n    def __init__(self, n):\n# ... existing code ...\n",
     "def build(n):\n    root = PlainRoot(n)\n    tree: PlainTree = root\n    return tree\n\n\nclass PlainTree:\n    size = 0\n\n\n"
     "class PlainRoot(PlainTree):\n    def __init__(self, n):\n        super().__init__(n)\n"),
    # ... a line with no name but the one the sketch renames, right after a marker: renamed too
    ("alike_line_edited", "m.py", 'class A:\n    @property\n    def events(self):\n        """Doc.\n\n        More doc.\n        """\n        tmp_seen = {}\n        for t in self.ts:\n            tmp_seen[t] = True\n        return list(tmp_seen)\n\n    def other(self):\n        return 1\n',
     '# ... existing code ...\n    def events(self):\n        # ... existing code ...\n        seen = {}\n        for t in self.ts:\n            seen[t] = True\n        return list(seen)\n\n    def other(self):\n# ... existing code ...\n',
     'class A:\n    @property\n    def events(self):\n        """Doc.\n\n        More doc.\n        """\n        seen = {}\n        for t in self.ts:\n            seen[t] = True\n        return list(seen)\n\n    def other(self):\n        return 1\n'),
    # ... or only in its strings (an error message): the field renamed on every line, the last
    # line of a stretch before a marker too
    ("alike_line_edited", "m.ts", "export class Lock {\n  private holding = false;\n\n  acquire() {\n    if (this.holding) {\n      throw new Error('Lock already acquired');\n    }\n    this.holding = true;\n  }\n\n  release() {\n    this.holding = false;\n  }\n}\n",
     "export class Lock {\n  private acquired = false;\n// ... existing code ...\n    if (this.acquired) {\n      throw new Error('Lock already acquired');\n    }\n    this.acquired = true;\n// ... existing code ...\n  release() {\n    this.acquired = false;\n// ... existing code ...\n",
     "export class Lock {\n  private acquired = false;\n\n  acquire() {\n    if (this.acquired) {\n      throw new Error('Lock already acquired');\n    }\n    this.acquired = true;\n  }\n\n  release() {\n    this.acquired = false;\n  }\n}\n"),
    # ... a function assigned to a name (`Op.prototype.retry = function(err) {`) is a definition too:
    # its first line edited says where the stretch is, though its first body lines are in two places
    ("alike_line_edited", "m.js", 'function Op() {}\n\nOp.prototype.reset = function() {\n  if (this._timeout) {\n    clearTimeout(this._timeout);\n  }\n  this.n = 0;\n  this.m = 0;\n};\n\nOp.prototype.retry = function(err) {\n  if (this._timeout) {\n    clearTimeout(this._timeout);\n  }\n  this.k = 1;\n  this.j = 2;\n  var self = this;\n  return self;\n};\n',
     '// ... existing code ...\nOp.prototype.retry = function(err, delay) {\n  if (this._timeout) {\n    clearTimeout(this._timeout);\n  }\n  // ... existing code ...\n  this.j = 2;\n\n  if (delay) {\n    this.k = delay;\n  }\n\n  var self = this;\n// ... existing code ...\n',
     'function Op() {}\n\nOp.prototype.reset = function() {\n  if (this._timeout) {\n    clearTimeout(this._timeout);\n  }\n  this.n = 0;\n  this.m = 0;\n};\n\nOp.prototype.retry = function(err, delay) {\n  if (this._timeout) {\n    clearTimeout(this._timeout);\n  }\n  this.k = 1;\n  this.j = 2;\n\n  if (delay) {\n    this.k = delay;\n  }\n\n  var self = this;\n  return self;\n};\n'),
    # ... a Rust import of one name edits the import from the same place with several (not a second import)
    ("alike_line_edited", "m.rs", 'use crate::ast::{Enum, Field};\nuse syn::{Member, Type};\n\nfn f(t: Type) -> Type {\n    t\n}\n',
     'use crate::ast::{Enum, Field};\nuse syn::Type;\n\n// ... existing code ...\n',
     'use crate::ast::{Enum, Field};\nuse syn::Type;\n\nfn f(t: Type) -> Type {\n    t\n}\n'),
    # ... of several alike lines, the one between the stretches around it
    ("alike_line_edited", "m.py", 'def show(w, left, help, default):\n    w.write(left + help + default)\n\n\ndef a(w):\n    show(w, "a", "x", "")\n    show(w, "b", "y", "")\n\n\ndef b(w, spec):\n    left = spec.name\n    show(w, left, spec.help, spec.default)\n    return left\n\n\ndef c():\n    return 0\n',
     '# ... existing code ...\ndef show(w, left, help, default, env):\n    w.write(left + help + default + env)\n\n\ndef a(w):\n    show(w, "a", "x", "", "")\n    show(w, "b", "y", "", "")\n# ... existing code ...\n    show(w, left, spec.help, spec.default, spec.env)\n# ... existing code ...\n',
     'def show(w, left, help, default, env):\n    w.write(left + help + default + env)\n\n\ndef a(w):\n    show(w, "a", "x", "", "")\n    show(w, "b", "y", "", "")\n\n\ndef b(w, spec):\n    left = spec.name\n    show(w, left, spec.help, spec.default, spec.env)\n    return left\n\n\ndef c():\n    return 0\n'),
    ("alike_line_edited", "m.js", "function show(w, left, help, def) {\n  w.write(left + help + def);\n}\n\nfunction a(w) {\n  show(w, 'a', 'x', '');\n  show(w, 'b', 'y', '');\n}\n\nfunction b(w, spec) {\n  const left = spec.name;\n  show(w, left, spec.help, spec.def);\n}\n\nfunction c() {\n  return 0;\n}\n",
     "// ... existing code ...\nfunction show(w, left, help, def, env) {\n  w.write(left + help + def + env);\n}\n\nfunction a(w) {\n  show(w, 'a', 'x', '', '');\n  show(w, 'b', 'y', '', '');\n}\n// ... existing code ...\n  show(w, left, spec.help, spec.def, spec.env);\n}\n// ... existing code ...\n",
     "function show(w, left, help, def, env) {\n  w.write(left + help + def + env);\n}\n\nfunction a(w) {\n  show(w, 'a', 'x', '', '');\n  show(w, 'b', 'y', '', '');\n}\n\nfunction b(w, spec) {\n  const left = spec.name;\n  show(w, left, spec.help, spec.def, spec.env);\n}\n\nfunction c() {\n  return 0;\n}\n"),
    # 13. new lines between shown lines go there, in the file's indentation
    ("new_lines_between_shown_lines", "m.py", PY4.replace("    ", "\t"),
     "# ... existing code ...\n    a = x + 1\n    print(a)\n    b = a * 2\n# ... existing code ...\n",
     PY4.replace("    ", "\t").replace("\ta = x + 1\n", "\ta = x + 1\n\tprint(a)\n")),
    ("new_lines_between_shown_lines", "m.js", JS4,
     "// ... existing code ...\n  const a = x + 1;\n  console.log(a);\n  const b = a * 2;\n// ... existing code ...\n",
     JS4.replace("  const a = x + 1;\n", "  const a = x + 1;\n  console.log(a);\n")),
    # 14. a block body written anew replaces the old one when it ends the block
    ("block_body_rewritten", "m.py", PY4, "# ... existing code ...\ndef f(x):\n    return (x + 1) * 2\n# ... existing code ...\n",
     PY4.replace("    a = x + 1\n    b = a * 2\n    return b\n", "    return (x + 1) * 2\n")),
    ("block_body_rewritten", "m.js", JS4, "// ... existing code ...\nfunction f(x) {\n  return (x + 1) * 2;\n}\n// ... existing code ...\n",
     JS4.replace("  const a = x + 1;\n  const b = a * 2;\n  return b;\n", "  return (x + 1) * 2;\n")),
    # ... and is refused when it may as well be an addition at the block's start
    ("block_body_or_addition", "m.py", PY4, "# ... existing code ...\ndef f(x):\n    log(x)\n# ... existing code ...\n",
     "may replace the 3-line block or add to it"),
    ("block_body_or_addition", "m.js", JS4, "// ... existing code ...\nfunction f(x) {\n  log(x);\n// ... existing code ...\n",
     "may replace the"),
    # 15. new code alone between markers: the one place that fits, else the model, else a refusal
    ("floating_code_ambiguous", "m.py", PY4 + "\n\ndef h():\n    return 3\n",
     "# ... existing code ...\n\n\ndef k():\n    return 4\n\n\n# ... existing code ...\n", "places fit the new lines"),
    ("floating_code_ambiguous", "m.js", JS4 + "\nfunction h() {\n  return 3;\n}\n",
     "// ... existing code ...\n\nfunction k() {\n  return 4;\n}\n\n// ... existing code ...\n", "places fit the new lines"),
    ("floating_import", "m.py", "import json\nimport os\n\n\nx = 1\n", "# ... existing code ...\nimport math\n# ... existing code ...\n",
     "import json\nimport math\nimport os\n\n\nx = 1\n"),
    ("floating_import", "m.js", "import a from 'a';\nimport c from 'c';\n\nconst x = 1;\n",
     "// ... existing code ...\nimport b from 'b';\n// ... existing code ...\n", "import a from 'a';\nimport b from 'b';\nimport c from 'c';\n\nconst x = 1;\n"),
    # 16. a stretch whose lines the file has in several places together: refused
    ("weak_anchor_ambiguous", "m.py", "def f():\n    x = 1\n    return x\n\n\ndef g():\n    x = 1\n    return x\n",
     "# ... existing code ...\n    x = 1\n    y = 2\n    return x\n# ... existing code ...\n", "places fit"),
    # ... also when its lines match in one place only, but an edit would fit them where the file
    # has its first and last shown lines about as far apart (`b = 2` edited into `c = 3` in g)
    ("weak_anchor_ambiguous", "m.py",
     "def f():\n    start()\n    a = 1\n    finish()\n\n\ndef g():\n    start()\n    a = 1\n    b = 2\n    finish()\n",
     "# ... existing code ...\n    start()\n    a = 1\n    c = 3\n    finish()\n# ... existing code ...\n", "2 places fit"),
    ("weak_anchor_ambiguous", "m.js", "function f() {\n  let x = 1;\n  return x;\n}\n\nfunction g() {\n  let x = 1;\n  return x;\n}\n",
     "// ... existing code ...\n  let x = 1;\n  let y = 2;\n  return x;\n// ... existing code ...\n", "places fit"),
    # ... but where, of those places, the lines it writes anew edit lines like them at one only: there
    ("weak_anchor_ambiguous", "m.py",
     "def f(items):\n    out.append(first)\n    for x in items:\n        check(x)\n        out.append(render(x))\n        done()\n\n\n"
     "def g(items):\n    for x in items:\n        check(x)\n        total += 1\n        done()\n",
     "# ... existing code ...\n        check(x)\n        out.append(render(x, seen))\n        done()\n# ... existing code ...\n",
     "def f(items):\n    out.append(first)\n    for x in items:\n        check(x)\n        out.append(render(x, seen))\n        done()\n\n\n"
     "def g(items):\n    for x in items:\n        check(x)\n        total += 1\n        done()\n"),
    ("weak_anchor_ambiguous", "m.js",
     "function f(items) {\n  for (const x of items) {\n    if (x == null) {\n      out.push('none');\n    } else {\n"
     "      out.push(render(x));\n    }\n  }\n}\n\nfunction g(v) {\n  if (v) {\n    log(v);\n  } else {\n    return 2;\n  }\n}\n",
     "// ... existing code ...\n    } else {\n      out.push(render(x, seen));\n    }\n// ... existing code ...\n",
     "function f(items) {\n  for (const x of items) {\n    if (x == null) {\n      out.push('none');\n    } else {\n"
     "      out.push(render(x, seen));\n    }\n  }\n}\n\nfunction g(v) {\n  if (v) {\n    log(v);\n  } else {\n    return 2;\n  }\n}\n"),
    # 17. a new definition copying the one above it is new code; the one above stays
    # ... a new Rust impl block whose lines (`type Output = B;`, `#[inline(always)]`) the generic impl after it
    # has: new code, and that impl is kept (a generic `impl<T>` is a definition, named by its trait and type)
    ("copy_of_the_definition_above", "m.rs",
     "pub struct B(u64);\n\nimpl AddAssign<B> for B {\n    #[inline(always)]\n"
     "    fn add_assign(&mut self, rhs: B) {\n        self.0 += rhs.0\n    }\n}\n\nimpl<T> Add<T> for B\n"
     "    where T: Into<u64> {\n    type Output = B;\n    #[inline(always)]\n    fn add(self, rhs: T) -> B {\n"
     "        B(self.0 + (rhs.into() as u64))\n    }\n}\n\nimpl Mul<u64> for B {\n    type Output = B;\n"
     "    fn mul(self, rhs: u64) -> B {\n        B(self.0 * rhs)\n    }\n}\n",
     "// ... existing code ...\nimpl AddAssign<B> for B {\n    #[inline(always)]\n"
     "    fn add_assign(&mut self, rhs: B) {\n        self.0 += rhs.0\n    }\n}\n\nimpl Sub<B> for B {\n"
     "    type Output = B;\n    #[inline(always)]\n    fn sub(self, rhs: B) -> B {\n        B(self.0 - rhs.0)\n"
     "    }\n}\n\n// ... existing code ...\n",
     "pub struct B(u64);\n\nimpl AddAssign<B> for B {\n    #[inline(always)]\n"
     "    fn add_assign(&mut self, rhs: B) {\n        self.0 += rhs.0\n    }\n}\n\nimpl Sub<B> for B {\n"
     "    type Output = B;\n    #[inline(always)]\n    fn sub(self, rhs: B) -> B {\n        B(self.0 - rhs.0)\n"
     "    }\n}\n\nimpl<T> Add<T> for B\n    where T: Into<u64> {\n    type Output = B;\n    #[inline(always)]\n"
     "    fn add(self, rhs: T) -> B {\n        B(self.0 + (rhs.into() as u64))\n    }\n}\n\n"
     "impl Mul<u64> for B {\n    type Output = B;\n    fn mul(self, rhs: u64) -> B {\n        B(self.0 * rhs)\n"
     "    }\n}\n"),
    # ... a new definition with a decorator or attribute (`@slow`, `#[test]`) the next definition has too, its
    # body copying that one's lines: the decorator is the new definition's, and the next one is kept whole
    ("copy_of_the_definition_above", "m.rs",
     "#[cfg(test)]\nmod tests {\n    #[test]\n    fn older() {\n        assert!(is_older(1, 0));\n    }\n\n"
     "    #[cfg(feature = \"serde\")]\n    #[test]\n    fn serde() {\n        use super::*;\n\n"
     "        // Through serde.\n        let mut sm = SlotMap::new();\n        let k = sm.insert(42);\n"
     "        check(k);\n    }\n}\n",
     "// ... existing code ...\n        assert!(is_older(1, 0));\n    }\n\n    #[test]\n    fn round_trip() {\n"
     "        use super::*;\n\n        let mut sm = SlotMap::new();\n        let k = sm.insert(42);\n"
     "        assert_eq!(k.data().as_ffi(), 42);\n    }\n// ... existing code ...\n",
     "#[cfg(test)]\nmod tests {\n    #[test]\n    fn older() {\n        assert!(is_older(1, 0));\n    }\n\n"
     "    #[test]\n    fn round_trip() {\n        use super::*;\n\n        let mut sm = SlotMap::new();\n"
     "        let k = sm.insert(42);\n        assert_eq!(k.data().as_ffi(), 42);\n    }\n\n"
     "    #[cfg(feature = \"serde\")]\n    #[test]\n    fn serde() {\n        use super::*;\n\n"
     "        // Through serde.\n        let mut sm = SlotMap::new();\n        let k = sm.insert(42);\n"
     "        check(k);\n    }\n}\n"),
    ("copy_of_the_definition_above", "m.py",
     "class T:\n    def test_a(self):\n        assert is_older(1, 0)\n\n    @skip_if(no_serde)\n    @slow\n"
     "    def test_serde(self):\n        sm = SlotMap()\n\n        # through serde\n        k = sm.insert(42)\n"
     "        check(k)\n",
     "# ... existing code ...\n        assert is_older(1, 0)\n\n    @slow\n    def test_round_trip(self):\n"
     "        sm = SlotMap()\n\n        k = sm.insert(42)\n        assert k.data() == 42\n"
     "# ... existing code ...\n",
     "class T:\n    def test_a(self):\n        assert is_older(1, 0)\n\n    @slow\n"
     "    def test_round_trip(self):\n        sm = SlotMap()\n\n        k = sm.insert(42)\n"
     "        assert k.data() == 42\n\n    @skip_if(no_serde)\n    @slow\n    def test_serde(self):\n"
     "        sm = SlotMap()\n\n        # through serde\n        k = sm.insert(42)\n        check(k)\n"),
    ("copy_of_the_definition_above", "m.py", PY4,
     "# ... existing code ...\n    return b\n\n\ndef f2(x):\n    a = x + 1\n    b = a * 2\n    return b\n\n\ndef g():\n# ... existing code ...\n",
     PY4.replace("    return b\n\n\n", "    return b\n\n\ndef f2(x):\n    a = x + 1\n    b = a * 2\n    return b\n\n\n", 1)),
    ("copy_of_the_definition_above", "m.js", JS4,
     "// ... existing code ...\n  return b;\n}\n\nfunction f2(x) {\n  const a = x + 1;\n  const b = a * 2;\n  return b;\n}\n\nfunction g() {\n// ... existing code ...\n",
     JS4.replace("  return b;\n}\n\n", "  return b;\n}\n\nfunction f2(x) {\n  const a = x + 1;\n  const b = a * 2;\n  return b;\n}\n\n", 1)),
    # ... also beside one a marker stands for: read as that one edited, the draft would not parse;
    # ... a new class between two, its method's first line the same as the class above's: that
    # class keeps its method (the new one's body is written anew, not taken from it)
    ("copy_of_the_definition_above", "m.ts", 'export class A {\n  run(): number {\n    return 1;\n  }\n}\n\nexport class C {\n  run(): number {\n    return 3;\n  }\n}\n',
     '// ... existing code ...\n}\n\nexport class B {\n  run(): number {\n    return 2;\n  }\n}\n\nexport class C {\n// ... existing code ...\n',
     'export class A {\n  run(): number {\n    return 1;\n  }\n}\n\nexport class B {\n  run(): number {\n    return 2;\n  }\n}\n\nexport class C {\n  run(): number {\n    return 3;\n  }\n}\n'),
    # the second reading writes the body of a definition the file has under no name anew
    ("copy_of_the_definition_above", "m.py", 'FLAGS = {}\n\n\n# Marks the flags as required.\n# Fails when a flag is missing.\ndef mark_required(names):\n    for n in names:\n        f = FLAGS.get(n)\n        if f is None:\n            raise KeyError(n)\n        f.required = True\n\n\n# Marks the flags as hidden.\ndef mark_hidden(names):\n    for n in names:\n        FLAGS[n].hide()\n',
     '# ... existing code ...\n# Marks the flags as required.\n# ... existing code ...\n\n\n# Marks the flags as optional.\ndef mark_optional(names):\n    for n in names:\n        f = FLAGS.get(n)\n        if f is None:\n            raise KeyError(n)\n        f.optional = True\n\n\n# Marks the flags as hidden.\n# ... existing code ...\n',
     'FLAGS = {}\n\n\n# Marks the flags as required.\n# Fails when a flag is missing.\ndef mark_required(names):\n    for n in names:\n        f = FLAGS.get(n)\n        if f is None:\n            raise KeyError(n)\n        f.required = True\n\n\n# Marks the flags as optional.\ndef mark_optional(names):\n    for n in names:\n        f = FLAGS.get(n)\n        if f is None:\n            raise KeyError(n)\n        f.optional = True\n\n\n# Marks the flags as hidden.\ndef mark_hidden(names):\n    for n in names:\n        FLAGS[n].hide()\n'),
    ("copy_of_the_definition_above", "m.js", "const flags = new Map();\n\n// Marks the flags as required.\n// Fails when a flag is missing.\nfunction markRequired(names) {\n  for (const n of names) {\n    const f = flags.get(n);\n    if (f == null) {\n      throw new Error('no flag ' + n);\n    }\n    f.required = true;\n  }\n}\n\n// Marks the flags as hidden.\nfunction markHidden(names) {\n  names.forEach((n) => flags.get(n).hide());\n}\n",
     "// ... existing code ...\n// Marks the flags as required.\n// ... existing code ...\n\n// Marks the flags as optional.\nfunction markOptional(names) {\n  for (const n of names) {\n    const f = flags.get(n);\n    if (f == null) {\n      throw new Error('no flag ' + n);\n    }\n    f.optional = true;\n  }\n}\n\n// Marks the flags as hidden.\n// ... existing code ...\n",
     "const flags = new Map();\n\n// Marks the flags as required.\n// Fails when a flag is missing.\nfunction markRequired(names) {\n  for (const n of names) {\n    const f = flags.get(n);\n    if (f == null) {\n      throw new Error('no flag ' + n);\n    }\n    f.required = true;\n  }\n}\n\n// Marks the flags as optional.\nfunction markOptional(names) {\n  for (const n of names) {\n    const f = flags.get(n);\n    if (f == null) {\n      throw new Error('no flag ' + n);\n    }\n    f.optional = true;\n  }\n}\n\n// Marks the flags as hidden.\nfunction markHidden(names) {\n  names.forEach((n) => flags.get(n).hide());\n}\n"),
    # ... and when reading it as the lines of the one above it would write that one's last lines
    # (the stretch's context) anew and delete the file's, the reading where its body is new is taken
    ("copy_of_the_definition_above", "m.py", 'class Base:\n    def __or__(self, other):\n        return Or(self, other)\n\n    def __call__(self, chunk):\n        self.validate(chunk)\n        return chunk\n\n    def __repr__(self):\n        return "Base"\n\n\nclass Int(Base):\n    def validate(self, chunk):\n        int(chunk)\n\n    def __repr__(self):\n        return "Int()"\n\n\nclass Or(Base):\n    def __init__(self, a, b):\n        assert isinstance(a, Base), "a must be a Base"\n        assert isinstance(b, Base), "b must be a Base"\n        self._a = a\n        self._b = b\n        flatten(self)\n        count(self)\n\n    def to_yaml(self, value):\n        try:\n            return self._a.to_yaml(value)\n        except TypeError:\n            return self._b.to_yaml(value)\n\n    def __call__(self, chunk):\n        try:\n            result = self._a(chunk)\n            result.selected = result.validator\n            result.validator = self\n            return result\n        except ValueError:\n            result = self._b(chunk)\n            result.selected = result.validator\n            result.validator = self\n            return result\n\n    def __repr__(self):\n        return "{0} | {1}".format(repr(self._a), repr(self._b))\n',
     '# ... existing code ...\nclass Base:\n    def __or__(self, other):\n        return Or(self, other)\n\n    def __and__(self, other):\n        return And(self, other)\n\n    def __call__(self, chunk):\n# ... existing code ...\n    def __repr__(self):\n        return "{0} | {1}".format(repr(self._a), repr(self._b))\n\n\nclass And(Base):\n    def __init__(self, a, b):\n        assert isinstance(a, Base), "a must be a Base"\n        assert isinstance(b, Base), "b must be a Base"\n        self._a = a\n        self._b = b\n\n    def to_yaml(self, value):\n        self._b.to_yaml(value)\n        return self._a.to_yaml(value)\n\n    def __call__(self, chunk):\n        self._b(chunk)\n        result = self._a(chunk)\n        result.validator = self\n        return result\n\n    def __repr__(self):\n        return "{0} & {1}".format(repr(self._a), repr(self._b))\n',
     'class Base:\n    def __or__(self, other):\n        return Or(self, other)\n\n    def __and__(self, other):\n        return And(self, other)\n\n    def __call__(self, chunk):\n        self.validate(chunk)\n        return chunk\n\n    def __repr__(self):\n        return "Base"\n\n\nclass Int(Base):\n    def validate(self, chunk):\n        int(chunk)\n\n    def __repr__(self):\n        return "Int()"\n\n\nclass Or(Base):\n    def __init__(self, a, b):\n        assert isinstance(a, Base), "a must be a Base"\n        assert isinstance(b, Base), "b must be a Base"\n        self._a = a\n        self._b = b\n        flatten(self)\n        count(self)\n\n    def to_yaml(self, value):\n        try:\n            return self._a.to_yaml(value)\n        except TypeError:\n            return self._b.to_yaml(value)\n\n    def __call__(self, chunk):\n        try:\n            result = self._a(chunk)\n            result.selected = result.validator\n            result.validator = self\n            return result\n        except ValueError:\n            result = self._b(chunk)\n            result.selected = result.validator\n            result.validator = self\n            return result\n\n    def __repr__(self):\n        return "{0} | {1}".format(repr(self._a), repr(self._b))\n\n\nclass And(Base):\n    def __init__(self, a, b):\n        assert isinstance(a, Base), "a must be a Base"\n        assert isinstance(b, Base), "b must be a Base"\n        self._a = a\n        self._b = b\n\n    def to_yaml(self, value):\n        self._b.to_yaml(value)\n        return self._a.to_yaml(value)\n\n    def __call__(self, chunk):\n        self._b(chunk)\n        result = self._a(chunk)\n        result.validator = self\n        return result\n\n    def __repr__(self):\n        return "{0} & {1}".format(repr(self._a), repr(self._b))\n'),
    ("copy_of_the_definition_above", "m.js", "class Base {\n  or(other) {\n    return new Or(this, other);\n  }\n\n  call(chunk) {\n    this.validate(chunk);\n    return chunk;\n  }\n\n  toString() {\n    return 'Base';\n  }\n}\n\nclass Int extends Base {\n  validate(chunk) {\n    parseInt(chunk);\n  }\n\n  toString() {\n    return 'Int()';\n  }\n}\n\nclass Or extends Base {\n  constructor(a, b) {\n    super();\n    assert(a instanceof Base, 'a must be a Base');\n    assert(b instanceof Base, 'b must be a Base');\n    this._a = a;\n    this._b = b;\n    flatten(this);\n    count(this);\n  }\n\n  toYaml(value) {\n    try {\n      return this._a.toYaml(value);\n    } catch (e) {\n      return this._b.toYaml(value);\n    }\n  }\n\n  call(chunk) {\n    try {\n      const result = this._a.call(chunk);\n      result.selected = result.validator;\n      result.validator = this;\n      return result;\n    } catch (e) {\n      const result = this._b.call(chunk);\n      result.selected = result.validator;\n      result.validator = this;\n      return result;\n    }\n  }\n\n  toString() {\n    return `${this._a} | ${this._b}`;\n  }\n}\n",
     "// ... existing code ...\nclass Base {\n  or(other) {\n    return new Or(this, other);\n  }\n\n  and(other) {\n    return new And(this, other);\n  }\n\n  call(chunk) {\n// ... existing code ...\n  toString() {\n    return `${this._a} | ${this._b}`;\n  }\n}\n\nclass And extends Base {\n  constructor(a, b) {\n    super();\n    assert(a instanceof Base, 'a must be a Base');\n    assert(b instanceof Base, 'b must be a Base');\n    this._a = a;\n    this._b = b;\n  }\n\n  toYaml(value) {\n    this._b.toYaml(value);\n    return this._a.toYaml(value);\n  }\n\n  call(chunk) {\n    this._b.call(chunk);\n    const result = this._a.call(chunk);\n    result.validator = this;\n    return result;\n  }\n\n  toString() {\n    return `${this._a} & ${this._b}`;\n  }\n}\n",
     "class Base {\n  or(other) {\n    return new Or(this, other);\n  }\n\n  and(other) {\n    return new And(this, other);\n  }\n\n  call(chunk) {\n    this.validate(chunk);\n    return chunk;\n  }\n\n  toString() {\n    return 'Base';\n  }\n}\n\nclass Int extends Base {\n  validate(chunk) {\n    parseInt(chunk);\n  }\n\n  toString() {\n    return 'Int()';\n  }\n}\n\nclass Or extends Base {\n  constructor(a, b) {\n    super();\n    assert(a instanceof Base, 'a must be a Base');\n    assert(b instanceof Base, 'b must be a Base');\n    this._a = a;\n    this._b = b;\n    flatten(this);\n    count(this);\n  }\n\n  toYaml(value) {\n    try {\n      return this._a.toYaml(value);\n    } catch (e) {\n      return this._b.toYaml(value);\n    }\n  }\n\n  call(chunk) {\n    try {\n      const result = this._a.call(chunk);\n      result.selected = result.validator;\n      result.validator = this;\n      return result;\n    } catch (e) {\n      const result = this._b.call(chunk);\n      result.selected = result.validator;\n      result.validator = this;\n      return result;\n    }\n  }\n\n  toString() {\n    return `${this._a} | ${this._b}`;\n  }\n}\n\nclass And extends Base {\n  constructor(a, b) {\n    super();\n    assert(a instanceof Base, 'a must be a Base');\n    assert(b instanceof Base, 'b must be a Base');\n    this._a = a;\n    this._b = b;\n  }\n\n  toYaml(value) {\n    this._b.toYaml(value);\n    return this._a.toYaml(value);\n  }\n\n  call(chunk) {\n    this._b.call(chunk);\n    const result = this._a.call(chunk);\n    result.validator = this;\n    return result;\n  }\n\n  toString() {\n    return `${this._a} & ${this._b}`;\n  }\n}\n"),
    # 18. a marker that stands for nothing next to a deletion: refused
    ("empty_marker_beside_deletion", "m.py", "a = 1\nb = 2\nc = 3\nd = 4\n", "a = 1\n# ...\nb = 2\nd = 40\n",
     "stands for no line of the file"),
    ("empty_marker_beside_deletion", "m.js", "let a = 1;\nlet b = 2;\nlet c = 3;\nlet d = 4;\n",
     "let a = 1;\n// ...\nlet b = 2;\nlet d = 40;\n", "stands for no line of the file"),
    # 19. the result must parse at least as well as the original
    ("result_must_parse", "m.py", PY4, "# ... existing code ...\ndef f(x):\n    a = (x + 1\n    b = a * 2\n# ... existing code ...\n",
     "would not parse"),
    # ... but where the first reading leaves the kept statement above its new lines without a body,
    # the body of a definition whose first line the sketch edits is read in its own place (its
    # lines equal to another definition's are this one's)
    ("result_must_parse", "m.py",
     "def to_hex(number):\n    if number <= 0:\n        raise ValueError\n    return hex(number)\n\n\n"
     "def to_roman(num):\n    if num <= 0:\n        raise ValueError\n    return roman(num)\n",
     "# ... existing code ...\ndef to_roman(number):\n    if number <= 0:\n        raise ValueError\n"
     "    return roman(number)\n",
     "def to_hex(number):\n    if number <= 0:\n        raise ValueError\n    return hex(number)\n\n\n"
     "def to_roman(number):\n    if number <= 0:\n        raise ValueError\n    return roman(number)\n"),
    ("result_must_parse", "m.js", JS4, "// ... existing code ...\nfunction f(x) {\n  const a = (x + 1;\n  const b = a * 2;\n// ... existing code ...\n",
     "would not parse"),
    # 19b. an import the result would have twice: refused
    ("import_repeated", "m.py", "import os\nfrom a import b\n\n\nx = b()\n",
     "import os\nfrom a import (\n    b,\n    c,\n)\n# ... existing code ...\n", "twice"),
    ("import_repeated", "m.go", 'package p\n\nimport (\n\t"fmt"\n\t"strconv"\n)\n\nfunc f() int {\n\treturn 1\n}\n',
     'package p\n\nimport "strconv"\n\n// ... existing code ...\n', "twice"),
    # 14b. new comment lines above a shown definition that say what the file's comment there said: rewritten
    ("doc_comment_rewritten", "m.py", "x = 1\n\n\n# Scale the value by the factor\ndef scale(v):\n    return v * 2\n",
     "# ... existing code ...\n# Scale the value by the given factor (2 by default)\ndef scale(v, factor=2):\n    return v * factor\n",
     "x = 1\n\n\n# Scale the value by the given factor (2 by default)\ndef scale(v, factor=2):\n    return v * factor\n"),
    ("doc_comment_rewritten", "m.js", "let x = 1;\n\n// Scale the value by the factor\nfunction scale(v) {\n  return v * 2;\n}\n",
     "// ... existing code ...\n// Scale the value by the given factor (2 by default)\nfunction scale(v, factor = 2) {\n  return v * factor;\n}\n",
     "let x = 1;\n\n// Scale the value by the given factor (2 by default)\nfunction scale(v, factor = 2) {\n  return v * factor;\n}\n"),
    # ... a Go method's, with the sketch's own blank line above its new comment
    ("doc_comment_rewritten", "m.go", "package p\n\nfunc a() {\n}\n\n// V to string\nfunc (v V) String() string {\n\treturn \"v\"\n}\n",
     "// ... existing code ...\n\n// String returns v as a string.\nfunc (v V) String() string {\n// ... existing code ...\n",
     "package p\n\nfunc a() {\n}\n\n// String returns v as a string.\nfunc (v V) String() string {\n\treturn \"v\"\n}\n"),
    # ... while a comment about something else is added above the file's own
    ("doc_comment_rewritten", "m.js", "let x = 1;\n\n// Scale the value by the factor\nfunction scale(v) {\n  return v * 2;\n}\n",
     "// ... existing code ...\n// Deprecated: use resize instead.\nfunction scale(v) {\n// ... existing code ...\n",
     "let x = 1;\n\n// Scale the value by the factor\n// Deprecated: use resize instead.\nfunction scale(v) {\n  return v * 2;\n}\n"),
    # ... a new doc comment where the definition has none: its `/**` and `*/` are no anchors
    # (nor above a new definition of a name the file does not define: the member above keeps its comment)
    ("doc_comment_rewritten", "m.ts", 'export interface Props {\n  /**\n   * Called when it starts.\n   */\n  onStart?: () => void\n  /**\n   * Called when it ends,\n   * with the reason.\n   */\n  onEnd?: () => void\n}\n\nfunction defaultHandler(error: Error) {\n  console.error(error)\n}\n',
     '// ... existing code ...\n}\n\n/**\n * Getters for the initial values.\n */\nexport interface InitialValues {\n  getZoom: () => number\n}\n\nfunction defaultHandler(error: Error) {\n  console.error(error)\n// ... existing code ...\n',
     'export interface Props {\n  /**\n   * Called when it starts.\n   */\n  onStart?: () => void\n  /**\n   * Called when it ends,\n   * with the reason.\n   */\n  onEnd?: () => void\n}\n\n/**\n * Getters for the initial values.\n */\nexport interface InitialValues {\n  getZoom: () => number\n}\n\nfunction defaultHandler(error: Error) {\n  console.error(error)\n}\n'),
    # (not even as the first lines after a marker, with a documented member above: that one stays whole)
    ("doc_comment_rewritten", "m.js",
     "Parser.prototype = {\n  /**\n   * Save the constructor\n   */\n\n  constructor: Parser,\n\n  error: function(code, token) {\n"
     "    throw new Error(code + token.line);\n  },\n};\n",
     "// ... existing code ...\n  /**\n   * Throw at `token` (the current token when omitted).\n   */\n  error: function(code, token) {\n"
     "    token = token || this.peek();\n    throw new Error(code + token.line);\n// ... existing code ...\n",
     "Parser.prototype = {\n  /**\n   * Save the constructor\n   */\n\n  constructor: Parser,\n\n  /**\n   * Throw at `token` (the current token when omitted).\n   */\n"
     "  error: function(code, token) {\n    token = token || this.peek();\n    throw new Error(code + token.line);\n  },\n};\n"),
    ("doc_comment_rewritten", "m.ts", "export type Options = {\n  accepts: readonly string[];\n  message: (option: string) => string;\n};\n\n/**\n * Throws when `options` holds an option that the platform\n * does not accept.\n */\nexport const reject = (options: object, platform: Options): void => {\n  for (const name of NAMES) {\n    if (!platform.accepts.includes(name)) {\n      throw new Error(platform.message(name));\n    }\n  }\n};\n\nexport const toInt = (value: unknown): number => {\n  if (typeof value === 'number') return Math.round(value);\n  return parseInt(String(value), 10);\n};\n\nexport const toFloat = (value: unknown): number => {\n  if (typeof value === 'number') return value;\n  return parseFloat(String(value));\n};\n",
     "// ... existing code ...\n  }\n};\n\n/**\n * Converts a number (rounded) or a numeric string to an integer.\n */\nexport const toInt = (value: unknown): number => {\n  if (typeof value === 'number') return Math.round(value);\n  return parseInt(String(value), 10);\n};\n\n/**\n * Converts a number or a numeric string to a float.\n */\nexport const toFloat = (value: unknown): number => {\n// ... existing code ...\n",
     "export type Options = {\n  accepts: readonly string[];\n  message: (option: string) => string;\n};\n\n/**\n * Throws when `options` holds an option that the platform\n * does not accept.\n */\nexport const reject = (options: object, platform: Options): void => {\n  for (const name of NAMES) {\n    if (!platform.accepts.includes(name)) {\n      throw new Error(platform.message(name));\n    }\n  }\n};\n\n/**\n * Converts a number (rounded) or a numeric string to an integer.\n */\nexport const toInt = (value: unknown): number => {\n  if (typeof value === 'number') return Math.round(value);\n  return parseInt(String(value), 10);\n};\n\n/**\n * Converts a number or a numeric string to a float.\n */\nexport const toFloat = (value: unknown): number => {\n  if (typeof value === 'number') return value;\n  return parseFloat(String(value));\n};\n"),
    # 19c. a name defined twice in a row, one of them new: refused
    ("definition_repeated", "m.py", "def f(a):\n    return a\n\n\ndef g(b):\n    return b\n",
     "# ... existing code ...\ndef g(c):\n    return c\n\n\ndef g(b):\n# ... existing code ...\n",
     "define 'g' twice"),
    ("definition_repeated", "m.js", "function f(a) {\n  return a;\n}\n\nfunction g(b) {\n  return b;\n}\n",
     "// ... existing code ...\nfunction g(c) {\n  return c;\n}\n\nfunction g(b) {\n// ... existing code ...\n",
     "define 'g' twice"),
    # 20. a line of the file re-typed next to a marker that keeps it: refused
    ("context_line_copied", "m.py", "x = 1\ny = 2\nz = 3\n", "# ... existing code ...\nz = 3\ny = 2\n",
     "anew next to a marker that keeps the same line"),
    ("context_line_copied", "m.js", "let x = 1;\nlet y = 2;\nlet z = 3;\n", "// ... existing code ...\nlet z = 3;\nlet y = 2;\n",
     "anew next to a marker that keeps the same line"),
    # ... but a block keyword written anew (`try {` as `try:`) is no line of the file's own
    ("context_line_copied", "m.js", "function f() {\n  try {\n    a();\n  } finally {\n    b();\n  }\n  run();\n  return 1;\n}\n",
     "// ... existing code ...\n  } finally {\n    b();\n  }\n  try {\n    run();\n  } catch (e) {}\n  return 1;\n}\n",
     "function f() {\n  try {\n    a();\n  } finally {\n    b();\n  }\n  try {\n    run();\n  } catch (e) {}\n  return 1;\n}\n"),
    # 21. a new definition right after kept code gets the file's blank lines before definitions
    ("definition_spacing", "m.py", PY4, "# ... existing code ...\ndef h():\n    return 2\n", PY4 + "\n\ndef h():\n    return 2\n"),
    # ... and a kept definition right after new code that ends in a blank line gets them too
    ("definition_spacing", "m.py", 'import os\n\nLIMIT = 10\n\n\ndef helper(x):\n    return x\n\n\ndef main():\n    return helper(LIMIT)\n',
     '# ... existing code ...\nLIMIT = 10\n\n\nclass Warn(UserWarning):\n    """Emitted when it is too late."""\n\n# ... existing code ...\n',
     'import os\n\nLIMIT = 10\n\n\nclass Warn(UserWarning):\n    """Emitted when it is too late."""\n\n\ndef helper(x):\n    return x\n\n\ndef main():\n    return helper(LIMIT)\n'),
    # ... but a definition's first line edited right after a marker keeps the old one's spacing
    ("definition_spacing", "m.js",
     "const x = 1;\n\nfunction g() {\n  return 0;\n}\n\n/**\n * Doc.\n */\nfunction f(a) {\n  return a;\n}\n",
     "// ... existing code ...\nfunction f(a, b) {\n  return a;\n// ... existing code ...\n",
     "const x = 1;\n\nfunction g() {\n  return 0;\n}\n\n/**\n * Doc.\n */\nfunction f(a, b) {\n  return a;\n}\n"),
    ("definition_spacing", "m.js", JS4, "// ... existing code ...\nfunction h() {\n  return 2;\n}\n", JS4 + "\nfunction h() {\n  return 2;\n}\n"),
    # a line the file has once, though it says little (`finally:`, `});`), shown after a marker is
    # the file's: the lines between it and the next shown line go, and it is not written twice
    ("deletion_by_adjacency", "m.py", PY_TRY, PY_TRY_SK, PY_TRY_WANT),
    ("deletion_by_adjacency", "m.js", JS_RUN, JS_RUN_SK, JS_RUN_WANT),
    # a stretch shown by a line that says little (`try:`, `});`) which the file has once between the
    # stretches around it: placed there
    ("weak_anchor_ambiguous", "m.py", PY_ANCHOR, PY_ANCHOR_SK, PY_ANCHOR_WANT),
    ("weak_anchor_ambiguous", "m.js", JS_ANCHOR, JS_ANCHOR_SK, JS_ANCHOR_WANT),
]


@pytest.mark.parametrize("row,path,original,sketch,want", CASES, ids=[f"{c[0]}-{c[1].rsplit('.', 1)[1]}" for c in CASES])
def test_contract_row(row, path, original, sketch, want):
    if want.endswith("\n"):
        assert expand(original, sketch, path).text == want
    else:
        with pytest.raises(ApplyError, match=want):
            expand(original, sketch, path)


def test_every_row_has_a_python_and_a_curly_brace_case():
    langs: dict[str, set[str]] = {}
    for row, path, *_ in CASES:
        langs.setdefault(row, set()).add(path.rsplit(".", 1)[1])
    assert all("py" in v and v & {"js", "go"} for v in langs.values()), langs


def test_the_contract_page_and_the_planner_prompt_carry_the_table():
    from pathlib import Path

    from lsp_server.apply.contract import ROWS, markdown, prompt_text
    from lsp_server.planner.prompt import SYSTEM

    page = (Path(__file__).parents[2] / "docs" / "sketch-contract.md").read_text()
    assert markdown() in page
    assert prompt_text() in SYSTEM
    assert {row for row, *_ in ROWS} == {c[0] for c in CASES}  # a test for every row, a row for every test
