"""Sub-commands of the `seqviz` command line; each module registers one and imports lazily."""
