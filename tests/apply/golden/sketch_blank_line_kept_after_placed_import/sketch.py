# ... existing code ...
import sys

# ... existing code ...

def __dir__():
    return [x for x in globals() if x not in sys.modules] + __all__
