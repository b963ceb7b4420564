def describe():
    """
    weekday:
        One of MO, TU.
    """
    return 2
