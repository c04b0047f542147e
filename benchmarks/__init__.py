"""charwise's benchmarks (the package docstring is written in a later commit)."""
