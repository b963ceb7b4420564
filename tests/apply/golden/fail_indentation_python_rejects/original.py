def f():
    return 1


x = 1
z = 3
