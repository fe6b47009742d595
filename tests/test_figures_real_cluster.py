"""The real-cluster comparison as the dashboard draws it: the frames of
:mod:`gpusched.dashboard.real_cluster` on a small hand-made comparison (values known), and the
figures of :mod:`gpusched.figures.real_cluster` (one bar per side and policy, with the simulators'
errors; one point per job over the ±10 % band), and the shipped file read the same way."""

from __future__ import annotations

import numpy as np
import pytest

from gpusched.dashboard.real_cluster import (
    OURS,
    REAL,
    SHOCKWAVE_SIM,
    SOURCES,
    real_cluster_frame,
    real_cluster_jobs,
    real_cluster_summary,
    real_cluster_table,
    shipped_real_cluster,
)
from gpusched.figures.real_cluster import real_cluster_bars, real_cluster_scatter
from gpusched.policies import policy_label


def _side(avg_s: float, makespan_s: float, err: float, mk_err: float, within: float) -> dict:
    return {"avg_jct_s": avg_s, "makespan_s": makespan_s, "jct_error_pct": err,
            "makespan_error_pct": mk_err, "within_pct": within, "rho_mean": 1.0}


def _data() -> dict:
    """Two policies of four jobs. ``a``: ours 3 of 4 jobs within 10 % (75 %), average +5 %;
    Shockwave's simulator 50 %. ``b``: ours 1 of 4 (25 %), average −20 %; theirs 100 %."""
    real_a, ours_a = [600.0, 1200.0, 1800.0, 2400.0], [600.0, 1260.0, 1890.0, 3000.0]
    real_b, ours_b = [600.0, 600.0, 600.0, 600.0], [600.0, 420.0, 480.0, 420.0]
    return {
        "shared": ["a", "b"], "restore_s": 20.0,
        "references": {
            "a": {"real": {"avg_jct_s": 1500.0, "makespan_s": 6000.0, "rho_mean": 1.0, "jct_s": real_a},
                  "shockwave_sim": _side(1530.0, 6600.0, 2.0, 10.0, 50.0)},
            "b": {"real": {"avg_jct_s": 600.0, "makespan_s": 3000.0, "rho_mean": 1.0, "jct_s": real_b},
                  "shockwave_sim": _side(630.0, 2940.0, 5.0, -2.0, 100.0)},
        },
        "runs": {"a": {**_side(float(np.mean(ours_a)), 5400.0, 5.0, -10.0, 75.0), "jct_s": ours_a},
                 "b": {**_side(float(np.mean(ours_b)), 3600.0, -20.0, 20.0, 25.0), "jct_s": ours_b}},
    }


def test_the_frames_hold_each_side_in_minutes_and_the_jobs_within_ten_percent():
    data = _data()
    frame = real_cluster_frame(data).set_index(["policy", "source"])
    assert frame.loc[("a", REAL), "avg_jct_min"] == pytest.approx(25.0)
    assert frame.loc[("a", SHOCKWAVE_SIM), "makespan_min"] == pytest.approx(110.0)
    assert frame.loc[("b", OURS), "jct_error_pct"] == pytest.approx(-20.0)
    jobs = real_cluster_jobs(data)
    assert jobs.groupby("policy")["within"].mean().to_dict() == {"a": 0.75, "b": 0.25}
    table = real_cluster_table(real_cluster_frame(data)).set_index(["policy", "side"])
    assert table.loc[("b", SHOCKWAVE_SIM), "jobs within 10 % (%)"] == 100.0
    assert table.loc[("a", OURS), "avg JCT (min)"] == "28.1 (+5.0 %)"
    assert table.loc[("b", OURS), "makespan (min)"] == "60.0 (+20.0 %)"
    assert table.loc[("b", SHOCKWAVE_SIM), "makespan (min)"] == "49.0 (\u22122.0 %)"
    assert table.loc[("a", REAL), "makespan (min)"] == "100.0"
    assert np.isnan(table.loc[("a", REAL), "jobs within 10 % (%)"])


def test_the_summary_counts_the_close_policies_and_the_per_job_shortfalls():
    s = real_cluster_summary(_data())
    assert s.close == ("a",)
    assert s.ours_mean_abs_pct == pytest.approx(12.5)
    assert s.sim_mean_abs_pct == pytest.approx(3.5)
    assert s.short == (("b", 25.0, 100.0),)
    assert (s.ours_worst_makespan_pct, s.sim_worst_makespan_pct) == (20.0, 10.0)
    assert s.jobs == 4
    assert s.sim_costs is None  # no runs told Shockwave's simulator's costs
    told = {p: {"shockwave": {"sim_jct_error_pct": e}} for p, e in (("a", -3.5), ("b", 1.25))}
    s = real_cluster_summary(_data() | {"shockwave_costs": {"resume_s": 20.0, "move_s": 0.0, "runs": told}})
    assert s.sim_costs == (20.0, 3.5, 2)


def test_the_bars_show_each_side_of_each_policy_with_the_simulators_errors():
    frame = real_cluster_frame(_data())
    fig = real_cluster_bars(frame)
    assert [t.name for t in fig.data] == [*SOURCES, *SOURCES]
    jct, makespan = fig.data[:3], fig.data[3:]
    assert [x.replace("<br>", " ") for x in jct[0].x] == [policy_label("a"), policy_label("b")]
    assert list(jct[0].y) == pytest.approx([25.0, 10.0])
    assert list(makespan[2].y) == pytest.approx([90.0, 60.0])
    assert list(jct[0].text) == ["", ""]
    assert list(jct[2].text) == ["+5.0 %", "−20.0 %"]
    assert list(makespan[1].text) == ["+10.0 %", "−2.0 %"]
    assert len({t.marker.color for t in jct}) == 3
    assert fig.layout.paper_bgcolor is None and fig.layout.plot_bgcolor is None


def test_the_scatter_draws_every_job_over_the_ten_percent_band():
    fig = real_cluster_scatter(real_cluster_jobs(_data()))
    band, diagonal, *points = fig.data
    assert list(band.x) == pytest.approx([0, 52.5, 52.5, 0])
    assert list(band.y) == pytest.approx([0, 1.1 * 52.5, 0.9 * 52.5, 0])
    assert list(diagonal.y) == pytest.approx([0, 52.5])
    assert [t.name for t in points] == [f"{policy_label('a')} (75 % within)",
                                        f"{policy_label('b')} (25 % within)"]
    assert list(points[1].y) == pytest.approx([10.0, 7.0, 8.0, 7.0])
    assert fig.layout.paper_bgcolor is None


def test_the_shipped_comparison_draws_every_shared_policy_and_job():
    data = shipped_real_cluster()
    assert data is not None
    fig = real_cluster_scatter(real_cluster_jobs(data))
    points = fig.data[2:]
    assert len(points) == len(data["shared"])
    for trace, policy in zip(points, data["shared"], strict=True):
        assert len(trace.x) == len(data["references"][policy]["real"]["jct_s"])
        assert f"({data['runs'][policy]['within_pct']:.0f} % within)" in trace.name
