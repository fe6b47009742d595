"""The inspector agent's network (:mod:`gpusched.agent.inspect`), built in code so that loading
never unpickles (:mod:`gpusched.agent.rule_models`)."""

from __future__ import annotations

import numpy as np


def build_network(obs_size: int, hidden: int):
    """The inspector's network, built in code: sb3-contrib's maskable actor-critic MLP with two
    hidden layers of ``hidden`` units for the pi and the value heads (MaskablePPO's
    ``MlpPolicy``)."""
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    obs = spaces.Box(-1.0, 10.0, (obs_size,), np.float32)
    return MaskableActorCriticPolicy(obs, spaces.Discrete(3), lambda _: 0.0, net_arch=[hidden, hidden])
