"""Next-edit prediction: the edit the user is about to make, anywhere in the file."""
