import fnmatch
import os
from os.path import abspath
from os.path import isabs
from stat import S_ISDIR
import sys
from typing import Any


def f():
    return 1
