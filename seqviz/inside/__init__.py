"""Inside trained recurrent LMs: predictions over time, units by pattern, saliency, gates."""
