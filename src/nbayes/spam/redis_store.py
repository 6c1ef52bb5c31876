"""The token store in Redis, shared by every mail server that reaches it (the
``redis`` client: ``pip install 'nbayes[redis]'``).

Keys, under a prefix (``nbayes`` for the shared statistics, ``nbayes:user:NAME`` for a
user's; written as a Redis Cluster hash tag, so one store's keys live in one slot)::

    {nbayes}:meta     hash  format -> "1", tokenizer -> the TokenOptions text
                            (extra_vocabulary -> a count, with other classes: below)
    {nbayes}:tokens   hash  token -> "HAM SPAM DAY"  (messages holding it; day last learnt)
    {nbayes}:totals   hash  ham_messages, spam_messages, ham_tokens, spam_tokens
    {nbayes}:trained  hash  SHA-256 of a trained message -> "HAM SPAM"

the same statistics as the SQLite store's tables (:mod:`nbayes.spam.store`), so the
same mail and options give the same counts and the same scores, bit for bit. Classes
other than ham and spam (:mod:`nbayes.spam.classes`) have three more keys, made by the
first training of such a class (the format version is unchanged)::

    {nbayes}:classes        hash  class -> "MESSAGES TOKENS"
    {nbayes}:class_tokens   hash  "CLASS:TOKEN" -> "COUNT DAY"
    {nbayes}:class_trained  hash  "CLASS:DIGEST" -> COUNT

(a class name never holds a colon, so the field splits at its first one), and
``extra_vocabulary`` in ``meta``: the running count of the tokens only these classes
hold (see :data:`_EXTRA_VOCABULARY_LUA`).

Every write is one Lua script run by the server (:data:`_APPLY`), and Redis runs a
script whole, with no other command in between: a training batch (its token counts,
totals, digests and the tokenizer options' record) is applied entirely or not at all,
and increments from any number of trainers on any number of machines add up exactly
(no value is read by a client and written back). The script first checks everything
the writes depend on (the options recorded; for ``unlearn`` that each message was
trained; for feedback that the message's digest still has the counts the client
read), then writes: a check that fails changes nothing. Reads of counts and totals
go in one ``MULTI``/``EXEC`` block, so they see one state.

Every failure of the server or the connection (refused, timed out, read-only replica,
out of memory) comes out as a :class:`~nbayes.spam.database.StoreError` naming the URL
(its password left out) and Redis's own message.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, Any

from nbayes.spam.classes import (
    ClassCounts,
    Message,
    checked_class_totals,
    gather_classes,
    split_classes,
)
from nbayes.spam.database import StoreError, StoreUnavailableError
from nbayes.spam.store import (
    LABELS,
    NoStoreError,
    NotTrainedError,
    Totals,
    digest,
    parse_options,
    tally,
    today,
    trained_with_other,
)
from nbayes.spam.tokens import DEFAULT_OPTIONS, TokenOptions

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

#: The format of the keys above (``meta`` field ``format``).
FORMAT_VERSION = 1
READABLE_VERSIONS = (1,)
#: The key prefix of the shared statistics.
SHARED_PREFIX = "nbayes"
_TOTAL_FIELDS = ("ham_messages", "spam_messages", "ham_tokens", "spam_tokens")
_KEYS = ("meta", "tokens", "totals", "trained")
#: The keys of the classes other than ham and spam.
_CLASS_KEYS = ("classes", "class_tokens", "class_trained")
#: Tokens per HMGET (a long message's few thousand go in one).
_CHUNK = 50_000
#: Seconds to connect and wait for a read's reply at least (``--lock-timeout 0``).
_LEAST_WAIT = 0.1

# The running count of the tokens only the classes other than ham and spam hold (the
# multi-class vocabulary's rest beside HLEN of tokens): field extra_vocabulary of meta,
# kept by every script that writes tokens or class_tokens, in that script (so exactly,
# and a verdict reads it in O(1) instead of a pass over every class's tokens). A store
# whose classes were learnt before the count was kept has no such field: the first
# script that writes counts it (count_extra) before its writes; a read meanwhile counts
# it too. The field goes when no class is left (a two-class store stays as it was).
# It is "COUNT HLEN(tokens) HLEN(class_tokens)", the sizes after the write that kept
# it: an older nbayes writing the store meanwhile (which keeps no count) changes them
# when it adds or deletes a token, and a count whose sizes differ is counted afresh,
# as a missing one.
# Whether another class holds a token is asked of each class the classes hash names (a
# class's fields go with its last message) and of those the script learns.
_EXTRA_VOCABULARY_LUA = """
local function count_extra(tokens, class_tokens)
  local size, seen = 0, {}
  for _, field in ipairs(redis.call('HKEYS', class_tokens)) do
    local token = string.sub(field, string.find(field, ':', 1, true) + 1)
    if not seen[token] then
      seen[token] = true
      if redis.call('HEXISTS', tokens, token) == 0 then size = size + 1 end
    end
  end
  return size
