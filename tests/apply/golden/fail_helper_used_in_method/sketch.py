# ... existing code ...
class Over(TokenList):
    M_OPEN = "OVER"


# ... existing code ...
    def get_window(self):
        return self.token_next_by(i=Over)
