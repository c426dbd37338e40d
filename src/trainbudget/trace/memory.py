"""Memory peaks per device from the `[memory]` events of `profile_memory=True` (bytes).

Each event carries the allocator's `Total Allocated` after an allocation or a free on one
device (`Device Type`, a c10::DeviceType number, and `Device Id`; CPU allocations have id -1).
"""

from __future__ import annotations

# c10::DeviceType numbers → torch's device names (ROCm builds report HIP devices as cuda).
_DEVICE_TYPES = {0: "cpu", 1: "cuda", 6: "hip", 9: "xla", 12: "xpu", 13: "mps", 15: "hpu"}
_DEVICE_TYPES |= {19: "mtia", 20: "privateuseone"}


def device_name(device_type: int, device_id: int) -> str:
    """torch's name of a `[memory]` event's device: `cpu` (one host pool), `cuda:0`, …"""
    kind = _DEVICE_TYPES.get(device_type, f"device{device_type}")
    return kind if kind == "cpu" or device_id < 0 else f"{kind}:{device_id}"


def memory_peaks(memory: list[tuple[int, int, int]]) -> dict[str, int]:
    """Largest `Total Allocated` (bytes) per device, from (device type, id, allocated)."""
    peaks: dict[str, int] = {}
    for device_type, device_id, allocated in memory:
        key = device_name(device_type, device_id)
        peaks[key] = max(peaks.get(key, allocated), allocated)
    return peaks


def peak_device(peaks: dict[str, int]) -> str | None:
    """The device `memory_peak_bytes` reports: the fullest accelerator, else the CPU."""
    accelerators = {k: v for k, v in peaks.items() if k != "cpu"}
    pool = accelerators or peaks
    return max(pool, key=lambda k: (pool[k], k)) if pool else None