end
local function read_kept(meta, tokens, class_tokens)
  local value = redis.call('HGET', meta, 'extra_vocabulary')
  if not value then return nil end
  local e, t, c = string.match(value, '^(%d+) (%d+) (%d+)$')
  if not e or tonumber(t) ~= redis.call('HLEN', tokens)
     or tonumber(c) ~= redis.call('HLEN', class_tokens) then
    return nil
  end
  return tonumber(e)
end
local function kept_extra(meta, tokens, classes, class_tokens, learns_classes)
  local labels = redis.call('HKEYS', classes)
  labels.known = {}
  for _, label in ipairs(labels) do labels.known[label] = true end
  local extra = read_kept(meta, tokens, class_tokens)
  if not extra and (learns_classes or #labels > 0
                    or redis.call('EXISTS', class_tokens) == 1) then
    extra = count_extra(tokens, class_tokens)
  end
  return extra, labels
end
local function in_classes(class_tokens, labels, token, except)
  for _, label in ipairs(labels) do
    if label ~= except
       and redis.call('HEXISTS', class_tokens, label .. ':' .. token) == 1 then
      return true
    end
  end
  return false
end
local function only_here(tokens, class_tokens, labels, token, label)
  return redis.call('HEXISTS', tokens, token) == 0
         and not in_classes(class_tokens, labels, token, label)
end
local function keep_extra(meta, tokens, classes, class_tokens, extra)
  if not extra then return end
  if extra == 0 and redis.call('EXISTS', classes) == 0
     and redis.call('EXISTS', class_tokens) == 0 then
    redis.call('HDEL', meta, 'extra_vocabulary')
  else
    redis.call('HSET', meta, 'extra_vocabulary', extra .. ' ' .. redis.call('HLEN', tokens)
               .. ' ' .. redis.call('HLEN', class_tokens))
  end
end
"""

# The writes of one transaction, as a flat list of operations (ARGV), run by one script:
#   need   N (DIGEST CLASS COUNT)*N     each digest trained >= COUNT times as CLASS
#   guard  DIGEST HAM SPAM              the digest's counts are still these
#   opts   TEXT                         record the tokenizer options (as SQLite's)
#   add    SIGN DAY COLUMN MESSAGES TOKENS N (TOKEN COUNT)*N M (DIGEST COUNT)*M
#   cadd   SIGN DAY CLASS MESSAGES TOKENS N (TOKEN COUNT)*N M (DIGEST COUNT)*M
#                                       as add, into KEYS[5..7] (a class's totals go
#                                       when its messages reach 0)
# Checks run first, against the state before any write; then the writes, in order.
# CLASS is a class's name (need: ham and spam too); COLUMN is 1 (ham) or 2 (spam).
# Subtracting touches only tokens that exist, never goes below 0, and deletes a token or
# digest whose counts both reach 0 (SQLite's remove_empty); adding sets a token's day to
# at least DAY.
_APPLY = _EXTRA_VOCABULARY_LUA + """
local meta, tokens, totals, trained = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local classes, class_tokens, class_trained = KEYS[5], KEYS[6], KEYS[7]
local has_cadd = false
local function pair(value)
  if not value then return 0, 0, 0 end
  local a, b, c = string.match(value, '^(%d+) (%d+) ?(%d*)$')
  return tonumber(a), tonumber(b), tonumber(c) or 0
end
local function messages()
  return (tonumber(redis.call('HGET', totals, 'ham_messages')) or 0)
       + (tonumber(redis.call('HGET', totals, 'spam_messages')) or 0)
end
if redis.call('HGET', meta, 'format') ~= ARGV[1] then
  return redis.error_reply('NBAYES_GONE the store was removed or replaced')
end
local i = 2
local writes = {}
while i <= #ARGV do
  local op = ARGV[i]
  if op == 'need' then
    local n = tonumber(ARGV[i + 1])
    local missing = 0
    for j = 0, n - 1 do
      local base = i + 2 + 3 * j
      local digest, label = ARGV[base], ARGV[base + 1]
      local have
      if label == 'ham' or label == 'spam' then
        local h, s = pair(redis.call('HGET', trained, digest))
        have = (label == 'ham') and h or s
      else
        have = tonumber(redis.call('HGET', class_trained, label .. ':' .. digest)) or 0
      end
      local want = tonumber(ARGV[base + 2])
      if have < want then missing = missing + want - have end
    end
    if missing > 0 then
      return redis.error_reply('NBAYES_NOT_TRAINED ' .. missing)
    end
    i = i + 2 + 3 * n
  elseif op == 'guard' then
    local h, s = pair(redis.call('HGET', trained, ARGV[i + 1]))
    if h ~= tonumber(ARGV[i + 2]) or s ~= tonumber(ARGV[i + 3]) then
      return redis.error_reply('NBAYES_CONFLICT')
    end
    i = i + 4
  elseif op == 'opts' then
    local recorded = redis.call('HGET', meta, 'tokenizer')
    if messages() > 0 and recorded and recorded ~= ARGV[i + 1] then
      return redis.error_reply('NBAYES_OPTIONS ' .. recorded)
    end
    table.insert(writes, i)
    i = i + 2
  elseif op == 'add' or op == 'cadd' then
    table.insert(writes, i)
    if op == 'cadd' then has_cadd = true end
    local n = tonumber(ARGV[i + 6])
    local m = tonumber(ARGV[i + 7 + 2 * n])
    i = i + 8 + 2 * n + 2 * m
  else
    return redis.error_reply('NBAYES_BAD_OP ' .. tostring(op))
  end
