# fmt: off
NAMES_0 = [1, 2]
# fmt: on

# fmt: off
NAMES_1 = [1, 2]
# fmt: on

# fmt: off
NAMES_2 = [1, 2]
# fmt: on

# fmt: off
NAMES_3 = [1, 2]
# fmt: on


def line_end():
    return "\n"


# fmt: off
lineEnd = line_end
stringEnd = string_end

@replaced_by_pep8(null_debug_action)
def nullDebugAction(): ...

@replaced_by_pep8(trace_parse_action)
def traceParseAction(): ...

@replaced_by_pep8(condition_as_parse_action)
def conditionAsParseAction(): ...

@replaced_by_pep8(token_map)
def tokenMap(): ...
# fmt: on
