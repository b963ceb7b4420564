# ... rest of the code unchanged ...

import collections.abc as cabc
import typing as t
from datetime import datetime

if t.TYPE_CHECKING:
    import typing_extensions as te

T = t.TypeVar("T")
# ... rest of the code unchanged ...
    def __init__(self, etag: str | None = None, date: datetime | None = None):
        self.etag = etag
