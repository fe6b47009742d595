"""What the dashboard can offer: the registered policies, and the trained agent models on disk.

Models live in two folders: the shipped ones in ``assets/models/`` and the user's own in
``models/``. A model is a ``.zip`` file with a sidecar JSON of the same name that says what it
was trained on and how it evaluated. Nothing here loads a model: listing only reads the JSON.
"""

from __future__ import annotations

import contextlib
import importlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from gpusched.policies import heuristic_names, policy_names

REPO_ROOT = Path(__file__).resolve().parent.parent
SHIPPED_MODELS_DIR = REPO_ROOT / "assets" / "models"
"""Folder of the models shipped with the repository."""
USER_MODELS_DIR = REPO_ROOT / "models"
"""Folder of the user's own trained models (git-ignored)."""

AGENT_POLICY = "ppo"
"""Registry name of the trained agent."""
ROLLOUT_AGENT_POLICY = "ppo_rollout"
"""Registry name of the trained agent deciding with rollouts of itself (slower, better)."""


@dataclass
class ModelInfo:
    """A model file and what its sidecar says.

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


def list_models(dirs: tuple[Path, ...] = (SHIPPED_MODELS_DIR, USER_MODELS_DIR)) -> list[ModelInfo]:
    """Every ``.zip`` model in ``dirs`` with its sidecar metadata (shipped first, then by name)."""
    out: list[ModelInfo] = []
    for folder in dirs:
        origin = "shipped" if folder == SHIPPED_MODELS_DIR else "user"
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.zip")):
            info = ModelInfo(path=path, origin=origin)
            sidecar = path.with_suffix(".json")
            if sidecar.is_file():
                try:
                    info.meta = json.loads(sidecar.read_text(encoding="utf-8"))
                    if not isinstance(info.meta, dict):
                        info.meta, info.error = {}, "sidecar is not a JSON object"
                except (OSError, json.JSONDecodeError) as exc:
                    info.error = f"sidecar unreadable: {exc}"
            else:
                info.error = "no sidecar JSON"
            out.append(info)
    return out


SHIPPED_AGENT_MODEL = SHIPPED_MODELS_DIR / "ppo-default.zip"
"""The model the registry name ``ppo`` loads."""


def agent_available() -> bool:
    """Whether the ``ppo`` policy is registered and its shipped model exists.

    Imports ``gpusched.agent`` when it is installed; never raises.
    """
    try:
        agent = importlib.import_module("gpusched.agent")
    except Exception:  # a broken or missing optional part must not break the dashboard
        return False
    default = SHIPPED_AGENT_MODEL
    with contextlib.suppress(Exception):  # older agent packages: keep the documented name
        default = importlib.import_module("gpusched.agent.save_util").DEFAULT_MODEL
    return bool(agent) and AGENT_POLICY in policy_names() and Path(default).is_file()


def training_available() -> bool:
    """Whether the agent's training code (and its heavy dependencies) can be imported."""
    try:
        importlib.import_module("gpusched.agent.train")
    except Exception:  # torch, sb3 or the agent package missing: no training from the page
        return False
    return True


def dashboard_policies() -> list[str]:
    """The policies the dashboard offers: every heuristic, then ``ppo`` and ``ppo_rollout`` when
    the agent is available."""
    names = heuristic_names()
    if agent_available():
        names += [AGENT_POLICY, ROLLOUT_AGENT_POLICY]
    return names