end
local extra, labels = kept_extra(meta, tokens, classes, class_tokens, has_cadd)
for _, at in ipairs(writes) do
  if ARGV[at] == 'opts' then
    redis.call('HSET', meta, 'tokenizer', ARGV[at + 1])
  elseif ARGV[at] == 'cadd' then
    local sign, day, label = tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2]), ARGV[at + 3]
    if not labels.known[label] then
      labels.known[label] = true
      table.insert(labels, label)
    end
    local old = redis.call('HGET', classes, label)
    local m, t = 0, 0
    if old then
      local a, b = string.match(old, '^(-?%d+) (-?%d+)$')
      m, t = tonumber(a), tonumber(b)
    end
    m = m + sign * tonumber(ARGV[at + 4])
    t = t + sign * tonumber(ARGV[at + 5])
    if m == 0 then redis.call('HDEL', classes, label)
    else redis.call('HSET', classes, label, m .. ' ' .. t) end
    local n = tonumber(ARGV[at + 6])
    for j = 0, n - 1 do
      local token = ARGV[at + 7 + 2 * j]
      local field, count = label .. ':' .. token, tonumber(ARGV[at + 8 + 2 * j])
      local value = redis.call('HGET', class_tokens, field)
      if value or sign > 0 then
        local c, d = 0, 0
        if value then
          local a, b = string.match(value, '^(%d+) (%d+)$')
          c, d = tonumber(a), tonumber(b)
        end
        c = math.max(c + sign * count, 0)
        if sign > 0 and day > d then d = day end
        if c == 0 then
          redis.call('HDEL', class_tokens, field)
          if value and extra and only_here(tokens, class_tokens, labels, token, label) then
            extra = extra - 1
          end
        else
          redis.call('HSET', class_tokens, field, c .. ' ' .. d)
          if not value and extra and only_here(tokens, class_tokens, labels, token, label) then
            extra = extra + 1
          end
        end
      end
    end
    local base = at + 7 + 2 * n
    local mm = tonumber(ARGV[base])
    for j = 0, mm - 1 do
      local field, count = label .. ':' .. ARGV[base + 1 + 2 * j], tonumber(ARGV[base + 2 + 2 * j])
      local value = redis.call('HGET', class_trained, field)
      if value or sign > 0 then
        local c = math.max((tonumber(value) or 0) + sign * count, 0)
        if c == 0 then redis.call('HDEL', class_trained, field)
        else redis.call('HSET', class_trained, field, c) end
      end
    end
  else
    local sign, day, column = tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2]), ARGV[at + 3]
    local label = (column == '1') and 'ham' or 'spam'
    -- + 0: -1 * 0 is -0 in Lua, which HINCRBY refuses (unlearning a message of no token)
    redis.call('HINCRBY', totals, label .. '_messages', sign * tonumber(ARGV[at + 4]) + 0)
    redis.call('HINCRBY', totals, label .. '_tokens', sign * tonumber(ARGV[at + 5]) + 0)
    local n = tonumber(ARGV[at + 6])
    for j = 0, n - 1 do
      local token, count = ARGV[at + 7 + 2 * j], tonumber(ARGV[at + 8 + 2 * j])
      local old = redis.call('HGET', tokens, token)
      if old or sign > 0 then
        local h, s, d = pair(old)
        if column == '1' then h = math.max(h + sign * count, 0)
        else s = math.max(s + sign * count, 0) end
        if sign > 0 and day > d then d = day end
        if h == 0 and s == 0 then
          redis.call('HDEL', tokens, token)
          if old and extra and in_classes(class_tokens, labels, token, nil) then
            extra = extra + 1
          end
        else
          redis.call('HSET', tokens, token, h .. ' ' .. s .. ' ' .. d)
          if not old and extra and in_classes(class_tokens, labels, token, nil) then
            extra = extra - 1
          end
        end
      end
    end
    local base = at + 7 + 2 * n
    local m = tonumber(ARGV[base])
    for j = 0, m - 1 do
      local key, count = ARGV[base + 1 + 2 * j], tonumber(ARGV[base + 2 + 2 * j])
      local old = redis.call('HGET', trained, key)
      if old or sign > 0 then
        local h, s = pair(old)
        if column == '1' then h = math.max(h + sign * count, 0)
        else s = math.max(s + sign * count, 0) end
        if h == 0 and s == 0 then redis.call('HDEL', trained, key)
        else redis.call('HSET', trained, key, h .. ' ' .. s) end
      end
    end
  end
