"""Below every stage: the words two stages share (vocabulary), the error a user sees (errors),
the bounds on untrusted input (limits) and JSON with exact numbers (exact_json). Imports
nothing of trainbudget above it."""
