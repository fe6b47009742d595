"""The size-agnostic policy network: permutation equivariance and any cluster size."""

from __future__ import annotations

import numpy as np
import torch as th

from gpusched.agent.network import GpuSetPolicy
from gpusched.env import GPUSchedulerEnv


def _policy(env: GPUSchedulerEnv, seed: int = 0) -> GpuSetPolicy:
    th.manual_seed(seed)
    return GpuSetPolicy(env.observation_space, env.action_space, lambda _: 1e-3, hidden=32)


def _logits(policy: GpuSetPolicy, obs: dict[str, np.ndarray]) -> np.ndarray:
    with th.no_grad():
        t = {k: th.as_tensor(v).unsqueeze(0) for k, v in obs.items()}
        return policy.mlp_extractor.forward_actor(policy.features_extractor(t))[0].numpy()


def test_permuting_gpus_permutes_scores():
    env = GPUSchedulerEnv("phase1-8gpu", n_jobs=40)
    obs, _ = env.reset(seed=1)
    for _ in range(15):  # move into a busier state
        obs, *_ = env.step(int(np.flatnonzero(env.action_masks())[0]))
    policy = _policy(env)
    base = _logits(policy, obs)
    perm = np.random.default_rng(0).permutation(8)
    shuffled = dict(obs, gpus=obs["gpus"][perm], gpu_present=obs["gpu_present"][perm])
    out = _logits(policy, shuffled)
    np.testing.assert_allclose(out[:8], base[:8][perm], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[8], base[8], rtol=1e-5, atol=1e-6)


def test_padding_does_not_change_scores_and_weights_fit_any_size():
    small = GPUSchedulerEnv("phase1-8gpu", n_jobs=20, max_gpus=16)
    large = GPUSchedulerEnv("phase1-8gpu", n_jobs=20, max_gpus=64)
    obs_s, _ = small.reset(seed=2, options={"workload_seed": 4})
    obs_l, _ = large.reset(seed=2, options={"workload_seed": 4})
    p16 = _policy(small)
    p64 = _policy(large, seed=99)
    p64.load_state_dict(p16.state_dict(), strict=True)  # no weight depends on max_gpus
    a, b = _logits(p16, obs_s), _logits(p64, obs_l)
    np.testing.assert_allclose(a[:8], b[:8], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(a[-1], b[-1], rtol=1e-5, atol=1e-6)


def test_masked_actions_are_never_chosen():
    env = GPUSchedulerEnv("phase1-4gpu", n_jobs=30, max_gpus=8)
    obs, _ = env.reset(seed=0)
    policy = _policy(env)
    for _ in range(50):
        mask = env.action_masks()
        action, _ = policy.predict(obs, deterministic=False, action_masks=mask)
        assert mask[int(action)]
        obs, _, terminated, truncated, _ = env.step(int(action))
        if terminated or truncated:
            break
