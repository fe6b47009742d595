"""The one replay of the running jobs' releases at their declared ends (core/releases.py), checked
against a plain reading of its definition on runs with many jobs running at once."""

from __future__ import annotations

import numpy as np
import pytest

from gpusched.core.cluster import job_vram_gb
from gpusched.core.releases import ReleaseTimeline
from gpusched.policies import get_policy
from gpusched.workload.build import make_simulator
from gpusched.workload.presets import load_scenario


def _busy_views(name: str = "fleet-16gpu", decisions: int = 120):
    """The view at every decision of a Best-Fit run with at least two jobs running."""
    sim = make_simulator(load_scenario(name), seed=1, n_jobs=200)
    policy = get_policy("best_fit")
    sim.reset()
    seen = 0
    while not sim.run_state.done and seen < decisions:
        view = sim.view
        if view.running_count >= 2:
            seen += 1
            yield view
        sim.step(policy.select(view.state, view.head_job))


def _plain_releases(view):
    return sorted((float(view.declared_end_min[i]), i) for i in range(len(view.declared_min))
                  if view.is_running(i))


def test_the_timeline_releases_every_running_job_at_its_declared_end_soonest_first():
    checked = 0
    for view in _busy_views():
        timeline = ReleaseTimeline(view)
        plain = _plain_releases(view)
        assert timeline.releases == plain
        assert view.running_by_declared_end() == plain
        grouped = [(end, sorted(ids)) for end, ids in timeline.instants()]
        ends = sorted({e for e, _ in plain})
        assert [e for e, _ in grouped] == ends
        for end, ids in grouped:
            assert ids == sorted(i for e, i in plain if e == end)
        nodes = timeline.by_node()
        assert sorted(r for rs in nodes.values() for r in rs) == plain
        for node, rs in nodes.items():
            assert rs == sorted(rs)
            assert all(view.cluster.gpu_node[view.job_gpus[i][0]] == node for _, i in rs)
        checked += 1
    assert checked > 20


def test_each_gpus_first_and_last_release_is_its_running_jobs_soonest_and_latest_declared_end():
    for view in _busy_views():
        first, last = view.gpu_release_min()
        for g in range(view.cluster.n_gpus):
            lefts = [e - view.time_min for e, i in _plain_releases(view) if g in view.job_gpus[i]]
            assert first[g] == (min(lefts) if lefts else 0.0)
            assert last[g] == (max(lefts) if lefts else 0.0)


@pytest.mark.parametrize("name", ["fleet-16gpu", "phase1-8gpu"])
def test_giving_back_every_running_job_frees_the_whole_cluster(name):
    """Replaying every release into the free VRAM and compute gives each GPU its whole capacity."""
    for view in _busy_views(name, decisions=30):
        vram = view.state.vram_free_gb.tolist()
        compute = view.state.compute_free.tolist()
        timeline = ReleaseTimeline(view)
        for _, ids in timeline.instants():
            for i in ids:
                job = timeline.give_back(i, vram, compute)
                assert job is view.jobs[i]
        np.testing.assert_allclose(vram, view.cluster.gpu_vram_gb, atol=1e-9)
        np.testing.assert_allclose(compute, 1.0, atol=1e-9)
        one = next(iter(timeline.releases))[1]
        vram2 = view.state.vram_free_gb.tolist()
        timeline.give_back(one, vram2, view.state.compute_free.tolist())
        for g in view.job_gpus[one]:
            expected = view.state.vram_free_gb[g] + job_vram_gb(view.jobs[one], view.cluster.gpu_vram_gb[g])
            assert vram2[g] == expected
