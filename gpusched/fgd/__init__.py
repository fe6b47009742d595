"""The FGD paper's scheduling math: typical pods, node fragmentation and the six policies' scores.

Modules:

- :mod:`gpusched.fgd.typical_pods`: the popular pod shapes FGD measures fragmentation against;
- :mod:`gpusched.fgd.fragmentation`: a node's fragmentation amount (milli-GPU), cached by node
  state;
- :mod:`gpusched.fgd.nodes`: a lean, integer milli-GPU node state (the allocation experiment's hot
  loop);
- :mod:`gpusched.fgd.scoring`: each policy's node score and its GPU choice inside the chosen node.
"""
