"""The speller: misspellings corrected, clean words left alone, speed; the spelling benchmark suite and LexNorm."""
