"""One item's life without pytest: its conversation, requests, samples, probes, scoring
and record; shards of a selection; scoring records offline."""
