class Combined:
    def copy(self):
        """Return a shallow copy.
        # ... existing code ...
        return Combined(self)

    def __len__(self) -> int:
        return len(self.keys())
# ... existing code ...
