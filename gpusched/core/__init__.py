"""The simulation core: jobs, the cluster and its state, the event-driven simulator, and what a
run produces (its timeline, result, metrics and reward). It imports nothing else of gpusched but
:mod:`gpusched.errors`."""
