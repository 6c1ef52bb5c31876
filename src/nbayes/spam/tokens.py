"""The mail tokenizer: a small set of regular expressions over a parsed :class:`Mail`.

A message becomes a **set** of tokens (presence, not counts, as in Graham's and
Robinson's filters):

- body words: letters, digits and ``' . - $`` inside, 2 to ``MAX_WORD`` characters,
  case-folded; longer runs become ``skip:<first char>:<length rounded to 10>``;
  URLs give ``url:<host>``, ``url:<parent domains>`` and ``url:<path words>``;
  e-mail addresses ``email:<address>`` and ``email:<domain>``;
- body word pairs (:class:`TokenOptions` ``osb``, default 2: adjacent words,
  ``"cheap pills"``; wider windows add pairs across skipped words, ``"cheap _ now"``);
- headers: ``<prefix>:<word>`` for each word of each header value (words cut at
  ``2 * MAX_WORD``), and ``hdr:<name>`` for each header present. The prefix (option
  ``headers``, default ``"grouped"``): the header's name for Subject, From, To, Cc,
  Received and Return-Path (``subject:free``, ``received:mail.example.com``), ``head``
  for any other; ``"named"``: every header's own name; ``"plain"``: no prefix, no
  ``hdr:``. Headers another filter added (``X-Spam-*``, ``X-Bogosity``,
  ``X-Nbayes-Spam``) and ``Date`` are left out;
- MIME: ``ctype:<type>``, ``charset:<charset>``, ``cte:<encoding>``, ``attach:type:<t>``,
  ``attach:name:<file name>``, ``attach:ext:<extension>``, ``htmltag:<tag>``,
  ``defect:<parse defect>``.
"""

from __future__ import annotations

import re
from collections import namedtuple
from collections.abc import Iterator

from nbayes.core.lazy import LazyPattern
from nbayes.spam._records import Replaceable
from nbayes.spam.parse import Mail, parse_mail

MAX_WORD = 40
MAX_HEADER_CHARS = 2000
IGNORED_HEADERS = re.compile(r"x-spam|x-bogosity|x-nbayes|x-spambayes|date$|x-dspam")

_WORD = LazyPattern(r"[$€£]?[^\W_][\w'.\-$@]*[^\W_]")
# _WORD on lower-cased ASCII text, where \w is [a-z0-9_] and [^\W_] is [a-z0-9]: explicit
# ranges are matched about 30 % faster than the Unicode categories.
_WORD_LOWER_ASCII = re.compile(r"\$?[a-z0-9][a-z0-9_'.\-$@]*[a-z0-9]")
_URL = LazyPattern(r"(?:https?|ftp)://[^\s<>\"']+|www\.[^\s<>\"']+", re.I)
# _URL on lower-cased text, without re.I (about 2.5x faster): the letters of the pattern
# have no case-insensitive match left after str.lower() but "ſ" (long s) for "s".
_URL_LOWER = re.compile(r"(?:http[sſ]?|ftp)://[^\s<>\"']+|www\.[^\s<>\"']+")
_EMAIL = re.compile(r"[\w.+\-]+@([\w\-]+(?:\.[\w\-]+)+)")
# _EMAIL starting only where a run of its local-part characters starts (see addresses).
_EMAIL_AT_RUN_START = re.compile(r"(?<![\w.+\-])[\w.+\-]+@([\w\-]+(?:\.[\w\-]+)+)")
_URL_PART = re.compile(r"[^\W_]+")


class TokenOptions(Replaceable, namedtuple("TokenOptions", ("osb", "headers"))):
    """What the tokenizer makes of a message.

    osb : orthogonal sparse bigrams (OSB) of the body words: each word paired with each
        of the ``osb - 1`` words before it, ``"a b"``, ``"a _ b"``, ``"a _ _ b"`` ...
        (the number of ``_`` is the number of words skipped); 0 or 1: none.
    headers : ``"named"``: each header's words prefixed by its name (``subject:free``)
        and ``hdr:<name>`` for each header present; ``"grouped"``: as bogofilter, only
        Subject, From, To, Cc, Received and Return-Path keep their names, the words of
        every other header share ``head:``; ``"plain"``: header words as body words.
    """

    __slots__ = ()
    osb: int
    headers: str

    def __new__(cls, osb: int = 2, headers: str = "grouped") -> TokenOptions:
        if not 0 <= osb <= MAX_OSB_WINDOW:
            raise ValueError(f"osb must be in [0, {MAX_OSB_WINDOW}], got {osb}")
        if headers not in HEADER_MODES:
            raise ValueError(f"headers must be one of {HEADER_MODES}, got {headers!r}")
        return super().__new__(cls, osb, headers)

    def text(self) -> str:
        """``"osb=2 headers=grouped"``: the form a token store records (:meth:`parse`)."""
        return f"osb={self.osb} headers={self.headers}"

    @classmethod
    def parse(cls, text: str) -> TokenOptions:
        """The options :meth:`text` wrote; ValueError for anything else."""
        fields = dict(item.partition("=")[::2] for item in text.split())
        if set(fields) != {"osb", "headers"} or not fields["osb"].isdigit():
            raise ValueError(f"not tokenizer options: {text!r}")
        return cls(osb=int(fields["osb"]), headers=fields["headers"])


