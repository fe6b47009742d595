"""Where clusters and jobs come from: validated scenario files, the synthetic job generator, and
readers of Alibaba's openb trace that turn real pods and nodes into simulator jobs and clusters."""
