import hashlib


class NoneAlgorithm:
    def get_signature(self, key, value):
        return b""


def _lazy_sha1(string=b""):
    """Don't access ``hashlib.sha1`` until runtime."""
    return hashlib.sha1(string)


class HMACAlgorithm:
    default_digest_method = staticmethod(_lazy_sha1)

    def get_signature(self, key, value):
        return self.default_digest_method(key + value).digest()
