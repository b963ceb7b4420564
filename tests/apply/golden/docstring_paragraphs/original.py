def addini(name, help, type=None):
    """Register an ini-file option.

    :param type:
        Type of the variable. Can be:

            * ``string``: a string
            * ``paths``: a list of paths

        .. versionadded:: 7.0
            The ``paths`` variable type.

        Defaults to ``string`` if ``None`` or not passed.
    """
    return name
