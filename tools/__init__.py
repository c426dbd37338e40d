"""Development tools: run from the repository root, not shipped in the package."""
