"""``python -m nbayes``: the ``nbayes`` command line."""

from nbayes.console import run

if __name__ == "__main__":
    run()
