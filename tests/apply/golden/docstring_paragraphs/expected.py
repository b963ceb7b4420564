def addini(name, help, type=None):
    """Register an ini-file option.

    :param type:
        Type of the variable. Can be:

            * ``string``: a string
            * ``paths``: a list of paths

        For ``paths`` types, they are considered relative to the ini-file.

        .. versionadded:: 7.0
            The ``paths`` variable type.

        .. versionadded:: 8.1
            Use the current working directory without an ini-file.

        Defaults to ``string`` if ``None`` or not passed.
    """
    return name
