"""Fields of the CSV as markdown that stays what it says: summary.md and compare.py --markdown print
every value read from a file through text() or code(), so that no host name, file name or backend
can start a heading, split a table cell, open a code span or carry HTML (a <script>) into the page."""

from __future__ import annotations

import re

# Control characters (a line break would end the table row or start a heading): shown as \xNN, as
# the harness escapes file names (report/utf8.hpp).
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# What markdown reads as markup inside a line: emphasis, links and images, code, table cells,
# strikethrough, a heading's closing hashes, and the backslash that escapes them.
MARKUP = re.compile(r"([\\`*_\[\]|~#])")


def controls_shown(value) -> str:
    return CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(value))


def text(value) -> str:
    """A field as markdown text: HTML's &, < and > as entities, markup characters
    backslash-escaped, control characters as \\xNN."""
    escaped = MARKUP.sub(r"\\\1", str(value))
    escaped = escaped.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return controls_shown(escaped)


def code(value) -> str:
    """A field as a markdown code span, which shows HTML as text: fenced by one backtick more than
    its longest run of them, | as \\| (a table splits its cells before it reads code spans),
    control characters as \\xNN."""
    content = controls_shown(value).replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    fence = "`" * (longest + 1)
    if content.startswith("`") or content.endswith("`") or not content.strip():
        content = f" {content} "  # a space each side, which the span drops
    return f"{fence}{content}{fence}"
