"""The mail tokenizer: a small set of regular expressions over a parsed :class:`Mail`.

A message becomes a **set** of tokens (presence, not counts, as in Graham's and
Robinson's filters):

- body words: letters, digits and ``' . - $`` inside, 2 to ``MAX_WORD`` characters,
  case-folded; longer runs become ``skip:<first char>:<length rounded to 10>``;
  URLs give ``url:<host>``, ``url:<parent domains>`` and ``url:<path words>``;
  e-mail addresses ``email:<address>`` and ``email:<domain>``;
- headers: ``<name>:<word>`` for each word of each header value (``subject:free``,
  ``received:mail.example.com``, ``from:joe@example.com``; words cut at
  ``2 * MAX_WORD``), and ``hdr:<name>`` for each header present; headers another
  filter added (``X-Spam-*``, ``X-Bogosity``, ``X-Nbayes-Spam``) and ``Date``
  are left out;
- MIME: ``ctype:<type>``, ``charset:<charset>``, ``cte:<encoding>``, ``attach:type:<t>``,
  ``attach:name:<file name>``, ``attach:ext:<extension>``, ``htmltag:<tag>``,
  ``defect:<parse defect>``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from nbayes.spam.parse import Mail, parse_mail

MAX_WORD = 40
MAX_HEADER_CHARS = 2000
IGNORED_HEADERS = re.compile(r"x-spam|x-bogosity|x-nbayes|x-spambayes|date$|x-dspam")

_WORD = re.compile(r"[$€£]?[^\W_][\w'.\-$@]*[^\W_]")
# _WORD on lower-cased ASCII text, where \w is [a-z0-9_] and [^\W_] is [a-z0-9]: explicit
# ranges are matched about 30 % faster than the Unicode categories.
_WORD_LOWER_ASCII = re.compile(r"\$?[a-z0-9][a-z0-9_'.\-$@]*[a-z0-9]")
_URL = re.compile(r"(?:https?|ftp)://[^\s<>\"']+|www\.[^\s<>\"']+", re.I)
# _URL on lower-cased text, without re.I (about 2.5x faster): the letters of the pattern
# have no case-insensitive match left after str.lower() but "ſ" (long s) for "s".
_URL_LOWER = re.compile(r"(?:http[sſ]?|ftp)://[^\s<>\"']+|www\.[^\s<>\"']+")
_EMAIL = re.compile(r"[\w.+\-]+@([\w\-]+(?:\.[\w\-]+)+)")
# _EMAIL starting only where a run of its local-part characters starts (see addresses).
_EMAIL_AT_RUN_START = re.compile(r"(?<![\w.+\-])[\w.+\-]+@([\w\-]+(?:\.[\w\-]+)+)")
_URL_PART = re.compile(r"[^\W_]+")


def tokenize(raw: bytes) -> set[str]:
    """The token set of one raw message; raises ``MailParseError`` if it is not mail."""
    return mail_tokens(parse_mail(raw))


def mail_tokens(mail: Mail) -> set[str]:
    """The token set of a parsed message (see the module docstring)."""
    tokens: set[str] = set()
    # The values of a header name (Received, ...) are tokenized together, joined by a
    # newline, which no word spans and which leaves str.lower()'s final-sigma rule alone.
    values: dict[str, list[str]] = {}
    for name, value in mail.headers:
        values.setdefault(name, []).append(value[:MAX_HEADER_CHARS])
    for name, texts in values.items():
        ignored = _IGNORED_NAMES.get(name)
        if ignored is None:
            ignored = _ignored(name)
        if ignored:
            continue
        tokens.add("hdr:" + name)
        prefix = name + ":"
        text = "\n".join(texts).lower()
        words = lower_words(text)
        if len(text) > 2 * MAX_WORD and words and max(map(len, words)) > 2 * MAX_WORD:
            words = [w[: 2 * MAX_WORD] for w in words]
        tokens.update(map(prefix.__add__, words))
    for text in mail.texts:
        tokens.update(text_tokens(text))
    for url in set(mail.urls):  # an HTML part often links one URL many times
        tokens.update(url_tokens(url))
    for content_type, charset, encoding in mail.parts:
        tokens.add("ctype:" + content_type)
        if charset:
            tokens.add("charset:" + charset)
        if encoding:
            tokens.add("cte:" + encoding)
    for filename, content_type in mail.attachments:
        tokens.add("attach:type:" + content_type)
        if filename:
            name = filename.lower()
            tokens.add("attach:name:" + name[:MAX_WORD])
            if "." in name:
                tokens.add("attach:ext:" + name.rsplit(".", 1)[1][:10])
    tokens.update("htmltag:" + tag for tag in mail.html_tags)
    tokens.update("defect:" + name for name in mail.defects)
    return tokens


#: Whether a header name matches IGNORED_HEADERS, for the names seen so far (at most
#: MAX_CACHED_NAMES of them): a dict look-up costs a fifth of the regex match.
_IGNORED_NAMES: dict[str, bool] = {}
MAX_CACHED_NAMES = 4096


def _ignored(name: str) -> bool:
    ignored = IGNORED_HEADERS.match(name) is not None
    if len(_IGNORED_NAMES) < MAX_CACHED_NAMES:
        _IGNORED_NAMES[name] = ignored
    return ignored


def text_tokens(text: str, fold_case: bool = True) -> set[str]:
    """Words, URL pieces and e-mail addresses of a text, as a set."""
    if fold_case:
        text = text.lower()
    tokens = set(lower_words(text) if fold_case else _WORD.findall(text))
    if tokens and max(map(len, tokens)) > MAX_WORD:
        long_words = [w for w in tokens if len(w) > MAX_WORD]
        tokens.difference_update(long_words)
        tokens.update(f"skip:{w[0]}:{len(w) // 10 * 10}" for w in long_words)
    if "@" in text:
        # An address never spans whitespace, so searching only the whitespace-separated
        # chunks holding an "@" finds the same matches, without the regex trying every
        # position of the text.
        for chunk in text.split():
            if "@" in chunk:
                for match in addresses(chunk):
                    tokens.add("email:" + match.group(0)[: 2 * MAX_WORD])
                    tokens.add("email:" + match.group(1)[:MAX_WORD])
    if "://" in text or "www." in text:
        for url in set((_URL_LOWER if fold_case else _URL).findall(text)):
            tokens.update(url_tokens(url))
    return tokens


def addresses(text: str) -> Iterator[re.Match[str]]:
    """``_EMAIL.finditer(text)``, in time linear in the length of ``text``.

    A search for _EMAIL tries every position of a run of local-part characters, each
    scanning to the run's end (``a`` * n + ``@``: n^2 steps). Every start in one run
    meets the same ``@`` and domain, so all succeed or all fail, and only the run's
    first start (or the end of the previous match, which may fall inside a run) is
    tried.
    """
    position = 0
    while True:
        match = _EMAIL.match(text, position) if position else None
        if match is None:
            match = _EMAIL_AT_RUN_START.search(text, position)
            if match is None:
                return
        yield match
        position = match.end()


def lower_words(text: str) -> list[str]:
    """``_WORD.findall(text)`` for lower-cased ``text``."""
    return (_WORD_LOWER_ASCII if text.isascii() else _WORD).findall(text)


def url_tokens(url: str) -> set[str]:
    """``url:<host>``, ``url:<each parent domain>`` and ``url:<path word>``."""
    url = url.lower()
    rest = url.split("://", 1)[1] if "://" in url else url
    host, _, path = rest.partition("/")
    host = host.rsplit("@", 1)[-1].split(":", 1)[0][: 2 * MAX_WORD]
    tokens = {"url:" + host} if host else set()
    labels = host.split(".")
    for i in range(1, len(labels) - 1):
        tokens.add("url:" + ".".join(labels[i:]))
    tokens.update("url:" + w for w in _URL_PART.findall(path) if 2 <= len(w) <= MAX_WORD)
    return tokens
