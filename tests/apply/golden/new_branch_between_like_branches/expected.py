class Lexer:
    def parse(self):
        while True:
            if self.match_position > self.textlength:
                break
            if self.match_end():
                break
            if self.match_expression():
                continue
            if self.match_control_line():
                continue
            if self.match_comment():
                continue
            if self.match_tag_start():
                continue
            if self.match_tag_end():
                continue
            if self.match_python_block():
                continue
            if self.match_percent():
                continue
            if self.match_text():
                continue
            raise exceptions.CompileException("assertion failed")
