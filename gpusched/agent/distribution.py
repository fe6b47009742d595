"""The masked action distribution of the window agent's PPO: sb3-contrib's, normalised faster.

sb3-contrib's ``MaskableCategorical`` gives a masked action the logit -1e8 and normalises the
logits with ``logsumexp``, three times for each distribution it builds. On torch's CPU kernels the
exponential of a number that underflows (every masked action: some 99 % of the 1,729 actions of
``gavel-108gpu-heavy``) takes a slow path, so the normalisation cost a fifth of a PPO update
there (``benchmarks/bench_training.py``). ``log_softmax`` computes the same normalised logits
without that path. Everything else (the masked logit, the entropy over the valid actions only, the
log-probability, sampling) is sb3-contrib's.
"""

from __future__ import annotations

import torch as th
from sb3_contrib.common.maskable.distributions import (
    MaskableCategorical,
    MaskableCategoricalDistribution,
    MaybeMasks,
)
from torch.distributions import Distribution

MASKED_LOGIT = -1e8
"""The logit of a masked action (sb3-contrib's): its probability is exactly 0 in float32."""


class LogSoftmaxCategorical(MaskableCategorical):
    """sb3-contrib's ``MaskableCategorical``, normalised by ``log_softmax`` instead of subtracting
    ``logsumexp`` (the same values up to rounding).

    :param logits: unnormalised log-probabilities, ``(batch, actions)``.
    :param validate_args: torch's argument validation (its default when ``None``).
    :param masks: valid actions (bool, the logits' shape), or ``None`` for none masked.
    """

    def __init__(self, logits: th.Tensor, validate_args: bool | None = None, masks: MaybeMasks = None):
        self.masks: th.Tensor | None = None
        self._normalise(logits, validate_args)
        self._original_logits = self.logits
        self.apply_masking(masks)

    def _normalise(self, logits: th.Tensor, validate_args: bool | None) -> None:
        """Set the normalised logits, as ``Categorical.__init__`` does with ``logits``."""
        if logits.dim() < 1:
            raise ValueError("`logits` parameter must be at least one-dimensional.")
        self.logits = th.log_softmax(logits, dim=-1)
        self._param = self.logits
        self._num_events = logits.size(-1)
        Distribution.__init__(self, logits.size()[:-1], validate_args=validate_args)

    def apply_masking(self, masks: MaybeMasks) -> None:
        """Give every action outside ``masks`` the logit :data:`MASKED_LOGIT` (``None``: restore
        the unmasked logits), then normalise again."""
        if masks is not None:
            device = self.logits.device
            self.masks = th.as_tensor(masks, dtype=th.bool, device=device).reshape(self.logits.shape)
            logits = th.where(self.masks, self._original_logits,
                              th.tensor(MASKED_LOGIT, dtype=self.logits.dtype, device=device))
        else:
            self.masks = None
            logits = self._original_logits
        self.__dict__.pop("probs", None)  # a cached probability belongs to the old logits
        self._normalise(logits, self._validate_args)


class LogSoftmaxMaskableDistribution(MaskableCategoricalDistribution):
    """sb3-contrib's masked categorical distribution over :class:`LogSoftmaxCategorical`."""

    def proba_distribution(self, action_logits: th.Tensor) -> LogSoftmaxMaskableDistribution:
        self.distribution = LogSoftmaxCategorical(logits=action_logits.view(-1, self.action_dim))
        return self
