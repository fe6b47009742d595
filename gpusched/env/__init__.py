"""The Gymnasium environment over the simulator, registered as ``gpusched/GPUScheduler-v0``.

``import gpusched`` registers the id (with a string entry point, see :data:`gpusched.ENV_ID`);
importing this module imports gymnasium and the environment itself.
"""

from __future__ import annotations

try:
    import gymnasium  # noqa: F401 - checked here, so that a missing package names itself
except ModuleNotFoundError as exc:  # pragma: no cover - gymnasium is pinned in requirements.txt
    from gpusched.errors import GpuschedError

    raise GpuschedError("the RL environment needs the 'gymnasium' package "
                        "(pip install -r requirements.txt)") from exc

from gpusched.env.env import TRAIN_SEED_MIN, GPUSchedulerEnv
from gpusched.env.observation import OBS_VERSION, ObservationBuilder

__all__ = ["OBS_VERSION", "TRAIN_SEED_MIN", "GPUSchedulerEnv", "ObservationBuilder"]
