# ... existing code ...
        For ``paths`` types, they are considered relative to the ini-file.

        .. versionadded:: 7.0
            The ``paths`` variable type.

        .. versionadded:: 8.1
            Use the current working directory without an ini-file.
    # ... existing code ...
