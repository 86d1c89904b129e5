"""`python -m seqviz` runs the command line."""

from seqviz.cli import main

raise SystemExit(main())
