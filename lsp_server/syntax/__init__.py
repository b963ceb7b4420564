"""Tree-sitter, shared by retrieval, the expander and next edit: which grammar serves a file and
its definition queries (languages), and whether a text parses (check)."""
