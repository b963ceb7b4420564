def line_end():
    return "\n"


# fmt: off
lineEnd = line_end
stringEnd = string_end

@replaced_by_pep8(null_debug_action)
def nullDebugAction(): ...

@replaced_by_pep8(token_map)
def tokenMap(): ...
# fmt: on
