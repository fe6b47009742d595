"""Model files of the schedulers built on a rule: the tuned rule's weights and the inspector agent.

Two kinds, each a small file plus a sidecar ``.json`` of the same name, in a sub-folder of a
model folder (:func:`gpusched.agent.models.model_dirs`), so that the list of PPO agents
(:func:`gpusched.agent.models.list_models`, which reads ``*.zip`` at the top) never meets them:

- ``tuned/NAME.npz``: the weights of a tuned score (:mod:`gpusched.policies.tuned`), one float64
  array ``weights``; sidecar format ``gpusched-tuned``;
- ``inspect/NAME.zip``: an inspector agent (:mod:`gpusched.agent.inspect`), its network's
  ``policy.pth``; sidecar format ``gpusched-inspect``.

Loading follows the agent's contract (:mod:`gpusched.agent.models`), one line and
:class:`~gpusched.agent.models.ModelError` at any failure:

1. only files inside the project's model folders;
2. the sidecar is UTF-8 JSON of at most :data:`gpusched.limits.MAX_SIDECAR_BYTES`, every number
   finite, its format and :data:`RULE_MODEL_VERSION` exactly as written here, every field checked
   for its type and bounds (:class:`TunedSidecar`, :class:`InspectSidecar`);
3. the file's sha256 matches the sidecar's;
4. no unpickling: ``numpy.load(allow_pickle=False)`` for the weights, ``torch.load(weights_only=
   True)`` and ``load_state_dict(strict=True)`` for the network; NaN, infinite or weights beyond
   :data:`gpusched.limits.MAX_MODEL_WEIGHT` are refused.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gpusched.agent.models import (
    ModelError,
    _check_weights,
    found_inside_model_folders,
    model_dirs,
    sha256_of,
)
from gpusched.errors import shorten
from gpusched.limits import MAX_MODEL_WEIGHT, MAX_SEED, MAX_SIDECAR_BYTES, MAX_SIDECAR_HIDDEN, MAX_TIMESTEPS
from gpusched.paths import SHIPPED_MODELS_DIR
from gpusched.policies.tuned import TUNED_FEATURES
from gpusched.workload.files import finite_or_none, is_file, load_json_text, read_user_text, write_together
from gpusched.workload.validation import validation_message

RULE_MODEL_VERSION = 1
"""The version of both sidecars' layout; a file of another version is refused."""

TUNED_FORMAT, INSPECT_FORMAT = "gpusched-tuned", "gpusched-inspect"
"""The ``format`` field of each sidecar."""

KINDS: dict[str, tuple[str, str, str]] = {
    "tuned": ("tuned", ".npz", TUNED_FORMAT),
    "inspect": ("inspect", ".zip", INSPECT_FORMAT),
}
"""Per kind: its sub-folder of a model folder, its file suffix and its sidecar format."""

MAX_INSPECT_BOUND = 16
"""The most proposals an inspector may ask of its rule at one decision."""


class _Common(BaseModel):
    model_config = ConfigDict(extra="allow", allow_inf_nan=False)

    version: int = Field(strict=True, description="sidecar layout (RULE_MODEL_VERSION)")
    base: str = Field(strict=True, min_length=1, max_length=200, description="the rule it improves")
    sha256: str = Field(strict=True, pattern=r"^[0-9a-f]{64}$")
    scenario: str | None = Field(None, strict=True, max_length=200)
    seed: int | None = Field(None, strict=True, ge=0, le=MAX_SEED)
    training_seeds: list[int] | None = Field(None, max_length=10_000)
    training_time_s: float | None = Field(None, strict=True, ge=0)


class TunedSidecar(_Common):
    """A tuned rule's sidecar: its features (exactly :data:`TUNED_FEATURES`), its placement and
    the search that found the weights."""

    format: Literal["gpusched-tuned"]
    features: list[str]
    placement: str = Field(strict=True, min_length=1, max_length=100)
    search: dict[str, Any] | None = None


class InspectSidecar(_Common):
    """An inspector's sidecar: its network width, its bound and its observation size."""

    format: Literal["gpusched-inspect"]
    hidden: int = Field(strict=True, gt=0, le=MAX_SIDECAR_HIDDEN)
    bound: int = Field(strict=True, ge=1, le=MAX_INSPECT_BOUND)
    obs_size: int = Field(strict=True, gt=0, le=1024)
    timesteps: int | None = Field(None, strict=True, ge=0, le=MAX_TIMESTEPS)


_SIDECARS = {"tuned": TunedSidecar, "inspect": InspectSidecar}


