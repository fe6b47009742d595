"""Sweeps: a grid of runs (scenarios x policies x seeds x overrides), executed locally or on Ray.

A run's result depends only on its parameters, never on the backend, the worker or the order.
"""

from gpusched.sweep.runner import run_sweep
from gpusched.sweep.spec import SweepSpec, load_sweep

__all__ = ["SweepSpec", "load_sweep", "run_sweep"]
