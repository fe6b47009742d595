"""The Gymnasium environment over the simulator, registered as ``gpusched/GPUScheduler-v0``.

Importing this module imports gymnasium; ``import gpusched`` alone does not.
"""

from __future__ import annotations

try:
    import gymnasium
except ModuleNotFoundError as exc:  # pragma: no cover - gymnasium is pinned in requirements.txt
    from gpusched.errors import GpuschedError

    raise GpuschedError("the RL environment needs the 'gymnasium' package "
                        "(pip install -r requirements.txt)") from exc

from gpusched.env.env import TRAIN_SEED_MIN, GPUSchedulerEnv
from gpusched.env.observation import OBS_VERSION, ObservationBuilder

ENV_ID = "gpusched/GPUScheduler-v0"
"""The registered Gymnasium id."""

if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="gpusched.env.env:GPUSchedulerEnv")

__all__ = ["ENV_ID", "OBS_VERSION", "TRAIN_SEED_MIN", "GPUSchedulerEnv", "ObservationBuilder"]