def resolve_rule_model(kind: str, ref: str) -> Path:
    """Find a model of ``kind`` (``tuned`` or ``inspect``): ``ref`` is a file path (with the
    kind's suffix) or a bare name looked up as ``KIND/NAME.SUFFIX`` in the model folders (the
    user's first, then the shipped ones); either must lie inside a model folder.

    :raises ModelError: when it is not found or lies outside every model folder.
    """
    folder, suffix, _ = KINDS[kind]
    ref = ref.strip()
    if not ref:
        raise ModelError(f"give a {kind} model (a name or a file ending in {suffix}), not nothing")
    dirs = model_dirs()
    if ref.endswith(suffix):
        path = Path(ref)
        candidates = [path] if path.is_absolute() else [Path.cwd() / path, *(d / path for d in dirs)]
    else:
        if "/" in ref or "\\" in ref:
            raise ModelError(f"{kind} model '{shorten(ref, 200)}': a path must end in {suffix}")
        order = [d for d in dirs if d != SHIPPED_MODELS_DIR.resolve()] + [SHIPPED_MODELS_DIR.resolve()]
        candidates = [d / folder / f"{ref}{suffix}" for d in order]
    return found_inside_model_folders(candidates, dirs, f"{kind} model '{shorten(ref, 200)}'",
                                      f"for {folder}/NAME{suffix} in {', '.join(str(d) for d in dirs)}")


def read_rule_sidecar(kind: str, path: Path) -> dict[str, Any]:
    """The checked sidecar of a model of ``kind`` (steps 2 and 3 of the module docstring).

    :raises ModelError: one line naming the sidecar and what is wrong.
    """
    _, _, fmt = KINDS[kind]
    side = path.with_suffix(".json")
    if not is_file(side):
        raise ModelError(f"{kind} model '{path.name}' has no sidecar '{side.name}'; refusing to load it")
    label = f"sidecar '{side.name}'"
    text = read_user_text(side, label=label, max_bytes=MAX_SIDECAR_BYTES, error=ModelError)
    meta = load_json_text(text, label=label, error=ModelError)
    if not isinstance(meta, dict) or meta.get("format") != fmt:
        raise ModelError(f"{label} is not a {fmt} sidecar; refusing to load it")
    if meta.get("version") != RULE_MODEL_VERSION:
        raise ModelError(f"{label}, version: {shorten(repr(meta.get('version')), 40)} is not "
                         f"{RULE_MODEL_VERSION}, the version this gpusched reads; refusing to load it")
    try:
        _SIDECARS[kind].model_validate(meta)
    except ValidationError as exc:
        raise ModelError(f"{validation_message(exc, label)}; refusing to load it") from None
    if kind == "tuned" and meta["features"] != list(TUNED_FEATURES):
        raise ModelError(f"{label}, features: must be {', '.join(TUNED_FEATURES)} in that order")
    if sha256_of(path) != meta["sha256"]:
        raise ModelError(f"{kind} model '{path.name}' does not match the sha256 in its sidecar "
                         "(modified or corrupted); refusing to load it")
    return meta


def write_rule_model(kind: str, path: str | Path, write_file, meta: dict[str, Any]) -> Path:
    """Write a model of ``kind`` and its sidecar together, or neither.

    :param write_file: writes the model file to the path it is given.
    :param meta: the sidecar's content, without the format, the version and the sha256.
    :return: the sidecar's path.
    """
    _, _, fmt = KINDS[kind]
    path = Path(path)
    side = path.with_suffix(".json")

    def write(temps: list[Path]) -> None:
        write_file(temps[0])
        data = {"format": fmt, "version": RULE_MODEL_VERSION, **meta, "sha256": sha256_of(temps[0])}
        temps[1].write_text(json.dumps(finite_or_none(data), indent=2, allow_nan=False) + "\n",
                            encoding="utf-8")

    path.parent.mkdir(parents=True, exist_ok=True)
    write_together([path, side], write, what="--out")
    return side


# ---------------------------------------------------------------------------- the tuned rule
@dataclass(frozen=True)
class TunedModel:
    """A tuned rule's checked weights and sidecar."""

    path: Path
    meta: dict[str, Any]
    weights: np.ndarray


def save_tuned(path: str | Path, weights: np.ndarray, meta: dict[str, Any]) -> Path:
    """Write a tuned rule's weights (``.npz``) and sidecar; returns the sidecar's path."""
    w = np.asarray(weights, dtype=np.float64)

    def write_npz(temp: Path) -> None:
        with open(temp, "wb") as f:
            np.savez(f, weights=w)

    return write_rule_model("tuned", path, write_npz, {"features": list(TUNED_FEATURES), **meta})


