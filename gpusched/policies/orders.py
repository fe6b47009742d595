"""Every queue order, registered once: its name, label, key, whether it reads run times, and
the traits its scheduler is composed from (:class:`~gpusched.policies.order_spec.OrderSpec`).

The registry (:mod:`gpusched.policies.registry`) reads this table alone: it names the orders,
labels ``ORDER+PLACEMENT``, refuses run-time orders where no run time is declared, lists the
shipped pairs and composes each order's scheduler from its traits. The keys are written in
:mod:`gpusched.policies.queue` and :mod:`gpusched.policies.urgency`, the preemptive ranks in
:mod:`gpusched.policies.preemptive`.
"""

from __future__ import annotations

from gpusched.policies.order_spec import OrderSpec
from gpusched.policies.preemptive import LasRank, SrtfRank
from gpusched.policies.queue import las_key, priority_key, sjf_key, srtf_key, wfp3_key
from gpusched.policies.urgency import edf_key, least_slack_key, qssf_key

ORDERS: dict[str, OrderSpec] = {spec.name: spec for spec in (
    OrderSpec("fcfs", "FCFS", head_only=True),
    OrderSpec("fitfirst", "Fit-first"),
    OrderSpec("easy", "EASY", run_times=True, backfills=True),
    OrderSpec("sjf", "SJF", sjf_key, run_times=True),
    OrderSpec("priority", "Priority", priority_key),
    OrderSpec("wfp3", "WFP3", wfp3_key, run_times=True),
    OrderSpec("las", "LAS", las_key, preempts=LasRank),
    OrderSpec("srtf", "SRTF", srtf_key, run_times=True, preempts=SrtfRank),
    OrderSpec("qssf", "QSSF", qssf_key, run_times=True, urgency=True),
    OrderSpec("edf", "EDF", edf_key, urgency=True),
    OrderSpec("least_slack", "Least slack", least_slack_key, run_times=True, urgency=True),
)}
"""The queue orders by name, in the order the pages list them."""
