"""What makes the window agent's PPO fast keeps its meaning: the valid-pair logits of the training
path are the decision path's, and the log-softmax distribution is sb3-contrib's masked one."""

from __future__ import annotations

import numpy as np
import pytest
import torch as th
from sb3_contrib.common.maskable.distributions import MaskableCategorical

from gpusched.agent.distribution import LogSoftmaxCategorical
from gpusched.agent.network import PAIR_FITS, UNFIT_LOGIT, WindowSetPolicy
from gpusched.env import GPUSchedulerEnv


def _episode(steps: int, seed: int) -> tuple[GPUSchedulerEnv, list[dict[str, np.ndarray]], list[np.ndarray]]:
    """A window environment (observation version 5, 16 GPUs, window 16) driven by seeded random
    valid actions: its observations and masks."""
    env = GPUSchedulerEnv("fleet-16gpu", obs_version=5, max_window=16, n_jobs=120)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    observations, masks = [], []
    for _ in range(steps):
        mask = env.action_masks()
        observations.append(obs)
        masks.append(mask)
        obs, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            obs, _ = env.reset()
    return env, observations, masks


def _batch(observations: list[dict[str, np.ndarray]]) -> dict[str, th.Tensor]:
    return {k: th.as_tensor(np.stack([o[k] for o in observations])) for k in observations[0]}


def _policy(env: GPUSchedulerEnv, seed: int = 0) -> WindowSetPolicy:
    th.manual_seed(seed)
    return WindowSetPolicy(env.observation_space, env.action_space, lambda _: 1e-3, hidden=32)


def test_the_fits_feature_is_the_mask_of_every_pair():
    """The training path scores the pairs whose ``fits`` feature is set: exactly the valid
    (slot, GPU) actions, on every step of a run."""
    env, observations, masks = _episode(150, seed=3)
    n_pairs = env.max_window * env.max_gpus
    for obs, mask in zip(observations, masks, strict=True):
        fits = obs["pairs"][..., PAIR_FITS].reshape(-1) > 0.5
        np.testing.assert_array_equal(fits, mask[:n_pairs])
    assert any(m[:n_pairs].sum() > 1 for m in masks)  # the run had real choices


def test_training_logits_are_the_decision_logits_on_valid_actions():
    env, observations, masks = _episode(120, seed=5)
    policy = _policy(env)
    net = policy.mlp_extractor
    with th.no_grad():
        features = policy.features_extractor(_batch(observations))
        dense = net.forward_actor(features).numpy()
        fit, value = net(features)
        fit = fit.numpy()
        np.testing.assert_array_equal(value.numpy(), net.forward_critic(features).numpy())
    mask = np.stack(masks)
    np.testing.assert_allclose(fit[mask], dense[mask], rtol=1e-5, atol=1e-5)
    assert (fit[:, :-1][~mask[:, :-1]] == UNFIT_LOGIT).all()
    assert not np.allclose(dense[:, :-1][~mask[:, :-1]], UNFIT_LOGIT)  # the dense grid scores them
    # the greedy choice among the valid actions is the same, up to exact ties of the dense logits
    for row_fit, row_dense, m in zip(fit, dense, mask, strict=True):
        best = np.where(m, row_dense, -np.inf)
        assert np.where(m, row_fit, -np.inf).argmax() in np.flatnonzero(best >= best.max() - 1e-4)


def test_ppo_gradients_of_the_training_path_match_the_dense_grid():
    """The PPO loss (masked log-probability and entropy) has the same gradient through the valid
    pairs alone as through the dense grid."""
    env, observations, masks = _episode(64, seed=7)
    policy = _policy(env)
    net = policy.mlp_extractor
    obs, mask = _batch(observations), np.stack(masks)
    rng = np.random.default_rng(0)
    actions = th.as_tensor([int(rng.choice(np.flatnonzero(m))) for m in masks])

    def grads(logits_of) -> list[th.Tensor]:
        policy.zero_grad()
        dist = MaskableCategorical(logits=logits_of(policy.features_extractor(obs)), masks=mask)
        (-(dist.log_prob(actions).mean()) - 0.01 * dist.entropy().mean()).backward()
        return [p.grad.clone() if p.grad is not None else th.zeros_like(p) for p in net.parameters()]

    fit = grads(lambda x: net(x)[0])
    dense = grads(net.forward_actor)
    assert any(g.abs().sum() > 0 for g in fit)
    for a, b in zip(fit, dense, strict=True):
        th.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("seed", [0, 1])
def test_log_softmax_distribution_is_the_masked_categorical(seed):
    rng = np.random.default_rng(seed)
    logits = th.as_tensor(rng.normal(0.0, 3.0, size=(32, 200)), dtype=th.float32)
    mask = rng.random((32, 200)) < 0.05
    mask[:, -1] = True
    actions = th.as_tensor([int(rng.choice(np.flatnonzero(m))) for m in mask])
    ours = LogSoftmaxCategorical(logits=logits, masks=mask)
    theirs = MaskableCategorical(logits=logits, masks=mask)
    th.testing.assert_close(ours.logits, theirs.logits)
    th.testing.assert_close(ours.probs, theirs.probs)
    th.testing.assert_close(ours.log_prob(actions), theirs.log_prob(actions))
    th.testing.assert_close(ours.entropy(), theirs.entropy())
    assert (ours.probs[~th.as_tensor(mask)] == 0).all()
    th.manual_seed(seed)
    assert th.as_tensor(mask).gather(1, ours.sample().unsqueeze(1)).all()
    ours.apply_masking(None)  # no mask: the unmasked distribution again
    th.testing.assert_close(ours.probs, th.softmax(logits, -1))


def test_window_policy_samples_only_valid_actions():
    env, observations, masks = _episode(40, seed=11)
    policy = _policy(env)
    for obs, mask in zip(observations, masks, strict=True):
        action, _ = policy.predict(obs, deterministic=False, action_masks=mask)
        assert mask[int(action)]


def test_the_hour_command_is_the_shipped_urgency_run_with_cheaper_rollouts():
    """docs/agent.md's one-hour urgency command changes only the run's length, its evaluation
    interval and how the 2,048 steps of a rollout are split over environments."""
    import json
    import re
    import shlex

    from gpusched.cli.main import build_parser
    from gpusched.cli.train import config_from_args
    from gpusched.paths import REPO_ROOT, SHIPPED_MODELS_DIR

    text = (REPO_ROOT / "docs" / "agent.md").read_text(encoding="utf-8")
    blocks = [b.replace("\\\n", " ") for b in re.findall(r"```bash\n(.*?)```", text, flags=re.DOTALL)]
    (command,) = [b for b in blocks if "--out models/urgency-history.zip" in b]
    config = config_from_args(build_parser().parse_args(shlex.split(command)[1:])).to_json()
    shipped = json.loads((SHIPPED_MODELS_DIR / "ppo-urgency.json").read_text())["config"]
    assert config["n_envs"] * config["n_steps"] == shipped["n_envs"] * shipped["n_steps"]
    changed = {k for k in shipped if config[k] != shipped[k]} - {"out", "log_dir", "progress"}
    assert changed == {"timesteps", "n_envs", "n_steps", "eval_freq"}
