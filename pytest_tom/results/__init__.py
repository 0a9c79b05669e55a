"""The result and report model of a run: results per suite, aggregation into the
benchmarks' scores, the run report and its saved form, merging shards, token usage,
thought-length statistics, sweep and probe results."""
