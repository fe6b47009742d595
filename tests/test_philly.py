"""Microsoft's Philly trace (gpusched/workload/philly.py): a small hand-made CSV reads back as its
jobs, with each job's virtual cluster and GPU count kept, and the shipped sample holds what its
README says."""

from __future__ import annotations

import numpy as np
import pytest
from hostile_inputs import PHILLY_CSV

from gpusched.paths import PHILLY_SAMPLE
from gpusched.workload.philly import PHILLY_COLUMNS, read_philly


def test_a_hand_made_csv_reads_back_as_its_jobs(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text(PHILLY_CSV, encoding="utf-8")
    jobs = read_philly(path)
    assert len(jobs) == 4 and jobs.source == str(path)
    assert jobs.start == "2017-09-29 07:58:32"          # the earliest submission, not the first row
    # seconds after 2017-09-29 07:58:32: 9 days 23:03:23 for the first row, and so on
    day, hour = 86400, 3600
    assert jobs.submit_s.tolist() == [9 * day + 23 * hour + 3 * 60 + 23, 9 * day + 22 * hour + 14 * 60 + 31,
                                      0, 9 * day + 22 * hour + 15 * 60 + 4]
    assert jobs.duration_s.tolist() == [66.0, 2951.0, 860662.0, 2759.0]
    assert jobs.num_gpus.tolist() == [1, 2, 1, 8] and jobs.num_gpus.dtype == np.int64
    assert jobs.cluster == ("11cb48", "6214e9", "6c71a0", "6214e9")
    assert jobs.count_by_cluster() == {"6214e9": 2, "11cb48": 1, "6c71a0": 1}
    assert jobs.count_by_gpus() == {1: 2, 2: 1, 8: 1}
    assert jobs.by_submission().tolist() == [2, 1, 3, 0]


def test_the_columns_may_come_in_any_order_and_gpu_time_may_be_missing(tmp_path):
    original, shuffled = tmp_path / "a.csv", tmp_path / "b.csv"
    original.write_text(PHILLY_CSV, encoding="utf-8")
    rows = [line.split(",") for line in PHILLY_CSV.strip().split("\n")]
    order = [4, 2, 0, 1]  # cluster, num_gpus, timestamp, duration; no gpu_time
    shuffled.write_text("".join(",".join(r[i] for i in order) + "\n" for r in rows), encoding="utf-8")
    a, b = read_philly(original), read_philly(shuffled)
    assert a.cluster == b.cluster and a.start == b.start
    for name in ("submit_s", "duration_s", "num_gpus"):
        assert np.array_equal(getattr(a, name), getattr(b, name))


def test_the_shipped_sample_holds_what_its_readme_says():
    jobs = read_philly(PHILLY_SAMPLE)
    header = PHILLY_SAMPLE.read_text(encoding="utf-8").splitlines()[0].split(",")
    assert len(jobs) == 306 and set(PHILLY_COLUMNS) <= set(header)
    assert len(jobs.count_by_cluster()) == 15
    assert list(jobs.count_by_cluster().items())[:4] == [("6214e9", 146), ("11cb48", 71), ("6c71a0", 38),
                                                         ("b436b2", 24)]
    assert jobs.count_by_gpus() == {1: 285, 2: 6, 4: 6, 8: 8, 16: 1}
    assert (jobs.duration_s > 0).all() and (jobs.submit_s >= 0).all() and jobs.submit_s.min() == 0


@pytest.mark.parametrize("cell", ["2017-10-09 06:13:03", " 2017-10-09 06:13:03 "])
def test_a_time_with_spaces_around_it_reads_the_same(cell, tmp_path):
    path = tmp_path / "p.csv"
    path.write_text(f"timestamp,duration,num_gpus,cluster\n{cell},10,1,a\n", encoding="utf-8")
    jobs = read_philly(path)
    assert jobs.start == "2017-10-09 06:13:03" and jobs.submit_s.tolist() == [0.0]
