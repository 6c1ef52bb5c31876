"""What a path that is not a regular file is, in words, for the refusals of the mail
sources (:mod:`nbayes.spam.sources`) and of the token database's path
(:mod:`nbayes.spam.store`): a FIFO would hold the reader up for ever, a device such as
``/dev/zero`` would never end, so neither is opened as a file to read.

>>> import os
>>> file_kind(os.stat("/dev/null").st_mode)
'a character device'
>>> file_kind(os.stat(__file__).st_mode)
''
"""

from __future__ import annotations

import stat

#: What :func:`file_kind` calls each kind of file that is not a regular one, by
#: ``stat.S_IFMT``.
_FILE_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a directory",
}


def file_kind(mode: int) -> str:
    """What a file of mode ``mode`` (``os.stat(path).st_mode``) is, or the empty string
    for a regular file."""
    if stat.S_ISREG(mode):
        return ""
    return _FILE_KINDS.get(stat.S_IFMT(mode), "not a file")
