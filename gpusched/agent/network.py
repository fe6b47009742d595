"""A permutation-invariant, size-agnostic actor-critic for GPU placement (needs torch).

One shared network scores every GPU from that GPU's features, the head job's features and a
pooled summary of the whole cluster; HOLD is scored from the pooled summary; the value head reads
the pooled summary too. No weight depends on the number of GPUs, so the same weights run on any
cluster size, and permuting the GPUs permutes the scores (the Decima / RLScheduler pattern).

It plugs into sb3-contrib's ``MaskableActorCriticPolicy``: :class:`FlatDictExtractor` flattens
the observation dict, :class:`GpuSetNetwork` is the ``mlp_extractor`` whose actor latent *is* the
vector of action logits (``action_net`` is the identity), and :class:`GpuSetPolicy` wires it up.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from gpusched.agent.distribution import MASKED_LOGIT, LogSoftmaxMaskableDistribution
from gpusched.env.window import PAIR_FEATURES

_OBS_KEYS = ("gpus", "gpu_present", "job", "queue", "time")


def _mlp(sizes: list[int], out_gain: float | None = None) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        lin = nn.Linear(sizes[i], sizes[i + 1])
        last = i == len(sizes) - 2
        gain = out_gain if (last and out_gain is not None) else 2 ** 0.5
        nn.init.orthogonal_(lin.weight, gain=gain)
        nn.init.zeros_(lin.bias)
        layers.append(lin)
        if not last or out_gain is None:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class FlatDictExtractor(BaseFeaturesExtractor):
    """Concatenate the observation dict in a fixed order: gpus (flattened), presence, job, queue, time."""

    def __init__(self, observation_space: spaces.Dict):
        m, f = observation_space["gpus"].shape
        dim = m * f + m + sum(observation_space[k].shape[0] for k in ("job", "queue", "time"))
        super().__init__(observation_space, features_dim=dim)

    def forward(self, obs: dict[str, th.Tensor]) -> th.Tensor:
        return th.cat([obs["gpus"].flatten(1), obs["gpu_present"], obs["job"], obs["queue"], obs["time"]], 1)


class GpuSetNetwork(nn.Module):
    """The shared per-GPU scorer, HOLD scorer and value trunk.

    :param max_gpus: GPU slots of the observation (only used to split the flat features).
    :param n_gpu: features per GPU.
    :param n_job: head-job features.
    :param n_queue: queue-summary features.
    :param n_time: time features.
    :param hidden: width of every hidden layer.
    """

    def __init__(self, max_gpus: int, n_gpu: int, n_job: int, n_queue: int, n_time: int, hidden: int = 64):
        super().__init__()
        self.max_gpus, self.n_gpu, self.n_job = max_gpus, n_gpu, n_job
        n_glob = n_job + n_queue + n_time
        self.gpu_enc = _mlp([n_gpu + n_job, hidden, hidden])
        self.glob_enc = _mlp([n_glob, hidden])
        self.ctx = _mlp([3 * hidden, hidden])
        self.scorer = _mlp([2 * hidden, hidden, 1], out_gain=0.01)
        self.hold = _mlp([hidden, hidden, 1], out_gain=0.01)
        self.value = _mlp([hidden, hidden])
        self.latent_dim_pi = max_gpus + 1
        self.latent_dim_vf = hidden

    def _split(self, x: th.Tensor) -> tuple[th.Tensor, th.Tensor, th.Tensor, th.Tensor]:
        m, f = self.max_gpus, self.n_gpu
        gpus = x[:, : m * f].reshape(-1, m, f)
        present = x[:, m * f: m * f + m]
        glob = x[:, m * f + m:]
        job = glob[:, : self.n_job]
        return gpus, present, job, glob

    def _encode(self, x: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """Per-GPU embeddings (batch, max_gpus, hidden) and the pooled context (batch, hidden)."""
        gpus, present, job, glob = self._split(x)
        m = gpus.shape[1]
        emb = self.gpu_enc(th.cat([gpus, job.unsqueeze(1).expand(-1, m, -1)], -1))
        w = present.unsqueeze(-1)
        count = w.sum(1).clamp(min=1.0)
        mean = (emb * w).sum(1) / count
        mx = emb.masked_fill(w == 0, -1e4).max(1).values
        ctx = self.ctx(th.cat([mean, mx, self.glob_enc(glob)], -1))
        return emb, ctx

    def forward_actor(self, x: th.Tensor) -> th.Tensor:
        """Action logits: one per GPU slot (padding slots are masked out later), then HOLD."""
        emb, ctx = self._encode(x)
        m = emb.shape[1]
        scores = self.scorer(th.cat([emb, ctx.unsqueeze(1).expand(-1, m, -1)], -1)).squeeze(-1)
        return th.cat([scores, self.hold(ctx)], -1)

    def forward_critic(self, x: th.Tensor) -> th.Tensor:
        """The value trunk's latent (batch, hidden)."""
        return self.value(self._encode(x)[1])

    def forward(self, x: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        emb, ctx = self._encode(x)
        m = emb.shape[1]
        scores = self.scorer(th.cat([emb, ctx.unsqueeze(1).expand(-1, m, -1)], -1)).squeeze(-1)
        return th.cat([scores, self.hold(ctx)], -1), self.value(ctx)


class GpuSetPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` with the size-agnostic :class:`GpuSetNetwork`.

    :param hidden: width of the hidden layers (the only architecture knob; it is saved in the
        model's sidecar so the policy can be rebuilt in code).
    :param trainable: build the optimizer. An inference-only policy skips it: creating a torch
        optimizer imports ``torch._dynamo``, which takes about 2 s.
    """

    def __init__(self, observation_space: spaces.Dict, action_space: spaces.Discrete, lr_schedule,
                 hidden: int = 64, trainable: bool = True, **kwargs: Any):
        self.hidden = hidden
        self.trainable = trainable
        kwargs.setdefault("features_extractor_class", FlatDictExtractor)
        kwargs["ortho_init"] = False  # GpuSetNetwork initialises itself
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build_mlp_extractor(self) -> None:
        space = self.observation_space
        m, f = space["gpus"].shape
        self.mlp_extractor = GpuSetNetwork(m, f, space["job"].shape[0], space["queue"].shape[0],
                                           space["time"].shape[0], self.hidden)

    def _build(self, lr_schedule) -> None:
        self._build_mlp_extractor()
        self.action_net = nn.Identity()
        self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, 1)
        nn.init.orthogonal_(self.value_net.weight, gain=1.0)
        nn.init.zeros_(self.value_net.bias)
        if self.trainable:
            self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1),
                                                  **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["hidden"] = self.hidden
        return data


# ---------------------------------------------------------------------------- the window network
_WINDOW_KEYS = ("gpus", "gpu_present", "jobs", "job_present", "pairs", "globals")

PAIR_FITS = PAIR_FEATURES.index("fits")
"""The pair feature that says the job (its gang) fits on that GPU now (``PAIR_FEATURES[0]``):
1.0 exactly where the (slot, GPU) action is valid."""

UNFIT_LOGIT = MASKED_LOGIT
"""The logit of a (slot, GPU) pair whose job does not fit there: never a valid action, so never
scored (the masked distribution gives a masked action the same logit)."""


class WindowDictExtractor(BaseFeaturesExtractor):
    """Concatenate a version-3 observation in a fixed order: gpus, presence, jobs, presence, pairs,
    globals (each flattened)."""

    def __init__(self, observation_space: spaces.Dict):
        dim = sum(int(np.prod(observation_space[k].shape)) for k in _WINDOW_KEYS)
        super().__init__(observation_space, features_dim=dim)

    def forward(self, obs: dict[str, th.Tensor]) -> th.Tensor:
        return th.cat([obs[k].flatten(1) for k in _WINDOW_KEYS], 1)


def _masked_pool(emb: th.Tensor, present: th.Tensor) -> th.Tensor:
    """Mean and max over the present items (zeros when none is present): ``(batch, 2 * hidden)``."""
    w = present.unsqueeze(-1)
    count = w.sum(1)
    mean = (emb * w).sum(1) / count.clamp(min=1.0)
    mx = emb.masked_fill(w == 0, -1e4).max(1).values
    mx = th.where(count > 0, mx, th.zeros_like(mx))
    return th.cat([mean, mx], -1)


class WindowSetNetwork(nn.Module):
    """One shared scorer for every (window job, GPU) pair, HOLD and the value from a pooled context.

    Each job and each GPU is embedded by its own shared MLP; the pooled context is the masked mean
    and max of both sets with the global features. A pair's logit is
    ``w . relu(A job_j + B gpu_g + C pair_jg + D context) + b``: the first layer is additive, so
    its cost is one hidden vector per pair. No weight depends on the window or on the number of
    GPUs, and permuting the jobs or the GPUs permutes the logits.

    :param max_window: job slots of the observation (only used to split the flat features).
    :param max_gpus: GPU slots of the observation.
    :param n_gpu, n_job, n_pair, n_glob: features per GPU, job and pair, and global features.
    :param hidden: width of every hidden layer.
    """

    def __init__(self, max_window: int, max_gpus: int, n_gpu: int, n_job: int, n_pair: int, n_glob: int,
                 hidden: int = 64):
        super().__init__()
        self.shape = (max_window, max_gpus, n_gpu, n_job, n_pair, n_glob)
        self.gpu_enc = _mlp([n_gpu, hidden, hidden])
        self.job_enc = _mlp([n_job, hidden, hidden])
        self.glob_enc = _mlp([n_glob, hidden])
        self.ctx = _mlp([5 * hidden, hidden])
        self.pair_job = nn.Linear(hidden, hidden)
        self.pair_gpu = nn.Linear(hidden, hidden, bias=False)
        self.pair_feat = nn.Linear(n_pair, hidden, bias=False)
        self.pair_ctx = nn.Linear(hidden, hidden, bias=False)
        for layer in (self.pair_job, self.pair_gpu, self.pair_feat, self.pair_ctx):
            nn.init.orthogonal_(layer.weight, gain=2 ** 0.5)
        nn.init.zeros_(self.pair_job.bias)
        self.pair_out = nn.Linear(hidden, 1)
        nn.init.orthogonal_(self.pair_out.weight, gain=0.01)
        nn.init.zeros_(self.pair_out.bias)
        self.hold = _mlp([hidden, hidden, 1], out_gain=0.01)
        self.value = _mlp([hidden, hidden])
        self.latent_dim_pi = max_window * max_gpus + 1
        self.latent_dim_vf = hidden

    def _split(self, x: th.Tensor) -> tuple[th.Tensor, ...]:
        w, g, fg, fj, fp, fx = self.shape
        sizes = [g * fg, g, w * fj, w, w * g * fp, fx]
        gpus, gpu_present, jobs, job_present, pairs, glob = th.split(x, sizes, dim=1)
        return (gpus.reshape(-1, g, fg), gpu_present, jobs.reshape(-1, w, fj), job_present,
                pairs.reshape(-1, w, g, fp), glob)

    def _encode(self, x: th.Tensor) -> tuple[th.Tensor, th.Tensor, th.Tensor, th.Tensor]:
        gpus, gpu_present, jobs, job_present, pairs, glob = self._split(x)
        gpu_emb = self.gpu_enc(gpus)
        job_emb = self.job_enc(jobs)
        ctx = self.ctx(th.cat([_masked_pool(job_emb, job_present), _masked_pool(gpu_emb, gpu_present),
                               self.glob_enc(glob)], -1))
        return job_emb, gpu_emb, pairs, ctx

    def _logits(self, job_emb: th.Tensor, gpu_emb: th.Tensor, pairs: th.Tensor, ctx: th.Tensor) -> th.Tensor:
        """Every pair's logit (the dense grid), then HOLD: what a trained agent decides by."""
        # One (batch, window, GPUs, hidden) tensor, filled in place: fresh temporaries of that
        # size cost several times the arithmetic at 512 GPUs.
        hidden = self.pair_feat(pairs)
        hidden += (self.pair_job(job_emb) + self.pair_ctx(ctx).unsqueeze(1)).unsqueeze(2)
        hidden += self.pair_gpu(gpu_emb).unsqueeze(1)
        hidden.relu_()
        scores = (hidden @ self.pair_out.weight.t()).squeeze(-1).flatten(1) + self.pair_out.bias
        return th.cat([scores, self.hold(ctx)], -1)

    def _fit_logits(self, job_emb: th.Tensor, gpu_emb: th.Tensor, pairs: th.Tensor,
                    ctx: th.Tensor) -> th.Tensor:
        """The logits of the pairs whose job fits on that GPU (the valid (slot, GPU) actions,
        :data:`PAIR_FITS`) and HOLD; every other pair reads :data:`UNFIT_LOGIT`.

        The same formula as :meth:`_logits`, over the valid pairs only: about 1 % of the 16 x 108
        pairs on ``gavel-108gpu-heavy``, where the dense grid and its backward pass cost some 30
        times the rest of a PPO update (``benchmarks/bench_training.py``). Under the action mask
        its distribution is the dense grid's; a valid pair's logit may differ from
        :meth:`_logits`'s in its last bits (a matrix product sums a row by another path when the
        row sits elsewhere in the batch), which is why a trained agent's decisions keep
        :meth:`_logits`.
        """
        batch, window, gpus = pairs.shape[:3]
        b, w, g = th.nonzero(pairs[..., PAIR_FITS] > 0.5, as_tuple=True)
        hidden = self.pair_feat(pairs[b, w, g])
        hidden += (self.pair_job(job_emb) + self.pair_ctx(ctx).unsqueeze(1))[b, w]
        hidden += self.pair_gpu(gpu_emb)[b, g]
        hidden.relu_()
        scored = (hidden @ self.pair_out.weight.t()).squeeze(-1) + self.pair_out.bias
        scores = th.full((batch, window * gpus), UNFIT_LOGIT, dtype=scored.dtype, device=scored.device)
        scores = scores.index_put((b, w * gpus + g), scored)
        return th.cat([scores, self.hold(ctx)], -1)

    def forward_actor(self, x: th.Tensor) -> th.Tensor:
        """Action logits: one per (slot, GPU), slot-major, then HOLD (the dense grid: every
        decision of a trained agent, and sb3's ``predict``, read these)."""
        return self._logits(*self._encode(x))

    def forward_critic(self, x: th.Tensor) -> th.Tensor:
        """The value trunk's latent (batch, hidden)."""
        return self.value(self._encode(x)[3])

    def forward(self, x: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """The logits of the valid actions (:meth:`_fit_logits`) and the value latent: what
        sb3-contrib's rollouts and PPO update call, and the warm start's fit."""
        encoded = self._encode(x)
        return self._fit_logits(*encoded), self.value(encoded[3])


class WindowSetPolicy(GpuSetPolicy):
    """``MaskableActorCriticPolicy`` with the size-agnostic :class:`WindowSetNetwork` (observation
    version 3: a queue window of jobs and a set of GPUs) and the masked distribution of
    :mod:`gpusched.agent.distribution`."""

    def __init__(self, observation_space: spaces.Dict, action_space: spaces.Discrete, lr_schedule,
                 hidden: int = 64, trainable: bool = True, **kwargs: Any):
        kwargs.setdefault("features_extractor_class", WindowDictExtractor)
        super().__init__(observation_space, action_space, lr_schedule, hidden=hidden, trainable=trainable,
                         **kwargs)
        self.action_dist = LogSoftmaxMaskableDistribution(int(action_space.n))

    def _build_mlp_extractor(self) -> None:
        space = self.observation_space
        w, fj = space["jobs"].shape
        g, fg = space["gpus"].shape
        self.mlp_extractor = WindowSetNetwork(w, g, fg, fj, space["pairs"].shape[2],
                                              space["globals"].shape[0], self.hidden)
