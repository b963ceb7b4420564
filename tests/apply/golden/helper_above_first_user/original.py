import hashlib


class NoneAlgorithm:
    def get_signature(self, key, value):
        return b""


class HMACAlgorithm:
    default_digest_method = staticmethod(hashlib.sha1)

    def get_signature(self, key, value):
        return self.default_digest_method(key + value).digest()
