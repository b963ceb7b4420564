import re

# https://httpwg.org/specs/rfc9110.html#parameter
_parameter_re = re.compile(
    r"""
    # don't match multiple empty parts, that causes backtracking
    \s*;\s*  # find the part delimiter
    (?:
    ([\w!#$%&'*+\-.^`|~]+)  # key
    =
    (  # value, token or quoted string
        [\w!#$%&'*+\-.^`|~]+  # one or more token chars
    |
        "(?:\\\\|\\"|.)*?"  # quoted string, consuming slash escapes
    )
    )?  # optionally match key=value, to account for empty parts
    """,
    re.ASCII | re.VERBOSE,
)
# https://www.rfc-editor.org/rfc/rfc2231#section-4
_charset_value_re = re.compile(
    r"""
    ([\w!#$%&*+\-.^`|~]*)'  # charset part, could be empty
    ([\w!#$%&'*+\-.^`|~]+)  # value
    """,
    re.ASCII | re.VERBOSE,
)
