# (unchanged code omitted)
                continue
            if self.match_percent():
                continue
            if self.match_text():
    # (unchanged code omitted)
