"""What the latency benches share: the queries they send and how they print percentiles."""

from __future__ import annotations

import statistics

QUERIES = [
    "Who worked on Vector Watch?",
    "battery life and power budget of the watch",
    "gesture recognition model training",
    "offline sync and conflict resolution",
    "meeting decisions about the release",
    "who owns the roadmap milestone",
    "firmware bug in the sensor driver",
    "vendor contract and invoice for the factory",
    "design review feedback on the dial",
    "local first durable storage schema migration",
    "react native layout render performance",
    "quantised backbone weights export runtime",
]


def percentiles(samples: list[float]) -> str:
    """p50 / p95 / max of millisecond samples, one line."""
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (
        f"p50 {statistics.median(ordered):6.2f} ms  p95 {p95:6.2f} ms  "
        f"max {ordered[-1]:6.2f} ms  (n={len(ordered)})"
    )
