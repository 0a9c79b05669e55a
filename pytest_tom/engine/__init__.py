"""One item's life without pytest: loading, requests, samples, scoring, records, aggregation."""