def load_tuned(ref: str) -> TunedModel:
    """Load a tuned rule's weights safely (see the module docstring).

    :raises ModelError: one line naming the file and what is wrong.
    """
    path = resolve_rule_model("tuned", ref)
    meta = read_rule_sidecar("tuned", path)
    try:
        with np.load(path, allow_pickle=False) as data:
            w = np.array(data["weights"], dtype=np.float64)
    except Exception as exc:  # not an npz, no 'weights', an object array
        raise ModelError(f"tuned model '{path.name}': cannot read its weights "
                         f"({type(exc).__name__})") from None
    if w.shape != (len(TUNED_FEATURES),):
        raise ModelError(f"tuned model '{path.name}': weights has shape {w.shape}, not "
                         f"({len(TUNED_FEATURES)},); refusing to load it")
    if not np.isfinite(w).all():
        raise ModelError(f"tuned model '{path.name}': weights hold NaN or infinite values; "
                         "refusing to load it")
    if float(np.abs(w).max()) > MAX_MODEL_WEIGHT:
        raise ModelError(f"tuned model '{path.name}': a weight is beyond the limit of {MAX_MODEL_WEIGHT:g} "
                         "(MAX_MODEL_WEIGHT); refusing to load it")
    return TunedModel(path, meta, w)


# ---------------------------------------------------------------------------- the inspector
@dataclass
class InspectModel:
    """An inspector's checked sidecar and weights; :meth:`policy` builds its network once."""

    path: Path
    meta: dict[str, Any]
    state_dict: dict[str, Any]
    _policy: Any = field(default=None, repr=False, compare=False)

    def policy(self):
        """The inference-only network (sb3-contrib's maskable actor-critic, built in code)."""
        if self._policy is None:
            from gpusched.agent.inspect_network import build_network

            net = build_network(int(self.meta["obs_size"]), int(self.meta["hidden"]))
            try:
                net.load_state_dict(self.state_dict, strict=True)
            except RuntimeError:
                raise ModelError(f"inspect model '{self.path.name}': weights do not match the "
                                 "architecture in its sidecar") from None
            net.set_training_mode(False)
            self._policy = net
        return self._policy


def save_inspect(path: str | Path, state_dict: dict[str, Any], meta: dict[str, Any]) -> Path:
    """Write an inspector's network weights (a zip holding ``policy.pth``) and its sidecar."""
    import torch

    def write_zip(temp: Path) -> None:
        buf = io.BytesIO()
        torch.save(state_dict, buf)
        with zipfile.ZipFile(temp, "w") as zf:
            zf.writestr("policy.pth", buf.getvalue())

    return write_rule_model("inspect", path, write_zip, meta)


def load_inspect(ref: str) -> InspectModel:
    """Load an inspector safely (see the module docstring).

    :raises ModelError: one line naming the file and what is wrong.
    """
    path = resolve_rule_model("inspect", ref)
    meta = read_rule_sidecar("inspect", path)
    try:
        import torch
    except ModuleNotFoundError:
        raise ModelError("the inspector agent needs the 'torch' package "
                         "(pip install -r requirements.txt)") from None
    try:
        with zipfile.ZipFile(path) as zf:
            raw = zf.read("policy.pth")
        state = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except Exception as exc:
        raise ModelError(f"inspect model '{path.name}': cannot read its weights "
                         f"({type(exc).__name__})") from None
    if not isinstance(state, dict):
        raise ModelError(f"inspect model '{path.name}': policy.pth is not a state dict")
    _check_weights(path, state, torch)
    model = InspectModel(path, meta, state)
    model.policy()  # fail now, not at the first decision
    return model


# ---------------------------------------------------------------------------- the list
@dataclass(frozen=True)
class RuleModelInfo:
    """A model built on a rule, as listed (only its sidecar is read).

    :param kind: ``tuned`` or ``inspect``.
    :param path: the model file.
    :param origin: ``shipped`` or ``user``.
    :param meta: its sidecar (empty when it could not be read).
    :param error: why the sidecar was refused, or ``""``.
    """

    kind: str
    path: Path
    origin: str
    meta: dict[str, Any]
    error: str = ""

    @property
    def policy_name(self) -> str:
        """The registry name that runs it: ``tuned:NAME`` or ``ppo_inspect:NAME``."""
        from gpusched.agent.names import INSPECT_AGENT_POLICY, TUNED_POLICY

        return f"{TUNED_POLICY if self.kind == 'tuned' else INSPECT_AGENT_POLICY}:{self.path.stem}"


def list_rule_models() -> list[RuleModelInfo]:
    """Every tuned rule and inspector in the model folders, shipped first, then by kind and name."""
    out: list[RuleModelInfo] = []
    shipped = SHIPPED_MODELS_DIR.resolve()
    for folder in model_dirs():
        origin = "shipped" if folder == shipped else "user"
        for kind, (sub, suffix, _) in KINDS.items():
            where = folder / sub
            if not where.is_dir():
                continue
            for path in sorted(where.glob(f"*{suffix}")):
                try:
                    out.append(RuleModelInfo(kind, path, origin, read_rule_sidecar(kind, path)))
                except ModelError as exc:
                    out.append(RuleModelInfo(kind, path, origin, {}, str(exc)))
    return sorted(out, key=lambda m: (m.origin != "shipped", m.kind, m.path.name))
