"""Search for a beam where length normalisation changes the winner: python
benchmarks/find_alpha_case.py [--model lstm] [--alpha 0.6] [--widths 2 3] [--sentences 300].

Prompts are prefixes of grammar sentences that end on a noun (the subject phrase so far); for
each, the decoding scene's own search runs at the given width and alpha, and a case is listed
when plain log P and log P / t^alpha pick different finished hypotheses (and alpha 0 returns
plain log P's pick, so the change is alpha's). Shortest prompts and widest probability of the
normalised winner first: the demo's decoding step was picked from this list.
"""

from __future__ import annotations

import argparse

from seqviz.scenes import get_scene
from seqviz.scenes.decoding import compute, winners
from seqviz.tasks.grammar import corpus

VERBS = {"is", "are", "was", "were"}


def prompts(n: int, seed: int) -> list[str]:
    """Distinct sentence prefixes up to (not including) the verb, at least three words long."""
    seen: dict[str, None] = {}
    for text in corpus(n, seed):
        words = text.split()
        verb = next((i for i, w in enumerate(words) if w in VERBS), None)
        if verb is not None and verb >= 3:
            seen.setdefault(" ".join(words[:verb]))
    return list(seen)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="lstm")
    ap.add_argument("--alpha", type=float, default=0.6)
    ap.add_argument("--widths", type=int, nargs="+", default=[2, 3])
    ap.add_argument("--max-len", type=int, default=8)
    ap.add_argument("--sentences", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    scene = get_scene("decoding")
    found = []
    for prompt in prompts(args.sentences, args.seed):
        for width in args.widths:
            base = {"model": args.model, "prompt": prompt, "width": width, "max_len": args.max_len}
            r = compute(scene.make({**base, "alpha": args.alpha}))
            plain, norm = winners(r.final.hypotheses)
            if plain.id == norm.id or r.final.best.id != norm.id:
                continue
            r0 = compute(scene.make({**base, "alpha": 0.0}))
            if r0.final.best.id != winners(r0.final.hypotheses)[0].id:
                continue
            found.append((len(prompt.split()), -norm.prob, prompt, width, r.words(plain),
                          plain.prob, r.words(norm), norm.prob))  # fmt: skip
    for _n, _p, prompt, width, plain_words, p_plain, norm_words, p_norm in sorted(found):
        print(f"{prompt!r} width {width}: plain '{plain_words}' {p_plain:.3f}; "
              f"/t^{args.alpha:g} '{norm_words}' {p_norm:.3f}")  # fmt: skip
    print(f"{len(found)} cases")


if __name__ == "__main__":
    main()