end
keep_extra(meta, tokens, classes, class_tokens, extra)
return #writes
"""

# Create the store's keys unless they exist: 1 made, 0 there already.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 or redis.call('EXISTS', KEYS[3]) == 1
   or redis.call('EXISTS', KEYS[4]) == 1 then
  return redis.error_reply('NBAYES_FOREIGN')
end
redis.call('HSET', KEYS[1], 'format', ARGV[1], 'tokenizer', ARGV[2])
redis.call('HSET', KEYS[3], 'ham_messages', 0, 'spam_messages', 0,
           'ham_tokens', 0, 'spam_tokens', 0)
return 1
"""

# Delete fields of KEYS[2] (tokens) or, with ARGV[1] "class_tokens", KEYS[4] whose value
# is still the one read (ARGV[2..] pairs: field, value): a field a trainer touched since
# is kept; the running count of the other classes' vocabulary follows. KEYS meta, tokens,
# classes, class_tokens. Returns how many were deleted.
_DELETE_UNCHANGED = _EXTRA_VOCABULARY_LUA + """
local meta, tokens, classes, class_tokens = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local of_classes = ARGV[1] == 'class_tokens'
local target = of_classes and class_tokens or tokens
local extra, labels = kept_extra(meta, tokens, classes, class_tokens, false)
local deleted = 0
for j = 2, #ARGV, 2 do
  if redis.call('HGET', target, ARGV[j]) == ARGV[j + 1] then
    redis.call('HDEL', target, ARGV[j])
    deleted = deleted + 1
    if extra and of_classes then
      local at = string.find(ARGV[j], ':', 1, true)
      local label, token = string.sub(ARGV[j], 1, at - 1), string.sub(ARGV[j], at + 1)
      if only_here(tokens, class_tokens, labels, token, label) then extra = extra - 1 end
    elseif extra and in_classes(class_tokens, labels, ARGV[j], nil) then
      extra = extra + 1
    end
  end
end
keep_extra(meta, tokens, classes, class_tokens, extra)
return deleted
"""


# Every class's counts of the tokens ARGV[2..] and the totals, read in one state:
# KEYS tokens, totals, classes, class_tokens, meta; ARGV[1] "1" for the vocabulary (the
# distinct tokens of every class: HLEN of tokens plus the running count of the other
# classes' rest, or that rest counted where the store keeps no count yet). Returns
# {classes hash (flat), ham/spam values, totals fields, {values of each class in the
# order of the classes hash}, vocabulary}.
_READ_CLASSES = _EXTRA_VOCABULARY_LUA + """
local tokens, totals, classes, class_tokens = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local listed = redis.call('HGETALL', classes)
local two, extra = {}, {}
for i = 2, #ARGV do two[i - 1] = redis.call('HGET', tokens, ARGV[i]) end
for c = 1, #listed, 2 do
  local values = {}
  for i = 2, #ARGV do
    values[i - 1] = redis.call('HGET', class_tokens, listed[c] .. ':' .. ARGV[i])
  end
  extra[#extra + 1] = values
end
local sums = redis.call('HMGET', totals, 'ham_messages', 'spam_messages', 'ham_tokens',
                        'spam_tokens')
local size = -1
if ARGV[1] == '1' then
  size = redis.call('HLEN', tokens)
  if #listed > 0 then
    local kept = read_kept(KEYS[5], tokens, class_tokens)
    size = size + (kept or count_extra(tokens, class_tokens))
  end
end
return {listed, two, sums, extra, size}
"""


def redis_name(url: str, prefix: str = SHARED_PREFIX) -> str:
    """``url`` without its password, and the prefix where it is not the shared one: how
    messages name the store.

    >>> redis_name("redis://:secret@mail.example:6379/2", "nbayes:user:alice")
    'redis://mail.example:6379/2 (nbayes:user:alice)'
    """
    shown = re.sub(r"^([a-z+]+://)[^@/]*@", r"\1", url)
    return shown if prefix == SHARED_PREFIX else f"{shown} ({prefix})"


