import fnmatch
import os
import sys
from os.path import abspath
from os.path import isabs
from stat import S_ISDIR
from typing import Any


def f():
    return 1
