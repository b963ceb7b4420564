# ... existing code ...
def _lazy_sha1(string=b""):
    """Don't access ``hashlib.sha1`` until runtime."""
    return hashlib.sha1(string)


# ... existing code ...
class HMACAlgorithm:
    default_digest_method = staticmethod(_lazy_sha1)
    # ... existing code ...
