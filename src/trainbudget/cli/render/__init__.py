"""Terminal renderers, one module per stage: rich tables from a command's JSON payload."""
