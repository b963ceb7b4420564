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
nullDebugAction = replaced_by_pep8("nullDebugAction", null_debug_action)
traceParseAction = replaced_by_pep8("traceParseAction", trace_parse_action)
conditionAsParseAction = replaced_by_pep8("conditionAsParseAction", condition_as_parse_action)
tokenMap = replaced_by_pep8("tokenMap", token_map)
# fmt: on
