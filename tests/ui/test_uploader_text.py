"""The uploader's relabelling style: our catalogue's words, quoted so no text can end the style."""

from __future__ import annotations

from graphrag_ui.base.i18n import t
from graphrag_ui.ui.widgets.uploader_text import _css_string, uploader_style


def test_english_keeps_streamlits_own_words():
    assert uploader_style(5, ["md", "txt"]) == ""


def test_chinese_draws_the_catalogue_words(ui_language):
    ui_language("zh")
    style = uploader_style(5, ["md", "txt"])
    assert style.startswith("<style>") and style.endswith("</style>")
    assert f'content: "{t("Upload", "zh")}"' in style
    assert 'content: "单个文件不超过 5 MB • MD, TXT"' in style
    assert style.count("font-size: 0}") == 1  # the English drawn at size 0, not removed


def test_css_strings_cannot_close_the_string_or_the_style():
    quoted = _css_string('a"b\\c\n</style><script>x</script>')
    assert quoted.startswith('"') and quoted.endswith('"')
    inner = quoted[1:-1]
    assert '"' not in inner and "<" not in inner and ">" not in inner and "\n" not in inner
    assert "\\22 " in inner and "\\5c " in inner and "\\3c " in inner
