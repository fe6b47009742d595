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
