class TaggedJSONSerializer:
    # ... rest of the code unchanged ...
    def _untag_scan(self, value):
        if isinstance(value, dict):
            value = {k: self._untag_scan(v) for k, v in value.items()}
            value = self.untag(value)

        return value

    # ... rest of the code unchanged ...
    def loads(self, value):
        return self._untag_scan(loads(value))
