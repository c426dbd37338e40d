"""Data-quality checks over landed ledger tables (Great Expectations 1.x, loaded lazily)."""
