class ETags:
    def __call__(self, etag=None, data=None, include_weak=False):
        if etag is None:
            from ..http import generate_etag

            etag = generate_etag(data)
        if include_weak:
            if etag in self._weak:
                return True
        return etag in self._strong
