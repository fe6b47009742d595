"""Hypothesis strategies shared by the property tests."""

from __future__ import annotations

from hypothesis import strategies as st

from gpusched.core.cluster import NodeGroup

MODELS = [("A100-80GB", 80.0), ("A100-40GB", 40.0), ("V100-32GB", 32.0), ("L4-24GB", 24.0),
          ("T4-16GB", 16.0)]
"""GPU models and their VRAM (GB)."""

node_groups = st.lists(
    st.builds(lambda m, k, c: NodeGroup(MODELS[m][0], MODELS[m][1], k, c),
              st.integers(0, len(MODELS) - 1), st.sampled_from([1, 2, 4, 8]), st.integers(1, 2)),
    min_size=1, max_size=4)
"""Random heterogeneous clusters: 1-4 groups of 1-2 nodes of 1, 2, 4 or 8 GPUs."""
