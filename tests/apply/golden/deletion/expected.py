import os


def mean(xs):
    return total(xs) / len(xs)