MAX_OSB_WINDOW = 5
HEADER_MODES = ("named", "grouped", "plain")
#: Headers keeping their own prefix with ``headers="grouped"`` (as bogofilter's tags).
NAMED_IN_GROUPS = frozenset({"subject", "from", "to", "cc", "received", "return-path"})
DEFAULT_OPTIONS = TokenOptions()
#: What every token store trained before tokenizer options existed was trained with.
LEGACY_OPTIONS = TokenOptions(osb=0, headers="named")


def tokenize(raw: bytes, options: TokenOptions = DEFAULT_OPTIONS) -> set[str]:
    """The token set of one raw message; raises ``MailParseError`` if it is not mail."""
    return mail_tokens(parse_mail(raw), options)


def mail_tokens(mail: Mail, options: TokenOptions = DEFAULT_OPTIONS) -> set[str]:
    """The token set of a parsed message (see the module docstring)."""
    tokens: set[str] = set()
    # The values of the headers sharing a prefix (all of a name's, Received ...; with
    # "grouped" all of head:'s) are tokenized together, joined by a newline, which no
    # word spans and which leaves str.lower()'s final-sigma rule alone: the words of
    # the join are those of each value, found with one call instead of one per header.
    values: dict[str, list[str]] = {}
    for name, value in mail.headers:
        values.setdefault(name, []).append(value[:MAX_HEADER_CHARS])
    by_prefix: dict[str, list[str]] = {}
    for name, texts in values.items():
        ignored = _IGNORED_NAMES.get(name)
        if ignored is None:
            ignored = _ignored(name)
        if ignored:
            continue
        if options.headers == "plain":
            prefix = ""
        else:
            tokens.add("hdr:" + name)
            grouped = options.headers == "grouped" and name not in NAMED_IN_GROUPS
            prefix = "head:" if grouped else name + ":"
        by_prefix.setdefault(prefix, []).extend(texts)
    for prefix, texts in by_prefix.items():
        text = "\n".join(texts).lower()
        words = lower_words(text)
        if len(text) > 2 * MAX_WORD and words and max(map(len, words)) > 2 * MAX_WORD:
            words = [w[: 2 * MAX_WORD] for w in words]
        tokens.update(map(prefix.__add__, words))
    for text in mail.texts:
        # lower-cased and split into words once, for the word tokens and the pairs alike
        lowered = text.lower()
        words = lower_words(lowered)
        tokens.update(_text_tokens(lowered, words, True))
        if options.osb > 1:
            tokens.update(osb_tokens(words, options.osb))
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
    return _text_tokens(text, lower_words(text) if fold_case else _WORD.findall(text), fold_case)


def _text_tokens(text: str, words: list[str], fold_case: bool) -> set[str]:
    """:func:`text_tokens` of a text already lower-cased where ``fold_case``, whose
    ``words`` (its ``_WORD`` matches) were found already."""
    tokens = set(words)
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


_SKIPS = ("", "_ ", "_ _ ", "_ _ _ ")


def osb_tokens(words: list[str], window: int) -> set[str]:
    """Orthogonal sparse bigrams of a word sequence: ``f"{words[i - d]} {"_ " * (d - 1)}{
    words[i]}"`` for d = 1 .. window - 1 (Siefkes et al., 2004, as OSBF-Lua and rspamd),
    words longer than ``MAX_WORD`` cut to it."""
    if words and max(map(len, words)) > MAX_WORD:
        words = [w[:MAX_WORD] for w in words]
    tokens: set[str] = set()
    for d in range(1, window):
        skip = " " + _SKIPS[d - 1]
        tokens.update([a + skip + b for a, b in zip(words, words[d:], strict=False)])
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
