"""What a run gives on reasoning models beyond accuracy: thought length and its contrasts,
the budget sweep's curve, the shortcut probes' results."""
