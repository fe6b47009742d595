"""Model files: where they live, their sidecar JSON, the list of models on disk, and safe loading.

A model is an sb3 ``.zip`` plus a sidecar ``.json`` with the same name. The shipped models are in
``assets/models/`` and the user's own in ``models/`` (:mod:`gpusched.paths`). A plain
``MaskablePPO.load`` would unpickle the zip's ``data`` entry, which can run arbitrary code, so it is
never used. Instead :func:`load_agent`:

1. accepts only files inside the project's model folders (:func:`model_dirs`);
2. requires the sidecar (UTF-8 JSON of at most :data:`gpusched.limits.MAX_SIDECAR_BYTES`, every
   number finite: ``NaN`` and ``Infinity`` are refused), and validates every field it knows with
   :class:`Sidecar` (format, observation version, network width, slots, queue windows, VRAM
   scale, sha256, and the training facts, the settings' ``declared_run_time`` and the evaluation),
   each with its type and bounds;
3. checks the zip's sha256 against the sidecar;
4. builds the network in code from the sidecar and reads only the zip's ``policy.pth`` with
   ``torch.load(weights_only=True)``, then ``load_state_dict(strict=True)``.

Any failure raises :class:`ModelError` with a one-line message.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, ValidationError

from gpusched.agent.names import AGENT_POLICY
from gpusched.core.reward import RewardSpec, TrainingRewardSpec
from gpusched.errors import GpuschedError, shorten
from gpusched.limits import (
    LOAD_RANGE,
    MAX_GPUS,
    MAX_MODEL_WEIGHT,
    MAX_QUANTITY,
    MAX_QUEUE_WINDOW,
    MAX_REWARD_WEIGHT,
    MAX_SEED,
    MAX_SEEDS,
    MAX_SIDECAR_BYTES,
    MAX_SIDECAR_HIDDEN,
    MAX_SPEED_SIGMA,
    MAX_TIMESTEPS,
    MAX_WINDOW,
    VRAM_SCALE_RANGE_GB,
)
from gpusched.paths import REPO_ROOT, SHIPPED_MODELS_DIR, USER_MODELS_DIR
from gpusched.workload.files import finite_or_none, is_file, load_json_text, read_user_text, write_together
from gpusched.workload.speed_table import check_speed_table
from gpusched.workload.validation import validation_message

SIDECAR_FORMAT = "gpusched-ppo"
"""The ``format`` field of a sidecar."""

MODELS_DIR_ENV = "GPUSCHED_MODELS_DIR"
"""Environment variable naming one more trusted model folder."""


class ModelError(GpuschedError):
    """A model file is missing, outside the model folders, tampered with, or of an unknown format."""


_Window = Annotated[int, Field(strict=True, ge=1, le=MAX_WINDOW)]
_Load = Annotated[float, Field(strict=True, ge=LOAD_RANGE[0], le=LOAD_RANGE[1])]
_Seed = Annotated[int, Field(strict=True, ge=0, le=MAX_SEED)]
_Metric = Annotated[float, Field(strict=True, ge=-MAX_QUANTITY, le=MAX_QUANTITY)]


class SidecarEval(BaseModel):
    """A sidecar's ``eval``: the held-out seeds and, per policy, its mean metrics there."""

    model_config = ConfigDict(extra="allow", allow_inf_nan=False)

    seeds: list[_Seed] = Field(min_length=1, max_length=MAX_SEEDS)
    avg: dict[str, dict[str, _Metric]]


def _declared(value: Any) -> Any:
    """A training config's ``declared_run_time``: ``null`` (the scenario's own) or a value
    ``workload.declared_run_time`` accepts (:func:`gpusched.workload.declared.check_declared`)."""
    from gpusched.workload.declared import check_declared

    return None if value is None else check_declared(value)


class SidecarConfig(BaseModel):
    """A sidecar's ``config`` (every setting of the run, :class:`~gpusched.agent.config.TrainConfig`
    as JSON): every number finite; the settings that say what the model was told are checked
    (a model from before a setting existed has none, and is kept as written)."""

    model_config = ConfigDict(extra="allow", allow_inf_nan=False)

    declared_run_time: Annotated[Any, BeforeValidator(_declared)] = None


