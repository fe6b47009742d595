"""Readers for real cluster traces (Alibaba's openb GPU-sharing trace)."""

from gpusched.traces.openb import (
    GPU_VRAM_GB,
    OpenbNodes,
    OpenbPods,
    TraceError,
    read_openb_nodes,
    read_openb_pods,
    resolve_trace,
    trace_dir,
)

__all__ = [
    "GPU_VRAM_GB",
    "OpenbNodes",
    "OpenbPods",
    "TraceError",
    "read_openb_nodes",
    "read_openb_pods",
    "resolve_trace",
    "trace_dir",
]
