class TaggedJSONSerializer:
    def tag(self, value):
        """Convert a value to a tagged representation if necessary."""
        for tag in self.order:
            if tag.check(value):
                return tag.tag(value)

        return value

    def untag(self, value):
        """Convert a tagged representation back to the original type."""
        if len(value) != 1:
            return value

        key = next(iter(value))
        return self.tags[key].to_python(value[key])

    def dumps(self, value):
        return dumps(self.tag(value), separators=(",", ":"))

    def loads(self, value):
        return loads(value, object_hook=self.untag)
