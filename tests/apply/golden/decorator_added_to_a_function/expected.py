import functools


def first():
    return 1


@functools.cache
def second():
    return 2


def third():
    return 3
