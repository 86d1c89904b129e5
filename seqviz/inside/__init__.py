"""Inside trained recurrent LMs: predictions over time, units by pattern, saliency, gates."""

# the grammar's tracks (seqviz.inside.tracks computes them); here so the CLI lists them cheaply
TRACKS = ("number", "distractor", "distance")
TRACK_HELP = {
    "number": "+1 while the subject read so far is plural, -1 singular (subject to verb)",
    "distractor": "1 inside the phrase between the subject and its verb, 0 elsewhere",
    "distance": "words left until the verb",
}

# the shipped LMs trained on the agreement corpus: the study and the inside scene read these three
AGREEMENT_MODELS = ("agreement", "agreement-gru", "agreement-rnn")
