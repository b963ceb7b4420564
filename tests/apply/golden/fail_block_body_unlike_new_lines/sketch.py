# ... existing code ...
    def __call__(self, etag=None, data=None, include_weak=False):
        if etag is None:
            if data is None:
                raise TypeError("'data' is required when 'etag' is not given.")

        # ... existing code ...
