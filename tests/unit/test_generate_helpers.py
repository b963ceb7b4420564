from lsp_server.inference.generate import common_prefix_len, lookup_draft


def test_common_prefix_len():
    assert common_prefix_len([1, 2, 3], [1, 2, 4]) == 2
    assert common_prefix_len([], [1]) == 0
    assert common_prefix_len([1, 2], [1, 2]) == 2


def test_lookup_draft_copies_what_followed_the_latest_match():
    ctx = [5, 6, 7, 8, 9, 1, 5, 6, 7, 2, 3, 5, 6, 7]
    assert lookup_draft(ctx, 3, 2, 4) == [2, 3, 5, 6]


def test_lookup_draft_none_without_match():
    assert lookup_draft([1, 2, 3, 4], 3, 2, 4) == []
