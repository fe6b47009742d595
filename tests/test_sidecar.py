"""Model sidecars are validated like scenarios: the fields loading relies on have types and bounds,
and the list of models shows a bad sidecar's one-line reason instead of failing."""

from __future__ import annotations

import json
import shutil

import pytest
from hostile_inputs import CASES

from gpusched.agent.models import (
    ModelError,
    Sidecar,
    list_models,
    load_sidecar,
    read_sidecar,
    sha256_of,
    write_model,
)
from gpusched.errors import GpuschedError
from gpusched.paths import SHIPPED_MODELS_DIR

SHIPPED = SHIPPED_MODELS_DIR / "ppo-default.zip"


def test_the_shipped_sidecar_validates_and_keeps_every_field():
    meta = read_sidecar(SHIPPED)
    raw = json.loads(SHIPPED.with_suffix(".json").read_text())
    assert meta == raw  # every field as written; the checked ones already had the right types
    assert Sidecar.model_validate(raw).max_gpus == 16


def test_absent_optional_fields_get_the_defaults_loading_used(tmp_path):
    shutil.copy(SHIPPED, tmp_path / "m.zip")
    raw = json.loads(SHIPPED.with_suffix(".json").read_text())
    for key in ("max_gpus", "queue_window", "vram_scale_gb"):
        raw.pop(key)
    (tmp_path / "m.json").write_text(json.dumps(raw))
    meta = load_sidecar(tmp_path / "m.zip")
    assert (meta["max_gpus"], meta["queue_window"], meta["vram_scale_gb"]) == (8, 8, 80.0)


SIDECAR_CASES = [c for c in CASES if c.cls == "sidecar"]


@pytest.mark.parametrize("case", SIDECAR_CASES, ids=[c.id for c in SIDECAR_CASES])
def test_the_model_list_shows_why_a_sidecar_is_refused(case, tmp_path):
    models = tmp_path / "models"
    for name, content in case.files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    infos = list_models([models])
    assert [i.name for i in infos] == ["m"]
    try:
        read_sidecar(models / "m.zip")
    except ModelError as exc:
        message = str(exc)
    else:
        pytest.fail("a hostile sidecar was accepted")
    assert "\n" not in message and all(n in message for n in case.needles)
    if infos[0].error:  # a format or field error is found by listing; version and hash on load
        assert infos[0].error in message and not infos[0].meta


def test_both_shipped_sidecars_validate_every_field_they_hold():
    for name in ("ppo-default", "ppo-window"):
        raw = json.loads((SHIPPED_MODELS_DIR / f"{name}.json").read_text())
        checked = Sidecar.model_validate(raw)
        assert checked.eval is not None and checked.timesteps == raw["timesteps"]
        assert checked.max_window == (16 if name == "ppo-window" else None)


def test_a_model_and_its_sidecar_are_written_together(tmp_path):
    out = tmp_path / "m.zip"
    write_model(out, lambda path: shutil.copy(SHIPPED, path), {"obs_version": 1, "hidden": 64,
                                                               "eval": {"x": float("nan")}})
    meta = json.loads(out.with_suffix(".json").read_text())
    assert meta["sha256"] == sha256_of(out) and meta["eval"] == {"x": None}  # null, never NaN
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json", "m.zip"]


def test_a_model_whose_sidecar_cannot_be_written_leaves_neither_file(tmp_path, monkeypatch):
    """The sidecar is written after the zip; when that fails (here: the disk is full), the zip is
    not kept either, and an older model at the same path stays as it was."""
    import errno

    from gpusched.agent import models

    out = tmp_path / "m.zip"
    out.write_bytes(b"old model")

    def disk_full(path):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(models, "sha256_of", disk_full)
    with pytest.raises(GpuschedError, match="No space left on device.*nothing was written"):
        write_model(out, lambda path: shutil.copy(SHIPPED, path), {"hidden": 64})
    assert out.read_bytes() == b"old model" and not out.with_suffix(".json").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.zip"]


def test_a_checked_config_keeps_its_values_in_their_types_so_the_loader_accepts_its_sidecar():
    """``--set timesteps=0.0`` is the whole number 0 once checked, as the sidecar must hold it."""
    from gpusched.agent.config import TrainConfig
    from gpusched.agent.train import sidecar_settings
    from gpusched.workload.presets import load_scenario

    config = TrainConfig(scenario="ll-stall-mini")
    config.set("timesteps", 0.0)
    config.set("obs_version", 4)  # a window agent's: a FIFO agent refuses random_windows
    config.set("random_windows", [1, 4])
    config.check()
    assert type(config.timesteps) is int and config.random_windows == (1, 4)
    meta = {"format": "gpusched-ppo", **sidecar_settings(config, load_scenario("ll-stall-mini")),
            "sha256": "0" * 64}
    assert Sidecar.model_validate(json.loads(json.dumps(meta))).timesteps == 0


def test_an_agent_whose_scores_are_not_finite_fails_loudly_never_takes_the_first_valid_action():
    """Weights that pass loading but score an observation NaN (here, set after loading) stop the
    run with one line, instead of a masked argmax of NaN, which is the first valid action."""
    import torch

    from gpusched.agent.models import load_agent
    from gpusched.agent.scheduler import agent_scheduler
    from gpusched.workload.build import make_simulator
    from gpusched.workload.presets import load_scenario

    agent = load_agent(SHIPPED)
    sim = make_simulator(load_scenario("ll-stall-mini"), n_jobs=5)
    scheduler = agent_scheduler(agent)
    scheduler.bind(sim.view)
    with torch.no_grad():
        next(iter(scheduler._policy.parameters())).fill_(float("nan"))
    with pytest.raises(ModelError, match="NaN or infinite") as caught:
        sim.run(scheduler)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("value", [None, "exact", "none", "history", {"lognormal": 1.0},
                                   {"history": {"keys": [["model"]], "prior_min": 30, "min_samples": 2}},
                                   {"history": {"keys": [["model"]], "prior_min": 30, "min_samples": 2,
                                                "recent": 5}}])
def test_a_sidecar_keeps_every_declared_run_time_training_can_write(value, tmp_path):
    shutil.copy(SHIPPED, tmp_path / "m.zip")
    raw = json.loads(SHIPPED.with_suffix(".json").read_text())
    raw["config"] = {**raw["config"], "declared_run_time": value}
    (tmp_path / "m.json").write_text(json.dumps(raw))
    assert load_sidecar(tmp_path / "m.zip")["config"]["declared_run_time"] == value


@pytest.mark.parametrize("value", ["banana", "", 5, True, ["none"], {"lognormal": "1"},
                                   {"lognormal": 1, "history": None}, {"history": {"keys": [["colour"]]}}])
def test_a_sidecar_whose_config_declared_run_time_is_junk_is_refused_at_load(value, tmp_path):
    """It once loaded and ran; now it is refused in one line naming the file and the key."""
    shutil.copy(SHIPPED, tmp_path / "m.zip")
    raw = json.loads(SHIPPED.with_suffix(".json").read_text())
    raw["config"] = {**raw["config"], "declared_run_time": value}
    (tmp_path / "m.json").write_text(json.dumps(raw))
    with pytest.raises(ModelError) as err:
        read_sidecar(tmp_path / "m.zip")
    text = str(err.value)
    assert text.startswith("sidecar 'm.json', config.declared_run_time:") and "\n" not in text, text


def test_the_shipped_urgency_sidecar_names_what_it_was_told():
    meta = read_sidecar(SHIPPED_MODELS_DIR / "ppo-urgency.zip")
    assert meta["config"]["declared_run_time"] == "history"