class RedisTokenStore:
    """The token store in the Redis database at ``url`` (``redis://HOST:PORT/DB``,
    ``rediss://`` for TLS, ``unix:///PATH?db=N``), keys under ``prefix``.

    ``create``: make the store if the prefix holds nothing; ``readonly``: never write
    (the store must exist); ``timeout``: seconds to wait to connect and for each read's
    reply (at least 0.1; a write waits for its script to finish).
    Implements :class:`nbayes.spam.stores.Store`.
    """

    def __init__(
        self,
        url: str,
        *,
        prefix: str = SHARED_PREFIX,
        timeout: float = 10.0,
        create: bool = True,
        readonly: bool = False,
    ) -> None:
        self.url, self.prefix, self.readonly = url, prefix, readonly
        self.name = redis_name(url, prefix)
        try:
            import redis
        except ImportError:
            raise StoreError(
                f"{self.name}: a Redis store needs the redis client: pip install 'nbayes[redis]'"
            ) from None
        self._errors = redis.exceptions.RedisError
        self._unavailable = (
            redis.exceptions.ConnectionError, redis.exceptions.TimeoutError,
            redis.exceptions.BusyLoadingError,
        )  # fmt: skip
        wait = max(timeout, _LEAST_WAIT)
        try:
            self.client = redis.Redis.from_url(
                url, socket_timeout=wait, socket_connect_timeout=wait
            )
            # Writes wait for their reply however long the script runs: Redis applies it
            # whole once it started, so giving up early would report a batch as failed
            # that was in fact learnt.
            self.writer = redis.Redis.from_url(url, socket_connect_timeout=wait)
        except ValueError as error:
            raise StoreError(f"{self.name}: not a Redis URL: {error}") from None
        self.keys = [f"{{{prefix}}}:{key}" for key in _KEYS]
        self.meta, self.tokens_key, self.totals_key, self.trained_key = self.keys
        self.class_keys = [f"{{{prefix}}}:{key}" for key in _CLASS_KEYS]
        self.classes_key, self.class_tokens_key, self.class_trained_key = self.class_keys
        self._prune_keys = [self.meta, self.tokens_key, self.classes_key, self.class_tokens_key]
        self._pending: list[Any] | None = None  # the open transaction's operations
        self._needed: Counter[tuple[str, str]] = Counter()
        self._asked = DEFAULT_OPTIONS  # the options a refused record asked for
        self.version = self._check_format(create and not readonly)

    # ------------------------------------------------------------ plumbing
    @contextmanager
    def _talking(self) -> Iterator[None]:
        """Redis's errors as :class:`StoreError` naming the store."""
        try:
            yield
        except self._unavailable as error:
            raise StoreUnavailableError(self._describe(error)) from None
        except self._errors as error:
            raise StoreError(self._describe(error)) from None

    def _describe(self, error: Exception) -> str:
        text = " ".join(str(error).split())
        if text.startswith("NBAYES_OPTIONS "):
            return str(
                trained_with_other(self.name, parse_options(self.name, text[15:]), self._asked)
            )
        if text.startswith("NBAYES_GONE"):
            return f"{self.name}: the token store was removed or replaced while in use"
        if text.startswith("NBAYES_FOREIGN"):
            return f"{self.name}: keys {self.keys[1]}... exist but are not an nbayes token store"
        kind = type(error).__name__
        return f"{self.name}: Redis {kind}: {text or 'no answer'}"

    def _script(self, source: str, keys: Sequence[str], args: Sequence[Any]) -> Any:
        with self._talking():
            return self.writer.eval(source, len(keys), *keys, *args)

    def _check_format(self, create: bool) -> int:
        with self._talking():
            found = self.client.hget(self.meta, "format")
        if found is None:
            if not create:
                raise NoStoreError(f"no token store at {self.name}")
            self._script(_CREATE, self.keys, [str(FORMAT_VERSION), DEFAULT_OPTIONS.text()])
            with self._talking():
                found = self.client.hget(self.meta, "format")
        try:
            version = int(found)
        except (TypeError, ValueError):
            version = -1
        if version not in READABLE_VERSIONS:
            raise StoreError(
                f"{self.name}: store format {found!r}, this nbayes reads"
                f" {', '.join(map(str, READABLE_VERSIONS))}"
            )
        return version

    def close(self) -> None:
        self.client.close()
        self.writer.close()

    def __enter__(self) -> RedisTokenStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ transactions
    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Collect the block's writes and checks; at its end run them as one script
        (all or nothing). An exception in the block discards them."""
        if self._pending is not None:  # nested: part of the outer one
            yield
            return
        if self.readonly:
            raise StoreError(f"{self.name}: opened read-only")
        self._pending, self._needed = [], Counter()
        try:
            yield
            operations = self._pending
            if self._needed:  # the checks first: "need", then (digest, class, count)s
                need: list[Any] = ["need", len(self._needed)]
                for (key, label), count in self._needed.items():
                    need += [key, label, count]
                operations = need + operations
        finally:
            self._pending, self._needed = None, Counter()
        if operations:
            self._run(operations)

    def _run(self, operations: list[Any]) -> None:
        try:
            self._script(_APPLY, self.keys + self.class_keys, [str(self.version), *operations])
        except StoreError as error:
            text = str(error)
            if "NBAYES_NOT_TRAINED" in text:
                missing = text.rsplit(" ", 1)[-1]
                raise NotTrainedError(
                    f"{missing} message(s) were never trained with the label given"
                ) from None
            if "NBAYES_CONFLICT" in text:
                raise StoreError(
                    f"{self.name}: another process learnt or forgot this message at the same"
                    " moment; nothing was changed, try again"
                ) from None
            raise

    def snapshot(self) -> Any:
        """Nothing: reads that must agree go through :meth:`read_lookup`,
        :meth:`read_counts` and :meth:`read_all`, each one ``MULTI``/``EXEC``."""
        return nullcontext()

    # ------------------------------------------------------------ writing
    def changes(self, batch: Sequence[Message], sign: int = 1) -> list[Any]:
        """The ``add`` operations of ``batch`` (see :data:`_APPLY`), one per class (``cadd``
        for classes other than ham and spam, after ham's and spam's, by name)."""
        operations: list[Any] = []
        day = today() if sign > 0 else 0
        _, extra = split_classes(batch)  # the other classes' names checked first
        for label in LABELS:
            messages = [(tokens, raw) for tokens, raw, lab in batch if lab == label]
            if messages:
                field = "1" if label == "ham" else "2"
                operations += ["add", sign, day, field, *_counted(messages)]
        for label in sorted(extra):
            operations += ["cadd", sign, day, label, *_counted(extra[label])]
        return operations

    def apply(self, changes: list[Any]) -> None:
        with self.transaction():
            self._pending.extend(changes)

    def add(self, batch: Sequence[Message], sign: int = 1) -> None:
        self.apply(self.changes(batch, sign))

    def learn(self, batch: Sequence[Message]) -> int:
        with self.transaction():
            self.add(batch)
        return len(batch)

    def unlearn(self, batch: Sequence[Message]) -> int:
        with self.transaction():
            self.check_trained(batch)
            self.add(batch, sign=-1)
        return len(batch)

    def check_trained(self, batch: Sequence[Message]) -> None:
        """Inside a transaction: checked by the script before it writes anything (all the
        transaction's messages together); outside, at once."""
        from nbayes.spam.store import _label

        with self.transaction():
            for _, raw, label in batch:
                self._needed[(digest(raw), _label(label))] += 1

    def remove_empty(self) -> None:
        """Nothing to do: subtracting deletes the tokens and digests it empties."""

    def forget(self, tokens: AbstractSet[str], raw: bytes, label: str) -> None:
        self.add([(tokens, raw, label)], sign=-1)

    def trained_as(self, raw: bytes) -> tuple[int, int]:
        """How many times ``raw`` was trained as (ham, spam); inside a transaction, its
        writes are applied only if that is still so."""
        key = digest(raw)
        with self._talking():
            ham, spam = _pair(self.client.hget(self.trained_key, key))
        if self._pending is not None:
            self._pending += ["guard", key, ham, spam]
        return ham, spam

    def recorded_options(self) -> TokenOptions | None:
        with self._talking():
            text = self.client.hget(self.meta, "tokenizer")
        return None if text is None else parse_options(self.name, text.decode())

    def record_options(self, options: TokenOptions = DEFAULT_OPTIONS) -> None:
        """Record ``options`` with the transaction's writes (refused there if the store
        holds messages trained with others)."""
        self._asked = options
        with self.transaction():
            self._pending += ["opts", options.text()]

    # ------------------------------------------------------------ reading
    def _read(self, tokens: Sequence[str], vocabulary: bool) -> tuple[list, Totals]:
        """The stored values of ``tokens`` and the totals, from one ``MULTI``/``EXEC``."""
        with self._talking():
            pipe = self.client.pipeline(transaction=True)
            for start in range(0, len(tokens), _CHUNK):
                pipe.hmget(self.tokens_key, list(tokens[start : start + _CHUNK]))
            pipe.hmget(self.totals_key, list(_TOTAL_FIELDS))
            if vocabulary:
                pipe.hlen(self.tokens_key)
            replies = pipe.execute()
        size = replies.pop() if vocabulary else None
        totals = _totals(replies.pop(), size)
        return [value for reply in replies for value in reply], totals

    def totals(self, vocabulary: bool = True) -> Totals:
        return self._read([], vocabulary)[1]

    def counts(self, tokens: Iterable[str]) -> dict[str, tuple[int, int]]:
        return self.read_counts(tokens)[0]

    def lookup(self, tokens: Sequence[str]) -> NDArray[np.int64]:
        return self.read_lookup(tokens, vocabulary=False)[0]

    def read_counts(
        self, tokens: Iterable[str], *, vocabulary: bool = False
    ) -> tuple[dict[str, tuple[int, int]], Totals]:
        wanted = sorted(set(tokens))
        values, totals = self._read(wanted, vocabulary)
        found = {t: _pair(v) for t, v in zip(wanted, values, strict=True) if v is not None}
        return found, totals

    def read_lookup(
        self, tokens: Sequence[str], *, vocabulary: bool = True
    ) -> tuple[NDArray[np.int64], Totals]:
        import numpy as np

        values, totals = self._read(tokens, vocabulary)
        table = np.array([_pair(v) for v in values], dtype=np.int64).reshape(-1, 2)
        return table, totals

    def all_counts(self) -> tuple[list[str], NDArray[np.int64]]:
        tokens, counts, _ = self.read_all()
        return tokens, counts

    def _everything(self) -> tuple[dict[bytes, bytes], Totals]:
        with self._talking():
            pipe = self.client.pipeline(transaction=True)
            pipe.hgetall(self.tokens_key)
            pipe.hmget(self.totals_key, list(_TOTAL_FIELDS))
            rows, totals = pipe.execute()
        return rows, _totals(totals, len(rows))

    def read_all(self) -> tuple[list[str], NDArray[np.int64], Totals]:
        """Every token (in code-point order, as SQLite sorts them) with its counts."""
        import numpy as np

        rows, totals = self._everything()
        tokens = sorted(rows)  # UTF-8 byte order is code-point order
        counts = np.array([_pair(rows[t]) for t in tokens], dtype=np.int64).reshape(-1, 2)
        return [t.decode() for t in tokens], counts, totals

    # ------------------------------------------------------------ more classes
    def class_totals(self) -> dict[str, tuple[int, int]]:
        """``{class: (messages, token-set size sum)}`` of the classes other than ham and
        spam that hold messages, by name."""
        with self._talking():
            rows = self.client.hgetall(self.classes_key)
        found = {k.decode("utf-8", "replace"): _pair(v) for k, v in rows.items()}
        return checked_class_totals(
            {label: found[label] for label in sorted(found) if found[label][0] != 0}
        )

    def read_classes(self, tokens: Sequence[str], *, vocabulary: bool = True) -> ClassCounts:
        """As :meth:`nbayes.spam.store.TokenStore.read_classes`: one script reads every
        class's counts and the totals in one state (the vocabulary, where asked for, by a
        pass over the other classes' tokens)."""
        import numpy as np

        keys = [self.tokens_key, self.totals_key, self.classes_key, self.class_tokens_key]
        keys.append(self.meta)
        with self._talking():
            listed, two, sums, extra, size = self.client.eval(
                _READ_CLASSES, len(keys), *keys, "1" if vocabulary else "0", *tokens
            )
        two_counts = np.array([_pair(v) for v in two], dtype=np.int64).reshape(-1, 2)
        totals = _totals(sums, None)
        labels = [label.decode("utf-8", "replace") for label in listed[::2]]
        extra_totals = {
            label: _pair(value)
            for label, value in zip(labels, listed[1::2], strict=True)
            if _pair(value)[0] != 0
        }
        extra_counts = {
            label: np.array([_pair(v)[0] for v in values], dtype=np.int64)
            for label, values in zip(labels, extra, strict=True)
        }
        return gather_classes(
            two_counts, (totals.messages, totals.tokens), extra_totals, extra_counts,
            size if vocabulary else None,
        )  # fmt: skip

    def read_all_classes(self) -> tuple[list[str], ClassCounts]:
        """As :meth:`nbayes.spam.store.TokenStore.read_all_classes`: the four hashes read
        in one ``MULTI``/``EXEC`` (a script taking every token as an argument would not
        scale to a store's whole vocabulary)."""
        import numpy as np

        with self._talking():
            pipe = self.client.pipeline(transaction=True)
            pipe.hgetall(self.tokens_key)
            pipe.hmget(self.totals_key, list(_TOTAL_FIELDS))
            pipe.hgetall(self.classes_key)
            pipe.hgetall(self.class_tokens_key)
            two, sums, listed, extra = pipe.execute()
        by_class: dict[str, dict[bytes, int]] = {}
        for field, value in extra.items():
            label, _, token = field.partition(b":")
            by_class.setdefault(label.decode("utf-8", "replace"), {})[token] = _pair(value)[0]
        found = sorted(set(two).union(*(set(c) for c in by_class.values())))  # code points
        where = {token: i for i, token in enumerate(found)}
        two_counts = np.zeros((len(found), 2), dtype=np.int64)
        for token, value in two.items():
            two_counts[where[token]] = _pair(value)
        extra_counts = {}
        for label, counts in by_class.items():
            column = extra_counts[label] = np.zeros(len(found), dtype=np.int64)
            for token, count in counts.items():
                column[where[token]] = count
        totals = _totals(sums, None)
        extra_totals = {
            label.decode("utf-8", "replace"): _pair(value)
            for label, value in listed.items()
            if _pair(value)[0] != 0
        }
        tokens = [token.decode() for token in found]
        return tokens, gather_classes(
            two_counts, (totals.messages, totals.tokens), extra_totals, extra_counts, len(found)
        )

    def class_vocabulary(self) -> list[str]:
        """Every token of every class (ham, spam and the others), sorted (code points)."""
        with self._talking():
            pipe = self.client.pipeline(transaction=True)
            pipe.hkeys(self.tokens_key)
            pipe.hkeys(self.class_tokens_key)
            two, others = pipe.execute()
        found = set(two) | {field.split(b":", 1)[1] for field in others}
        return [token.decode() for token in sorted(found)]  # UTF-8 order: code points

    def prune_classes(
        self, *, before_day: int | None, count_at_most: int | None, dry_run: bool
    ) -> tuple[int, int]:
        """As :meth:`nbayes.spam.store.TokenStore.prune_classes`, chosen from one read;
        each row deleted only if no trainer has touched it since."""
        with self._talking():
            rows = self.client.hgetall(self.class_tokens_key)
        doomed = []
        if before_day is not None or count_at_most is not None:
            for field, value in rows.items():
                count, day = _pair(value)
                if (before_day is None or day < before_day) and (
                    count_at_most is None or count <= count_at_most
                ):
                    doomed.append(field)
        if not dry_run and doomed:
            if self.readonly:
                raise StoreError(f"{self.name}: opened read-only")
            doomed.sort()
            for start in range(0, len(doomed), 10_000):
                args = []
                for field in doomed[start : start + 10_000]:
                    args += [field, rows[field]]
                self._script(_DELETE_UNCHANGED, self._prune_keys, ["class_tokens", *args])
        return len(rows), len(doomed)

    # ------------------------------------------------------------ maintenance
    def prune_tokens(
        self, *, before_day: int | None, count_at_most: int | None, max_tokens: int | None,
        dry_run: bool,
    ) -> tuple[int, int]:  # fmt: skip
        """As :meth:`nbayes.spam.store.TokenStore.prune_tokens`, chosen from one read of
        every token; each is deleted only if no trainer has touched it since that read
        (a script compares its value), so no count learnt meanwhile is lost."""
        rows, _ = self._everything()
        parsed = {t: _triple(v) for t, v in rows.items()}
        doomed = set()
        if before_day is not None or count_at_most is not None:
            doomed = {
                t for t, (h, s, d) in parsed.items()
                if (before_day is None or d < before_day)
                and (count_at_most is None or h + s <= count_at_most)
            }  # fmt: skip
        if max_tokens is not None and len(parsed) - len(doomed) > max_tokens:
            rest = sorted(
                (t for t in parsed if t not in doomed),
                key=lambda t: (parsed[t][0] + parsed[t][1], parsed[t][2], t),
            )
            doomed.update(rest[: len(parsed) - len(doomed) - max_tokens])
        removed = len(doomed)
        if not dry_run and doomed:
            if self.readonly:
                raise StoreError(f"{self.name}: opened read-only")
            chosen = sorted(doomed)
            for start in range(0, len(chosen), 10_000):
                args = []
                for token in chosen[start : start + 10_000]:
                    args += [token, rows[token]]
                self._script(_DELETE_UNCHANGED, self._prune_keys, ["tokens", *args])
        return len(parsed), removed

    def compact(self) -> None:
        """Nothing to do: Redis frees a deleted field's memory at once."""

    def size_bytes(self) -> int:
        """The memory the store's keys take in Redis (``MEMORY USAGE``, estimated)."""
        with self._talking():
            return sum(self.client.memory_usage(key) or 0 for key in self.keys + self.class_keys)


def _triple(value: bytes) -> tuple[int, int, int]:
    parts = value.split()
    return int(parts[0]), int(parts[1]), int(parts[2]) if len(parts) > 2 else 0


def _pair(value: bytes | None) -> tuple[int, int]:
    if value is None:
        return 0, 0
    parts = value.split()
    return int(parts[0]), int(parts[1])


def _totals(values: list[bytes | None], vocabulary: int | None) -> Totals:
    ham_m, spam_m, ham_t, spam_t = (int(v or 0) for v in values)
    return Totals((ham_m, spam_m), (ham_t, spam_t), vocabulary)


def _counted(messages: list[tuple[AbstractSet[str], bytes]]) -> list[Any]:
    """The arguments an ``add`` or ``cadd`` operation (see :data:`_APPLY`) takes after its
    class: the messages, their tokens, then each token and each digest (sorted) with its
    count (:func:`~nbayes.spam.store.tally`)."""
    counts, digests, n_tokens = tally(messages)
    operations: list[Any] = [len(messages), n_tokens, len(counts)]
    for token in sorted(counts):
        operations += [token, counts[token]]
    operations.append(len(digests))
    for key in sorted(digests):
        operations += [key, digests[key]]
    return operations
