class Receiver:
    def clone(self):
        """
        Create a clone of this stream.

        Each clone can be closed separately.
        """
        return Receiver()

    def close(self):
        if not self._closed:
            self._closed = True


class Sender:
    def close(self):
        if not self._closed:
            self._closed = True
