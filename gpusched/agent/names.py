"""The agent's registry names, defined once."""

AGENT_POLICY = "ppo"
"""Registry name of the trained agent's greedy choice (the shipped model; ``ppo:PATH`` for another)."""
ROLLOUT_AGENT_POLICY = "ppo_rollout"
"""Registry name of the trained agent deciding with rollouts of itself (slower, better)."""
URGENCY_AGENT_POLICY = "ppo_urgency"
"""Registry name of the shipped urgency agent: trained with run times predicted from history, it
runs whether or not run times are declared (:data:`gpusched.paths.URGENCY_MODEL`)."""
AGENT_POLICIES: tuple[str, ...] = (AGENT_POLICY, ROLLOUT_AGENT_POLICY)
"""The agent's two modes, in the order pages offer them."""
INSPECT_AGENT_POLICY = "ppo_inspect"
"""Registry name prefix of an inspector agent over a rule: ``ppo_inspect:RULE`` runs the model
``inspect/RULE.zip`` of a model folder (:mod:`gpusched.agent.inspect`)."""
TUNED_POLICY = "tuned"
"""Registry name prefix of a tuned rule: ``tuned:NAME`` runs the weights ``tuned/NAME.npz`` of a
model folder (:mod:`gpusched.policies.tuned`)."""
DEFAULT_TUNED = "fleet-16gpu"
"""The shipped tuned rule that ``tuned`` alone runs (``tuned/fleet-16gpu.npz``)."""
DEFAULT_INSPECT = "sjf+first_fit"
"""The shipped inspector that ``ppo_inspect`` alone runs (``inspect/sjf+first_fit.zip``)."""
