"""Pilot step logs: ingest, per-shape statistics, measured MFU, landing, and PilotRecorder.

Nothing here imports torch except `recorder`, and only when a recorder is used.
"""
