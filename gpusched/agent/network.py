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

import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

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
