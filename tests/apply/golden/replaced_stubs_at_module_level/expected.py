def line_end():
    return "\n"


# fmt: off
lineEnd = line_end
stringEnd = string_end
nullDebugAction = replaced_by_pep8("nullDebugAction", null_debug_action)
tokenMap = replaced_by_pep8("tokenMap", token_map)
# fmt: on
