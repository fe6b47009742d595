"""Words: what pages, figures and the command line call each metric (labels, units, tooltips) and
the glossary's prose. Above the analysis (``core`` up to ``experiment``), which returns numbers and
registry names; below ``figures``, ``dashboard`` and ``cli``, which show them."""
