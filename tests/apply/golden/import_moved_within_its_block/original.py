"""Doc."""
import collections
import functools
import datetime as dt
import inspect


def f():
    return 1