class Sidecar(BaseModel):
    """The fields of a sidecar, with their types and bounds (strict: a string, a float where a
    whole number belongs, ``true`` for a number, ``null`` where a value belongs, a list, a
    negative, huge or non-finite value is refused). The fields that loading relies on get their
    defaults when absent; the training facts and the evaluation are optional, and checked when
    present. Other fields are kept as written."""

    model_config = ConfigDict(extra="allow", allow_inf_nan=False)

    format: Literal["gpusched-ppo"]
    obs_version: int = Field(strict=True, ge=0, description="observation version (checked on load)")
    hidden: int = Field(strict=True, gt=0, le=MAX_SIDECAR_HIDDEN, description="network width")
    max_gpus: int = Field(8, strict=True, gt=0, le=MAX_GPUS, description="GPU slots it was built for")
    queue_window: int = Field(8, strict=True, gt=0, le=MAX_QUEUE_WINDOW,
                              description="jobs behind the head that the observation summarises")
    vram_scale_gb: float = Field(80.0, strict=True, ge=VRAM_SCALE_RANGE_GB[0], le=VRAM_SCALE_RANGE_GB[1],
                                 description="VRAM that normalises to 1 in the observation (GB)")
    sha256: str = Field(strict=True, pattern=r"^[0-9a-f]{64}$", description="hex sha256 of the zip")
    # A window model's job slots; absent on a FIFO model, never null.
    max_window: _Window = Field(None, description="job slots of a window model's observation")
    random_windows: tuple[_Window, _Window] | None = Field(None, description="training windows")
    speed_sigma: float | None = Field(None, strict=True, ge=0, le=MAX_SPEED_SIGMA)
    random_loads: tuple[_Load, _Load] | None = None
    unit_speed_prob: float | None = Field(None, strict=True, ge=0, le=1)
    scenario_window: _Window = Field(None, description="the training scenario's queue window")
    scenario_speed: Annotated[Any, BeforeValidator(check_speed_table)] = None
    policy_class: str = Field(None, strict=True)
    scenario: str = Field(None, strict=True)
    randomize: StrictBool = Field(None)
    timesteps: int = Field(None, strict=True, ge=0, le=MAX_TIMESTEPS)
    seed: _Seed = Field(None)
    reward_spec: RewardSpec = Field(None)
    train_reward: TrainingRewardSpec = Field(None)
    reward_scale: float = Field(None, strict=True, gt=0, le=MAX_REWARD_WEIGHT)
    training_time_s: float = Field(None, strict=True, ge=0, le=MAX_QUANTITY)
    warm_start: dict[str, Any] | None = None
    selected: dict[str, Any] | None = None
    config: SidecarConfig = Field(None)
    eval: SidecarEval = Field(None)


_LOADING_FIELDS = frozenset({"format", "obs_version", "hidden", "max_gpus", "queue_window",
                             "vram_scale_gb", "sha256"})
"""The fields loading relies on, returned with their defaults when absent."""


def model_dirs() -> list[Path]:
    """Trusted model folders: ``assets/models/``, ``models/`` (in the repository and in the cwd) and
    ``$GPUSCHED_MODELS_DIR``."""
    dirs = [SHIPPED_MODELS_DIR, USER_MODELS_DIR, Path.cwd() / "models"]
    extra = os.environ.get(MODELS_DIR_ENV)
    if extra:
        dirs.append(Path(extra))
    return list(dict.fromkeys(d.resolve() for d in dirs))  # the cwd is often the repository


def sidecar_path(model_path: str | Path) -> Path:
    """The sidecar of a model: the same path with a ``.json`` suffix."""
    return Path(model_path).with_suffix(".json")


