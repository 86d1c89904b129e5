"""Sub-commands of the `seqviz` command line; each module registers one and imports lazily."""


class UsageError(Exception):
    """A bad command-line value; its message is one sentence shown to the user."""
