"""Throughput and quality benchmarks (``make bench``, ``dicearena bench``): each prints ratios against a peer measured
in the same run, never a wall-clock assert."""
