import os


def total(xs):
    return sum(x for x in xs if x is not None)


def mean(xs):
    return total(xs) / len(xs)
