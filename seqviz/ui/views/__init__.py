"""Scene views: the Textual side of each scene in seqviz.scenes."""
