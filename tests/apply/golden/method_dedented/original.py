class Greeter:
    def __init__(self, name):
        self.name = name

    def greet(self):
        return "hi " + self.name

    def bye(self):
        return "bye"
