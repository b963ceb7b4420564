import os


def total(xs):
    """Sum of xs."""
    result = 0
    for x in xs:
        result += x
    return result


def mean(xs):
    return total(xs) / len(xs)
