# ... existing code ...


def d():
    return 4


# ... existing code ...
