"""Build the `code` model's corpus from a fixed list of Python standard-library modules.

    python tools/code_corpus.py [--lib DIR]

writes seqviz/data/code_train.txt, seqviz/data/code_held_out.txt and the PSF licence notice
seqviz/data/code_LICENSE.txt from DIR (default: the running Python's standard library). The
files are committed, so training does not depend on the machine's Python; this script records
how they were made, and the licence file lists each module's SHA-256, so a rebuild from
another Python release shows in the diff. The modules are ASCII, without tabs or
carriage returns; they are joined in the listed order, one blank line between them.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import sysconfig
from pathlib import Path

# modules of CPython 3.11.7; the held-out ones are whole modules never trained on
TRAIN = """
argparse.py ast.py bdb.py calendar.py cmd.py codecs.py configparser.py contextlib.py copy.py
csv.py dataclasses.py fileinput.py fnmatch.py gettext.py glob.py gzip.py
linecache.py optparse.py os.py pathlib.py pprint.py queue.py
random.py sched.py shutil.py socketserver.py string.py tempfile.py textwrap.py threading.py
tokenize.py trace.py traceback.py weakref.py zipimport.py
""".split()
HELD_OUT = "selectors.py smtplib.py plistlib.py pstats.py".split()

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "seqviz" / "data"


def join(lib: Path, names: list[str]) -> tuple[str, list[str]]:
    texts, digests = [], []
    for name in names:
        raw = (lib / name).read_bytes()
        text = raw.decode("ascii")
        if "\t" in text or "\r" in text:
            raise SystemExit(f"{name} holds a tab or a carriage return; pick another module.")
        texts.append(text.rstrip("\n") + "\n")
        digests.append(f"{name} {hashlib.sha256(raw).hexdigest()}")
    return "\n".join(texts), digests


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    args = ap.parse_args(argv)
    manifest = []
    for names, out in ((TRAIN, "code_train.txt"), (HELD_OUT, "code_held_out.txt")):
        text, digests = join(args.lib, names)
        (DATA / out).write_text(text, encoding="ascii", newline="\n")
        manifest += [f"{out}: {d}" for d in digests]
        print(f"{out}: {len(names)} modules, {len(text):,} characters", file=sys.stderr)
    licence = (args.lib / "LICENSE.txt").read_text(encoding="utf-8")
    head = (
        "The files code_train.txt and code_held_out.txt in this folder are source files of the\n"
        "Python standard library (CPython 3.11.7), joined by tools/code_corpus.py:\n\n"
        + "\n".join(manifest)
        + "\n\nThey are distributed under the Python Software Foundation License below.\n\n"
    )
    (DATA / "code_LICENSE.txt").write_text(head + licence, encoding="utf-8", newline="\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
