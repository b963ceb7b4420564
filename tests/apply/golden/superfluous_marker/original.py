def f():
    x = 1
    return x


def g():
    return 2
