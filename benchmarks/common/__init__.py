"""What several benchmarks share: where things are, data readers, misspelling injection, metrics,
Markdown and the result writer."""
