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


def cpu_times() -> list[int]:
    """The machine's CPU counters (user, nice, system, idle, iowait, irq, softirq, steal)."""
    with open("/proc/stat") as f:
        return [int(x) for x in f.readline().split()[1:9]]


def machine_note(before: list[int]) -> str:
    """Load and the share of CPU time the hypervisor stole since `before`: context for
    latency figures on a shared 2-core VM, where the same run varies by up to 2x."""
    after = cpu_times()
    spent = [b - a for a, b in zip(before, after, strict=True)]
    steal = 100.0 * spent[7] / max(sum(spent), 1)
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    return f"load {load}, CPU steal {steal:.1f}%"


def percentiles(samples: list[float]) -> str:
    """p50 / p95 / max of millisecond samples, one line."""
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (
        f"p50 {statistics.median(ordered):6.2f} ms  p95 {p95:6.2f} ms  "
        f"max {ordered[-1]:6.2f} ms  (n={len(ordered)})"
    )