def sha256_of(path: str | Path) -> str:
    """Hex sha256 of a file."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def write_model(model_path: str | Path, save_zip, meta: dict[str, Any]) -> Path:
    """Write a model and its sidecar together, or neither: ``save_zip(path)`` writes the zip to a
    temporary file beside ``model_path``, the sidecar (the format, ``meta`` and the zip's sha256;
    a number that does not exist, NaN, as ``null``) to another, and both are moved into place only
    once both are written (:func:`gpusched.workload.files.write_together`).

    :param model_path: the model file (``.zip``).
    :param save_zip: writes the zip to the path it is given (e.g. ``MaskablePPO.save``).
    :param meta: the sidecar's content, without the format and the sha256.
    :return: the sidecar's path.
    :raises GpuschedError: when either cannot be written (nothing is left half-written).
    """
    side = sidecar_path(model_path)

    def write(temps: list[Path]) -> None:
        save_zip(temps[0])
        data = {"format": SIDECAR_FORMAT, **meta, "sha256": sha256_of(temps[0])}
        text = json.dumps(finite_or_none(data), indent=2, allow_nan=False) + "\n"
        temps[1].write_text(text, encoding="utf-8")

    write_together([model_path, side], write, what="--out")
    return side


def resolve_model(ref: str | Path) -> Path:
    """Find a model by path (absolute, or relative to the cwd, the repository or a model folder),
    inside the model folders.

    :raises ModelError: if it is not found or lies outside every model folder.
    """
    if not str(ref).strip():
        raise ModelError("give a model file (e.g. ppo:models/my-agent.zip), not an empty path")
    ref_text, ref = str(ref), Path(ref)
    if ref.suffix == ".json":
        raise ModelError(f"model '{shorten(ref, 200)}' is a sidecar: give the model file beside it, "
                         f"'{shorten(ref.with_suffix('.zip'), 200)}'")
    if ref.suffix not in ("", ".zip"):
        raise ModelError(f"model '{shorten(ref, 200)}': a model file ends in .zip")
    if ref.suffix == "":
        if ref.name in ("", ".", "..") or str(ref_text).endswith(("/", "\\")) or Path(ref).is_dir():
            raise ModelError(f"model '{shorten(ref, 200)}': give a model file, not a folder")
        ref = ref.with_suffix(".zip")
    dirs = model_dirs()
    candidates = [ref] if ref.is_absolute() else [Path.cwd() / ref, REPO_ROOT / ref, *(d / ref for d in dirs)]
    return found_inside_model_folders(candidates, dirs, f"model '{shorten(ref, 200)}'",
                                      f"in the cwd and {', '.join(str(d) for d in dirs)}")


def found_inside_model_folders(candidates: list[Path], dirs: list[Path], what: str, looked: str) -> Path:
    """The first of ``candidates`` that is a file, resolved, once it is known to lie inside one of
    the model folders ``dirs`` (:func:`model_dirs`): the one check every kind of model passes
    before anything of it is read.

    :param what: the model as the messages name it (``model 'x.zip'``).
    :param looked: where the not-found message says it looked.
    :raises ModelError: when no candidate is a file, or the one found lies outside every folder.
    """
    found = next((c.resolve() for c in candidates if is_file(c)), None)
    if found is None:
        raise ModelError(f"{what} not found (looked {looked})")
    if not any(found.is_relative_to(d) for d in dirs):
        raise ModelError(f"{what} is outside the model folders (assets/models/, ./models/ or "
                         f"${MODELS_DIR_ENV}); copy it there to use it")
    return found


def load_sidecar(model_path: Path) -> dict[str, Any]:
    """A model's sidecar JSON, checked to be a gpusched sidecar (the weights are not touched).

    The fields of :class:`Sidecar` come back validated (with their defaults when absent).

    :raises ModelError: for a missing, unreadable or oversized sidecar, one that holds a
        non-finite number, one of another format, or a field of :class:`Sidecar` of the wrong type
        or out of bounds.
    """
    side = sidecar_path(model_path)
    if not is_file(side):
        raise ModelError(f"model '{model_path.name}' has no sidecar '{side.name}'")
    label = f"sidecar '{side.name}'"
    text = read_user_text(side, label=label, max_bytes=MAX_SIDECAR_BYTES, error=ModelError)
    meta = load_json_text(text, label=label, error=ModelError)
    if not isinstance(meta, dict) or meta.get("format") != SIDECAR_FORMAT:
        raise ModelError(f"sidecar '{side.name}' is not a {SIDECAR_FORMAT} sidecar")
    try:
        checked = Sidecar.model_validate(meta)
    except ValidationError as exc:
        raise ModelError(validation_message(exc, label)) from None
    return {**meta, **checked.model_dump(include=set(_LOADING_FIELDS))}


def read_sidecar(model_path: Path) -> dict[str, Any]:
    """The checked sidecar of a model before its weights load: :func:`load_sidecar`, a known
    observation version, and the zip's sha256.

    :raises ModelError: for a missing or malformed sidecar, an unknown observation version, or a
        zip whose sha256 does not match.
    """
    from gpusched.env.env import ENV_OBS_VERSIONS as OBS_VERSIONS

    try:
        meta = load_sidecar(model_path)
    except ModelError as exc:
        raise ModelError(f"{exc}; refusing to load it") from None
    if meta.get("obs_version") not in OBS_VERSIONS:
        raise ModelError(f"model '{model_path.name}' uses observation version {meta.get('obs_version')!r}; "
                         f"this gpusched reads versions {', '.join(map(str, OBS_VERSIONS))}")
    if sha256_of(model_path) != meta.get("sha256"):
        raise ModelError(f"model '{model_path.name}' does not match the sha256 in its sidecar "
                         "(modified or corrupted); refusing to load it")
    return meta


@dataclass
class LoadedAgent:
    """Checked weights and their sidecar. :meth:`policy` builds the network; a scheduling policy is
    :class:`gpusched.agent.scheduler.AgentScheduler` over it."""

    path: Path
    meta: dict[str, Any]
    state_dict: dict[str, Any]

    _policies: dict[tuple[int, int], Any] = field(default_factory=dict, init=False, repr=False,
                                                  compare=False)
    """Built policies by slot counts: runs share them (an inference-only policy holds no state)."""

    @property
    def windowed(self) -> bool:
        """Whether the model chooses among a queue window (observation version 3)."""
        from gpusched.env.window import WINDOW_OBS_VERSIONS

        return int(self.meta["obs_version"]) in WINDOW_OBS_VERSIONS

    def policy(self, max_gpus: int, max_window: int = 1):
        """An inference-only policy (no optimizer) for an observation with ``max_gpus`` GPU slots
        (and, for a window model, ``max_window`` job slots), with these weights; built once per
        slot counts (about 0.1 s each)."""
        key = (max_gpus, max_window if self.windowed else 1)
        if key not in self._policies:
            self._policies[key] = self._build_policy(*key)
        return self._policies[key]

    def _build_policy(self, max_gpus: int, max_window: int):
        from gpusched.agent.network import GpuSetPolicy, WindowSetPolicy

        spaces = _spaces(max_gpus, max_window, self.meta)
        cls = WindowSetPolicy if self.windowed else GpuSetPolicy
        policy = cls(spaces[0], spaces[1], lambda _: 0.0, hidden=int(self.meta["hidden"]), trainable=False)
        try:
            policy.load_state_dict(self.state_dict, strict=True)
        except RuntimeError:
            raise ModelError(f"model '{self.path.name}': weights do not match the architecture in "
                             "its sidecar") from None
        policy.set_training_mode(False)
        return policy


def _spaces(max_gpus: int, max_window: int, meta: dict[str, Any]):
    from gymnasium import spaces

    from gpusched.env.observation import observation_space
    from gpusched.env.window import WINDOW_OBS_VERSIONS, window_action_space, window_observation_space

    version = int(meta["obs_version"])
    if version in WINDOW_OBS_VERSIONS:
        return (window_observation_space(max_window, max_gpus, version),
                window_action_space(max_window, max_gpus))
    return observation_space(max_gpus, version), spaces.Discrete(max_gpus + 1)


def _check_weights(path: Path, state: dict[str, Any], torch) -> None:
    """Refuse weights that are NaN, infinite or larger than :data:`gpusched.limits.MAX_MODEL_WEIGHT`
    (a tampered zip whose sidecar's sha256 was updated): such a network's scores are NaN, and a
    masked argmax of NaN would silently take the first valid action."""
    for name, tensor in state.items():
        if not isinstance(tensor, torch.Tensor) or not tensor.is_floating_point() or not tensor.numel():
            continue
        if not bool(torch.isfinite(tensor).all()):
            raise ModelError(f"model '{path.name}': weight '{shorten(name)}' holds NaN or infinite "
                             "values; refusing to load it")
        largest = float(tensor.abs().max())
        if largest > MAX_MODEL_WEIGHT:
            raise ModelError(f"model '{path.name}': weight '{shorten(name)}' holds {largest:.3g}, beyond "
                             f"the limit of {MAX_MODEL_WEIGHT:g} (MAX_MODEL_WEIGHT); refusing to load it")


def load_agent(ref: str | Path) -> LoadedAgent:
    """Load a model safely (see the module docstring).

    :param ref: model path (``.zip``), absolute or relative to the cwd or a model folder.
    :raises ModelError: for a file outside the model folders, without a sidecar, with an unknown
        observation version, tampered with, or whose weights do not fit the architecture.
    """
    path = resolve_model(ref)
    meta = read_sidecar(path)
    try:
        import torch
    except ModuleNotFoundError:
        raise ModelError("the RL agent needs the 'torch' package (pip install -r requirements.txt)") from None
    try:
        with zipfile.ZipFile(path) as zf:
            raw = zf.read("policy.pth")
        state = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except Exception as exc:  # a bad zip, a missing entry, or non-tensor content
        raise ModelError(f"model '{path.name}': cannot read its weights ({type(exc).__name__})") from None
    if not isinstance(state, dict):
        raise ModelError(f"model '{path.name}': policy.pth is not a state dict")
    _check_weights(path, state, torch)
    agent = LoadedAgent(path, meta, state)
    agent.policy(int(meta.get("max_gpus", 8)), int(meta.get("max_window", 1)))  # fail now, not later
    return agent


# ---------------------------------------------------------------------------- the list of models
@dataclass
class ModelInfo:
    """A model file and what its sidecar says (listing reads only the JSON, never the weights).

    :param path: the model file.
    :param origin: ``shipped`` or ``user``.
    :param meta: the sidecar JSON (empty when it is missing or unreadable).
    :param error: why the sidecar could not be read, or ``""``.
    """

    path: Path
    origin: str
    meta: dict = field(default_factory=dict)
    error: str = ""

    @property
    def name(self) -> str:
        """The model's file name without extension."""
        return self.path.stem

    @property
    def policy_name(self) -> str:
        """The registry name that runs this model (``ppo:PATH``)."""
        try:
            rel = self.path.relative_to(REPO_ROOT)
        except ValueError:
            rel = self.path
        return f"{AGENT_POLICY}:{rel.as_posix()}"

    @property
    def windowed(self) -> bool:
        """Whether the model chooses among a queue window (its sidecar records job slots,
        ``max_window``; read without importing the environment)."""
        return self.meta.get("max_window") is not None


def list_models(dirs: list[Path] | None = None) -> list[ModelInfo]:
    """Every ``.zip`` model in the model folders (:func:`model_dirs`, or ``dirs``) with its sidecar
    metadata, shipped first, then by name. Only the sidecars are read."""
    out: list[ModelInfo] = []
    shipped = SHIPPED_MODELS_DIR.resolve()
    for folder in model_dirs() if dirs is None else dirs:
        if not folder.is_dir():
            continue
        origin = "shipped" if folder.resolve() == shipped else "user"
        for path in sorted(folder.glob("*.zip")):
            info = ModelInfo(path=path, origin=origin)
            try:
                info.meta = load_sidecar(path)
            except ModelError as exc:
                info.error = str(exc)
            out.append(info)
    return out
