"""Text where the members of the confusion sets are used as meant, for the confusion models to learn
from beside their corpora: the lines of Debian packages that hold a member of a set.

* English: ``fortunes`` (fortune-mod's collection of quotations, jokes and aphorisms, BSD licence):
  written English of every register, with the contractions (``they're``, ``you're``, ``it's``) that
  edited prose lacks; and ``wordnet-base`` (WordNet 3.0's glosses and their example sentences,
  WordNet 3.0 licence): edited definitions and usage examples.
* Spanish: ``fortunes-es`` (quotations and sayings, presumed public domain by the package), its
  offensive ``off/`` files left out: modern Spanish where the Bible's verses are of 1909
  (``¿qué?``, ``cómo``, ``él``, ``más`` as written today).

One fortune a line (its ``-- author`` lines and the ASCII-art files left out), one gloss or example a
line; only lines holding a member of one of the language's sets are kept (the models read nothing else):

    python -m benchmarks.correction.edited_text     # apt-get download the packages, write charwise/data/edited_*/

``confusions.py`` (English) and ``accent_twins.py`` (Spanish) learn from the result.
"""

from __future__ import annotations

import argparse
import gzip
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable, Iterable, Iterator

from benchmarks.common.paths import ROOT

DATA = ROOT / "src" / "charwise" / "data"
SKIPPED_FORTUNES = frozenset({"art", "ascii-art"})  # pictures drawn in characters, not sentences
OVERSTRIKE = re.compile(r".\x08")  # `x\bx` bold in a few fortune files


def decoded(data: bytes) -> str:
    """The English fortunes are Latin-1 where they are not ASCII; the Spanish ones UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def fortunes(folder: Path) -> Iterator[str]:
    """Each fortune of the files in ``folder`` (not its subfolders) on one line, its attribution left out."""
    for path in sorted(folder.iterdir()):
        if not path.is_file() or path.is_symlink() or path.suffix in (".dat", ".u8") or path.name in SKIPPED_FORTUNES:
            continue  # `.dat` indexes and `.u8` links to the same text
        text = OVERSTRIKE.sub("", decoded(path.read_bytes()))
        for fortune in text.split("\n%\n"):
            lines = [line.strip() for line in fortune.splitlines()]
            kept = " ".join(line for line in lines if line and not line.startswith("--"))
            if kept:
                yield kept


def wordnet_glosses(folder: Path) -> Iterator[str]:
    """Every gloss and example sentence of WordNet's ``data.*`` files in ``folder``."""
    for pos in ("noun", "verb", "adj", "adv"):
        for line in (folder / f"data.{pos}").read_text(encoding="latin-1").splitlines():
            if line.startswith("  ") or "|" not in line:
                continue  # the licence at the top of each file
            for part in line.split("|", 1)[1].split(";"):
                part = part.strip().strip('"').strip()
                if part:
                    yield part


#: language -> (name of the output file, Debian package, folder in the package, reader)
SOURCES: dict[str, tuple[tuple[str, str, str, Callable[[Path], Iterator[str]]], ...]] = {
    "en": (("fortunes", "fortunes", "usr/share/games/fortunes", fortunes),
           ("wordnet", "wordnet-base", "usr/share/wordnet", wordnet_glosses)),
    "es": (("fortunes", "fortunes-es", "usr/share/games/fortunes/es", fortunes),),
}


def holding_members(lines: Iterable[str], language: str) -> Iterator[str]:
    """The lines with a member of one of ``language``'s confusion sets (``of`` after a modal)."""
    from charwise.speller.confusion_fitting import examples
    from charwise.speller.confusions import SETS
    from charwise.words import split_words

    for line in lines:
        if next(iter(examples([split_words(line).words], SETS[language])), None) is not None:
            yield line


def unpacked(package: str, work: Path) -> Path:
    """Download ``package`` with apt-get and unpack it under ``work`` (a one-line SystemExit without them)."""
    try:
        subprocess.run(["apt-get", "download", package], cwd=work, check=True, capture_output=True)
        deb = next(work.glob(f"{package}_*.deb"))
        subprocess.run(["dpkg-deb", "-x", str(deb), str(work / package)], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError, StopIteration) as e:
        said = (getattr(e, "stderr", b"") or b"").decode(errors="replace").strip().splitlines()
        raise SystemExit(f"edited_text: cannot download and unpack the Debian package {package!r} "
                         f"(needs apt-get and dpkg-deb with a package source): {said[-1] if said else e}") from None
    return work / package


def folder(language: str) -> Path:
    return DATA / f"edited_{language}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--languages", nargs="+", default=sorted(SOURCES), choices=sorted(SOURCES))
    args = parser.parse_args(argv)
    from charwise.io.writing import atomic_file

    for language in args.languages:
        for name, package, inside, read in SOURCES[language]:
            with tempfile.TemporaryDirectory() as tmp:
                lines = list(read(unpacked(package, Path(tmp)) / inside))
            kept = list(holding_members(lines, language))
            with atomic_file(folder(language) / f"{name}.txt.gz", "wb") as f:
                # mtime 0: the same packages give the same bytes
                with gzip.GzipFile(fileobj=f, mode="wb", mtime=0) as z:
                    z.write("".join(line + "\n" for line in kept).encode("utf-8"))
            print(f"{language} {name} ({package}): {len(kept):,} of {len(lines):,} lines hold a member", flush=True)
    return 0


def lines(language: str) -> list[str]:
    """The kept lines of every source of ``language``."""
    return [line.rstrip("\n") for name, *_ in SOURCES[language]
            for line in gzip.open(folder(language) / f"{name}.txt.gz", "rt", encoding="utf-8")]


if __name__ == "__main__":
    sys.exit(main())
