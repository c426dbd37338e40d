"""A run's report: one self-contained HTML file and the same content as markdown."""
