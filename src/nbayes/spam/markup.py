"""HTML turned into text for the tokenizer: visible text, link URLs and tag names.

:func:`html_to_text` drops comments, scripts and styles (:func:`drop_hidden`), keeps the
URLs of ``href``, ``src`` and ``action`` attributes (:func:`html_urls`), replaces tags by
spaces and unescapes character references, in time linear in the length of the
markup: the patterns it was first written with (``_HTML_DROP``, ``_HTML_TAG``, kept here
as the reference its tests compare with) took time quadratic in hostile markup.
"""

from __future__ import annotations

import re

# What html_to_text does, as first written: _HTML_DROP.sub(" ", markup), then the text
# between _HTML_TAG's matches. Both take time quadratic in the length of hostile markup
# (a failed match scans on to the end, once per starting point): drop_hidden and
# _HTML_TAG_LINEAR do the same work in linear time (tested equal).
_HTML_DROP = re.compile(r"<!--.*?-->|<(script|style)\b.*?</\1\s*>", re.S | re.I)
_HTML_URL = re.compile(r"""\b(?:href|src|action)\s*=\s*["']?([^"'\s>]+)""", re.I)
_HTML_TAG = re.compile(r"<\s*/?\s*([a-zA-Z][a-zA-Z0-9]*)[^>]*>")
# _HTML_TAG without its two ways of splitting a run of spaces (before and after the "/"),
# which made a failed match at "<" + n spaces cost n^2 steps; the same matches.
_HTML_TAG_LINEAR = re.compile(r"<\s*(?:/\s*)?([a-zA-Z][a-zA-Z0-9]*)[^>]*>")
_HIDDEN_OPEN = re.compile(r"<!--|<(script|style)\b", re.I)
_HIDDEN_CLOSE = re.compile(r"</(script|style)\s*>", re.I)


def drop_hidden(markup: str) -> str:
    """``_HTML_DROP.sub(" ", markup)``: comments, scripts and styles replaced by a space,
    in time linear in the length of ``markup``.

    Each opener (``<!--``, ``<script``, ``<style``, any case) is matched with the first
    closer after it (``-->``, or ``</`` + the opener's name + spaces + ``>``, the name
    equal under ``str.lower`` as the pattern's back reference compares it); an opener
    with no closer is text. The first closer found for each kind is remembered, so no
    stretch of the markup is searched twice for the same kind.
    """
    if "<" not in markup:
        return markup
    pieces: list[str] = []
    closers: dict[str, tuple[int, int]] = {}  # kind -> (start, end) of its next closer
    kept = position = 0
    while (opener := _HIDDEN_OPEN.search(markup, position)) is not None:
        kind = "--" if opener.group(1) is None else opener.group(1).lower()
        closer = closers.get(kind)
        if closer is None or 0 <= closer[0] < opener.end():
            closer = closers[kind] = _next_closer(markup, kind, opener.end())
        if closer[0] < 0:  # no closer of this kind after here: this opener is text
            position = opener.start() + 1
            continue
        pieces += (markup[kept : opener.start()], " ")
        kept = position = closer[1]
    pieces.append(markup[kept:])
    return "".join(pieces)


def _next_closer(markup: str, kind: str, start: int) -> tuple[int, int]:
    """(start, end) of the first closer of ``kind`` at or after ``start``, (-1, -1) if none."""
    if kind == "--":
        found = markup.find("-->", start)
        return (-1, -1) if found < 0 else (found, found + 3)
    while (closer := _HIDDEN_CLOSE.search(markup, start)) is not None:
        if closer.group(1).lower() == kind:
            return closer.start(), closer.end()
        start = closer.start() + 1
    return -1, -1


def html_to_text(markup: str) -> tuple[str, list[str], set[str]]:
    """HTML to (visible text, URLs in href/src/action attributes, tag names).

    Comments, scripts and styles are dropped, tags become spaces, and character
    references are unescaped. Time linear in the length of ``markup``.
    """
    # here, not at the top: html imports its table of 2,231 entities, which plain-text
    # mail (most of a mail server's one-shot ``nbayes spam classify`` calls) never needs
    import html

    markup = drop_hidden(markup)
    urls = [html.unescape(u) for u in html_urls(markup)]
    # one pass over the tags: split gives the text between them and, from the pattern's
    # group, their names (text, name, text, ...); the text joined by spaces is
    # _HTML_TAG.sub(" ", markup). No tag ends after the last ">", so only the markup up
    # to it is split: there a tag that starts always finds its ">", and no failed match
    # scans on to the end.
    last = markup.rfind(">") + 1
    pieces = _HTML_TAG_LINEAR.split(markup[:last])
    pieces[-1] += markup[last:]
    tags = {t.lower() for t in set(pieces[1::2])}
    text = html.unescape(" ".join(pieces[::2]))
    return text, urls, tags


# _HTML_URL without re.I and without the leading \b, so that the regex engine's fast scan
# for the first letters (h, s, a) applies: about twice as fast.
_HTML_URL_LOWER = re.compile(r"""(?:href|src|action)\s*=\s*["']?([^"'\s>]+)""")


def html_urls(markup: str) -> list[str]:
    """``_HTML_URL.findall(markup)``, faster on ASCII markup: matched case-sensitively in
    its lower-cased copy (the same length, and for ASCII text re.I is exactly that),
    the word boundary before the attribute name checked here, as the scan would."""
    if not markup.isascii():
        return _HTML_URL.findall(markup)
    lowered = markup.lower()
    urls, position = [], 0
    while (match := _HTML_URL_LOWER.search(lowered, position)) is not None:
        start = match.start()
        if start and (lowered[start - 1].isalnum() or lowered[start - 1] == "_"):
            position = start + 1  # no word boundary: \b fails here, scan on
            continue
        urls.append(markup[match.start(1) : match.end(1)])
        position = match.end()
    return urls
