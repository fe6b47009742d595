"""Experiments on the simulator: policies run on the same jobs over seeds (with their comparison),
and the stall analysis of a run. Results are numbers and names; labels and prose live in
:mod:`gpusched.figures`."""
