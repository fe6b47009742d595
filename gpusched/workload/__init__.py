"""Where clusters and jobs come from: validated scenario files, the synthetic job generator,
readers of Alibaba's openb trace that turn real pods and nodes into simulator jobs and clusters,
and readers of Shockwave's real-cluster files and Microsoft's Philly trace."""
