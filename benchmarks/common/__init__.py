"""What several benchmarks share: where things are, the benchmark modules' declarations, data readers,
misspelling injection, metrics, Markdown and the result writer."""
