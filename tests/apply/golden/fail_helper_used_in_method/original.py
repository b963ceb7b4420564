class Where(TokenList):
    M_OPEN = "WHERE"


class Having(TokenList):
    M_OPEN = "HAVING"


class Case(TokenList):
    M_OPEN = "CASE"


class Function(TokenList):
    def get_window(self):
        return self.token_next_by(i=Parenthesis)
