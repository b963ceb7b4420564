def f():
    x = 1
    return x + 1


def g():
    return 2
