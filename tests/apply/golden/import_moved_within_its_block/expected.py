"""Doc."""
import collections
import datetime as dt
import functools
import inspect


def f():
    return 1
