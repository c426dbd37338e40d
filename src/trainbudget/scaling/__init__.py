"""Scaling-law fit, bootstrap intervals and the predicted gain (DESIGN.md, "Layout")."""
