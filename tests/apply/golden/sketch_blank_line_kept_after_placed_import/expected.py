# -*- coding: utf-8 -*-
import sys

try:
    from ._version import version as __version__
except ImportError:
    __version__ = 'unknown'

__all__ = ['easter', 'parser', 'tz']

def __dir__():
    return [x for x in globals() if x not in sys.modules] + __all__
