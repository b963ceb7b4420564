import pytest

from lsp_server.protocol import PositionError, detect_eol, normalise_eol, offset_at, utf16_to_index


def test_offset_simple():
    text = "ab\ncd\n"
    assert offset_at(text, 1, 1) == 4
    assert offset_at(text, 2, 0) == 6


def test_character_past_end_clamps_to_line_end():
    assert offset_at("ab\ncd", 0, 99) == 2


def test_line_past_end_is_an_error():
    with pytest.raises(PositionError, match="past the end"):
        offset_at("ab\ncd", 5, 0)


def test_utf16_units_and_surrogates():
    line = "a😀b"  # 😀 is two UTF-16 units
    assert utf16_to_index(line, 1) == 1
    assert utf16_to_index(line, 3) == 2
    with pytest.raises(PositionError, match="surrogate"):
        utf16_to_index(line, 2)


def test_eol_detection_and_normalisation():
    assert detect_eol("a\r\nb") == "\r\n"
    assert detect_eol("a\nb") == "\n"
    assert normalise_eol("a\r\nb\rc") == "a\nb\nc"


def test_settings_validation():
    from lsp_server.config import Settings, as_json, parse_settings

    s, problems = parse_settings({"tandem": {"maxTokens": 0, "multiline": "always", "serverCommand": ["x"], "bogus": 1}})
    assert s.max_tokens == Settings().max_tokens and s.multiline == "always"
    assert any("tandem.maxTokens" in p for p in problems) and any("tandem.bogus" in p for p in problems)
    assert not any("serverCommand" in p for p in problems)
    assert parse_settings("nope")[1] and as_json(Settings())["maxTokens"] == 32
